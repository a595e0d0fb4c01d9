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

A tournament hand is then compared on what the chips decide beyond the
pots: each knockout bounty (who collects it, how much in cash and how much
added to their own bounty, in cents) against the settlement's
``bounties``, and the order of the hand's busts (``finished the tournament
in Nth place``: relative order and ties, never the absolute place) against
its ``busts``.

A room that does not say which pot it pays (888poker, WPN, iPoker) is
compared seat by seat over all pots (``StarsOutcome.pooled``); a room that
splits in a chip larger than the cent (Full Tilt's nickel) matches within
one such chip (``StarsOutcome.chip``). Over 400 lines: the comparisons of
every outcome (PHH, text rooms, knockouts, places) read one settlement, and
splitting them would split the words their reasons share.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from showdown_core import InvalidEvent, InvariantViolation, PotResult, Settlement, settle
from showdown_rules.limits import PPM
from showdown_service.decision.intake import to_showdown
from showdown_service.decision.jackpot_live import apply_jackpot
from showdown_service.histories.errors import ReplayError
from showdown_service.histories.hands import Bounty, HandRecord, PhhOutcome, Place, StarsOutcome
from showdown_service.histories.headless import check_without_heads, note_without_heads

if TYPE_CHECKING:
    from showdown_service.histories.rake_audit import RakeCheck

MATCH, MISMATCH, UNVERIFIABLE, ERROR = "match", "mismatch", "unverifiable", "error"
BY_PLAY: Final = "play"
"""A hand settled with its event's ``play`` played by the state machine (issue 36)."""
BY_READER: Final = "reader"
"""A hand whose reader played its betting through the state machine itself (PHH), its event without ``play``."""
UNBALANCED: Final = "unbalanced"
"""A hand whose settlement's chips out (collected, rake, the house's side of a cash-out) are not its chips in:
never a match, whatever the history recorded (issue 38: money in equals money out on every replay)."""


class Verdict(NamedTuple):
    """The comparison of one hand: a line of the report."""

    source: str
    hand_id: str
    line: int | None
    status: str
    kind: str
    """Short reason for the summary table (``""`` for a plain match)."""
    reason: str
    expected: Mapping[str, Any]
    computed: Mapping[str, Any]
    contested: bool
    rake: int
    game: str = ""
    """The hand's game (``Omaha Hi/Lo``); ``""`` when the hand could not be read that far."""
    variant: str = ""
    """The contract variant that settled it (``omaha_hilo``), when an event was built."""
    bounties: tuple[Bounty, ...] = ()
    currency: str = ""
    """The code of the currency its chips are in (``USD``, ``chips``; see :mod:`.currency`), ``""`` when the history
    writes none."""
    balanced: bool = False
    """Settled, and its chips in (contributed less returned, plus the house's money) equal its chips out (collected,
    rake): checked on every hand settled (:func:`unbalanced`)."""
    rake_check: RakeCheck | None = None
    """Its rake against a posted schedule (``showdown replay --rake-schedule``), when asked."""
    betting: str = ""
    """How its betting was played (a hand with an event only; ``""`` without one): :data:`BY_PLAY` (its event's
    ``play``, by the state machine), :data:`BY_READER` (a PHH file's, by the reader through the state machine),
    or why it was not (:func:`betting_of`)."""
    betting_detail: str = ""
    """What exactly kept the betting from being played, when :attr:`betting` alone does not say."""

    def document(self) -> dict[str, Any]:
        """The report's JSON line for this hand."""
        return {
            "source": self.source,
            "hand_id": self.hand_id,
            "game": self.game or None,
            "variant": self.variant or None,
            "status": self.status,
            "reason": self.reason,
            "expected": dict(self.expected),
            "computed": dict(self.computed),
            "line": self.line,
            "bounties": [b.document() for b in self.bounties],
            "currency": self.currency or None,
        } | self._optional()

    def _optional(self) -> dict[str, Any]:
        """``rake_check`` when asked; ``betting`` for a hand with an event: ``{"played": true, "by": "play" |
        "reader"}`` or ``{"played": false, "why_not": ..., "detail": ...}``."""
        rake = {"rake_check": self.rake_check.document()} if self.rake_check is not None else {}
        if not self.betting:
            return rake
        if self.betting in (BY_PLAY, BY_READER):
            return rake | {"betting": {"played": True, "by": self.betting}}
        why = {"played": False, "why_not": self.betting}
        return rake | {"betting": why | ({"detail": self.betting_detail} if self.betting_detail else {})}


class Lazy(Mapping[str, Any]):
    """A report dictionary built the first time it is read (by ``build(arg)``): a replay that writes no report
    (the summary only) never builds the ``expected`` and ``computed`` of its matches (a sixth of the replay's time
    per PHH hand)."""

    __slots__ = ("_arg", "_build", "_doc")

    def __init__(self, build: Callable[[Any], dict[str, Any]], arg: Any) -> None:
        self._build: Callable[[Any], dict[str, Any]] | None = build
        self._arg = arg
        self._doc: dict[str, Any] = {}

    def _built(self) -> dict[str, Any]:
        if self._build is not None:
            self._doc, self._build, self._arg = self._build(self._arg), None, None
        return self._doc

    def __getitem__(self, key: str) -> Any:
        return self._built()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._built())

    def __repr__(self) -> str:
        return repr(self._built())

    def __reduce__(self) -> tuple[type[dict[str, Any]], tuple[dict[str, Any]]]:
        return dict, (self._built(),)  # to another process (--jobs): as the dictionary it stands for


