"""Read Winamax hand histories: cash games in cents, tournaments in chips.

A hand begins at ``Winamax Poker - CashGame - HandId: #5343878-96-1383820687
- Holdem no limit (0.25€/0.50€) - 2013/11/07 10:38:07 UTC`` (a tournament:
``Winamax Poker - Tournament "NAME" buyIn: ... - HandId: ...``), then
``Table: 'Athens 11' 5-max (real money) Seat #4 is the button``, the seats
(``Seat 1: PornstarX (67.80€)``), ``*** ANTE/BLINDS ***``, ``***
PRE-FLOP ***``, the streets (``*** TURN *** [3c 7c Jd] [6c]``), ``*** SHOW
DOWN ***`` and ``*** SUMMARY ***`` with ``Total pot 43.45€ | Rake 3€`` (or
``No rake``) and the seat lines.

Winamax's quirks (docs/replay.md, Winamax): amounts carry the currency
after them (``0.25€``); a raise is ``raises 2€ to 2.50€``; an all-in is a
suffix (``and is all-in``); there is no uncalled-bet line: the winner's
``collected`` amount holds the bet nobody called, and ``Total pot`` is what
was collected (after the rake, uncalled bet included), not every chip put in.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from showdown_service.histories.builder import HandBuilder
from showdown_service.histories.errors import (
    ChipsDoNotAddUp,
    HandSyntaxError,
    ReplayError,
)
from showdown_service.histories.games import room_game
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.patterns import CARDS, SECTION, STREETS, UNCALLED_OF
from showdown_service.histories.reader import Reader, opens_with
from showdown_service.histories.reading import (
    act,
    betting_line,
    collect_line,
    headed_hand,
    seats,
    split_hands,
    starting_with,
)
from showdown_service.histories.room_log import betting_limit, log_play, with_builder_play

START: Final = "Winamax Poker - "
_HEADER = re.compile(r"^Winamax Poker - (.*?)\s*-?\s*HandId: #([\w-]+) - (.+?) \(([^()]*)\) - ")
_TOURNAMENT = re.compile(r'^Tournament "(.*)"', re.I)
_TABLE = re.compile(r"^Table: '(.*)'.*?(?:Seat #(\d+) is the button)?\s*$")
_SEAT = re.compile(r"^Seat (\d+): (.+) \(([^(),]+)(?:, ([^()]+) bounty)?\)$")
_NO_STACK = re.compile(r"^Seat (\d+): (.+) \(\)$")
"""A seat whose stack is not written (``Seat 1: Player1 ()``): read as a seat with nothing behind, sitting out; if it
then puts a chip in, the hand is refused there (it has nothing behind), else it takes no part and the hand is read."""
_COLLECTED = re.compile(r"^(.+?) collected (\S+) from (pot|main pot|side pot(?: ?(\d+))?)\s*$")
_TOTAL = re.compile(r"^Total pot (\S+) \| (?:Rake (\S+)|No rake)")
_OPENINGS: Final = frozenset({"ANTE/BLINDS", "PRE-FLOP", "SHOW DOWN", "3rd STREET"})
_INFO: Final = (" joins the table", " leaves the table", " sits out", " is sitting out", " said,", " is disconnected")


def read_winamax(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand of a Winamax hand history file's ``text``, read, or the error that stopped it."""
    return split_hands(text, source, starting_with(START), "Winamax Poker - ", _read)


