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
)
from showdown_service.histories.games import room_game
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.patterns import CARDS, SECTION, STREETS, UNCALLED
from showdown_service.histories.reader import Reader
from showdown_service.histories.reading import act, betting_line, check_total, collect_line, split_hands, starting_with
from showdown_service.histories.room_log import betting_limit, log_of, log_play, with_builder_play

_START = re.compile(r"^(?:Game )?Hand #(\d+) - (.*)$")
_TOURNAMENT = re.compile(r"^Tournament #(\d+)$")
_TABLE = re.compile(r"^(?:Table )?'?(.*?)'? \d+-max Seat #(\d+) is the button\s*$")
_SEAT = re.compile(r"^Seat (\d+): (.+) \(([^()\s]*\d[^()\s]*)\)\s*(is sitting out)?\s*$")
_COLLECTED = re.compile(r"^(.+?) collected (\S+) from (main pot|pot|side pot(?:-? ?(\d+))?)\s*$")
_TOTAL = re.compile(r"^Total pot (\S+)(?: \| Rake (\S+))?(?: \| JP Fee (\S+))?")
_STAKES: Final = re.compile(r"^(?:Level \d+ \()?\S*?/(\S*?\d)\)?$")
"""The stakes' big blind: ``$0.01/$0.02`` (cash), ``Level 8 (2000.00/4000.00)`` (a tournament)."""
_LEVEL: Final = re.compile(r"\bLevel \d+ \(\S*?/(\S*?\d)\)")
"""A tournament's blinds when the date follows them without a space (``Level 9 (2500.00/5000.00)- 2021/02/20``)."""
_POST: Final = re.compile(r"^posts (\S*\d[^\s]*)$")
"""``Player4 posts $0.25``: a player new to the table posts the big blind in its seat, live (2019 cash)."""
_WON = re.compile(r"^Seat (\d+): .*? won (\S+)")
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
    log_play(hand)
    parts = [part.strip() for part in head.group(2).split(" - ")]
    tournament = next((m.group(1) for p in parts if (m := _TOURNAMENT.match(p))), None)
    found = next((g for g in map(room_game, parts) if g is not None), None)
    game = hand.board_game(found, head.group(2), start, "WPN")
    currency = next((c for c in head.group(2) if c in "$€£"), "")
    hand.scale = 1 if tournament else 100
    if stakes := next((m for p in parts if (m := _STAKES.search(p))), None):
        hand.big_blind = hand.chips(stakes.group(1), start)
    table = hand.expect(_TABLE, start + 1, end, "\"Table 'NAME' N-max Seat #N is the button\"")
    k = _seats(hand, lines, start + 2, end)
    total = rake = fee = None
    summary_wins: dict[str, int] = {}
    collected_any = in_summary = False
    for k in range(k, end):  # noqa: B020  # on from the line after the seats
        line = lines[k]
        if not line or line.startswith(("Main pot ", "Board ", "Side pot")):  # 'Side pot(1) 10200.00': running
            continue
        if line.startswith("*** ") and (section := SECTION.match(line)):
            name = section.group(1)
            if name == "SUMMARY":
                in_summary, hand.total_line = True, k + 1
            elif name in STREETS and game.board:
                hand.deal(hand.card_list(" ".join(CARDS.findall(section.group(2))), k), STREETS[name], k)
            elif name not in ("HOLE CARDS", "SHOW DOWN", "SHOWDOWN"):
                raise hand.error(HandSyntaxError, k, f"unknown section for {game.name}")
            continue
        if in_summary:
            if m := _TOTAL.match(line):
                total = hand.chips(m.group(1), k)
                rake = hand.chips(m.group(2), k) if m.group(2) else None
                fee = hand.chips(m.group(3), k) if m.group(3) else None
            elif (m := _WON.match(line)) and (who := _seated(hand, int(m.group(1)))):
                summary_wins[who] = summary_wins.get(who, 0) + hand.chips(m.group(2), k)
            continue
        if collect_line(hand, line, k, _COLLECTED) is not None:
            collected_any = True
            continue
        betting_line(hand, line, k, uncalled=UNCALLED, info=_INFO, room="WPN", act=_act)
    if total is None:
        raise HandSyntaxError(source, hand.hand_id, end, "the hand has no 'Total pot' line", game.name)
    if not collected_any:  # everybody folded to one player: the summary's 'did not show and won' is the award
        total -= _uncalled_in_won(hand, summary_wins)
        for who, chips in summary_wins.items():
            hand.collect(who, chips, hand.total_line - 1)
    else:  # the summary's wins are checked against the collected lines
        hand.summary = {hand.players[who].seat: chips for who, chips in summary_wins.items()}
    if rake is None and tournament:
        rake = 0  # a tournament hand is not raked
    note = ""
    if fee is not None and rake is not None:
        # 'Total pot $79.50 | Rake $0.46 | JP Fee $0.04' (2019): the total is what was collected, the rake and the
        # jackpot fee apart; both are taken from the pot
        if total + rake + fee == sum(hand.put.values()) + sum(hand.dead.values()):
            total += rake + fee
        rake += fee
        note = "the jackpot fee ('JP Fee') is in the rake"
    check_total(hand, total)
    if not hand.big_blind and (level := _LEVEL.search(head.group(2))):  # play's min_bet, read once the chips are
        hand.big_blind = hand.chips(level.group(1), start)
    read = hand.finish(
        game, int(table.group(2)), table.group(1), total=total, rake=rake,
        tournament=tournament, currency=currency, room="WPN", note=note,
    )  # fmt: skip
    return with_builder_play(read, hand, betting_limit(head.group(2)), int(table.group(2)))


