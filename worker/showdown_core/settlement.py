"""Settle a showdown: award every pot, place odd chips, check the books, report busts.

Rules (each has a test):

* Each pot goes to the best hand among its eligible seats; equal hands
  split it equally. The chips a split leaves over go one at a time to the
  tied winners in the variant's odd-chip order (hold'em: clockwise from the
  first seat left of the button; stud: highest card by rank, then suit).
* With one live player nothing is evaluated: every pot is theirs, and
  their cards and the board may be partial or missing.
* The house's rake comes out of the pots before they are awarded, never
  out of an uncalled bet: see :func:`rake_by_pot` for how it falls on the
  main and side pots.
* Chips out (collected plus rake) equal chips in, always:
  :class:`InvariantViolation` otherwise.
* With starting stacks, every seat left with zero chips is a bust; among
  this hand's busts the one who started it with more chips finishes
  higher, and equal starting stacks share the place.
"""

from __future__ import annotations

from collections.abc import Sequence

from showdown_core.errors import InvalidEvent, InvariantViolation
from showdown_core.evaluator import VALUES, HandValue
from showdown_core.model import Bust, PotResult, SeatHand, Settlement, Share, Showdown, Shown
from showdown_core.pots import build_pots
from showdown_messages.events import PPM


def settle(showdown: Showdown) -> Settlement:
    """The settlement of one validated showdown.

    Preconditions (established by the message model): seats and cards are
    unique; at a contested showdown every live seat holds its variant's
    number of cards and the board is complete.
    """
    seats = showdown.seats
    pots, returned = build_pots(seats)
    live = [s for s in seats if not s.folded]
    value_of: dict[int, HandValue] = {}
    if len(live) > 1:
        values = showdown.variant.values(showdown.board, [s.cards for s in live])
        value_of = {s.seat: v for s, v in zip(live, values, strict=True)}

    won = {s.seat: 0 for s in seats}
    for back in returned:
        won[back.seat] += back.amount
    rake = showdown.rake
    raked = rake_by_pot([pot.amount for pot in pots], rake, showdown.rake_ppm) if rake else None
    results: list[PotResult] = []
    for number, pot in enumerate(pots):
        eligible = pot.eligible
        taken = raked[number] if raked else 0
        award = pot.amount - taken
        if len(eligible) == 1:
            seat = eligible[0]
            winners: tuple[Share, ...] = (Share(seat, award),)
            hand = value_of.get(seat)
        else:
            best = max([value_of[seat].strength for seat in eligible])
            tied = [seat for seat in eligible if value_of[seat].strength == best]
            winners = (Share(tied[0], award),) if len(tied) == 1 else _split(showdown, award, tied)
            hand = VALUES[best - 1]
        for share in winners:
            won[share.seat] += share.amount
        results.append(PotResult(number, pot.amount, eligible, winners, hand, taken))

    collected = tuple([won[s.seat] for s in seats])
    put_in = sum([s.contributed + s.dead_money for s in seats])
    if sum(collected) + rake != put_in or (raked is not None and sum(raked) != rake):
        raise InvariantViolation(
            f"hand {showdown.hand_id!r}: {sum(collected)} chips awarded{f' and {rake} raked' if rake else ''} "
            f"but {put_in} put in; refusing to settle"
        )
    shown = tuple([Shown(s, value_of[s.seat]) for s in sorted(live, key=_seat_number)]) if value_of else ()
    busts = _busts(seats, collected) if seats[0].stack is not None else ()
    return Settlement(showdown, tuple(results), tuple(returned), collected, shown, busts)


def rake_by_pot(amounts: Sequence[int], rake: int, rake_ppm: int | None = None) -> tuple[int, ...]:
    """The chips of ``rake`` each pot gives, for pots of ``amounts`` chips (main pot first, then side pots).

    The rule: the pots are raked in order as one true percentage. The
    first k pots together give ``round_half_even(rate * their chips)``,
    never more than ``rake`` in all; pot k gives the difference from the
    first k - 1. The rate is ``rake_ppm / 10**6`` when the room states it
    (a capped rake then falls short on the last pots: they are the chips
    that went in last), else ``rake / sum(amounts)`` (the rake then falls
    on every pot in proportion to its chips, the last pot taking what
    rounding leaves). Each pot gives between 0 and its own chips, and the
    pots give exactly ``rake``.

    Raises :class:`InvalidEvent` (``bad_rake``) if ``rake`` is more than the
    pots hold or more than the stated rate gives.
    """
    total = sum(amounts)
    if not rake:
        return (0,) * len(amounts)
    if rake > total:
        raise InvalidEvent.of("bad_rake", "rake", f"{rake} is more than the {total} chips in the pots")
    num, den = (rake_ppm, PPM) if rake_ppm is not None else (rake, total)
    out: list[int] = []
    taken = chips = 0
    for amount in amounts:
        chips += amount
        upto = min(rake, _round_half_even(num * chips, den))
        out.append(upto - taken)
        taken = upto
    if taken != rake:
        raise InvalidEvent.of(
            "bad_rake",
            "rake",
            f"{rake} is more than rake_ppm {rake_ppm} gives: {taken} of the {total} chips in the pots",
        )
    return tuple(out)


def _round_half_even(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` (both >= 0) rounded to the nearest whole number, halves to even."""
    quotient, remainder = divmod(numerator, denominator)
    if 2 * remainder > denominator or (2 * remainder == denominator and quotient % 2):
        quotient += 1
    return quotient


def _seat_number(seat: SeatHand) -> int:
    return seat.seat


def _split(showdown: Showdown, amount: int, tied: list[int]) -> tuple[Share, ...]:
    """Equal shares of ``amount`` for the ``tied`` seats (ascending), odd chips placed by the variant."""
    share, odd = divmod(amount, len(tied))
    if not odd:
        return tuple([Share(seat, share) for seat in tied])
    cards = {s.seat: s.cards for s in showdown.seats}
    order = showdown.variant.odd_chip_order([(seat, cards[seat]) for seat in tied], showdown.button_seat)
    lucky = set(order[:odd])
    return tuple([Share(seat, share + (seat in lucky)) for seat in tied])


def _busts(seats: tuple[SeatHand, ...], collected: tuple[int, ...]) -> tuple[Bust, ...]:
    """Seats left with nothing, worst finish first (stacks are given for all seats or none)."""
    busted = sorted(
        [
            (s.stack, s.seat, s.player_id)
            for s, won in zip(seats, collected, strict=True)
            if s.stack is not None and s.stack - s.contributed - s.dead_money + won == 0
        ]
    )
    return tuple(
        [Bust(seat, player_id, 1 + sum(other < stack for other, _, _ in busted)) for stack, seat, player_id in busted]
    )