def judge(record: HandRecord) -> Verdict:
    """Settle ``record``'s event (if any) and compare it with the recorded outcome."""
    outcome = record.outcome
    event = record.event
    computed: Mapping[str, Any] = {}
    balanced = False
    if record.unverifiable:
        status, kind, reason = UNVERIFIABLE, _kind(record.unverifiable), record.unverifiable
    else:
        assert event is not None
        try:
            settlement = settle(to_showdown(event))
            if event.jackpot is not None:  # the jackpot drop the history writes, checked against its program
                settlement = apply_jackpot(event, settlement)
        except InvalidEvent as exc:
            if exc.code in _CASHOUT_CODES:  # the room's cash-out offer is not the rule's: the history paid otherwise
                status, kind, reason = MISMATCH, "cash-out", f"the cash-out is not the rule's: {exc}"
            elif exc.code in {"jackpot_drop_mismatch", "jackpot_pot_under_minimum"}:
                status, kind, reason = MISMATCH, "jackpot drop", f"the jackpot drop is not the program's: {exc}"
            else:
                status, kind, reason = ERROR, "settlement refused", f"the service refuses to settle it: {exc}"
        except InvariantViolation as exc:  # the settlement's own money check: said as such, never an error alone
            status, kind, reason = UNBALANCED, MONEY, f"the settlement refuses it: {exc}"
        except Exception as exc:  # one hand must not stop a replay of years: say which and why
            status, kind, reason = ERROR, "settlement failed", f"settling it failed ({type(exc).__name__}: {exc})"
        else:
            wrong = unbalanced(settlement)
            balanced = wrong is None
            if wrong is not None:
                status, kind, reason = UNBALANCED, MONEY, wrong
                computed = _phh_computed(settlement)
            elif outcome is None:
                status, kind, reason = UNVERIFIABLE, "no recorded outcome", "no recorded outcome"
                computed = _phh_computed(settlement)
            elif isinstance(outcome, PhhOutcome):
                status, kind, reason = _compare_phh(outcome, settlement)
                computed = Lazy(_phh_computed, settlement)
            else:
                names = _names(settlement)
                ours = _stars_computed(settlement, outcome)
                status, kind, reason = _compare_stars(outcome, settlement, names)
                if status == MATCH and outcome.cashouts:
                    status, kind, reason = _compare_cashouts(outcome, settlement, names, (status, kind, reason))
                ours.update(_computed_tournament(record, settlement))
                computed = ours
                if status == MATCH:
                    status, kind, reason = _compare_tournament(record, settlement, kind, reason)
    return _verdict(Verdict, (
        record.source, record.hand_id, record.line, status, kind, reason, Lazy(_expected_of, record), computed,
        record.contested, event.rake if event is not None else 0, record.game,
        event.variant if event is not None else "", record.bounties, record.currency_code, balanced, None,
        betting_of(record), record.no_play_detail if event is not None and event.play is None else "",
    ))  # fmt: skip


