"""What a room's history states beside its pots, added to a :class:`~.hands.HandRecord` for the settlement and
the comparison to check: all-in cash-outs (GGPoker's EV Cashout as what the seat paid back or was paid beyond its
run-out; PokerStars' and Open Hand History's as the amount written, with the fee printed) and a jackpot's drop.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Final, NamedTuple

from showdown_rules.limits import PPM
from showdown_service.histories.hands import HandRecord, StarsOutcome, validated_event


class CashOutLine(NamedTuple):
    """An all-in cash-out as a history writes it (GGPoker's EV Cashout): the seat, the street it was taken on
    (``preflop``, ``flop``, ``turn``), what the house paid the seat beyond its run-out (``Receives Cashout``;
    negative: what the seat paid back of its run-out, ``Pays Cashout Risk``) and the room's fee."""

    seat: int
    street: str
    net: int
    fee_ppm: int


def with_cashouts(record: HandRecord, taken: Sequence[CashOutLine]) -> HandRecord:
    """``record`` with its cash-outs: in the event (each offer is what the seat ended with: its run-out as the
    history pays it plus ``net``), which the settlement checks against (pot - rake) x the exact equity less the
    fee (``cashout_mismatch``); in the outcome (the house's side written: ``-net``), which the comparison checks."""
    if record.event is None or not isinstance(record.outcome, StarsOutcome) or not taken:
        return record
    outcome = record.outcome
    runout: dict[int, int] = {}
    for pot in outcome.pots:
        for seat, chips in pot.items():
            runout[seat] = runout.get(seat, 0) + chips
    doc = record.event.model_dump(mode="json")
    doc["cashouts"] = [
        {"seat": t.seat, "street": t.street, "amount": runout.get(t.seat, 0) + t.net, "fee_ppm": t.fee_ppm}
        for t in sorted(taken)
    ]
    event = validated_event(doc, record.source, record.hand_id, record.line)
    house = tuple(sorted((t.seat, -t.net) for t in taken))
    return record._replace(event=event, outcome=outcome._replace(cashouts=house))


def with_jackpot(record: HandRecord, program: str, jackpot_id: str, drop: int, blinds: tuple[int, int]) -> HandRecord:
    """``record`` with the jackpot drop its history writes (GGPoker's ``| Jackpot $X``, counted in the rake) and the
    table's ``blinds`` as its stakes, for the settlement to check the drop against ``program``
    (``jackpot_drop_mismatch``)."""
    if record.event is None:
        return record
    doc = record.event.model_dump(mode="json")
    doc["stakes"] = {"small_blind": blinds[0], "big_blind": blinds[1]}
    doc["jackpot"] = {"jackpot_id": jackpot_id, "program": program, "drop": drop}
    return record._replace(event=validated_event(doc, record.source, record.hand_id, record.line))


class StatedCashOut(NamedTuple):
    """An all-in cash-out whose amount a history writes outright (PokerStars' ``NAME cashed out the hand for $X |
    Cash Out Fee $Y``): the seat, the street it was taken on, what the room paid and the fee it printed."""

    seat: int
    street: str
    amount: int
    fee: int


FEE_STEP: Final = 5_000
"""A printed cash-out fee's rate is read to the nearest half percent (PokerStars: 1% to 2022, 2% since)."""


def fee_ppm_of(amount: int, fee: int) -> int:
    """The fee rule a printed fee follows: ``fee / (amount + fee)`` (the fee is on the hand's value, the amount and
    the fee together) to the nearest :data:`FEE_STEP` parts per million; 0 when no fee is printed. The fee itself
    is then checked against the rate on the exact value (the comparison's ``cashout_fees``)."""
    if fee <= 0 or amount + fee <= 0:
        return 0
    return min(PPM, round(Fraction(fee * PPM, (amount + fee) * FEE_STEP)) * FEE_STEP)


def with_stated_cashouts(record: HandRecord, taken: Sequence[StatedCashOut]) -> HandRecord:
    """``record`` with cash-outs whose amount is written (not, as GGPoker's, what the seat paid back of its run-out
    or was paid beyond it): the offer is the amount, the fee rule :func:`fee_ppm_of` the printed fee, and the
    outcome carries the fees written for the comparison."""
    if record.event is None or not isinstance(record.outcome, StarsOutcome) or not taken:
        return record
    runout: dict[int, int] = {}
    for pot in record.outcome.pots:
        for seat, chips in pot.items():
            runout[seat] = runout.get(seat, 0) + chips
    lines = [
        CashOutLine(t.seat, t.street, t.amount - runout.get(t.seat, 0), fee_ppm_of(t.amount, t.fee)) for t in taken
    ]
    read = with_cashouts(record, lines)
    if not isinstance(read.outcome, StarsOutcome):
        return read
    fees = tuple(sorted((t.seat, t.fee) for t in taken))
    return read._replace(outcome=read.outcome._replace(cashout_fees=fees))
