"""All-in cash-outs: check the room's offer against the exact equity, then pay it in place of the run-out.

The rooms' rule (PokerStars' All-in Cash Out; GGPoker's EV Cashout; partypoker's): "Hand value = (pot size -
rake) x probability of winning", less "a 1% cash out fee on value of your hand (not the entire pot)"; the
cashed-out seat keeps the amount whatever the run-out, and the house takes what its hand wins of the pot.
Here, each rule with its test (tests/core/test_cashout.py):

* **The point.** ``street`` ``preflop``, ``flop`` or ``turn``: the board then known is the first 0, 3 or 4
  cards of the event's ``board``; the equity is exact over every board left (:mod:`showdown_core.equity`),
  against the hands of the other live seats (folded hands' cards are not taken out of the deck: the rooms
  price a cash-out on the hands all-in and the board).
* **The point by action** (issue 39: "the action index when the whole-hand ``play`` section is there"): a
  cash-out may name ``action``, the index into ``play.actions`` after which the seat cashed out; the board known is
  the one dealt by then and its street follows (:func:`street_at`). Refused: an action after the river is dealt
  (``cashout_action_out_of_range``; one past the last action the contract refuses so); one before the seat was
  all-in and called (``cashout_before_all_in``: it still had chips behind and did not cover every other live seat,
  all-in; or the betting was not over, a seat still to act or two able to bet, so the pots and who contests them
  could still change); a stated street other than the action's (``cashout_street_mismatch``).
* **The value.** For each pot the seat contests, ``(pot - rake) x`` the seat's equity among that pot's
  eligible hands (one pot heads-up: the rooms' formula as written); summed. The fee is ``fee_ppm`` parts
  per million of that value; the offer is the value less the fee, rounded half to even to the minor unit.
  ``equity`` reports value / (pot - rake) of those pots.
* **The check.** An offer above the pots the seat contests, less their rake: ``cashout_above_pot``. An offer
  other than the rounded value: ``cashout_mismatch``, naming the seat, the expected and the stated amounts.
  (A seat not all-in, or two cash-outs of one seat, are refused by the message contract:
  ``cashout_not_all_in``, ``cashout_repeated``.)
* **The settlement.** The pots are awarded on the board dealt as always; then the cashed-out seat collects
  the offer instead of what its hand won (``runout``), which the house takes. Chips out equal chips in
  with the house's side: ``collected + rake + sum(runout) - sum(amount) == put in``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from showdown_core.betting import Hand, Machine
from showdown_core.equity import equity
from showdown_core.errors import InvalidEvent, InvariantViolation
from showdown_core.model import CashOut, PotResult, Showdown
from showdown_rules.limits import PPM

STREETS: Final = {"preflop": 0, "flop": 3, "turn": 4}
"""A cash-out's street -> how many cards of the board were known then."""
_STREET_OF: Final = {known: street for street, known in STREETS.items()}


def street_at(
    hand: Hand,
    player: int,
    index: int,
    *,
    seats: Sequence[int] = (),
    where: str = "cashouts[0]",
    stated: str | None = None,
) -> str:
    """The street of a cash-out by player ``player`` (0 is p1) after action ``index`` of ``hand`` (a play the
    worker has played whole: its actions break no rule), ``seats`` each player's seat for messages; ``stated`` the
    street the event gives too, if it does. Raises :class:`InvalidEvent` (module docstring) naming ``where``."""
    actions = hand.actions
    if not 0 <= index < len(actions):
        raise InvalidEvent.of(
            "cashout_action_out_of_range", f"{where}.action", f"is {index}; play.actions holds {len(actions)} actions"
        )
    machine = Machine(hand, seats)
    for k in range(index + 1):
        machine.act(k, actions[k])
    who = f"p{player + 1}" + (f" (seat {seats[player]})" if seats else "")
    at = f"after play.actions[{index}] {actions[index]!r}"
    street = _STREET_OF.get(len(machine.runs[0]))
    if street is None:
        raise InvalidEvent.of(
            "cashout_action_out_of_range",
            f"{where}.action",
            f"is {index}: {at} the river is dealt, the board complete; a cash-out is before the river",
        )
    left, put, folded = machine.left, machine.put, machine.folded
    others = [j for j in range(machine.n) if j != player and not folded[j]]
    if left[player] and not all(left[j] == 0 and put[j] <= put[player] for j in others):
        raise InvalidEvent.of(
            "cashout_before_all_in",
            f"{where}.action",
            f"is {index}: {at} {who} still had {left[player]} chips behind and did not cover every other live seat, "
            "all-in",
        )
    able = [j for j in range(machine.n) if machine.can_bet[j]]
    if machine.pending or len(able) > 1:
        still = machine.pending or able
        named = ", ".join(f"p{j + 1}" for j in still)
        doing = "still to act" if machine.pending else "able to bet"
        raise InvalidEvent.of(
            "cashout_before_all_in",
            f"{where}.action",
            f"is {index}: {at} the betting was not over ({named} {doing}): {who} was not yet all-in and called",
        )
    if stated is not None and stated != street:
        raise InvalidEvent.of(
            "cashout_street_mismatch",
            f"{where}.street",
            f"is {stated}, but play.actions[{index}] is on the {street} (the board then: "
            f"{''.join(machine.runs[0]) or 'none'})",
        )
    return street


