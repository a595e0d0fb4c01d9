"""Read the current Winning Poker Network (ACR, Americas Cardroom) client's hand histories: cash and tournaments.

A hand begins at ``Game Hand #718596771 - Tournament #24139358 -
Holdem(No Limit) - Level 8 (2000.00/4000.00)- 2021/02/25 22:07:46 UTC`` (a
cash game: ``Hand #1471746632 - 5Card Omaha H/L(Pot Limit) - $3.00/$6.00 -
DATE UTC``), then ``Table '2' 9-max Seat #2 is the button`` (a cash table's
name without the word), the seats (``Seat 1: NAME (209570.00)``; ``Seat 2:
NAME will be allowed to play after the button`` is not dealt in), ``NAME
posts ante 400.00``, ``NAME posts the small blind 2000.00``, ``*** HOLE
CARDS ***``, the actions (``raises 43325.00 to 43325.00 and is all-in``: to
a total), a running ``Main pot 16800.00[ | Side pot 1 ...][ | Rake $1.50]``
line after each street (read past: the pots are checked at the end),
``Uncalled bet (12400.00) returned to NAME``, ``*** SHOW DOWN ***``, ``NAME
collected 98650.00 from main pot`` and ``*** SUMMARY ***`` with ``Total pot
24800.00`` (``| Rake $X`` at a cash table) and the seat lines: a player
everybody folded to writes no ``collected`` line, only ``Seat 1: NAME did not
show and won 24800.00``, which is then what they collected.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from showdown_service.histories.builder import HandBuilder
from showdown_service.histories.errors import (
    HandSyntaxError,
    ReplayError,
    UnsupportedHand,
)
from showdown_service.histories.games import room_game
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.reading import (
    act,
    actor,
    check_total,
    collect_line,
    dealt,
    returned,
    split_hands,
    starting_with,
)

_START = re.compile(r"^(?:Game )?Hand #(\d+) - (.*)$")
_TOURNAMENT = re.compile(r"^Tournament #(\d+)$")
_TABLE = re.compile(r"^(?:Table )?'?(.*?)'? \d+-max Seat #(\d+) is the button\s*$")
_SEAT = re.compile(r"^Seat (\d+): (.+) \(([^()\s]*\d[^()\s]*)\)\s*$")
_SECTION = re.compile(r"^\*\*\* (.+?) \*\*\*\s*(.*)$")
_CARDS = re.compile(r"\[([^\]]*)\]")
_COLLECTED = re.compile(r"^(.+?) collected (\S+) from (main pot|pot|side pot(?:-? ?(\d+))?)\s*$")
_UNCALLED = re.compile(r"^Uncalled bet \((\S+)\) returned to (.+?)\s*$")
_TOTAL = re.compile(r"^Total pot (\S+)(?: \| Rake (\S+))?")
_WON = re.compile(r"^Seat (\d+): .*? won (\S+)")
_STREETS: Final = {"FLOP": 3, "TURN": 4, "RIVER": 5}
_INFO: Final = (" will be allowed to play after the button", " sits out", " is sitting out", " has timed out")


def starts_acr(line: str) -> bool:
    """Whether ``line`` opens a hand of the current WPN client (``Game Hand #N - ...``, ``Hand #N - ...``)."""
    return bool(_START.match(line)) and " - " in line


def read_acr(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand of a current WPN (ACR) hand history file's ``text``, read, or the error that stopped it."""
    return split_hands(text, source, starting_with(("Game Hand #", "Hand #"), _START), "Game Hand #", _read)


def _read(lines: list[str], start: int, end: int, source: str) -> HandRecord:
    head = _START.match(lines[start])
    assert head is not None
    hand = HandBuilder(lines, source, f"acr:{head.group(1)}", start)
    parts = [part.strip() for part in head.group(2).split(" - ")]
    tournament = next((m.group(1) for p in parts if (m := _TOURNAMENT.match(p))), None)
    game = next((g for g in map(room_game, parts) if g is not None), None)
    if game is None:
        raise UnsupportedHand(source, hand.hand_id, start + 1, f"no game this reader knows in {head.group(2)!r}")
    hand.game_name = game.name
    hand.refuse_unless_board(game, "WPN")
    currency = next((c for c in head.group(2) if c in "$€£"), "")
    hand.scale = 1 if tournament else 100
    k = start + 1
    table = _TABLE.match(lines[k]) if k < end else None
    if table is None:
        raise hand.error(HandSyntaxError, min(k, end - 1), "expected \"Table 'NAME' N-max Seat #N is the button\"")
    k += 1
    while k < end and lines[k].startswith("Seat "):
        if seat := _SEAT.match(lines[k]):
            hand.seat(int(seat.group(1)), seat.group(2), hand.chips(seat.group(3), k), k)
        elif not any(marker in lines[k] for marker in _INFO):
            raise hand.error(HandSyntaxError, k, "expected 'Seat N: NAME (STACK)'")
        k += 1
    if len(hand.players) < 2:
        raise hand.error(HandSyntaxError, min(k, end - 1), "a hand needs two seats; seat lines expected")
    total = rake = None
    summary_wins: dict[str, int] = {}
    collected_any = in_summary = False
    for k in range(k, end):  # noqa: B020  # on from the line after the seats
        line = lines[k]
        if not line or line.startswith(("Main pot ", "Board ")):
            continue
        if line.startswith("*** ") and (section := _SECTION.match(line)):
            name = section.group(1)
            if name == "SUMMARY":
                in_summary, hand.total_line = True, k + 1
            elif name in _STREETS and game.board:
                hand.deal(hand.card_list(" ".join(_CARDS.findall(section.group(2))), k), _STREETS[name], k)
            elif name not in ("HOLE CARDS", "SHOW DOWN", "SHOWDOWN"):
                raise hand.error(HandSyntaxError, k, f"unknown section for {game.name}")
            continue
        if in_summary:
            if m := _TOTAL.match(line):
                total = hand.chips(m.group(1), k)
                rake = hand.chips(m.group(2), k) if m.group(2) else None
            elif (m := _WON.match(line)) and (who := _seated(hand, int(m.group(1)))):
                summary_wins[who] = summary_wins.get(who, 0) + hand.chips(m.group(2), k)
            continue
        if collect_line(hand, line, k, _COLLECTED) is not None:
            collected_any = True
            continue
        if returned(hand, line, k, _UNCALLED):
            continue
        if line.startswith("Dealt to "):
            dealt(hand, line, k)
            continue
        if (who := actor(hand, line, k, info=_INFO, room="WPN")) is not None:
            _act(hand, who, line[len(who) + 1 :], k)
    if total is None:
        raise HandSyntaxError(source, hand.hand_id, end, "the hand has no 'Total pot' line", game.name)
    if not collected_any:  # everybody folded to one player: the summary's 'did not show and won' is the award
        for who, chips in summary_wins.items():
            hand.collect(who, chips, hand.total_line - 1)
    else:  # the summary's wins are checked against the collected lines
        hand.summary = {hand.players[who].seat: chips for who, chips in summary_wins.items()}
    if rake is None and tournament:
        rake = 0  # a tournament hand is not raked
    check_total(hand, total)
    return hand.finish(
        game, int(table.group(2)), table.group(1), total=total, rake=rake,
        tournament=tournament, currency=currency, room="WPN",
    )  # fmt: skip


def _seated(hand: HandBuilder, seat: int) -> str | None:
    return next((p.name for p in hand.players.values() if p.seat == seat), None)


def _act(hand: HandBuilder, name: str, action: str, k: int) -> None:
    """One action of ``name``."""
    act(
        hand, name, action, k, room="WPN",
        blinds=("posts the small blind ", "posts the big blind ", "posts small blind ", "posts big blind "),
        antes=("posts ante ", "posts the ante "),
        dead=("posts dead ",),
        quiet=("does not show", "doesn't show", "sits out", "is sitting out"),
    )  # fmt: skip
