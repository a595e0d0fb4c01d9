"""Prometheus metrics of a worker process (``/metrics`` on ``SHOWDOWN_METRICS_PORT``).

Every label has a bounded set of values: ``shard`` (the configured shards), ``outcome`` (settled, rejected,
duplicate, poison), ``code`` (the refusal codes of :mod:`showdown_rules.codes` and the worker's own few),
``type`` (the tournament message types), ``stream`` (events, results, audit, dead, standings), ``reason`` (what
Redis refuses). Never a hand, table, tournament or player id. The alert rules and the dashboard that read these
names are in deploy/prometheus/ and deploy/grafana/ (written by scripts/prometheus_rules.py), and tests run every
query of them against a real Prometheus scraping a real worker.
"""

from __future__ import annotations

import errno
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server, write_to_textfile

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

        self.dead_letters = Counter(
            "showdown_dead_letters",
            "Entries dead-lettered, by refusal code (poison and invariant_violation are bugs)",
            [*shard, "code"],
            registry=r,
        )
        self._declare_tournaments(r)
        self._declare_sampled(r)
        self.port: int | None = None
        """The port /metrics is served on (after :meth:`serve`)."""

    def _declare_tournaments(self, r: CollectorRegistry) -> None:
        """The tournaments' messages, places and money paid."""
        shard = ["shard"]
        self.tournament_messages = Counter(
            "showdown_tournament_messages",
            "Tournament messages committed, by type and outcome (applied, refused, duplicate)",
            [*shard, "type", "outcome"],
            registry=r,
        )
        self.placements = Counter(
            "showdown_placements", "Tournament entries placed (finished, with their prize)", shard, registry=r
        )
        self.prizes_paid = Counter(
            "showdown_prizes_paid_minor_units",
            "Prize money paid to placed entries, in the currency's smallest unit (cents)",
            shard,
            registry=r,
        )
        self.bounties_paid = Counter(
            "showdown_bounties_paid_minor_units",
            "Bounty cash collected by placed entries, in the currency's smallest unit (cents)",
            shard,
            registry=r,
        )
        self.mystery_paid = Counter(
            "showdown_mystery_bounties_paid_minor_units",
            "Mystery-bounty envelope cash collected by placed entries, in the currency's smallest unit (cents)",
            shard,
            registry=r,
        )
        # jackpots: by shard and program, never by jackpot id (a room's own, unbounded); the programs are the data
        # files the workers ship (data/jackpot/), a handful, and a hand naming another is refused before it counts
        jackpot = [*shard, "program"]
        self.jackpot_drops = Counter(
            "showdown_jackpot_drops", "Settled hands that dropped into a jackpot fund", jackpot, registry=r
        )
        self.jackpot_dropped = Counter(
            "showdown_jackpot_dropped_minor_units", "What the drops put in jackpot funds, minor units", jackpot,
            registry=r,
        )  # fmt: skip
        self.jackpot_payouts = Counter(
            "showdown_jackpot_payouts", "Bad beats paid from a jackpot fund", jackpot, registry=r
        )
        self.jackpot_paid = Counter(
            "showdown_jackpot_paid_minor_units", "What bad beats took from jackpot funds, minor units", jackpot,
            registry=r,
        )  # fmt: skip
        self.tournaments_opened = Counter(
            "showdown_tournaments_opened", "Tournaments opened (an applied open message)", shard, registry=r
        )
        self.tournaments_finished = Counter(
            "showdown_tournaments_finished", "Tournaments finished (their winner placed)", shard, registry=r
        )
        self.tournaments_open = Gauge(
            "showdown_tournaments_open",
            "Tournaments open now: SCARD of the shard's tournaments:open set, kept by the commit script (sampled)",
            shard,
            registry=r,
        )

    def _declare_sampled(self, r: CollectorRegistry) -> None:
        """What housekeeping samples (streams, memory, the chain's and the ledgers' state) and the worker's faults."""
        shard = ["shard"]
        self.chain_restarted = Gauge(
            "showdown_chain_restarted",
            "1 while the shard's audit chain restarted after Redis lost its data (its audit:reset hash) and no "
            "operator acknowledged it (`showdown audit verify --acknowledge-reset`); sampled",
            shard,
            registry=r,
        )
        self.tournaments_lost = Gauge(
            "showdown_tournaments_lost",
            "Tournaments whose ledgers Redis lost, refused (ledger_lost) until `showdown tournament restore`: SCARD of "
            "the shard's tournaments:lost set (sampled)",
            shard,
            registry=r,
        )
        self.stream_length = Gauge(
            "showdown_stream_length_entries",
            "XLEN of each of the shard's streams (sampled by the worker's housekeeping)",
            [*shard, "stream"],
            registry=r,
        )
        self.redis_used = Gauge(
            "showdown_redis_memory_used_bytes",
            "INFO memory used_memory of the Redis node holding the shard (sampled)",
            shard,
            registry=r,
        )
        self.redis_max = Gauge(
            "showdown_redis_memory_max_bytes",
            "INFO memory maxmemory of the Redis node holding the shard (sampled; 0: no limit)",
            shard,
            registry=r,
        )
        self.samples = Counter(
            "showdown_samples",
            "Housekeeping samples of the streams and Redis memory, by outcome (ok, refused: see the log)",
            ["outcome"],
            registry=r,
        )
        self.heartbeat = Gauge(
            "showdown_heartbeat_timestamp_seconds",
            "Unix time of the worker's last heartbeat (its loop turns at least once a second)",
            registry=r,
        )
        self.faults = Gauge(
            "showdown_redis_fault",
            "1 while the worker retries an error that does not go away by itself (WRONGTYPE: a key of a shard holds "
            "another type; NOPERM: a missing grant; ...), by reason: nothing settles until an operator acts",
            ["reason"],
            registry=r,
        )
        self.deleted_unread = Counter(
            "showdown_events_deleted_unread",
            "Times a worker found entries no worker had read deleted from a shard's events stream (an XDEL, or an "
            "XTRIM or XADD MAXLEN/MINID past what the group had read: someone else's)",
            ["shard"],
            registry=r,
        )

    def serve(self, port: int, *, tries: int = 1) -> int:
        """Expose ``/metrics`` on ``port`` (all interfaces: the pod or container network); with ``tries`` > 1,
        the next port up when one is taken (another worker on the host), up to ``tries`` ports. Returns the port.

        A port taken by all ``tries`` raises :class:`MetricsPortTaken`, which says what to set.
        """
        for candidate in range(port, min(port + tries, 65536)):
            try:
                start_http_server(candidate, registry=self.registry)
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE:
                    raise
                continue
            self.port = candidate
            return candidate
        raise MetricsPortTaken(port, tries)

    def start_shards(self, shards: Iterable[str]) -> None:
        """Export each shard's tournament counters at 0 from the start: Prometheus's ``increase()`` counts nothing
        for a series' first sample, so a counter first seen at 1 (its first tournament) would lose that one
        (the open-tournaments cross-check of docs/operations.md subtracts two of them)."""
        for shard in shards:
            for counter in (self.tournaments_opened, self.tournaments_finished, self.placements, self.prizes_paid,
                            self.bounties_paid, self.mystery_paid):  # fmt: skip
                counter.labels(shard)

    def count(
        self, shard: str, decisions: Sequence[DecisionLike], outcomes: Mapping[str, int], *, tournaments: bool
    ) -> None:
        """Count a committed batch's dead letters (by code), tournament messages (by type and outcome),
        placements and the money they were paid, and tournaments opened and finished. ``outcomes``: the batch's
        count of each outcome; ``tournaments``: whether any entry touched a tournament's ledger. A batch of plain
        hands all settled (or duplicates), the usual one, costs nothing per entry here."""
        if not tournaments and outcomes.keys() <= _PLAIN:
            return
        dead: dict[str, int] = {}
        for d in decisions:
            if d.code is not None:
                dead[d.code] = dead.get(d.code, 0) + 1
            message = d.prepared.tournament_message
            if message is not None:
                outcome = "refused" if d.code is not None else ("duplicate" if d.outcome == "duplicate" else "applied")
                self.tournament_messages.labels(shard, message.type, outcome).inc()
                if outcome == "applied" and message.type == "open":
                    self.tournaments_opened.labels(shard).inc()
            if d.placements:
                self._placed(shard, d.placements)
        for code, n in dead.items():
            self.dead_letters.labels(shard, code).inc(n)

    def count_jackpots(self, shard: str, decisions: Sequence[DecisionLike]) -> None:
        """Count a committed batch's jackpot drops and bad beats paid, and their amounts, by program (called only
        for a batch that moved a fund)."""
        for d in decisions:
            settlement = d.settlement if d.outcome == "settled" else None
            jackpot = settlement.jackpot if settlement is not None else None
            if jackpot is None:
                continue
            program = jackpot.program_id
            if jackpot.drop > 0:
                self.jackpot_drops.labels(shard, program).inc()
                self.jackpot_dropped.labels(shard, program).inc(jackpot.drop)
            if jackpot.beat is not None:
                self.jackpot_payouts.labels(shard, program).inc()
                self.jackpot_paid.labels(shard, program).inc(sum(jackpot.amounts))

    def _placed(self, shard: str, placements: Sequence[Mapping[str, Any]]) -> None:
        self.placements.labels(shard).inc(len(placements))
        self.prizes_paid.labels(shard).inc(sum(int(p.get("prize") or 0) for p in placements))
        self.bounties_paid.labels(shard).inc(sum(int(p.get("bounty_cash") or 0) for p in placements))
        self.mystery_paid.labels(shard).inc(sum(int(p.get("mystery_bounty_cash") or 0) for p in placements))
        won = {p.get("tournament_id") for p in placements if p.get("place") == 1}
        if won:  # a tournament's winner is placed once, by one entry (a tie for first: several placements)
            self.tournaments_finished.labels(shard).inc(len(won))


