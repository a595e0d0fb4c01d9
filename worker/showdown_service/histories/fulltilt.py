"""Read Full Tilt Poker hand histories: cash games in cents, tournaments in chips.

A hand begins at ``Full Tilt Poker Game #33730111975: Table Iowa (heads up) -
NL Hold'em - $5/$10 - 12:40:19 ET - 2014/01/06`` (a capped table writes
``$1/$2 - $20 Cap No Limit Hold'em``; ``Full Tilt Poker Hand #...``, the client
on the PokerStars platform, writes the PokerStars format and is read by
:mod:`.pokerstars`), then the seats (``Seat 1: jobetzu
($2,094.70)``), the blinds (``posts the small blind of $5``, ``posts a dead
small blind of $10``, ``posts $20``, ``antes $1``), ``The button is in seat
#2``, ``*** HOLE CARDS ***``, the actions (``raises to $25``: the total;
``calls $15``, ``bets $25``: the chips added; ``, and is all in``), the
streets (``*** FLOP *** [9h As 9d] (Total Pot: $50, 2 Players)``), ``Uncalled
bet of $32 returned to jobetzu``, the showdown (``shows [Ac 9s]``, ``mucks``,
``wins the pot ($615.50)``, ``wins the high pot`` / ``the low pot``, ``wins
pot 2 ($311)``) and ``*** SUMMARY ***`` with ``Total pot $616 | Rake $0.50``
(the rake included, uncalled bets not) and seat lines (``collected ($615.50)``).

A hand run twice (``Players agree to Run It Twice``) writes ``*** RIVER 1
***``, ``*** RIVER 2 ***``, ``*** SHOW DOWN 1 ***``... and pays ``pot 1``
to the first run and ``pot 2`` to the second (docs/replay.md, Full Tilt).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import reduce
from math import gcd
from typing import Final

from showdown_service.histories.builder import HandBuilder
from showdown_service.histories.errors import (
    HandSyntaxError,
    ReplayError,
)
from showdown_service.histories.games import room_game
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.patterns import CARDS, STREETS, SUMMARY_SEAT, UNCALLED_OF
from showdown_service.histories.reader import Reader, opens_with
from showdown_service.histories.reading import check_total, dealt, returned, seats, split_hands, starting_with
from showdown_service.histories.room_log import betting_limit, log_of, log_play, with_builder_play

_START = re.compile(r"^Full Tilt Poker Game #(\d+):\s*(.*)$")
_TOURNAMENT = re.compile(r"\((\d+)\), Table", re.I)
_TABLE = re.compile(r"Table ([^-]+?)(?: \([^()]*\))? - ")
_SEAT = re.compile(r"^Seat (\d+): (.+) \(([^()]*\d[^()]*)\)(.*)$")
_BUTTON = re.compile(r"^The button is in seat #(\d+)$")
_SECTION = re.compile(r"^\*\*\* ([A-Z ]+?)(?: (\d))? \*\*\*\s*(.*)$")
_WINS = re.compile(
    r"^(.+?) (?:wins|ties for) (the pot|the high pot|the low pot|the main pot|the side pot(?: #?(\d+))?|pot (\d+)"
    r"|side pot #?(\d+)) \(([^()]+)\)"
)
_TOTAL = re.compile(r"^Total pot (\S+)(?: .*?)? \| Rake (\S+)")
_STAKES = re.compile(r"^[$€£]?[\d.,]+/[$€£]?[\d.,]+$")
"""The stakes part of the header: ``$5/$10``, ``10/20`` (a tournament's blinds)."""
_WON = re.compile(r"(?:won|collected) \(([^()]+)\)")
_INFO: Final = (
    " seconds left to act",
    " is sitting out",
    " has requested TIME",
    " is capped",
    " stands up",
    " sits down",
    " has reconnected",
    " has been disconnected",
    " has returned",
    " has timed out",
    " adds ",
    " is all in",
    " is feeling ",
    "Players agree to Run It Twice",
    " sits out",
    " will be allowed to play after the button",
    " is in seat #",
)


def read_fulltilt(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand of a Full Tilt hand history file's ``text``, read, or the error that stopped it."""
    return split_hands(text, source, starting_with("Full Tilt Poker Game #", _START), "Full Tilt Poker Game #", _read)


def _read(lines: list[str], start: int, end: int, source: str) -> HandRecord:
    head = _START.match(lines[start])
    assert head is not None
    hand = HandBuilder(lines, source, f"fulltilt:{head.group(1)}", start)
    log_play(hand)
    title = head.group(2)
    parts = [part.strip() for part in title.split(" - ")]
    found = next((g for g in map(room_game, parts[1:]) if g is not None), None)
    game = hand.board_game(found, title, start, "Full Tilt")
    tournament = _TOURNAMENT.search(title)
    currency = next((c for c in title if c in "$€£"), "")
    hand.scale = 100 if currency and not tournament else 1
    table = _TABLE.search(title)
    k = start + 1
    k = seats(hand, k, end, _SEAT)
    names = sorted(hand.players, key=len, reverse=True)
    button = None
    total = rake = None
    run = 0
    section = ""
    collected_any = False
    for k in range(k, end):  # noqa: B020  # on from the line after the seats
        line = lines[k]
        if not line:
            continue
        if line.startswith("*** ") and (m := _SECTION.match(line)):
            section, number = m.group(1), int(m.group(2) or 0)
            if section == "SUMMARY":
                hand.total_line = k + 1
            elif section in STREETS and game.board:
                cards = hand.card_list(" ".join(CARDS.findall(m.group(3))), k)
                if number:
                    hand.deal_run(number, cards, STREETS[section], k)
                else:
                    hand.deal(cards, STREETS[section], k)
            elif section == "SHOW DOWN":
                run = number
            elif section not in ("HOLE CARDS", "PRE-FLOP", "DRAW"):
                raise hand.error(HandSyntaxError, k, f"unknown section for {game.name}")
            continue
        if section == "SUMMARY":
            if m := _TOTAL.match(line):
                total, rake = hand.chips(m.group(1), k), hand.chips(m.group(2), k)
            elif m := SUMMARY_SEAT.match(line):
                number, rest = int(m.group(1)), m.group(2)
                if won := _WON.findall(rest):
                    hand.summary[number] = hand.summary.get(number, 0) + sum(hand.chips(w, k) for w in won)
            continue
        if line.startswith("The button") and (b := _BUTTON.match(line)):
            button = int(b.group(1))
            continue
        if returned(hand, line, k, UNCALLED_OF):
            continue
        if (" wins " in line or " ties for " in line) and (m := _WINS.match(line)):
            index = int(m.group(3) or m.group(5) or ("side pot" in m.group(2)))  # 'the side pot': the first
            pot_run = run
            if m.group(4):  # 'pot N' of a hand run twice: run N's share of the pot
                pot_run = int(m.group(4)) if hand.run_boards else 0
                index = 0 if hand.run_boards else int(m.group(4)) - 1
            hand.collect(m.group(1), hand.chips(m.group(6), k), k, index, pot_run)
            collected_any = True
            continue
        if line.startswith("Dealt to "):
            dealt(hand, line, k)
            continue
        who = hand.speaker(line)
        if who is None:
            if any(marker in line for marker in _INFO) or any(line.startswith(n + ": ") for n in names):
                continue  # table news, and the chat ('NAME: text')
            raise hand.error(HandSyntaxError, k, "not a line of a Full Tilt hand")
        _act(hand, who, line[len(who) + 1 :], k)
    if total is None or rake is None:
        raise HandSyntaxError(source, hand.hand_id, end, "the hand has no 'Total pot ... | Rake' line", game.name)
    if not collected_any:
        raise HandSyntaxError(source, hand.hand_id, end, "the hand pays no pot ('wins the pot')", game.name)
    check_total(hand, total)
    read = hand.finish(
        game, button, table.group(1) if table else "fulltilt", total=total, rake=rake,
        tournament=tournament.group(1) if tournament else None, currency=currency, room="Full Tilt",
        chip=_smallest_chip(hand, total, rake),
    )  # fmt: skip
    return with_builder_play(read, hand, _limit(hand, parts), button)


def _limit(hand: HandBuilder, parts: list[str]) -> str:
    """The betting structure the header's ``parts`` name (``NL Hold'em``); a capped table's (``CAP NL Hold'em``, ``$20
    Cap No Limit Hold'em``: nobody puts in more than the cap) is refused for ``play``, which has no cap. The stakes'
    big blind (``$5/$10``), read for the play's minimum bet."""
    named = next((limit for part in parts[1:] if (limit := betting_limit(part))), "")
    if any(re.search(r"\bcap\b", part, re.IGNORECASE) for part in parts[1:]):
        log_of(hand).refuse("a capped table (no seat puts in more than the cap)")
    if stakes := next((part for part in parts[1:] if _STAKES.match(part)), None):
        hand.big_blind = hand.chips(stakes.rpartition("/")[2], hand.start)
    return named


NICKEL: Final = 5
"""Full Tilt's cash tables split a pot in the table's smallest chip; at the tables of the samples with every amount
in nickels (fixed-limit $0.50/$1 and up) that is 5 cents, and the odd nickel goes to the high half."""


def _smallest_chip(hand: HandBuilder, total: int, rake: int) -> int:
    """5 (cents) when the hand is a cash game whose every amount (stacks, chips put in, pots, rake) is in nickels;
    else 1. Never more: a larger common unit would let a larger difference pass."""
    if hand.scale != 100:
        return 1
    amounts = [total, rake, *hand.put.values(), *hand.dead.values(), *(p.stack for p in hand.players.values())]
    amounts += [chips for pot in hand.pots.values() for chips in pot.values()]
    return NICKEL if reduce(gcd, amounts, 0) % NICKEL == 0 else 1


def _act(hand: HandBuilder, name: str, action: str, k: int) -> None:
    """One action of ``name``."""
    for suffix in (", and is all in", " and is all in", ", and is capped", " and is capped"):
        if action.endswith(suffix):
            action = action[: -len(suffix)]
    verb, _, rest = action.partition(" ")
    if action.startswith(("posts the small blind of ", "posts the big blind of ")):
        hand.post_blind(name, hand.chips(action.rsplit(" ", 1)[1], k), k, big=action.startswith("posts the big"))
    elif action.startswith("posts a dead small blind of "):
        hand.pay(name, hand.chips(action.rsplit(" ", 1)[1], k), k, to_bet=False, is_dead=True)
    elif verb == "posts":
        hand.pay(name, hand.chips(rest, k), k)
        log_of(hand).refuse("a blind posted beside the small and big blinds (a player new to the table)")
    elif verb == "antes":
        hand.pay(name, hand.chips(rest, k), k, to_bet=False)
    elif verb == "calls":
        hand.call(name, hand.chips(rest, k), k)
    elif verb == "bets":
        hand.pay(name, hand.chips(rest, k), k)
    elif action.startswith("raises to "):
        hand.raise_to(name, hand.chips(action[len("raises to ") :], k), k)
    elif verb == "checks":
        hand.check(name, k)
    elif verb == "folds":
        hand.fold(name, k)
    elif verb == "shows":
        if shown := CARDS.findall(rest):
            hand.show(name, hand.card_list(shown[0], k), k)
    elif verb == "mucks":
        hand.muck(name, k)
    elif any(marker in " " + action for marker in _INFO):
        pass
    else:
        raise hand.error(HandSyntaxError, k, "not a Full Tilt action")


READER: Final = Reader("fulltilt", opens_with("Full Tilt Poker Game #"), read_fulltilt)
