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
from showdown_service.read.hands import archived_document
from showdown_service.storage.lookup import ArchiveUnreadable, registered_archives


def lookup(settings: Settings, client: Any = None) -> ArchiveLookup:
    """The archive's hand lookup for these settings. With ``client``, each lookup first asks Redis which of the
    settings' shards have a registered archiver (one round trip), and an archive that cannot be read is a
    ``503 archive_unreadable`` instead of "not here"."""
    keys = [settings.keys(shard) for shard in settings.shards]

    def archived(hand_id: str) -> dict[str, Any] | None:
        registered = registered_archives(client, keys) if client is not None else None
        try:
            return archived_document(settings, hand_id, registered)
        except ArchiveUnreadable as exc:
            raise Refused(503, "archive_unreadable", str(exc)) from exc

    return archived