def betting_of(record: HandRecord) -> str:
    """How ``record``'s betting is played when it settles (:attr:`Verdict.betting`): ``""`` without an event."""
    event = record.event
    if event is None:
        return ""
    if event.play is not None:
        return BY_PLAY
    if record.played_by_reader:
        return BY_READER
    if record.no_play:
        return record.no_play
    room = record.hand_id.split(":", 1)[0] if ":" in record.hand_id else "this format"
    return f"its reader writes no play ({room})"


_CASHOUT_CODES: Final = frozenset({"cashout_mismatch", "cashout_above_pot"})


def _compare_cashouts(
    outcome: StarsOutcome, settlement: Settlement, names: dict[int, str], matched: tuple[str, str, str]
) -> tuple[str, str, str]:
    """The house's side of each cash-out written (what it kept of the run-out less what it paid) against the
    settlement's (the offer checked against the exact equity, the run-out by the rules)."""
    ours = {c.seat: c.house for c in settlement.cashouts}
    recorded = dict(outcome.cashouts)
    if ours != recorded:
        return MISMATCH, "cash-out", f"cash-out, the house's side: recorded {recorded}, rules give {ours}"
    if outcome.cashout_fees:  # the fee printed (PokerStars): fee_ppm of the exact value, rounded half to even
        fees = {c.seat: round(c.value * c.fee_ppm / PPM) for c in settlement.cashouts}
        if dict(outcome.cashout_fees) != fees:
            return MISMATCH, "cash-out", f"cash-out fee: recorded {dict(outcome.cashout_fees)}, rules give {fees}"
    said = ", ".join(f"{_seat(c.seat, names)} cashed out on the {c.street} for {c.amount}" for c in settlement.cashouts)
    status, kind, reason = matched
    return status, kind or "cash-out checked", "; ".join(filter(None, (reason, said)))


_verdict: Final = tuple.__new__
"""``_verdict(Verdict, (every field in order))``: a Verdict without the NamedTuple's keyword handling, per hand."""


MONEY: Final = "money in != money out"
"""An unbalanced hand's short reason (the summary's)."""


def unbalanced(settlement: Settlement) -> str | None:
    """Why ``settlement``'s chips out are not its chips in, or ``None`` when they are, to the unit.

    The Open Hand History model: every chip put in (contributed and dead money) is returned as an uncalled bet
    or lies in a pot; each pot's chips are its winners' and its rake; and what the seats collect (returns
    included), the rake and the house's net from cash-outs together are every chip put in.
    """
    put_in = 0
    for s in settlement.showdown.seats:
        put_in += s.contributed + s.dead_money
    returned = sum([r.amount for r in settlement.returned])
    in_pots = awarded = raked = 0
    for pot in settlement.pots:
        in_pots += pot.amount
        raked += pot.rake
        for share in pot.winners:
            awarded += share.amount
    rake = settlement.showdown.rake
    house = sum([c.house for c in settlement.cashouts]) if settlement.cashouts else 0
    collected = sum(settlement.collected)
    wrong = []
    if in_pots + returned != put_in:
        wrong.append(f"the pots hold {in_pots} and {returned} went back, of the {put_in} chips put in")
    if raked != rake:
        wrong.append(f"the pots give {raked} rake, the hand's rake is {rake}")
    if awarded + raked != in_pots:
        wrong.append(f"the pots' {in_pots} chips go {awarded} to their winners and {raked} to the rake")
    if collected + rake + house != put_in:
        wrong.append(
            f"the seats collect {collected}, the rake is {rake} and the house nets {house} from cash-outs: "
            f"{collected + rake + house}, not the {put_in} chips put in"
        )
    return "; ".join(wrong) or None


