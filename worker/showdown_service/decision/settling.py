"""One stream entry in, one prepared outcome out: no Redis here.

:func:`prepare` reads, validates and settles an entry. It never raises for
bad input: every refusal becomes a :class:`Prepared` carrying a rejection
code, so it can be dead-lettered. Whether a valid event is *settled*, a
*duplicate* or a *conflicting duplicate* is decided later, at commit time,
against the dedupe keys in Redis (:mod:`showdown_service.worker.commit`).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Final

import orjson
from pydantic import ValidationError

from showdown_core import InvalidEvent, InvariantViolation, Settlement, settle
from showdown_core.rake import Schedule
from showdown_core.tournament_messages import TournamentMessage
from showdown_messages import ShowdownEvent, rejections
from showdown_messages.events import MysteryBountyDrawn
from showdown_messages.protocol import (
    BODY_CHANGED_FIELD,
    EVENT_FIELD,
    REQUEUED_FROM_FIELD,
    TOURNAMENT_FIELD,
    entry_kind,
)
from showdown_messages.tournaments import parse_tournament_message
from showdown_service.decision.audit import sha256_hex
from showdown_service.decision.intake import parse_event, to_showdown, to_tournament_message
from showdown_service.decision.jackpot_live import apply_jackpot
from showdown_service.decision.rake_live import apply_schedule
from showdown_service.decision.rake_schedules import schedules_in
from showdown_service.decision.wire import encode_result
from showdown_service.infra.entry_fields import RepeatedFields

_EVENT: Final = EVENT_FIELD.encode()
_TOURNAMENT: Final = TOURNAMENT_FIELD.encode()
_REQUEUED_FROM: Final = REQUEUED_FROM_FIELD.encode()
_BODY_CHANGED: Final = BODY_CHANGED_FIELD.encode()


def _named(fields: dict[bytes, bytes] | None) -> str:
    return ", ".join(sorted(k.decode(errors="replace") for k in (fields or {}))) or "none"


_UNREADABLE: Final[dict[str, Callable[[dict[bytes, bytes] | None], tuple[str, str]]]] = {
    "ambiguous": lambda _: (
        "ambiguous_entry",
        "the entry has both an 'event' and a 'tournament' field: send each in an entry of its own",
    ),
    "unknown": lambda fields: (
        "missing_event",
        f"the entry has no 'event' field and is no tournament message (fields: {_named(fields)})",
    ),
    "deleted": lambda _: ("missing_event", "the entry was deleted"),
}
"""Code and reason of an entry that is neither an event nor a tournament message, by its kind
(:func:`showdown_messages.protocol.entry_kind`)."""


@dataclass(slots=True)
class Prepared:
    """An entry, read and judged; what the commit needs to publish it."""

    entry_id: str
    hand_id: str | None
    """The event's hand_id; for an unreadable event, whatever string it claimed (or None)."""
    table_id: str | None
    event_sha256: str
    """Digest of the canonical event (card text and field order normalised),
    or of the raw payload when there is no valid event."""
    result: bytes | None
    """ShowdownResult JSON when the event settled."""
    result_sha256: str | None
    code: str | None
    """Rejection code (see showdown_messages.CODES) when the entry is refused."""
    message: str | None
    raw: bytes
    """The payload as received (kept for dead letters)."""
    started: float
    """perf_counter() when the entry was read: for latency."""
    tournament_id: str | None = None
    """The hand's (or tournament message's) tournament, if any: its ledger is consulted when the commit is
    planned (:mod:`showdown_service.tournament`)."""
    settlement: Settlement | None = None
    """The hand's settlement (tournament hands only: the ledger needs it)."""
    hand_for_hand_round: int | None = None
    bounties_given: bool = False
    """The event carried ``players[].bounty``."""
    tournament_message: TournamentMessage | None = None
    """A tournament message (an entry whose field is ``tournament``), as the core's rules take it."""
    settled_at: datetime | None = None
    """The batch's clock, as given to :func:`prepare` (``result`` carries it): the decision step chains the audit
    record, and re-encodes a result whose bounties the ledger settled, with the same instant."""
    mystery_bounties: tuple[tuple[int, int], ...] | None = None
    """The event's ``mystery_bounties`` as ``(seat, amount)`` (tournament hands; None: not given)."""
    bounty_cash_ppm: int | None = None
    """A tournament hand's ``bounty_cash_ppm`` as given (``None``: not given); the ledger checks it."""
    requeued_from: str | None = None
    """The dead letter this entry was requeued from (``showdown dead-letters --requeue``), for its audit record."""
    body_changed: bool = False
    """Requeued with an edited body (``--event FILE``), not the dead letter's own payload."""
    jackpot_id: str | None = None
    """The hand's jackpot (its fund is read when the commit is planned, and the hand taken through it); its
    settlement is kept."""
    read_ids: tuple[str, str | None] | None = None
    """``(table_id, tournament_id)`` of the event as read (validated), for its audit record: a hand settled or
    refused once read; None when no event was read (an unreadable payload, a tournament message). Unlike
    :attr:`tournament_id`, set for a hand refused as it settled too (its ledger is not consulted)."""

    @property
    def valid(self) -> bool:
        return self.code is None


