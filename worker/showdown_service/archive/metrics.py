"""The archiver's Prometheus metrics (its own registry; ``/metrics`` on ``SHOWDOWN_METRICS_PORT``)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, start_http_server


class ArchiveMetrics:
    """The archiver's metrics (its own registry)."""

    def __init__(self) -> None:
        self.registry = r = CollectorRegistry()
        shard = ["shard"]
        self.lag_entries = Gauge("showdown_archive_lag_entries", "Audit records not yet archived", shard, registry=r)
        self.lag_seconds = Gauge(
            "showdown_archive_lag_seconds",
            "Age of the oldest record not yet archived (0: caught up)",
            shard,
            registry=r,
        )
        self.files = Counter("showdown_archive_files", "Archive files written", shard, registry=r)
        self.bytes = Counter("showdown_archive_bytes", "Bytes of archive files written", shard, registry=r)
        self.entries = Counter("showdown_archive_entries", "Entries archived", shard, registry=r)
        self.waiting = Gauge(
            "showdown_archive_waiting", "1 while the archiver waits (store or Redis unavailable)", shard, registry=r
        )
        self.refused = Gauge(
            "showdown_archive_refused",
            "1 while the archiver refuses to write the shard (reason: name_taken, a name that exists; chain_broken, a "
            "run that does not continue the archive's chain): nothing is written over",
            ["shard", "reason"],
            registry=r,
        )
        self.chain_restarts = Counter(
            "showdown_archive_chain_restarts",
            "Chains (epochs) begun beside another chain of the shard in the archive: a Redis that lost its data",
            shard,
            registry=r,
        )


def serve_metrics(metrics: ArchiveMetrics, port: int) -> None:
    start_http_server(port, registry=metrics.registry)
