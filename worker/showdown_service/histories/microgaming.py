"""Read Microgaming network hand histories: XML, one ``<Game>`` element a hand, cash games in cents.

Written from the real exports in ``../shared/data/rooms-more/MicroGaming`` (2013-2017; ItalyToast's
PokerHandHistoryParser tests, MIT). A hand is ``<Game hhversion="4" id="5049092010" tablename="Turbo: Micro NLHE 4 -
€2 Max" stakes="0.01|0.02" betlimit="NL" gametype="Hold&apos;em" currencysymbol="rCA=" istournament="0"
rake="10">`` (``currencysymbol`` the symbol in base64 UTF-16: ``rCA=`` is ``€``; ``rake`` in cents), its
``<Seats>`` (``<Seat num="4" alias="b16Al" balance="1.88" dealer="true"/>``: the stack at the start) and its
``<Gameplay>``: ``<Action seq="N" type="T" seat="S" value="0.12"/>`` in ``seq`` order. Every ``value`` is the
chips the action adds (``SmallBlind``, ``BigBlind``, ``Call``, ``Bet``, ``Raise``, ``AllIn``); ``MoneyReturned``
is the bet nobody called, given back; ``BadBeatContribution`` (0.02) goes to the room's bad beat jackpot from the
stack, not into the pot; ``DealCards`` / ``ShowCards`` hold a seat's own cards (``<Card value="10" suit="s"/>``),
``DealFlop`` / ``DealTurn`` / ``DealRiver`` the board; ``Win`` lists ``<Seat num="3" amount="1.02" pot="0"/>``
per pot won (``pot`` 0 the main pot, ``lowhandwin="1"`` the low half of a hi-lo pot). A tournament
(``istournament="1"``) is in chips, without a rake.

The betting is logged as the hand is read (:class:`~.room_play.PlayBuilder`): a no-limit (``betlimit="NL"``) or
pot-limit (``PL``) hand carries its ``play``, its big blind the ``stakes``' second amount; an ``AllIn`` before the
``BigBlind`` and before any bet, call, check or fold is a blind posted all-in (the small one when none was).
"""

from __future__ import annotations

import base64
import binascii
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from typing import Final

from showdown_service.histories.builder import HandBuilder
from showdown_service.histories.errors import ChipsDoNotAddUp, HandSyntaxError, ReplayError
from showdown_service.histories.games import room_game
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.reader import Reader
from showdown_service.histories.reading import xml_hands
from showdown_service.histories.room_play import PlayBuilder, limit_named, with_room_play

_GAME: Final = re.compile(r"<Game[\s>]")
_END: Final = "</Game>"
_STREETS: Final = {"DealFlop": 3, "DealTurn": 4, "DealRiver": 5}
_QUIET: Final = frozenset({"Disconnect", "Win", "SitOut", "Reconnect"})
"""Actions that move no chips of the hand (``Win`` is read apart: what each seat collected)."""


def starts_microgaming(text: str) -> bool:
    """Whether ``text`` (a file opening with ``<``) is Microgaming's XML: a ``<Game hhversion=...>``."""
    return re.match(r"\s*<Game\s[^>]*\bhhversion=", text.lstrip("\ufeff")) is not None