def _read(lines: list[str], start: int, end: int, source: str) -> HandRecord:
    what = "'Winamax Poker - ... HandId: #N - GAME (STAKES) - DATE'"
    hand, header = headed_hand(lines, start, end, source, room="winamax", header=_HEADER, what=what, number=2)
    log_play(hand)
    game = hand.board_game(room_game(header.group(3)), header.group(3), start, "Winamax")
    tournament = _TOURNAMENT.match(header.group(1))
    stakes = header.group(4)
    currency = next((c for c in stakes if c in "$€£"), "")
    hand.scale = 1 if tournament or not (currency or "." in stakes) else 100
    table = hand.expect(_TABLE, start + 1, end, "\"Table: 'NAME' ... Seat #N is the button\"")
    button = int(table.group(2)) if table.group(2) else None
    k = _seats(hand, start + 2, end)
    note = ""
    if any(p.seat == 0 for p in hand.players.values()):
        # 'Seat #0 is the button', 'Seat 0: mrotsim (865.05€)' (a 2015 5-max Omaha table): the contract numbers seats
        # from 1, so every seat (and the button) is read one higher; the order, and so the hand, is the same
        hand.players = {n: p._replace(seat=p.seat + 1) for n, p in hand.players.items()}
        button = None if button is None else button + 1
        note = "Winamax numbers this table's seats from 0: read one higher"
    total = rake = None
    collected = 0
    in_summary = False
    for k in range(k, end):  # noqa: B020  # on from the line after the seats
        line = lines[k]
        if not line:
            continue
        if section := SECTION.match(line):
            name = section.group(1)
            if name == "SUMMARY":
                in_summary = True
                hand.total_line = k + 1
            elif name in STREETS and game.board:
                _closed(hand, k)
                hand.deal(hand.card_list(" ".join(CARDS.findall(section.group(2))), k), STREETS[name], k)
            elif name not in _OPENINGS:
                raise hand.error(HandSyntaxError, k, f"unknown section for {game.name}")
            continue
        if in_summary:
            if m := _TOTAL.match(line):
                total = hand.chips(m.group(1), k)
                rake = hand.chips(m.group(2), k) if m.group(2) else 0
            elif not line.startswith(("Board:", "Seat ")):
                raise hand.error(HandSyntaxError, k, "not a line of a Winamax summary")
            continue
        if (chips := collect_line(hand, line, k, _COLLECTED)) is not None:
            collected += chips
            continue
        betting_line(hand, line, k, uncalled=UNCALLED_OF, info=_INFO, room="Winamax", act=_act)
    if total is None or rake is None:
        raise HandSyntaxError(source, hand.hand_id, end, "the hand has no 'Total pot ... | Rake' line", game.name)
    if total != collected:
        raise ChipsDoNotAddUp(
            source, hand.hand_id, hand.total_line, f"'Total pot' says {total} but {collected} was collected", game.name
        )
    if "/" in stakes:  # '0.25€/0.50€', '100/200' (a tournament, with its ante after: '10/100/200'): play's min_bet
        hand.big_blind = hand.chips(stakes.rpartition("/")[2], start)
    read = hand.finish(
        game, button, table.group(1), rake=rake, tournament=tournament.group(1) if tournament else None,
        currency=currency, uncalled_written=False, room="Winamax", note=note,
    )  # fmt: skip
    return with_builder_play(read, hand, betting_limit(header.group(3)), button)


def _closed(hand: HandBuilder, k: int) -> None:
    """The betting round closes as street ``k`` is dealt: every seat still in the hand with chips behind has matched
    the bet (a call written short of it contradicts the raise it calls: no rule can say what the seat put in)."""
    top = max(hand.bet.values())
    for name, bet in hand.bet.items():
        if bet < top and hand.left[name] > 0 and name in hand.acted and name not in hand.folded:
            raise hand.error(
                ChipsDoNotAddUp,
                k,
                f"the round closes with {name}'s bet at {bet}, short of {top}, and {name} not all-in",
            )


def _seats(hand: HandBuilder, k: int, end: int) -> int:
    """The seat lines from line ``k`` on (a seat with no stack written sits out with nothing): the line after them."""
    while k < end and (seat := _SEAT.match(hand.lines[k]) or _NO_STACK.match(hand.lines[k])):
        empty = seat.re is _NO_STACK
        hand.seat(int(seat.group(1)), seat.group(2), 0 if empty else hand.chips(seat.group(3), k), k, sitting_out=empty)
        k += 1
    return seats(hand, k, end, _SEAT)  # no seat line is left: checks there are two


def _act(hand: HandBuilder, name: str, action: str, k: int) -> None:
    """One action of ``name``: a blind, an ante, a bet, a call, a raise, a check, a fold, cards shown."""
    act(
        hand, name, action, k, room="Winamax",
        blinds=("posts small blind ", "posts big blind ", "posts straddle ", "posts small & big blinds "),
        antes=("posts ante ",),
        suffixes=(" and is all-in", " out of position"),  # a big blind posted out of position is live
        quiet=("doesn't show", "sits out", "is sitting out"),
        quiet_lines=("is all-in",),
    )  # fmt: skip


READER: Final = Reader("winamax", opens_with("Winamax Poker - "), read_winamax)
