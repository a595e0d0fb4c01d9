"""When Redis refuses writes, valid hands wait and settle once it takes them again; they never become poison.

Each test starts its own server on 127.0.0.1 (a free port) and makes it
refuse writes the way one machine can: memory full under ``noeviction``
(OOM), a replica of an unreachable primary (READONLY), too few replicas for
``min-replicas-to-write`` (NOREPLICAS), a long script (BUSY), a commit that
fails after its entries were read (a script error), and commits whose reply
is lost after Redis ran them. A worker keeps trying for longer than
``max_deliveries`` retries; nothing may be dead-lettered; once Redis takes
writes again, every hand settles exactly once, with its known payout, and
the audit chain holds. ``showdown publish`` and ``publish()`` stop at the
first refused write with one clear line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis
from prometheus_client import generate_latest
from structlog.testing import capture_logs

from showdown_messages.publish import PublishRefused, publish
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import connect
from showdown_service.infra.streams import read_range
from showdown_service.testing.localredis import LocalRedis, free_port
from showdown_service.worker.loop import Worker
from tests.helpers import move_inboxes, wait_until, xadd_events
from tests.worker.test_worker_redis import check_books, many_events

SHOWDOWN = [sys.executable, "-m", "showdown_service"]
HANDS = 1000
BATCH = 500
"""A commit of 500 hands carries about 670 KB of arguments: more than the memory left in the OOM test."""
MAX_DELIVERIES = 2
RETRIES = 4 * MAX_DELIVERIES
"""Refused attempts to sit through before Redis takes writes again: far more than ``max_deliveries``."""
OOM_HEADROOM = 450 * 1024
"""Memory (bytes) left under maxmemory: room for the worker's connection (about 210 KB), not for a commit."""
BUSY_SCRIPT = """
local t0 = redis.call('TIME')
local start = t0[1] * 1000000 + t0[2]
while true do
  local t = redis.call('TIME')
  if t[1] * 1000000 + t[2] - start > tonumber(ARGV[1]) then return 1 end
end
"""
"""Keeps the server busy for ARGV[1] microseconds (reads the clock only: other clients get BUSY meanwhile)."""


@pytest.fixture
def server() -> Iterator[LocalRedis]:
    """A server of this test's own: its settings are about to be broken."""
    with LocalRedis(appendfsync=None) as own:
        yield own


@pytest.fixture
def admin(server: LocalRedis) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(server.url, protocol=2, socket_timeout=30)
    yield client
    client.close()


def most_deliveries(admin: redis.Redis, settings: Settings) -> int:
    """The highest delivery count among the pending entries (XPENDING is a read: allowed while writes are not)."""
    keys = settings.keys("default")
    pending = admin.xpending_range(keys.events, settings.group, "-", "+", HANDS)
    return max((int(p["times_delivered"]) for p in pending), default=0)


def left_pending_by_a_crash(admin: redis.Redis, settings: Settings) -> None:
    """Publish HANDS real showdowns and read them all as the worker's consumer, as a worker that then died would."""
    keys = settings.keys("default")
    xadd_events(admin, keys.events, many_events(HANDS))
    admin.xgroup_create(keys.events, settings.group, id="0")
    admin.xreadgroup(settings.group, settings.consumer, {keys.events: ">"}, count=HANDS)


