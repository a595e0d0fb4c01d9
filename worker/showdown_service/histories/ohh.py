"""Read Open Hand History (``.ohh``), the cross-room JSON standard (hh-specs.handhistory.org, spec 1.4).

A file holds one or more ``{"ohh": {...}}`` objects one after another. Each
is a hand: ``game_number``, ``game_type`` (``Holdem``, ``Omaha``,
``OmahaHiLo``...), ``currency`` (a tournament's chips when ``tournament`` is
true; an ISO 4217 code's amounts are read in its minor unit: cents, yen, fils),
``dealer_seat``, ``players[]`` (``id``, ``seat``, ``name``,
``starting_stack``, ``player_bounty``), ``rounds[]`` (``street``:
``Preflop``, ``Flop``, ``Turn``, ``River``, ``Showdown``; ``cards``: the
street's new board cards; ``actions[]`` with ``player_id``, ``action``,
``amount``: the chips put in by this action, a raise too, and ``cards``),
``pots[]`` (``number``, ``amount``: the pot with its rake, ``rake``,
``jackpot``, ``player_wins[]`` with ``player_id`` and ``win_amount``) and
``tournament_bounties[]`` (``player_id``, ``bounty_won``,
``defeated_player_id``).

The standard has no uncalled-bet action: the bet nobody called is not in
any pot, and the reader returns it (docs/replay.md, Open Hand History).
What a pot pays is compared pot by pot; each pot's ``amount`` must be its
wins, rake and jackpot.

A ``player_wins`` entry's ``cashout_amount`` and ``cashout_fee`` (hh-specs
1.4: "the amount paid out to a player if they chose to cash out of a hand
instead of playing to showdown", its ``win_amount`` still the run-out's) are
read into the event's ``cashouts`` as PokerStars' lines are (docs/cashout.md):
the offer is ``cashout_amount``, the fee rule the fee over the two to the half
percent, the street the one the last bet, call, check or fold was made on (the
standard names none).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation, Overflow
from typing import Any, Final

from showdown_rules.currencies import ISO_4217_EXPONENTS as MINOR
from showdown_rules.limits import PPM
from showdown_service.histories.builder import HandBuilder
from showdown_service.histories.errors import (
    ChipsDoNotAddUp,
    HandSyntaxError,
    ImpossibleAction,
    ReplayError,
    UnsupportedHand,
    unreadable,
)
from showdown_service.histories.games import room_game
from showdown_service.histories.hands import MAX_AMOUNT, TOO_LARGE, Bounty, HandRecord
from showdown_service.histories.patterns import CASHOUT_STREETS, STREETS_TITLED
from showdown_service.histories.pokerstars import PKO_CASH_PPM
from showdown_service.histories.reader import Reader
from showdown_service.histories.reading import LineCount
from showdown_service.histories.stated import StatedCashOut, with_stated_cashouts

_GAMES: Final = {"holdem": "Hold'em", "omaha": "Omaha", "omahahilo": "Omaha Hi/Lo", "omahahl": "Omaha Hi/Lo"}
_QUIET: Final = frozenset({"Dealt Cards", "Added Chips", "Sits Down", "Stands Up"})
_BETTING: Final = frozenset({"Bet", "Raise", "Call", "Check", "Fold"})


def starts_ohh(text: str) -> bool:
    """Whether ``text`` opens with an Open Hand History object (``{"ohh": ...``)."""
    head = text.lstrip("\ufeff \t\r\n")[:200].replace(" ", "").replace("\n", "").replace("\r", "").replace("\t", "")
    return head.startswith('{"ohh"')


def read_ohh(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand of an Open Hand History file's ``text``, read, or the error that stopped it."""
    body = text.replace("\ufeff", "")
    lines = body.splitlines()
    decoder = json.JSONDecoder(parse_float=Decimal)
    at = 0
    count = LineCount(body)
    while True:
        while at < len(body) and body[at].isspace():
            at += 1
        if at >= len(body):
            return
        line = count.line(at)
        try:
            document, end = decoder.raw_decode(body, at)
        except json.JSONDecodeError as exc:
            yield HandSyntaxError(source, None, exc.lineno, f"not JSON at column {exc.colno}: {exc.msg}")
            return
        except (ValueError, RecursionError) as exc:  # a number of thousands of digits, arrays nested thousands deep
            yield unreadable(exc, source, None, line + 1)
            return
        at = end
        hand_doc = document.get("ohh") if isinstance(document, dict) else None
        if not isinstance(hand_doc, dict):
            yield HandSyntaxError(source, None, line + 1, 'expected an object {"ohh": {...}}')
            continue
        hand = HandBuilder(lines, source, f"ohh:{hand_doc.get('game_number', line + 1)}", line)
        site = str(hand_doc.get("site_name") or hand_doc.get("network_name") or "").strip()
        try:
            read = _read(hand, hand_doc)
            yield read._replace(site=site) if site else read
        except Exception as exc:  # a value of a kind the reader did not foresee: this hand's error
            error = exc if isinstance(exc, ReplayError) else unreadable(exc, source, hand.hand_id, line + 1)
            info = hand_doc.get("tournament_info")
            if hand_doc.get("tournament") and isinstance(info, dict) and info.get("tournament_number") is not None:
                error.tournament = (site, str(info["tournament_number"]))
            yield error


def _field(hand: HandBuilder, doc: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = doc.get(key)
    if not isinstance(value, kind):
        raise hand.error(HandSyntaxError, hand.start, f"{key!r} is missing or not {getattr(kind, '__name__', kind)}")
    return value


def _chips(hand: HandBuilder, value: Any, what: str) -> int:
    """A JSON amount in the hand's unit: money in cents, chips whole."""
    try:
        amount = Decimal(value) * hand.scale
    except Overflow:  # past the decimal context's exponents (1e999999): no amount
        raise hand.error(HandSyntaxError, hand.start, f"{what}: {value!r} {TOO_LARGE}") from None
    except (InvalidOperation, TypeError, ValueError):
        raise hand.error(HandSyntaxError, hand.start, f"{what}: {value!r} is not an amount") from None
    if amount.is_finite() and amount > MAX_AMOUNT:  # before int(): '1e999999999' is a billion digits
        raise hand.error(HandSyntaxError, hand.start, f"{what}: {value!r} {TOO_LARGE}")
    if not amount.is_finite() or amount != amount.to_integral_value() or amount < 0:
        raise hand.error(HandSyntaxError, hand.start, f"{what}: {value!r} is not a whole number of the unit")
    return int(amount)


def _whole(hand: HandBuilder, value: Any, what: str) -> int:
    """A JSON number that counts (an id, a seat, a pot's number) as an int: never one of thousands of digits made
    from a decimal exponent (``1e999999999``)."""
    if isinstance(value, Decimal) and not (value.is_finite() and value.copy_abs() <= MAX_AMOUNT):
        raise hand.error(HandSyntaxError, hand.start, f"{what}: {value!r} {TOO_LARGE}")
    return int(value)


def _read(hand: HandBuilder, doc: dict[str, Any]) -> HandRecord:
    name = str(doc.get("game_type", ""))
    game = room_game(_GAMES.get(name.lower().replace(" ", "").replace("/", ""), name))
    if game is None:
        raise UnsupportedHand(hand.source, hand.hand_id, hand.start + 1, f"no game this reader knows: {name!r}")
    hand.game_name = game.name
    hand.refuse_unless_board(game, "Open Hand History")
    tournament = bool(doc.get("tournament"))
    currency = str(doc.get("currency", ""))
    hand.scale = 1 if tournament or currency in ("", "XPM", "PPC", "T$", "CHIPS") else 10 ** MINOR.get(currency, 2)
    ids: dict[int, str] = {}
    heads: dict[str, int] = {}
    for player in _field(hand, doc, "players", list):
        label = str(player.get("name", player.get("id")))
        ids[_whole(hand, player["id"], "a player's id")] = label
        stack = _chips(hand, player.get("starting_stack", 0), f"{label}'s starting_stack")
        seat = _whole(hand, player["seat"], f"{label}'s seat")
        hand.seat(seat, label, stack, hand.start, sitting_out=bool(player.get("is_sitting_out")))
        if player.get("player_bounty") is not None:
            heads[label] = _money(hand, player["player_bounty"])

    def who(value: Any, where: str) -> str:
        if not isinstance(value, int) or value not in ids:
            raise hand.error(HandSyntaxError, hand.start, f"{where}: player_id {value!r} is not a player of the hand")
        return ids[value]

    bet_board = 0  # board cards out at the last bet, call, check or fold: a cash-out's street
    for round_doc in _field(hand, doc, "rounds", list):
        street = str(round_doc.get("street", ""))
        if street in STREETS_TITLED and game.board:
            hand.deal(
                hand.card_list(" ".join(round_doc.get("cards") or []), hand.start), STREETS_TITLED[street], hand.start
            )
        elif street not in ("Preflop", "Showdown", "Third Street"):
            raise hand.error(HandSyntaxError, hand.start, f"round {round_doc.get('id')}: unknown street {street!r}")
        for action in round_doc.get("actions", []):
            _act(hand, action, who(action.get("player_id"), f"action {action.get('action_number')}"))
            if action.get("action") in _BETTING:
                bet_board = len(hand.board)
    pots = _field(hand, doc, "pots", list)
    rake = 0
    cashed: dict[str, tuple[int, int]] = {}  # name -> (cashout_amount, cashout_fee), summed over the pots
    for pot in pots:
        number = _whole(hand, pot.get("number", 0), "a pot's number")
        pot_rake = _chips(hand, pot.get("rake") or 0, f"pot {number} rake")
        jackpot = _chips(hand, pot.get("jackpot") or 0, f"pot {number} jackpot")
        won = 0
        for win in pot.get("player_wins", []):
            chips = _chips(hand, win.get("win_amount", 0), f"pot {number} win_amount")
            if chips or win.get("cashout_amount") is None:  # a cashed-out seat that lost is listed for its cash-out
                hand.collect(who(win.get("player_id"), f"pot {number}"), chips, hand.start, number)
            won += chips
            if win.get("cashout_amount") is not None:
                paid = _chips(hand, win["cashout_amount"], f"pot {number} cashout_amount")
                fee = _chips(hand, win.get("cashout_fee") or 0, f"pot {number} cashout_fee")
                name = who(win.get("player_id"), f"pot {number}")
                before = cashed.get(name, (0, 0))
                cashed[name] = (before[0] + paid, before[1] + fee)
        amount = _chips(hand, pot.get("amount", 0), f"pot {number} amount")
        if won + pot_rake + jackpot != amount:
            reason = f"pot {number}: {won} won, {pot_rake} rake and {jackpot} jackpot are not its amount {amount}"
            raise ChipsDoNotAddUp(hand.source, hand.hand_id, hand.start + 1, reason, game.name)
        rake += pot_rake + jackpot
    bounties = tuple(
        Bounty("knockout", (who(b.get("player_id"), "bounty"),), (), who(b.get("defeated_player_id"), "bounty"),
               str(b.get("bounty_won")), line=hand.start + 1, cents=_money(hand, b.get("bounty_won")))
        for b in doc.get("tournament_bounties") or []
    )  # fmt: skip
    hand.total_line = hand.start + 1
    seats = {p.name: p.seat for p in hand.players.values()}
    bounties = tuple(b._replace(seats=tuple(seats[w] for w in b.winners)) for b in bounties)
    progressive = (
        "progressive" in " ".join(str(f) for f in (doc.get("tournament_info") or {}).get("flags") or []).lower()
    )
    read = hand.finish(
        game, _field(hand, doc, "dealer_seat", int), str(doc.get("table_name", "ohh")), rake=rake,
        tournament=str((doc.get("tournament_info") or {}).get("tournament_number")) if tournament else None,
        currency="$" if currency == "USD" else "", code=currency, uncalled_written=False, room="Open Hand History",
        bounties=bounties, heads=heads if tournament and heads else None,
        cash_ppm=(PKO_CASH_PPM if progressive else PPM) if tournament and heads else None,
    )  # fmt: skip
    if not cashed:
        return read
    taken_on = CASHOUT_STREETS.get(bet_board)
    if taken_on is None:
        raise hand.error(ImpossibleAction, hand.start, "a cash-out after the river's betting: no card left to deal")
    seat_of = {p.name: p.seat for p in hand.players.values()}
    return with_stated_cashouts(read, [StatedCashOut(seat_of[n], taken_on, a, f) for n, (a, f) in cashed.items()])


def _money(hand: HandBuilder, value: Any) -> int:
    try:
        cents = Decimal(value) * 100
    except Overflow:  # past the decimal context's exponents (1e999999): no amount
        raise hand.error(HandSyntaxError, hand.start, f"bounty_won: {value!r} {TOO_LARGE}") from None
    except (InvalidOperation, TypeError, ValueError):
        raise hand.error(HandSyntaxError, hand.start, f"bounty_won: {value!r} is not an amount") from None
    if not cents.is_finite():
        raise hand.error(HandSyntaxError, hand.start, f"bounty_won: {value!r} is not an amount")
    if cents.copy_abs() > MAX_AMOUNT:  # before int(): '1e999999999' is a billion digits
        raise hand.error(HandSyntaxError, hand.start, f"bounty_won: {value!r} {TOO_LARGE}")
    return int(cents)


def _act(hand: HandBuilder, action: dict[str, Any], name: str) -> None:
    kind = str(action.get("action", ""))
    chips = _chips(hand, action.get("amount") or 0, f"action {action.get('action_number')} amount")
    k = hand.start
    if kind in ("Post SB", "Post BB", "Straddle", "Post Extra Blind", "Bet", "Raise"):
        hand.pay(name, chips, k)
    elif kind == "Post Dead":
        hand.pay(name, chips, k, to_bet=False, is_dead=True)
    elif kind == "Post Ante":
        hand.pay(name, chips, k, to_bet=False)
    elif kind == "Call":
        hand.call(name, chips, k)
    elif kind == "Check":
        hand.check(name, k)
    elif kind == "Fold":
        hand.fold(name, k)
    elif kind in ("Shows Cards", "Dealt Cards"):
        if action.get("cards"):
            hand.show(name, hand.card_list(" ".join(action["cards"]), k), k)
    elif kind == "Mucks Cards":
        hand.muck(name, k)
    elif kind not in _QUIET:
        raise hand.error(HandSyntaxError, k, f"action {action.get('action_number')}: unknown action {kind!r}")


READER: Final = Reader("ohh", lambda head: head.line.startswith("{") and starts_ohh(head.text), read_ohh)
