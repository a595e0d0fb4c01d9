"""Settle a replayed hand with the worker's own settlement and compare it with what the history recorded.

There is one settlement: ``settle(to_showdown(event))``. This module only
reads its result next to the recorded outcome and says ``match``,
``mismatch`` (the recorded payout differs from the rules) or
``unverifiable`` (the history cannot decide: no recorded outcome, unknown
cards at a contested showdown, a cancelled or cashed-out hand). A hand that
could not be read is an ``error``.

A source that splits an odd chip into fractions (the Pluribus logs give
each of two winners ``x.5``) matches when every seat is within one chip of
it and the chips add up: the service gives the whole chip to one winner by
the odd-chip rule, which the note says.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, NamedTuple

from showdown_core import InvalidEvent, InvariantViolation, PotResult, Settlement, settle
from showdown_service.intake import to_showdown
from showdown_service.replay.errors import ReplayError
from showdown_service.replay.hands import Bounty, HandRecord, PhhOutcome, StarsOutcome

MATCH, MISMATCH, UNVERIFIABLE, ERROR = "match", "mismatch", "unverifiable", "error"


class Verdict(NamedTuple):
    """The comparison of one hand: a line of the report."""

    source: str
    hand_id: str
    line: int | None
    status: str
    kind: str
    """Short reason for the summary table (``""`` for a plain match)."""
    reason: str
    expected: dict[str, Any]
    computed: dict[str, Any]
    contested: bool
    rake: int
    game: str = ""
    """The hand's game (``Omaha Hi/Lo``); ``""`` when the hand could not be read that far."""
    variant: str = ""
    """The contract variant that settled it (``omaha_hilo``), when an event was built."""
    bounties: tuple[Bounty, ...] = ()

    def document(self) -> dict[str, Any]:
        """The report's JSON line for this hand."""
        return {
            "source": self.source,
            "hand_id": self.hand_id,
            "game": self.game or None,
            "variant": self.variant or None,
            "status": self.status,
            "reason": self.reason,
            "expected": self.expected,
            "computed": self.computed,
            "line": self.line,
            "bounties": [b.document() for b in self.bounties],
        }


def judge(record: HandRecord) -> Verdict:
    """Settle ``record``'s event (if any) and compare it with the recorded outcome."""
    outcome = record.outcome
    expected = _expected(outcome)
    event = record.event
    rake = event.rake if event is not None else 0
    variant = event.variant if event is not None else ""

    def verdict(status: str, kind: str, reason: str, computed: dict[str, Any] | None = None) -> Verdict:
        return Verdict(
            record.source, record.hand_id, record.line, status, kind, reason, expected, computed or {},
            record.contested, rake, record.game, variant, record.bounties,
        )  # fmt: skip

    if record.unverifiable:
        return verdict(UNVERIFIABLE, _kind(record.unverifiable), record.unverifiable)
    assert event is not None
    try:
        settlement = settle(to_showdown(event))
    except (InvalidEvent, InvariantViolation) as exc:
        return verdict(ERROR, "settlement refused", f"the service refuses to settle it: {exc}")
    except Exception as exc:  # one hand must not stop a replay of years: say which and why
        return verdict(ERROR, "settlement failed", f"settling it failed ({type(exc).__name__}: {exc})")
    if outcome is None:
        return verdict(UNVERIFIABLE, "no recorded outcome", "no recorded outcome", _phh_computed(settlement))
    names = {p.seat: p.player_id for p in event.players}
    if isinstance(outcome, PhhOutcome):
        computed = _phh_computed(settlement)
        status, kind, reason = _compare_phh(outcome, computed, names)
    else:
        computed = _stars_computed(settlement, outcome)
        status, kind, reason = _compare_stars(outcome, settlement, names)
    return verdict(status, kind, reason, computed)


def error_verdict(error: ReplayError) -> Verdict:
    """The report line of a hand (or file) that could not be read."""
    return Verdict(
        error.source, error.hand or "", error.line, ERROR, error.kind, str(error), {}, {}, False, 0, error.game
    )


def _kind(reason: str) -> str:
    return re.split(r"[:(]", reason, maxsplit=1)[0].strip()


