"""Each process its own identity: the workers, the archiver and the read API on one host, every setting left at its
default, each beat in a heartbeat file of its own (locked) and serve /metrics on a port of its own; `showdown health`
checks each and names it; stopping one never makes another look stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import orjson
import pytest
import redis

from showdown_service.cli.commands import main as showdown_main
from showdown_service.infra.config import ARCHIVER_METRICS_PORT, Settings
from showdown_service.ops import heartbeat
from showdown_service.ops.metrics import PORTS_TRIED
from showdown_service.read.health import health
from showdown_service.testing.localredis import free_port
from tests.helpers import wait_until

SHOWDOWN = [sys.executable, "-m", "showdown_service"]
WORKER_METRICS_PORT = Settings.model_fields["metrics_port"].default


@pytest.fixture
def defaults_env(worker_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """The test server, and every other setting at its default: no heartbeat file, no metrics port set. TMPDIR is
    this test's own directory, where the default heartbeat files go."""
    own = ("SHOWDOWN_HEARTBEAT_FILE", "SHOWDOWN_METRICS_PORT", "SHOWDOWN_ARCHIVER_METRICS_PORT")
    env = {k: v for k, v in worker_env.items() if k not in own}
    env.update(TMPDIR=str(tmp_path), SHOWDOWN_ARCHIVE_URL=str(tmp_path / "archive"))
    return env


