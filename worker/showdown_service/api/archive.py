"""Where the read API looks for a hand Redis no longer holds: the archive (issue 25), through :func:`lookup`.

It answers for the settings' ``SHOWDOWN_ARCHIVE_URL`` with the same document
as the Redis index (``{"hand_id", "status", "result", "dead_letter",
"audit"}``); see :mod:`showdown_service.storage.lookup` for what counts as an
archive.

It fails closed, as a requeue does (issue 34): when a shard has a registered
archiver (its archive hash is in Redis, so entries past
``SHOWDOWN_ARCHIVE_KEEP`` are only in the archive) and the archive cannot be
read from here, the answer is ``503 archive_unreadable`` naming the setting,
never "unknown": a producer told "unknown" would send the hand again.
"""

from __future__ import annotations

from typing import Any

from showdown_service.api.auth import Refused
from showdown_service.api.index import ArchiveLookup
from showdown_service.infra.config import Settings
from showdown_service.storage.lookup import ArchiveUnreadable, find_archived, registered_archives

STATUS_OF_OUTCOME = {"settled": "settled", "duplicate": "settled", "rejected": "refused", "poison": "refused"}
"""An archived entry's outcome as the API's status (a duplicate's hand was settled, by an earlier entry)."""


def archived_hand(settings: Settings, hand_id: str, registered: dict[str, str] | None = None) -> dict[str, Any] | None:
    """The archive's document for ``hand_id`` (as the API serves a hand), or None when it holds none.
    ``registered``: the shards whose archiver is registered (then an archive that cannot be read raises
    :class:`~showdown_service.storage.lookup.ArchiveUnreadable`)."""
    found = find_archived(settings, hand_id, registered=registered)
    if found is None:
        return None
    status = STATUS_OF_OUTCOME.get(found.outcome or "", "settled" if found.result is not None else "refused")
    return {
        "hand_id": found.hand_id,
        "status": status,
        "result": found.result,
        "dead_letter": found.dead_letter,
        "audit": found.audit,
    }


def lookup(settings: Settings, client: Any = None) -> ArchiveLookup:
    """The archive's hand lookup for these settings. With ``client``, each lookup first asks Redis which of the
    settings' shards have a registered archiver (one round trip), and an archive that cannot be read is a
    ``503 archive_unreadable`` instead of "not here"."""
    keys = [settings.keys(shard) for shard in settings.shards]

    def archived(hand_id: str) -> dict[str, Any] | None:
        registered = registered_archives(client, keys) if client is not None else None
        try:
            return archived_hand(settings, hand_id, registered)
        except ArchiveUnreadable as exc:
            raise Refused(503, "archive_unreadable", str(exc)) from exc

    return archived
