"""The decision: what becomes of each entry of a batch, decided once, for the worker and for every replay.

Pure: no Redis (importing this loads no redis-py), no clock of its own. The
worker (:mod:`showdown_service.worker.commit` packs the decision into its commit
script), ``showdown tournament replay`` and any later replay of archived
entries call :func:`decide` with:

* the batch: entries judged by :func:`showdown_service.decision.settling.prepare`,
  in stream order;
* ``seen``: what each hand's dedupe key held when read (by ``hand_id``;
  absent or ``None``: no hand of that id settled within the dedupe TTL);
  the worker reads Redis, a replay keeps a dict;
* the audit chain's head the batch chains on;
* the tournament ledgers (a :class:`Book`) as they stand at that head, when
  the batch has a tournament entry;
* the jackpot funds (``funds``: :class:`showdown_core.jackpot.Fund` by jackpot
  id, ``None`` or absent for one not declared yet) as they stand at that head,
  when the batch has a hand with a jackpot: a settled one adds its drop and
  pays its bad beat from its fund (docs/jackpot.md), or is refused
  ``jackpot_program_changed``;
* ``lost``: the tournaments whose ledgers Redis lost (the archive knows them,
  Redis came back without them): every hand and message of one is refused
  ``ledger_lost`` until its ledger is restored (never settled as a plain
  hand); empty but after a loss;
* the worker's name and the batch's instant ``at`` (ISO 8601 UTC, ``Z``): the
  audit records' ``at``, and the ``settled_at`` of a result the ledger
  re-settles (bounties from its heads). :func:`showdown_service.decision.settling.prepare`
  took the same instant, so a replay given a record's ``at`` re-settles its
  result byte for byte.

It returns each entry's :class:`Decision` (outcome, code, message, the
result text, the placements, the audit record), the book as the batch
leaves it (what changed is the ledger's part of the commit) and the funds it
moved.

Outcomes: ``settled`` (a hand not seen, a tournament message the ledger
took); ``duplicate`` (the hand's key holds this event's digest, or a message
the ledger already took); ``rejected`` (refused: the code says why, including
``conflicting_duplicate`` when the key holds another event's digest) and
``poison`` (settling it raised ``max_deliveries`` times). Entries of one hand
within the batch see each other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Final, NamedTuple

import orjson

from showdown_core import InvalidEvent, InvariantViolation, Settlement
from showdown_core.jackpot import Fund, take
from showdown_core.tournament import SETTLED, Applied, Book
from showdown_service.decision.audit import Head, make_record, sha256_hex
from showdown_service.decision.settling import Prepared
from showdown_service.decision.wire import encode_result


class LedgerInvariant(Exception):
    """The tournament ledger broke a rule it must never break while taking entry ``entry_id`` (a bug). The
    decision is abandoned (the book may be half changed: a worker reads it again, a replay drops its copy); the
    caller refuses that entry as ``invariant_violation`` (:func:`refuse_broken`) and decides again."""

    def __init__(self, entry_id: str, reason: str) -> None:
        super().__init__(f"entry {entry_id}: {reason}")
        self.entry_id = entry_id
        self.reason = reason


class Decision(NamedTuple):
    """What happens to one entry (a NamedTuple: one is built per entry, on the hot path)."""

    prepared: Prepared
    outcome: str
    """settled, rejected, duplicate or poison."""
    code: str | None
    message: str | None
    record: dict[str, Any]
    """The audit record."""
    record_json: bytes = b""
    """The audit record as stored (its canonical JSON with ``hash`` appended)."""
    result: bytes | None = None
    """The ShowdownResult text published: a settled hand's only."""
    settlement: Settlement | None = None
    """A settled hand's settlement as published, when kept (tournament hands; every hand in a replay)."""
    placements: tuple[dict[str, Any], ...] = ()
    """Placement records this entry writes on the standings stream, in order."""
    placement_texts: tuple[bytes, ...] = ()
    """The same, as written (their digest is the record's ``standings_sha256``)."""
    remembers: bool = False
    """A newly settled hand: its dedupe key takes the event's digest."""

    @property
    def refused(self) -> Why | None:
        """Why the entry is refused (its dead letter's code and message), or None."""
        return None if self.code is None else Why(self.code, self.message or "")


class Why(NamedTuple):
    """A refusal: a dead letter's code and message."""

    code: str
    message: str


