"""Knockout bounties: who collects the bounty of a player eliminated in a hand.

Bounties are whole numbers of the prize currency's smallest unit (cents),
not chips. The rules (PokerStars help, "Winning tournament bounties";
GGPoker/Natural8 knockout rules), each with a test:

* **The relevant pot.** An eliminated player's bounty goes to the winner(s)
  of the pot that held their last chips: the highest pot they were eligible
  for (a seat that folded its last chips: the first pot whose top level
  reaches them), not to the best hand of the hand.
* **Several eliminated in one hand** are settled one by one, the shortest
  starting stack first (equal stacks: clockwise from the button's left), each
  through their own relevant pot. What a player wins in this hand's earlier
  eliminations is on their head when their own elimination is settled.
* **A chopped relevant pot.** The bounty is divided by each winner's fraction
  of that pot, counted from its parts, not from its odd chips: a plain chop
  between k players is 1/k each; with runs each run is an equal part; a hi-lo
  part is halved when a low qualifies and each half is shared equally by its
  tied winners (Omaha/8 with a quartered low: 1/2, 1/4, 1/4). Each share is
  rounded down; the cents left over go one each in the game's odd-chip
  order (board and draw games: clockwise from the first winner left of the
  button; stud games: by the high hand's highest card, as for odd chips). No
  room publishes a rule for a hi-lo or run-it-twice relevant pot: this is
  ours.
* **Knockout and progressive knockout.** ``cash_ppm`` (parts per million) of
  each share is paid as cash, the rest is added to the winner's own bounty;
  the odd cent goes to the cash part (PokerStars: a $39.79 share at 50% pays
  $19.90 and adds $19.89). ``cash_ppm`` = 1,000,000 is a fixed knockout.

Invariant (checked): for every elimination, the winners' amounts sum to the
bounty on the eliminated head, and each amount is its cash plus its added
part; so bounty money is conserved.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from showdown_core.errors import InvariantViolation
from showdown_core.model import BountyAward, BountyShare, PotResult, SeatHand, Showdown, Shown
from showdown_core.ranking import Value
from showdown_rules.limits import MAX_SEAT, PPM


def eliminated(showdown: Showdown, collected: Sequence[int]) -> list[SeatHand]:
    """The seats left with no chips (starting stacks known), in the order their eliminations are settled:
    the shortest starting stack first, equal stacks clockwise from the button's left."""
    button = showdown.button_seat or 0
    out = [
        s
        for s, won in zip(showdown.seats, collected, strict=True)
        if s.stack is not None and s.stack - s.contributed - s.dead_money + won == 0
    ]
    out.sort(key=lambda s: (s.stack, (s.seat - button - 1) % MAX_SEAT))
    return out


