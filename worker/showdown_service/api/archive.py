"""Where the read API looks for a hand Redis no longer holds: the archive (issue 25), through :func:`lookup`.

It answers for the settings' ``SHOWDOWN_ARCHIVE_URL`` with the same document
as the Redis index (``{"hand_id", "status", "result", "dead_letter",
"audit"}``); see :mod:`showdown_service.archive.lookup` for what counts as an
archive.
"""

from __future__ import annotations

from typing import Any

from showdown_service.api.index import ArchiveLookup
from showdown_service.archive.lookup import find_archived
from showdown_service.config import Settings

STATUS_OF_OUTCOME = {"settled": "settled", "duplicate": "settled", "rejected": "refused", "poison": "refused"}
"""An archived entry's outcome as the API's status (a duplicate's hand was settled, by an earlier entry)."""


def archived_hand(settings: Settings, hand_id: str) -> dict[str, Any] | None:
    """The archive's document for ``hand_id`` (as the API serves a hand), or None when it holds none."""
    found = find_archived(settings, hand_id)
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


def lookup(settings: Settings) -> ArchiveLookup:
    """The archive's hand lookup for these settings."""

    def archived(hand_id: str) -> dict[str, Any] | None:
        return archived_hand(settings, hand_id)

    return archived
