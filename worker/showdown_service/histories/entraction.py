"""Read Entraction network hand histories: cash games in cents.

Written from the real exports in ``../shared/data/rooms-more/Entraction`` (2012; ItalyToast's PokerHandHistoryParser
tests, MIT). A hand begins at ``Game # 2646515969 - Omaha Hi/Lo Fixed Limit EUR 100.00/200.00 - Table "Portland"``
(``Texas Hold'em``, ``Omaha High``, ``5-Card Omaha High``), then ``Players(max 2):`` and a seat a line
(``YoOyYo                      (EUR 2,950.00 in seat 1)``: names in a column, spaces inside them), ``Dealer:
NAME``, ``Big Blind: NAME (100.00)``, ``Small Blind: NAME (50.00)``, the actions (``NAME   Raise   (150.00)``:
every amount is the chips added, ``Bet``, ``Call``, ``All-In``, ``Check``, ``Fold``; ``Payback (1,209.76)`` the bet
nobody called, returned), the board (``Flop   4d - 2d - Js``, ``Turn`` and ``River`` the whole board), ``NAME
shows:   7d - 8s - 9d - Th``, ``NAME didn't show hand`` (gave up at the showdown; ``(Ac - 8h)`` after it: the
exporting player's own cards), ``NAME wins:   EUR 5,898.50`` (each seat's total, no pot named), ``Rake:   EUR
1.50`` and ``Game ended DATE``.

The betting is logged as the hand is read (:class:`~.room_play.PlayBuilder`): a ``No Limit`` or ``Pot Limit`` hand
carries its ``play``, its big blind the header's second amount.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from showdown_service.histories.builder import HandBuilder
from showdown_service.histories.errors import HandSyntaxError, ReplayError
from showdown_service.histories.games import room_game
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.patterns import STREETS_TITLED
from showdown_service.histories.reader import Reader
from showdown_service.histories.reading import headed_hand, split_hands
from showdown_service.histories.room_play import PlayBuilder, limit_named, with_room_play

_HEADER: Final = re.compile(r'^Game # (\d+) - (.+?) ([A-Z]{3}) ([\d.,]+)/([\d.,]+) - Table "(.*)"$')
_SEAT: Final = re.compile(r"^(.+?) +\(([A-Z]{3}) ([\d.,]+) in seat (\d+)\)$")
_BLIND: Final = re.compile(r"^(Big Blind|Small Blind): +(.+?) +\(([\d.,]+)\)$")
_STREET: Final = re.compile(r"^(Flop|Turn|River) +(.+)$")
_AMOUNT: Final = re.compile(r"^(Raise|Bet|Call|All-In|Payback|Ante) +\(([\d.,]+)\)$")
_WINS: Final = re.compile(r"^wins: +(?:[A-Z]{3} )?([\d.,]+)$")
_RAKE: Final = re.compile(r"^Rake: +(?:[A-Z]{3} )?([\d.,]+)$")


def starts_entraction(line: str) -> bool:
    """Whether ``line`` opens an Entraction hand."""
    return _HEADER.match(line) is not None


def read_entraction(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand of an Entraction hand history file's ``text``, read, or the error that stopped it."""
    return split_hands(text, source, lambda lines, k: lines[k].startswith("Game # "), "Game # ", _read)


def _read(lines: list[str], start: int, end: int, source: str) -> HandRecord:
    what = "'Game # N - GAME CUR SB/BB - Table \"NAME\"'"
    made, header = headed_hand(lines, start, end, source, room="entraction", header=_HEADER, what=what)
    hand = PlayBuilder.of(made)
    game = hand.board_game(room_game(header.group(2)), header.group(2), start, "Entraction")
    currency = header.group(3)
    k = start + 1
    while k < end and not lines[k].startswith("Players("):
        if lines[k]:
            raise hand.error(HandSyntaxError, k, "expected 'Players(max N):'")
        k += 1
    k += 1
    while k < end and (seat := _SEAT.match(lines[k])):
        hand.seat(int(seat.group(4)), seat.group(1), hand.chips(seat.group(3), k), k)
        k += 1
    hand.two_seats(k, end)
    button, rake = None, None
    for k in range(k, end):  # noqa: B020  # on from the line after the seats
        line = lines[k]
        if not line or line.startswith("Game ended "):
            continue
        if line.startswith("Dealer:"):
            button = hand.players[hand.player(line.removeprefix("Dealer:").strip(), k)].seat
        elif blind := _BLIND.match(line):
            big = blind.group(1) == "Big Blind"
            hand.blind(hand.player(blind.group(2), k), hand.chips(blind.group(3), k), k, big=big)
        elif street := _STREET.match(line):
            if game.board:
                hand.deal(hand.card_list(street.group(2).replace(" - ", " "), k), STREETS_TITLED[street.group(1)], k)
        elif taken := _RAKE.match(line):
            rake = hand.chips(taken.group(1), k)
            hand.total_line = k + 1
        elif (who := hand.speaker(line)) is not None:
            _act(hand, who, line[len(who) :].strip(), k)
        else:
            raise hand.error(HandSyntaxError, k, "not a line of an Entraction hand")
    if rake is None:
        raise HandSyntaxError(source, hand.hand_id, end, "the hand has no 'Rake:' line", game.name)
    read = hand.finish(game, button, header.group(6), rake=rake, currency=currency, code=currency, room="Entraction")
    return with_room_play(read, hand, limit_named(header.group(2)), hand.chips(header.group(5), start), button)


def _act(hand: HandBuilder, name: str, action: str, k: int) -> None:
    """One line of ``name``: an action, its cards shown, what it won."""
    if amount := _AMOUNT.match(action):
        verb, chips = amount.group(1), hand.chips(amount.group(2), k)
        if verb == "Call":
            hand.call(name, chips, k)
        elif verb == "Payback":
            hand.give_back(name, chips, k)
        elif verb == "Ante":
            hand.pay(name, chips, k, to_bet=False)
        else:  # Raise, Bet, All-In: the chips added
            hand.pay(name, chips, k)
    elif action == "Check":
        hand.check(name, k)
    elif action == "Fold":
        hand.fold(name, k)
    elif action.startswith("shows:"):
        hand.show(name, hand.card_list(action.removeprefix("shows:").replace(" - ", " "), k), k)
    elif won := _WINS.match(action):
        hand.collect(name, hand.chips(won.group(1), k), k)
    elif action.startswith("didn't show hand"):  # '(Ac - 8h)' after it: the exporting player's own cards
        if cards := action.removeprefix("didn't show hand").strip(" ()"):
            hand.show(name, hand.card_list(cards.replace(" - ", " "), k), k)
        if name not in hand.folded:
            hand.muck(name, k)  # gave up at the showdown (the last seat left keeps the pot: the builder sees it)
    else:
        raise hand.error(HandSyntaxError, k, f"not an Entraction action of {name}")


READER: Final = Reader("entraction", lambda head: starts_entraction(head.line), read_entraction)