def _expected_of(record: HandRecord) -> dict[str, Any]:
    return {**_expected(record.outcome), **_recorded_tournament(record)}


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


def _phh_finishing(settlement: Settlement) -> dict[int, int] | None:
    """Each seat's stack after the hand by the rules (``None`` when the starting stacks are unknown)."""
    seats = settlement.showdown.seats
    if not seats or seats[0].stack is None:
        return None
    return {
        s.seat: (s.stack or 0) - s.contributed - s.dead_money + won
        for s, won in zip(seats, settlement.collected, strict=True)
    }


def _phh_ours(settlement: Settlement) -> dict[str, dict[int, int] | None]:
    """What the rules give, by seat: ``finishing_stacks`` (``None`` when the starting stacks are unknown) and
    ``winnings`` (collected less the uncalled bet returned)."""
    seats = settlement.showdown.seats
    returned = {r.seat: r.amount for r in settlement.returned}
    won = dict(zip((s.seat for s in seats), settlement.collected, strict=True))
    finishing = None
    if seats and seats[0].stack is not None:
        finishing = {s.seat: (s.stack or 0) - s.contributed - s.dead_money + won[s.seat] for s in seats}
    return {"finishing_stacks": finishing, "winnings": {seat: w - returned.get(seat, 0) for seat, w in won.items()}}


def _names(settlement: Settlement) -> dict[int, str]:
    """Each seat's player, for the reasons."""
    return {s.seat: s.player_id for s in settlement.showdown.seats}


def _compare_phh(outcome: PhhOutcome, settlement: Settlement) -> tuple[str, str, str]:
    if outcome.winnings is None and outcome.finishing is not None and outcome.finishing == _phh_finishing(settlement):
        return MATCH, "", ""  # the usual case: every seat's stack as recorded, in whole chips, nothing else recorded
    notes: list[str] = []
    computed = None
    for field, recorded in (("finishing_stacks", outcome.finishing), ("winnings", outcome.winnings)):
        if recorded is None:
            continue
        if field == "finishing_stacks" and recorded == _phh_finishing(settlement):
            continue  # the usual case: every seat's stack as recorded, in whole chips (no fraction to note)
        computed = computed or _phh_ours(settlement)
        ours = computed[field]
        if ours is None:
            return UNVERIFIABLE, "starting stacks unknown", f"{field} recorded but the starting stacks are unknown"
        wrong = [seat for seat, amount in recorded.items() if not _close(ours[seat], amount)]
        if wrong:
            names = _names(settlement)
            detail = "; ".join(f"{_seat(s, names)}: recorded {_json(recorded[s])}, rules give {ours[s]}" for s in wrong)
            return MISMATCH, f"{field.replace('_', ' ')} differ", f"{field.replace('_', ' ')} differ ({detail})"
        split = [seat for seat, amount in recorded.items() if type(amount) is not int and amount.denominator != 1]
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
    if outcome.pooled:
        ours_total: dict[int, int] = {}
        for result in settlement.pots:
            for share in result.winners:
                if share.amount:
                    ours_total[share.seat] = ours_total.get(share.seat, 0) + share.amount
        theirs_total = {seat: chips for seat, chips in (outcome.pots[0] if outcome.pots else {}).items() if chips}
        if ours_total != theirs_total:
            kind = "rake split" if set(ours_total) == set(theirs_total) else "pot award"
            return (
                MISMATCH,
                kind,
                f"collected (all pots): recorded {_shares(theirs_total, names)}, rules give "
                f"{_shares(ours_total, names)}",
            )
        return _noted(outcome)
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
    odd_chip = ""
    for result, recorded in zip(settlement.pots, merged, strict=True):
        ours = {w.seat: w.amount for w in result.winners if w.amount}
        if ours != recorded and _within_chip(ours, recorded, outcome.chip):
            odd_chip = (
                f"the room splits in its smallest chip ({outcome.chip}): {_shares(recorded, names)} where the rules, "
                f"splitting to the cent, give {_shares(ours, names)}"
            )
        elif ours != recorded:
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
    if odd_chip:
        return MATCH, "odd chip in the room's smallest chip", "; ".join(filter(None, (outcome.note, odd_chip)))
    return _noted(outcome)