def award_bounties(  # noqa: PLR0917 - a settlement's parts, as settle() holds them
    showdown: Showdown,
    pots: Sequence[PotResult],
    collected: Sequence[int],
    shown: Sequence[Shown],
    bounties: Sequence[int],
    cash_ppm: int,
) -> tuple[BountyAward, ...]:
    """Every eliminated seat's bounty, awarded; ``bounties`` is aligned with ``showdown.seats`` (each head at
    the start of the hand, currency units) and ``cash_ppm`` is the cash part in parts per million.

    Seats eliminated with no bounty on their head get no award. Requires starting stacks (without them
    nobody is known to be eliminated, and the result is empty).
    """
    if not 0 <= cash_ppm <= PPM:
        raise ValueError(f"cash_ppm {cash_ppm} is not 0-{PPM}")
    heads = {s.seat: b for s, b in zip(showdown.seats, bounties, strict=True)}
    names = {s.seat: s.player_id for s in showdown.seats}
    out: list[BountyAward] = []
    for gone in eliminated(showdown, collected):
        bounty = heads[gone.seat]
        heads[gone.seat] = 0
        if not bounty:
            continue
        pot = _relevant_pot(gone, pots, showdown.seats)
        fractions = _fractions(pot, gone.seat)
        order = _leftover_order(showdown, list(fractions), shown)
        amounts = {seat: (bounty * f.numerator) // f.denominator for seat, f in fractions.items()}
        left = bounty - sum(amounts.values())
        if not 0 <= left < len(order):
            raise InvariantViolation(f"hand {showdown.hand_id!r}: {left} cents of a bounty left over; refusing")
        for seat in order[:left]:
            amounts[seat] += 1
        shares = []
        for seat in sorted(amounts):
            amount = amounts[seat]
            added = amount * (PPM - cash_ppm) // PPM  # the odd cent stays on the cash side
            heads[seat] += added
            shares.append(BountyShare(seat, names[seat], amount, amount - added, added))
        if sum(s.amount for s in shares) != bounty:
            raise InvariantViolation(f"hand {showdown.hand_id!r}: a {bounty} bounty was not paid whole; refusing")
        out.append(BountyAward(gone.seat, gone.player_id, bounty, pot.number, tuple(shares)))
    return tuple(out)


def _relevant_pot(gone: SeatHand, pots: Sequence[PotResult], seats: Sequence[SeatHand]) -> PotResult:
    """The pot holding ``gone``'s last chips: the highest it is eligible for, or (folded) the first pot
    whose top level (the least any of its eligible seats put in) reaches what it put in."""
    if not gone.folded:
        return next(pot for pot in reversed(pots) if gone.seat in pot.eligible)
    put = {s.seat: s.contributed for s in seats}
    for pot in pots:
        if min(put[seat] for seat in pot.eligible) >= gone.contributed:
            return pot
    return pots[-1]


def _fractions(pot: PotResult, gone: int) -> dict[int, Fraction]:
    """Each winner's fraction of ``pot`` from its parts (runs equal; a split hi-lo part halved; each part or
    half shared equally by its tied winners), the eliminated seat left out (it can take no part of its own
    bounty; should it hold a share of nothing, the others' fractions are scaled to the whole)."""
    fractions: dict[int, Fraction] = {}
    if not pot.parts:
        for share in pot.winners:
            fractions[share.seat] = Fraction(1, len(pot.winners))
    else:
        runs = max(part.run for part in pot.parts)
        for part in pot.parts:
            weight = Fraction(1, runs) * (Fraction(1, 2) if part.half != "whole" else 1)
            for share in part.winners:
                fractions[share.seat] = fractions.get(share.seat, Fraction(0)) + weight / len(part.winners)
    fractions.pop(gone, None)
    total = sum(fractions.values(), Fraction(0))
    if not fractions or total <= 0:
        raise InvariantViolation(f"pot {pot.number} has no winner to take a bounty")
    if total != 1:
        fractions = {seat: f / total for seat, f in fractions.items()}
    return fractions


def _leftover_order(showdown: Showdown, winners: list[int], shown: Sequence[Shown]) -> list[int]:
    """The winners in the order they receive a bounty's leftover cents: the game's odd-chip order, on the
    first board (stud games: by the highest card of each winner's hand, the high hand where there is one)."""
    variant = showdown.variant
    button = showdown.button_seat or 0
    by_button = sorted(winners, key=lambda seat: (seat - button - 1) % MAX_SEAT)
    if not variant.shape.odd_chip_by_card:
        return by_button
    ranking = variant.high or variant.low
    assert ranking is not None
    values: dict[int, Value | None] = {}
    for hand in shown:
        if hand.run == 1:
            values[hand.seat.seat] = hand.high if variant.high is not None else hand.low
    if any(values.get(seat) is None for seat in winners):  # nothing shown (an uncontested pot): by position
        return by_button
    cards = {s.seat: s.cards for s in showdown.seats}
    return variant.odd_chip_order([(seat, cards[seat]) for seat in winners], showdown.button_seat, ranking, values)
