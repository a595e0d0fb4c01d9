"""Where the read API looks for a hand Redis no longer holds: the archive (issue 25), through this one function.

Until the archive is part of the service, :func:`lookup` finds nothing: a hand
trimmed from Redis's window is ``unknown``.
"""

from __future__ import annotations

from showdown_service.api.index import ArchiveLookup, no_archive
from showdown_service.config import Settings


def lookup(_settings: Settings) -> ArchiveLookup:
    """The archive's hand lookup for these settings (none yet: :func:`~showdown_service.api.index.no_archive`)."""
    return no_archive