def _within_chip(ours: dict[int, int], recorded: dict[int, int], chip: int) -> bool:
    """The same winners and chips, each within one of the room's smallest chips (``chip`` > 1) of the rules."""
    if chip <= 1 or set(ours) != set(recorded) or sum(ours.values()) != sum(recorded.values()):
        return False
    return all(abs(ours[seat] - recorded[seat]) < chip for seat in ours)


def _noted(outcome: StarsOutcome) -> tuple[str, str, str]:
    """A match, with the reader's note (a rake rate recovered, an amount the room does not write) when it has one."""
    if outcome.note:
        if "rake rate" in outcome.note:
            kind = "rake rate recovered"
        elif "'Uncalled bet'" in outcome.note:
            kind = "uncalled bet not written"
        else:
            kind = _kind(outcome.note)
        return MATCH, kind, outcome.note
    return MATCH, "", ""


# -- knockouts and places -------------------------------------------------------------


class _Take(NamedTuple):
    """What one winner took of an eliminated player's bounty (cents), as a history's line says or as the
    rules give it."""

    cash: int | None
    """``None`` when the line gives only the whole bounty its winners split."""
    added: int
    """Added to the winner's own bounty (0 in a fixed knockout)."""
    now: int | None
    """The winner's own bounty after it grew, when known."""


class _Award(NamedTuple):
    """One eliminated player's bounty: the whole of it (when known) and each winner's take, by name."""

    bounty: int | None
    takes: dict[str, _Take]
    lines: tuple[int, ...] = ()


def _recorded_bounties(bounties: tuple[Bounty, ...]) -> dict[str, _Award]:
    """The history's bounty lines by eliminated player, in the order written."""
    out: dict[str, _Award] = {}
    for b in bounties:
        award = out.get(b.eliminated, _Award(None, {}))
        takes = dict(award.takes)
        whole = award.bounty
        if b.kind == "split knockout":
            whole = (whole or 0) + b.cents
            takes.update(dict.fromkeys(b.winners, _Take(None, 0, None)))
        elif b.kind == "knockout":
            whole = (whole or 0) + b.cents
            takes[b.winners[0]] = _Take(b.cents, 0, None)
        else:
            takes[b.winners[0]] = _Take(b.cents, b.increase_cents, b.now_cents)
        out[b.eliminated] = _Award(whole, takes, (*award.lines, b.line))
    return out


def _computed_bounties(settlement: Settlement) -> dict[str, _Award]:
    """The settlement's bounty awards by eliminated player, in the order settled, each winner's own bounty
    after the award (what they added in this hand's earlier eliminations included)."""
    showdown = settlement.showdown
    heads = {s.seat: b for s, b in zip(showdown.seats, showdown.bounties, strict=True)}
    out: dict[str, _Award] = {}
    for award in settlement.bounties:
        heads[award.seat] = 0
        takes: dict[str, _Take] = {}
        for share in award.winners:
            heads[share.seat] += share.added
            takes[share.player_id] = _Take(share.cash, share.added, heads[share.seat])
        out[award.player_id] = _Award(award.bounty, takes)
    return out


def _agrees(recorded: _Award, ours: _Award) -> bool:
    """The recorded award says what the rules give: the same winners, each one's cash (when written), added
    part and bounty after; a whole bounty written (split knockout) equal to the rules' bounty."""
    if set(recorded.takes) != set(ours.takes):
        return False
    if recorded.bounty is not None and recorded.bounty != ours.bounty:
        return False
    for name, take in recorded.takes.items():
        rule = ours.takes[name]
        if take.added != rule.added or take.cash not in (None, rule.cash) or take.now not in (None, rule.now):
            return False
    return True