def _json(amount: int | Fraction) -> int | float:
    if isinstance(amount, int):
        return amount
    return amount.numerator if amount.denominator == 1 else float(amount)


def _by_seat(amounts: dict[int, int] | dict[int, int | Fraction]) -> dict[str, int | float]:
    return {str(seat): _json(amount) for seat, amount in sorted(amounts.items())}


def _seat(seat: int, names: dict[int, str]) -> str:
    """A seat for people: ``seat 7 (Alice)``."""
    return f"seat {seat} ({names[seat]})" if seat in names else f"seat {seat}"


def _shares(amounts: dict[int, int], names: dict[int, str]) -> str:
    """Chips by seat for people, seat order: ``seat 2 (Bob) 9916, seat 7 (Alice) 0``; ``nothing`` when empty."""
    return ", ".join(f"{_seat(seat, names)} {amount}" for seat, amount in sorted(amounts.items())) or "nothing"


# -- PHH ------------------------------------------------------------------------------


def _phh_computed(settlement: Settlement) -> dict[str, Any]:
    seats = settlement.showdown.seats
    returned = {r.seat: r.amount for r in settlement.returned}
    out: dict[str, Any] = {
        "collected": _by_seat(settlement.collected_by_seat()),
        "winnings": _by_seat(
            {s.seat: won - returned.get(s.seat, 0) for s, won in zip(seats, settlement.collected, strict=True)}
        ),
    }
    if seats and seats[0].stack is not None:
        out["finishing_stacks"] = _by_seat(
            {
                s.seat: (s.stack or 0) - s.contributed - s.dead_money + won
                for s, won in zip(seats, settlement.collected, strict=True)
            }
        )
    return out


def _compare_phh(outcome: PhhOutcome, computed: dict[str, Any], names: dict[int, str]) -> tuple[str, str, str]:
    notes: list[str] = []
    for field, recorded in (("finishing_stacks", outcome.finishing), ("winnings", outcome.winnings)):
        if recorded is None:
            continue
        ours = computed.get(field)
        if ours is None:
            return UNVERIFIABLE, "starting stacks unknown", f"{field} recorded but the starting stacks are unknown"
        wrong = [seat for seat, amount in recorded.items() if not _close(ours[str(seat)], amount)]
        if wrong:
            detail = "; ".join(
                f"{_seat(s, names)}: recorded {_json(recorded[s])}, rules give {ours[str(s)]}" for s in wrong
            )
            return MISMATCH, f"{field.replace('_', ' ')} differ", f"{field.replace('_', ' ')} differ ({detail})"
        split = [seat for seat, amount in recorded.items() if not isinstance(amount, int) and amount.denominator != 1]
        if split:
            notes.append(
                f"the source splits odd chips into fractions in {field} (seats {', '.join(map(str, split))}); "
                "the rules give each whole chip to one winner"
            )
    if notes:
        return MATCH, "odd chip split into fractions by the source", "; ".join(notes)
    return MATCH, "", ""


def _close(ours: int, recorded: int | Fraction) -> bool:
    """Equal, or within one chip of a recorded fraction (the source split an odd chip)."""
    if isinstance(recorded, int) or recorded.denominator == 1:
        return ours == recorded
    return abs(ours - recorded) < 1


# -- PokerStars -----------------------------------------------------------------------


def _expected(outcome: PhhOutcome | StarsOutcome | None) -> dict[str, Any]:
    if outcome is None:
        return {}
    if isinstance(outcome, PhhOutcome):
        out: dict[str, Any] = {}
        if outcome.finishing is not None:
            out["finishing_stacks"] = _by_seat(outcome.finishing)
        if outcome.winnings is not None:
            out["winnings"] = _by_seat(outcome.winnings)
        return out
    collected: dict[int, int] = {}
    for pot in outcome.pots:
        for seat, chips in pot.items():
            collected[seat] = collected.get(seat, 0) + chips
    out = {
        "pots": [{"index": i, "collected": _by_seat(pot)} for i, pot in enumerate(outcome.pots)],
        "returned": _by_seat(outcome.returned),
        "rake": outcome.rake,
        "total_pot": outcome.total_pot,
        "collected": _by_seat(collected),
    }
    if outcome.runs:
        out["runs"] = [
            [{"index": i, "collected": _by_seat(pot)} for i, pot in enumerate(pots)] for pots in outcome.runs
        ]
    return out