def ride_out(
    admin: redis.Redis,
    settings: Settings,
    *,
    refuse: Callable[[], Any],
    accept: Callable[[], Any],
    reason: str,
    while_refused: Callable[[Worker], None] = lambda _: None,
) -> list[dict[str, Any]]:
    """Refuse writes, run the worker through RETRIES refused attempts, accept writes, check the books; its log."""
    keys = settings.keys("default")
    refuse()
    worker = Worker(settings, connect(settings))
    with capture_logs() as logs:
        runner = threading.Thread(target=worker.run, name="worker")
        runner.start()
        try:
            wait_until(lambda: worker.metrics.redis_errors._value.get() >= RETRIES, "refused attempts", timeout=60)
            assert worker.waiting_for is not None
            assert worker.waiting_for.code == reason
            assert worker.metrics.waiting.labels(reason)._value.get() == 1
            while_refused(worker)
            accept()
            wait_until(lambda: admin.xlen(keys.audit) == HANDS, "every hand audited once Redis takes writes", 90)
        finally:
            worker.stop()
            runner.join(30)
    assert not runner.is_alive()
    assert admin.xlen(keys.dead) == 0, "nothing was dead-lettered (a dead letter, once written, stays)"
    check_books(admin, keys, settings.group, HANDS)
    assert admin.xlen(keys.results) == HANDS, "every hand settled exactly once"
    assert worker.waiting_for is None
    assert worker.metrics.waiting.labels(reason)._value.get() == 0
    assert orjson.loads(settings.heartbeat_file.read_bytes()).keys() == {"stopped_at"}, "it waits for nothing"
    changes = [(e["event"], e["reason"]) for e in logs if e["event"] in ("redis_unavailable", "redis_resumed")]
    assert changes == [("redis_unavailable", reason), ("redis_resumed", reason)], "one line per change of state"
    assert sum(e["event"] == "redis_retry" for e in logs) >= RETRIES - 1, "each retry at DEBUG"
    return logs


def refusing_settings(make_settings: Any, server: LocalRedis) -> Settings:
    settings: Settings = make_settings(
        server.url, max_deliveries=MAX_DELIVERIES, batch_size=BATCH, backoff_max_s=0.1, claim_idle_ms=60_000
    )
    return settings


def test_a_full_redis_oom_under_noeviction_makes_hands_wait_then_settle_once_never_poison(
    server: LocalRedis, admin: redis.Redis, make_settings: Any
) -> None:
    """The issue's hole: reads are not refused when memory is full, so every retry re-read the batch (its delivery
    counts rose) while each commit was refused; after max_deliveries the valid hands were dead-lettered."""
    settings = refusing_settings(make_settings, server)
    left_pending_by_a_crash(admin, settings)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOWDOWN_")}
    env.update(SHOWDOWN_REDIS_URL=server.url, SHOWDOWN_HEARTBEAT_FILE=str(settings.heartbeat_file))
    deliveries_seen: list[int] = []

    def full() -> None:
        admin.config_set("maxmemory-policy", "noeviction")
        admin.config_set("maxmemory", int(admin.info("memory")["used_memory"]) + OOM_HEADROOM)

    def meanwhile(worker: Worker) -> None:
        wait_until(lambda: most_deliveries(admin, settings) > MAX_DELIVERIES + 2, "re-reads of the refused batch")
        deliveries_seen.append(most_deliveries(admin, settings))
        health = subprocess.run([*SHOWDOWN, "health"], env=env, capture_output=True, text=True, check=False)
        assert health.returncode == 1
        assert "the worker is waiting: Redis refuses writes: OOM" in health.stderr
        assert 'showdown_redis_waiting{reason="OOM"} 1.0' in generate_latest(worker.metrics.registry).decode()

    def health() -> subprocess.CompletedProcess[str]:
        return subprocess.run([*SHOWDOWN, "health"], env=env, capture_output=True, text=True, check=False)

    def accept() -> None:
        admin.config_set("maxmemory", 0)
        wait_until(lambda: health().stdout.startswith("healthy"), "healthy again once Redis takes writes")

    logs = ride_out(admin, settings, refuse=full, accept=accept, reason="OOM", while_refused=meanwhile)
    assert deliveries_seen[0] > MAX_DELIVERIES + 2, "counted as before, every hand of the batch was poison"
    waiting = next(e for e in logs if e["event"] == "redis_unavailable")
    assert waiting["waiting_for"].startswith("Redis refuses writes: OOM")
    assert "maxmemory" in waiting["error"]
    stopped = health()
    assert (stopped.returncode, "the worker stopped" in stopped.stderr) == (1, True), "healthy no more once it stops"