@dataclass(slots=True)
class Decided:
    """A batch decided."""

    decisions: list[Decision]
    head: Head
    """The chain head after the batch's last record."""
    hands: list[str]
    """The hand ids whose dedupe state the decision read, in the order first met (a commit checks that their
    keys still hold what ``seen`` said)."""
    book: Book | None
    """The ledgers as the batch leaves them (a view of the book given, recording what changed), if any."""
    order_id: str
    """The last entry a tournament's ledger took (or a hand naming a tournament): a commit may not overtake an
    earlier entry still pending elsewhere. ``""`` when none."""
    funds: dict[str, Fund] = field(default_factory=dict)
    """The jackpot funds the batch moved, as it leaves them, by jackpot id (the funds' part of the commit)."""


_new: Final = tuple.__new__
_NO_IDS: Final = (None, None)
"""An entry whose event was not read: its record names no table and no tournament."""
LEDGER_LOST: Final = "ledger_lost"


def lost_message(tournament_id: str) -> str:
    """A ``ledger_lost`` dead letter's message."""
    return (
        f"tournament {tournament_id!r}: its ledger was lost with Redis's data (the archive knows the tournament); "
        f"`showdown tournament restore {tournament_id}` rebuilds it from the archive, then requeue this letter "
        "with the tournament's others, in order"
    )


def utc_text(instant: datetime) -> str:
    """An instant as the audit records write it: ``2026-11-25T14:00:00.123456Z``."""
    return instant.isoformat(timespec="microseconds").replace("+00:00", "Z")


def decide(
    batch: Sequence[Prepared],
    seen: Mapping[str, str | None],
    head: Head,
    *,
    worker: str,
    at: str,
    book: Book | None = None,
    lost: Set[str] = frozenset(),
    funds: Mapping[str, Fund | None] | None = None,
) -> Decided:
    """Decide every entry of ``batch`` (stream order) and chain its audit record on ``head``.

    Raises :class:`LedgerInvariant` when the ledger breaks an invariant
    taking an entry (a bug): refuse that entry (:func:`refuse_broken`) and
    decide again on a fresh book.
    """
    view = book.begin() if book is not None else None
    order_id = ""
    hands: list[str] = []
    state: dict[str, str | None] = {}
    decisions: list[Decision] = []
    moved: dict[str, Fund] = {}
    for p in batch:
        remembers = False
        code, message = p.code, p.message
        result, result_sha256, settlement = p.result, p.result_sha256, p.settlement
        placements: tuple[dict[str, Any], ...] = ()
        if code is None and lost and p.tournament_id in lost and p.tournament_message is not None:
            outcome, code, message = "rejected", LEDGER_LOST, lost_message(str(p.tournament_id))
            order_id = p.entry_id
        elif code is None and p.tournament_message is not None:
            assert view is not None, "a batch with a tournament entry is decided with its book"
            try:
                applied = view.apply_message(p.tournament_message)
            except InvariantViolation as exc:
                raise LedgerInvariant(p.entry_id, str(exc)) from exc
            outcome, code, message, placements = _read(applied)
            order_id = p.entry_id
        elif code is None:
            hand_id = p.hand_id
            assert hand_id is not None
            if p.tournament_id is not None:  # even untracked: its `open` may be an earlier entry held elsewhere
                order_id = p.entry_id
            if hand_id in state:
                current = state[hand_id]
            else:
                current = state[hand_id] = seen.get(hand_id)
                hands.append(hand_id)
            if current is None and lost and p.tournament_id in lost:  # never a plain hand: its ledger is not here
                outcome, code, message = "rejected", LEDGER_LOST, lost_message(str(p.tournament_id))
            elif current is None:
                outcome = "settled"
                if p.jackpot_id is not None:  # a cash hand with a jackpot: its drop and bad beat through its fund
                    taken = _fund_hand(p, funds, moved, at)
                    if isinstance(taken, Why):
                        outcome, code, message = "rejected", taken.code, taken.message
                    else:
                        settlement, result = taken
                        result_sha256 = sha256_hex(result)
                elif view is not None and p.settlement is not None:  # a tournament hand: the ledger may refuse it
                    ledgered = _ledger_hand(view, p, at)
                    if ledgered is not None:
                        outcome, code, message, placements, changed = ledgered
                        if changed is not None:  # bounties settled from the ledger's heads
                            settlement, result = changed
                            result_sha256 = sha256_hex(result)
                if outcome == "settled":
                    remembers = True
                    state[hand_id] = p.event_sha256
            elif current == p.event_sha256:
                outcome = "duplicate"
            else:
                outcome, code = "rejected", "conflicting_duplicate"
                message = (
                    f"hand_id {hand_id!r} was already settled from a different event "
                    f"(sha256 {current[:16]}...; this one {p.event_sha256[:16]}...)"
                )
        else:
            outcome = "poison" if code == "poison" else "rejected"
        decision, head = _decision(
            p, outcome, code, message, head, worker, at, result, result_sha256, settlement, placements, remembers
        )
        decisions.append(decision)
    return Decided(decisions, head, hands, view, order_id, moved)