def _stars_computed(settlement: Settlement, outcome: StarsOutcome) -> dict[str, Any]:
    collected: dict[int, int] = {}
    for pot in settlement.pots:
        for share in pot.winners:
            collected[share.seat] = collected.get(share.seat, 0) + share.amount
    return {
        "pots": [_pot_document(pot) for pot in settlement.pots],
        "returned": _by_seat(outcome.uncalled),
        "rake": sum(pot.rake for pot in settlement.pots),
        "total_pot": sum(pot.amount for pot in settlement.pots),
        "collected": _by_seat(collected),
    }


def _pot_document(pot: PotResult) -> dict[str, Any]:
    out: dict[str, Any] = {
        "index": pot.number,
        "amount": pot.amount,
        "rake": pot.rake,
        "collected": _by_seat({w.seat: w.amount for w in pot.winners}),
    }
    if pot.parts:
        out["parts"] = [
            {
                "run": part.run,
                "half": part.half,
                "amount": part.amount,
                "collected": _by_seat({w.seat: w.amount for w in part.winners}),
            }
            for part in pot.parts
        ]
    return out


def _run_shares(pot: PotResult, run: int) -> dict[int, int]:
    """What each seat takes from ``run``'s part of ``pot`` (both halves of a hi-lo game together)."""
    shares: dict[int, int] = {}
    for part in pot.parts:
        if part.run == run:
            for share in part.winners:
                if share.amount:
                    shares[share.seat] = shares.get(share.seat, 0) + share.amount
    return shares


def _compare_stars(outcome: StarsOutcome, settlement: Settlement, names: dict[int, str]) -> tuple[str, str, str]:
    if outcome.returned != outcome.uncalled:
        return (
            MISMATCH,
            "uncalled bet",
            f"uncalled bet returned: recorded {_shares(outcome.returned, names)}, "
            f"the actions give {_shares(outcome.uncalled, names)}",
        )
    if settlement.returned:
        back = {r.seat: r.amount for r in settlement.returned}
        return MISMATCH, "uncalled bet", f"the rules return {_shares(back, names)} that the history put in a pot"
    if len(outcome.pots) != len(outcome.pot_groups) or max(outcome.pot_groups, default=-1) + 1 != len(settlement.pots):
        return (
            MISMATCH,
            "pots",
            f"the history pays {len(outcome.pots)} pots; the contributions make {len(outcome.pot_groups)}",
        )
    merged: list[dict[int, int]] = [{} for _ in settlement.pots]
    for index, pot in enumerate(outcome.pots):
        target = merged[outcome.pot_groups[index]]
        for seat, chips in pot.items():
            target[seat] = target.get(seat, 0) + chips
    for result, recorded in zip(settlement.pots, merged, strict=True):
        ours = {w.seat: w.amount for w in result.winners if w.amount}
        if ours != recorded:
            which = "main pot" if result.number == 0 else f"side pot {result.number}"
            kind = "rake split" if set(ours) == set(recorded) else "pot award"
            return MISMATCH, kind, f"{which}: recorded {_shares(recorded, names)}, rules give {_shares(ours, names)}"
    for run, pots in enumerate(outcome.runs, start=1):
        per_pot: list[dict[int, int]] = [{} for _ in settlement.pots]
        for index, pot in enumerate(pots):
            target = per_pot[outcome.pot_groups[index]]
            for seat, chips in pot.items():
                target[seat] = target.get(seat, 0) + chips
        for result, recorded in zip(settlement.pots, per_pot, strict=True):
            if not result.parts:
                continue  # one seat could win it: the history may split it by run or not, the total is checked
            ours = _run_shares(result, run)
            if ours != recorded:
                which = "main pot" if result.number == 0 else f"side pot {result.number}"
                return (
                    MISMATCH,
                    "run award",
                    f"{which}, run {run}: recorded {_shares(recorded, names)}, rules give {_shares(ours, names)}",
                )
    if outcome.note:
        kind = "rake rate recovered" if "rake rate" in outcome.note else "uncalled bet not written"
        return MATCH, kind, outcome.note
    return MATCH, "", ""
