"""Read Boss Media network hand histories: XML, one ``<HISTORY>`` element a hand, cash games in cents.

Written from the real exports in ``../shared/data/rooms-more/BossMedia`` (2014; ItalyToast's PokerHandHistoryParser
tests, MIT). A hand is ``<HISTORY ID="2089056842" TABLE="Moa 11" GAME="GAME_OMA" GAMEKIND="GAMEKIND_CASH"
TABLECURRENCY="USD" LIMIT="PL" STAKES="100.00/200.00" ...>`` (``GAME_THM`` hold'em, ``GAME_OMA`` Omaha,
``GAME_OMAHL`` Omaha Hi/Lo; ``GAMEKIND_SITGO`` and ``GAMEKIND_TOURNAMENT`` in chips), its seats (``<PLAYER
NAME="Phyre" SEAT="2" AMOUNT="13427.00" STATE="STATE_PLAYING" DEALER="N">``; ``UNKNOWN`` in an empty seat), then
``<ACTION TYPE="...">`` in order: ``HAND_BLINDS`` (``KIND="HAND_SB"``, ``HAND_BB``; ``HAND_DSB`` a dead small
blind), ``HAND_ANTE``, ``HAND_DEAL`` (a seat's own cards, ``<CARD LINK="38">``, ``b`` unknown), ``ACTION_FOLD``,
``ACTION_CHECK``, ``ACTION_CALL`` (the chips added), ``ACTION_BET``, ``ACTION_RAISE`` (to a total for the street),
``ACTION_ALLIN`` (everything the seat has left), ``HAND_BOARD`` (the whole board so far). A card's ``LINK`` is
0-51: diamonds, clubs, hearts, spades in blocks of 13, each ace first (0 ``Ad``, 1 ``2d``, ... 12 ``Kd``, 13
``Ac``). ``<SHOWDOWN POT="17555.00" RAKE="15.00">`` closes the hand: the pot after its rake (uncalled bets not in
it, and never written), then a ``<RESULT PLAYER="SAMERRRR" WIN="17555.00">`` per seat (its cards shown inside;
``WINTYPE`` a hi-lo half).

The betting is logged as the hand is read (:class:`~.room_play.PlayBuilder`): a no-limit (``LIMIT="NL"``) or
pot-limit (``PL``) hand carries its ``play``, its big blind the ``STAKES``' second amount.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from html.entities import name2codepoint
from typing import Final

from showdown_service.histories.builder import HandBuilder
from showdown_service.histories.errors import HandSyntaxError, ReplayError, UnsupportedHand
from showdown_service.histories.games import HOLDEM, OMAHA, OMAHA_HILO, Game
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.reader import Reader
from showdown_service.histories.reading import xml_hands
from showdown_service.histories.room_play import PlayBuilder, limit_named, with_room_play

_HISTORY: Final = re.compile(r"<HISTORY[\s>]")
_GAMES: Final[dict[str, Game]] = {"GAME_THM": HOLDEM, "GAME_OMA": OMAHA, "GAME_OMAHL": OMAHA_HILO}
_SIZES: Final = {"BOARD_FLOP": 3, "BOARD_TURN": 4, "BOARD_RIVER": 5}
_ENTITY: Final = re.compile(r"&([A-Za-z][A-Za-z0-9]*);")
_XML_ENTITIES: Final = frozenset({"amp", "lt", "gt", "quot", "apos"})
_RANKS: Final = "A23456789TJQK"
_SUITS: Final = "dchs"


def starts_bossmedia(text: str) -> bool:
    """Whether ``text`` (a file opening with ``<``) is Boss Media's XML: a ``<HISTORY ID=...>`` near its start."""
    return re.search(r"<HISTORY\s+ID=", text[:2000]) is not None