def cash_out(
    showdown: Showdown, pots: Sequence[PotResult], collected: tuple[int, ...]
) -> tuple[tuple[int, ...], tuple[CashOut, ...]]:
    """Each of ``showdown.cashouts`` checked against ``pots`` (awarded on the board dealt), and the chips
    each seat collects once the cashed-out seats take their offers: ``(collected, cash-outs seat ascending)``.

    Raises :class:`InvalidEvent` (``cashout_above_pot``, ``cashout_mismatch``) naming the cash-out.
    """
    seats = showdown.seats
    at = {s.seat: i for i, s in enumerate(seats)}
    cards = {s.seat: s.cards for s in seats if not s.folded}
    paid = list(collected)
    done: list[CashOut] = []
    shares: dict[tuple[tuple[int, ...], int], tuple[Fraction, ...]] = {}  # (eligible, known) -> equities
    for i, offer in enumerate(showdown.cashouts):
        where = f"cashouts[{i}]"
        known = STREETS[offer.street]
        contested = [pot for pot in pots if offer.seat in pot.eligible]
        worth = sum(pot.amount - pot.rake for pot in contested)
        if offer.amount > worth:
            raise InvalidEvent.of(
                "cashout_above_pot",
                f"{where}.amount",
                f"seat {offer.seat}'s offer {offer.amount} is more than the {worth} chips of the pots it contests "
                "less their rake",
            )
        value = Fraction(0)
        for pot in contested:
            key = (pot.eligible, known)
            if key not in shares:  # a pot the seat alone contests (the others folded) is surely its
                holes = [cards[seat] for seat in pot.eligible]
                alone = len(holes) == 1
                shares[key] = (
                    (Fraction(1),) if alone else equity(showdown.variant, holes, showdown.board[:known]).shares
                )
            value += (pot.amount - pot.rake) * shares[key][pot.eligible.index(offer.seat)]
        expected = round(value * (PPM - offer.fee_ppm) / PPM)  # a Fraction rounds half to even
        if offer.amount != expected:
            raise InvalidEvent.of(
                "cashout_mismatch",
                f"{where}.amount",
                f"seat {offer.seat} on the {offer.street}: expected {expected} ((pot - rake) {worth} x equity "
                f"{_decimal(value / worth if worth else Fraction(0))} = {_decimal(value)}, less fee_ppm "
                f"{offer.fee_ppm}, rounded half to even), stated {offer.amount}",
            )
        runout = sum(share.amount for pot in contested for share in pot.winners if share.seat == offer.seat)
        seat = seats[at[offer.seat]]
        paid[at[offer.seat]] += offer.amount - runout
        done.append(
            CashOut(
                offer.seat,
                seat.player_id,
                offer.street,
                value / worth if worth else Fraction(0),
                value,
                offer.fee_ppm,
                offer.amount,
                runout,
                offer.action,
            )
        )
    put_in = sum(s.contributed + s.dead_money for s in seats)
    house = sum(c.house for c in done)
    if sum(paid) + showdown.rake + house != put_in:
        raise InvariantViolation(
            f"hand {showdown.hand_id!r}: {sum(paid)} chips collected, {showdown.rake} raked and {house} to the "
            f"house for cash-outs, but {put_in} put in; refusing to settle"
        )
    return tuple(paid), tuple(sorted(done))


def _decimal(number: Fraction) -> str:
    """Six places, for a message: ``0.916162``."""
    return f"{float(number):.6f}"
