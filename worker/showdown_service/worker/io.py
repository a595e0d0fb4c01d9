"""The worker's I/O pipeline: reads, commits and WAITs, in one round trip, overlapped with settling.

While the main thread settles the batch in hand, an I/O thread runs the
previous batches' commits, a WAIT per node when replicas are asked for, and
a non-blocking read of the next batch, in one pipeline (Redis runs the commits
first). On a cluster each shard is read with a command of its own, on its node.

A part of the worker (:mod:`showdown_service.worker.loop`) composed over its state: the loop hands it the plans to
commit and settles the replies it returns (:meth:`IOPipeline.answers`).
"""

from __future__ import annotations

from typing import Any, cast

import redis
from redis.cluster import RedisCluster

from showdown_messages.protocol import queue_waits
from showdown_service.infra.config import ShardKeys
from showdown_service.infra.streams import Row, read_group
from showdown_service.worker.commit import Plan
from showdown_service.worker.ingress import IDLE_SHARD_BLOCK_MS
from showdown_service.worker.state import Entry, Part, WorkerState


class IOPipeline(Part):
    """Reads and commits: the round trips to Redis."""

    def __init__(self, state: WorkerState) -> None:
        super().__init__(state)
        self.ingress = state.ingress
        self.cluster = state.cluster
        self._by_stream = {keys.events.encode(): keys for keys in state.shards.values()}
        self._streams = dict.fromkeys((keys.events for keys in state.shards.values()), ">")
        self._idle_turn = 0
        """On a cluster, whose stream an idle worker waits on next (in turn)."""

    def read(self, *, block: int | None) -> list[tuple[ShardKeys, list[Entry]]]:
        """Move the inboxes and read the next batch of every shard; with nothing new, wait up to ``block`` ms (None:
        do not wait) for an entry on any shard's stream, XADDed there directly or moved there from an inbox by the
        ingress's watcher as it is pushed (see :mod:`.ingress`): whichever path it came by, it is read at once."""
        rows = self.read_now()
        if rows or block is None:
            return rows
        with self.ingress.watching(block):
            rows = self._read_blocking(block)
        if rows and sum(len(entries) for _, entries in rows) < self.settings.batch_size:
            rows = _merged(rows + self.read_now())  # woken by a burst's first entries: the rest is there by now
        return rows

    def _read_blocking(self, block: int) -> list[tuple[ShardKeys, list[Entry]]]:
        """The next batch, waiting up to ``block`` ms for one: one XREADGROUP over every shard's stream on one node;
        on a cluster one shard's at a time, in turn, for up to ``IDLE_SHARD_BLOCK_MS`` each (a read blocks on one
        node)."""
        settings = self.settings
        streams = self._streams
        if self.cluster and len(streams) > 1:
            stream = list(streams)[self._idle_turn % len(streams)]
            self._idle_turn += 1
            streams, block = {stream: ">"}, min(block, IDLE_SHARD_BLOCK_MS)
        reply = read_group(self.client, settings.group, settings.consumer, streams, count=settings.batch_size,
                           block=block)  # fmt: skip
        return self._rows_of(reply)

    def read_now(self) -> list[tuple[ShardKeys, list[Entry]]]:
        pipe = self.client.pipeline(transaction=False)
        self._queue_reads(pipe)
        return self.rows_of_each(pipe.execute(raise_on_error=False))

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

    def rows_of_each(self, replies: list[Any]) -> list[tuple[ShardKeys, list[Entry]]]:
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

    def round_trip(self, plans: list[tuple[ShardKeys, Plan]]) -> list[Any]:
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
        pipe.execute_command("EVALSHA", self.state._commit_script.sha, len(planned.keys), *planned.keys, *planned.args)

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

    def commit_now(self, keys: ShardKeys, planned: Plan) -> Any:
        """Run ``planned``'s commit now (loading the script where the node lacks it: a restart without persistence,
        a replica promoted since), WAIT for replicas if asked to; the script's reply."""
        pipe = self.client.pipeline(transaction=False)
        self._queue_commit(pipe, planned)
        waits = self._queue_waits(pipe, [keys])
        answer, *replies = pipe.execute(raise_on_error=False)
        if isinstance(answer, redis.exceptions.NoScriptError):
            answer = self.state._commit_script(keys=planned.keys, args=planned.args)  # loads it, then runs it
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

    def answers(self, plans: list[tuple[ShardKeys, Plan]], replies: list[Any]) -> tuple[list[Any], list[Any]]:
        """The replies of a :meth:`round_trip` of ``plans``, its WAITs checked: each plan's commit reply, and the
        replies of the read (for :meth:`rows_of_each`, once the commits are settled)."""
        commits, replies = replies[: len(plans)], replies[len(plans) :]
        waits = len(replies) - self.ingress.replies - (len(self._streams) if self.cluster else 1)
        if waits:
            self._check_waits([keys for keys, _ in plans], replies[:waits])
        return commits, replies[waits:]


def _merged(rows: list[tuple[ShardKeys, list[Entry]]]) -> list[tuple[ShardKeys, list[Entry]]]:
    """``rows`` with each shard's entries in one batch, in the order read (a blocking read's, then the next)."""
    by_shard: dict[str, tuple[ShardKeys, list[Entry]]] = {}
    for keys, entries in rows:
        by_shard.setdefault(keys.shard, (keys, []))[1].extend(entries)
    return list(by_shard.values())
