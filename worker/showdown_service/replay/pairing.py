"""Which tournament summary goes with which hands: by room and tournament id, never by the id alone.

Tournament numbers are each room's own: PokerStars' tournament 80000001 and Full Tilt's 80000001 are two
tournaments. A summary is paired with the hands of its room (:data:`HANDS_ROOM`: the room its format is, the Open
Tournament Summary with the Open Hand History hands) and its tournament id (docs/replay.md, Whole tournaments):

* two summaries of the same room and id that do not say the same (places, prizes, prize pool, field) cannot both
  be right: neither is used, and the difference names both files;
* the same summary twice (the same rows in two files) is one summary;
* a summary with no hands of its room and id among the paths is reported on its own line (its payout table and
  prize pool still checked), with the rooms whose hands carry the same id named: it is never paired with them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, NamedTuple

from showdown_service.replay.summaries import Summary

HANDS_ROOM: Final = {"pokerstars": "pokerstars", "fulltilt": "fulltilt", "ots": "ohh"}
"""A summary format's room (``Summary.room``) -> the room of the hands it describes (the hand ids' prefix)."""


class Conflict(NamedTuple):
    """Two summaries of one room and tournament id that disagree."""

    room: str
    tournament_id: str
    first: Summary
    second: Summary

    def detail(self) -> str:
        return (
            f"two summaries of {self.room} tournament {self.tournament_id} disagree: {self.first.source} (line "
            f"{self.first.line}) and {self.second.source} (line {self.second.line}); neither is used"
        )


def hands_room(summary: Summary) -> str:
    """The room whose hands ``summary`` describes."""
    return HANDS_ROOM[summary.room]


def _content(summary: Summary) -> tuple[object, ...]:
    """What a summary says of its tournament (not where it says it): two files saying the same are one summary."""
    rows = sorted((r.place, r.player, r.entry, r.prize, r.percent, r.playing, r.award) for r in summary.rows)
    return summary.players, summary.pool, tuple(rows)


def pair(summaries: Iterable[Summary]) -> tuple[dict[tuple[str, str], Summary], list[Conflict]]:
    """The summaries by (hands' room, tournament id), and the conflicts (whose keys are left out)."""
    by_key: dict[tuple[str, str], Summary] = {}
    conflicts: dict[tuple[str, str], Conflict] = {}
    for summary in summaries:
        key = (hands_room(summary), summary.tournament_id)
        known = by_key.get(key)
        if known is None:
            if key not in conflicts:
                by_key[key] = summary
            continue
        if _content(known) != _content(summary):
            conflicts[key] = Conflict(*key, known, summary)
            del by_key[key]
    return by_key, list(conflicts.values())