@contextmanager
def running(args: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``showdown ARGS`` as its own process (its output into ``log``); SIGTERMed on leaving if it still runs."""
    with log.open("ab") as out:
        process = subprocess.Popen([*SHOWDOWN, *args], env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        process.wait(30)


def run_health(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SHOWDOWN, "health"], env=env, capture_output=True, text=True, timeout=60, check=False)


def metrics_served(port: int, name: str) -> bool:
    try:
        return name in httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2).text
    except httpx.HTTPError:
        return False


def test_the_default_heartbeat_file_is_in_tmpdir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Separate runs on one host with their own TMPDIR never read each other's heartbeat files."""
    monkeypatch.delenv("SHOWDOWN_HEARTBEAT_FILE", raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    settings = Settings()
    assert settings.heartbeat_file == tmp_path / "showdown-worker.heartbeat"
    assert settings.archiver_heartbeat == tmp_path / "showdown-worker.heartbeat.archiver"
    assert settings.api_heartbeat == tmp_path / "showdown-worker.heartbeat.api"
    monkeypatch.delenv("TMPDIR")
    assert Settings().heartbeat_file == Path("/tmp/showdown-worker.heartbeat")


def test_the_archivers_default_metrics_port_is_none_of_the_workers() -> None:
    settings = Settings()
    assert settings.archiver_metrics_port == ARCHIVER_METRICS_PORT
    workers = range(WORKER_METRICS_PORT, WORKER_METRICS_PORT + PORTS_TRIED)  # moved up, or a group's i-th
    assert settings.archiver_metrics_port not in workers


def test_a_worker_group_started_after_an_archiver_with_every_default_starts_and_health_checks_each(
    defaults_env: dict[str, str], tmp_path: Path, client: redis.Redis
) -> None:
    """The archiver first (as docs/archive.md says), then `worker --processes 2` and `showdown api`, all with the
    defaults: every one runs; health names each; stopping the archiver leaves the workers healthy, the group's list of
    processes whole, and /healthz 200."""
    beat = tmp_path / "showdown-worker.heartbeat"
    api_port = free_port()
    with running(["archiver"], defaults_env, tmp_path / "archiver.log") as archiver:
        lock = Settings().keys("default").archive + ":lock"
        wait_until(lambda: bool(client.exists(lock)), what="the archiver at work (its shard's lock)", timeout=60)
        assert Path(f"{beat}.archiver").exists(), "its own heartbeat"
        assert not beat.exists(), "never the workers'"
        assert metrics_served(ARCHIVER_METRICS_PORT, "showdown_archive_lag_entries"), "its metrics on its own port"
        with (
            running(["worker", "--processes", "2"], defaults_env, tmp_path / "group.log") as group,
            running(["api", "--port", str(api_port)], defaults_env, tmp_path / "api.log") as api,
        ):
            every = "healthy: 2 workers, the archiver, the read API, every heartbeat fresh"
            wait_until(lambda: every in run_health(defaults_env).stdout or group.poll() is not None,
                       what="each healthy, or the group gone", timeout=90)  # fmt: skip
            assert group.poll() is None, (tmp_path / "group.log").read_text()
            checked = run_health(defaults_env)
            assert checked.returncode == 0, checked.stderr
            assert every in checked.stdout
            for i in range(2):  # each worker of the group on the workers' ports, from the default up
                assert metrics_served(WORKER_METRICS_PORT + i, "showdown_heartbeat_timestamp_seconds")
            assert not metrics_served(ARCHIVER_METRICS_PORT, "showdown_heartbeat_timestamp_seconds")

            archiver.send_signal(signal.SIGTERM)
            assert archiver.wait(30) == 0
            assert heartbeat.has_stopped(Path(f"{beat}.archiver"))
            assert orjson.loads(beat.read_bytes()) == {"processes": [f"{beat}.0", f"{beat}.1"]}, "the group's own"
            after = run_health(defaults_env)
            assert after.returncode == 0, after.stderr
            assert "the worker stopped" not in after.stdout + after.stderr
            assert f"note: {beat}.archiver: the archiver stopped" in after.stdout
            assert "healthy: 2 workers, the read API, every heartbeat fresh" in after.stdout
            healthz = httpx.get(f"http://127.0.0.1:{api_port}/healthz", timeout=10)
            assert (healthz.status_code, "healthy: 2 workers" in healthz.text) == (200, True), healthz.text
            assert group.poll() is None
            assert api.poll() is None


def test_a_second_archiver_on_the_same_heartbeat_file_stops_at_once_saying_what_to_set(
    defaults_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**defaults_env, "SHOWDOWN_ARCHIVER_METRICS_PORT": "0"}  # two archivers: the second must not stop on it
    beat = tmp_path / "showdown-worker.heartbeat.archiver"
    with running(["archiver"], env, tmp_path / "first.log") as first:
        wait_until(beat.exists, what="the first archiver's heartbeat", timeout=60)
        second = subprocess.run([*SHOWDOWN, "archiver"], env=env, capture_output=True, text=True, timeout=60,
                                check=False)  # fmt: skip
        assert second.returncode == 2
        assert f"{beat} is the heartbeat file of the archiver already running on this host" in second.stderr
        assert f"SHOWDOWN_ARCHIVER_HEARTBEAT_FILE={beat}.2" in second.stderr
        assert first.poll() is None


def test_health_names_the_archiver_when_it_waits_or_is_gone_never_the_worker(redis_url: str, tmp_path: Path) -> None:
    settings = Settings(redis_url=redis_url, heartbeat_file=tmp_path / "hb", metrics_port=0)
    heartbeat.write(settings.heartbeat_file)
    heartbeat.write(settings.archiver_heartbeat, {"waiting_for": "the archive: OSError: disk full"})
    healthy, lines = health(settings, growth=False)
    assert (healthy, lines) == (False, [f"unhealthy: {settings.archiver_heartbeat}: the archiver is waiting: the "
                                        "archive: OSError: disk full; it resumes by itself"])  # fmt: skip
    heartbeat.write(settings.archiver_heartbeat)
    os.utime(settings.archiver_heartbeat, (1.0, 1.0))  # killed: its heartbeat left behind, old
    healthy, lines = health(settings, growth=False)
    assert not healthy
    assert len(lines) == 1
    assert lines[0].startswith(f"unhealthy: {settings.archiver_heartbeat}: the heartbeat is")
    assert "the archiver is stuck or gone; restart it" in lines[0]


def test_health_never_says_healthy_when_the_archive_goes_past_redis_chain(
    client: redis.Redis, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis restarted without its data: its chain is at seq 0, the archive's progress at 1732."""
    settings = Settings(redis_url=redis_url, heartbeat_file=tmp_path / "hb", metrics_port=0)
    heartbeat.write(settings.heartbeat_file)
    client.hset(settings.keys("default").archive, mapping={"seq": 1732, "hash": "0" * 64})
    healthy, lines = health(settings, client)
    assert not healthy
    assert lines[0].startswith("unhealthy: shard default: the archive holds the chain to seq 1732 but Redis's chain "
                               "is at seq 0: Redis lost what it held")  # fmt: skip
    assert not any("archived to seq 1732 of 0" in line for line in lines)
    monkeypatch.setenv("SHOWDOWN_REDIS_URL", redis_url)
    monkeypatch.setenv("SHOWDOWN_HEARTBEAT_FILE", str(settings.heartbeat_file))
    assert showdown_main(["health"]) == 1
