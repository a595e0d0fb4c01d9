"""Settle a showdown: award every pot, place odd chips, check the books, report busts.

Rules (each has a test; TDA 2024 Rules 20-21, WSOP 2023 Rule 73):

* **Runs.** A hand run more than once (``Showdown.boards``) divides each pot
  equally among the runs; the chips the division leaves over go one each
  to the earliest runs. Each run's part is awarded by that board alone.
* **Hi-lo.** In a game with a high and a low ranking, each part is split in
  halves, the odd chip to the high half. If no eligible hand qualifies for
  low, the best high hand takes the whole part. Each half is divided among
  its own tied winners, except that when the same hands win both halves the
  part is divided among them as one (as evenly as possible).
* **Odd chips.** Every division is separate and leaves each tied winner at
  most one odd chip, given in the variant's order
  (:meth:`~showdown_core.variants.Variant.odd_chip_order`: clockwise from
  the button, or in stud games by the highest card of the part's hand).
* With one live player nothing is evaluated: every pot is theirs, and
  their cards and the board may be partial or missing.
* The house's rake comes out of the pots before they are divided, never
  out of an uncalled bet: see :func:`rake_by_pot` for how it falls on the
  main and side pots.
* Chips out (collected plus rake) equal chips in, always:
  :class:`InvariantViolation` otherwise.
* With starting stacks, every seat left with zero chips is a bust; among
  this hand's busts the one who started it with more chips finishes
  higher, and equal starting stacks share the place.
* With bounties on the heads, each bust's bounty goes to the winners of its
  relevant pot (:mod:`showdown_core.bounties`).
* An all-in cash-out's seat collects the room's offer, checked against its
  exact equity, and the house its share of the run-out
  (:mod:`showdown_core.cashout`).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Final

from showdown_core.bounties import award_bounties
from showdown_core.cards import Card
from showdown_core.errors import InvalidEvent, InvariantViolation
from showdown_core.model import (
    Bust,
    CashOut,
    Half,
    PotPart,
    PotResult,
    SeatHand,
    Settlement,
    Share,
    Showdown,
    Shown,
    from_fields,
)
from showdown_core.pots import build_pots
from showdown_core.ranking import Ranking, Value
from showdown_rules.limits import PPM

if TYPE_CHECKING:
    from showdown_core.variants import Variant

ByRun = list[tuple[dict[int, Value | None] | None, dict[int, Value | None] | None]]
"""Per run: the high values by seat and the low values by seat (``None`` where the game has no such ranking)."""


def settle(showdown: Showdown) -> Settlement:
    """The settlement of one validated showdown.

    Preconditions (established by the message model): seats and cards are
    unique; at a contested showdown every live seat holds its variant's
    number of cards and every board is complete.
    """
    seats = showdown.seats
    variant = showdown.variant
    pots, returned = build_pots(seats)
    live = [s for s in seats if not s.folded]
    boards = showdown.boards or (showdown.board,)
    by_run: ByRun = []
    # one board, one ranking (hold'em, stud, razz, ...): each contested pot to the best hand, as one part
    values: dict[int, Value | None] | None = None
    if len(live) > 1:
        holes = [s.cards for s in live]
        if len(boards) == 1 and variant.low is None and not variant.shape.omaha:  # the hot path: no dispatch
            values = dict(zip([s.seat for s in live], variant.high.with_board(boards[0], holes), strict=True))  # type: ignore[union-attr]
            by_run.append((values, None))
        else:
            for board in boards:
                highs, lows = variant.hands(board, holes)
                by_run.append(
                    (
                        None if highs is None else {s.seat: v for s, v in zip(live, highs, strict=True)},
                        None if lows is None else {s.seat: v for s, v in zip(live, lows, strict=True)},
                    )
                )
            if len(boards) == 1 and variant.high is None:
                values = by_run[0][1]
    won = {s.seat: 0 for s in seats}
    for back in returned:
        won[back.seat] += back.amount
    rake = showdown.rake
    raked = (showdown.rake_pots or rake_by_pot([pot.amount for pot in pots], rake, showdown.rake_ppm)) if rake else None
    results: list[PotResult] = []
    for number, pot in enumerate(pots):
        eligible = pot.eligible
        taken = raked[number] if raked else 0
        award = pot.amount - taken
        parts: tuple[PotPart, ...] = ()
        if len(eligible) == 1 or not by_run:
            seat = eligible[0]
            winners: tuple[Share, ...] = (from_fields(Share, (seat, award)),)
            hand = (values.get(seat) if values is not None else _primary(by_run, seat)) if by_run else None
        elif values is not None:
            best = max([values[seat].strength for seat in eligible])  # type: ignore[union-attr]
            tied = [seat for seat in eligible if values[seat].strength == best]  # type: ignore[union-attr]
            hand = values[tied[0]]
            if len(tied) == 1:
                winners = (from_fields(Share, (tied[0], award)),)
            else:
                winners = _split(award, tied, _odd_chip_order(showdown, tied, *_ranked(showdown, *by_run[0]), 1))
        else:
            parts = _divide(showdown, award, eligible, by_run)
            winners = _totals(parts)
            hand = parts[0].hand
        for share in winners:
            won[share.seat] += share.amount
        results.append(from_fields(PotResult, (number, pot.amount, eligible, winners, hand, taken, parts)))

    collected = tuple(won.values()) if len(won) == len(seats) else tuple([won[s.seat] for s in seats])  # seat order
    put_in = sum([s.contributed + s.dead_money for s in seats])
    if sum(collected) + rake != put_in or (raked is not None and sum(raked) != rake):
        raise InvariantViolation(
            f"hand {showdown.hand_id!r}: {sum(collected)} chips awarded{f' and {rake} raked' if rake else ''} "
            f"but {put_in} put in; refusing to settle"
        )
    cashouts: tuple[CashOut, ...] = ()
    if showdown.cashouts:  # the house pays each offer and takes the seat's share of the run-out
        from showdown_core.cashout import cash_out  # noqa: PLC0415  # numpy's import, only for a cash-out

        collected, cashouts = cash_out(showdown, results, collected)
    if not by_run:
        shown: tuple[Shown, ...] = ()
    elif values is None or variant.shape.omaha:
        shown = _shown(variant, boards, live, by_run)
    elif variant.high is not None:  # the common case, without the general loop's dispatch
        play, board = variant.high.playing_cards, boards[0]
        shown = tuple(
            [
                from_fields(Shown, (s, values[s.seat], None, 1, play(s.cards + board, values[s.seat]), ()))  # type: ignore[arg-type]
                for s in sorted(live, key=_SEAT)
            ]
        )
    else:  # one board, a low ranking alone (razz, deuce-to-seven): the cards that make each low
        play, board = variant.low.playing_cards, boards[0]  # type: ignore[union-attr]
        shown = tuple(
            [
                from_fields(Shown, (s, None, values[s.seat], 1, play(s.cards + board, values[s.seat]), ()))  # type: ignore[arg-type]
                for s in sorted(live, key=_SEAT)
            ]
        )
    busts = _busts(seats, collected) if seats[0].stack is not None else ()
    bounties = (
        award_bounties(showdown, results, collected, shown, showdown.bounties, showdown.bounty_cash_ppm)
        if busts and showdown.bounties
        else ()
    )
    return from_fields(
        Settlement, (showdown, tuple(results), tuple(returned), collected, shown, busts, bounties, (), cashouts, None)
    )


def _ranked(
    showdown: Showdown, highs: dict[int, Value | None] | None, lows: dict[int, Value | None] | None
) -> tuple[Ranking, dict[int, Value | None]]:
    """The one ranking of a single-ranking game and its values by seat."""
    variant = showdown.variant
    if highs is not None:
        assert variant.high is not None
        return variant.high, highs
    assert variant.low is not None
    assert lows is not None
    return variant.low, lows


def _divide(showdown: Showdown, award: int, eligible: tuple[int, ...], by_run: ByRun) -> tuple[PotPart, ...]:
    """A contested pot's ``award`` divided into runs, and each run's part into halves where the game has them."""
    variant = showdown.variant
    high, low = variant.high, variant.low
    parts: list[PotPart] = []
    per_run, extra = divmod(award, len(by_run))
    for run, (highs, lows) in enumerate(by_run, start=1):
        amount = per_run + (run <= extra)  # the chips the division leaves over: one each to the earliest runs
        if high is None or low is None:
            parts.append(_award(showdown, amount, eligible, run, "whole", *_ranked(showdown, highs, lows)))
            continue
        assert highs is not None
        assert lows is not None
        qualified = [seat for seat in eligible if lows[seat] is not None]
        if not qualified:
            parts.append(_award(showdown, amount, eligible, run, "whole", high, highs))
            continue
        high_half = (amount + 1) // 2  # the odd chip of a split goes to the high half
        top = _award(showdown, high_half, eligible, run, "high", high, highs)
        bottom = _award(showdown, amount - high_half, tuple(qualified), run, "low", low, lows)
        if len(top.winners) > 1 and [w.seat for w in top.winners] == [w.seat for w in bottom.winners]:
            top, bottom = _as_one(showdown, amount, top, bottom, highs)
        parts += (top, bottom)
    return tuple(parts)


def _award(  # noqa: PLR0917  # one part's facts, positional on the hot path
    showdown: Showdown,
    amount: int,
    eligible: tuple[int, ...],
    run: int,
    half: Half,
    ranking: Ranking,
    values: dict[int, Value | None],
) -> PotPart:
    """``amount`` to the best hand of ``ranking`` among ``eligible`` (who all hold one), split among ties."""
    best = max([values[seat].strength for seat in eligible])  # type: ignore[union-attr]  # eligible hands exist
    tied = [seat for seat in eligible if values[seat].strength == best]  # type: ignore[union-attr]
    hand = values[tied[0]]
    assert hand is not None
    if len(tied) == 1:
        return PotPart(run, half, ranking.name, amount, (Share(tied[0], amount),), hand)
    order = _odd_chip_order(showdown, tied, ranking, values, run)
    return PotPart(run, half, ranking.name, amount, _split(amount, tied, order), hand)


def _as_one(
    showdown: Showdown, amount: int, top: PotPart, bottom: PotPart, highs: dict[int, Value | None]
) -> tuple[PotPart, PotPart]:
    """The same hands won both halves: divide the part among them as one, as evenly as possible.

    Each seat's total is its equal share of ``amount`` (odd chips in the
    high hand's order); its high share is as before and its low share is the
    rest, so each half still sums to its amount and no share is negative.
    """
    tied = [w.seat for w in top.winners]
    order = _odd_chip_order(showdown, tied, showdown.variant.high, highs, top.run)  # type: ignore[arg-type]
    totals = {share.seat: share.amount for share in _split(amount, tied, order)}
    low_shares = tuple([Share(w.seat, totals[w.seat] - w.amount) for w in top.winners])
    return top, bottom._replace(winners=low_shares)


def _odd_chip_order(
    showdown: Showdown, tied: list[int], ranking: Ranking, values: dict[int, Value | None], run: int
) -> list[int]:
    cards = {s.seat: s.cards for s in showdown.seats}
    board = showdown.runs[run - 1]
    return showdown.variant.odd_chip_order(
        [(seat, cards[seat]) for seat in tied], showdown.button_seat, ranking, values, board
    )


def _split(amount: int, tied: list[int], order: list[int]) -> tuple[Share, ...]:
    """Equal shares of ``amount`` for the ``tied`` seats (ascending), one odd chip each to the first in ``order``."""
    share, odd = divmod(amount, len(tied))
    lucky = set(order[:odd])
    return tuple([from_fields(Share, (seat, share + (seat in lucky))) for seat in tied])


def _totals(parts: Sequence[PotPart]) -> tuple[Share, ...]:
    """Each winning seat's total over ``parts``, seats ascending."""
    total: dict[int, int] = {}
    for part in parts:
        for share in part.winners:
            total[share.seat] = total.get(share.seat, 0) + share.amount
    return tuple([Share(seat, total[seat]) for seat in sorted(total)])


