"""Which tournament summary goes with which hands: by room and tournament id, never by the id alone.

Tournament numbers are each room's own: PokerStars' tournament 80000001 and Full Tilt's 80000001 are two
tournaments. A summary is paired with the hands of its room (:data:`HANDS_ROOM`: the room its format is, the Open
Tournament Summary with the Open Hand History hands of the same site) and its tournament id (docs/replay.md, Whole
tournaments). The key is ``(room, site, tournament id)``: the site is ``""`` but for the open formats, which many
rooms export (their room is the ``site_name`` they name). The Winning Poker Network's client writes its hands in
its own text (the ``acr`` reader) and its summaries as ``.ots``: an ``.ots`` naming WPN (:func:`wpn`) goes with the
``acr`` hands of its number, or, when there are none among the paths, with the Open Hand History hands of its site.

* two summaries of the same room and id that do not say the same (places, prizes, prize pool, field) cannot both
  be right: neither is used, and the difference names both files;
* the same summary twice (the same rows in two files) is one summary;
* a summary with no hands of its room and id among the paths is reported on its own line (its payout table and
  prize pool still checked), with the rooms whose hands carry the same id named: it is never paired with them;
* an open summary and open hands of the same number of which one names its site and the other none: whose
  tournament the summary is cannot be told, and that is a difference naming both files (:func:`untold_room`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Final, NamedTuple

from showdown_service.histories.summaries import Summary

Key = tuple[str, str, str]
"""``(room of the hands, site, tournament id)``."""

HANDS_ROOM: Final = {
    "pokerstars": "pokerstars",
    "fulltilt": "fulltilt",
    "ggpoker": "ggpoker",
    "888poker": "888poker",
    "ots": "ohh",
}
"""A summary format's room (``Summary.room``) -> the room of the hands it describes (the hand ids' prefix)."""


class Conflict(NamedTuple):
    """Two summaries of one room and tournament id that disagree."""

    key: Key
    first: Summary
    second: Summary

    def detail(self) -> str:
        room, site, number = self.key
        return (
            f"two summaries of {room}{f' ({site})' if site else ''} tournament {number} disagree: {self.first.source} "
            f"(line {self.first.line}) and {self.second.source} (line {self.second.line}); neither is used"
        )


WPN_NAMES: Final = frozenset({"winningpokernetwork", "wpn", "americascardroom", "acr"})
"""The names (lower case, letters only) by which an ``.ots`` says it is the Winning Poker Network's: its real
exports write ``"network_name": "WinningPokerNetwork"`` and ``"site_name": "AmericasCardroom"``."""


def wpn(summary: Summary) -> bool:
    """Whether ``summary`` is an ``.ots`` that names the Winning Poker Network (or its site ACR) as its network or
    site."""
    names = (summary.network, summary.site)
    return summary.room == "ots" and any("".join(c for c in n.lower() if c.isalpha()) in WPN_NAMES for n in names)


def keys(summary: Summary) -> tuple[Key, ...]:
    """The keys of the hands ``summary`` may describe, the likeliest first: a WPN ``.ots`` the ``acr`` text hands of
    its number, then the Open Hand History hands of its site; any other summary its one key."""
    own = HANDS_ROOM[summary.room], summary.site, summary.tournament_id
    return (("acr", "", summary.tournament_id), own) if wpn(summary) else (own,)


def key(summary: Summary, hands: Collection[Key] = ()) -> Key:
    """The room, site and tournament id of the hands ``summary`` describes: the first of :func:`keys` whose hands are
    among ``hands``, else the first."""
    candidates = keys(summary)
    return next((k for k in candidates if k in hands), candidates[0])


def untold_room(summary: Summary, hands: dict[Key, list[str]]) -> str | None:
    """Why the room of ``summary`` cannot be told against the hands of its number (``hands``: each key's files):
    of an open summary and open hands of one number, one names its site and the other none; else ``None``."""
    room, site, number = key(summary, hands)
    if room != HANDS_ROOM["ots"]:
        return None
    for (other_room, other_site, other_number), files in sorted(hands.items()):
        if (other_room, other_number) == (room, number) and bool(site) != bool(other_site):
            return (
                f"{summary.source} (line {summary.line}) "
                + (f"names site {site!r}" if site else "names no site")
                + f"; the {room} hands of tournament {number} in {', '.join(sorted(set(files)))} "
                + (f"name site {other_site!r}" if other_site else "name none")
                + ": whose tournament the summary is cannot be told, and it is paired with none"
            )
    return None


def _content(summary: Summary) -> tuple[object, ...]:
    """What a summary says of its tournament (not where it says it): two files saying the same are one summary."""
    rows = sorted((r.place, r.player, r.entry, r.prize, r.percent, r.playing, r.award) for r in summary.rows)
    return summary.players, summary.pool, tuple(rows)


def pair(summaries: Iterable[Summary], hands: Collection[Key] = ()) -> tuple[dict[Key, Summary], list[Conflict]]:
    """The summaries by (hands' room, site, tournament id), ``hands`` the keys of the hands among the paths
    (:func:`key`), and the conflicts (whose keys are left out)."""
    by_key: dict[Key, Summary] = {}
    conflicts: dict[Key, Conflict] = {}
    for summary in summaries:
        at = key(summary, hands)
        known = by_key.get(at)
        if known is None:
            if at not in conflicts:
                by_key[at] = summary
            continue
        if _content(known) != _content(summary):
            conflicts[at] = Conflict(at, known, summary)
            del by_key[at]
    return by_key, list(conflicts.values())
