"""What the worker's housekeeping samples for the metrics: each shard's stream lengths, its producers' inbox, its
open tournaments and its Redis node's memory.

Sampled every few seconds (with the pending and lag gauges), never per entry: one pipeline of ``XLEN`` per
stream and ``LLEN`` of the inbox list (worker.ingress; ``stream="inbox"``: what the workers have not yet
moved into the events stream), ``SCARD`` of the shard's ``tournaments:open`` set (the commit script keeps it:
showdown_service.worker.commit) and of its ``tournaments:lost`` set, ``HMGET`` of its ``audit:reset`` hash
(showdown_service.worker.restore), and one ``INFO memory`` per node. A sample Redis refuses (a worker user without
``+xlen``, ``+llen``, ``+scard`` or ``+info``: see deploy/redis/users.acl) is counted as
``showdown_samples_total{outcome="refused"}`` and logged once; it never stops the worker.
A connection error is raised, as any Redis error of the loop is (the worker waits and retries).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import redis
from redis.cluster import RedisCluster

from showdown_service.infra.config import ShardKeys
from showdown_service.infra.connection import Client
from showdown_service.ops.metrics import Metrics

STREAMS = ("events", "results", "audit", "dead", "standings")
"""The streams of a shard whose lengths are sampled (the ``stream`` label)."""
LISTS = ("inbox",)
"""The lists of a shard whose lengths are sampled under the same metric (``stream="inbox"``): the producers' inbox."""
_OPEN = "tournaments_open"
"""The sampled set: ``showdown_tournaments_open``."""
_LOST = "tournaments_lost"
"""The sampled set: ``showdown_tournaments_lost`` (tournaments refused ``ledger_lost`` until restored)."""
_RESET = "audit_reset"
"""The sampled hash: ``showdown_chain_restarted`` (its chain restarted after a loss, not acknowledged)."""


class Sampler:
    """Samples stream lengths and Redis memory into ``metrics``; says once when Redis refuses a sample."""

    def __init__(self, client: Client, shards: Mapping[str, ShardKeys], metrics: Metrics, log: Any) -> None:
        self.client = client
        self.shards = shards
        self.metrics = metrics
        self.log = log
        self._refused = False
        metrics.start_shards(shards)  # the per-shard counters exist (at 0) before the first sample is scraped

    def sample(self) -> None:
        """One sample of every shard (two round trips on one node; on a cluster, one more per node)."""
        pipe = self.client.pipeline(transaction=False)
        for keys in self.shards.values():
            for stream in STREAMS:
                pipe.xlen(getattr(keys, stream))
            for name in LISTS:
                pipe.llen(getattr(keys, name))
            pipe.scard(keys.tournaments_open)
            pipe.scard(keys.tournaments_lost)
            pipe.hmget(keys.audit_reset, ["restored_at", "acknowledged_at"])
        replies = pipe.execute(raise_on_error=False)
        refused: list[str] = []
        i = 0
        for keys in self.shards.values():
            for stream in (*STREAMS, *LISTS, _OPEN, _LOST, _RESET):
                reply = replies[i]
                i += 1
                if isinstance(reply, redis.ResponseError):
                    command = "XLEN" if stream in STREAMS else "LLEN" if stream in LISTS else "SCARD"
                    command = "HMGET" if stream == _RESET else command
                    refused.append(f"{command} {getattr(keys, stream)}: {reply}")
                elif isinstance(reply, Exception):
                    raise reply
                elif stream == _OPEN:
                    self.metrics.tournaments_open.labels(keys.shard).set(int(reply))
                elif stream == _LOST:
                    self.metrics.tournaments_lost.labels(keys.shard).set(int(reply))
                elif stream == _RESET:  # restored, not acknowledged
                    self.metrics.chain_restarted.labels(keys.shard).set(int(reply[0] is not None and reply[1] is None))
                else:
                    self.metrics.stream_length.labels(keys.shard, stream).set(int(reply))
        for shard, memory in self._memory(refused).items():
            self.metrics.redis_used.labels(shard).set(int(memory.get("used_memory", 0)))
            self.metrics.redis_max.labels(shard).set(int(memory.get("maxmemory", 0)))
        self.metrics.samples.labels("refused" if refused else "ok").inc()
        if refused and not self._refused:
            then = "those gauges stay unset; grant +xlen/+llen/+scard/+info"
            self.log.warning("sample_refused", refused=refused[:3], then=then)
        self._refused = bool(refused)

    def _memory(self, refused: list[str]) -> dict[str, dict[str, Any]]:
        """``INFO memory`` of the node holding each shard (one call per node)."""
        if not isinstance(self.client, RedisCluster):
            info = self._info(self.client, refused)
            return dict.fromkeys(self.shards, info) if info is not None else {}
        cluster = self.client
        by_node: dict[str, dict[str, Any] | None] = {}
        out: dict[str, dict[str, Any]] = {}
        for shard, keys in self.shards.items():
            node = cluster.get_node_from_key(keys.events)  # type: ignore[no-untyped-call]
            if node.name not in by_node:
                by_node[node.name] = self._info(cluster, refused, target_nodes=node)
            info = by_node[node.name]
            if info is not None:
                out[shard] = info
        return out

    @staticmethod
    def _info(client: Client, refused: list[str], **target: Any) -> dict[str, Any] | None:
        try:
            return client.info("memory", **target)
        except redis.ResponseError as exc:  # NOPERM: the worker user lacks +info
            refused.append(f"INFO memory: {exc}")
            return None
