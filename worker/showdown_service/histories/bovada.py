"""Read Bovada, Ignition and Bodog hand histories (one client, three brands): cash games in cents, tournaments in
chips.

Written from the real exports in ``../shared/data/rooms-more/Ignition`` (2017-2022; poker-apprentice's and
thlorenz's parser tests, MIT). A hand begins at ``Bovada Hand #4290335080 TBL#26728545 HOLDEM No Limit - DATE``
(Zone Poker: ``Ignition Hand #N Zone Poker ID#875 HOLDEMZonePoker No Limit - DATE``; a tournament: ``Ignition
Hand #N: HOLDEM Tournament #18094253 TBL#34, Normal- Level 7 (100/200) - DATE``). The players are anonymous: each
is named by its position (``Seat 1: Small Blind [ME] ($16.56 in chips)``, ``Seat 6: Dealer``, ``UTG+1``), ``[ME]``
marking the exporting player; a tournament numbers its seats by the player's place in the event (``Seat 240:
Dealer``): those seats are read in the order written, 1 to N. Every line of a player is ``NAME : ACTION``:
``Small Blind $0.10``, ``Big blind $0.25``, ``Ante chip 10``, ``Posts chip $0.25`` (a live post), ``Card dealt to
a spot [Kc 8c]`` (every player's own cards), ``Folds``, ``Checks``, ``Calls $0.52`` / ``Call 600`` (the chips
added), ``Bets $0.47``, ``Raises $0.62 to $0.62`` and ``All-in(raise) 9750 to 9950`` (to a total), ``All-in
$11.82`` (the chips added), ``Return uncalled portion of bet $11.82``, ``Showdown [Ah Kc Qd Jc Tc] (Straight)``
(the five cards played, not the own cards), ``Mucks [..]``, ``Does not show [..]``, ``Hand result $9.25`` and
``Hand Result-Side Pot 1962`` (what the player collected; no pot named: each seat's total is compared), then
``*** SUMMARY ***`` with ``Total Pot($9.73)`` (every chip put in, uncalled bets not). The rake is written nowhere:
the pot less what was collected, checked against 5% rounded down to the cent, no flop no drop, capped in steps of
$0.50 (all 16 cash hands here: $9.73 -> $0.48, $49.40 -> the $2 cap, $2.35 before the flop -> nothing).

The betting is logged as the hand is read (:class:`~.room_play.PlayBuilder`): a hand whose first line says ``No
Limit`` or ``Pot Limit`` carries its ``play``, its big blind the one posted (the header writes no stakes); a
tournament's first line names no betting, and its hands get none. A player named by position is the same player
all the hand: the play numbers the players, not their names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial
from typing import Any, Final

from showdown_service.histories.builder import HandBuilder, no_flop_no_drop
from showdown_service.histories.errors import HandSyntaxError, ReplayError
from showdown_service.histories.games import room_game
from showdown_service.histories.hands import HandRecord, Place
from showdown_service.histories.patterns import CARDS, STREETS
from showdown_service.histories.reader import Reader
from showdown_service.histories.reading import check_total, split_hands
from showdown_service.histories.room_play import PlayBuilder, limit_named, with_room_play

_START: Final = re.compile(r"^(?:Bovada|Ignition|Bodog) Hand #(\d+):? +(.*?) - \d{4}-\d\d-\d\d[ \d:]*$")
_TOURNAMENT: Final = re.compile(r"Tournament #(\d+)")
_SEAT: Final = re.compile(r"^Seat (\d+): (.+?) ?(?:\[ME\] ?)?\(([^()]*\d[^()]*?) in chips\)")
_LINE: Final = re.compile(r"^(.+?) *(?:\[ME\] *)?: (.*?)\s*$")
_AMOUNT: Final = re.compile(r"^(Small Blind|Small blind|Big blind|Ante chip|Posts chip|Calls|Call|Bets|All-in"
                            r"|Return uncalled portion of bet|Hand result|Hand Result|Hand Result-Side Pot)"
                            r"(?:\([^)]*\))? (\S+)$")  # fmt: skip
_TO: Final = re.compile(r"^(?:Raises|All-in\(raise\)) (\S+) to (\S+)$")
_TOTAL: Final = re.compile(r"^Total Pot\((\S+?)\)")
_QUIET: Final = (
    "Set dealer", "Draw for dealer", "Showdown", "Table enter user", "Table leave user", "Table deposit", "Enter(",
    "Leave(", "Seat sit out", "Seat stand", "Seat re-join", "Sit out", "Re-join", "Stand", "Ranking ", "Prize Cash",
    "Prize Tournament Ticket", "BOUNTY PRIZE", "Does not show",
)  # fmt: skip
"""Lines that move no chips of the hand: the dealer's draw, the five cards a showdown plays, table news, a seat's
place and prize in a tournament (``Ranking 245``, ``Prize Cash [$10.50]``: read as the hand's places, :func:`_places`),
a chip deposit for the next hand."""
_RANKING: Final = re.compile(r"^Ranking (\d{1,9})\s*$")
_PRIZE: Final = re.compile(r"^Prize Cash \[\$([\d,]{1,12})(?:\.(\d\d))?\]\s*$")


def starts_bovada(line: str) -> bool:
    """Whether ``line`` opens a Bovada, Ignition or Bodog hand."""
    return _START.match(line) is not None


def read_bovada(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand of a Bovada / Ignition / Bodog hand history file's ``text``, read, or the error that stopped it."""
    return split_hands(text, source, lambda lines, k: starts_bovada(lines[k]), "Bovada Hand #", _read)


def _read(lines: list[str], start: int, end: int, source: str) -> HandRecord:
    head = _START.match(lines[start])
    assert head is not None  # split_hands starts a hand only at such a line
    hand = PlayBuilder(lines, source, f"bovada:{head.group(1)}", start)
    title = head.group(2)
    found = room_game(title.replace("ZonePoker", " ").replace("HiLo", "Hi/Lo").title())
    game = hand.board_game(found, title, start, "Bovada")
    tournament = _TOURNAMENT.search(title)
    k = start + 1
    written: list[tuple[int, str, str, int]] = []
    while k < end and (seat := _SEAT.match(lines[k])):
        written.append((int(seat.group(1)), seat.group(2).strip(), seat.group(3), k))
        k += 1
    hand.scale = 1 if tournament else 100
    renumber = any(number > 10 for number, *_ in written)
    for index, (number, name, stack, at) in enumerate(written, start=1):
        hand.seat(index if renumber else number, name, hand.chips(stack, at), at)
    hand.two_seats(k, end)
    button = _button(hand)
    total = None
    in_summary = False
    places: list[list[Any]] = []
    """``[player, place, prize in cents or None, line]`` of each ``Ranking N`` line (and the ``Prize Cash`` below)."""
    for k in range(k, end):  # noqa: B020  # on from the line after the seats
        line = lines[k]
        if not line:
            continue
        if line.startswith("*** "):
            name = line[4:].split(" ***", 1)[0]
            if name == "SUMMARY":
                in_summary, hand.total_line = True, k + 1
            elif name in STREETS:
                hand.deal(hand.card_list(CARDS.findall(line)[-1], k), STREETS[name], k)
            elif name != "HOLE CARDS":
                raise hand.error(HandSyntaxError, k, f"unknown section for {game.name}")
            continue
        if in_summary:
            if m := _TOTAL.match(line):
                total = hand.chips(m.group(1), k)
            continue
        m = _LINE.match(line)
        if m is None or m.group(1) not in hand.players:
            if line.startswith((*_QUIET, "Seat sit down")):
                continue  # news of a seat not in this hand ('Table enter user', 'Enter(Auto)', 'Table deposit $25')
            raise hand.error(HandSyntaxError, k, "not a line of a Bovada hand")
        _act(hand, m.group(1), m.group(2), k)
        if tournament and (ranking := _RANKING.match(m.group(2))):
            places.append([m.group(1), ranking.group(1), None, k + 1])
        elif tournament and places and places[-1][0] == m.group(1) and (prize := _PRIZE.match(m.group(2))):
            places[-1][2] = int(prize.group(1).replace(",", "")) * 100 + int(prize.group(2) or 0)
    notes = [] if total is not None else ["no 'Total Pot' (a Zone Poker hand may end at an empty summary)"]
    if back := _walk(hand):
        total = None if total is None else total - back
        notes.append("Bovada writes no uncalled bet when all fold to one: it is in 'Total Pot' and 'Hand result'")
    if total is not None:
        check_total(hand, total)
    read = hand.finish(
        game, button, head.group(2), total=total, tournament=tournament.group(1) if tournament else None,
        rake=0 if tournament else None, currency="$" if not tournament else "", room="Bovada", note="; ".join(notes),
        rake_rule=None if tournament else partial(no_flop_no_drop, len(hand.board), "Bovada"),
    )  # fmt: skip
    read = read._replace(places=_places(hand, places)) if places and read.event is not None else read
    big = hand.log.blinds.get(hand.log.big_blind) if hand.log.big_blind is not None else None
    return with_room_play(read, hand, limit_named(title), big, button)


def _places(hand: HandBuilder, ranked: list[list[Any]]) -> tuple[Place, ...]:
    """The tournament places a hand writes (``Big Blind : Ranking 2``, ``Big Blind : Prize Cash [$10.50]``): a
    ``Ranking 1`` of a player left with chips is a winner's (a satellite's seats tie for 1st: ``Ranking 1`` twice,
    each with its ``Prize Tournament Ticket``)."""
    out = []
    for player, place, prize, line in ranked:
        seat = hand.players[player].seat
        out.append(Place(player, seat, int(place), prize, line, won=int(place) == 1))
    return tuple(out)


def _walk(hand: HandBuilder) -> int:
    """All folded to one player and no ``Return uncalled portion of bet`` line (``Big Blind : Hand result $0.35``
    with the big blind's $0.15 over the small blind in it, and in ``Total Pot($0.35)``): that bet given back and
    taken out of what the player collected; the chips, or 0 when the hand is no such walk."""
    if hand.returned or len(hand.pots) != 1:
        return 0
    gross = sorted(((put, name) for name, put in hand.put.items()), reverse=True)
    (top, who), (second, _) = gross[0], gross[1]
    seat = hand.players[who].seat
    pot = hand.pots[0]
    if top == second or set(pot) != {seat} or pot[seat] <= top - second:
        return 0
    if any(n not in hand.folded for n in hand.players if n != who and (hand.put[n] or n in hand.acted)):
        return 0
    hand.give_back(who, top - second, hand.total_line - 1)
    pot[seat] -= top - second
    return top - second


def _button(hand: HandBuilder) -> int | None:
    """The seat of the player named ``Dealer`` (``Dealer : Set dealer [1]`` does not number a seat: a tournament
    hand writes it of ``Seat 3: Dealer``)."""
    dealer = hand.players.get("Dealer")
    return dealer.seat if dealer is not None else None


def _act(hand: PlayBuilder, name: str, action: str, k: int) -> None:
    """One action of ``name``."""
    if m := _AMOUNT.match(action):
        verb, chips = m.group(1), hand.chips(m.group(2), k)
        if verb == "Ante chip":
            hand.pay(name, chips, k, to_bet=False)
        elif verb in ("Calls", "Call"):
            hand.call(name, chips, k)
        elif verb == "Return uncalled portion of bet":
            hand.give_back(name, chips, k)
        elif verb.startswith(("Hand result", "Hand Result")):
            hand.collect(name, chips, k)
        elif verb in ("Small Blind", "Small blind", "Big blind"):
            hand.blind(name, chips, k, big=verb == "Big blind")
        else:  # a post, a bet, an all-in: the chips added
            hand.pay(name, chips, k)
            if verb == "Posts chip":
                hand.log.refuse("a live post of a player new to the table (Posts chip)")
    elif m := _TO.match(action):
        hand.raise_to(name, hand.chips(m.group(2), k), k)
    elif action.startswith("Card dealt to a spot "):
        hand.show(name, hand.card_list(CARDS.findall(action)[0], k), k)
    elif action.startswith(("Folds", "Fold(")):
        hand.fold(name, k)
    elif action.startswith("Checks"):
        hand.check(name, k)
    elif action.startswith("Mucks"):
        hand.muck(name, k)
    elif not action.startswith(_QUIET):
        raise hand.error(HandSyntaxError, k, "not a Bovada action")


READER: Final = Reader("bovada", lambda head: starts_bovada(head.line), read_bovada)
