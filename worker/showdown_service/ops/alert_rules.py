"""The Prometheus rules of a showdown deployment, in one place: recording rules, SLO burn-rate alerts, alerts.

``scripts/observability.py`` writes them out as ``deploy/prometheus/alerts.yml`` (a Prometheus rule file),
``deploy/k8s-monitoring/prometheusrule.yaml`` (the same groups as a Prometheus Operator ``PrometheusRule``) and
``deploy/prometheus/alerts_test.yml`` (the ``promtool test rules`` cases: each alert with a case that fires it and
one that does not); docs/operations.md's alert table is written from here too (scripts/docs_hooks.py).
tests/deploy/test_prometheus_rules.py checks that the committed files are exactly these and runs promtool on them.

The service-level objectives (docs/operations.md, "Service-level objectives") and their burn-rate alerts follow
the Google SRE workbook, chapter "Alerting on SLOs", recipe 6: multiple windows, multiple burn rates (page at
14.4x over 1 h and 5 min or 6x over 6 h and 30 min; ticket at 3x over 1 d and 2 h or 1x over 3 d and 6 h).

Over 400 lines, deliberately: it is data, each alert beside the two cases that test it; split, an alert and its
tests would drift apart.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

WORKER_JOB = "showdown-worker"
"""The scrape job of the workers (deploy/prometheus/prometheus.yml; on Kubernetes, name your job so)."""
ARCHIVER_JOB = "showdown-archiver"
"""The scrape job of ``showdown archiver`` (its /metrics: port 9109 in compose and deploy/k8s/archiver.yaml)."""
INBOX_BACKLOG = 1000
"""Elements in a shard's producer inbox (``showdown_stream_length_entries{stream="inbox"}``) above which a still
growing inbox alerts: the workers move it before every read, so it stays near empty while they keep up."""
RUNBOOKS = "docs/operations.md"
"""The page holding every alert's runbook (an anchor of it): in the repository, and on the docs site."""
RUNBOOK_BASE_URL_SETTING = "SHOWDOWN_RUNBOOK_BASE_URL"
"""The environment variable the generator reads: the absolute URL of docs/operations.md as your deployment serves it
(the docs site's ``operations/`` page, a wiki copy); each alert's ``runbook_url`` is it plus ``#<anchor>``.
Alertmanager and Grafana open a link as given: a relative path would lead nowhere."""
RUNBOOK_BASE_URL = "https://showdown.example/operations/"
"""The base the committed rule files are written with (``showdown.example``: a reserved name, never a real site):
set :data:`RUNBOOK_BASE_URL_SETTING` to your docs' address and run scripts/observability.py."""
WINDOWS = ("5m", "30m", "1h", "2h", "6h", "1d", "3d")
"""The windows the SLO error ratios are recorded over (the burn-rate alerts' long and short windows)."""
LATENCY_OBJECTIVE_S = "1.0"
"""Settlement latency objective: a bucket bound of ``showdown_settle_latency_seconds`` (as the client writes it)."""


@dataclass(frozen=True, slots=True)
class Slo:
    """An objective: the share of good events (or time) over 30 days, and the error ratio's expression."""

    name: str
    """The recording rules' middle part: ``showdown:<name>:ratio_rate<window>``."""
    objective: float
    """0.99: 1% of the budget may be spent in 30 days."""
    ratio: str
    """The error ratio over ``{w}`` (replaced by each window)."""
    what: str


SLOS = (
    Slo(
        "settle_slow",
        0.99,
        '1 - (sum(rate(showdown_settle_latency_seconds_bucket{le="' + LATENCY_OBJECTIVE_S + '"}[{w}]))'
        " / sum(rate(showdown_settle_latency_seconds_count[{w}])))",
        f"99% of entries are committed within {LATENCY_OBJECTIVE_S} s of their XADD",
    ),
    Slo(
        "unavailable",
        0.999,
        "avg_over_time(showdown:unavailable[{w}])",
        "the workers serve (at least one up, none waiting for Redis) 99.9% of the time",
    ),
    Slo(
        "dead_lettered",
        0.99,
        "sum(rate(showdown_dead_letters_total[{w}])) / sum(rate(showdown_entries_total[{w}]))",
        "at most 1% of entries are dead-lettered",
    ),
)