def test_a_replica_of_an_unreachable_primary_readonly_makes_hands_wait_then_settle_once(
    server: LocalRedis, admin: redis.Redis, make_settings: Any
) -> None:
    settings = refusing_settings(make_settings, server)
    left_pending_by_a_crash(admin, settings)
    nobody = free_port()  # closed: the primary never answers
    ride_out(
        admin,
        settings,
        refuse=lambda: admin.execute_command("REPLICAOF", "127.0.0.1", str(nobody)),  # type: ignore[no-untyped-call]
        accept=lambda: admin.execute_command("REPLICAOF", "NO", "ONE"),  # type: ignore[no-untyped-call]
        reason="READONLY",
    )


def test_too_few_replicas_for_min_replicas_to_write_noreplicas_makes_hands_wait_then_settle_once(
    server: LocalRedis, admin: redis.Redis, make_settings: Any
) -> None:
    settings = refusing_settings(make_settings, server)
    left_pending_by_a_crash(admin, settings)
    ride_out(
        admin,
        settings,
        refuse=lambda: admin.config_set("min-replicas-to-write", 1),
        accept=lambda: admin.config_set("min-replicas-to-write", 0),
        reason="NOREPLICAS",
    )


def test_a_long_script_busy_makes_hands_wait_then_settle_once(
    server: LocalRedis, admin: redis.Redis, make_settings: Any
) -> None:
    settings = refusing_settings(make_settings, server)
    left_pending_by_a_crash(admin, settings)
    admin.config_set("lua-time-limit", 50)  # busy-reply-threshold: other clients get BUSY after 50 ms
    ended: list[str] = []

    def run_script() -> None:
        client = redis.Redis.from_url(server.url, socket_timeout=150)
        try:
            client.eval(BUSY_SCRIPT, 0, 120_000_000)  # at most 2 minutes; SCRIPT KILL ends it
        except redis.ResponseError as exc:
            ended.append(str(exc))
        finally:
            client.close()

    blocker = threading.Thread(target=run_script, name="busy-script")

    def busy() -> None:
        blocker.start()
        wait_until(lambda: _answers_busy(server), "the server to answer BUSY", timeout=10)

    def script_killed() -> None:
        killer = server.probe()
        try:
            killer.script_kill()
        finally:
            killer.close()
        blocker.join(30)

    try:
        ride_out(admin, settings, refuse=busy, accept=script_killed, reason="BUSY")
    finally:
        if blocker.is_alive():
            script_killed()
    assert len(ended) == 1, "the script ran until it was killed"


def _answers_busy(server: LocalRedis) -> bool:
    probe = server.probe()
    try:
        probe.ping()
    except redis.ResponseError as exc:
        return str(exc).startswith("BUSY")
    finally:
        probe.close()
    return False


def test_a_commit_that_fails_after_its_entries_were_read_makes_them_wait_never_poison(
    server: LocalRedis, admin: redis.Redis, make_settings: Any
) -> None:
    """The read succeeds (delivery counts rise), the commit fails: the audit head key holds a list, so the chain
    head cannot be read and the commit errors (WRONGTYPE) before writing anything; then the key is repaired."""
    settings = refusing_settings(make_settings, server)
    left_pending_by_a_crash(admin, settings)
    head = settings.keys("default").audit_head
    assert admin.get(head) is None, "an empty chain: repairing means deleting the key"
    seen: list[int] = []

    def meanwhile(_worker: Worker) -> None:
        wait_until(lambda: most_deliveries(admin, settings) > MAX_DELIVERIES + 2, "re-reads of the failing batch")
        seen.append(most_deliveries(admin, settings))

    logs = ride_out(
        admin,
        settings,
        refuse=lambda: admin.rpush(head, "not a chain head"),
        accept=lambda: admin.delete(head),
        reason="WRONGTYPE",
        while_refused=meanwhile,
    )
    assert seen[0] > MAX_DELIVERIES + 2
    waiting = next(e for e in logs if e["event"] == "redis_unavailable")
    assert waiting["log_level"] == "error", "not the server's state: something to fix"


