"""Issue 33's "done when", end to end: `showdown worker`, `showdown archiver` and `showdown api` as processes with
their defaults (each its own heartbeat under TMPDIR; metrics ports taken free, since other runs share this host) on
one real server; Redis restarted empty mid-run, then once more after losing its last writes (AOF everysec, SIGKILL,
the AOF cut back to where it stood before the last hands). Every archive file written before each loss stays byte
for byte; every hand settled before a loss is still found by `showdown hand` and the API; no entry is archived
twice within an epoch; a hand re-sent after each loss is a duplicate; health, the metric and `audit verify` name the
reset; `audit replay` passes. Every wait is bounded in time (wait_until) and every loop in count."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import orjson
import pyarrow.parquet as pq
import redis

from showdown_service.decision.audit import Head
from showdown_service.infra.examples import example_lines
from showdown_service.infra.streams import read_range
from showdown_service.testing.localredis import LocalRedis, free_port
from tests.api_support import EVERYTHING, TOKENS, bearer
from tests.helpers import wait_until, xadd_events

SHOWDOWN = [sys.executable, "-m", "showdown_service.cli.commands"]
CASES = [orjson.loads(line)["event"] for line in list(example_lines())[:12]]
KEYS_AUDIT = "showdown:{default}:audit"
KEYS_RESULTS = "showdown:{default}:results"
KEYS_EVENTS = "showdown:{default}:events"
KEYS_ARCHIVE = "showdown:{default}:archive"


def hands(tag: str, n: int) -> list[dict[str, Any]]:
    return [{**CASES[i % len(CASES)], "hand_id": f"{tag}-{i}"} for i in range(n)]


@contextmanager
def process(args: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as sink:
        proc = subprocess.Popen([*SHOWDOWN, *args], env=env, stdout=sink, stderr=subprocess.STDOUT)
        try:
            yield proc
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SHOWDOWN, *args], env=env, capture_output=True, text=True, timeout=120, check=False)


def outcomes(client: redis.Redis) -> list[tuple[int, str, str]]:
    return [
        (body["seq"], body["hand_id"], body["outcome"])
        for body in (orjson.loads(f[b"audit"]) for _, f in read_range(client, KEYS_AUDIT))
    ]


def archived_seq(client: redis.Redis) -> int:
    return int(client.hget(KEYS_ARCHIVE, "seq") or 0)


def files(archive: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in sorted(archive.rglob("*.parquet"))}


def rows_by_epoch(archive: Path) -> Counter[tuple[str, int]]:
    """(the file's epoch, seq) of every archived row: a count above 1 is an entry archived twice in its epoch."""
    seen: Counter[tuple[str, int]] = Counter()
    for path in archive.rglob("*.parquet"):
        meta = {k.decode(): v.decode() for k, v in (pq.read_metadata(path).metadata or {}).items()}
        for seq in pq.read_table(path, columns=["seq"]).column("seq").to_pylist():
            seen[(meta["epoch"], int(seq))] += 1
    return seen


def incr_aof(data_dir: Path) -> Path:
    (found,) = sorted((data_dir / "appendonlydir").glob("*.incr.aof"))
    return found


def test_workers_archiver_and_api_with_defaults_ride_out_a_restart_without_data_and_one_that_lost_its_last_writes(
    tmp_path: Path,
) -> None:
    data = tmp_path / "redis"
    archive = tmp_path / "archive"
    with LocalRedis(appendfsync="everysec", data_dir=data) as server, ExitStack() as stack:
        client = redis.Redis.from_url(server.url, protocol=2)
        stack.callback(client.close)
        (tmp_path / "tmp").mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith("SHOWDOWN_")}
        worker_metrics, archiver_metrics = free_port(), free_port()
        env.update(SHOWDOWN_REDIS_URL=server.url, SHOWDOWN_ARCHIVE_URL=str(archive), TMPDIR=str(tmp_path / "tmp"),
                   SHOWDOWN_METRICS_PORT=str(worker_metrics), SHOWDOWN_ARCHIVER_METRICS_PORT=str(archiver_metrics),
                   SHOWDOWN_BACKOFF_MAX_S="0.2", SHOWDOWN_ARCHIVE_INTERVAL_S="0.2",
                   SHOWDOWN_API_TOKENS=orjson.dumps([t.model_dump() for t in TOKENS]).decode())  # fmt: skip
        api_port = free_port()
        stack.enter_context(process(["archiver"], env, tmp_path / "archiver.log"))  # first, as docs/archive.md says
        wait_until(lambda: client.exists(KEYS_ARCHIVE) == 1, what="the archiver registered", timeout=30)
        stack.enter_context(process(["worker"], env, tmp_path / "worker.log"))
        stack.enter_context(process(["api", "--port", str(api_port)], env, tmp_path / "api.log"))

        first = hands("a", 8)
        xadd_events(client, KEYS_EVENTS, first)
        wait_until(lambda: archived_seq(client) == 8, what="8 hands settled and archived", timeout=60)

        # 1. Redis restarted empty
        before_first = files(archive)
        server.kill()
        shutil.rmtree(data / "appendonlydir")
        server.restart()
        second = hands("b", 4)
        xadd_events(client, KEYS_EVENTS, [first[0], *second])
        wait_until(lambda: len(outcomes(client)) == 5, what="the re-send and 4 new hands decided", timeout=60)
        assert outcomes(client)[0] == (1, "a-0", "duplicate"), "a new epoch; the re-send is not paid again"
        wait_until(lambda: archived_seq(client) == 5, what="the new epoch archived", timeout=60)
        assert all(path.read_bytes() == body for path, body in before_first.items()), "nothing archived rewritten"

        # 2. Redis back behind the archive: the AOF cut back to before the last hands (as everysec loses a second)
        wait_until(lambda: incr_aof(data).stat().st_size > 0, what="the AOF written", timeout=10)
        cut = incr_aof(data).stat().st_size
        third = hands("c", 4)
        xadd_events(client, KEYS_EVENTS, third)
        wait_until(lambda: archived_seq(client) == 9, what="4 more settled and archived", timeout=60)
        before_second = files(archive)
        server.kill()
        os.truncate(incr_aof(data), cut)
        server.restart()
        assert Head.decode(client.get("showdown:{default}:audit:head")).seq == 5, "back behind the archive (seq 9)"
        xadd_events(client, KEYS_EVENTS, [third[1], *hands("d", 2)])
        wait_until(lambda: [o for _, _, o in outcomes(client)] == ["duplicate", "settled", "settled"],
                   what="a new epoch: c-1 a duplicate, two new hands", timeout=60)  # fmt: skip
        assert outcomes(client)[0] == (1, "c-1", "duplicate")
        wait_until(lambda: archived_seq(client) == 3, what="the third epoch archived", timeout=60)
        assert all(path.read_bytes() == body for path, body in before_second.items()), "nothing archived rewritten"

        twice = [key for key, count in rows_by_epoch(archive).items() if count > 1]
        assert twice == [], "no entry archived twice within an epoch"
        assert len({epoch for epoch, _ in rows_by_epoch(archive)}) == 3

        for hand in [first[3], second[2], third[3]]:  # settled before a loss: Redis lost them, the archive has them
            found = run(["hand", hand["hand_id"], "--json"], env)
            assert found.returncode == 0, found.stderr
            assert orjson.loads(found.stdout)["result"]["hand_id"] == hand["hand_id"]
            answer = httpx.get(f"http://127.0.0.1:{api_port}/v1/hands/{hand['hand_id']}", headers=bearer(EVERYTHING),
                               timeout=30)  # fmt: skip
            assert answer.status_code == 200, answer.text
            assert answer.json()["hand_id"] == hand["hand_id"]

        checked = run(["health"], env)
        assert checked.returncode == 0, checked.stderr
        assert "the chain restarted" in checked.stderr
        assert "Redis came back at seq 5, behind the archive" in checked.stderr
        scraped = httpx.get(f"http://127.0.0.1:{worker_metrics}/metrics", timeout=10).text
        assert 'showdown_chain_restarted{shard="default"} 1.0' in scraped
        verified = run(["audit", "verify"], env)
        assert "RESTARTED: the chain restarted" in verified.stdout, verified.stdout + verified.stderr
        replayed = run(["audit", "replay", str(archive)], env)
        assert replayed.returncode == 0, replayed.stdout + replayed.stderr