def _fund_hand(
    p: Prepared, funds: Mapping[str, Fund | None] | None, moved: dict[str, Fund], at: str
) -> tuple[Settlement, bytes] | Why:
    """A settled hand through its jackpot's fund (as ``moved`` left it, else as ``funds`` gives it): the settlement
    and result with the amounts and the fund before and after, or why it is refused. Keeps the fund's new state in
    ``moved``. Raises :class:`LedgerInvariant` (money in != out: a bug)."""
    settlement, jackpot_id = p.settlement, p.jackpot_id
    assert settlement is not None
    assert settlement.jackpot is not None
    assert jackpot_id is not None
    fund = moved.get(jackpot_id) or (funds or {}).get(jackpot_id)
    try:
        fund, jackpot = take(fund, settlement.jackpot, p.hand_id or "", at)
    except InvalidEvent as exc:
        return Why(exc.code, exc.message)
    except InvariantViolation as exc:
        raise LedgerInvariant(p.entry_id, str(exc)) from exc
    moved[jackpot_id] = fund
    settlement = settlement._replace(jackpot=jackpot)
    return settlement, encode_result(settlement, datetime.fromisoformat(at))


def _ledger_hand(
    view: Book, p: Prepared, at: str
) -> tuple[str, str | None, str | None, tuple[dict[str, Any], ...], tuple[Settlement, bytes] | None] | None:
    """A tournament hand through its ledger: ``None`` for the usual hand (chips moved, nothing else), else its
    outcome, code, message, placements, and the settlement and result its bounties changed (settled from the
    ledger's heads) or None. Raises :class:`LedgerInvariant`."""
    assert p.settlement is not None
    try:
        applied = view.apply_hand(
            p.settlement,
            p.hand_for_hand_round,
            p.bounties_given,
            p.mystery_bounties,
            bounty_cash_ppm=p.bounty_cash_ppm,
        )
    except InvariantViolation as exc:
        raise LedgerInvariant(p.entry_id, str(exc)) from exc
    if applied is SETTLED:
        return None
    outcome, code, message, placements = _read(applied)
    changed = None
    if applied.settlement is not None:
        changed = applied.settlement, encode_result(applied.settlement, datetime.fromisoformat(at))
    return outcome, code, message, placements, changed


def _decision(  # noqa: PLR0917 - one entry's every part, positional on the hot path
    p: Prepared,
    outcome: str,
    code: str | None,
    message: str | None,
    head: Head,
    worker: str,
    at: str,
    result: bytes | None,
    result_sha256: str | None,
    settlement: Settlement | None,
    placements: tuple[dict[str, Any], ...],
    remembers: bool,
) -> tuple[Decision, Head]:
    """The entry's audit record chained on ``head``, its placements' texts, and its :class:`Decision`."""
    texts: tuple[bytes, ...] = ()
    standings_sha256 = None
    if placements:
        texts = tuple([orjson.dumps(placement) for placement in placements])
        standings_sha256 = sha256_hex(b"[" + b",".join(texts) + b"]")
    settled = outcome == "settled"
    table_id, tournament_id = p.read_ids or _NO_IDS
    record, record_json, head = make_record(
        head,
        hand_id=p.hand_id,
        entry_id=p.entry_id,
        outcome=outcome,
        code=code,
        event_sha256=p.event_sha256,
        result_sha256=result_sha256 if settled else None,
        worker=worker,
        at=at,
        standings_sha256=standings_sha256,
        requeued_from=p.requeued_from,
        body_changed=p.body_changed,
        table_id=table_id,
        tournament_id=tournament_id,
    )
    return (
        _new(  # Decision(...) without its __new__'s cost per entry
            Decision,
            (
                p,
                outcome,
                code,
                message,
                record,
                record_json,
                result if settled else None,
                settlement if settled else None,
                placements,
                texts,
                remembers,
            ),
        )
    ), head


def refuse_broken(batch: Sequence[Prepared], broken: LedgerInvariant) -> list[Prepared]:
    """``batch`` with the entry a :class:`LedgerInvariant` names refused as ``invariant_violation`` (the rest as
    they were): what the worker and every replay decide again."""
    return [
        replace(p, code="invariant_violation", message=broken.reason) if p.entry_id == broken.entry_id else p
        for p in batch
    ]


def _read(applied: Applied) -> tuple[str, str | None, str | None, tuple[dict[str, Any], ...]]:
    if applied.refused is not None:
        return "rejected", applied.refused.code, applied.refused.message, ()
    outcome = "settled" if applied.outcome == "untracked" else applied.outcome
    return outcome, None, None, applied.placements
