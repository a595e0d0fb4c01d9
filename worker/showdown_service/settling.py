"""One stream entry in, one prepared outcome out: no Redis here.

:func:`prepare` reads, validates and settles an entry. It never raises for
bad input: every refusal becomes a :class:`Prepared` carrying a rejection
code, so it can be dead-lettered. Whether a valid event is *settled*, a
*duplicate* or a *conflicting duplicate* is decided later, at commit time,
against the dedupe keys in Redis (:mod:`showdown_service.commit`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import orjson
from pydantic import ValidationError

from showdown_core import InvalidEvent, InvariantViolation, Settlement, settle
from showdown_messages import ShowdownEvent, rejections
from showdown_messages.tournaments import AnyTournamentMessage, parse_tournament_message
from showdown_service.audit import sha256_hex
from showdown_service.intake import parse_event, to_showdown
from showdown_service.wire import encode_result

_TOURNAMENT_ENTRY_FIELDS = frozenset((b"tournament", b"requeued_from"))
"""What a tournament message's stream entry may hold: the message, and the dead letter it was requeued from."""


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
    tournament_message: AnyTournamentMessage | None = None
    """A tournament message (an entry whose field is ``tournament``)."""

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
) -> Prepared:
    """Judge one entry. Bad input of any kind returns a rejection; it never raises for it.

    ``failures`` is how many times settling this entry has raised before
    (the worker's persisted count); from ``max_deliveries`` on, the entry is
    ``poison`` and is not settled again. Only a raise counts: a commit Redis
    refused, an outage or a re-delivery never does.

    Raises only for unexpected failures (bugs): the caller records the
    failure and leaves the entry pending, so it is retried.
    """
    raw = (fields or {}).get(b"event")
    if raw is not None and b"tournament" in fields:  # type: ignore[operator]  # fields holds the event: not None
        reason = "the entry has both an 'event' and a 'tournament' field: send each in an entry of its own"
        return _refused(entry_id, raw, "ambiguous_entry", reason, started)
    if raw is None:
        message = (fields or {}).get(b"tournament")
        if message is not None and (fields or {}).keys() <= _TOURNAMENT_ENTRY_FIELDS:
            return _tournament_message(entry_id, message, failures, max_deliveries, max_payload_bytes, started)
        named = ", ".join(sorted(k.decode(errors="replace") for k in (fields or {}))) or "none"
        reason = (
            f"the entry has no 'event' field and is no tournament message (fields: {named})"
            if fields is not None
            else "the entry was deleted"
        )
        return _refused(entry_id, b"", "missing_event", reason, started)
    if failures >= max_deliveries:
        reason = (
            f"settling it raised {failures} times (limit {max_deliveries}, SHOWDOWN_MAX_DELIVERIES): a bug, "
            f"see the worker's entry_failed lines for entry {entry_id}"
        )
        return _refused(entry_id, raw, "poison", reason, started)
    if len(raw) > max_payload_bytes:
        reason = f"the event is {len(raw)} bytes; the limit is {max_payload_bytes}"
        return _refused(entry_id, raw, "payload_too_large", reason, started)
    try:
        event = parse_event(raw)
        settlement = settle(to_showdown(event))
    except InvalidEvent as exc:
        return _refused(entry_id, raw, exc.code, exc.message, started)
    except InvariantViolation as exc:
        return _refused(entry_id, raw, "invariant_violation", str(exc), started)
    result = encode_result(settlement, now)
    known = event.__dict__
    tournament_id = known["tournament_id"]
    return Prepared(
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
        *(
            (settlement, known["hand_for_hand_round"], known["players"][0].bounty is not None)
            if tournament_id is not None
            else (None, None, False)
        ),
    )


def _tournament_message(  # noqa: PLR0917 - prepare()'s own arguments, passed on
    entry_id: str, raw: bytes, failures: int, max_deliveries: int, max_payload_bytes: int, started: float
) -> Prepared:
    """A tournament message entry, read and validated (the ledger judges it when the commit is planned)."""
    if failures >= max_deliveries:
        reason = f"applying it raised {failures} times (limit {max_deliveries}, SHOWDOWN_MAX_DELIVERIES): a bug"
        return _refused(entry_id, raw, "poison", reason, started)
    if len(raw) > max_payload_bytes:
        return _refused(entry_id, raw, "payload_too_large", f"the message is {len(raw)} bytes", started)
    try:
        message = parse_tournament_message(raw)
    except ValidationError as exc:
        first = rejections(exc)[0]
        return _refused(entry_id, raw, first.code, first.message, started)
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
        tournament_message=message,
    )


def event_digest(event: ShowdownEvent) -> str:
    """sha256 of the canonical event: the model's JSON, so card spelling and key order do not change it."""
    return sha256_hex(event.__pydantic_serializer__.to_json(event))


def _refused(entry_id: str, raw: bytes, code: str, message: str, started: float) -> Prepared:
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