def read_microgaming(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand (``<Game>``) of a Microgaming file's ``text``, read, or the error that stopped it."""
    if _GAME.search(text) is None:
        return iter([HandSyntaxError(source, None, 1, "no Microgaming <Game> in the file")])
    return xml_hands(text, source, "microgaming", _GAME, lambda hand, element, _: _read(PlayBuilder.of(hand), element),
                     id_window=400, clean=str.strip)  # fmt: skip


def _currency(written: str) -> str:
    """``rCA=`` (base64 of UTF-16 LE) -> ``€``; nothing written (a tournament) -> ``""``."""
    try:
        return base64.b64decode(written, validate=True).decode("utf-16-le").strip()
    except (binascii.Error, UnicodeDecodeError):
        return ""


def _read(hand: PlayBuilder, xml: ET.Element) -> HandRecord:
    k = hand.start
    kind = xml.get("gametype", "")
    game = hand.board_game(room_game(kind.replace("H/L", "Hi/Lo")), kind, k, "Microgaming")
    tournament = xml.get("istournament") == "1"
    hand.scale = 1 if tournament else 100
    currency = "" if tournament else _currency(xml.get("currencysymbol", ""))
    button = None
    seats: dict[str, str] = {}
    for seat in xml.iterfind("Seats/Seat"):
        number, name = seat.get("num", ""), seat.get("alias", "")
        if not number.isdigit():
            raise hand.error(HandSyntaxError, k, f"seat {number!r} of {name!r} is not a seat number")
        hand.seat(int(number), name, hand.chips(seat.get("balance", ""), k), k)
        seats[number] = name
        if seat.get("dealer") == "true":
            button = int(number)
    if len(hand.players) < 2:
        if len(hand.players) == 1:
            reason = "no hand was played: 1 seat at the table"
            return HandRecord(hand.source, hand.hand_id, k + 1, None, None, reason, False, game.name)
        raise hand.error(HandSyntaxError, k, "a hand needs two <Seat> seats")
    at = _action_lines(hand)
    for action in xml.iterfind("Gameplay/Action"):
        _act(hand, action, seats, game.board, at.get(action.get("seq", ""), k))
    written = xml.get("rake")
    if written is not None and not written.isdigit():
        raise hand.error(HandSyntaxError, k, f"rake={written!r} is not a number of cents")
    rake = 0 if tournament else None if written is None else int(written)
    name = xml.get("tablename", "microgaming")
    read = hand.finish(
        game, button, name, rake=rake, tournament=name.rsplit(":Table", 1)[0] if tournament else None,
        currency=currency, room="Microgaming", uncalled_written=False,
    )  # fmt: skip
    big = xml.get("stakes", "").rpartition("|")[2]
    big_blind = hand.chips(big, k) if big else None
    return with_room_play(read, hand, limit_named(xml.get("betlimit", "")), big_blind, button)


def _action_lines(hand: HandBuilder) -> dict[str, int]:
    """Each action's 0-based line by its ``seq`` (an error quotes the action's own line), to the hand's end."""
    at: dict[str, int] = {}
    for k in range(hand.start, len(hand.lines)):
        line = hand.lines[k]
        if (seq := _SEQ.search(line)) is not None:
            at.setdefault(seq.group(1), k)
        elif _END in line or (k > hand.start and _GAME.search(line)):
            break
    return at


_SEQ: Final = re.compile(r'<Action\s[^>]*\bseq="([^"]*)"')


def _who(hand: HandBuilder, action: ET.Element, seats: dict[str, str], k: int, attribute: str = "seat") -> str:
    seat = action.get(attribute, "")
    if seat not in seats:
        raise hand.error(HandSyntaxError, k, f"seat {seat!r} has no <Seat>")
    return seats[seat]


def _act(hand: PlayBuilder, action: ET.Element, seats: dict[str, str], board: bool, k: int) -> None:
    kind = action.get("type", "")
    if kind in _STREETS:
        if board:
            hand.deal(_cards(hand, action, k), _STREETS[kind], k)
        return
    if kind in _QUIET:
        if kind == "Win":
            for won in action.iterfind("Seat"):
                name = _who(hand, won, seats, k, "num")
                pot = won.get("pot", "0")
                hand.collect(name, hand.chips(won.get("amount", ""), k), k, int(pot) if pot.isdigit() else None)
        return
    name = _who(hand, action, seats, k)
    value = action.get("value", "0")
    if kind in ("SmallBlind", "BigBlind"):
        hand.blind(name, hand.chips(value, k), k, big=kind == "BigBlind")
    elif kind in ("Bet", "Raise"):
        hand.pay(name, hand.chips(value, k), k)
    elif kind == "AllIn":
        chips = hand.chips(value, k)
        if chips != hand.left[name]:
            raise hand.error(
                ChipsDoNotAddUp,
                k,
                f"{name} is all-in for {chips} with {hand.left[name]} behind",
            )
        if hand.log.big_blind is None and not hand.log.actions:  # before the big blind: a blind posted all-in
            hand.blind(name, chips, k, big=hand.log.small_blind is not None)
        else:
            hand.pay(name, chips, k)
    elif kind == "Call":
        hand.call(name, hand.chips(value, k), k)
    elif kind == "MoneyReturned":
        hand.give_back(name, hand.chips(value, k), k)
    elif (step := _NO_CHIPS.get(kind)) is not None:
        step(hand, name, k)
    elif kind in ("DealCards", "ShowCards"):
        hand.show(name, _cards(hand, action, k), k)
    elif kind == "BadBeatContribution":  # from the stack to the room's jackpot: not in the pot
        fee = hand.chips(value, k)
        if fee > hand.left[name]:
            raise hand.error(HandSyntaxError, k, f"{name} pays {fee} to the jackpot with {hand.left[name]} behind")
        hand.left[name] -= fee
    else:
        raise hand.error(HandSyntaxError, k, f"{name}: unknown type {kind!r}")


_NO_CHIPS: Final[dict[str, Callable[[PlayBuilder, str, int], None]]] = {
    "MuckCards": PlayBuilder.muck,  # gives up at the showdown (the last seat left keeps the pot: the builder sees it)
    "Check": PlayBuilder.check,
    "Fold": PlayBuilder.fold,
}
"""Microgaming's actions that move no chips, and the builder's step for each."""


_RANKS: Final = {"10": "T", **{r: r for r in "23456789TJQKA"}}


def _cards(hand: HandBuilder, action: ET.Element, k: int) -> list[str]:
    """``<Card value="10" suit="s"/>`` ... -> ``["Ts", ...]``."""
    out = []
    for card in action.iterfind("Card"):
        rank, suit = _RANKS.get(card.get("value", "")), card.get("suit", "")
        if rank is None or suit not in ("c", "d", "h", "s"):
            raise hand.error(HandSyntaxError, k, f"{card.get('value')}{suit} is not a card")
        out.append(rank + suit)
    return out


READER: Final = Reader(
    "microgaming", lambda head: head.line.startswith("<") and starts_microgaming(head.text), read_microgaming
)
