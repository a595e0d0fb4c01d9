"""Read Merge Gaming network hand histories: XML, one ``<game>`` element a hand, cash games in cents.

Written from the real exports in ``../shared/data/rooms-more/Merge`` (2012; ItalyToast's PokerHandHistoryParser
tests, MIT). A hand is ``<description type="Omaha" stakes="Pot Limit ($3/$6)"/>`` then ``<game
id="56166187-14" ...>``: ``<players dealer="5">`` with ``<player seat="0" nickname="girlpoker69" balance="$325.50"
dealtin="true"/>`` (seats from 0: read one higher; ``dealtin="false"`` sits out), then a ``<round id="...">`` per
street (``BLINDS``, ``PREFLOP``, ``POSTFLOP``, ``POSTTURN``, ``POSTRIVER``, ``SHOWDOWN``) of ``<event type="T"
player="SEAT" amount="18.00"/>`` (``SMALL_BLIND``, ``BIG_BLIND``, ``CALL`` and ``BET`` the chips added, ``RAISE``
to a total for the street, ``ALL_IN`` everything left, ``CHECK``, ``FOLD``, ``SHOW``, ``MUCK``; ``CHAT`` and
``RABBIT`` move no chips) and the street's ``<cards type="COMMUNITY" cards="4h,Qs,Qd"/>`` (the whole board;
``SHOWN`` and ``MUCKED`` a seat's own cards), then ``END_OF_GAME`` (or ``END_OF_FOLDED_GAME``) with ``<winner
amount="206.74" uncalled="false" potnumber="1" player="4"/>`` per pot won (``uncalled="true"``: the bet nobody
called, returned). The rake is written nowhere: the pot less what was collected.

The betting is logged as the hand is read (:class:`~.room_play.PlayBuilder`): a ``No Limit`` or ``Pot Limit`` hand
carries its ``play``, its big blind the stakes' second amount (``No Limit ($1/$2)``).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from typing import Final

from showdown_service.histories.builder import HandBuilder
from showdown_service.histories.errors import HandSyntaxError, ReplayError
from showdown_service.histories.games import room_game
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.reader import Reader
from showdown_service.histories.reading import xml_hands
from showdown_service.histories.room_play import PlayBuilder, limit_named, with_room_play

_GAME: Final = re.compile(r"<game[\s>]")
_DESCRIPTION: Final = re.compile(r'<description type="([^"]*)" stakes="([^"]*)"')
_SIZES: Final = {"POSTFLOP": 3, "POSTTURN": 4, "POSTRIVER": 5}
_QUIET: Final = frozenset({"CHAT", "RABBIT", "SHOW", "SIT_OUT", "SIT_IN"})


def starts_merge(text: str) -> bool:
    """Whether ``text`` (a file opening with ``<``) is Merge's: a ``<description type=... stakes=...>``."""
    return _DESCRIPTION.search(text[:2000]) is not None and _GAME.search(text[:4000]) is not None