class LostReplies(Worker):
    """A worker whose first ``lose`` commits run in Redis but whose replies never come back (a timeout)."""

    def __init__(self, *args: Any, lose: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lose = lose

    def _round_trip(self, plans: list[Any]) -> list[Any]:
        replies = super()._round_trip(plans)
        if plans and self.lose > 0:
            self.lose -= 1
            raise redis.TimeoutError("Timeout reading from socket (injected after Redis ran the commit)")
        return replies


def test_commits_whose_replies_time_out_after_redis_ran_them_settle_each_hand_once(
    server: LocalRedis, admin: redis.Redis, make_settings: Any
) -> None:
    settings = make_settings(server.url, max_deliveries=MAX_DELIVERIES, batch_size=50, backoff_max_s=0.05)
    keys = settings.keys("default")
    xadd_events(admin, keys.events, many_events(HANDS))
    worker = LostReplies(settings, connect(settings), lose=RETRIES)
    runner = threading.Thread(target=worker.run, name="worker")
    runner.start()
    try:
        wait_until(lambda: admin.xlen(keys.audit) == HANDS, "every hand audited", timeout=90)
    finally:
        worker.stop()
        runner.join(30)
    assert worker.lose == 0
    assert worker.metrics.redis_errors._value.get() >= RETRIES
    assert admin.xlen(keys.dead) == 0
    check_books(admin, keys, settings.group, HANDS)
    assert admin.xlen(keys.results) == HANDS


# --- producers -----------------------------------------------------------------------------------------


def publish_env(server: LocalRedis, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOWDOWN_")}
    env.update(SHOWDOWN_REDIS_URL=server.url, SHOWDOWN_HEARTBEAT_FILE=str(tmp_path / "heartbeat"))
    return env


def hands_file(tmp_path: Path, n: int) -> Path:
    path = tmp_path / "hands.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in many_events(n, "p")), encoding="utf-8")
    return path


def test_publish_into_a_full_redis_stops_with_one_line_and_rerunning_the_file_settles_each_hand_once(
    server: LocalRedis, admin: redis.Redis, make_settings: Any, tmp_path: Path
) -> None:
    env, hands = publish_env(server, tmp_path), hands_file(tmp_path, 3000)
    keys = Settings(redis_url=server.url).keys("default")
    admin.config_set("maxmemory-policy", "noeviction")
    admin.config_set("maxmemory", int(admin.info("memory")["used_memory"]) + 1024 * 1024)
    stopped = subprocess.run([*SHOWDOWN, "publish", str(hands)], env=env, capture_output=True, text=True, check=False)
    admin.config_set("maxmemory", 0)  # room to move what was pushed into the stream
    move_inboxes(admin)
    accepted = admin.xlen(keys.events)
    assert 0 < accepted < 3000
    assert stopped.returncode == 1
    assert stopped.stdout == ""
    assert stopped.stderr.count("\n") == 1, "one line"
    published = [int(orjson.loads(f[b"event"])["hand_id"][2:]) for _, f in read_range(admin, keys.events)]
    first_missing = next(i for i, n in enumerate([*published, -1]) if n != i)
    assert f"stopped at line {first_missing + 1} (hand_id 'p-{first_missing}'): Redis refuses writes: OOM" in (
        stopped.stderr
    )
    assert f"{accepted} events were published" in stopped.stderr
    after = accepted - first_missing  # memory freed for a moment: later lines of the same pipeline got in
    assert (f"{after} lines after it were published all the same" in stopped.stderr) == (after > 0)
    assert "Re-run the same file" in stopped.stderr
    assert "duplicates, never settled twice" in stopped.stderr
    assert "Traceback" not in stopped.stderr

    admin.config_set("maxmemory", 0)
    again = subprocess.run([*SHOWDOWN, "publish", str(hands)], env=env, capture_output=True, text=True, check=False)
    assert (again.returncode, again.stdout.strip()) == (0, "published 3000 events")
    settings = make_settings(server.url)
    worker = Worker(settings, connect(settings))
    worker.run(until_idle=True)
    outcomes = [orjson.loads(f[b"audit"])["outcome"] for _, f in read_range(admin, keys.audit)]
    assert (outcomes.count("settled"), outcomes.count("duplicate"), len(outcomes)) == (3000, accepted, 3000 + accepted)
    assert admin.xlen(keys.results) == 3000
    assert admin.xlen(keys.dead) == 0


@pytest.mark.parametrize(("refuse", "reason"), [("replica", "READONLY"), ("replicas", "NOREPLICAS")])
def test_publish_to_a_redis_refusing_writes_publishes_nothing_and_says_why_in_one_line(
    server: LocalRedis, admin: redis.Redis, tmp_path: Path, refuse: str, reason: str
) -> None:
    if refuse == "replica":
        admin.execute_command("REPLICAOF", "127.0.0.1", str(free_port()))  # type: ignore[no-untyped-call]
    else:
        admin.config_set("min-replicas-to-write", 1)
    hands = hands_file(tmp_path, 10)
    env = publish_env(server, tmp_path)
    stopped = subprocess.run([*SHOWDOWN, "publish", str(hands)], env=env, capture_output=True, text=True, check=False)
    assert stopped.returncode == 1
    assert stopped.stderr.count("\n") == 1
    assert f"stopped at line 1 (hand_id 'p-0'): Redis refuses writes: {reason}" in stopped.stderr
    assert "0 events were published" in stopped.stderr
    with pytest.raises(PublishRefused) as refused:
        publish(admin, many_events(1, "api")[0])
    assert (refused.value.accepted, refused.value.hand_id, refused.value.refusal.code) == (0, "api-0", reason)
    assert f"hand_id 'api-0' was not published: Redis refuses writes: {reason}" in str(refused.value)
    assert admin.xlen(Settings().keys("default").events) == 0


KILLED_HANDS = 8000
"""One batch of them: its commit's checks run past 100,000 Lua instructions, the count at which the server's hook
first looks at the clock (and serves SCRIPT KILL); a batch of 100 never gets there."""


def test_a_commit_killed_by_script_kill_before_it_writes_changes_nothing_and_is_redone(
    server: LocalRedis, admin: redis.Redis, make_settings: Any
) -> None:
    """SCRIPT KILL sent over and over while a worker commits: a commit killed in its checks (it has written nothing:
    once a script writes, the server answers UNKILLABLE) is an error to the worker, which waits and redoes the batch;
    every hand settles once and the chain holds."""
    settings = make_settings(server.url, batch_size=KILLED_HANDS, backoff_max_s=0.2)
    keys = settings.keys("default")
    client = connect(settings)
    events = many_events(KILLED_HANDS)
    for start in range(0, KILLED_HANDS, 2000):
        xadd_events(client, keys.events, events[start : start + 2000])
    admin.config_set("busy-reply-threshold", 1)  # a script is served SCRIPT KILL from its first millisecond
    replies: list[str] = []
    stop = threading.Event()

    def kill_scripts() -> None:
        killer = server.probe()
        try:
            while not stop.is_set() and replies.count("OK") < 3:
                try:
                    killer.script_kill()
                    replies.append("OK")  # no other script runs here: it was the worker's commit
                except redis.ResponseError as exc:
                    replies.append(str(exc).split(" ", 1)[0])  # NOTBUSY, UNKILLABLE
        finally:
            killer.close()

    killing = threading.Thread(target=kill_scripts, name="script-kill")
    worker = Worker(settings, connect(settings))
    runner = threading.Thread(target=worker.run)
    killing.start()
    runner.start()
    try:
        killing.join(60)
        stop.set()
        killing.join(5)
        assert replies.count("OK") > 0, f"no commit was killed: {set(replies)}"
        wait_until(lambda: _audited(client, keys.audit) == KILLED_HANDS, "every hand audited", timeout=120)
    finally:
        stop.set()
        worker.stop()
        runner.join(60)
    assert worker.metrics.redis_errors._value.get() > 0, "the killed commits were errors, waited out"
    check_books(client, keys, settings.group, KILLED_HANDS)


def _audited(client: Any, audit: str) -> int:
    try:
        return int(client.xlen(audit))
    except redis.ResponseError:  # BUSY: a commit runs past the threshold
        return -1
