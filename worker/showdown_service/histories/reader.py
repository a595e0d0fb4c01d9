"""The one interface every hand history reader has: a :class:`Reader` row (its format's name, its own detection
predicate on the file's :class:`Head`, its read function); each reader module exports its ``READER`` and
:mod:`.run` asks the registered readers in a stated order (most specific first), no central chain of first lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final

from showdown_service.histories.errors import ReplayError
from showdown_service.histories.hands import HandRecord


@dataclass(frozen=True, slots=True)
class Head:
    """The start of a file as detection sees it."""

    line: str
    """The first line that is not blank, a ``#`` comment or an archive export's ``*** # 1 ***`` separator
    (``**********``), stripped."""
    text: str
    """The whole decoded text: a predicate reads only its beginning and says how far (``text[:4000]``, the first
    five lines, the JSON document's opening)."""

    @classmethod
    def of(cls, text: str) -> Head | None:
        """``text``'s head, or ``None`` when it has no line but blanks, comments and separators."""
        for line in text.lstrip("\ufeff").splitlines():
            stripped = line.strip()
            if stripped and not stripped.startswith(("#", "**********")):
                return cls(stripped, text)
        return None


@dataclass(frozen=True, slots=True)
class Reader:
    """One format's reader: ``detect(head)`` says whether a file is in this format (the reader's own predicate,
    on the file's first line and opening), ``read(text, source)`` yields every hand of the file, read, or the
    error that stopped it."""

    name: str
    """The format's name in the report (``pokerstars``, ``888poker``, ...)."""
    detect: Callable[[Head], bool]
    read: Callable[[str, str], Iterator[HandRecord | ReplayError]]


def opens_with(*prefixes: str) -> Callable[[Head], bool]:
    """A predicate: the file's first line starts with one of ``prefixes``."""

    def detect(head: Head) -> bool:
        return head.line.startswith(prefixes)

    return detect


PACIFIC: Final = "888poker"
PARTYPOKER: Final = "partypoker"
_PARTY_STAKES: Final = re.compile(r" (?:USD|EUR|GBP) .* - \w+day, ")


def banner_room(head: Head) -> str | None:
    """888poker or partypoker, the two rooms under ``***** ... Hand History for Game N *****``, or ``None``:
    888poker writes ``... Blinds GAME - *** DATE`` under its banner, partypoker ``STAKES USD GAME - DAY, DATE``;
    the first of the file's first five lines that writes either decides."""
    if not (head.line.startswith("***** ") and " Hand History for Game " in head.line):
        return None
    for line in head.text.replace("\ufeff", "").splitlines()[:5]:
        if " Blinds " in line and " - *** " in line:
            return PACIFIC
        if _PARTY_STAKES.search(line):
            return PARTYPOKER
    return None