UNAVAILABLE = (
    f'clamp_max((max(showdown_redis_waiting) or vector(0)) + ((sum(up{{job="{WORKER_JOB}"}}) or vector(0)) == bool 0)'
    ", 1)"
)
"""1 while no worker is up or some worker waits for Redis, else 0 (the availability SLI, sampled each evaluation)."""

FAILOVER_REASONS = "READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|NOREPLICAS|LOADING|UNREACHABLE|TIMEOUT|MOVED|ASK|TTL"
"""What a worker waits for while a primary fails over or is out of reach (worker.loop.ROUTINE_WAITS)."""
REFUSAL_REASONS = "OOM|MISCONF|BUSY"
"""The routine waits in which Redis is up and refuses writes (memory full, cannot persist, a long script). Any
other reason is a fault that does not go away by itself (``showdown_redis_fault``)."""


OPEN_TOURNAMENTS = """round(
    sum by (shard) (increase(showdown_tournaments_opened_total[7d]))
  - (
      sum by (shard) (increase(showdown_tournaments_finished_total[7d]))
    or
      0 * sum by (shard) (increase(showdown_tournaments_opened_total[7d]))
  )
)"""
"""Tournaments opened and not finished within 7 days, per shard, from the counters: a cross-check of the exact
``showdown_tournaments_open`` gauge (docs/operations.md, "Open tournaments", says when they agree);
tests/deploy/test_prometheus_rules.py evaluates it."""


@dataclass(frozen=True, slots=True)
class Case:
    """A ``promtool test rules`` case: input series (1-minute steps), when to evaluate, and the labels of the
    alert expected then (its own, less ``severity``), or None: the alert must not fire."""

    series: dict[str, str]
    at: str
    labels: dict[str, str] | None = None


@dataclass(frozen=True, slots=True)
class Alert:
    name: str
    expr: str
    for_: str
    severity: str
    """critical: page someone now; warning: look at it today."""
    summary: str
    """One line; may use ``{{ $labels.<name> }}``."""
    runbook: str
    """The anchor of docs/operations.md's runbook."""
    fires: Case
    quiet: Case


def _burn_alerts(slo: Slo) -> list[Alert]:
    budget = round(1 - slo.objective, 6)
    r = f"showdown:{slo.name}:ratio_rate"
    fast = (
        f"({r}1h > {14.4 * budget:g} and {r}5m > {14.4 * budget:g})"
        f" or ({r}6h > {6 * budget:g} and {r}30m > {6 * budget:g})"
    )
    slow = f"({r}1d > {3 * budget:g} and {r}2h > {3 * budget:g}) or ({r}3d > {budget:g} and {r}6h > {budget:g})"
    title = slo.name.replace("_", " ")
    good, bad = _slo_series(slo, error_share=0.0), _slo_series(slo, error_share=0.5)
    # 4 times the budget: over the slow alerts' 3x, under the fast ones' 6x (the time-based SLI: all or nothing)
    between = _slo_series(slo, error_share=4 * budget) if slo.name != "unavailable" else None
    return [
        Alert(
            f"ShowdownErrorBudgetBurnFast_{slo.name}",
            fast,
            "2m",
            "critical",
            f"SLO {title}: the 30-day error budget burns 6-14x too fast ({slo.what})",
            "an-error-budget-burns",
            fires=Case(bad, "70m", {}),
            quiet=Case(between or good, "70m"),
        ),
        Alert(
            f"ShowdownErrorBudgetBurnSlow_{slo.name}",
            slow,
            "1h",
            "warning",
            f"SLO {title}: the 30-day error budget burns 1-3x too fast ({slo.what})",
            "an-error-budget-burns",
            fires=Case(between or bad, "1500m", {}),
            quiet=Case(good, "1500m"),
        ),
    ]


