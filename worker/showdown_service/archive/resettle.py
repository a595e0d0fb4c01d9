"""Re-settle one archived entry with this code: the worker's own preparation and decision, no Redis.

This is the one seam between the audit replay and the worker: :func:`prepare_row`
is :func:`showdown_service.settling.prepare` fed the archived stream entry, and
:meth:`Resettler.decide` is :func:`showdown_service.commit.plan` on a batch of
that one entry, with an in-memory dedupe map (``seen:<hand_id>`` with the
dedupe TTL, measured on the records' own clock) and an in-memory book of
tournament ledgers, chained on the archived record's predecessor, at the
record's own ``at`` and by its own ``worker``. Each batch of the worker plans
every entry with the batch's ``at``, so one entry at a time decides the same.

What re-settling takes from the archive rather than reproducing:

* ``settled_at`` of a result: the worker's clock when it settled the hand; the
  archived result's value is fed back in (so the result is reproduced byte for
  byte);
* the audit record's ``at`` and ``worker``: the batch's clock and consumer;
* ``poison``: settling raised ``SHOWDOWN_MAX_DELIVERIES`` times in the worker
  (a bug, or a fault of the moment): a record saying ``poison`` is re-decided as
  poison; its dead letter's message names the count.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import orjson

from showdown_service.audit import Head
from showdown_service.commit import LedgerInvariant, plan
from showdown_service.config import Settings
from showdown_service.settling import Prepared, prepare
from showdown_service.tournament.book import Book


def _at(text: str | None) -> datetime:
    if not text:
        return datetime.now(UTC)
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def entry_fields(row: dict[str, Any]) -> dict[bytes, bytes] | None:
    """The events stream entry as the worker read it (None: it was gone when archived)."""
    if row.get("entry_fields"):
        doc = orjson.loads(row["entry_fields"])
        return {k.encode(): str(v).encode() for k, v in doc.items()}
    payload = row["event"].encode() if row.get("event") is not None else row.get("event_bytes")
    if payload is None or not row.get("event_field"):
        return None
    return {str(row["event_field"]).encode(): payload}


def prepare_row(row: dict[str, Any], record: dict[str, Any], settings: Settings) -> Prepared:
    """The worker's preparation of the archived entry, at the archived result's ``settled_at``."""
    settled_at = record.get("at")
    if row.get("result"):
        with contextlib.suppress(orjson.JSONDecodeError):
            settled_at = str(orjson.loads(row["result"]).get("settled_at") or settled_at)
    poison = record.get("code") == "poison"
    return prepare(
        str(record.get("entry_id") or row.get("entry_id")),
        entry_fields(row),
        failures=settings.max_deliveries if poison else 0,
        max_deliveries=settings.max_deliveries,
        max_payload_bytes=settings.max_payload_bytes,
        now=_at(settled_at),
        started=time.perf_counter(),
    )


@dataclass(frozen=True, slots=True)
class Decided:
    """What this code decides for an entry: its audit record, result, dead letter and placements."""

    record: dict[str, Any]
    result: bytes | None
    code: str | None
    message: str | None
    standings: bytes | None


class Resettler:
    """One shard's replay state: dedupe map and ledgers, advanced entry by entry in chain order."""

    def __init__(self, settings: Settings, shard: str) -> None:
        self.settings = settings
        self.keys = settings.keys(shard)
        self.seen: dict[str, tuple[str, float]] = {}
        self.book = Book({}, in_place=True)
        self.gap_at: int | None = None
        """The first seq after which entries are missing: the ledgers are unknown from there on."""
        self.skipped = 0
        """Tournament entries not re-settled because of that gap."""

    def decide(self, prepared: Prepared, record: dict[str, Any]) -> Decided:
        """Decide ``prepared`` as the worker would have, chained after ``record``'s predecessor."""
        at = str(record.get("at") or "")
        now = _at(at).timestamp()
        key = self.keys.seen(prepared.hand_id) if prepared.hand_id else ""
        held = self.seen.get(key)
        if held is not None and now - held[1] >= self.settings.dedupe_ttl_s:
            del self.seen[key]
            held = None
        seen: dict[str, str | None] = {key: held[0]} if held is not None else {}
        head = Head(int(record.get("seq", 1)) - 1, str(record.get("prev_hash", "")))
        book = self.book if prepared.tournament_id is not None else None
        try:
            planned = plan(
                self.keys,
                [prepared],
                seen,
                head,
                group=self.settings.group,
                consumer=str(record.get("worker", "")),
                at=at,
                dedupe_ttl_s=self.settings.dedupe_ttl_s,
                maxlens=(0, 0, 0),
                dead_raw_max_bytes=self.settings.dead_raw_max_bytes,
                book=book,
            )
        except LedgerInvariant as broken:
            prepared = replace(prepared, code="invariant_violation", message=broken.reason)
            return self.decide(prepared, record)
        decision = planned.decisions[0]
        nseen = len(planned.seen_keys)
        entry = planned.args[14 + nseen :]  # the script's per-entry arguments (see commit.plan's layout)
        result = entry[3] or None
        if record.get("outcome") == "settled" and record.get("hand_id") and record.get("code") is None:
            # the chain's own word (proven by its hashes) on what settled: a later re-send is judged against it
            # even if this entry's re-settlement differed, or an earlier gap in the archive hid its first send
            self.seen[self.keys.seen(str(record["hand_id"]))] = (str(record.get("event_sha256")), now)
        return Decided(decision.record, result, decision.code, decision.message, _placements(planned.args, nseen))


def _placements(args: list[Any], nseen: int) -> bytes | None:
    """The placement texts the plan writes, as the JSON array the record's ``standings_sha256`` is of."""
    at = 14 + nseen + 10
    ledgers = int(args[at])
    at += 1 + 2 * ledgers
    placed = int(args[at])
    texts = args[at + 2 : at + 2 + placed]
    return b"[" + b",".join(texts) + b"]" if placed else None
