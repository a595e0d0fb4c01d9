"""The stream worker: read a batch, settle it, commit it atomically, repeat.

Delivery is at least once (Redis Streams consumer groups); the effect is
exactly once per entry and per hand_id within the dedupe TTL, because each
batch's outcome is committed by one Lua script that checks, before writing
anything, that its entries are still this consumer's to settle (see
:mod:`showdown_service.worker.commit`).

The loop, per iteration (its schedules read the worker's clock: :mod:`showdown_service.infra.clock`):

* every ``claim_idle_ms / 2``: take over entries idle that long from any
  consumer (a killed worker's batch, an entry whose settling raised);
* read up to ``batch_size`` new entries (blocking up to ``block_ms``);
* judge each (:func:`showdown_service.decision.settling.prepare`); one that raises
  unexpectedly is logged, its failure counted in Redis
  (``failures:<entry id>``), and left pending: it comes back via the claim,
  and the ``max_deliveries``-th failure makes it a ``poison`` dead letter;
* commit, re-planning on conflict; then one INFO line for the batch (counts by
  outcome; the audit stream is the per-entry record), a WARNING line per
  refused entry, and per-entry lines only at DEBUG;
* touch the heartbeat file; trim the events stream below its oldest pending
  entry every ``trim_interval_s``; refresh the pending/lag gauges.

``poison`` means the entry failed ``max_deliveries`` times without a
commit: settling or planning it raised, or a worker lost its commit to
another's claim (claimed back and forth, it would never settle). Only that is
counted, and the count lives in Redis, so it survives restarts and claims by
other workers. Delivery counts are not used: a commit Redis refused
re-delivers its entries without anything having gone wrong with them.

Redis errors never end the loop: it waits (exponential backoff with jitter,
capped at ``backoff_max_s``: :mod:`showdown_service.infra.backoff`), reconnects, re-reads its own pending entries
and carries on. What it waits for (``Redis refuses writes: OOM``, ...) is
logged once when the state changes (``redis_unavailable``, then
``redis_resumed``), exported as ``showdown_redis_waiting{reason}`` and
written into the heartbeat file for ``showdown health``.
:meth:`Worker.stop` (SIGTERM, SIGINT) lets the current batch finish and
commit, then :meth:`Worker.run` returns.

Why over 400 lines: the loop and its commit loop (never re-entered) are what ties the worker's parts together, each
part a composed object over the worker's state (:mod:`showdown_service.worker.state`), with the thin methods that
keep the worker's public names.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import redis

from showdown_core.tournament import Book
from showdown_core.variants import prepare_every_variant
from showdown_messages.protocol import entry_order
from showdown_messages.publish import Refusal
from showdown_service.decision.settling import Prepared
from showdown_service.infra.clock import SYSTEM_CLOCK, Clock
from showdown_service.infra.config import Settings, ShardKeys
from showdown_service.infra.connection import REDIS_ERRORS, Client
from showdown_service.ops import heartbeat
from showdown_service.ops.metrics import Metrics
from showdown_service.worker.commit import Plan, read_reply
from showdown_service.worker.groups import FAILURE_COUNT_TTL_S, GroupPlumbing
from showdown_service.worker.housekeeping import Housekeeping
from showdown_service.worker.io import IOPipeline
from showdown_service.worker.planning import Planning
from showdown_service.worker.state import FAULT_ACTIONS, ROUTINE_WAITS, Entry, WorkerState

__all__ = [
    "FAILURE_COUNT_TTL_S",
    "FAULT_ACTIONS",
    "GC_THRESHOLDS",
    "GIL_SWITCH_INTERVAL_S",
    "ROUTINE_WAITS",
    "Entry",
    "Worker",
    "WorkerNotIdle",
]

CONTENTION_WINDOW = 20
"""After a conflict, this many batches are chained on a head read fresh from Redis."""
GIL_SWITCH_INTERVAL_S = 0.0005
"""The worker process's ``sys.setswitchinterval``: how long settling may keep the I/O thread waiting.