def _slo_series(slo: Slo, *, error_share: float) -> dict[str, str]:
    """Input series for ``slo``'s burn alerts: 100 entries (or 1 up worker) a minute, ``error_share`` of them bad."""
    steps = "x1600"
    bad = round(100 * error_share)
    if slo.name == "settle_slow":
        fast = f'showdown_settle_latency_seconds_bucket{{shard="default",le="{LATENCY_OBJECTIVE_S}"}}'
        return {
            fast: f"0+{100 - bad}{steps}",
            'showdown_settle_latency_seconds_count{shard="default"}': f"0+100{steps}",
        }
    if slo.name == "dead_lettered":
        return {
            'showdown_dead_letters_total{shard="default",code="bad_card"}': f"0+{bad}{steps}",
            'showdown_entries_total{shard="default",outcome="settled"}': f"0+100{steps}",
        }
    return {
        f'up{{job="{WORKER_JOB}",instance="w1"}}': f"1{steps}",
        'showdown_redis_waiting{reason="OOM",instance="w1"}': "1x1600" if error_share else "0x1600",
    }


def _labels(**labels: str) -> dict[str, str]:
    return labels


def _cases(series: str, fires: str, quiet: str, at: str, **labels: str) -> tuple[Case, Case]:
    """The two cases of an alert on one ``series``: its values that fire the alert (with ``labels``) and those that
    leave it quiet, each evaluated at ``at``."""
    return Case({series: fires}, at, labels), Case({series: quiet}, at)


