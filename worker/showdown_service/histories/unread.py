"""The hands of a tournament that could not be replayed: told by their header, so their tournament shows the gap.

A hand the reader refuses (a line it cannot read, an impossible action, chips
that do not add up: a :class:`~.errors.ReplayError` naming file, line and
hand) or cannot settle as recorded (a :class:`~.hands.HandRecord` without an
event: GGPoker's All-in Insurance) is reported per hand; without this its
tournament would be audited as if the hand had never been dealt. When the
tournament can still be told from the hand's header line (the nearest line at
or above the error's that names the hand's number: ``PokerStars Hand #N:
Tournament #M, ...``, ``Game Hand #N - Tournament #M - ...``, ``Poker Hand
#TMN: Tournament #M, ...``, ``Full Tilt Poker Game #N: ... (M), Table ...``),
the hand is a gap of that tournament (docs/replay.md, Whole tournaments):
:mod:`.tournaments` makes a refused hand an ``unread hand`` difference and
takes a tournament with a gap through no ledger. An Open Hand History hand
is told by the ``tournament_info`` its reader read before it stopped
(``ReplayError.tournament``). A room whose tournament is not on the header
line (888poker, Winamax, iPoker) is not told, and the hand stays in the
per-hand report only.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from showdown_service.histories.errors import ReplayError
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.pairing import Key

_TOURNAMENT: Final = {
    "pokerstars": re.compile(r"Tournament #(\d+)"),
    "ggpoker": re.compile(r"Tournament #(\d+)"),
    "acr": re.compile(r" - Tournament #(\d+) - "),
    "fulltilt": re.compile(r"Tournament #(\d+)|\((\d+)\), Table"),
}
"""The tournament number on a room's header line (Full Tilt: its own client's ``(M), Table``, or the PokerStars
platform's ``Tournament #M``)."""


class Unread(NamedTuple):
    """A hand of a tournament that could not be replayed."""

    key: Key
    """The tournament: ``(room, "", tournament id)``."""
    source: str
    line: int
    hand_id: str
    reason: str
    refused: bool
    """The reader refused the hand (an ``unread hand`` difference); ``False``: read, but not settled as recorded."""

    def where(self) -> str:
        return f"{self.source}:{self.line}"


def unread(item: ReplayError | HandRecord, lines: list[str]) -> Unread | None:
    """The tournament hand ``item`` (an error, or a hand read without an event) of the file whose ``lines`` (the text's
    lines) it names, or ``None`` when it is neither a hand nor one whose tournament its header tells."""
    told: tuple[str, str] | None = None
    if isinstance(item, ReplayError):
        hand, line, reason, told = item.hand, item.line, item.reason, item.tournament
    else:
        hand, line, reason = item.hand_id, item.line, item.unverifiable
    if hand is None or line is None:
        return None
    room, _, number = hand.partition(":")
    refused = isinstance(item, ReplayError)
    if told is not None:  # told apart from the header (Open Hand History's tournament_info)
        return Unread((room, *told), item.source, line, hand, reason, refused)
    pattern = _TOURNAMENT.get(room)
    if pattern is None:
        return None
    named = re.compile(rf"(?:Hand|Game) #{re.escape(number)}(?![0-9A-Za-z])")
    for k in range(min(line, len(lines)) - 1, -1, -1):
        if named.search(lines[k]):
            found = pattern.search(lines[k])
            if found is None:
                return None  # a cash game's hand, or a header that does not say
            tournament = next(group for group in found.groups() if group)
            return Unread((room, "", tournament), item.source, line, hand, reason, refused)
    return None
