"""deploy/grafana/showdown.json: every panel's query, run on a real Prometheus (Debian's, unpacked by `make test`)
scraping a real worker that has settled hands, refused some and run a tournament to its winner, and a real
`showdown archiver` process archiving them (the archive-lag panel; scrape jobs named as in
deploy/prometheus/prometheus.yml). Each query must return series: a typo in a metric name, a label, a job or a
function returns none. The alert rules are loaded too, so the SLO recording rules the dashboard shows are evaluated
on real data.

Lean by construction: the bundled hands, a few refused entries and a 10-player tournament; a 1 s scrape interval;
every wait bounded; the archiver is stopped with SIGTERM (it writes its last file and exits 0).
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml

from showdown_service.decision.intake import unwrap_event
from showdown_service.infra.config import Settings
from showdown_service.infra.examples import example_lines
from showdown_service.ops.alert_rules import ARCHIVER_JOB, WORKER_JOB
from showdown_service.ops.dashboard import DATASOURCE, PANELS, SHARDS_QUERY, dashboard, queries
from showdown_service.ops.metrics import Metrics
from showdown_service.testing.localredis import free_port
from showdown_service.testing.simulate import simulate
from showdown_service.worker.loop import Worker
from tests.deploy.test_deploy_compose import PROMETHEUS_FILE, clean_env, load_compose, resolve
from tests.deploy.test_prometheus_rules import RULES, debian_prometheus
from tests.helpers import REPO, wait_until, xadd_events
from tests.worker.test_tournament_worker import publish

DASHBOARD = REPO / "deploy" / "grafana" / "showdown.json"
GRAFANA_VARIABLES = {"$shard": ".*", "$__rate_interval": "1m", "$__range": "5m"}
"""What Grafana puts in place of the dashboard's variables (All shards; a short range for a short test)."""
REFUSED = ["{not json", '{"schema_version": 1, "hand_id": "h-missing-everything"}', '{"hand_id": 7}']


