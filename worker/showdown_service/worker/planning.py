"""The worker's planning: entries judged (:func:`~..decision.settling.prepare`), decided and packed into a
commit (:func:`~showdown_service.worker.commit.plan`) on the right chain head and ledgers, and reported once committed.

A part of the worker (:mod:`showdown_service.worker.loop`) composed over its state: the loop commits what it plans.

Why over 400 lines: the one place a batch goes from entries to a commit (the restore after a loss, the claims, the
rake schedules, the broken-ledger retry), one part of the worker.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from typing import Any, cast

import redis

from showdown_core.tournament import Book
from showdown_messages.protocol import entry_ms, entry_order
from showdown_messages.publish import refusal
from showdown_service.decision.audit import Head
from showdown_service.decision.decide import refuse_broken, utc_text
from showdown_service.decision.routing import Router
from showdown_service.decision.settling import Prepared, prepare
from showdown_service.infra.config import ShardKeys
from showdown_service.infra.connection import REDIS_ERRORS
from showdown_service.ops.metrics import observe_many
from showdown_service.worker.commit import LedgerInvariant, Plan, plan
from showdown_service.worker.funds import load_reply as fund_reply
from showdown_service.worker.ledger import load_reply
from showdown_service.worker.restore import Behind, leave_if_behind, restore_after_loss, restore_registry
from showdown_service.worker.state import Entry, Part, WorkerState


def _deals(batch: list[Prepared]) -> bool:
    """The batch holds a tournament's ``deal``: the one entry whose decision may take seconds (an ICM deal of up
    to ``MAX_ICM_DEAL_ENTRIES`` entries: a Monte Carlo over 10 stacks)."""
    messages = [m for p in batch if (m := p.tournament_message) is not None]  # none in a batch of cash hands
    return any(getattr(m, "type", None) == "deal" for m in messages)


class Planning(Part):
    """Judge, decide and pack batches; report committed ones."""

    def __init__(
        self, state: WorkerState, *, beat: Callable[[], None], count_failure: Callable[[ShardKeys, str], int]
    ) -> None:
        """``beat``: touch the heartbeat (while a deal is planned); ``count_failure``: count a failure to settle an
        entry in Redis (:meth:`.groups.GroupPlumbing.count_failure`)."""
        super().__init__(state)
        self.beat = beat
        self.count_failure = count_failure
        self._router = Router(state.client, state.settings.key_prefix)
        """Which shard holds each tournament: what names one held elsewhere is refused (wrong_shard)."""
        self._behind: dict[str, Behind] = {}
        """Per shard: a chain left because Redis came back behind the archive, until the restore records it."""
        self.later: list[tuple[ShardKeys, list[Prepared]]] = []
        """Batches a plan that raised left to be planned again (one entry at a time, or as poison): committed by the
        outermost caller once its commit loop has returned, never inside it (:meth:`.loop.Worker.commit_later`)."""
        self._per_entry_lines = state.settings.log_level == "debug"
        """One line per entry (DEBUG); at INFO a line per batch, and the audit stream has every entry."""

    @contextmanager
    def _kept_alive(self, keys: ShardKeys, batch: list[Prepared]) -> Iterator[None]:
        """While a batch with a deal is planned: every ``claim_idle_ms / 3`` the heartbeat is touched (``showdown
        health`` sees a worker at work, not a stale one) and the batch's entries still pending for this consumer
        are claimed again by it (``XCLAIM ... JUSTID``: their idle time starts again, no delivery counted), so no
        other worker claims them back from a worker that is busy planning them. Any other batch: nothing (its
        plan takes milliseconds)."""
        if not _deals(batch):
            yield
            return
        done = threading.Event()
        ids = [p.entry_id for p in batch]
        every = max(self.settings.claim_idle_ms / 3000, 0.01)

        def keep() -> None:
            while not done.wait(every):
                self.beat()
                try:
                    self._keep_pending(keys, ids)
                except REDIS_ERRORS as exc:  # the commit meets the same Redis; planning goes on
                    self.log.warning("keepalive_failed", shard=keys.shard, error=f"{type(exc).__name__}: {exc}")

        thread = threading.Thread(target=keep, name="showdown-keepalive", daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()

    def _keep_pending(self, keys: ShardKeys, ids: list[str]) -> None:
        """Claim ``ids`` again for this consumer where they are still pending for it (idle time from now)."""
        settings = self.settings
        low, high = min(ids, key=entry_order), max(ids, key=entry_order)
        wanted = set(ids)
        rows = cast(list[dict[str, bytes]], self.client.xpending_range(
            keys.events, settings.group, min=low, max=high, count=max(1000, 2 * len(ids)),
            consumername=settings.consumer))  # fmt: skip
        mine = [r["message_id"] for r in rows if _text(r["message_id"]) in wanted]
        if mine:
            self.client.xclaim(keys.events, settings.group, settings.consumer, 0, cast(Any, mine), justid=True)

    def _restore_after_loss(self, keys: ShardKeys) -> bool:
        """At an empty chain head: restore what Redis lost from the archive, once (:mod:`.restore`);
        True if it restored anything now. Raises :class:`~showdown_service.worker.restore.ArchiveUnreadable` (the loop
        waits) while the archive cannot be read."""
        behind = self._behind.get(keys.shard)
        restored = restore_after_loss(self.client, self.settings, keys, behind=behind)
        self._behind.pop(keys.shard, None)
        if restored is None:
            return False
        chain = restored.chain
        self.log.error(
            "chain_restarted",
            shard=keys.shard,
            archived_epoch=chain.epoch,
            archived_seq=chain.last_seq,
            redis_seq=behind.redis_seq if behind is not None else None,
            dedupe_restored=restored.hands,
            tournaments_lost=list(restored.tournaments),
            then="dedupe restored from the archive; the lost tournaments are refused (ledger_lost) until "
            "`showdown tournament restore ID`",
        )
        return True

    def _vouch(self, keys: ShardKeys, head: Head) -> Head:
        """The head to plan on once the archive says Redis's chain is not behind it: ``head``; or the empty head of
        a new epoch, the chain Redis came back with behind the archive left (:func:`.restore.leave_if_behind`)."""
        head, behind = leave_if_behind(self.client, self.settings, keys, head)
        if behind is None:
            if head.seq > 0:
                self.state._vouched.add(keys.shard)
            return head
        self._behind[keys.shard] = behind
        self.state._heads.pop(keys.shard, None)
        self.state._books.pop(keys.shard, None)
        self.log.error("chain_behind_archive", shard=keys.shard, epoch=behind.epoch, redis_seq=behind.redis_seq,
                       archived_seq=behind.archived_seq, file=behind.file, then="the old chain left Redis "
                       "(archived); a new epoch begins after the restore from the archive")  # fmt: skip
        return head

    def _check_chain(self, keys: ShardKeys) -> None:
        """Once after the worker starts and after each Redis error, before the shard's next batch is routed and
        claimed: a chain Redis holds behind the archive is left for a new epoch (:meth:`_vouch`), and an empty one
        is restored from the archive (the dedupe, the cross-shard claims, the lost tournaments)."""
        self._check_registry()
        head = Head.decode(self.client.get(keys.audit_head))
        if head.seq > 0:
            head = self._vouch(keys, head)
        if head.seq == 0:
            self._restore_after_loss(keys)
            self.state._vouched.add(keys.shard)

    def _check_registry(self) -> None:
        """The registry lost its data (its marker is gone: on Redis Cluster, its node restarted empty while the
        shards' kept theirs): every claim and tournament put back from the archive before a hand is claimed
        (:func:`.restore.restore_registry`)."""
        restored = restore_registry(self.client, self.settings)
        if restored is not None and (restored.claims or restored.tournaments or restored.jackpots):
            self.log.error("registry_restored", claims=restored.claims, tournaments=restored.tournaments,
                           jackpots=restored.jackpots, then="the registry had lost its data: its claims, tournaments "
                           "and jackpot funds' shards put back from the archive before a hand is claimed")  # fmt: skip

    def prepare(
        self, keys: ShardKeys, entries: Iterable[Entry], counted: Mapping[str, int] | None = None
    ) -> list[Prepared]:
        """Judge each entry, in stream order.

        One whose settling raises (a bug, not bad input) has the failure
        counted in Redis and is left pending (the claim retries it); at the
        ``max_deliveries``-th failure it is ``poison`` instead. Should Redis
        refuse the count, the entry stays pending, uncounted (one more try
        later, never an early poison), and the rest of the batch goes on.
        ``counted``: what claimed entries have counted already (a raise, or a
        commit lost to another worker's claim); one counted ``max_deliveries``
        times is ``poison`` without being settled again.
        """
        settings = self.settings
        started = time.perf_counter()
        now = datetime.now(UTC)
        batch: list[Prepared] = []
        judge = partial(prepare, failures=0, max_deliveries=settings.max_deliveries,
                        max_payload_bytes=settings.max_payload_bytes, now=now, started=started,
                        schedules=self.state.rake_schedules)  # fmt: skip
        known = counted or {}
        for entry_id, fields in entries:
            eid = entry_id.decode()
            if known.get(eid, 0) >= settings.max_deliveries:  # claimed back once too often: never committed
                batch.append(self._given_up(keys, judge(eid, fields, failures=known[eid]), known[eid]))
                continue
            try:  # 0 failures known: the count is read only when settling raises, never on the hot path
                batch.append(judge(eid, fields))
            except Exception as exc:
                self.metrics.failures.labels(keys.shard).inc()
                context = {"shard": keys.shard, "entry_id": eid, "exc_info": exc}
                try:
                    failures = self.count_failure(keys, eid)
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
        if batch and keys.shard not in self.state._vouched:  # before any claim: a restore puts lost claims back first
            self._check_chain(keys)
        routed = self._router.route(keys.shard, keys.tournament, batch)
        return self._router.claim_hands(keys.shard, routed, settings.dedupe_ttl_s)  # one shard a hand, across shards

    def _given_up(self, keys: ShardKeys, poison: Prepared, failures: int) -> Prepared:
        """A claimed entry that failed ``failures`` times without a commit, as its ``poison`` dead letter."""
        limit = self.settings.max_deliveries
        self.log.error("entry_failed", shard=keys.shard, entry_id=poison.entry_id, failures=failures, limit=limit,
                       then="dead-lettered as poison")  # fmt: skip
        reason = (
            f"it failed {failures} times without a commit (limit {limit}, SHOWDOWN_MAX_DELIVERIES): settling or "
            f"planning it raised, or a worker lost its commit to another's claim; see the worker's entry_failed "
            f"and commit_lost lines for entry {poison.entry_id}"
        )
        return replace(poison, message=reason)

    def plan_batch(self, keys: ShardKeys, batch: list[Prepared]) -> Plan | None:
        """The batch's plan; ``None`` when planning raised (see :meth:`_unplannable`: what is left of it waits in
        :attr:`later`, for :meth:`.loop.Worker._commit_later`)."""
        try:
            planned = self.plan_at(keys, batch, {}, self.head(keys))  # optimistic: hands are new until Redis says no
        except REDIS_ERRORS:  # Redis refused a read (the head, a ledger; a cluster failover): the loop's wait
            raise
        except Exception as exc:  # a bug, not bad input (refused while preparing): counted as settling's are
            self.later[:0] = [(keys, again) for again in self._unplannable(keys, batch, exc)]  # first: stream order
            return None
        self.state._heads[keys.shard] = planned.head  # the next batch chains on; a conflict resets it
        return planned

    def _unplannable(self, keys: ShardKeys, batch: list[Prepared], exc: Exception) -> list[list[Prepared]]:
        """Planning ``batch`` raised: a bug (an exception while settling is one too, :meth:`prepare`); returns the
        batches to plan again.

        Which entry it was is known only in a batch of one, so a longer
        batch is planned and committed again one entry at a time. A single
        entry has the failure counted as settling's are: left pending (the
        claim retries it), and at the ``max_deliveries``-th failure
        dead-lettered ``poison``, without being planned again. Never a
        worker that exits on every delivery of the batch, valid entries and
        all.
        """
        self.state._heads.pop(keys.shard, None)  # the plan may have half changed the head and ledgers: read them again
        self.state._books.pop(keys.shard, None)
        if len(batch) > 1:
            self.log.error("batch_unplannable", shard=keys.shard, entries=len(batch), error=repr(exc),
                           then="planned one entry at a time")  # fmt: skip
            return [[p] for p in batch]
        (p,) = batch
        if p.code is not None:  # a refusal touches no ledger: planning itself is broken, and nothing else would do
            raise exc
        settings = self.settings
        self.metrics.failures.labels(keys.shard).inc()
        context = {"shard": keys.shard, "entry_id": p.entry_id, "stage": "planning", "exc_info": exc}
        try:
            failures = self.count_failure(keys, p.entry_id)
        except redis.RedisError as refused:  # left pending, uncounted: one more try later, never an early poison
            self.log.error("entry_failed", failures=None, then=f"left pending, not counted: {refused}", **context)
            return []
        poison = failures >= settings.max_deliveries
        then = "dead-lettered as poison" if poison else "left pending, retried after claim_idle_ms"
        self.log.error("entry_failed", failures=failures, limit=settings.max_deliveries, then=then, **context)
        if not poison:
            return []
        reason = (  # no tournament: its ledger is not read for a dead letter
            f"planning it raised {failures} times (limit {settings.max_deliveries}, SHOWDOWN_MAX_DELIVERIES): a "
            f"bug, see the worker's entry_failed lines for entry {p.entry_id}"
        )
        dead = replace(p, code="poison", message=reason, result=None, result_sha256=None, tournament_id=None,
                       settlement=None, tournament_message=None)  # fmt: skip
        return [[dead]]

    def _book(self, keys: ShardKeys, batch: list[Prepared], head: Head) -> tuple[Book | None, Head, frozenset[str]]:
        """The ledgers of ``batch``'s tournaments exact at the head the batch chains on, and that head.

        The worker's own book serves while it is exact at ``head``: the
        tournaments it does not hold yet are read with the head, atomically
        (one script), and join it while Redis's head is still ``head``.
        Otherwise every ledger wanted is read with the head, and the batch
        chains on the head read. ``None`` when the batch has no tournament
        entry. Then the tournaments (of those read) whose ledgers Redis lost:
        never held (:meth:`.loop.Worker._committed`), so read again until restored.
        """
        wanted = {p.tournament_id for p in batch if p.tournament_id is not None}
        if not wanted:
            return None, head, frozenset()
        held = self.state._books.pop(keys.shard, None)  # planning changes it in place: back only once committed
        if held is not None and held[0] == head:
            book = held[1]
            missing = sorted(wanted - book.ledgers.keys())
            if not missing:
                return book, head, frozenset()
            raw_head, ledgers, lost = load_reply(missing, self._load_ledgers(keys, missing))
            if Head.decode(raw_head) == head:  # nothing committed since: the held ledgers are still exact
                book.ledgers.update(ledgers)
                return book, head, lost
        ids = sorted(wanted)
        raw_head, ledgers, lost = load_reply(ids, self._load_ledgers(keys, ids))
        return Book(ledgers, in_place=True), Head.decode(raw_head), lost

    def _load_ledgers(self, keys: ShardKeys, tournament_ids: list[str]) -> Any:
        """:data:`LOAD_LUA` for ``tournament_ids``: keys the audit head, the lost set, then each tournament's hash."""
        return self.state._load_script(
            keys=[keys.audit_head, keys.tournaments_lost, *[keys.tournament(t) for t in tournament_ids]],
            args=tournament_ids,
        )

    def head(self, keys: ShardKeys) -> Head:
        """The head to chain the next batch on.

        Alone on a shard, the head this worker last wrote is the head. While
        other workers commit to the same shard (a conflict within the last
        CONTENTION_WINDOW commits), the cached head is usually stale by the
        time a batch is settled, so it is read fresh: one round trip instead
        of a failed commit and a re-plan.
        """
        state = self.state
        head = state._heads.get(keys.shard)
        if head is None or state._contended.get(keys.shard, 0) > 0:
            state._contended[keys.shard] = max(0, state._contended.get(keys.shard, 0) - 1)
            return Head.decode(self.client.get(keys.audit_head))
        return head

    def plan_at(self, keys: ShardKeys, batch: list[Prepared], seen: dict[str, str | None], head: Head) -> Plan:
        """``batch``'s commit, chained on ``head`` (``seen``: the dedupe outcomes a conflict reported)."""
        settings = self.settings
        state = self.state
        if state._runs.restarts != state._restarts_seen:  # a worker sharing this client took note of a restart
            state._restarts_seen = state._runs.restarts
            state._vouched.clear()
        if head.seq < state._top.get(keys.shard, 0):  # the head went backwards: Redis lost writes
            state._vouched.discard(keys.shard)
            state._top.pop(keys.shard, None)
        if head.seq > 0 and keys.shard not in state._vouched:  # never extend a chain the archive has passed
            head = self._vouch(keys, head)
        if head.seq == 0:  # the chain's start: a Redis that lost its data is restored from the archive first
            state._vouched.add(keys.shard)  # a new epoch: no archive can be past it
            self._restore_after_loss(keys)
        book, head, lost = self._book(keys, batch, head)
        if head.seq == 0 and self._restore_after_loss(keys):  # restored just now: the lost set moved, read again
            book, head, lost = self._book(keys, batch, head)
        jackpots = sorted({p.jackpot_id for p in batch if p.jackpot_id is not None})
        funds = None
        while jackpots:  # the funds at the head the ledgers are at (read with it: one script)
            reply = state._fund_script(keys=[keys.audit_head, *map(keys.jackpot, jackpots)])
            raw_head, funds = fund_reply(jackpots, reply)
            if (read := Head.decode(raw_head)) == head:
                break
            book, head, lost = self._book(keys, batch, read)  # a commit landed since: the ledgers at the new head
        at = utc_text(batch[0].settled_at or datetime.now(UTC))  # the batch's clock, as its results have it
        while True:
            try:
                with self._kept_alive(keys, batch):
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
                        if state._archived.get(keys.shard)
                        else (settings.results_maxlen, settings.audit_maxlen, settings.dead_maxlen),
                        dead_raw_max_bytes=settings.dead_raw_max_bytes,
                        book=book,
                        lost=lost,
                        funds=funds,
                    )
            except LedgerInvariant as broken:  # a bug: that entry is refused, the rest planned again
                self.log.critical("ledger_invariant", shard=keys.shard, entry_id=broken.entry_id, error=broken.reason)
                book, head, lost = self._book(keys, batch, head)  # the ledgers it left half changed are read again
                batch = refuse_broken(batch, broken)

    def report(self, keys: ShardKeys, planned: Plan) -> None:
        """One INFO line for the batch (counts by outcome; the audit stream is the per-entry record), one line
        per refused entry (WARNING; CRITICAL for a broken invariant), per-entry lines at DEBUG only; metrics."""
        done = time.perf_counter()
        wall_ms = time.time() * 1000
        decisions = planned.decisions
        outcomes = Counter([d.outcome for d in decisions])
        for outcome, count in outcomes.items():
            self.metrics.entries.labels(keys.shard, outcome).inc(count)
        self.metrics.count(keys.shard, decisions, outcomes, tournaments=planned.book is not None)  # dead letters, ...
        if planned.funds:  # drops and payouts, by program
            self.metrics.count_jackpots(keys.shard, decisions)
        self.metrics.batch.observe(len(decisions))
        observe_many(  # from each event's XADD (its entry id's milliseconds) to now
            self.metrics.latency.labels(keys.shard),
            [max(0.0, wall_ms - entry_ms(d.prepared.entry_id)) / 1000 for d in decisions],
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


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