With CPython's default (5 ms) a commit, ready to send, waited up to 5 ms
for the settling thread to yield the GIL: latency for every hand and, with
several workers on one shard, a head that other commits had moved (measured:
about 80% of commits conflicting with 2 workers; 35-50% at 0.5 ms).
"""
GC_THRESHOLDS = (10_000, 10, 10)
"""The worker process's ``gc.set_threshold``: a young-generation collection after 10,000 net container
allocations instead of CPython's 700.

Nearly all a worker allocates lives for one batch and is freed by reference
counting; only cycles need the collector, and a worker makes few. At 700 a
batch of tournament hands (each ``Prepared`` keeps its settlement until the
commit is planned) set off a collection every few dozen hands, each walking
the batch's live objects: measured 13-17 us per hand, against under 1 us per
plain hand (231 young collections against 9 for the same 11,561 hands,
``bench.tournament``'s tournament). At 10,000: one, for either.
"""
ORDER_WAIT_MIN_S = 0.002
ORDER_WAIT_MAX_S = 0.1
"""A commit waiting for an earlier tournament entry held elsewhere tries again after 2 ms, doubling up to 100 ms:
the other worker's commit usually lands within milliseconds, and a dead one's entry waits for claim_idle_ms."""
KEPT_UNOPENED = 1024
"""Tournament ids known not to be opened on a shard (their hands settle as any hand) that a worker remembers
between commits; beyond that many it forgets them all, and reads again those still named."""
MAX_REPLANS = 50
"""Re-plans of one batch before it is left to the claim (only under heavy contention on one shard)."""


class WorkerNotIdle(RuntimeError):
    """:meth:`Worker.run` with ``until_idle`` passed its bound with work left; the message says what."""

    def __init__(self, worker: Worker, steps: int, seconds: float) -> None:
        self.pending = worker.still_pending()
        super().__init__(
            f"worker {worker.settings.consumer} not idle after {steps} steps ({seconds} s): {'; '.join(self.pending)}"
        )


class Worker(WorkerState):
    """One consumer of the group, serving one or more shards: the loop, and what ties its parts together."""

    def __init__(
        self, settings: Settings, client: Client, *, metrics: Metrics | None = None, clock: Clock = SYSTEM_CLOCK
    ) -> None:
        super().__init__(settings, client, metrics=metrics, clock=clock)
        self.housekeeping = Housekeeping(self)
        """Heartbeat, trim, gauges, and the wait on Redis reported."""
        self.groups = GroupPlumbing(self, self.process)
        """The consumer groups, this consumer's pending entries, claims and failure counts."""
        self.planning = Planning(self, beat=self.housekeeping.beat, count_failure=self.groups.count_failure)
        """Entries judged, decided and packed into commits; committed batches reported."""
        self.pipeline = IOPipeline(self)
        """Reads and commits: the round trips to Redis."""
        self._rows: list[tuple[ShardKeys, list[Entry]]] = []
        """Entries read (and now pending for this consumer) but not yet settled."""
        self._io: Future[list[Any]] | None = None
        """The round trip in flight: the last batches' commits and a read of the next."""
        self._inflight: list[tuple[ShardKeys, Plan]] = []
        self._io_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="showdown-io")
        self._next_claim = 0.0
        """clock.monotonic() when the loop next claims stale entries (every ``claim_idle_ms / 2``)."""

    def prepare_groups(self) -> None:
        """Create the consumer group on every shard's stream (:meth:`.groups.GroupPlumbing.prepare_groups`)."""
        self.groups.prepare_groups()

    def recover_pending(self) -> None:
        """Finish this consumer's own pending entries (:meth:`.groups.GroupPlumbing.recover_pending`)."""
        self.groups.recover_pending()

    def own_pending(self) -> dict[str, int]:
        """Per shard: how many entries are pending for this consumer (:meth:`.groups.GroupPlumbing.own_pending`)."""
        return self.groups.own_pending()

    def claim_stale(self) -> int:
        """Take over entries idle longer than ``claim_idle_ms`` (:meth:`.groups.GroupPlumbing.claim_stale`)."""
        return self.groups.claim_stale()

    def trim(self, keys: ShardKeys) -> str | None:
        """Trim the shard's events stream below what every group (and the archiver) still needs
        (:meth:`.housekeeping.Housekeeping.trim`); the MINID used."""
        return self.housekeeping.trim(keys)

    @property
    def waiting_for(self) -> Refusal | None:
        """What the worker waits for (``Refusal('OOM', 'Redis refuses writes: OOM (...)')``), or None while it works."""
        return self.housekeeping.waiting_for

    def _round_trip(self, plans: list[tuple[ShardKeys, Plan]]) -> list[Any]:
        """(I/O thread) The round trip of ``plans``' commits and the next read (:meth:`.io.IOPipeline.round_trip`)."""
        return self.pipeline.round_trip(plans)

    def stop(self) -> None:
        """Ask :meth:`run` to return after the batch in hand is committed."""
        self._stopping.set()

    def run(self, *, until_idle: bool = False, max_steps: int = 10_000, timeout_s: float = 60.0) -> None:
        """Serve until :meth:`stop`; ride out Redis outages with bounded backoff.

        ``until_idle``: return instead once idle (:meth:`idle`, its last read of every inbox and stream empty),
        never waiting on an empty read: for tests and one-off drains. It sets up as serving does (the groups, its
        own pending entries first), not the process (no tables built ahead, no ``gc.freeze``), and stops nothing
        (the worker may step or run again). Past ``max_steps`` steps or ``timeout_s`` seconds it raises
        :class:`WorkerNotIdle`, naming what was still pending.
        """
        if until_idle:
            self.housekeeping.write_heartbeat()
            self._serve(until_idle=True, max_steps=max_steps, timeout_s=timeout_s)
            return
        started = time.perf_counter()
        prepare_every_variant()  # every game's tables now, not on the first hand of each game
        gc.collect()
        gc.freeze()  # the tables live as long as the process: the collector need never walk them again
        self.log.info(
            "worker_started",
            shards=list(self.shards),
            group=self.settings.group,
            tables_built_s=round(time.perf_counter() - started, 3),
        )
        self.housekeeping.write_heartbeat()  # alive from the start, not after a first read that may block for block_ms
        self._serve()
        try:  # finish what is in hand: the commit in flight, and rows already read (pending for us)
            self.flush()
        except REDIS_ERRORS as exc:  # they stay pending; another worker claims them after claim_idle_ms
            self.log.warning("unfinished_at_stop", error=f"{type(exc).__name__}: {exc}")
        self._io_thread.shutdown(wait=True)
        self.ingress.stop()
        heartbeat.write(self.settings.heartbeat_file, {"stopped_at": self.clock.time()})  # healthy no more, at once
        self.log.info("worker_stopped")

    def _serve(self, *, until_idle: bool = False, max_steps: int = 0, timeout_s: float = 0.0) -> None:
        """The loop of :meth:`run`: step until stopped (or, ``until_idle``, until :meth:`idle`)."""
        failures = 0
        ready = False
        steps = 0
        deadline = time.monotonic() + timeout_s  # real time: a test's clock, stopped, never makes it hang
        while not self.stopping:
            try:
                if not ready:
                    self.prepare_groups()
                    self.recover_pending()
                    ready = True
                moved = self.ingress.moved
                handled = self._step(None) if until_idle else self._step(self.settings.block_ms)
                failures = 0
                if self._io is None and not self._rows:  # idle: no write of ours awaits an answer
                    self.housekeeping.resume()
                    if until_idle and not handled and self.ingress.moved == moved and self.idle():  # moved: read again
                        return
            except REDIS_ERRORS as exc:
                failures += 1
                ready = False  # after an outage: groups may be new, our pending entries are ours to finish
                self._forget_in_hand()
                self.metrics.redis_errors.inc()
                delay = self.backoff.delay(failures)
                self.housekeeping.wait_for(exc, attempt=failures, retry_in_s=round(delay, 3))
                self._stopping.wait(delay)
                handled = 1
            if until_idle:
                steps += 1
                if steps >= max_steps or time.monotonic() > deadline:
                    raise WorkerNotIdle(self, steps, round(timeout_s - deadline + time.monotonic(), 3))
                if not handled and not self._rows:  # what is left waits for a claim: until it, not in a busy loop
                    self._stopping.wait(min(max(self._next_claim - self.clock.monotonic(), 0.001), 0.05))

    def _forget_in_hand(self) -> None:
        """After a failed round trip: drop what was in hand; it is still pending and recover_pending() redoes it."""
        if self._io is not None:
            self._io.exception()  # wait for the I/O thread to finish with it
        self._io, self._inflight, self._rows = None, [], []
        self.planning.later = []
        self._heads.clear()
        self._books.clear()
        self._vouched.clear()  # Redis may have come back behind the archive: asked again before the next commit
        self._runs.accept()  # a restarted server (a new run id) refuses this worker's connections until now
        self._restarts_seen = self._runs.restarts

    def step(self) -> int:
        """One pass of the loop (:meth:`_step`), waiting up to ``block_ms`` on an empty read."""
        return self._step(self.settings.block_ms)

    def idle(self) -> bool:
        """Nothing in hand (read, in flight, or to plan again) and no entry pending for this consumer.

        With the last read (of every inbox and stream) empty, this worker has
        nothing to do until new entries come, or a claim takes another's.
        """
        return self._io is None and not self._rows and not self.planning.later and not self.own_pending()

    def still_pending(self) -> list[str]:
        """What keeps this worker from being idle (see :meth:`idle`), in words: for :class:`WorkerNotIdle`."""
        pending = [f"{sum(len(e) for _, e in self._rows)} entries read, not settled"] if self._rows else []
        pending += ["a commit in flight"] if self._io is not None else []
        later = self.planning.later
        pending += [f"{sum(len(b) for _, b in later)} entries to plan again"] if later else []
        try:
            pending += [f"shard {shard}: {count} entries pending for {self.settings.consumer} (left to the claim, "
                        f"every claim_idle_ms / 2)" for shard, count in self.own_pending().items()]  # fmt: skip
        except REDIS_ERRORS as exc:
            pending.append(f"its pending entries unknown ({type(exc).__name__}: {exc})")
        if (waiting := self.housekeeping.waiting_for) is not None:
            pending.append(f"waiting for Redis: {waiting.reason}")
        return pending or ["nothing in hand: new entries kept coming"]

    def _step(self, block: int | None) -> int:
        """One pass of the loop; returns how many entries it settled or refused.

        Redis work and Python work overlap: while this thread settles the
        batch in hand, an I/O thread runs the previous batch's commit and a
        read of the next batch (one pipeline; Redis runs the commit first).
        Each batch is chained on the audit head once its predecessor's
        commit has answered, so nothing speculative is ever undone. A read
        behind a commit never blocks: a commit refused because another
        worker moved the shard's head must be re-planned at once, not after
        ``block_ms`` of waiting for new entries. Only an idle worker (no rows
        in hand, nothing in flight) blocks, on a read of its own. With no rows
        in hand there is nothing to overlap, so the round trip runs on this
        thread: a trickle of hands does not pay for thread hand-offs.
        """
        now = self.clock.monotonic()
        handled = 0
        if now >= self._next_claim:
            self.flush()
            handled += self.claim_stale()
            self._next_claim = now + max(self.settings.claim_idle_ms / 2000, 0.05)
        if not self._rows and self._io is None:
            self._rows = self.pipeline.read(block=block)
        rows, self._rows = self._rows, []
        planning = self.planning
        prepared = [(keys, planning.prepare(keys, entries)) for keys, entries in rows]  # overlaps the I/O in flight
        if self._io is not None:
            self._finish_io()
        plans = [(keys, planned) for keys, batch in prepared if batch and (planned := planning.plan_batch(keys, batch))]
        self._commit_later()  # what a plan that raised left, now (no commit loop runs here)
        if plans or self._rows:  # work goes on: commit, and read ahead
            self._inflight = plans
            if self._rows:  # in the background, while the rows in hand are settled
                self._io = self._io_thread.submit(self._round_trip, plans)
            else:  # nothing to overlap with (a trickle): here, sparing two thread hand-offs per batch
                self._io = Future()
                try:
                    self._io.set_result(self._round_trip(plans))
                except redis.RedisError as exc:
                    self._io.set_exception(exc)
        self.housekeeping.tick()
        return handled + sum(len(entries) for _, entries in rows)

    def flush(self) -> None:
        """Finish everything in hand: the I/O in flight, and rows read but not settled (before a claim, or a stop)."""
        if self._io is not None:
            self._finish_io()
        rows, self._rows = self._rows, []
        for keys, entries in rows:
            self.process(keys, entries)

    def process(self, keys: ShardKeys, entries: Iterable[Entry], failures: Mapping[str, int] | None = None) -> None:
        """Settle a batch and commit it now (claims, recovery, flushing); ``failures``: the failures counted so far
        of claimed entries."""
        batch = self.planning.prepare(keys, entries, counted=failures)
        if batch:
            self.process_prepared(keys, batch)

    def process_prepared(self, keys: ShardKeys, batch: list[Prepared]) -> None:
        """Plan and commit prepared entries now (and what a plan that raised left to plan again)."""
        planned = self.planning.plan_batch(keys, batch)
        if planned is not None:
            self._settle_reply(keys, planned, self.pipeline.commit_now(keys, planned))
        self._commit_later()

    def _commit_later(self) -> None:
        """Plan and commit, now, the batches a plan that raised left (:meth:`.planning.Planning.plan_batch`), in
        order: called once a commit loop has returned, so none runs inside another."""
        while self.planning.later:
            keys, batch = self.planning.later.pop(0)
            planned = self.planning.plan_batch(keys, batch)
            if planned is not None:
                self._settle_reply(keys, planned, self.pipeline.commit_now(keys, planned))

    def _finish_io(self) -> None:
        """Wait for the round trip in flight; settle its commits' replies; keep the rows it read."""
        assert self._io is not None
        future, plans = self._io, self._inflight
        self._io, self._inflight = None, []
        commits, read = self.pipeline.answers(plans, future.result())  # a connection failure raises here, into run()
        for (keys, planned), answer in zip(plans, commits, strict=True):
            if isinstance(answer, redis.exceptions.NoScriptError):  # a restart without persistence, a promoted replica
                answer = self.pipeline.commit_now(keys, planned)  # noqa: PLW2901 - loads it
            elif isinstance(answer, Exception):
                raise answer
            self._settle_reply(keys, planned, answer)
        self._commit_later()  # what a plan that raised left while settling them, now that no commit loop runs
        self._rows += self.pipeline.rows_of_each(read)  # after any rows in hand

    def _settle_reply(self, keys: ShardKeys, planned: Plan, reply: Any) -> None:
        """Report a commit that went through; re-plan (synchronously) while Redis says state moved.

        One loop, never re-entered: each turn reads the last commit's reply,
        then reports it or plans the next commit. A batch whose tournament
        entries would overtake an earlier entry still pending outside it
        (``blocked``) commits what comes before that entry first, then waits
        for the rest's turn: the other worker's commit. While claiming, when
        stopping, or once the wait passes ``claim_idle_ms`` (the entry may
        belong to a worker that died), the rest is left pending and the next
        claim, brought forward, takes the blocking entry and the rest
        together, in stream order.
        """
        seen: dict[str, str | None] = {}
        replans = 0
        held: list[Prepared] = []
        """Entries that wait for an earlier entry held elsewhere (``blocker``): committed after what is planned."""
        blocker = ""
        waited_since: float | None = None
        while True:
            conflict = read_reply(reply, planned)
            if conflict is None:
                self._committed(keys, planned)
                if not held:
                    return
                batch, held = held, []
            elif conflict.blocked:
                blocker = min(conflict.blocked, key=entry_order)
                first = entry_order(blocker)
                free: list[Prepared] = []
                waiting: list[Prepared] = []
                for d in planned.decisions:  # ordered: an entry of a tournament (the script checks the last one's id)
                    p = d.prepared
                    (free if p.tournament_id is None or entry_order(p.entry_id) < first else waiting).append(p)
                held = waiting + held
                if free:  # what no tournament orders, and what precedes the blocking entry, may go now
                    planned_free = self.planning.plan_batch(keys, free)  # None: it raised, and waits in planning.later
                    if planned_free is not None:
                        planned = planned_free
                        reply = self.pipeline.commit_now(keys, planned)
                        continue
                batch, held = held, []
            else:
                self.metrics.conflicts.labels(keys.shard).inc()
                self._heads.pop(keys.shard, None)
                self._contended[keys.shard] = CONTENTION_WINDOW
                seen.update(conflict.seen)
                batch = [d.prepared for d in planned.decisions if d.prepared.entry_id not in conflict.gone]
                if conflict.gone:  # claimed by another worker (or committed by it): a lost commit counts
                    self.log.info("entries_gone", shard=keys.shard, entry_ids=sorted(conflict.gone))
                    self.groups.count_lost(keys, sorted(conflict.gone))
                if batch:
                    if replans == MAX_REPLANS:  # left pending: the claim retries them later
                        self.log.warning("commit_gave_up", shard=keys.shard, entries=len(batch) + len(held),
                                         replans=replans)  # fmt: skip
                        return
                    planned = self.planning.plan_at(keys, batch, seen, conflict.head)
                    reply = self.pipeline.commit_now(keys, planned)
                    replans += 1
                    continue
                if not held:
                    return
                batch, held = held, []
            if blocker:  # the batch waits for the blocking entry's commit
                if waited_since is None:
                    waited_since = self.clock.monotonic()
                    self.log.info("commit_waits_for_order", shard=keys.shard, entries=len(batch),
                                  blocked_by=blocker, claiming=self.groups.claiming)  # fmt: skip
                if not self._turn_came(keys, blocker, len(batch), waited_since):
                    return
                blocker = ""
            self._heads.pop(keys.shard, None)
            self._contended[keys.shard] = CONTENTION_WINDOW
            planned = self.planning.plan_at(keys, batch, seen, self.planning.head(keys))
            reply = self.pipeline.commit_now(keys, planned)

    def _turn_came(self, keys: ShardKeys, blocker: str, entries: int, waited_since: float) -> bool:
        """Wait until ``blocker`` (an earlier entry pending elsewhere) is committed: True once it is; False when
        the ``entries`` waiting for it are left pending (claiming, stopping, or waited past ``claim_idle_ms``)."""
        if self.groups.claiming or self.stopping:  # left pending: claimed (or recovered) again later
            return False
        pause = ORDER_WAIT_MIN_S
        while not self.stopping:  # re-plan (reading the ledgers again) only once the blocking entry is done
            self._stopping.wait(pause)
            pause = min(ORDER_WAIT_MAX_S, pause * 2)
            if self.clock.monotonic() - waited_since > self.settings.claim_idle_ms / 1000:
                self.log.info("commit_left_to_claim", shard=keys.shard, entries=entries, blocked_by=blocker)
                self._next_claim = 0.0  # the next step claims the blocking entry (a dead worker's) and these
                return False
            if not self.groups.pending(keys, blocker):
                return True
        return False

    def _committed(self, keys: ShardKeys, planned: Plan) -> None:
        """A commit went through: chain the next on its head, hold its ledgers, end any wait, report it."""
        self._heads[keys.shard] = planned.head
        self._top[keys.shard] = planned.head.seq
        if planned.book is not None:  # the ledgers as this commit left them (less those not worth holding)
            for tournament_id in planned.lost:  # read again each time until restored (the restore moves no head)
                planned.book.ledgers.pop(tournament_id, None)
            self._books[keys.shard] = (planned.head, _kept(planned.book))
        self.housekeeping.resume()  # a commit went through: Redis takes writes
        self.planning.report(keys, planned)


def _kept(book: Book) -> Book:
    """``book`` without the ledgers a worker need not hold between commits: a finished tournament's (read again,
    should a late entry name it) and, beyond :data:`KEPT_UNOPENED`, the ids known not to be opened. Without this
    a long-running worker would hold every tournament its shard ever saw."""
    ledgers = book.ledgers
    unopened = [tid for tid, ledger in ledgers.items() if ledger is None]
    for tid in [tid for tid, ledger in ledgers.items() if ledger is not None and ledger.over]:
        del ledgers[tid]
    if len(unopened) > KEPT_UNOPENED:
        for tid in unopened:
            del ledgers[tid]
    return book
