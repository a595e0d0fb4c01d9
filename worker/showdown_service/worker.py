"""The stream worker: read a batch, settle it, commit it atomically, repeat.

Delivery is at least once (Redis Streams consumer groups); the effect is
exactly once per entry and per hand_id within the dedupe TTL, because each
batch's outcome is committed by one Lua script that checks, before writing
anything, that its entries are still this consumer's to settle (see
:mod:`showdown_service.commit`).

The loop, per iteration:

* every ``claim_idle_ms / 2``: take over entries idle that long from any
  consumer (a killed worker's batch, an entry whose settling raised);
* read up to ``batch_size`` new entries (blocking up to ``block_ms``);
* judge each (:func:`showdown_service.settling.prepare`); one that raises
  unexpectedly is logged, its failure counted in Redis
  (``failures:<entry id>``), and left pending: it comes back via the claim,
  and the ``max_deliveries``-th failure makes it a ``poison`` dead letter;
* commit, re-planning on conflict; then one INFO line for the batch (counts by
  outcome; the audit stream is the per-entry record), a WARNING line per
  refused entry, and per-entry lines only at DEBUG;
* touch the heartbeat file; trim the events stream below its oldest pending
  entry every ``trim_interval_s``; refresh the pending/lag gauges.

``poison`` means one thing: settling the entry raised ``max_deliveries``
times. Only that is counted, and the count lives in Redis, so it survives
restarts and claims by other workers. Delivery counts are not used: a
commit Redis refused re-delivers its entries without anything having gone
wrong with them.

Redis errors never end the loop: it waits (exponential backoff with jitter,
capped at ``backoff_max_s``), reconnects, re-reads its own pending entries
and carries on. What it waits for (``Redis refuses writes: OOM``, ...) is
logged once when the state changes (``redis_unavailable``, then
``redis_resumed``), exported as ``showdown_redis_waiting{reason}`` and
written into the heartbeat file for ``showdown health``.
:meth:`Worker.stop` (SIGTERM, SIGINT) lets the current batch finish and
commit, then :meth:`Worker.run` returns.
"""

from __future__ import annotations

import gc
import random
import threading
import time
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from typing import Any, cast

import redis
from redis.cluster import RedisCluster

from showdown_core.tournament import Book
from showdown_core.variants import prepare_every_variant
from showdown_messages.protocol import entry_order, queue_waits
from showdown_messages.publish import Refusal, refusal
from showdown_service import heartbeat
from showdown_service.audit import Head
from showdown_service.commit import COMMIT_LUA, Plan, plan, read_reply
from showdown_service.config import Settings, ShardKeys
from showdown_service.connection import REDIS_ERRORS, Client, keep_repeated_fields
from showdown_service.decide import LedgerInvariant, refuse_broken, utc_text
from showdown_service.ingress import Ingress, deleted_unread
from showdown_service.logs import get_logger
from showdown_service.metrics import Metrics, observe_many
from showdown_service.routing import Router
from showdown_service.sampling import Sampler
from showdown_service.settling import Prepared, prepare
from showdown_service.streams import Row, auto_claim, read_group
from showdown_service.tournament.store import LOAD_LUA, load_reply

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
FAILURE_COUNT_TTL_S = 7 * 86_400
"""How long (s) a ``failures:<entry id>`` count outlives its last failure.

An entry that keeps raising reaches ``max_deliveries`` within minutes (one
try per ``claim_idle_ms``); the TTL only cleans up after entries that
failed and then settled. Should it lapse, the count starts again: more
tries, never an early ``poison``.
"""
ROUTINE_WAITS = frozenset(
    {"OOM", "READONLY", "NOREPLICAS", "MISCONF", "MASTERDOWN", "BUSY", "LOADING", "UNREACHABLE", "TIMEOUT"}
    | {"CLUSTERDOWN", "TRYAGAIN", "MOVED", "ASK", "TTL"}  # Redis Cluster: a failover, a slot being migrated
)
"""Reasons to wait that are the server's state, logged as warnings; any other (NOPERM, a script error) is an error."""
FAULT_ACTIONS = {
    "WRONGTYPE": "a key of the shard holds another type than the worker writes (a stream, hash or string written by "
    "another client): find it (TYPE of the shard's showdown:{<shard>}:* keys named in the batch), rename it away; "
    "the worker then goes on",
    "NOPERM": "the worker's Redis user lacks a grant: load deploy/redis/users.acl as shipped (or as "
    "`showdown acl` writes it for your shards)",
}
"""What an operator must do about an error that does not go away by itself (any reason not in ROUTINE_WAITS)."""

Entry = Row
"""(entry id, fields or None for a deleted entry)."""