def _money(cents: int | None, currency: str) -> str:
    """``4132`` -> ``$41.32``."""
    return "?" if cents is None else f"{currency}{cents // 100}.{cents % 100:02d}"


def _describe(award: _Award, currency: str, *, progressive: bool) -> str:
    """``Ada $0.31 cash + $0.30 added (bounty now $4.00)``; ``Ben $0.50``; ``Ada, Cal split $50.00``."""
    if any(take.cash is None for take in award.takes.values()):
        return f"{', '.join(award.takes)} split {_money(award.bounty, currency)}"
    parts = []
    for name, take in award.takes.items():
        if progressive or take.added:
            now = f" (bounty now {_money(take.now, currency)})" if take.now is not None else ""
            parts.append(f"{name} {_money(take.cash, currency)} cash + {_money(take.added, currency)} added{now}")
        else:
            parts.append(f"{name} {_money(take.cash, currency)}")
    return ", ".join(parts)


def _award_document(name: str, award: _Award, seats: dict[str, int]) -> dict[str, Any]:
    out: dict[str, Any] = {"eliminated": name, "seat": seats.get(name)}
    if award.bounty is not None:
        out["bounty"] = award.bounty
    out["winners"] = [
        {"player": winner, "seat": seats.get(winner)}
        | ({"amount": take.cash + take.added, "cash": take.cash} if take.cash is not None else {})
        | {"added": take.added}
        | ({"bounty_now": take.now} if take.now is not None else {})
        for winner, take in award.takes.items()
    ]
    if award.lines:
        out["lines"] = list(award.lines)
    return out


def _ranks(values: dict[str, int]) -> dict[str, int]:
    """Competition ranks, the smallest value first (1, 1, 3)."""
    return {name: 1 + sum(other < value for other in values.values()) for name, value in values.items()}


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _order(ranks: dict[str, int], label: Callable[[str], str]) -> str:
    """``Ann (6th), then Bob (5th) and Cal (5th) tied``: worst finish first."""
    groups: dict[int, list[str]] = {}
    for name, rank in sorted(ranks.items(), key=lambda item: item[1]):
        groups.setdefault(rank, []).append(label(name))
    return ", then ".join(" and ".join(g) + (" tied" if len(g) > 1 else "") for g in groups.values())


def _recorded_finishes(places: tuple[Place, ...]) -> dict[str, int]:
    """Each bust's finish among the hand's recorded busts from its place (1 = the worst; equal places tie)."""
    return _ranks({p.player: -p.place for p in places if not p.won})


def _recorded_tournament(record: HandRecord) -> dict[str, Any]:
    """``expected``'s knockout and place fields: what the history's lines say (empty when it says nothing)."""
    out: dict[str, Any] = {}
    seats = {p.player: p.seat for p in record.places}
    if record.event is not None:
        seats = {p.player_id: p.seat for p in record.event.players}
    if record.bounties or (record.event is not None and record.event.bounty_cash_ppm is not None):
        out["bounty_awards"] = [
            _award_document(name, award, seats) for name, award in _recorded_bounties(record.bounties).items()
        ]
    if record.places or (record.event is not None and record.event.tournament_id is not None):
        finishes = _recorded_finishes(record.places)
        out["places"] = [
            {"player": p.player, "seat": p.seat, "place": p.place, "finish": finishes[p.player], "received": p.received,
             "line": p.line}
            for p in record.places
            if not p.won
        ]  # fmt: skip
        winner = next((p for p in record.places if p.won), None)
        if winner is not None:
            out["tournament_winner"] = {
                "player": winner.player, "seat": winner.seat, "received": winner.received, "line": winner.line,
            }  # fmt: skip
    return out