def _primary(by_run: ByRun, seat: int) -> Value | None:
    """The hand a seat alone eligible for a pot shows on the first board (``None`` if nothing was shown)."""
    if not by_run:
        return None
    highs, lows = by_run[0]
    return (highs or {}).get(seat) or (lows or {}).get(seat)


def _shown(
    variant: Variant, boards: Sequence[Sequence[Card]], live: list[SeatHand], by_run: ByRun
) -> tuple[Shown, ...]:
    """Every live hand on every board, by run then seat, with the cards that make each of its hands."""
    ordered = sorted(live, key=_SEAT)
    out: list[Shown] = []
    for run, (highs, lows) in enumerate(by_run, start=1):
        board = boards[run - 1]
        for s in ordered:
            high = None if highs is None else highs[s.seat]
            low = None if lows is None else lows[s.seat]
            main, ranking = (high, variant.high) if high is not None else (low, variant.low)
            assert main is not None  # a low-only game's rankings always make a hand
            assert ranking is not None
            cards = variant.playing_cards(ranking, board, s.cards, main)
            low_cards: tuple[Card, ...] = ()
            if high is not None and low is not None and variant.low is not None:
                low_cards = variant.playing_cards(variant.low, board, s.cards, low)
            out.append(Shown(s, high, low, run, cards, low_cards))
    return tuple(out)


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


_SEAT: Final = attrgetter("seat")


def _busts(seats: tuple[SeatHand, ...], collected: tuple[int, ...]) -> tuple[Bust, ...]:
    """Seats left with nothing, worst finish first (stacks are given for all seats or none)."""
    busted = [
        (s.stack, s.seat, s.player_id)
        for s, won in zip(seats, collected, strict=True)
        if s.stack is not None and s.stack - s.contributed - s.dead_money + won == 0
    ]
    if not busted:  # the usual hand
        return ()
    busted.sort()
    return tuple(
        [Bust(seat, player_id, 1 + sum(other < stack for other, _, _ in busted)) for stack, seat, player_id in busted]
    )