class Worker:
    """One consumer of the group, serving one or more shards."""

    def __init__(self, settings: Settings, client: Client, *, metrics: Metrics | None = None) -> None:
        self.settings = settings
        self.client = client
        keep_repeated_fields(client)  # a field given twice in an entry is refused, not read on its last value
        self.cluster = isinstance(client, RedisCluster)
        """Redis Cluster: every shard is read with a command of its own, on the node holding it."""
        self.metrics = metrics or Metrics()
        self.shards = {shard: settings.keys(shard) for shard in settings.shards}
        self._by_stream = {keys.events.encode(): keys for keys in self.shards.values()}
        self._commit_script = client.register_script(COMMIT_LUA)
        self._load_script = client.register_script(LOAD_LUA)
        self.ingress = Ingress(client, self.shards.values(), count=settings.batch_size)
        """Moves each shard's inbox (the producers' RPUSH-only list) into its events stream before each read."""
        self._deleted_seen: dict[str, str] = {}
        """Per shard: the deletion of unread entries last reported (each reported once)."""
        self._alerts: list[str] = []
        """Past faults the heartbeat keeps for `showdown health` (unread events deleted), newest last."""
        self._router = Router(client, settings.key_prefix)
        """Which shard holds each tournament: what names one held elsewhere is refused (wrong_shard)."""
        self._books: dict[str, tuple[Head, Book]] = {}
        """Per shard: the tournament ledgers this worker holds, and the chain head they are exact at (they
        change only in commits, and every commit moves the head)."""
        self._heads: dict[str, Head] = {}
        """The chain head each shard's next commit builds on (as this worker last planned or saw it)."""
        self._contended: dict[str, int] = {}
        """Per shard: commits still to plan on a freshly read head since the last conflict."""
        self._streams = dict.fromkeys((keys.events for keys in self.shards.values()), ">")
        self._rows: list[tuple[ShardKeys, list[Entry]]] = []
        """Entries read (and now pending for this consumer) but not yet settled."""
        self._io: Future[list[Any]] | None = None
        """The round trip in flight: the last batches' commits and a read of the next."""
        self._inflight: list[tuple[ShardKeys, Plan]] = []
        self._io_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="showdown-io")
        self._stopping = threading.Event()
        self._next_claim = 0.0
        self._claiming = False
        """True while claiming: a batch that must wait for an earlier entry does not wait then (no nesting)."""
        self._next_trim = 0.0
        self._archived: dict[str, bool] = {}
        """Per shard: an archiver keeps it (the streams are trimmed by the archiver, once archived, not by MAXLEN)."""
        self._next_gauges = 0.0
        self._last_beat = 0.0
        self._waiting: Refusal | None = None
        """What Redis refuses (or that it does not answer) while this worker waits; None while it works."""
        self._waiting_since = 0.0
        """time.time() when the wait began."""
        self.log = get_logger(worker=settings.consumer)
        self._per_entry_lines = settings.log_level == "debug"
        """One line per entry (DEBUG); at INFO a line per batch, and the audit stream has every entry."""
        self._sampler = Sampler(client, self.shards, self.metrics, self.log)
        """Stream lengths and Redis memory, sampled with the pending and lag gauges."""

    # --- lifecycle -----------------------------------------------------------------

    def stop(self) -> None:
        """Ask :meth:`run` to return after the batch in hand is committed."""
        self._stopping.set()

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def run(self) -> None:
        """Serve until :meth:`stop`; ride out Redis outages with bounded backoff."""
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
        self._write_heartbeat()  # alive from the start, not only after a first read that may block for block_ms
        failures = 0
        ready = False
        while not self.stopping:
            try:
                if not ready:
                    self.prepare_groups()
                    self.recover_pending()
                    ready = True
                self.step()
                failures = 0
                if self._io is None and not self._rows:  # idle: no write of ours awaits an answer
                    self._resume()
            except REDIS_ERRORS as exc:
                failures += 1
                ready = False  # after an outage: groups may be new, our pending entries are ours to finish
                self._forget_in_hand()
                self.metrics.redis_errors.inc()
                delay = min(self.settings.backoff_max_s, 0.05 * 2**failures) * random.uniform(0.5, 1.0)  # noqa: S311
                self._wait_for(exc, attempt=failures, retry_in_s=round(delay, 3))
                self._stopping.wait(delay)
        try:  # finish what is in hand: the commit in flight, and rows already read (pending for us)
            self.flush()
        except REDIS_ERRORS as exc:  # they stay pending; another worker claims them after claim_idle_ms
            self.log.warning("unfinished_at_stop", error=f"{type(exc).__name__}: {exc}")
        self._io_thread.shutdown(wait=True)
        heartbeat.write(self.settings.heartbeat_file, {"stopped_at": time.time()})  # healthy no more, at once
        self.log.info("worker_stopped")

    def _wait_for(self, exc: Exception, *, attempt: int, retry_in_s: float) -> None:
        """Record a failed attempt: one log line when what the worker waits for changes, DEBUG for each retry.

        The entries in hand stay pending and nothing is counted against
        them: they are settled once Redis takes writes again.
        """
        why = refusal(exc)
        error = f"{type(exc).__name__}: {exc}"
        if why.code == "UNBLOCKED":  # a blocked read ended by a role change: the next attempt says what to wait for
            self.log.debug("redis_retry", reason=why.code, attempt=attempt, error=error, retry_in_s=retry_in_s)
            return
        if why != self._waiting:
            if self._waiting is None:
                self._waiting_since = time.time()
            else:
                self.metrics.waiting.labels(self._waiting.code).set(0)
                self.metrics.faults.labels(self._waiting.code).set(0)
            self._waiting = why
            self.metrics.waiting.labels(why.code).set(1)
            if why.code in ROUTINE_WAITS:
                self.log.warning("redis_unavailable", reason=why.code, waiting_for=why.reason, error=error,
                                 retry_in_s=retry_in_s)  # fmt: skip
            else:  # a fault: retried, but it will not go away by itself
                self.metrics.faults.labels(why.code).set(1)
                self.log.error("redis_unavailable", reason=why.code, waiting_for=why.reason, error=error,
                               retry_in_s=retry_in_s, fault=True, action=_fault_action(why.code))  # fmt: skip
            self._write_heartbeat()
        else:
            self.log.debug("redis_retry", reason=why.code, attempt=attempt, error=error, retry_in_s=retry_in_s)
            self._beat()  # waiting is working: `showdown health` reports the wait, not a stale heartbeat

    def _resume(self) -> None:
        """Redis took this worker's writes again (or it has none to make): end the wait, say so once."""
        if self._waiting is None:
            return
        why, self._waiting = self._waiting, None
        self.metrics.waiting.labels(why.code).set(0)
        self.metrics.faults.labels(why.code).set(0)
        self.log.info(
            "redis_resumed",
            reason=why.code,
            waited_for=why.reason,
            waited_s=round(time.time() - self._waiting_since, 3),
        )
        self._write_heartbeat()

    @property
    def waiting_for(self) -> Refusal | None:
        """What the worker waits for (``Refusal('OOM', 'Redis refuses writes: OOM (...)')``), or None while it works."""
        return self._waiting

    def _forget_in_hand(self) -> None:
        """After a failed round trip: drop what was in hand; it is still pending and recover_pending() redoes it."""
        if self._io is not None:
            self._io.exception()  # wait for the I/O thread to finish with it
        self._io, self._inflight, self._rows = None, [], []
        self._heads.clear()
        self._books.clear()

    def prepare_groups(self) -> None:
        """Create the consumer group on every shard's stream (from the start: the backlog counts)."""
        for keys in self.shards.values():
            try:
                self.client.xgroup_create(keys.events, self.settings.group, id="0", mkstream=True)
            except redis.ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise

    def recover_pending(self) -> None:
        """Finish this consumer's own pending entries (a restart after a crash, or after an outage)."""
        for keys in self.shards.values():
            start = b"0"
            while not self.stopping:
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
                self.process(keys, rows)
                start = rows[-1][0]

    # --- one iteration ---------------------------------------------------------------

    def step(self) -> int:
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
        now = time.monotonic()
        handled = 0
        if now >= self._next_claim:
            self.flush()
            handled += self.claim_stale()
            self._next_claim = now + max(self.settings.claim_idle_ms / 2000, 0.05)
        if not self._rows and self._io is None:
            self._rows = self._read(block=self.settings.block_ms)
        rows, self._rows = self._rows, []
        prepared = [(keys, self._prepare(keys, entries)) for keys, entries in rows]  # overlaps the I/O in flight
        if self._io is not None:
            self._finish_io()
        plans = [(keys, planned) for keys, batch in prepared if batch and (planned := self._plan_batch(keys, batch))]
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
        self._housekeeping()
        return handled + sum(len(entries) for _, entries in rows)

    def flush(self) -> None:
        """Finish everything in hand: the I/O in flight, and rows read but not settled (before a claim, or a stop)."""
        if self._io is not None:
            self._finish_io()
        rows, self._rows = self._rows, []
        for keys, entries in rows:
            self.process(keys, entries)

    def _read(self, *, block: int | None) -> list[tuple[ShardKeys, list[Entry]]]:
        """Move the inboxes and read the next batch of every shard; with nothing new, wait up to ``block`` ms for a
        push to an inbox (None: do not wait), then move and read once more (see :mod:`showdown_service.ingress`)."""
        rows = self._read_now()
        if rows or block is None:
            return rows
        self.ingress.wait(block)  # an entry XADDed to a stream directly (a requeue) is read within block_ms
        return self._read_now()

    def _read_now(self) -> list[tuple[ShardKeys, list[Entry]]]:
        pipe = self.client.pipeline(transaction=False)
        self._queue_reads(pipe)
        return self._rows_of_each(pipe.execute(raise_on_error=False))

    def _queue_reads(self, pipe: Any) -> None:
        """Add to ``pipe`` the move of every shard's inbox, then the non-blocking read of every shard's next
        entries: one XREADGROUP over them all on one node, one per shard on a cluster (each shard is a slot of its
        own, and each read goes to its node)."""
        settings = self.settings
        self.ingress.queue(pipe)
        if not self.cluster:
            read_group(pipe, settings.group, settings.consumer, self._streams, count=settings.batch_size)
            return
        for stream in self._streams:
            read_group(pipe, settings.group, settings.consumer, {stream: ">"}, count=settings.batch_size)

    def _rows_of_each(self, replies: list[Any]) -> list[tuple[ShardKeys, list[Entry]]]:
        """The rows of the replies of :meth:`_queue_reads` (the moves', then one read's, or one per shard); raises the
        first error."""
        moves, replies = replies[: self.ingress.replies], replies[self.ingress.replies :]
        self.ingress.check(moves)
        rows: list[tuple[ShardKeys, list[Entry]]] = []
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
            rows += self._rows_of(cast(list[tuple[bytes, list[Row]]], reply or []))
        return rows

    def _rows_of(self, reply: list[tuple[bytes, list[Row]]]) -> list[tuple[ShardKeys, list[Entry]]]:
        return [(self._by_stream[stream], rows) for stream, rows in reply if rows]

    def _round_trip(self, plans: list[tuple[ShardKeys, Plan]]) -> list[Any]:
        """(I/O thread) Commit ``plans`` (each on its shard's node), WAIT for replicas if asked to, then read the
        next batch without blocking, in one pipeline (in order; on a cluster, sent to every node at once)."""
        pipe = self.client.pipeline(transaction=False)
        for _keys, planned in plans:
            self._queue_commit(pipe, planned)
        self._queue_waits(pipe, [keys for keys, _ in plans])
        self._queue_reads(pipe)
        return cast(list[Any], pipe.execute(raise_on_error=False))

    def _queue_commit(self, pipe: Any, planned: Plan) -> None:
        """Add ``planned``'s commit script to ``pipe`` (by name: redis-py's cluster pipeline refuses ``evalsha``)."""
        pipe.execute_command("EVALSHA", self._commit_script.sha, len(planned.keys), *planned.keys, *planned.args)

    def _queue_waits(self, pipe: Any, committed: list[ShardKeys]) -> int:
        """Add to ``pipe`` a WAIT for ``wait_replicas`` replicas on each node ``committed`` shards were written to
        (after their commits, on the same connection: WAIT covers the writes of its own connection); how many."""
        settings = self.settings
        if not settings.wait_replicas or not committed:
            return 0
        nodes = [self._node_of(keys) for keys in committed] if self.cluster else None
        return queue_waits(pipe, settings.wait_replicas, settings.wait_timeout_ms, nodes)

    def _node_of(self, keys: ShardKeys) -> Any:
        """On a cluster: the node holding ``keys``'s shard now (as the client last learnt it; MOVED corrects it)."""
        cluster = cast(RedisCluster, self.client)
        return cluster.get_node_from_key(keys.events)  # type: ignore[no-untyped-call]

    def _check_waits(self, shards: list[ShardKeys], replies: list[Any]) -> None:
        """Count and log (WARNING) the WAITs that fewer than ``wait_replicas`` replicas answered within the timeout.

        The commits went through on the master: the entries are settled and
        acked there. Should that master fail before a replica has them, the
        promoted replica has none of it (nor their acks): they are settled
        again, once, from the events (see docs/durability.md).
        """
        wanted = self.settings.wait_replicas
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
            if int(reply) < wanted:
                for keys in shards:
                    self.metrics.unreplicated.labels(keys.shard).inc()
                self.log.warning("commit_unreplicated", shards=[k.shard for k in shards], replicas=int(reply),
                                 wanted=wanted, timeout_ms=self.settings.wait_timeout_ms)  # fmt: skip

    def _commit_now(self, keys: ShardKeys, planned: Plan) -> Any:
        """Run ``planned``'s commit now (loading the script where the node lacks it: a restart without persistence,
        a replica promoted since), WAIT for replicas if asked to; the script's reply."""
        pipe = self.client.pipeline(transaction=False)
        self._queue_commit(pipe, planned)
        waits = self._queue_waits(pipe, [keys])
        answer, *replies = pipe.execute(raise_on_error=False)
        if isinstance(answer, redis.exceptions.NoScriptError):
            answer = self._commit_script(keys=planned.keys, args=planned.args)  # loads it, then runs it
            if waits:
                return self._commit_waited(keys, answer)
        elif isinstance(answer, Exception):
            raise answer
        self._check_waits([keys], replies[:waits])
        return answer

    def _commit_waited(self, keys: ShardKeys, answer: Any) -> Any:
        """After a commit run outside a pipeline: WAIT on the node that ran it (see :meth:`_queue_waits`)."""
        pipe = self.client.pipeline(transaction=False)
        waits = self._queue_waits(pipe, [keys])
        self._check_waits([keys], pipe.execute(raise_on_error=False)[:waits])
        return answer

    def _finish_io(self) -> None:
        """Wait for the round trip in flight; settle its commits' replies; keep the rows it read."""
        assert self._io is not None
        future, plans = self._io, self._inflight
        self._io, self._inflight = None, []
        replies = future.result()  # a connection failure raises here, into run()'s backoff
        commits, replies = replies[: len(plans)], replies[len(plans) :]
        waits = len(replies) - self.ingress.replies - (len(self._streams) if self.cluster else 1)
        if waits:
            self._check_waits([keys for keys, _ in plans], replies[:waits])
        for (keys, planned), answer in zip(plans, commits, strict=True):
            if isinstance(answer, redis.exceptions.NoScriptError):  # a restart without persistence, a promoted replica
                answer = self._commit_now(keys, planned)  # noqa: PLW2901 - loads it
            elif isinstance(answer, Exception):
                raise answer
            self._settle_reply(keys, planned, answer)
        self._rows += self._rows_of_each(replies[waits:])  # after any rows in hand

    def claim_stale(self) -> int:
        """Take over entries idle longer than ``claim_idle_ms`` (from any consumer, this one included)."""
        if self._claiming:
            return 0
        self._claiming = True
        try:
            return self._claim_stale()
        finally:
            self._claiming = False

    def _claim_stale(self) -> int:
        handled = 0
        for keys in self.shards.values():
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
                    self.process(keys, rows)
                    handled += len(rows)
                if next_start == b"0-0":
                    break
                start = next_start
        return handled

    # --- settling a batch ----------------------------------------------------------------

    def process(self, keys: ShardKeys, entries: Iterable[Entry]) -> None:
        """Settle a batch and commit it now (claims, recovery, flushing)."""
        batch = self._prepare(keys, entries)
        if batch:
            self.process_prepared(keys, batch)

    def _prepare(self, keys: ShardKeys, entries: Iterable[Entry]) -> list[Prepared]:
        """Judge each entry, in stream order.

        One whose settling raises (a bug, not bad input) has the failure
        counted in Redis and is left pending (the claim retries it); at the
        ``max_deliveries``-th failure it is ``poison`` instead. Should Redis
        refuse the count, the entry stays pending, uncounted (one more try
        later, never an early poison), and the rest of the batch goes on.
        """
        settings = self.settings
        started = time.perf_counter()
        now = datetime.now(UTC)
        batch: list[Prepared] = []
        judge = partial(prepare, failures=0, max_deliveries=settings.max_deliveries,
                        max_payload_bytes=settings.max_payload_bytes, now=now, started=started)  # fmt: skip
        for entry_id, fields in entries:
            eid = entry_id.decode()
            try:  # 0 failures known: the count is read only when settling raises, never on the hot path
                batch.append(judge(eid, fields))
            except Exception as exc:
                self.metrics.failures.labels(keys.shard).inc()
                context = {"shard": keys.shard, "entry_id": eid, "exc_info": exc}
                try:
                    failures = self._count_failure(keys, eid)
                except redis.RedisError as refused:  # the rest of the batch goes on; the commit meets any refusal
                    why = refusal(refused)
                    then = f"left pending, not counted: {why.reason}: {refused}"
                    self.log.error("entry_failed", failures=None, then=then, **context)
                    continue
                poison = failures >= settings.max_deliveries
                then = "dead-lettered as poison" if poison else "left pending, retried after claim_idle_ms"
                self.log.error("entry_failed", failures=failures, limit=settings.max_deliveries, then=then, **context)
                if poison:  # judged with its count: poison, without settling it again
                    batch.append(judge(eid, fields, failures=failures))
        return self._router.route(keys.shard, keys.tournament, batch)

    def _count_failure(self, keys: ShardKeys, entry_id: str) -> int:
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

    def _plan_batch(self, keys: ShardKeys, batch: list[Prepared]) -> Plan | None:
        """The batch's plan; ``None`` when planning raised (see :meth:`_unplannable`: then it is taken care of)."""
        try:
            planned = self._plan(keys, batch, {}, self._head(keys))  # optimistic: hands are new until Redis says no
        except REDIS_ERRORS:  # Redis refused a read (the head, a ledger; a cluster failover): the loop's wait
            raise
        except Exception as exc:  # a bug, not bad input (refused while preparing): counted as settling's are
            self._unplannable(keys, batch, exc)
            return None
        self._heads[keys.shard] = planned.head  # the next batch chains on; a conflict resets it
        return planned

    def _unplannable(self, keys: ShardKeys, batch: list[Prepared], exc: Exception) -> None:
        """Planning ``batch`` raised: a bug (an exception while settling is one too, :meth:`_prepare`).

        Which entry it was is known only in a batch of one, so a longer
        batch is planned and committed again one entry at a time. A single
        entry has the failure counted as settling's are: left pending (the
        claim retries it), and at the ``max_deliveries``-th failure
        dead-lettered ``poison``, without being planned again. Never a
        worker that exits on every delivery of the batch, valid entries and
        all.
        """
        self._heads.pop(keys.shard, None)  # the plan may have half changed the head and ledgers: read them again
        self._books.pop(keys.shard, None)
        if len(batch) > 1:
            self.log.error("batch_unplannable", shard=keys.shard, entries=len(batch), error=repr(exc),
                           then="planned one entry at a time")  # fmt: skip
            for p in batch:
                self.process_prepared(keys, [p])
            return
        (p,) = batch
        if p.code is not None:  # a refusal touches no ledger: planning itself is broken, and nothing else would do
            raise exc
        settings = self.settings
        self.metrics.failures.labels(keys.shard).inc()
        context = {"shard": keys.shard, "entry_id": p.entry_id, "stage": "planning", "exc_info": exc}
        try:
            failures = self._count_failure(keys, p.entry_id)
        except redis.RedisError as refused:  # left pending, uncounted: one more try later, never an early poison
            self.log.error("entry_failed", failures=None, then=f"left pending, not counted: {refused}", **context)
            return
        poison = failures >= settings.max_deliveries
        then = "dead-lettered as poison" if poison else "left pending, retried after claim_idle_ms"
        self.log.error("entry_failed", failures=failures, limit=settings.max_deliveries, then=then, **context)
        if poison:  # no tournament: its ledger is not read for a dead letter
            reason = (
                f"planning it raised {failures} times (limit {settings.max_deliveries}, SHOWDOWN_MAX_DELIVERIES): a "
                f"bug, see the worker's entry_failed lines for entry {p.entry_id}"
            )
            dead = replace(p, code="poison", message=reason, result=None, result_sha256=None, tournament_id=None,
                           settlement=None, tournament_message=None)  # fmt: skip
            self.process_prepared(keys, [dead])

    def _book(self, keys: ShardKeys, batch: list[Prepared], head: Head) -> tuple[Book | None, Head]:
        """The ledgers of ``batch``'s tournaments exact at the head the batch chains on, and that head.

        The worker's own book serves while it is exact at ``head``: the
        tournaments it does not hold yet are read with the head, atomically
        (one script), and join it while Redis's head is still ``head``.
        Otherwise every ledger wanted is read with the head, and the batch
        chains on the head read. ``None`` when the batch has no tournament
        entry.
        """
        wanted = {p.tournament_id for p in batch if p.tournament_id is not None}
        if not wanted:
            return None, head
        held = self._books.pop(keys.shard, None)  # planning changes it in place: back only once committed
        if held is not None and held[0] == head:
            book = held[1]
            missing = sorted(wanted - book.ledgers.keys())
            if not missing:
                return book, head
            raw_head, ledgers = load_reply(missing, self._load_script(keys=self._ledger_keys(keys, missing)))
            if Head.decode(raw_head) == head:  # nothing committed since: the held ledgers are still exact
                book.ledgers.update(ledgers)
                return book, head
        ids = sorted(wanted)
        raw_head, ledgers = load_reply(ids, self._load_script(keys=self._ledger_keys(keys, ids)))
        return Book(ledgers, in_place=True), Head.decode(raw_head)

    @staticmethod
    def _ledger_keys(keys: ShardKeys, tournament_ids: list[str]) -> list[str]:
        """:data:`LOAD_LUA`'s keys: the audit head, then each tournament's hash."""
        return [keys.audit_head, *[keys.tournament(t) for t in tournament_ids]]

    def _head(self, keys: ShardKeys) -> Head:
        """The head to chain the next batch on.

        Alone on a shard, the head this worker last wrote is the head. While
        other workers commit to the same shard (a conflict within the last
        CONTENTION_WINDOW commits), the cached head is usually stale by the
        time a batch is settled, so it is read fresh: one round trip instead
        of a failed commit and a re-plan.
        """
        head = self._heads.get(keys.shard)
        if head is None or self._contended.get(keys.shard, 0) > 0:
            self._contended[keys.shard] = max(0, self._contended.get(keys.shard, 0) - 1)
            return Head.decode(self.client.get(keys.audit_head))
        return head

    def _plan(self, keys: ShardKeys, batch: list[Prepared], seen: dict[str, str | None], head: Head) -> Plan:
        settings = self.settings
        book, head = self._book(keys, batch, head)
        at = utc_text(batch[0].settled_at or datetime.now(UTC))  # the batch's clock, as its results have it
        while True:
            try:
                return plan(
                    keys,
                    batch,
                    seen,
                    head,
                    group=settings.group,
                    consumer=settings.consumer,
                    at=at,
                    dedupe_ttl_s=settings.dedupe_ttl_s,
                    maxlens=(0, 0, 0)
                    if self._archived.get(keys.shard)
                    else (settings.results_maxlen, settings.audit_maxlen, settings.dead_maxlen),
                    dead_raw_max_bytes=settings.dead_raw_max_bytes,
                    book=book,
                )
            except LedgerInvariant as broken:  # a bug: that entry is refused, the rest planned again
                self.log.critical("ledger_invariant", shard=keys.shard, entry_id=broken.entry_id, error=broken.reason)
                book, head = self._book(keys, batch, head)  # the ledgers it left half changed are read again
                batch = refuse_broken(batch, broken)

    def _settle_reply(self, keys: ShardKeys, planned: Plan, reply: Any) -> None:
        """Report a commit that went through; re-plan (synchronously) while Redis says state moved.

        A batch whose tournament entries would overtake an earlier entry still
        pending outside it (``blocked``) commits what comes before that entry,
        then waits for the rest's turn: the other worker's commit, or (once
        ``claim_idle_ms`` has passed) the claim of an entry nobody finishes.
        While claiming (nested), it does not wait: the rest stays pending and
        is claimed again later.
        """
        seen: dict[str, str | None] = {}
        replans = 0
        waited_since: float | None = None
        pause = ORDER_WAIT_MIN_S
        while (conflict := read_reply(reply, planned)) is not None:
            batch = [d.prepared for d in planned.decisions]
            if conflict.blocked:
                blocker = min(conflict.blocked, key=entry_order)
                first = entry_order(blocker)
                free: list[Prepared] = []
                held: list[Prepared] = []
                for p in batch:  # ordered: an entry of a tournament (plan() gives the script the last one's id)
                    (free if p.tournament_id is None or entry_order(p.entry_id) < first else held).append(p)
                batch = held
                if free:  # what no tournament orders, and what precedes the blocking entry, may go now
                    self.process_prepared(keys, free)
                if not batch:
                    return
                if waited_since is None:
                    waited_since = time.monotonic()
                    self.log.info("commit_waits_for_order", shard=keys.shard, entries=len(batch),
                                  blocked_by=blocker, claiming=self._claiming)  # fmt: skip
                if self._claiming or self.stopping:  # left pending: claimed (or recovered) again later
                    return
                while True:  # re-plan (reading the ledgers again) only once the blocking entry is done
                    self._stopping.wait(pause)
                    pause = min(ORDER_WAIT_MAX_S, pause * 2)
                    if time.monotonic() - waited_since > self.settings.claim_idle_ms / 1000:
                        self.claim_stale()  # the blocking entry may belong to a worker that died
                        break
                    if self.stopping:
                        return
                    if not self._pending(keys, blocker):
                        break
                self._heads.pop(keys.shard, None)
                self._contended[keys.shard] = CONTENTION_WINDOW
                planned = self._plan(keys, batch, seen, self._head(keys))
                reply = self._commit_now(keys, planned)
                continue
            self.metrics.conflicts.labels(keys.shard).inc()
            self._heads.pop(keys.shard, None)
            self._contended[keys.shard] = CONTENTION_WINDOW
            seen.update(conflict.seen)
            batch = [p for p in batch if p.entry_id not in conflict.gone]
            if conflict.gone:
                self.log.info("entries_gone", shard=keys.shard, entry_ids=sorted(conflict.gone))
                if not batch:
                    return
            if replans == MAX_REPLANS:  # left pending: the claim retries them later
                self.log.warning("commit_gave_up", shard=keys.shard, entries=len(batch), replans=replans)
                return
            planned = self._plan(keys, batch, seen, conflict.head)
            reply = self._commit_now(keys, planned)
            replans += 1
        self._heads[keys.shard] = planned.head
        if planned.book is not None:  # the ledgers as this commit left them (less those not worth holding)
            self._books[keys.shard] = (planned.head, _kept(planned.book))
        self._resume()  # a commit went through: Redis takes writes
        self._report(keys, planned)

    def _pending(self, keys: ShardKeys, entry_id: str) -> bool:
        """Whether ``entry_id`` is still pending in the group (read by a worker, not yet committed): one XPENDING,
        where a re-plan would read every ledger of the batch again."""
        return bool(self.client.xpending_range(keys.events, self.settings.group, min=entry_id, max=entry_id, count=1))

    def process_prepared(self, keys: ShardKeys, batch: list[Prepared]) -> None:
        """Plan and commit prepared entries now."""
        planned = self._plan_batch(keys, batch)
        if planned is not None:
            self._settle_reply(keys, planned, self._commit_now(keys, planned))

    def _report(self, keys: ShardKeys, planned: Plan) -> None:
        """One INFO line for the batch (counts by outcome; the audit stream is the per-entry record), one line
        per refused entry (WARNING; CRITICAL for a broken invariant), per-entry lines at DEBUG only; metrics."""
        done = time.perf_counter()
        wall_ms = time.time() * 1000
        decisions = planned.decisions
        outcomes = Counter([d.outcome for d in decisions])
        for outcome, count in outcomes.items():
            self.metrics.entries.labels(keys.shard, outcome).inc(count)
        self.metrics.count(keys.shard, decisions, outcomes, tournaments=planned.book is not None)  # dead letters, ...
        self.metrics.batch.observe(len(decisions))
        observe_many(  # from each event's XADD (its entry id's milliseconds) to now
            self.metrics.latency.labels(keys.shard),
            [max(0.0, wall_ms - int(d.prepared.entry_id.partition("-")[0])) / 1000 for d in decisions],
        )
        for d in decisions:
            if d.code is not None:
                p = d.prepared
                log = self.log.critical if d.code == "invariant_violation" else self.log.warning
                log("entry", shard=keys.shard, entry_id=p.entry_id, hand_id=p.hand_id, table_id=p.table_id,
                    outcome=d.outcome, code=d.code, message=d.message)  # fmt: skip
        if self._per_entry_lines:  # the refused ones have their line above
            for d in decisions:
                if d.code is not None:
                    continue
                p = d.prepared
                self.log.debug("entry", shard=keys.shard, entry_id=p.entry_id, hand_id=p.hand_id, table_id=p.table_id,
                               outcome=d.outcome, ms=round((done - p.started) * 1000, 3))  # fmt: skip
        self.log.info(
            "batch",
            shard=keys.shard,
            entries=len(decisions),
            **outcomes,
            first=decisions[0].prepared.entry_id,
            last=decisions[-1].prepared.entry_id,
            ms=round((done - decisions[0].prepared.started) * 1000, 3),
        )

    # --- housekeeping ------------------------------------------------------------------

    def _housekeeping(self) -> None:
        now = time.monotonic()
        if now - self._last_beat >= heartbeat.BEAT_INTERVAL_S:
            self._beat()
        if now >= self._next_trim:
            self._next_trim = now + self.settings.trim_interval_s
            for keys in self.shards.values():
                self.trim(keys)
        if now >= self._next_gauges:
            self._next_gauges = now + 5.0
            self._refresh_gauges()
            self._sampler.sample()

    def _beat(self) -> None:
        """Touch the heartbeat file that `showdown health` reads."""
        self._last_beat = time.monotonic()
        self.settings.heartbeat_file.touch()
        self.metrics.heartbeat.set_to_current_time()

    def _write_heartbeat(self) -> None:
        """Write the heartbeat file (see :mod:`showdown_service.heartbeat`): empty while working; what the worker
        waits for, as JSON, while waiting."""
        state: dict[str, Any] = {"alerts": self._alerts} if self._alerts else {}
        if self._waiting is not None:
            state |= {"waiting_for": self._waiting.reason, "reason": self._waiting.code, "since": self._waiting_since}
            if self._waiting.code not in ROUTINE_WAITS:
                state["fault"] = _fault_action(self._waiting.code)
        heartbeat.write(self.settings.heartbeat_file, state)
        self._last_beat = time.monotonic()
        self.metrics.heartbeat.set_to_current_time()

    def trim(self, keys: ShardKeys) -> str | None:
        """Trim the events stream below every group's oldest pending or unread entry; returns the MINID used.

        Never removes an entry that some group has not read, or has read but
        not acked, nor (once an archiver has registered for the shard) one it has not archived: its
        ``events_floor`` (see :mod:`showdown_service.archive.archiver`).
        """
        floor: tuple[int, int] | None = None
        for group in self.client.xinfo_groups(keys.events):
            name = group["name"]
            low = group["last-delivered-id"]
            if group["pending"]:
                oldest = self.client.xpending(keys.events, name)["min"]
                if oldest is not None:  # None: the commit in flight acked them since XINFO answered
                    low = min(low, oldest, key=entry_order)
            floor = entry_order(low) if floor is None else min(floor, entry_order(low))
        archived = cast(bytes | None, self.client.hget(keys.archive, "events_floor"))
        if keys.shard not in self._archived and archived is None:
            self.log.info("unarchived", shard=keys.shard, grows="audit, results, dead letters, standings",
                          hint="run `showdown archiver`: it archives every entry and bounds these streams")  # fmt: skip
        self._archived[keys.shard] = archived is not None
        if archived is not None and floor is not None:  # an archiver reads them: keep what it has not archived
            floor = min(floor, entry_order(archived))
        if floor is None or floor == (0, 0):
            return None
        minid = f"{floor[0]}-{floor[1]}"
        self.client.xtrim(keys.events, minid=minid, approximate=True)
        return minid

    def _watch_deleted(self, keys: ShardKeys) -> None:
        """Report (once each: ERROR line, counter, heartbeat alert) unread entries deleted from the shard's stream."""
        found = deleted_unread(self.client, keys, self.settings.group)
        if found is None or self._deleted_seen.get(keys.shard) == found[0]:
            return
        self._deleted_seen[keys.shard] = found[0]
        self.metrics.deleted_unread.labels(keys.shard).inc()
        self.log.error("events_deleted_unread", shard=keys.shard, deleted=found[0], last_delivered_id=found[1],
                       stream=keys.events)  # fmt: skip
        self._alerts = [*self._alerts[-9:], f"shard {keys.shard}: unread events were deleted from {keys.events} "
                        f"({found[0]}, above the group's last-delivered-id {found[1]}): "
                        "they are lost unless their producers send them again"]  # fmt: skip
        self._write_heartbeat()

    def _refresh_gauges(self) -> None:
        for keys in self.shards.values():
            self._watch_deleted(keys)
            for group in self.client.xinfo_groups(keys.events):
                if group["name"].decode() == self.settings.group:
                    self.metrics.pending.labels(keys.shard).set(group["pending"])
                    if group.get("lag") is not None:
                        self.metrics.lag.labels(keys.shard).set(group["lag"])


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


def _fault_action(code: str) -> str:
    return FAULT_ACTIONS.get(code, "an operator must look: see the worker's redis_unavailable error line")