ALERTS: tuple[Alert, ...] = (
    Alert(
        "ShowdownNoWorkerUp",
        f'sum(up{{job="{WORKER_JOB}"}}) == 0 or absent(up{{job="{WORKER_JOB}"}})',
        "2m",
        "critical",
        "No showdown worker is up: nothing is being settled",
        "a-worker-is-down",
        *_cases(f'up{{job="{WORKER_JOB}",instance="w1"}}', "0x10", "1x10", "5m"),
    ),
    Alert(
        "ShowdownWorkerDown",
        f'up{{job="{WORKER_JOB}"}} == 0',
        "5m",
        "warning",
        "Worker {{ $labels.instance }} is down (its scrape fails)",
        "a-worker-is-down",
        *_cases(
            f'up{{job="{WORKER_JOB}",instance="w1"}}',
            "0x10",
            "1 1 0 0 1 1 1 1 1 1",
            "7m",
            job=WORKER_JOB,
            instance="w1",
        ),
    ),
    Alert(
        "ShowdownWorkerNotHeartbeating",
        "time() - showdown_heartbeat_timestamp_seconds > 60",
        "1m",
        "critical",
        "Worker {{ $labels.instance }} has not turned its loop for over a minute (stuck)",
        "a-worker-is-down",
        *_cases('showdown_heartbeat_timestamp_seconds{instance="w1"}', "0x10", "0+60x10", "5m", instance="w1"),
    ),
    Alert(
        "ShowdownBacklogGrowing",
        "max by (shard) (showdown_group_lag_entries) + max by (shard) (showdown_pending_entries) > 1000"
        " and max by (shard) (deriv(showdown_group_lag_entries[10m])) > 0",
        "10m",
        "warning",
        "Shard {{ $labels.shard }}: over 1000 entries wait and the lag keeps growing",
        "lag-or-pending-grows",
        fires=Case(
            {
                'showdown_group_lag_entries{shard="default",instance="w1"}': "1000+100x30",
                'showdown_pending_entries{shard="default",instance="w1"}': "100x30",
            },
            "25m",
            _labels(shard="default"),
        ),
        quiet=Case(
            {
                'showdown_group_lag_entries{shard="default",instance="w1"}': "5000-100x30",
                'showdown_pending_entries{shard="default",instance="w1"}': "100x30",
            },
            "25m",
        ),
    ),
    Alert(
        "ShowdownSettleLatencyHigh",
        "histogram_quantile(0.99, sum by (shard, le) (rate(showdown_settle_latency_seconds_bucket[5m])))"
        f" > {LATENCY_OBJECTIVE_S}",
        "10m",
        "warning",
        f"Shard {{{{ $labels.shard }}}}: settlement latency p99 is over its {LATENCY_OBJECTIVE_S} s objective",
        "settlement-is-slow",
        fires=Case(
            {
                'showdown_settle_latency_seconds_bucket{shard="default",le="1.0"}': "0+10x30",
                'showdown_settle_latency_seconds_bucket{shard="default",le="2.5"}': "0+10x30",
                'showdown_settle_latency_seconds_bucket{shard="default",le="+Inf"}': "0+100x30",
            },
            "25m",
            _labels(shard="default"),
        ),
        quiet=Case(
            {
                'showdown_settle_latency_seconds_bucket{shard="default",le="1.0"}': "0+100x30",
                'showdown_settle_latency_seconds_bucket{shard="default",le="2.5"}': "0+100x30",
                'showdown_settle_latency_seconds_bucket{shard="default",le="+Inf"}': "0+100x30",
            },
            "25m",
        ),
    ),
    Alert(
        "ShowdownDeadLettersHigh",
        "sum by (shard, code) (rate(showdown_dead_letters_total[10m])) > 0.1",
        "10m",
        "warning",
        "Shard {{ $labels.shard }}: over 6 dead letters a minute with code {{ $labels.code }}",
        "the-dead-letter-stream-grows",
        *_cases(
            'showdown_dead_letters_total{shard="default",code="bad_card",instance="w1"}',
            "0+60x30",
            "0+1x30",
            "25m",
            shard="default",
            code="bad_card",
        ),
    ),
    Alert(
        "ShowdownBugDeadLettered",
        'sum by (shard, code) (increase(showdown_dead_letters_total{code=~"poison|invariant_violation"}[15m])) > 0',
        "0m",
        "critical",
        "Shard {{ $labels.shard }}: an entry was dead-lettered as {{ $labels.code }} (a bug)",
        "a-poison-entry",
        fires=Case(
            {'showdown_dead_letters_total{shard="default",code="poison",instance="w1"}': "0 0 0 1 1 1 1 1"},
            "5m",
            _labels(shard="default", code="poison"),
        ),
        quiet=Case(
            {
                'showdown_dead_letters_total{shard="default",code="poison",instance="w1"}': "0x8",
                'showdown_dead_letters_total{shard="default",code="bad_card",instance="w1"}': "0+5x8",
            },
            "5m",
        ),
    ),
    Alert(
        "ShowdownRedisMemoryHigh",
        "max by (shard) (showdown_redis_memory_used_bytes / (showdown_redis_memory_max_bytes > 0)) > 0.8",
        "5m",
        "warning",
        "Shard {{ $labels.shard }}: Redis holds over 80% of its maxmemory (at 100% it refuses writes: OOM)",
        "redis-memory-fills",
        fires=Case(
            {
                'showdown_redis_memory_used_bytes{shard="default",instance="w1"}': "900x10",
                'showdown_redis_memory_max_bytes{shard="default",instance="w1"}': "1000x10",
            },
            "7m",
            _labels(shard="default"),
        ),
        quiet=Case(
            {
                'showdown_redis_memory_used_bytes{shard="default",instance="w1"}': "500x10",
                'showdown_redis_memory_max_bytes{shard="default",instance="w1"}': "1000x10",
                'showdown_redis_memory_used_bytes{shard="other",instance="w1"}': "900x10",
                'showdown_redis_memory_max_bytes{shard="other",instance="w1"}': "0x10",
            },
            "7m",
        ),
    ),
    Alert(
        "ShowdownRedisRefusesWrites",
        f'max by (reason) (showdown_redis_waiting{{reason=~"{REFUSAL_REASONS}"}}) == 1',
        "1m",
        "critical",
        "Redis refuses the workers' writes: {{ $labels.reason }}",
        "redis-refuses-writes",
        fires=Case({'showdown_redis_waiting{reason="OOM",instance="w1"}': "1x5"}, "3m", _labels(reason="OOM")),
        quiet=Case(
            {
                'showdown_redis_waiting{reason="OOM",instance="w1"}': "0x5",
                'showdown_redis_waiting{reason="READONLY",instance="w1"}': "1x5",
            },
            "3m",
        ),
    ),
    Alert(
        "ShowdownFailoverInProgress",
        f'max by (reason) (showdown_redis_waiting{{reason=~"{FAILOVER_REASONS}"}}) == 1',
        "1m",
        "warning",
        "The workers wait for Redis ({{ $labels.reason }}): a failover or an outage",
        "a-failover",
        *_cases(
            'showdown_redis_waiting{reason="READONLY",instance="w1"}', "1x5", "1 0 0 0 0 0", "3m", reason="READONLY"
        ),
    ),
    Alert(
        "ShowdownAuditUnverified",
        "time() - max by (shard) (showdown_audit_last_verified_timestamp_seconds) > 86400"
        f' or (absent(showdown_audit_last_verified_timestamp_seconds) and on () count(up{{job="{WORKER_JOB}"}}) > 0)',
        "1h",
        "warning",
        "The audit chain has not been verified for over a day (showdown audit verify --metrics-file)",
        "the-audit-chain-is-unverified",
        fires=Case(
            {'showdown_audit_last_verified_timestamp_seconds{shard="default"}': "0x1600"},
            "1520m",
            _labels(shard="default"),
        ),
        quiet=Case({'showdown_audit_last_verified_timestamp_seconds{shard="default"}': "0+60x1600"}, "1500m"),
    ),
    Alert(
        "ShowdownAuditChainBroken",
        "max by (shard) (showdown_audit_chain_broken) == 1",
        "0m",
        "critical",
        "Shard {{ $labels.shard }}: showdown audit verify found the audit chain broken",
        "the-audit-chain-is-unverified",
        *_cases('showdown_audit_chain_broken{shard="default"}', "0 1 1", "0 0 0", "2m", shard="default"),
    ),
    Alert(
        "ShowdownArchiveLagging",
        "max by (shard) (showdown_archive_lag_seconds) > 3600",
        "15m",
        "warning",
        "Shard {{ $labels.shard }}: the oldest record not yet archived is over an hour old",
        "the-archive-lags",
        *_cases('showdown_archive_lag_seconds{shard="default"}', "4000+60x30", "30x30", "25m", shard="default"),
    ),
    Alert(
        "ShowdownArchiverDown",
        f'up{{job="{ARCHIVER_JOB}"}} == 0',
        "10m",
        "warning",
        "The archiver {{ $labels.instance }} is down (its scrape fails): nothing is archived or trimmed",
        "the-archive-lags",
        *_cases(
            f'up{{job="{ARCHIVER_JOB}",instance="a1"}}',
            "0x15",
            "1 1 0 0 0 1 1 1 1 1 1 1 1 1 1",
            "12m",
            job=ARCHIVER_JOB,
            instance="a1",
        ),
    ),
    Alert(
        "ShowdownArchiveRefused",
        "max by (shard, reason) (showdown_archive_refused) == 1",
        "1m",
        "critical",
        "Shard {{ $labels.shard }}: the archiver refuses to write ({{ $labels.reason }}): nothing is archived or"
        " trimmed, and nothing is written over",
        "the-archiver-refuses-to-write",
        *_cases(
            'showdown_archive_refused{shard="default",reason="chain_broken"}',
            "0 1 1 1",
            "0 1 0 0",
            "3m",
            shard="default",
            reason="chain_broken",
        ),
    ),
    Alert(
        "ShowdownInboxBacklog",
        f'max by (shard) (showdown_stream_length_entries{{stream="inbox"}}) > {INBOX_BACKLOG}'
        ' and max by (shard) (deriv(showdown_stream_length_entries{stream="inbox"}[10m])) > 0',
        "10m",
        "warning",
        f"Shard {{{{ $labels.shard }}}}: over {INBOX_BACKLOG} producer messages wait in the inbox and it keeps growing"
        " (the workers do not move it)",
        "the-inbox-grows",
        fires=Case(
            {'showdown_stream_length_entries{shard="default",stream="inbox",instance="w1"}': "1000+100x30"},
            "25m",
            _labels(shard="default"),
        ),
        quiet=Case(
            {
                'showdown_stream_length_entries{shard="default",stream="inbox",instance="w1"}': "5000-100x30",
                'showdown_stream_length_entries{shard="default",stream="events",instance="w1"}': "1000+100x30",
            },
            "25m",
        ),
    ),
    Alert(
        "ShowdownUnreadEntriesDeleted",
        "sum by (shard) (increase(showdown_events_deleted_unread_total[10m])) > 0",
        "0m",
        "critical",
        "Shard {{ $labels.shard }}: entries of the events stream were deleted before a worker read them",
        "unread-events-deleted",
        *_cases(
            'showdown_events_deleted_unread_total{shard="default",instance="w1"}',
            "0 0 1 1 1",
            "2x5",
            "4m",
            shard="default",
        ),
    ),
    Alert(
        "ShowdownChainRestarted",
        "max by (shard) (showdown_chain_restarted) > 0",
        "0m",
        "critical",
        "Shard {{ $labels.shard }}: the audit chain restarted after Redis lost its data (`showdown health` names the "
        "epochs and how far the archive holds the old one): what the old chain settled after that is lost",
        "the-chain-restarted",
        *_cases('showdown_chain_restarted{shard="default",instance="w1"}', "0 1 1 1", "0x3", "3m", shard="default"),
    ),
    Alert(
        "ShowdownLedgerLost",
        "max by (shard) (showdown_tournaments_lost) > 0",
        "0m",
        "critical",
        "Shard {{ $labels.shard }}: tournaments lost their ledgers with Redis's data: their entries are "
        "refused (ledger_lost) until `showdown tournament restore ID`",
        "the-chain-restarted",
        *_cases(
            'showdown_tournaments_lost{shard="default",instance="w1"}', "0 2 2 2", "2 0 0 0", "3m", shard="default"
        ),
    ),
    Alert(
        "ShowdownRedisFault",
        "max by (reason) (showdown_redis_fault) > 0",
        "1m",
        "critical",
        "The workers retry a Redis error that does not go away by itself: {{ $labels.reason }}",
        "a-fault-wrongtype-noperm",
        *_cases(
            'showdown_redis_fault{reason="WRONGTYPE",instance="w1"}', "1x5", "1 0 0 0 0 0", "3m", reason="WRONGTYPE"
        ),
    ),
    *(alert for slo in SLOS for alert in _burn_alerts(slo)),
)