def prepare(
    entry_id: str,
    fields: dict[bytes, bytes] | None,
    *,
    failures: int,
    max_deliveries: int,
    max_payload_bytes: int,
    now: datetime,
    started: float,
    keep_settlement: bool = False,
    schedules: Mapping[str, Schedule] | None = None,
) -> Prepared:
    """Judge one entry (:func:`_judge`), and note where it was requeued from and whether its body was edited.

    ``schedules``: the rake schedules an event's ``rake_schedule`` may name (the worker's, from the shipped set
    and ``SHOWDOWN_RAKE_SCHEDULES_DIR``); none given: the shipped set."""
    prepared = _judge(entry_id, fields, failures=failures, max_deliveries=max_deliveries,
                      max_payload_bytes=max_payload_bytes, now=now, started=started,
                      keep_settlement=keep_settlement, schedules=schedules)  # fmt: skip
    origin = fields.get(_REQUEUED_FROM) if fields else None
    if origin is not None:
        prepared.requeued_from = origin.decode(errors="replace")
        prepared.body_changed = fields.get(_BODY_CHANGED) == b"1"  # type: ignore[union-attr]  # not None here
    return prepared


def _judge(
    entry_id: str,
    fields: dict[bytes, bytes] | None,
    *,
    failures: int,
    max_deliveries: int,
    max_payload_bytes: int,
    now: datetime,
    started: float,
    keep_settlement: bool = False,
    schedules: Mapping[str, Schedule] | None = None,
) -> Prepared:
    """Judge one entry. Bad input of any kind returns a rejection; it never raises for it.

    ``now`` is the batch's clock: the result's ``settled_at`` (and, through
    :attr:`Prepared.settled_at`, the audit record's ``at``). ``keep_settlement``:
    keep every hand's settlement (a replay reports them); the worker keeps only a
    tournament hand's (its ledger needs it).

    ``failures`` is how many times settling this entry has raised before
    (the worker's persisted count); from ``max_deliveries`` on, the entry is
    ``poison`` and is not settled again. Only a raise counts: a commit Redis
    refused, an outage or a re-delivery never does.

    Raises only for unexpected failures (bugs): the caller records the
    failure and leaves the entry pending, so it is retried.
    """
    if isinstance(fields, RepeatedFields):  # XADD took `tournament A tournament B`: which one is meant?
        named = ", ".join(repr(name.decode(errors="replace")) for name in fields.repeated())
        reason = (
            f"the entry gives the field {named} more than once (a reader keeps one of them silently): send each "
            "field once"
        )
        return _refused(entry_id, fields.raw(), "ambiguous_entry", reason, started, now)
    kind = entry_kind(fields)
    given = fields or {}
    if kind == "tournament":
        message = given[_TOURNAMENT]
        return _tournament_message(entry_id, message, failures, max_deliveries, max_payload_bytes, now, started)
    raw = given.get(_EVENT, b"")
    if kind != "event":
        whole = all_fields_raw(fields) if fields and kind != "deleted" else raw  # every field: nothing of it lost
        return _refused(entry_id, whole, *_UNREADABLE[kind](fields), started, now)
    if failures >= max_deliveries:
        reason = (
            f"settling it raised {failures} times (limit {max_deliveries}, SHOWDOWN_MAX_DELIVERIES): a bug, "
            f"see the worker's entry_failed lines for entry {entry_id}"
        )
        return _refused(entry_id, raw, "poison", reason, started, now)
    if len(raw) > max_payload_bytes:
        reason = f"the event is {len(raw)} bytes; the limit is {max_payload_bytes}"
        return _refused(entry_id, raw, "payload_too_large", reason, started, now)
    try:
        event = parse_event(raw)
    except InvalidEvent as exc:
        return _refused(entry_id, raw, exc.code, exc.message, started, now)
    known = event.__dict__
    tournament_id = known["tournament_id"]
    read_ids = (known["table_id"], tournament_id)
    try:
        showdown = to_showdown(event)
        if event.rake_schedule is not None:  # the table's posted rake: computed, or the stated one checked
            showdown = apply_schedule(event, showdown, schedules_in(None) if schedules is None else schedules)
        settlement = settle(showdown)
        if event.jackpot is not None:  # the drop checked against its program, the bad beat decided
            settlement = apply_jackpot(event, settlement)
    except InvalidEvent as exc:
        return _refused(entry_id, raw, exc.code, exc.message, started, now, read_ids)
    except InvariantViolation as exc:
        return _refused(entry_id, raw, "invariant_violation", str(exc), started, now, read_ids)
    result = encode_result(settlement, now)
    if tournament_id is None:
        kept = settlement if keep_settlement or settlement.jackpot is not None else None
        round_, bounties_given = None, False
    else:
        kept, round_ = settlement, known["hand_for_hand_round"]
        bounties_given = known["players"][0].bounty is not None
    prepared = Prepared(
        entry_id,
        event.hand_id,
        event.table_id,
        event_digest(event),
        result,
        sha256_hex(result),
        None,
        None,
        raw,
        started,
        tournament_id,
        kept,
        round_,
        bounties_given,
        None,
        now,
    )
    prepared.read_ids = read_ids
    if settlement.jackpot is not None:  # its fund moves when the commit is planned
        prepared.jackpot_id = settlement.jackpot.jackpot_id
    elif tournament_id is not None:
        prepared.bounty_cash_ppm = known["bounty_cash_ppm"]
        if known["mystery_bounties"] is not None:
            prepared.mystery_bounties = _mystery(known["mystery_bounties"])
    return prepared


