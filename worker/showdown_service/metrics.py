"""Prometheus metrics of a worker process (``/metrics`` on ``SHOWDOWN_METRICS_PORT``)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

BATCH_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


def observe_many(histogram: Histogram, amounts: Iterable[float]) -> None:
    """``histogram.observe(a)`` for each of ``amounts`` (a labelled child), each bucket and the sum counted once
    per call: a batch's latencies cost one lock a bucket, not two per entry. Falls back to ``observe`` if the
    client library's layout is not the one this relies on (a test compares the two)."""
    bounds = getattr(histogram, "_upper_bounds", None)
    buckets = getattr(histogram, "_buckets", None)
    total = getattr(histogram, "_sum", None)
    if bounds is None or buckets is None or total is None:
        for amount in amounts:
            histogram.observe(amount)
        return
    counts = [0] * len(bounds)
    added = 0.0
    for amount in amounts:
        added += amount
        counts[bisect_left(bounds, amount)] += 1  # the first bound >= amount, as observe() finds it
    total.inc(added)
    for bucket, count in zip(buckets, counts, strict=True):
        if count:
            bucket.inc(count)


class Metrics:
    """The worker's metrics, on their own registry (so tests and several workers do not collide)."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = r = registry or CollectorRegistry()
        shard = ["shard"]
        self.entries = Counter(
            "showdown_entries", "Stream entries handled, by outcome", [*shard, "outcome"], registry=r
        )
        self.latency = Histogram(
            "showdown_settle_latency_seconds",
            "From the event's XADD (its entry id) to the commit of its outcome",
            shard,
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.batch = Histogram(
            "showdown_batch_entries", "Entries per committed batch", buckets=BATCH_BUCKETS, registry=r
        )
        self.pending = Gauge("showdown_pending_entries", "Delivered, not yet acked (whole group)", shard, registry=r)
        self.lag = Gauge("showdown_group_lag_entries", "Not yet delivered to the group", shard, registry=r)
        self.reclaimed = Counter("showdown_reclaimed_entries", "Taken over from idle consumers", shard, registry=r)
        self.conflicts = Counter("showdown_commit_conflicts", "Commits re-planned: state moved", shard, registry=r)
        self.failures = Counter(
            "showdown_entry_failures",
            "Times settling an entry raised unexpectedly (a bug: left pending, poison after SHOWDOWN_MAX_DELIVERIES)",
            shard,
            registry=r,
        )
        self.unreplicated = Counter(
            "showdown_commits_unreplicated",
            "Commits that SHOWDOWN_WAIT_REPLICAS replicas had not acknowledged within SHOWDOWN_WAIT_TIMEOUT_MS "
            "(committed on the master all the same: a failover now could undo them, and they would be settled again)",
            shard,
            registry=r,
        )
        self.redis_errors = Counter("showdown_redis_errors", "Failed Redis round trips (outages, timeouts)", registry=r)
        self.waiting = Gauge(
            "showdown_redis_waiting",
            "1 while the worker waits for Redis, by reason (OOM, READONLY, NOREPLICAS, BUSY, UNREACHABLE, ...): "
            "its entries stay pending, none becomes poison, and it resumes by itself",
            ["reason"],
            registry=r,
        )

    def serve(self, port: int) -> None:
        """Expose ``/metrics`` on ``port`` (all interfaces: the pod or container network)."""
        start_http_server(port, registry=self.registry)