def recording_rules() -> list[dict[str, str]]:
    """The SLIs, then each SLO's error ratio over every window of :data:`WINDOWS`."""
    rules = [{"record": "showdown:unavailable", "expr": UNAVAILABLE}]
    for slo in SLOS:
        rules += [
            {"record": f"showdown:{slo.name}:ratio_rate{w}", "expr": slo.ratio.replace("{w}", w)} for w in WINDOWS
        ]
    return rules


def runbook_base_url(environ: Mapping[str, str] = os.environ) -> str:
    """The runbooks' base URL: :data:`RUNBOOK_BASE_URL_SETTING` if set, else :data:`RUNBOOK_BASE_URL`; refused
    (``ValueError`` naming the variable) unless it is an absolute http(s) URL without a fragment."""
    base = environ.get(RUNBOOK_BASE_URL_SETTING) or RUNBOOK_BASE_URL
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.fragment or "#" in base:
        raise ValueError(
            f"{RUNBOOK_BASE_URL_SETTING}={base!r}: give the absolute http(s) URL of the runbook page "
            "(https://docs.example.com/showdown/operations/), without a #fragment: Alertmanager and Grafana "
            "cannot open a relative path"
        )
    return base


def alert_rule(alert: Alert, base: str | None = None) -> dict[str, Any]:
    """The alert as a Prometheus rule; its ``runbook_url`` is ``base`` (:func:`runbook_base_url` when None) plus
    its runbook's anchor."""
    runbook = f"{base or runbook_base_url()}#{alert.runbook}"
    return {
        "alert": alert.name,
        "expr": alert.expr,
        "for": alert.for_,
        "labels": {"severity": alert.severity},
        "annotations": {"summary": alert.summary, "runbook_url": runbook},
    }


