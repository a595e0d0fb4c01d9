"""A whole tournament settled in process, from JSON lines of ``{"tournament": ...}`` and ``{"event": ...}``.

This is what an auditor runs (``showdown tournament replay``) and what the
tests use as the worker's twin: each line goes through the worker's own
preparation (:func:`showdown_service.decision.settling.prepare`, as the stream entry
a producer would have sent) and decision (:func:`showdown_service.decision.decide.decide`),
with the dedupe keys kept in a dict and the ledgers in a :class:`Book` in
memory. So a hand sent twice is a ``duplicate`` here as in the worker, a hand
re-sent with other content ``conflicting_duplicate``, and every entry gets the
outcome, code, result and placements the worker would give it. (The dedupe
TTL does not lapse in a replay: every hand of the file is remembered.)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson
from pydantic import ValidationError

from showdown_core import Settlement
from showdown_core.tournament import Book
from showdown_messages import rejections
from showdown_messages.protocol import EVENT_FIELD, TOURNAMENT_FIELD
from showdown_messages.repeats import refuse_repeated_keys
from showdown_service.decision.decide import Decision, utc_text
from showdown_service.decision.intake import tournament_body, unwrap_event
from showdown_service.decision.settling import Prepared, prepare
from showdown_service.decision.twin import Twin
from showdown_service.infra.examples import documents

REPLAY_WORKER = "replay"
"""The ``worker`` of a replay's audit records."""
MAX_PAYLOAD_BYTES = 64 * 1024
"""The worker's default ``SHOWDOWN_MAX_PAYLOAD_BYTES``: larger entries are refused unread, here as there."""


@dataclass(slots=True)
class Refusal:
    """A line the replay could not apply: where, and why (as a worker's dead letter would say)."""

    source: str
    line: int
    code: str
    message: str


@dataclass(slots=True)
class TournamentReplay:
    """Feeds lines to the decision step, in order, keeping what each did."""

    book: Book = field(default_factory=Book)
    placements: list[dict[str, Any]] = field(default_factory=list)
    """Every placement record, in the order written (as on the standings stream)."""
    refused: list[Refusal] = field(default_factory=list)
    applied: int = 0
    """Lines settled or found duplicate (not refused)."""
    results: list[Settlement] = field(default_factory=list)
    """Each settled hand's settlement, in order."""
    decisions: list[Decision] = field(default_factory=list)
    """Every decided line's decision, in order (outcome, code, result text, placements, audit record)."""
    settled_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    """The instant every result and record of the replay carries (the batch clock of the worker)."""
    max_payload_bytes: int = MAX_PAYLOAD_BYTES
    """As the worker's ``SHOWDOWN_MAX_PAYLOAD_BYTES``."""
    twin: Twin = field(init=False)
    """The dedupe keys (never lapsing: every hand of the file is remembered), the replay's own audit chain, and
    :attr:`book`."""

    def __post_init__(self) -> None:
        self.twin = Twin(self.book, dedupe_ttl_s=None)

    def feed(self, lines: Iterable[str], source: str = "-") -> None:
        """Apply every JSON document of ``lines`` (one a line, or pretty-printed over several), numbered by the
        line it starts on."""
        for number, document in documents(lines):
            self.feed_line(document, source, number)

    def feed_line(self, line: str | bytes, source: str = "-", number: int = 0) -> Decision | None:
        """Apply one JSON line as the stream entry it stands for; a line that is refused is recorded in
        :attr:`refused` (and ``None`` returned when it is no entry at all: not JSON, not one of the two shapes,
        a key given twice in the line)."""
        fields = self._entry(line, source, number)
        if fields is None:
            return None
        entry_id = f"0-{len(self.decisions) + 1}"
        prepared = prepare(entry_id, fields, failures=0, max_deliveries=1, max_payload_bytes=self.max_payload_bytes,
                           now=self.settled_at, started=0.0, keep_settlement=True)  # fmt: skip
        decision = self.decide([prepared])[0]
        if decision.code is not None:
            self.refused.append(Refusal(source, number, decision.code, decision.message or ""))
        else:
            self.applied += 1
            self.placements += decision.placements
            if decision.settlement is not None:
                self.results.append(decision.settlement)
        return decision

    def decide(self, batch: list[Prepared]) -> list[Decision]:
        """Decide prepared entries as the worker does (a broken ledger invariant refuses that entry alone), and
        keep what they change: the ledgers, the dedupe keys, the chain."""
        decided = self.twin.decide(batch, worker=REPLAY_WORKER, at=utc_text(self.settled_at), now=0.0)
        self.decisions += decided.decisions
        return decided.decisions

    def _entry(self, line: str | bytes, source: str, number: int) -> dict[bytes, bytes] | None:
        """The stream entry a line stands for: its message or event, as written, in the field a producer puts it
        in; ``None`` (and the refusal recorded) for a line that is neither."""
        try:
            doc = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            self.refused.append(Refusal(source, number, "malformed_json", f"not a JSON document: {exc}"))
            return None
        if not isinstance(doc, dict) or len(doc) != 1 or not ({TOURNAMENT_FIELD, EVENT_FIELD} & doc.keys()):
            what = "an object" if isinstance(doc, dict) else type(doc).__name__
            self.refused.append(
                Refusal(
                    source, number, "not_an_object", f'{what}; each line is {{"tournament": ...}} or {{"event": ...}}'
                )
            )
            return None
        try:
            refuse_repeated_keys(line, "line")  # before the line is taken apart (a parser keeps a repeat's last)
        except ValidationError as exc:
            first = rejections(exc)[0]
            self.refused.append(Refusal(source, number, first.code, first.message))
            return None
        text = line if isinstance(line, str) else line.decode()
        if TOURNAMENT_FIELD in doc:
            body = tournament_body(text)
            name = TOURNAMENT_FIELD
        else:
            inner = unwrap_event(text)
            body = None if inner == text else inner
            name = EVENT_FIELD
        payload = body.encode() if body is not None else orjson.dumps(doc[name])  # not an object: refused as one
        return {name.encode(): payload}
