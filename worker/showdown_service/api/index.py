"""The read API's hand index: :class:`showdown_service.read.index.HandIndex` (the read side's, one hand lookup),
whose "the archive is busy" is the API's ``429 archive_busy`` with ``Retry-After``."""

from __future__ import annotations

from showdown_service.api.auth import Refused
from showdown_service.read import index
from showdown_service.read.index import ArchiveLookup, no_archive

__all__ = ["ArchiveLookup", "HandIndex", "no_archive"]


class HandIndex(index.HandIndex):
    """The read side's hand index, refusing as the API refuses."""

    def busy(self) -> Exception:
        return Refused(
            429, "archive_busy", "the archive is answering as many lookups as it may at once: ask again",
            {"Retry-After": "1"},
        )  # fmt: skip