def rule_groups(base: str | None = None) -> list[dict[str, Any]]:
    """The rule file's groups: the recording rules (SLIs and SLO ratios), then the alerts (their runbooks under
    ``base``, :func:`runbook_base_url` when None)."""
    base = base or runbook_base_url()
    return [
        {"name": "showdown-slo-recording", "rules": recording_rules()},
        {"name": "showdown-alerts", "rules": [alert_rule(a, base) for a in ALERTS]},
    ]


LONG_CASE_MINUTES = 120
"""Cases evaluated later than this (the SLO burn rates, a day without verification) go into a second test file,
evaluated every :data:`LONG_EVALUATION_INTERVAL` instead of every minute: the same verdicts, in a tenth of the time."""
LONG_EVALUATION_INTERVAL = "10m"


def rule_tests(rule_file: str, *, long: bool = False, base: str | None = None) -> dict[str, Any]:
    """``promtool test rules`` input: for every alert, a case that fires it and one that does not; those evaluated
    within :data:`LONG_CASE_MINUTES` (``long=False``) or after (``long=True``)."""
    base = base or runbook_base_url()
    tests = []
    for alert in ALERTS:
        for case in (alert.fires, alert.quiet):
            if (int(case.at.removesuffix("m")) > LONG_CASE_MINUTES) != long:
                continue
            expected = []
            if case.labels is not None:
                annotations = alert_rule(alert, base)["annotations"]
                expected = [
                    {
                        "exp_labels": {**case.labels, "severity": alert.severity},
                        "exp_annotations": {k: _render(v, case.labels) for k, v in annotations.items()},
                    }
                ]
            tests.append(
                {
                    "name": f"{alert.name} {'fires' if case.labels is not None else 'stays quiet'}",
                    "interval": "1m",
                    "input_series": [{"series": s, "values": v} for s, v in case.series.items()],
                    "alert_rule_test": [{"eval_time": case.at, "alertname": alert.name, "exp_alerts": expected}],
                }
            )
    interval = LONG_EVALUATION_INTERVAL if long else "1m"
    order = [group["name"] for group in rule_groups()]  # the recording rules first, as each evaluation needs them
    return {"rule_files": [rule_file], "evaluation_interval": interval, "group_eval_order": order, "tests": tests}


def _render(template: str, labels: dict[str, str]) -> str:
    return re.sub(r"\{\{ \$labels\.(\w+) \}\}", lambda m: labels.get(m.group(1), ""), template)


def alerts_table() -> str:
    """docs/operations.md's alert table: every alert, its severity, what it means, and its runbook."""
    rows = ["| alert | severity | fires when | runbook |", "|---|---|---|---|"]
    for alert in ALERTS:
        summary = _render(alert.summary, {name: f"*{name}*" for name in ("shard", "instance", "code", "reason")})
        rows.append(f"| `{alert.name}` | {alert.severity} | {summary} | [runbook](#{alert.runbook}) |")
    return "\n".join(rows)
