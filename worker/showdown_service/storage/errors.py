"""The archive's errors, one family under :class:`~showdown_core.errors.ShowdownError`: an archive that cannot be
read, and a write the archive refuses (it would replace, or break, what the archive holds)."""

from __future__ import annotations

from showdown_core.errors import ShowdownError


class ArchiveError(ShowdownError):
    """An archive that cannot be opened, listed or read: the message names the file (and row) and why."""


class ArchiveRefused(ArchiveError):
    """Writing would replace, or break, what the archive holds: the archiver stops writing that shard, loudly.
    ``reason`` is one of a few words (a metric label): ``name_taken``, ``chain_broken``."""

    reason = "chain_broken"
    shard = ""
    """The shard refused (set by the archiver)."""


class NameTaken(ArchiveRefused):
    """The name a file or checkpoint is to be written at exists already: nothing is ever written over."""

    reason = "name_taken"
