"""Re-settle one archived entry with this code: the worker's own preparation and decision, no Redis.

This is the one seam between the audit replay and the worker: :func:`prepare_row`
is :func:`showdown_service.decision.settling.prepare` fed the archived stream entry, and
:meth:`Resettler.decide` is the worker's own pure decision
(:func:`showdown_service.decision.decide.decide`) on a batch of that one entry, with an
in-memory dedupe map (by hand id, with the dedupe TTL measured on the records'
own clock) and an in-memory book of tournament ledgers, chained on the
archived record's predecessor, at the record's own ``at`` and by its own
``worker``. The worker decides every entry of a batch at the batch's ``at``, so
one entry at a time decides the same.

What re-settling takes from the archive rather than reproducing:

* ``settled_at`` of a result: the worker's clock when it settled the hand; the
  archived result's value is fed back in (so the result is reproduced byte for
  byte);
* the audit record's ``at`` and ``worker``: the batch's clock and consumer;
* ``poison``: settling raised ``SHOWDOWN_MAX_DELIVERIES`` times in the worker
  (a bug, or a fault of the moment): a record saying ``poison`` is re-decided as
  poison; its dead letter's message names the count;
* ``wrong_shard``: the holder a worker read from the registry when it refused
  the entry (the registry is not archived): taken from the refusal the chain
  recorded (a tournament another shard held, or a hand another shard took),
  and the entry routed as the worker routed it;
* ``ledger_lost``: a tournament entry refused because Redis had lost its
  ledger (a Redis restarted without its data): what Redis held is not
  archived, so the refusal the chain recorded is taken as it stands (its
  record, hashes and dead letter proven, the ledgers left as they were).

Across a chain restart (a new epoch, docs/archive.md) the replay carries the
dedupe map and the ledgers from the chain before: what the archive held when
the new chain began, as the workers restore them.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

from showdown_core.tournament import Book
from showdown_service.decision.audit import Head
from showdown_service.decision.routing import WRONG_SHARD, as_recorded
from showdown_service.decision.settling import Prepared, prepare
from showdown_service.decision.twin import Twin
from showdown_service.infra.config import Settings

LEDGER_LOST = "ledger_lost"
"""The refusal of a tournament entry whose ledger Redis lost (issue 33)."""


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
    prepared = prepare(
        str(record.get("entry_id") or row.get("entry_id")),
        entry_fields(row),
        failures=settings.max_deliveries if poison else 0,
        max_deliveries=settings.max_deliveries,
        max_payload_bytes=settings.max_payload_bytes,
        now=_at(settled_at),
        started=time.perf_counter(),
    )
    if record.get("code") == WRONG_SHARD:  # routed as the worker routed it, by the holder the chain recorded
        message = str(record.get("message") or _dead_letter(row).get("message") or "")
        prepared = as_recorded(str(row.get("shard")), prepared, message)
    return prepared


def prepare_rows(rows: list[dict[str, Any]], settings: Settings) -> list[Prepared | None]:
    """:func:`prepare_row` of each row of a file (None: its audit record cannot be read): the CPU-heavy half of
    the replay, done where the file is read (``--jobs`` processes, ``--engine dask`` workers)."""
    prepared: list[Prepared | None] = []
    for row in rows:
        try:
            record = orjson.loads(row["audit"] or "null")
        except orjson.JSONDecodeError:
            record = None
        prepared.append(prepare_row(row, record, settings) if isinstance(record, dict) else None)
    return prepared


def _dead_letter(row: dict[str, Any]) -> dict[str, Any]:
    with contextlib.suppress(orjson.JSONDecodeError, TypeError):
        letter = orjson.loads(row.get("dead_letter") or b"{}")
        if isinstance(letter, dict):
            return letter
    return {}


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
        self.twin = Twin(Book({}, in_place=True), dedupe_ttl_s=settings.dedupe_ttl_s)
        """The dedupe keys (on the records' clock: a key lapses as the worker's did), the ledgers (in place: a
        replay's ledger changes are never dropped but by a broken invariant, a bug the differences then show)."""
        self.gap_at: int | None = None
        """The first seq after which entries are missing: the ledgers are unknown from there on."""
        self.skipped = 0
        """Tournament entries not re-settled because of that gap."""

    def decide(self, prepared: Prepared, record: dict[str, Any]) -> Decided:
        """Decide ``prepared`` as the worker did (:func:`showdown_service.decision.decide.decide`), chained after
        ``record``'s predecessor, at the record's ``at``, by its ``worker``."""
        at = str(record.get("at") or "")
        if record.get("code") == LEDGER_LOST:  # the ledger Redis had lost is not archived: the chain's word
            return Decided(record, None, LEDGER_LOST, None, None)
        now = _at(at).timestamp()
        head = Head(int(record.get("seq", 1)) - 1, str(record.get("prev_hash", "")))
        decided = self.twin.decide([prepared], worker=str(record.get("worker", "")), at=at, now=now, head=head,
                                   ledgers=prepared.tournament_id is not None, remember=False)  # fmt: skip
        decision = decided.decisions[0]
        if record.get("outcome") == "settled" and record.get("hand_id") and record.get("code") is None:
            # the chain's own word (proven by its hashes) on what settled: a later re-send is judged against it
            # even if this entry's re-settlement differed, or an earlier gap in the archive hid its first send
            self.twin.remember(str(record["hand_id"]), str(record.get("event_sha256")), now)
        texts = decision.placement_texts
        return Decided(
            decision.record,
            decision.result,
            decision.code,
            decision.message,
            b"[" + b",".join(texts) + b"]" if texts else None,
        )
