"""Tournament summaries: what a room says of a whole tournament (places, prizes, the prize pool), read.

PokerStars writes (the ``Tournament Summary`` the client exports)::

    PokerStars Tournament #80000001, No Limit Hold'em
    Buy-In: $4.00/$1.00/$0.50 USD
    4 players
    Total Prize Pool: $16.00 USD
    Tournament started 2026/11/25 12:00:00 ET

      1: Ada (United Kingdom), $10.40 (65%)
      2: Ben (Germany), $5.60 (35%)
      3: Cal (France),
      4: Dee (Spain), still playing

A re-entry writes its number after the name (``Ada [2] (...)``); tied
players share a place number. :mod:`.tournaments` compares each row with
the hands.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from showdown_service.replay.errors import HandSyntaxError, ReplayError

_SUMMARY_HEAD = re.compile(r"^PokerStars Tournament #(\d+),\s*(.*)$")
_PLAYERS = re.compile(r"^(\d+) players?\s*$")
_POOL = re.compile(r"^Total Prize Pool:\s*(\S+)")
_BUY_IN = re.compile(r"^Buy-In:\s*(.+)$")
_ROW = re.compile(
    r"^(\d+): (.+?)(?: \[(\d+)\])? \(([^()]*)\),?\s*(?:(\S+?)\s*(?:\((\d+(?:\.\d+)?)%\))?)?\s*(still playing)?\s*$"
)


class SummaryRow(NamedTuple):
    """One row of a tournament summary: ``  2: Ben (Germany), $5.60 (35%)``."""

    place: int
    player: str
    entry: int
    """1, or the re-entry number written ``[2]``."""
    prize: int | None
    """Cents; ``None`` when the row gives none."""
    percent: str
    """The payout table's share as written (``35``), or ``""``."""
    playing: bool
    """``still playing``: the summary was written before the player finished."""
    line: int


class Summary(NamedTuple):
    """A PokerStars tournament summary, read."""

    source: str
    tournament_id: str
    players: int | None
    pool: int | None
    """The prize pool in cents."""
    rows: tuple[SummaryRow, ...]
    line: int


def read_summary(text: str, source: str) -> Summary | ReplayError | None:
    """A PokerStars tournament summary in ``text``; ``None`` when ``text`` is no summary; an error naming the line."""
    lines = [line.strip() for line in text.replace("\ufeff", "").splitlines()]
    start = next((k for k, line in enumerate(lines) if line), None)
    if start is None or not (head := _SUMMARY_HEAD.match(lines[start])):
        return None
    players = pool = None
    rows: list[SummaryRow] = []
    for k in range(start + 1, len(lines)):
        line = lines[k]
        if m := _PLAYERS.match(line):
            players = int(m.group(1))
        elif m := _POOL.match(line):
            pool = _cents(m.group(1))
            if pool is None:
                return HandSyntaxError(source, None, k + 1, f"{m.group(1)!r} is not an amount")
        elif line[:1].isdigit() and ":" in line[:6]:
            row = _ROW.match(line)
            prize = _cents(row.group(5)) if row and row.group(5) else None
            if row is None or (row.group(5) and prize is None):
                return HandSyntaxError(
                    source, None, k + 1, f"not a summary row ('N: NAME (COUNTRY), $PRIZE (P%)'): {line!r}"
                )
            rows.append(SummaryRow(int(row.group(1)), row.group(2), int(row.group(3) or 1), prize,
                                   row.group(6) or "", bool(row.group(7)), k + 1))  # fmt: skip
    return Summary(source, head.group(1), players, pool, tuple(rows), start + 1)


def _cents(text: str) -> int | None:
    clean = text.strip().strip(",").lstrip("$€£").replace(",", "")
    whole, dot, part = clean.partition(".")
    if not whole.isdigit() or (dot and not (part.isdigit() and len(part) <= 2)):
        return None
    return int(whole) * 100 + (int(part.ljust(2, "0")) if dot else 0)
