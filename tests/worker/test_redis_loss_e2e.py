"""Issue 33's "done when", end to end: `showdown worker --processes 2` (the worker group), `showdown archiver` and
`showdown api` as processes with their defaults (each its own heartbeat under TMPDIR; metrics ports taken free, since
other runs share this host) on one real server; a finished knockout tournament and a running one beside plain hands;
Redis restarted empty mid-run, then once more after losing its last writes (AOF everysec, SIGKILL, the AOF cut back to
where it stood before the last hands). Every archive file written before each loss stays byte for byte; every hand
settled before a loss is still found by `showdown hand` and the API; no entry is archived twice within an epoch; a
hand re-sent after each loss is a duplicate; the finished tournament's standings (the API's) are the same before and
after each loss; the running one is refused `ledger_lost`, restored (`showdown tournament restore`) as it stood, and
once its refused entries are requeued ends as the same tournament run without the loss; health, the metric and
`audit verify` name the reset; `audit replay` passes. Every wait is bounded in time (wait_until, on a condition) and
every loop in count."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import httpx
import orjson
import pyarrow.parquet as pq
import redis

from showdown_service.decision.audit import Head
from showdown_service.infra.examples import example_lines
from showdown_service.infra.streams import read_range
from showdown_service.testing.localredis import LocalRedis, free_port
from showdown_service.testing.simulate import Simulation, simulate
from tests.api_support import EVERYTHING, TOKENS, bearer
from tests.helpers import wait_until, xadd_events
from tests.worker.test_redis_loss import _uninterrupted, publish

SHOWDOWN = [sys.executable, "-m", "showdown_service.cli.commands"]
CASES = [orjson.loads(line)["event"] for line in list(example_lines())[:12]]
KEYS_AUDIT = "showdown:{default}:audit"
KEYS_RESULTS = "showdown:{default}:results"
KEYS_EVENTS = "showdown:{default}:events"
KEYS_ARCHIVE = "showdown:{default}:archive"


KEYS_DEAD = "showdown:{default}:dead"


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


def free_ports(n: int) -> int:
    """The first of ``n`` consecutive ports free on 127.0.0.1 (worker i of a group serves /metrics on port + i)."""
    for _ in range(50):
        first = free_port()
        try:
            for port in range(first, first + n):
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                    s.bind(("127.0.0.1", port))
        except OSError:
            continue
        return first
    raise AssertionError(f"no {n} consecutive free ports in 50 tries")


def tournament(tid: str, seed: int) -> Simulation:
    """A small knockout (bounties paid from the ledger's heads), every line a stream entry."""
    return simulate(seed, tournament_id=tid, players=12, reentries=2, stack=2000, quiet_hands=0)


def standings(port: int, tid: str) -> httpx.Response:
    return httpx.get(f"http://127.0.0.1:{port}/v1/tournaments/{tid}/standings", headers=bearer(EVERYTHING), timeout=60)


def decided(client: redis.Redis) -> Counter[tuple[str, str | None]]:
    """(outcome, code) of every record of the chain Redis holds."""
    return Counter(
        (body["outcome"], body["code"])
        for body in (orjson.loads(f[b"audit"]) for _, f in read_range(client, KEYS_AUDIT))
    )


def incr_aof(data_dir: Path) -> Path:
    (found,) = sorted((data_dir / "appendonlydir").glob("*.incr.aof"))
    return found


def send(client: redis.Redis, lines: list[bytes]) -> None:
    """Each simulator line as the stream entry a producer sends (tests/worker/test_redis_loss.py's publish)."""
    publish(client, cast(Any, SimpleNamespace(events=KEYS_EVENTS)), lines)


def decision(client: redis.Redis, hand_id: str) -> str:
    (found,) = [o for _, h, o in outcomes(client) if h == hand_id]
    return found


def test_a_worker_group_archiver_and_api_with_defaults_ride_out_a_restart_without_data_and_one_that_lost_its_tail(
    tmp_path: Path,
) -> None:
    data = tmp_path / "redis"
    archive = tmp_path / "archive"
    done, live = tournament("KO-DONE", 5), tournament("KO-LIVE", 7)
    half = len(live.lines) // 2
    rest = live.lines[half:]
    with LocalRedis(appendfsync="everysec", data_dir=data) as server, ExitStack() as stack:
        client = redis.Redis.from_url(server.url, protocol=2)
        stack.callback(client.close)
        (tmp_path / "tmp").mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith("SHOWDOWN_")}
        worker_metrics, archiver_metrics = free_ports(2), free_port()
        env.update(SHOWDOWN_REDIS_URL=server.url, SHOWDOWN_ARCHIVE_URL=str(archive), TMPDIR=str(tmp_path / "tmp"),
                   SHOWDOWN_METRICS_PORT=str(worker_metrics), SHOWDOWN_ARCHIVER_METRICS_PORT=str(archiver_metrics),
                   SHOWDOWN_BACKOFF_MAX_S="0.2", SHOWDOWN_ARCHIVE_INTERVAL_S="0.2",
                   SHOWDOWN_API_TOKENS=orjson.dumps([t.model_dump() for t in TOKENS]).decode())  # fmt: skip
        api_port = free_port()
        stack.enter_context(process(["archiver"], env, tmp_path / "archiver.log"))  # first, as docs/archive.md says
        wait_until(lambda: client.exists(KEYS_ARCHIVE) == 1, what="the archiver registered", timeout=30)
        stack.enter_context(process(["worker", "--processes", "2"], env, tmp_path / "worker.log"))
        stack.enter_context(process(["api", "--port", str(api_port)], env, tmp_path / "api.log"))

        first = hands("a", 8)
        xadd_events(client, KEYS_EVENTS, first)
        send(client, done.lines)
        send(client, live.lines[:half])
        settled = len(first) + len(done.lines) + half
        wait_until(lambda: archived_seq(client) == settled, what=f"{settled} entries settled and archived",
                   timeout=120)  # fmt: skip
        assert decided(client) == Counter({("settled", None): settled}), "every entry settled before the loss"
        done_before = standings(api_port, "KO-DONE")
        live_before = standings(api_port, "KO-LIVE")
        assert (done_before.status_code, live_before.status_code) == (200, 200), done_before.text + live_before.text
        assert done_before.json()["over"]
        assert not live_before.json()["over"]

        # 1. Redis restarted empty: a finished tournament, a running one, plain hands
        before_first = files(archive)
        server.kill()
        shutil.rmtree(data / "appendonlydir")
        server.restart()
        second = hands("b", 4)
        xadd_events(client, KEYS_EVENTS, [first[0], *second])
        wait_until(lambda: len(outcomes(client)) == 5, what="the re-send and 4 new hands decided", timeout=60)
        assert decision(client, "a-0") == "duplicate", "a new epoch; the re-send is not paid again"
        send(client, rest)
        wait_until(lambda: len(outcomes(client)) == 5 + len(rest), what="the running tournament's entries decided",
                   timeout=120)  # fmt: skip
        assert decided(client)[("rejected", "ledger_lost")] == len(rest), "never settled as plain hands"
        assert standings(api_port, "KO-DONE").json() == done_before.json(), "the finished one, from the archive"
        lost = standings(api_port, "KO-LIVE")
        assert (lost.status_code, lost.json()["code"]) == (503, "ledger_lost"), lost.text
        restored = run(["tournament", "restore", "KO-LIVE"], env)
        assert restored.returncode == 0, restored.stdout + restored.stderr
        assert standings(api_port, "KO-LIVE").json() == live_before.json(), "as it stood at its last archived entry"
        requeued = run(["dead-letters", "--code", "ledger_lost", "--requeue"], env)
        assert requeued.returncode == 0, requeued.stdout + requeued.stderr
        wait_until(lambda: standings(api_port, "KO-LIVE").json().get("over") is True,
                   what="the running tournament finished after its requeue", timeout=120)  # fmt: skip
        live_after = standings(api_port, "KO-LIVE").json()
        assert live_after["placements"] == _uninterrupted(live.lines, "KO-LIVE"), "as run without the loss"
        epoch2 = 5 + 2 * len(rest)
        wait_until(lambda: archived_seq(client) == epoch2, what="the new epoch archived", timeout=60)
        assert all(path.read_bytes() == body for path, body in before_first.items()), "nothing archived rewritten"

        # 2. Redis back behind the archive: the AOF cut back to before the last hands (as everysec loses a second)
        wait_until(lambda: incr_aof(data).stat().st_size > 0, what="the AOF written", timeout=10)
        cut = incr_aof(data).stat().st_size
        third = hands("c", 4)
        xadd_events(client, KEYS_EVENTS, third)
        wait_until(lambda: archived_seq(client) == epoch2 + 4, what="4 more settled and archived", timeout=60)
        before_second = files(archive)
        server.kill()
        os.truncate(incr_aof(data), cut)
        server.restart()
        assert Head.decode(client.get("showdown:{default}:audit:head")).seq == epoch2, "behind the archive"
        xadd_events(client, KEYS_EVENTS, [third[1], *hands("d", 2)])
        wait_until(lambda: len(outcomes(client)) == 3, what="a new epoch: c-1 and two new hands", timeout=60)
        assert [decision(client, h) for h in ("c-1", "d-0", "d-1")] == ["duplicate", "settled", "settled"]
        wait_until(lambda: archived_seq(client) == 3, what="the third epoch archived", timeout=60)
        assert all(path.read_bytes() == body for path, body in before_second.items()), "nothing archived rewritten"
        assert standings(api_port, "KO-DONE").json() == done_before.json()
        assert standings(api_port, "KO-LIVE").json() == live_after

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
        assert f"Redis came back at seq {epoch2}, behind the archive" in checked.stderr
        scraped = httpx.get(f"http://127.0.0.1:{worker_metrics}/metrics", timeout=10).text
        assert 'showdown_chain_restarted{shard="default"} 1.0' in scraped
        verified = run(["audit", "verify"], env)
        assert "RESTARTED: the chain restarted" in verified.stdout, verified.stdout + verified.stderr
        replayed = run(["audit", "replay", str(archive)], env)
        assert replayed.returncode == 0, replayed.stdout + replayed.stderr