def _seats(hand: HandBuilder, lines: list[str], k: int, end: int) -> int:
    """The seat lines from line ``k`` (table news among them passed over), seated; the line after them."""
    while k < end and lines[k].startswith("Seat "):
        if seat := _SEAT.match(lines[k]):
            # 'Seat 7: Dcin2020 (16800.00) is sitting out' still posts the ante and may act
            hand.seat(
                int(seat.group(1)), seat.group(2), hand.chips(seat.group(3), k), k, sitting_out=bool(seat.group(4))
            )
        elif not any(marker in lines[k] for marker in _INFO):
            raise hand.error(HandSyntaxError, k, "expected 'Seat N: NAME (STACK)'")
        k += 1
    hand.two_seats(k, end)
    return k


def _uncalled_in_won(hand: HandBuilder, wins: dict[str, int]) -> int:
    """Everybody folded to one player and no ``Uncalled bet`` line: the bet nobody called is in the summary's ``won``
    amount and in ``Total pot`` (a 2021 tournament: ``Total pot 9600.00``, the big blind's 2,000 over the small blind
    in ``did not show and won 9600.00``); given back, and out of the award: the chips, taken out of the total too."""
    if hand.returned or len(wins) != 1:
        return 0
    [(who, won)] = wins.items()
    gross = sorted(((put, name) for name, put in hand.put.items()), reverse=True)
    if len(gross) < 2 or gross[0][1] != who or gross[0][0] == gross[1][0] or won <= gross[0][0] - gross[1][0]:
        return 0
    back = gross[0][0] - gross[1][0]
    hand.give_back(who, back, hand.total_line - 1)
    wins[who] = won - back
    return back


def _seated(hand: HandBuilder, seat: int) -> str | None:
    return next((p.name for p in hand.players.values() if p.seat == seat), None)


def _act(hand: HandBuilder, name: str, action: str, k: int) -> None:
    """One action of ``name``."""
    if m := _POST.match(action):
        hand.pay(name, hand.chips(m.group(1), k), k)
        log_of(hand).refuse("a blind posted beside the small and big blinds (a player new to the table)")
        return
    if action.startswith("posts dead "):  # 'posts dead $0.03' at $0.01/$0.02: the big blind live, the rest dead
        chips = hand.chips(action.rsplit(" ", 1)[1], k)
        live = min(chips, hand.big_blind) if hand.big_blind else 0
        hand.pay(name, chips - live, k, to_bet=False, is_dead=True)
        hand.pay(name, live, k)
        return
    act(
        hand, name, action, k, room="WPN",
        blinds=("posts the small blind ", "posts the big blind ", "posts small blind ", "posts big blind "),
        antes=("posts ante ", "posts the ante "),
        quiet=("does not show", "doesn't show", "sits out", "is sitting out", "waits for big blind"),
    )  # fmt: skip


READER: Final = Reader("acr", lambda head: starts_acr(head.line), read_acr)