class Prometheus:
    """Debian's prometheus on 127.0.0.1 and a free port, its data in a temporary directory, scraping ``target``
    every second and evaluating the rules every second; stopped on exit. ``targets``: each scrape job's address."""

    def __init__(self, tmp: Path, targets: dict[str, str]) -> None:
        config = {
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "rule_files": [str(RULES)],
            "scrape_configs": [
                {"job_name": job, "static_configs": [{"targets": [target]}]} for job, target in targets.items()
            ],
        }
        (tmp / "prometheus.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
        self.url = f"http://127.0.0.1:{free_port()}"
        self.log = (tmp / "prometheus.log").open("wb")
        self.process = subprocess.Popen(
            [
                debian_prometheus("prometheus"),
                f"--config.file={tmp / 'prometheus.yml'}",
                f"--storage.tsdb.path={tmp / 'data'}",
                f"--web.listen-address={self.url.removeprefix('http://')}",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def query(self, expr: str) -> list[dict[str, Any]]:
        url = f"{self.url}/api/v1/query?{urllib.parse.urlencode({'query': expr})}"
        with urllib.request.urlopen(url, timeout=5) as reply:
            answer = json.loads(reply.read())
        assert answer["status"] == "success", answer
        result: list[dict[str, Any]] = answer["data"]["result"]
        return result

    def answers(self) -> bool:
        try:
            self.query("vector(1)")
        except OSError:
            return False
        return True

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        self.log.close()


@pytest.fixture
def scraped_worker(
    redis_url: str, worker_env: dict[str, str], tmp_path: Path
) -> Iterator[tuple[Prometheus, redis.Redis]]:
    """A worker serving /metrics on a free port, in a thread, a `showdown archiver` process serving its own on
    another, and a Prometheus scraping both; all stopped after."""
    settings = Settings(redis_url=redis_url, consumer="w1", block_ms=50, heartbeat_file=tmp_path / "hb")
    client = redis.Redis.from_url(redis_url, protocol=2)
    archiver_port = free_port()
    archiver_env = {**worker_env, "SHOWDOWN_ARCHIVE_URL": str(tmp_path / "archive"), "SHOWDOWN_CONSUMER": "a1",
                    "SHOWDOWN_ARCHIVER_METRICS_PORT": str(archiver_port), "SHOWDOWN_ARCHIVE_INTERVAL_S": "0.5",
                    "SHOWDOWN_HEARTBEAT_FILE": str(tmp_path / "hb-archiver")}  # fmt: skip
    log = (tmp_path / "archiver.log").open("wb")
    archiver = subprocess.Popen(
        [sys.executable, "-m", "showdown_service", "archiver"], env=archiver_env, stdout=log, stderr=subprocess.STDOUT
    )
    metrics = Metrics()
    port = metrics.serve(free_port())
    worker = Worker(settings, client, metrics=metrics)
    thread = threading.Thread(target=worker.run, name="worker", daemon=True)
    thread.start()
    prometheus = Prometheus(tmp_path, {WORKER_JOB: f"127.0.0.1:{port}", ARCHIVER_JOB: f"127.0.0.1:{archiver_port}"})

    def scraped(job: str) -> bool:
        return prometheus.query(f'up{{job="{job}"}} == 1') != []

    try:
        wait_until(prometheus.answers, "Prometheus to answer", timeout=30)
        wait_until(lambda: scraped(WORKER_JOB) and scraped(ARCHIVER_JOB), "a first scrape of both jobs", timeout=30)
        yield prometheus, client
    finally:
        prometheus.stop()
        archiver.send_signal(signal.SIGTERM)
        worker.stop()
        thread.join(timeout=30)
        status = archiver.wait(timeout=30)
        log.close()
        client.close()
        assert status == 0, (tmp_path / "archiver.log").read_text(encoding="utf-8")[-2000:]


def test_the_dashboard_file_is_grafana_json_with_every_panel_on_the_provisioned_prometheus() -> None:
    board = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    assert board == dashboard()
    assert [p["title"] for p in board["panels"]] == [p.title for p in PANELS]
    for panel in board["panels"]:
        assert panel["datasource"] == DATASOURCE
        assert panel["targets"], panel["title"]
        assert all(t["expr"] for t in panel["targets"])
    titles = " ".join(p.title.lower() for p in PANELS)
    for topic in ("outcome", "latency", "lag", "dead letters", "tournament", "redis memory"):
        assert topic in titles, topic


def test_every_panel_query_returns_series_from_a_real_worker_that_settled_refused_and_ran_a_tournament(
    scraped_worker: tuple[Prometheus, redis.Redis],
) -> None:
    prometheus, client = scraped_worker
    keys = Settings().keys("default")
    hands = [unwrap_event(line) for line in example_lines()]
    xadd_events(client, keys.events, [*hands, *REFUSED])
    tournament = simulate(5, players=10, reentries=1, stack=500)
    publish(client, keys, tournament.lines)
    total = len(hands) + len(REFUSED) + len(tournament.lines)
    wait_until(lambda: client.xlen(keys.audit) == total, f"the worker to audit all {total} entries", timeout=90)
    assert client.xlen(keys.dead) >= len(REFUSED)
    assert client.xlen(keys.standings) > 0, "the tournament placed its entries"
    wait_until(lambda: int(client.hget(keys.archive, "seq") or 0) == total, "the archiver to archive them", timeout=60)

    expanded = {}
    for expr in queries():
        text = expr
        for variable, value in GRAFANA_VARIABLES.items():
            text = text.replace(variable, value)
        assert "$" not in text, f"a variable the test does not know: {expr}"
        expanded[expr] = text
    empty: list[str] = []
    deadline = time.monotonic() + 45  # a few scrapes and rule evaluations after the last commit
    while True:
        empty = [expr for expr, text in expanded.items() if not prometheus.query(text)]
        if not empty or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert not empty, "queries with no series:\n" + "\n".join(empty)

    metric, label = re.fullmatch(r"label_values\((\w+), (\w+)\)", SHARDS_QUERY).groups()  # type: ignore[union-attr]
    url = f"{prometheus.url}/api/v1/label/{label}/values?{urllib.parse.urlencode({'match[]': metric})}"
    with urllib.request.urlopen(url, timeout=5) as reply:
        assert json.loads(reply.read())["data"] == ["default"], "the shard variable lists the shards"

    dead = prometheus.query('sum by (code) (showdown_dead_letters_total{shard="default"})')
    assert sum(float(row["value"][1]) for row in dead) == client.xlen(keys.dead)
    placed = prometheus.query("sum(showdown_placements_total)")
    assert float(placed[0]["value"][1]) == client.xlen(keys.standings)
    archived = prometheus.query(f'showdown_archive_entries_total{{job="{ARCHIVER_JOB}",shard="default"}}')
    assert float(archived[0]["value"][1]) == total, "the archiver's own count, scraped"
    (lag,) = prometheus.query('showdown_archive_lag_entries{shard="default"}')
    assert float(lag["value"][1]) == 0, "caught up"


def test_the_observability_profile_runs_prometheus_with_the_rules_and_grafana_with_the_dashboard() -> None:
    compose = resolve(load_compose(), REPO, clean_env())  # as `docker compose config` would: every path exists
    services = compose["services"]
    prometheus, grafana = services["prometheus"], services["grafana"]
    assert "observability" in prometheus["profiles"]
    assert grafana["profiles"] == ["observability"]
    assert re.fullmatch(r"grafana/grafana:\d+\.\d+\.\d+", grafana["image"]), "a pinned release"
    config = yaml.safe_load(PROMETHEUS_FILE.read_text(encoding="utf-8"))
    (rule_file,) = config["rule_files"]
    assert f"./{RULES.relative_to(REPO)}:{rule_file}:ro" in prometheus["volumes"]
    mounts = dict(volume.rsplit(":", 2)[:2] for volume in grafana["volumes"] if volume.startswith("./"))
    assert mounts["./deploy/grafana/showdown.json"].startswith("/var/lib/grafana/dashboards/")
    provisioning = REPO / "deploy" / "grafana" / "provisioning"
    assert mounts[f"./{provisioning.relative_to(REPO)}"] == "/etc/grafana/provisioning"
    (source,) = yaml.safe_load((provisioning / "datasources" / "prometheus.yml").read_text(encoding="utf-8"))[
        "datasources"
    ]
    assert (source["uid"], source["type"]) == (DATASOURCE["uid"], DATASOURCE["type"])
    assert source["url"] == "http://prometheus:9090", "the prometheus service, on its port"
    (provider,) = yaml.safe_load((provisioning / "dashboards" / "showdown.yml").read_text(encoding="utf-8"))[
        "providers"
    ]
    assert provider["options"]["path"] == str(Path(mounts["./deploy/grafana/showdown.json"]).parent)
    assert "127.0.0.1:3000:3000" in grafana["ports"], "Grafana on this host only"
