"""The worker's consumer-group plumbing: the groups, this consumer's own pending entries, claims, failure counts.

Entries a worker read but did not commit stay pending for it in the group.
On start (and after an outage) it finishes its own (:meth:`recover_pending`);
every ``claim_idle_ms / 2`` it takes over those idle longer than
``claim_idle_ms`` from any consumer (:meth:`claim_stale`: a killed worker's
batch, an entry whose settling raised). A failure to settle is counted in
Redis (``failures:<entry id>``), so restarts and claims see it.

A part of the worker (:mod:`showdown_service.worker.loop`) composed over its state: what it reads or claims it hands
to the ``process`` it is given (the worker's: settle the batch, commit it now).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import cast

import redis

from showdown_service.infra.config import ShardKeys
from showdown_service.infra.streams import auto_claim, read_group
from showdown_service.worker.state import Entry, Part, WorkerState

FAILURE_COUNT_TTL_S = 7 * 86_400
"""How long (s) a ``failures:<entry id>`` count outlives its last failure.

An entry that keeps raising reaches ``max_deliveries`` within minutes (one
try per ``claim_idle_ms``); the TTL only cleans up after entries that
failed and then settled. Should it lapse, the count starts again: more
tries, never an early ``poison``.
"""


Process = Callable[[ShardKeys, Iterable[Entry], Mapping[str, int] | None], None]
"""Settle a batch and commit it now (:meth:`.loop.Worker.process`); its mapping: the failures counted so far of claimed
entries."""


class GroupPlumbing(Part):
    """Consumer groups, recovery of this consumer's pending entries, claims and failure counts."""

    def __init__(self, state: WorkerState, process: Process) -> None:
        super().__init__(state)
        self.process = process
        self.claiming = False
        """True while claiming: a batch that must wait for an earlier entry does not wait then (it is left pending and
        claimed again later, rather than hold the claim up)."""

    def prepare_groups(self) -> None:
        """Create the consumer group on every shard's stream (from the start: the backlog counts)."""
        for keys in self.state.shards.values():
            try:
                self.client.xgroup_create(keys.events, self.settings.group, id="0", mkstream=True)
            except redis.ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise

    def recover_pending(self) -> None:
        """Finish this consumer's own pending entries (a restart after a crash, or after an outage)."""
        for keys in self.state.shards.values():
            start = b"0"
            while not self.state.stopping:
                reply = read_group(
                    self.client,
                    self.settings.group,
                    self.settings.consumer,
                    {keys.events: start},
                    count=self.settings.batch_size,
                )
                rows = reply[0][1] if reply else []
                if not rows:
                    break
                self.process(keys, rows, None)
                start = rows[-1][0]

    def own_pending(self) -> dict[str, int]:
        """Per shard: how many entries are pending for this consumer (read by it, not committed); none: left out."""
        consumer = self.settings.consumer
        found: dict[str, int] = {}
        for keys in self.state.shards.values():
            summary = self.client.xpending(keys.events, self.settings.group)
            for held in summary["consumers"] if summary["pending"] else []:
                name = held["name"]
                if (name.decode() if isinstance(name, bytes) else name) == consumer and int(held["pending"]):
                    found[keys.shard] = int(held["pending"])
        return found

    def claim_stale(self) -> int:
        """Take over entries idle longer than ``claim_idle_ms`` (from any consumer, this one included)."""
        if self.claiming:
            return 0
        self.claiming = True
        try:
            return self._claim_stale()
        finally:
            self.claiming = False

    def _claim_stale(self) -> int:
        handled = 0
        for keys in self.state.shards.values():
            start: bytes = b"0-0"
            for _ in range(10):  # bounded per pass; the rest waits for the next one
                next_start, rows = auto_claim(
                    self.client,
                    keys.events,
                    group=self.settings.group,
                    consumer=self.settings.consumer,
                    min_idle_ms=self.settings.claim_idle_ms,
                    start=start,
                    count=self.settings.batch_size,
                )
                if rows:
                    self.metrics.reclaimed.labels(keys.shard).inc(len(rows))
                    self.log.info("entries_reclaimed", shard=keys.shard, count=len(rows))
                    self.process(keys, rows, self._failures_of(keys, rows))
                    handled += len(rows)
                if next_start == b"0-0":
                    break
                start = next_start
        return handled

    def count_failure(self, keys: ShardKeys, entry_id: str) -> int:
        """Add one to the times settling ``entry_id`` raised (kept in Redis, so restarts and claims see it).

        GET then SET (the commands the worker already has) rather than INCR:
        only the consumer holding a pending entry settles it, and should two
        hold it at once (a claim mid-settle) the count is low by one, which
        means one more try, never an early ``poison``.
        """
        key = keys.failures(entry_id)
        failures = int(cast(bytes | None, self.client.get(key)) or 0) + 1
        self.client.set(key, failures, ex=FAILURE_COUNT_TTL_S)
        return failures

    def count_lost(self, keys: ShardKeys, entry_ids: list[str]) -> None:
        """Add one to the failures of each entry whose commit this worker lost (another worker claimed it while
        this one planned it): an entry claimed back and forth without ever committing reaches ``poison`` at the
        ``max_deliveries``-th loss, read when it is claimed (:meth:`_failures_of`). One round trip to read, one to
        write; an entry the other worker then committed keeps a count nothing reads (it expires)."""
        failure_keys = [keys.failures(entry_id) for entry_id in entry_ids]
        pipe = self.client.pipeline(transaction=False)
        for key in failure_keys:
            pipe.get(key)
        counts = [int(cast(bytes | None, value) or 0) + 1 for value in pipe.execute()]
        pipe = self.client.pipeline(transaction=False)
        for key, count in zip(failure_keys, counts, strict=True):
            pipe.set(key, count, ex=FAILURE_COUNT_TTL_S)
        pipe.execute()
        self.log.warning("commit_lost", shard=keys.shard, entry_ids=entry_ids, failures=max(counts),
                         limit=self.settings.max_deliveries, then="claimed by another worker; counted")  # fmt: skip

    def _failures_of(self, keys: ShardKeys, rows: list[Entry]) -> dict[str, int]:
        """The failures counted so far (settling or planning raised, a commit lost) of each claimed entry that has
        any: one round trip per claim."""
        ids = [entry_id.decode() for entry_id, _ in rows]
        pipe = self.client.pipeline(transaction=False)
        for entry_id in ids:
            pipe.get(keys.failures(entry_id))
        return {entry_id: int(value) for entry_id, value in zip(ids, pipe.execute(), strict=True) if value}

    def pending(self, keys: ShardKeys, entry_id: str) -> bool:
        """Whether ``entry_id`` is still pending in the group (read by a worker, not yet committed): one XPENDING,
        where a re-plan would read every ledger of the batch again."""
        return bool(self.client.xpending_range(keys.events, self.settings.group, min=entry_id, max=entry_id, count=1))