def _mystery(drawn: tuple[MysteryBountyDrawn, ...]) -> tuple[tuple[int, int], ...]:
    """An event's ``mystery_bounties`` as the ledger takes them: ``(seat, amount)``."""
    return tuple((d.seat, d.amount) for d in drawn)


def _tournament_message(  # noqa: PLR0917 - prepare()'s own arguments, passed on
    entry_id: str,
    raw: bytes,
    failures: int,
    max_deliveries: int,
    max_payload_bytes: int,
    now: datetime,
    started: float,
) -> Prepared:
    """A tournament message entry, read and validated (the ledger judges it when the commit is planned)."""
    if failures >= max_deliveries:
        reason = f"applying it raised {failures} times (limit {max_deliveries}, SHOWDOWN_MAX_DELIVERIES): a bug"
        return _refused(entry_id, raw, "poison", reason, started, now)
    if len(raw) > max_payload_bytes:
        return _refused(entry_id, raw, "payload_too_large", f"the message is {len(raw)} bytes", started, now)
    try:
        message = parse_tournament_message(raw)
    except ValidationError as exc:
        first = rejections(exc)[0]
        return _refused(entry_id, raw, first.code, first.message, started, now)
    return Prepared(
        entry_id,
        None,
        None,
        sha256_hex(message.__pydantic_serializer__.to_json(message)),
        None,
        None,
        None,
        None,
        raw,
        started,
        message.tournament_id,
        tournament_message=to_tournament_message(message),
        settled_at=now,
    )


ENTRY_FIELDS_KEY = "entry_fields"
"""The one key of a dead letter's ``raw`` when the refused entry was not one payload field: every field it held."""


def all_fields_raw(fields: dict[bytes, bytes]) -> bytes:
    """Every field of a refused entry, for its dead letter's ``raw``: ``{"entry_fields": {name: value, ...}}``,
    a value that is not UTF-8 as ``{"base64": ...}`` (see :func:`all_fields`), so nothing of it is lost."""
    return orjson.dumps({ENTRY_FIELDS_KEY: {_text_or_b64(k): _text_or_b64(v) for k, v in fields.items()}})


def all_fields(raw: bytes) -> dict[bytes, bytes] | None:
    """The fields a dead letter's ``raw`` holds when its entry was not one payload field: :func:`all_fields_raw`'s
    ``{"entry_fields": {...}}``, or a repeated field's pairs (``[[name, value], ...]``: the last value of each);
    None when ``raw`` is a payload of its own."""
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if isinstance(doc, list) and doc and all(isinstance(p, list) and len(p) == 2 for p in doc):
        return {_bytes_of(name): _bytes_of(value) for name, value in doc}
    if not isinstance(doc, dict) or doc.keys() != {ENTRY_FIELDS_KEY} or not isinstance(doc[ENTRY_FIELDS_KEY], dict):
        return None
    return {_bytes_of(k): _bytes_of(v) for k, v in doc[ENTRY_FIELDS_KEY].items()}


def _text_or_b64(value: bytes) -> str | dict[str, str]:
    try:
        return value.decode()
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(value).decode()}


def _bytes_of(value: object) -> bytes:
    if isinstance(value, dict) and isinstance(value.get("base64"), str):
        return base64.b64decode(value["base64"])
    return str(value).encode()


def event_digest(event: ShowdownEvent) -> str:
    """sha256 of the canonical event: the model's JSON, so card spelling and key order do not change it."""
    return sha256_hex(event.__pydantic_serializer__.to_json(event))


def _refused(  # noqa: PLR0917 - the entry, why it is refused, and the batch's two clocks
    entry_id: str,
    raw: bytes,
    code: str,
    message: str,
    started: float,
    now: datetime,
    read_ids: tuple[str, str | None] | None = None,
) -> Prepared:
    """A refused entry; ``read_ids``: its event's table and tournament when it was read (refused as it settled)."""
    hand_id, table_id = _claimed_ids(raw)
    return Prepared(
        entry_id=entry_id,
        hand_id=hand_id,
        table_id=table_id,
        event_sha256=sha256_hex(raw),
        result=None,
        result_sha256=None,
        code=code,
        message=message,
        raw=raw,
        started=started,
        settled_at=now,
        read_ids=read_ids,
    )


def _claimed_ids(raw: bytes) -> tuple[str | None, str | None]:
    """hand_id and table_id as a refused payload states them, if it is readable at all (for logs and audit)."""
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None, None
    if not isinstance(doc, dict):
        return None, None
    return _short_text(doc.get("hand_id")), _short_text(doc.get("table_id"))


def _short_text(value: object) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= 200 and value.isprintable() else None