def _computed_tournament(record: HandRecord, settlement: Settlement) -> dict[str, Any]:
    """``computed``'s knockout and place fields: the settlement's bounty awards and busts."""
    out: dict[str, Any] = {}
    showdown = settlement.showdown
    seats = {s.player_id: s.seat for s in showdown.seats}
    if showdown.bounties:
        ours = _computed_bounties(settlement)
        out["bounty_awards"] = [
            {**_award_document(award.player_id, ours[award.player_id], seats), "pot": award.pot}
            for award in settlement.bounties
        ]
    elif record.bounties:
        out["bounty_awards"] = []  # the history gives no bounty on the heads: nothing to award
    if showdown.tournament_id is not None or record.places:
        out["places"] = [{"player": b.player_id, "seat": b.seat, "finish": b.finish} for b in settlement.busts]
    return out


def _compare_tournament(record: HandRecord, settlement: Settlement, kind: str, reason: str) -> tuple[str, str, str]:
    """A hand whose chips match: its bounty lines against the rules' awards, then its recorded places against
    the busts (relative order and ties). ``kind`` and ``reason`` are the chips' note, kept on a match."""
    currency = record.currency
    busts = {b.player_id: b.finish for b in settlement.busts}
    recorded = _recorded_bounties(record.bounties)
    if settlement.showdown.bounties:
        progressive = settlement.showdown.bounty_cash_ppm < PPM
        ours = _computed_bounties(settlement)
        for name in [*ours, *(n for n in recorded if n not in ours)]:
            theirs, rule = recorded.get(name), ours.get(name)
            if theirs is None:
                assert rule is not None
                awarded = _describe(rule, currency, progressive=progressive)
                return MISMATCH, "bounty award", (
                    f"the rules award {name}'s {_money(rule.bounty, currency)} bounty ({awarded}); the history "
                    f"writes no bounty line for {name}"
                )  # fmt: skip
            written = _describe(theirs, currency, progressive=progressive)
            if rule is None:
                why = f"the rules do not eliminate {name}" if name not in busts else f"{name} had no bounty"
                return MISMATCH, "bounty award", f"the history pays a bounty for eliminating {name} ({written}); {why}"
            if not _agrees(theirs, rule):
                return MISMATCH, "bounty award", (
                    f"bounty for eliminating {name}: recorded {written}; the rules give "
                    f"{_describe(rule, currency, progressive=progressive)}"
                )  # fmt: skip
    elif record.bounties:  # no bounty on the heads: what the lines say is checked as far as it can be
        wrong = check_without_heads(record, settlement)
        if wrong is not None:
            return MISMATCH, "bounty award", wrong
        note = note_without_heads(record)
        kind, reason = kind or "bounties without heads", f"{reason}; {note}" if reason else note
    if record.places:
        verdict = _compare_places(record.places, settlement, busts)
        if verdict is not None:
            return MISMATCH, "places", verdict
    return MATCH, kind, reason


def _compare_places(places: tuple[Place, ...], settlement: Settlement, busts: dict[str, int]) -> str | None:
    """Why the recorded places disagree with the busts, or ``None``: every player with a place is a bust (the
    tournament's winner is not), and among them the order, worst first, and the ties are the rules'. A bust
    the history gives no place is not judged (a re-buy, a ticket, an older format)."""
    left = {
        s.player_id: (s.stack or 0) - s.contributed - s.dead_money + won
        for s, won in zip(settlement.showdown.seats, settlement.collected, strict=True)
    }
    for p in places:
        if p.won and p.player in busts:
            return f"the history says {p.player} wins the tournament; the rules leave {p.player} no chips"
        if not p.won and p.player not in busts:
            return (
                f"the history says {p.player} finished the tournament in {_ordinal(p.place)} place; the rules leave "
                f"{p.player} {left.get(p.player, 0)} chips"
            )
    finished = {p.player: p.place for p in places if not p.won}
    recorded = _recorded_finishes(tuple(p for p in places if not p.won))
    ours = _ranks({name: busts[name] for name in recorded})
    if recorded != ours:
        return (
            f"places among this hand's busts, worst first: recorded "
            f"{_order(recorded, lambda n: f'{n} ({_ordinal(finished[n])})')}; the rules give {_order(ours, str)}"
        )
    return None