def read_bossmedia(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand (``<HISTORY>``) of a Boss Media file's ``text``, read, or the error that stopped it."""
    return xml_hands(
        text,
        source,
        "bossmedia",
        _HISTORY,
        lambda hand, element, _: read_history(PlayBuilder.of(hand), element),
        closing="</HISTORY>",
        id_attribute="ID",
        clean=lambda element: _ENTITY.sub(_numeric, element),
    )


def _numeric(entity: re.Match[str]) -> str:
    """An HTML entity in a name (``&pound;``, ``&Ouml;``: the client writes them, XML knows only five) as the
    character's number; an entity HTML does not know either is left for the parser to refuse."""
    name = entity.group(1)
    if name in _XML_ENTITIES or name not in name2codepoint:
        return entity.group(0)
    return f"&#{name2codepoint[name]};"


def read_history(hand: PlayBuilder, xml: ET.Element, *, calls_to_total: bool | None = None) -> HandRecord:
    """One ``<HISTORY>`` element (IGT's JSON exports build the same element: :mod:`.igt`); ``calls_to_total``: a
    call's ``VALUE`` is the street's total (``None``: told by the seats, as below)."""
    k = hand.start
    game = _GAMES.get(xml.get("GAME", ""))
    if game is None:
        raise UnsupportedHand(hand.source, hand.hand_id, k + 1, f"no game this reader knows in {xml.get('GAME')!r}")
    hand.game_name = game.name
    cash = xml.get("GAMEKIND") == "GAMEKIND_CASH"
    hand.scale = 100 if cash else 1
    button = None
    for player in xml.iterfind("PLAYER"):
        name, seat = player.get("NAME", ""), player.get("SEAT", "")
        if player.get("STATE") == "STATE_EMPTY" or name == "UNKNOWN":
            continue
        if not seat.isdigit():
            raise hand.error(HandSyntaxError, k, f"seat {seat!r} of {name!r} is not a seat number")
        out = player.get("STATE") in ("STATE_SITOUT", "STATE_RESERVED")
        hand.seat(int(seat), name, hand.chips(player.get("AMOUNT", ""), k), k, sitting_out=out)
        if player.get("DEALER") == "Y":
            button = int(seat)
    if len(hand.players) < 2:
        raise hand.error(HandSyntaxError, k, "a hand needs two <PLAYER> seats")
    # the 2010 client (its seats without a STATE) writes a call as the street's total: the small blind 'calls 0.04'
    # a big blind of 0.04; the 2014 client writes the chips added (a big blind of 20 'calls 20' a raise to 40)
    to_total = all(player.get("STATE") is None for player in xml.iterfind("PLAYER"))
    if calls_to_total is not None:
        to_total = calls_to_total
    at = _action_lines(hand)
    for n, action in enumerate(xml.iterfind("ACTION")):
        _act(hand, action, game, at[n] if n < len(at) else k, to_total=to_total)
    showdown = xml.find("SHOWDOWN")
    if showdown is None:
        raise HandSyntaxError(
            hand.source, hand.hand_id, k + 1, "the hand has no <SHOWDOWN POT=... RAKE=...>", game.name
        )
    rake = hand.chips(showdown.get("RAKE", "0") or "0", k)
    total = hand.chips(showdown.get("POT", ""), k) + rake
    for result in showdown.iterfind("RESULT"):
        name = hand.player(result.get("PLAYER", ""), k)
        if shown := _cards(hand, result, k):
            hand.show(name, shown, k)
        if won := hand.chips(result.get("WIN", "0") or "0", k):
            hand.collect(name, won, k)
    read = hand.finish(
        game, button, xml.get("TABLE", "bossmedia"), total=total, rake=rake,
        tournament=None if cash else xml.get("TABLETOURNEYID") or xml.get("TABLE"),
        currency="" if not cash else xml.get("TABLECURRENCY", ""), uncalled_written=False, room="Boss Media",
    )  # fmt: skip
    big = xml.get("STAKES", "").rpartition("/")[2]
    big_blind = hand.chips(big, k) if big else None
    return with_room_play(read, hand, limit_named(xml.get("LIMIT", "")), big_blind, button)


def _action_lines(hand: HandBuilder) -> list[int]:
    """The 0-based line of each ``<ACTION`` of the hand, in order (an error quotes the action's own line)."""
    at: list[int] = []
    for k in range(hand.start, len(hand.lines)):
        line = hand.lines[k].lstrip("\ufeff \t")
        if line.startswith("<ACTION"):
            at.append(k)
        elif "</HISTORY>" in line or (k > hand.start and line.startswith("<HISTORY")):
            break
    return at


def _act(hand: PlayBuilder, action: ET.Element, game: Game, k: int, *, to_total: bool) -> None:
    """One ``<ACTION>``; ``to_total``: a call's ``VALUE`` is the street's total (the 2010 client), not the chips
    added."""
    kind, name = action.get("TYPE", ""), action.get("PLAYER", "")
    if kind == "HAND_BOARD":
        if game.board:
            size = _SIZES.get(action.get("VALUE", ""))
            if size is None:
                raise hand.error(HandSyntaxError, k, f"a board {action.get('VALUE')!r} of no street")
            hand.deal(_cards(hand, action, k), size, k)
        return
    name = hand.player(name, k)
    value = action.get("VALUE", "0") or "0"
    if kind == "HAND_BLINDS" and action.get("KIND") == "HAND_DSB":  # a dead small blind: in the pot, not the bet
        hand.pay(name, hand.chips(value, k), k, to_bet=False, is_dead=True)
    elif kind == "HAND_BLINDS" and action.get("KIND") in ("HAND_SB", "HAND_BB"):
        hand.blind(name, hand.chips(value, k), k, big=action.get("KIND") == "HAND_BB")
    elif kind in {"HAND_BLINDS", "ACTION_BET"}:
        hand.pay(name, hand.chips(value, k), k)
        if kind == "HAND_BLINDS":
            hand.log.refuse(f"a blind of kind {action.get('KIND')!r}")
    elif kind == "HAND_ANTE":
        hand.pay(name, hand.chips(value, k), k, to_bet=False)
    elif kind == "ACTION_CALL":
        chips = hand.chips(value, k)
        hand.call(name, chips - hand.bet[name] if to_total else chips, k)
    elif kind == "ACTION_RAISE":
        hand.raise_to(name, hand.chips(value, k), k)
    elif kind == "ACTION_ALLIN":
        hand.pay(name, hand.left[name], k)
    elif kind == "ACTION_ADJUSTEMENT":  # IGT: the bet comes back down to VALUE, the most anybody matched
        back = hand.bet[name] - hand.chips(value, k)
        if back < 0:
            raise hand.error(HandSyntaxError, k, f"{name} is adjusted up to {value}, above its bet")
        hand.give_back(name, back, k)  # the play: the uncalled part of the bet, the state machine's to return
    elif kind == "ACTION_CHECK":
        hand.check(name, k)
    elif kind == "ACTION_FOLD":
        hand.fold(name, k)
    elif kind == "HAND_DEAL":
        if cards := _cards(hand, action, k):
            hand.show(name, cards, k)
        else:
            hand.acted.add(name)  # dealt in, its cards not known
    else:
        raise hand.error(HandSyntaxError, k, f"{name}: unknown action {kind!r}")


def _cards(hand: HandBuilder, element: ET.Element, k: int) -> list[str]:
    """``<CARD LINK="38">`` ... -> ``["Kh", ...]``; a ``b`` (unknown) card makes the list unknown (``[]``)."""
    out = []
    for card in element.iterfind("CARD"):
        link = card.get("LINK", "")
        if link == "b":
            return []
        if not link.isdigit() or int(link) > 51:
            raise hand.error(HandSyntaxError, k, f"LINK={link!r} is not a card (0-51)")
        out.append(_RANKS[int(link) % 13] + _SUITS[int(link) // 13])
    return out


READER: Final = Reader(
    "bossmedia", lambda head: head.line.startswith("<") and starts_bossmedia(head.text), read_bossmedia
)
