"""The worker against a real server on 127.0.0.1: crashes, takeovers, drains, outages, tampering."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis

from showdown_service.cli.commands import main as showdown_main
from showdown_service.decision import audit
from showdown_service.infra.config import Settings, ShardKeys
from showdown_service.infra.connection import Client, connect
from showdown_service.infra.streams import read_range
from showdown_service.testing.localredis import LocalRedis
from showdown_service.worker.loop import Worker
from tests.helpers import REAL_SHOWDOWNS, read_cases, wait_until, xadd_events

CASES = list(read_cases(REAL_SHOWDOWNS))
SHOWDOWN = [sys.executable, "-m", "showdown_service"]


def many_events(n: int, tag: str = "h") -> list[dict[str, Any]]:
    """``n`` real showdowns, each with a hand_id of its own."""
    return [{**CASES[i % len(CASES)]["event"], "hand_id": f"{tag}-{i}"} for i in range(n)]


def expected_award(hand_id: str) -> dict[str, int]:
    i = int(hand_id.rsplit("-", 1)[1])
    return CASES[i % len(CASES)]["expected_award"]  # type: ignore[no-any-return]


def check_books(client: Client, keys: ShardKeys, group: str, entries: int) -> None:
    """Every entry has exactly one audit record and one outcome; each hand one correct result; nothing pending."""
    records = [orjson.loads(f[b"audit"]) for _, f in read_range(client, keys.audit)]
    assert len(records) == entries, "one audit record per entry"
    assert len({r["entry_id"] for r in records}) == entries, "no entry audited twice"
    results = [orjson.loads(f[b"result"]) for _, f in read_range(client, keys.results)]
    hands = Counter(r["hand_id"] for r in results)
    assert all(n == 1 for n in hands.values()), "no hand settled twice"
    for r in results:
        assert {str(a["seat"]): a["amount"] for a in r["awards"]} == expected_award(r["hand_id"])
    assert client.xpending(keys.events, group)["pending"] == 0
    verdict = audit.verify(audit.read_stream(client, keys.audit), audit.Head.decode(client.get(keys.audit_head)))
    assert verdict.holds, verdict.first_break


def spawn_worker(env: dict[str, str], consumer: str, **extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*SHOWDOWN, "worker"], env={**env, "SHOWDOWN_CONSUMER": consumer, **extra}, stdout=subprocess.DEVNULL
    )


def test_a_worker_process_settles_all_1177_real_showdowns_exactly(
    client: redis.Redis, worker_env: dict[str, str]
) -> None:
    settings = Settings(redis_url=worker_env["SHOWDOWN_REDIS_URL"])
    keys = settings.keys("default")
    xadd_events(client, keys.events, [case["event"] for case in CASES])
    worker = spawn_worker(worker_env, "w1")
    try:
        wait_until(lambda: client.xlen(keys.audit) == len(CASES), what="every entry audited")
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(30) == 0
    results = {
        orjson.loads(f[b"result"])["hand_id"]: orjson.loads(f[b"result"]) for _, f in read_range(client, keys.results)
    }
    for case in CASES:
        awards = {str(a["seat"]): a["amount"] for a in results[case["event"]["hand_id"]]["awards"]}
        assert awards == case["expected_award"], case["event"]["hand_id"]
    assert client.xpending(keys.events, settings.group)["pending"] == 0


def test_a_killed_workers_batch_is_finished_by_another_nothing_lost_nothing_twice(
    client: redis.Redis, worker_env: dict[str, str]
) -> None:
    settings = Settings(redis_url=worker_env["SHOWDOWN_REDIS_URL"])
    keys = settings.keys("default")
    total = 4000
    xadd_events(client, keys.events, many_events(total))
    doomed = spawn_worker(worker_env, "doomed", SHOWDOWN_BATCH_SIZE="400")

    def doomed_holds_a_batch() -> bool:
        try:
            held = {c["name"]: c["pending"] for c in client.xpending(keys.events, settings.group)["consumers"]}
        except redis.ResponseError:  # NOGROUP: the worker has not started yet
            return False
        return client.xlen(keys.results) > 0 and held.get(b"doomed", 0) > 0

    try:
        wait_until(doomed_holds_a_batch, what="the doomed worker to hold an uncommitted batch")
    finally:
        doomed.kill()
        doomed.wait()
    held = {c["name"]: c["pending"] for c in client.xpending(keys.events, settings.group)["consumers"]}
    assert held.get(b"doomed", 0) > 0, "killed mid-batch: its entries are still pending"
    survivor = spawn_worker(worker_env, "survivor", SHOWDOWN_CLAIM_IDLE_MS="500")
    try:
        wait_until(lambda: client.xlen(keys.audit) == total, what="every entry audited")
    finally:
        survivor.send_signal(signal.SIGTERM)
        assert survivor.wait(30) == 0
    check_books(client, keys, settings.group, total)
    assert client.xlen(keys.results) == total


def test_sigterm_finishes_the_batch_in_hand_and_exits_0(client: redis.Redis, worker_env: dict[str, str]) -> None:
    settings = Settings(redis_url=worker_env["SHOWDOWN_REDIS_URL"])
    keys = settings.keys("default")
    xadd_events(client, keys.events, many_events(6000))
    worker = spawn_worker(worker_env, "w1", SHOWDOWN_BATCH_SIZE="500")
    try:
        wait_until(lambda: client.xlen(keys.results) > 0, what="the first results")
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(30) == 0
    assert client.xpending(keys.events, settings.group)["pending"] == 0, "the batch in hand was committed"
    audited = client.xlen(keys.audit)
    assert 0 < audited < 6000, "it stopped early, having drained"
    check_books(client, keys, settings.group, audited)


def test_a_redis_outage_is_waited_out_and_the_work_completes(make_settings: Any, tmp_path: Path) -> None:
    server = LocalRedis(data_dir=tmp_path / "data", appendfsync="always")
    server.start()
    try:
        settings = make_settings(server.url, backoff_max_s=0.5)
        keys = settings.keys("default")
        client = connect(settings)
        xadd_events(client, keys.events, many_events(3000))
        worker = Worker(settings, connect(settings))
        runner = threading.Thread(target=worker.run)
        runner.start()
        try:
            wait_until(lambda: client.xlen(keys.results) > 0, what="the first results")
            server.kill()  # a crash: AOF (appendfsync always) keeps what was acknowledged
            time.sleep(1.0)
            server.restart()
            wait_until(lambda: client.xlen(keys.audit) == 3000, timeout=90, what="every entry audited after the outage")
        finally:  # a worker thread left running would keep pytest from exiting
            worker.stop()
            runner.join(30)
        assert not runner.is_alive()
        assert worker.metrics.redis_errors._value.get() > 0
        check_books(client, keys, settings.group, 3000)
    finally:
        server.close()


def test_a_commit_resent_after_a_lost_reply_writes_nothing_twice_on_real_redis(
    client: redis.Redis, make_settings: Any, redis_url: str
) -> None:
    settings = make_settings(redis_url)
    keys = settings.keys("default")
    xadd_events(client, keys.events, many_events(50))
    worker = Worker(settings, connect(settings))
    worker.prepare_groups()
    worker.step()  # reads, settles, and sends the commit in the background
    ((_, planned),) = worker._inflight
    worker.flush()  # the commit has run
    assert worker._commit_script(keys=planned.keys, args=planned.args)[0] == 0  # the re-send finds them gone
    check_books(client, keys, settings.group, 50)


def test_a_commit_refused_by_another_workers_commit_is_redone_at_once_not_after_a_blocked_read(
    client: redis.Redis, make_settings: Any, redis_url: str
) -> None:
    """Two workers on one shard, nothing more to read: the loser of a head race must not wait out ``block_ms``."""
    block_ms = 10_000
    first = make_settings(redis_url, consumer="first", block_ms=block_ms)
    second = make_settings(redis_url, consumer="second", block_ms=block_ms)
    keys = first.keys("default")
    one, two = Worker(first, connect(first)), Worker(second, connect(second))
    one.prepare_groups()
    xadd_events(client, keys.events, many_events(1, "a"))
    one.step()
    one.flush()  # `one` now holds the shard's head as it left it
    xadd_events(client, keys.events, many_events(1, "b"))
    two.step()
    two.flush()  # ...which `two` has moved
    xadd_events(client, keys.events, many_events(1, "c"))
    started = time.monotonic()
    one.step()  # reads c, settles it, sends its commit (chained on the old head) with the next read
    one.step()  # hears the refusal, re-plans on the new head and commits
    elapsed = time.monotonic() - started
    assert client.xlen(keys.results) == 3, "the refused commit was redone"
    assert elapsed < block_ms / 1000 / 2, f"the redo waited {elapsed:.1f}s behind a blocked read"
    check_books(client, keys, first.group, 3)


Rows = list[tuple[bytes, dict[bytes, bytes]]]


def rewrite_stream(client: redis.Redis, key: str, change: Callable[[Rows], Any]) -> None:
    """Tamper with a stream as an attacker with write access would: read it, change it, write it back."""
    rows = read_range(client, key)
    change(rows)
    client.delete(key)
    for entry_id, fields in rows:
        client.xadd(key, dict(fields.items()), id=entry_id)


@pytest.mark.parametrize(("tamper", "expected"), [("edit", "edited"), ("delete", "deleted")])
def test_audit_verify_names_the_first_edited_or_deleted_record(
    client: redis.Redis, make_settings: Any, redis_url: str, worker_env: dict[str, str], tamper: str, expected: str
) -> None:
    settings = make_settings(redis_url)
    keys = settings.keys("default")
    xadd_events(client, keys.events, many_events(30))
    worker = Worker(settings, connect(settings))
    worker.run(until_idle=True)
    verify = [*SHOWDOWN, "audit", "verify"]
    good = subprocess.run(verify, env=worker_env, capture_output=True, text=True, check=False)
    assert (good.returncode, "30 records, the chain holds") == (0, good.stdout.split(": ", 1)[1].split(" (")[0])

    def change(rows: Rows) -> None:
        if tamper == "edit":
            record = orjson.loads(rows[10][1][b"audit"])
            record["outcome"] = "duplicate"
            rows[10] = (rows[10][0], {b"audit": orjson.dumps(record)})
        else:
            del rows[10]

    rewrite_stream(client, keys.audit, change)
    bad = subprocess.run(verify, env=worker_env, capture_output=True, text=True, check=False)
    assert bad.returncode == 1
    assert f"BROKEN at seq {11 if tamper == 'edit' else 12}" in bad.stdout
    assert expected in bad.stdout


def test_publish_results_dead_letters_and_requeue_work_from_the_command_line(
    client: redis.Redis, worker_env: dict[str, str], tmp_path: Path
) -> None:
    keys = Settings().keys("default")
    events = tmp_path / "events.jsonl"
    bad = {**CASES[0]["event"], "hand_id": "fix-me", "board": ["As", "As", "2c", "3c", "4c"]}
    lines = [json.dumps(c["event"]) for c in CASES[:5]]
    events.write_text("\n".join([*lines, json.dumps(bad)]) + "\n", encoding="utf-8")
    publish = [*SHOWDOWN, "publish", str(events)]
    refused = subprocess.run(publish, env=worker_env, capture_output=True, text=True, check=False)
    assert refused.returncode == 1
    assert "published 5 events" in refused.stdout
    assert json.loads(refused.stderr)["code"] == "duplicate_card"
    raw = subprocess.run([*publish, "--raw"], env=worker_env, capture_output=True, text=True, check=False)
    assert raw.returncode == 0
    worker = spawn_worker(worker_env, "w1")
    try:
        wait_until(lambda: client.xlen(keys.audit) == 11, what="every published entry audited")
        shown = subprocess.run([*SHOWDOWN, "results"], env=worker_env, capture_output=True, text=True, check=True)
        assert len(shown.stdout.splitlines()) == 5
        assert "main pot" in shown.stdout
        listed = subprocess.run([*SHOWDOWN, "dead-letters"], env=worker_env, capture_output=True, text=True, check=True)
        assert "duplicate_card hand=fix-me" in listed.stdout
        dead_id = read_range(client, keys.dead)[0][0].decode()
        fixed = tmp_path / "fixed.json"
        fixed.write_text(json.dumps({**bad, "board": CASES[0]["event"]["board"]}), encoding="utf-8")
        still_bad = subprocess.run(
            [*SHOWDOWN, "dead-letters", "--requeue", dead_id],
            env=worker_env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert still_bad.returncode == 1
        assert "still invalid" in still_bad.stderr
        requeued = subprocess.run(
            [*SHOWDOWN, "dead-letters", "--requeue", dead_id, "--event", str(fixed)],
            env=worker_env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert "requeued" in requeued.stdout
        wait_until(lambda: client.xlen(keys.results) == 6, what="the requeued event settled")
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(30) == 0


def test_health_needs_a_fresh_heartbeat_and_an_answering_redis(worker_env: dict[str, str], tmp_path: Path) -> None:
    health = [*SHOWDOWN, "health"]
    missing = subprocess.run(health, env=worker_env, capture_output=True, text=True, check=False)
    assert missing.returncode == 1
    assert "no heartbeat" in missing.stderr
    Path(worker_env["SHOWDOWN_HEARTBEAT_FILE"]).touch()
    # fresh: touched just now (the bound is generous, as a process start on a loaded machine took 50 s once)
    fresh = subprocess.run(
        health, env={**worker_env, "SHOWDOWN_HEALTH_MAX_AGE_S": "600"}, capture_output=True, check=False
    )
    assert fresh.returncode == 0
    stale = subprocess.run(
        health, env={**worker_env, "SHOWDOWN_HEALTH_MAX_AGE_S": "0.001"}, capture_output=True, check=False
    )
    assert stale.returncode == 1
    down = {**worker_env, "SHOWDOWN_REDIS_URL": "redis://127.0.0.1:1/0"}
    unreachable = subprocess.run(health, env=down, capture_output=True, text=True, check=False)
    assert unreachable.returncode == 1
    assert "Redis does not answer" in unreachable.stderr


class Health:
    """`showdown health` run in this process (a subprocess spends seconds loading) on a worker's environment."""

    def __init__(self, env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
        self.env, self.monkeypatch, self.capsys = env, monkeypatch, capsys

    def __call__(self, max_age_s: float = 5.0) -> tuple[int, str, str]:
        """Exit status, standard output, standard error, with a heartbeat bound of ``max_age_s`` (a worker beats
        about once a second)."""
        with self.monkeypatch.context() as env:
            for key in [k for k in os.environ if k.startswith("SHOWDOWN_")]:
                env.delenv(key)
            for key, value in self.env.items():
                if key.startswith("SHOWDOWN_"):
                    env.setenv(key, value)
            env.setenv("SHOWDOWN_HEALTH_MAX_AGE_S", str(max_age_s))
            code = showdown_main(["health"])
        captured = self.capsys.readouterr()
        return code, captured.out, captured.err


@pytest.fixture
def health(worker_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Health:
    return Health(worker_env, monkeypatch, capsys)


def test_health_is_unhealthy_as_soon_as_the_worker_has_stopped(worker_env: dict[str, str], health: Health) -> None:
    worker = spawn_worker(worker_env, "w1")
    try:
        wait_until(lambda: health()[0] == 0, what="a healthy worker", timeout=60)
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(30) == 0
    code, _, err = health(max_age_s=3600)  # the heartbeat is fresh, the worker gone: it must say so all the same
    assert code == 1
    assert "the worker stopped" in err
    assert "start `showdown worker` again" in err


def test_health_of_a_group_of_processes_looks_at_every_process(worker_env: dict[str, str], health: Health) -> None:
    fleet = subprocess.Popen([*SHOWDOWN, "worker", "--processes", "2"], env={**worker_env, "SHOWDOWN_CONSUMER": "box"})
    heartbeat = worker_env["SHOWDOWN_HEARTBEAT_FILE"]
    try:
        wait_until(lambda: health()[0] == 0, what="both workers healthy", timeout=60)
        assert health()[1].startswith("healthy: 2 workers")
        children = Path(f"/proc/{fleet.pid}/task/{fleet.pid}/children").read_text().split()
        second = next(int(pid) for pid in children if "box-1" in Path(f"/proc/{pid}/environ").read_text())
        os.kill(second, signal.SIGSTOP)  # stuck: alive to the supervisor, beating no more
        try:
            wait_until(lambda: health(max_age_s=2)[0] == 1, what="the stuck one seen", timeout=60)
            faults = health(max_age_s=2)[2].splitlines()
            assert [f.split(":")[1].strip() for f in faults] == [f"{heartbeat}.1"], "the stuck process, only it"
            assert "old (limit 2s" in faults[0]
        finally:
            os.kill(second, signal.SIGCONT)
        wait_until(lambda: health()[0] == 0, what="healthy again once it runs", timeout=60)
    finally:
        fleet.send_signal(signal.SIGTERM)
        assert fleet.wait(30) == 0
    stopped = health(max_age_s=3600)[2].splitlines()
    assert [line.split(": ", 2)[1] for line in stopped] == [heartbeat, f"{heartbeat}.0", f"{heartbeat}.1"]
    assert "the group's supervisor (worker --processes) stopped" in stopped[0]
    assert all("the worker stopped" in line for line in stopped[1:])


def test_several_processes_share_the_group_and_stop_together(client: redis.Redis, worker_env: dict[str, str]) -> None:
    settings = Settings(redis_url=worker_env["SHOWDOWN_REDIS_URL"])
    keys = settings.keys("default")
    xadd_events(client, keys.events, many_events(3000))
    fleet = subprocess.Popen([*SHOWDOWN, "worker", "--processes", "2"], env={**worker_env, "SHOWDOWN_CONSUMER": "box"})
    try:
        wait_until(lambda: client.xlen(keys.audit) == 3000, what="every entry audited")
        workers = {r["worker"] for _, f in read_range(client, keys.audit) for r in [orjson.loads(f[b"audit"])]}
        assert workers == {"box-0", "box-1"}
    finally:
        fleet.send_signal(signal.SIGTERM)
        assert fleet.wait(30) == 0
    check_books(client, keys, settings.group, 3000)