def read_merge(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand (``<game>``) of a Merge file's ``text``, read, or the error that stopped it."""
    body = text.replace("\ufeff", "")
    descriptions = list(_DESCRIPTION.finditer(body))

    def read(hand: HandBuilder, element: ET.Element, between: tuple[int, int]) -> HandRecord:
        described = None  # the last <description> before this <game>
        for found in _DESCRIPTION.finditer(body, *between):
            described = found
        kind, stakes = (described.group(1), described.group(2)) if described else ("", "")
        # the play's stakes: the file's last <description> before this <game> (one may head many games)
        latest = next((d.group(2) for d in reversed(descriptions) if d.start() < between[1]), "")
        return _read(PlayBuilder.of(hand), element, kind, stakes, latest)

    return xml_hands(body, source, "merge", _GAME, read, closing="</game>")


def _read(hand: PlayBuilder, xml: ET.Element, kind: str, stakes: str, latest: str) -> HandRecord:
    k = hand.start
    game = hand.board_game(room_game(kind.replace("Texas Hold'em", "Holdem") or "Holdem"), kind, k, "Merge")
    money = xml.get("realmoney") == "true"
    hand.scale = 100 if money else 1
    currency = next((c for c in stakes if c in "$€£"), "")
    seats: dict[str, str] = {}
    for player in xml.iterfind("players/player"):
        seat, name = player.get("seat", ""), player.get("nickname", "")
        if not seat.isdigit():
            raise hand.error(HandSyntaxError, k, f"seat {seat!r} of {name!r} is not a seat number")
        balance = player.get("balance", "")
        hand.seat(int(seat) + 1, name, hand.chips(balance, k), k, sitting_out=player.get("dealtin") == "false")
        seats[seat] = name
    dealer = (xml.find("players") or ET.Element("players")).get("dealer", "")
    button = int(dealer) + 1 if dealer.isdigit() else None
    if len(hand.players) < 2:
        raise hand.error(HandSyntaxError, k, "a hand needs two <player> seats")
    rounds = list(xml.iterfind("round"))
    if any(r.get("id") == "GAME_CANCELLED" for r in rounds):
        return HandRecord(hand.source, hand.hand_id, k + 1, None, None, "the game was cancelled", False, game.name)
    for round_xml in rounds:
        _round(hand, round_xml, seats, game.board, k)
    read = hand.finish(
        game, button, [*xml.get("data", "").split("|"), "", ""][1] or "merge", currency=currency,
        uncalled_written=False, room="Merge",
    )  # fmt: skip
    big = latest.rpartition("/")[2].rstrip(")")
    return with_room_play(read, hand, limit_named(latest), hand.chips(big, k) if big else None, button)


def _who(hand: HandBuilder, element: ET.Element, seats: dict[str, str], k: int) -> str:
    seat = element.get("player", "")
    if seat not in seats:
        raise hand.error(HandSyntaxError, k, f"player {seat!r} has no seat")
    return seats[seat]


def _round(hand: PlayBuilder, round_xml: ET.Element, seats: dict[str, str], board: bool, k: int) -> None:
    """One ``<round>``: its board first (written after the round's events), then the events, then cards shown and
    the winners."""
    name = round_xml.get("id", "")
    for cards in round_xml.iterfind("cards"):
        if cards.get("type") == "COMMUNITY" and board and name in _SIZES:
            hand.deal(hand.card_list(cards.get("cards", ""), k), _SIZES[name], k)
    for event in round_xml.iterfind("event"):
        kind = event.get("type", "")
        if kind in _QUIET or kind == "GAME_CANCELLED":
            continue
        who = _who(hand, event, seats, k)
        amount = event.get("amount", "0")
        if kind in ("SMALL_BLIND", "BIG_BLIND"):
            hand.blind(who, hand.chips(amount, k), k, big=kind == "BIG_BLIND")
        elif kind == "BET":
            hand.pay(who, hand.chips(amount, k), k)
        elif kind == "CALL":
            hand.call(who, hand.chips(amount, k), k)
        elif kind == "RAISE":
            hand.raise_to(who, hand.chips(amount, k), k)
        elif kind == "ALL_IN":
            hand.pay(who, hand.left[who], k)
        elif (step := _NO_CHIPS.get(kind)) is not None:
            step(hand, who, k)
        else:
            raise hand.error(HandSyntaxError, k, f"{who}: unknown event {kind!r}")
    for cards in round_xml.iterfind("cards"):
        if cards.get("type") in ("SHOWN", "MUCKED"):
            hand.show(_who(hand, cards, seats, k), hand.card_list(cards.get("cards", ""), k), k)
    for winner in round_xml.iterfind("winner"):
        who = _who(hand, winner, seats, k)
        chips = hand.chips(winner.get("amount", ""), k)
        if winner.get("uncalled") == "true":
            hand.give_back(who, chips, k)
        else:
            pot = winner.get("potnumber", "1")
            hand.collect(who, chips, k, int(pot) - 1 if pot.isdigit() and pot != "0" else 0)


_NO_CHIPS: Final[dict[str, Callable[[PlayBuilder, str, int], None]]] = {
    "CHECK": PlayBuilder.check,
    "FOLD": PlayBuilder.fold,
    "MUCK": PlayBuilder.muck,
}
"""Merge's events that move no chips, and the builder's step for each."""


READER: Final = Reader("merge", lambda head: head.line.startswith("<") and starts_merge(head.text), read_merge)