_PLAIN = frozenset({"settled", "duplicate"})
"""Outcomes that write no dead letter."""


class AuditVerdicts:
    """What ``showdown audit verify --metrics-file`` writes for node exporter's textfile collector: when each
    shard's chain last held, and whether it is broken (the alerts ShowdownAuditUnverified and
    ShowdownAuditChainBroken read them)."""

    def __init__(self) -> None:
        self.registry = r = CollectorRegistry()
        self.verified = Gauge(
            "showdown_audit_last_verified_timestamp_seconds",
            "Unix time of the last showdown audit verify that found the shard's chain whole",
            ["shard"],
            registry=r,
        )
        self.broken = Gauge(
            "showdown_audit_chain_broken",
            "1: the last showdown audit verify found the chain broken",
            ["shard"],
            registry=r,
        )

    def add(self, shard: str, *, holds: bool) -> None:
        if holds:
            self.verified.labels(shard).set_to_current_time()
        self.broken.labels(shard).set(0 if holds else 1)

    def write(self, path: Path) -> None:
        """Replace ``path`` whole (write, then rename), so the collector never reads half of it."""
        write_to_textfile(str(path), self.registry)


PORTS_TRIED = 16
"""With ``SHOWDOWN_METRICS_PORT`` left at its default, a worker whose port is taken tries the next ones, up to this
many in all (9108-9123): several workers on one host need no setting each."""


class MetricsPortTaken(OSError):
    """Every port ``/metrics`` may use is taken: the message says exactly what to set, in one line."""

    def __init__(self, port: int, tries: int) -> None:
        taken = f"port {port} is" if tries == 1 else f"ports {port}-{port + tries - 1} are"
        super().__init__(
            f"the metrics {taken} already in use (another worker on this host?): give this worker its own "
            "SHOWDOWN_METRICS_PORT (0: no metrics), or run one `showdown worker --processes N` instead"
        )


class DecisionLike(Protocol):
    """What :meth:`Metrics.count` reads of a commit's decision (:class:`showdown_service.worker.commit.Decision`)."""

    @property
    def prepared(self) -> Any: ...
    @property
    def outcome(self) -> str: ...
    @property
    def code(self) -> str | None: ...
    @property
    def placements(self) -> Sequence[Mapping[str, Any]]: ...
    @property
    def settlement(self) -> Any: ...
