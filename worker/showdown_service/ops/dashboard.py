"""The Grafana dashboard of a showdown deployment (``deploy/grafana/showdown.json``, written by
``scripts/observability.py``).

Each panel is one row of :data:`PANELS`: its title, unit and PromQL queries. tests/deploy/test_dashboard.py runs every
query on a real Prometheus scraping a real worker that has settled hands, refused some and run a tournament (and a
real ``showdown archiver`` process archiving them), and fails on any that returns no series. The queries use two
dashboard variables: ``$shard`` (a regex of shards) and Grafana's ``$__rate_interval``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from showdown_service.ops.alert_rules import ARCHIVER_JOB, WORKER_JOB

DATASOURCE = {"type": "prometheus", "uid": "showdown-prometheus"}
"""The provisioned data source (deploy/grafana/provisioning/datasources/prometheus.yml)."""
S = 'shard=~"$shard"'
"""The shard filter every per-shard query carries."""
SHARDS_QUERY = "label_values(showdown_entries_total, shard)"
"""The ``shard`` variable's values (Grafana asks Prometheus for the label's values on that metric)."""


@dataclass(frozen=True, slots=True)
class Panel:
    title: str
    unit: str
    queries: tuple[tuple[str, str], ...]
    """(legend, PromQL) pairs."""
    description: str = ""
    right_unit: str = ""
    """When set, the last query is drawn on a right axis in this unit (a panel of two quantities)."""


PANELS: tuple[Panel, ...] = (
    Panel(
        "Entries handled by outcome",
        "ops",
        (
            (
                "{{shard}} {{outcome}}",
                f"sum by (shard, outcome) (rate(showdown_entries_total{{{S}}}[$__rate_interval]))",
            ),
        ),
        "Settled, duplicate, rejected (dead-lettered) and poison entries a second.",
    ),
    Panel(
        "Settlement latency (XADD to commit)",
        "s",
        tuple(
            (
                f"p{q}",
                f"histogram_quantile(0.{q}, sum by (le) (rate(showdown_settle_latency_seconds_bucket{{{S}}}"
                "[$__rate_interval])))",
            )
            for q in ("50", "90", "99")
        ),
        "Objective: 99% within 1 s (docs/operations.md, Service-level objectives).",
    ),
    Panel(
        "Consumer group lag and pending",
        "short",
        (
            ("{{shard}} not yet delivered", f"max by (shard) (showdown_group_lag_entries{{{S}}})"),
            ("{{shard}} pending (delivered, not committed)", f"max by (shard) (showdown_pending_entries{{{S}}})"),
        ),
    ),
    Panel(
        "Dead letters by code",
        "ops",
        (("{{shard}} {{code}}", f"sum by (shard, code) (rate(showdown_dead_letters_total{{{S}}}[$__rate_interval]))"),),
        "poison and invariant_violation are bugs; the rest name what the producer sent wrong.",
    ),
    Panel(
        "Tournament messages by type and outcome",
        "ops",
        (
            (
                "{{type}} {{outcome}}",
                f"sum by (type, outcome) (rate(showdown_tournament_messages_total{{{S}}}[$__rate_interval]))",
            ),
        ),
    ),
    Panel(
        "Tournaments open now; opened and finished, entries placed",
        "short",
        (
            ("{{shard}} open now", f"max by (shard) (showdown_tournaments_open{{{S}}})"),
            ("opened", f"sum(increase(showdown_tournaments_opened_total{{{S}}}[$__range]))"),
            ("finished", f"sum(increase(showdown_tournaments_finished_total{{{S}}}[$__range]))"),
            ("placed", f"sum(increase(showdown_placements_total{{{S}}}[$__range]))"),
        ),
        "Open now: each shard's set of open tournaments, exact (every worker of a shard samples the same set, hence "
        "max). The rest over the dashboard's time range.",
    ),
    Panel(
        "Prize and bounty money paid (smallest currency unit)",
        "short",
        (
            ("prizes", f"sum(increase(showdown_prizes_paid_minor_units_total{{{S}}}[$__range]))"),
            ("bounties", f"sum(increase(showdown_bounties_paid_minor_units_total{{{S}}}[$__range]))"),
            ("mystery bounties", f"sum(increase(showdown_mystery_bounties_paid_minor_units_total{{{S}}}[$__range]))"),
        ),
        "Over the dashboard's time range.",
    ),
    Panel(
        "Redis memory",
        "bytes",
        (
            ("{{shard}} used", f"max by (shard) (showdown_redis_memory_used_bytes{{{S}}})"),
            ("{{shard}} maxmemory", f"max by (shard) (showdown_redis_memory_max_bytes{{{S}}})"),
        ),
        "At maxmemory (noeviction) Redis refuses writes: the alert fires at 80%.",
    ),
    Panel(
        "Stream lengths",
        "short",
        (("{{shard}} {{stream}}", f"max by (shard, stream) (showdown_stream_length_entries{{{S}}})"),),
    ),
    Panel(
        "Producer inbox not yet moved into events",
        "short",
        (("{{shard}} inbox", f'max by (shard) (showdown_stream_length_entries{{stream="inbox",{S}}})'),),
        "The workers move each shard's inbox before every read: a growing inbox means they do not keep up or do not"
        " move it (alert ShowdownInboxBacklog).",
    ),
    Panel(
        "Archive lag (entries and seconds)",
        "short",
        (
            ("{{shard}} entries not yet archived", f"max by (shard) (showdown_archive_lag_entries{{{S}}})"),
            ("archivers up", f'sum(up{{job="{ARCHIVER_JOB}"}})'),
            ("{{shard}} age of the oldest not archived", f"max by (shard) (showdown_archive_lag_seconds{{{S}}})"),
        ),
        "From `showdown archiver`'s /metrics: entries on the left axis, the age (s) on the right; the alert"
        " ShowdownArchiveLagging fires at an hour, ShowdownArchiverDown when no scrape answers.",
        right_unit="s",
    ),
    Panel(
        "Workers up, and their heartbeat's age",
        "s",
        (
            ("workers up", f'sum(up{{job="{WORKER_JOB}"}})'),
            ("{{instance}} heartbeat age", "time() - showdown_heartbeat_timestamp_seconds"),
        ),
    ),
    Panel(
        "SLO error ratios (5 min)",
        "percentunit",
        (
            ("settled slower than 1 s", "showdown:settle_slow:ratio_rate5m"),
            ("unavailable", "showdown:unavailable:ratio_rate5m"),
            ("dead-lettered", "showdown:dead_lettered:ratio_rate5m"),
        ),
        "The recording rules of deploy/prometheus/alerts.yml; budgets: 1%, 0.1%, 1%.",
    ),
)


def dashboard() -> dict[str, Any]:
    """The dashboard as Grafana's JSON model: two panels a row, a ``shard`` variable."""
    panels = []
    for i, panel in enumerate(PANELS):
        panels.append(
            {
                "id": i + 1,
                "type": "timeseries",
                "title": panel.title,
                "description": panel.description,
                "datasource": DATASOURCE,
                "gridPos": {"h": 8, "w": 12, "x": 12 * (i % 2), "y": 8 * (i // 2)},
                "fieldConfig": {"defaults": {"unit": panel.unit}, "overrides": _right_axis(panel)},
                "options": {"legend": {"displayMode": "list", "placement": "bottom"}},
                "targets": [
                    {"refId": chr(ord("A") + j), "datasource": DATASOURCE, "expr": expr, "legendFormat": legend}
                    for j, (legend, expr) in enumerate(panel.queries)
                ],
            }
        )
    return {
        "uid": "showdown",
        "title": "showdown",
        "description": "Settling poker showdowns: throughput, latency, lag, dead letters, tournaments, Redis memory",
        "tags": ["showdown"],
        "timezone": "utc",
        "schemaVersion": 39,
        "version": 1,
        "editable": True,
        "refresh": "30s",
        "time": {"from": "now-6h", "to": "now"},
        "templating": {
            "list": [
                {
                    "name": "shard",
                    "label": "shard",
                    "type": "query",
                    "datasource": DATASOURCE,
                    "query": SHARDS_QUERY,
                    "definition": SHARDS_QUERY,
                    "includeAll": True,
                    "multi": True,
                    "allValue": ".*",
                    "current": {"text": "All", "value": "$__all"},
                    "refresh": 2,
                }
            ]
        },
        "panels": panels,
    }


def _right_axis(panel: Panel) -> list[dict[str, Any]]:
    """Grafana's override that puts the panel's last query on a right axis in ``panel.right_unit``."""
    if not panel.right_unit:
        return []
    ref = chr(ord("A") + len(panel.queries) - 1)
    return [
        {
            "matcher": {"id": "byFrameRefID", "options": ref},
            "properties": [
                {"id": "unit", "value": panel.right_unit},
                {"id": "custom.axisPlacement", "value": "right"},
            ],
        }
    ]


def queries() -> list[str]:
    """Every query of every panel of :func:`dashboard` (as written in the JSON)."""
    return [expr for panel in PANELS for _, expr in panel.queries]
