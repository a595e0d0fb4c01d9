"""The producers' append-only path (issue 24, item 2) and the faults around it (items 3, 16, 17).

Producers RPUSH to a shard's inbox; the workers move it into the events
stream (showdown_service.worker.ingress). ACL proofs (what the producer may not do)
are in tests/ops/test_acl.py; here: order, atomicity under kills, latency, the
watch for deleted unread events, WRONGTYPE as a fault, WAITAOF, and redis-py's
"TTL exhausted" as a routine wait.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import fakeredis
import orjson
import pytest
import redis
from prometheus_client import generate_latest
from redis.exceptions import ClusterError
from structlog.testing import capture_logs

from showdown_messages.publish import PublishRefused, element, inbox_key, publish, publish_tournament, refusal
from showdown_service.infra.streams import read_range
from showdown_service.ops import heartbeat
from showdown_service.testing.localredis import LocalRedis
from showdown_service.worker.ingress import InboxMoveFailed, Ingress
from showdown_service.worker.loop import Worker
from tests.helpers import BUNDLED_SHOWDOWNS, read_cases, tls_redis_server, wait_until
from tests.tournament_builders import all_in, closed, entry, opened

SHOWDOWN = [sys.executable, "-m", "showdown_service.cli.commands"]
CASES = list(read_cases(BUNDLED_SHOWDOWNS))


def many_events(n: int, tag: str = "k") -> list[dict[str, Any]]:
    """``n`` real showdowns, each with a hand_id of its own."""
    return [{**CASES[i % len(CASES)]["event"], "hand_id": f"{tag}-{i}"} for i in range(n)]


def drain(worker: Worker) -> None:
    worker.run(until_idle=True)


@pytest.fixture
def server() -> Iterator[LocalRedis]:
    """A server of this test's own (AOF on: WAITAOF needs it)."""
    with LocalRedis() as own:
        yield own


@pytest.fixture
def admin(server: LocalRedis) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(server.url, protocol=2, socket_timeout=30)
    yield client
    client.close()


# --- item 2: an append-only path, moved in order, atomically ---------------------------------------------------------


def test_item2_publish_pushes_to_the_shard_s_inbox_and_a_worker_moves_it_in_order_into_the_stream(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    """A tournament's messages and hands, pushed in order, reach the stream in that order and settle as sent."""
    settings = make_settings()
    keys = settings.keys("default")
    lines = [opened(payouts=[100, 50]), entry("a"), entry("b"), entry("c"), closed(),
             all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)])]  # fmt: skip
    for line in lines:
        doc = json.loads(line)
        if "tournament" in doc:
            publish_tournament(fake, doc["tournament"])
        else:
            publish(fake, doc["event"])
    assert fake.llen(inbox_key()) == len(lines)
    assert not fake.exists(keys.events), "nothing reaches the stream but through a worker"
    drain(Worker(settings, fake))
    assert fake.llen(inbox_key()) == 0
    sent = [(next(iter(f)).decode(), orjson.loads(next(iter(f.values())))) for _, f in read_range(fake, keys.events)]
    assert [field for field, _ in sent] == ["tournament"] * 5 + ["event"]
    assert [body.get("type") for _, body in sent[:5]] == ["open", "entry", "entry", "entry", "registration_closed"]
    assert fake.xlen(keys.dead) == 0
    assert fake.xlen(keys.results) == 1
    assert fake.xlen(keys.standings) == 1


def test_item2_an_element_without_a_known_field_is_taken_whole_as_an_event_and_dead_lettered_with_its_bytes(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    good = json.dumps(CASES[0]["event"]).encode()
    fake.rpush(keys.inbox, good, b"tournament", b"MAXLEN 1", element("event", b"\xff\xfe"))
    drain(Worker(settings, fake))
    assert fake.xlen(keys.results) == 1, "a bare event JSON is an event"
    assert sorted(f[b"raw"] for _, f in read_range(fake, keys.dead)) == [b"MAXLEN 1", b"tournament", b"\xff\xfe"]


def test_item2_a_refused_xadd_inside_the_move_leaves_every_element_in_the_inbox_and_says_why(
    admin: redis.Redis, server: LocalRedis, make_settings: Any
) -> None:
    """The events stream refuses every XADD (its last id is the largest possible: an admin's doing, no producer can):
    the move adds nothing, removes nothing, and raises the server's reason."""
    keys = make_settings(server.url).keys("default")
    admin.xadd(keys.events, {"event": "{}"}, id="18446744073709551615-18446744073709551615")
    admin.rpush(keys.inbox, *(element("event", json.dumps(e)) for e in many_events(3)))
    ingress = Ingress(admin, [keys], count=100)
    with pytest.raises(InboxMoveFailed, match=r"(?i)exhausted|last possible"):
        ingress.move()
    assert admin.llen(keys.inbox) == 3
    assert admin.xlen(keys.events) == 1
    admin.delete(keys.events)
    assert ingress.move() == 3, "once the stream takes writes, all three move, once"
    assert admin.llen(keys.inbox) == 0
    assert [orjson.loads(f[b"event"])["hand_id"] for _, f in read_range(admin, keys.events)] == ["k-0", "k-1", "k-2"]


class _ClosedUnderTheWait(fakeredis.FakeRedis):
    """A client closed by another thread while its BLMOVE waited: redis-py's pool then meets a socket that is None
    and raises a TypeError from ``select.poll().register`` (seen in CI, stop 44)."""

    def blmove(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("argument must be an int, or have a fileno() method.")


def test_item2_the_inbox_watcher_ends_quietly_when_its_client_is_closed_under_it_and_the_worker_s_check_goes_on(
    make_settings: Any,
) -> None:
    """Whatever ends the watcher's wait ends the thread with nothing left unhandled (pytest reported a closed client's
    TypeError as an unhandled thread exception, failing an unrelated test); only a refusal is raised by the worker's
    next check: a lost connection the worker's loop meets itself, and an idle worker starts a new watcher."""
    keys = make_settings("redis://127.0.0.1:1").keys("default")
    ingress = Ingress(_ClosedUnderTheWait(server=fakeredis.FakeServer(), protocol=2), [keys], count=10)
    unhandled: list[threading.ExceptHookArgs] = []
    before, threading.excepthook = threading.excepthook, unhandled.append
    try:
        with ingress.watching(50):
            wait_until(lambda: ingress._watcher is None, "the watcher ended")
        ingress.stop()
    finally:
        threading.excepthook = before
    assert unhandled == []
    ingress.check([[0, None]])  # nothing moved, nothing to raise: the lost connection is the loop's to meet
    with ingress.watching(50):
        wait_until(lambda: ingress._watcher is None, "a new watcher started and ended the same way")
    assert unhandled == []


def test_item2_workers_killed_while_they_move_and_settle_lose_and_duplicate_nothing(
    admin: redis.Redis, server: LocalRedis, tmp_path: Path, make_settings: Any
) -> None:
    """2,000 hands pushed while `showdown worker` processes are SIGKILLed three times: every pushed hand becomes
    exactly one stream entry (a duplicated element would show as a `duplicate` outcome) and settles once."""
    keys = make_settings(server.url).keys("default")
    events = many_events(2000)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOWDOWN_")}
    env.update(SHOWDOWN_REDIS_URL=server.url, SHOWDOWN_METRICS_PORT="0", SHOWDOWN_BLOCK_MS="50",
               SHOWDOWN_CLAIM_IDLE_MS="500", SHOWDOWN_HEARTBEAT_FILE=str(tmp_path / "hb"),
               SHOWDOWN_LOG_LEVEL="warning", SHOWDOWN_BATCH_SIZE="50")  # fmt: skip
    kills = 0
    workers: list[subprocess.Popen[bytes]] = []
    try:
        for chunk in range(0, len(events), 100):
            admin.rpush(keys.inbox, *(element("event", json.dumps(e)) for e in events[chunk : chunk + 100]))
            if chunk % 500 == 0:
                if workers and workers[-1].poll() is None and kills < 3:
                    workers[-1].send_signal(signal.SIGKILL)
                    workers[-1].wait(10)
                    kills += 1
                workers.append(subprocess.Popen([*SHOWDOWN, "worker"], env={**env, "SHOWDOWN_CONSUMER": f"w{chunk}"},
                                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))  # fmt: skip
            time.sleep(0.05)
        wait_until(lambda: admin.xlen(keys.audit) >= len(events), "every pushed hand audited", timeout=120)
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
                worker.wait(30)
    assert kills == 3
    assert admin.llen(keys.inbox) == 0
    assert admin.xlen(keys.events) == len(events) or admin.xlen(keys.audit) == len(events)
    outcomes = Counter(orjson.loads(f[b"audit"])["outcome"] for _, f in read_range(admin, keys.audit))
    assert outcomes == {"settled": len(events)}, outcomes
    hands = [orjson.loads(f[b"result"])["hand_id"] for _, f in read_range(admin, keys.results)]
    assert sorted(hands) == sorted(e["hand_id"] for e in events)


def test_item2_an_idle_worker_wakes_on_a_push_without_waiting_out_block_ms(
    admin: redis.Redis, server: LocalRedis, make_settings: Any
) -> None:
    block_ms = 10_000
    settings = make_settings(server.url, block_ms=block_ms)
    keys = settings.keys("default")
    worker = Worker(settings, redis.Redis.from_url(server.url, protocol=2))
    runner = threading.Thread(target=worker.run)
    runner.start()
    try:
        wait_until(lambda: bool(admin.exists(keys.events)) and bool(admin.xinfo_groups(keys.events)), "the group")
        time.sleep(0.5)  # idle by now: waiting on the inbox
        pushed = time.monotonic()
        publish(admin, CASES[0]["event"])
        wait_until(lambda: admin.xlen(keys.results) == 1, "the hand settled", timeout=block_ms / 1000)
        waited = time.monotonic() - pushed
    finally:
        worker.stop()
        runner.join(30)
    assert waited < block_ms / 1000 / 2, f"the push waited {waited:.1f}s behind a blocked read"


def results_reach(client: redis.Redis, results: str, n: int) -> bool:
    return int(client.xlen(results)) == n


@pytest.mark.parametrize("shards", ["default", "default,other"])
def test_issue41_an_idle_worker_wakes_on_an_entry_xadded_straight_to_its_stream_and_on_a_push_alike(
    admin: redis.Redis, server: LocalRedis, make_settings: Any, shards: str
) -> None:
    """Issue 41 section 2: an entry XADDed to the events stream directly (``dead-letters --requeue``, a backlog
    left after an outage) waited out block_ms behind a wait on the inbox each time the worker had caught up;
    it is read at once now, as a push is, one after the other, on one shard or several."""
    block_ms = 10_000
    settings = make_settings(server.url, block_ms=block_ms, shards=shards)
    keys = settings.keys("default")
    worker = Worker(settings, redis.Redis.from_url(server.url, protocol=2, socket_timeout=30))
    runner = threading.Thread(target=worker.run)
    runner.start()
    waited: list[float] = []
    try:
        wait_until(lambda: bool(admin.exists(keys.events)) and bool(admin.xinfo_groups(keys.events)), "the group")
        for i, how in enumerate(["xadd", "push", "xadd", "xadd", "push"]):
            time.sleep(0.3)  # idle by now: waiting
            event = {**CASES[0]["event"], "hand_id": f"idle-{i}"}
            sent = time.monotonic()
            if how == "xadd":
                admin.xadd(keys.events, {"event": orjson.dumps(event)})
            else:
                publish(admin, event)
            wait_until(partial(results_reach, admin, keys.results, i + 1), f"{how} {i} settled", timeout=10)
            waited.append(time.monotonic() - sent)
    finally:
        worker.stop()
        runner.join(30)
    assert not runner.is_alive()
    assert max(waited) < block_ms / 1000 / 4, f"an entry waited behind a blocked read: {waited}"


def test_issue41_a_burst_xadded_to_an_idle_worker_s_stream_is_read_as_one_batch_not_its_first_entry_alone(
    admin: redis.Redis, server: LocalRedis, make_settings: Any
) -> None:
    """The blocking read wakes on a burst's first XADD (Redis answers a blocked read after the command that fed
    it): that entry alone would be a batch of one, committed in a round trip of its own before the rest. The
    worker reads again at once, and gets the rest of the burst with it."""
    settings = make_settings(server.url, block_ms=10_000)
    keys = settings.keys("default")
    worker = Worker(settings, redis.Redis.from_url(server.url, protocol=2, socket_timeout=30))
    worker.prepare_groups()

    def burst() -> None:
        time.sleep(0.5)  # the worker waits by now
        pipe = admin.pipeline(transaction=False)
        for event in many_events(50, "burst"):
            pipe.xadd(keys.events, {"event": orjson.dumps(event)})
        pipe.execute()

    sender = threading.Thread(target=burst)
    sender.start()
    started = time.monotonic()
    rows = worker.pipeline.read(block=10_000)
    took = time.monotonic() - started
    sender.join(30)
    assert took < 5, f"woken by the burst, not after block_ms: {took:.1f} s"
    assert [k.shard for k, _ in rows] == ["default"], "one batch"
    ((_, entries),) = rows
    assert len(entries) > 1, "not the first entry alone"


@pytest.mark.parametrize("how", ["xtrim", "xdel"])
def test_item2_unread_events_deleted_anyway_are_reported_by_an_error_line_a_metric_and_health(
    admin: redis.Redis, server: LocalRedis, make_settings: Any, how: str
) -> None:
    """An admin (no producer can) trims the stream past what the group read, or deletes unread entries: the worker
    says so once."""
    settings = make_settings(server.url)
    keys = settings.keys("default")
    worker = Worker(settings, redis.Redis.from_url(server.url, protocol=2))
    worker.prepare_groups()
    ids = [admin.xadd(keys.events, {"event": json.dumps(e)}) for e in many_events(5)]
    if how == "xtrim":
        admin.xtrim(keys.events, maxlen=2, approximate=False)
    else:
        admin.xdel(keys.events, *ids[:3])
    with capture_logs() as logs:
        worker.housekeeping.refresh_gauges()
        worker.housekeeping.refresh_gauges()  # reported once, not at every refresh
    errors = [e for e in logs if e["event"] == "events_deleted_unread"]
    assert len(errors) == 1
    assert errors[0]["log_level"] == "error"
    assert errors[0]["last_delivered_id"] == "0-0"
    exposition = generate_latest(worker.metrics.registry).decode()
    assert 'showdown_events_deleted_unread_total{shard="default"} 1.0' in exposition
    (alert,) = heartbeat.alerts(settings.heartbeat_file)
    assert "unread events were deleted" in alert
    assert heartbeat.problems(settings.heartbeat_file, 30) == [], "healthy: the worker works; the loss is past"
    drain(worker)
    assert admin.xlen(keys.audit) == 2


def test_item2_showdown_health_shows_the_alert_and_stays_healthy(
    admin: redis.Redis, server: LocalRedis, make_settings: Any, tmp_path: Path
) -> None:
    settings = make_settings(server.url)
    keys = settings.keys("default")
    worker = Worker(settings, redis.Redis.from_url(server.url, protocol=2))
    worker.prepare_groups()
    admin.xadd(keys.events, {"event": "{}"})
    admin.xtrim(keys.events, maxlen=0, approximate=False)
    worker.housekeeping.refresh_gauges()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOWDOWN_")}
    env.update(SHOWDOWN_REDIS_URL=server.url, SHOWDOWN_HEARTBEAT_FILE=str(settings.heartbeat_file))
    health = subprocess.run([*SHOWDOWN, "health"], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert health.returncode == 0
    assert health.stdout.startswith("healthy")
    assert "alert:" in health.stderr
    assert "unread events were deleted" in health.stderr


# --- item 3: WRONGTYPE is a fault, not a wait -------------------------------------------------------------------


def test_item3_wrongtype_is_a_fault_an_error_line_a_metric_and_health_does_not_say_it_resumes_by_itself(
    admin: redis.Redis, server: LocalRedis, make_settings: Any
) -> None:
    """A key planted where the commit writes (a stream at a hand's dedupe key): every commit hits WRONGTYPE."""
    settings = make_settings(server.url, backoff_max_s=0.05)
    keys = settings.keys("default")
    hand = {**CASES[0]["event"], "hand_id": "W"}
    admin.xadd(keys.seen("W"), {"x": "1"})
    worker = Worker(settings, redis.Redis.from_url(server.url, protocol=2))
    worker.prepare_groups()
    admin.xadd(keys.events, {"event": json.dumps(hand)})
    runner = threading.Thread(target=worker.run)
    with capture_logs() as logs:
        runner.start()
        try:
            wait_until(lambda: worker.metrics.faults.labels("WRONGTYPE")._value.get() == 1, "the fault", timeout=30)
            (problem,) = heartbeat.problems(settings.heartbeat_file, 30)
            assert "WRONGTYPE" in problem
            assert "cannot resume by itself" in problem
            assert "it resumes by itself" not in problem
            assert 'showdown_redis_fault{reason="WRONGTYPE"} 1.0' in generate_latest(worker.metrics.registry).decode()
            admin.delete(keys.seen("W"))  # the operator's fix
            wait_until(lambda: admin.xlen(keys.results) == 1, "settled once the planted key is gone", timeout=30)
            wait_until(lambda: worker.metrics.faults.labels("WRONGTYPE")._value.get() == 0, "the fault over")
        finally:
            worker.stop()
            runner.join(30)
    (line,) = [e for e in logs if e["event"] == "redis_unavailable"]
    assert (line["log_level"], line["reason"], line["fault"]) == ("error", "WRONGTYPE", True)
    assert "rename it away" in line["action"]


# --- item 16: a durable publish ---------------------------------------------------------------------------------------


def test_item16_publish_with_wait_aof_returns_once_the_push_is_fsynced_to_the_aof(admin: redis.Redis) -> None:
    assert publish(admin, CASES[0]["event"], wait_aof=True) == 1
    assert publish_tournament(admin, json.loads(opened())["tournament"], wait_aof=True) == 2


def test_item16_showdown_publish_with_wait_aof_on_redis_7_0_says_the_server_does_not_know_waitaof(
    tmp_path: Path,
) -> None:
    with LocalRedis(binary=tls_redis_server()) as old:
        hands = tmp_path / "hands.jsonl"
        hands.write_text(json.dumps(CASES[0]["event"]) + "\n", encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith("SHOWDOWN_")}
        env.update(SHOWDOWN_REDIS_URL=old.url, SHOWDOWN_WAIT_AOF="true")
        out = subprocess.run([*SHOWDOWN, "publish", str(hands)], env=env, capture_output=True, text=True,
                             timeout=60, check=False)  # fmt: skip
        assert out.returncode == 1
        assert "WAITAOF needs Redis 7.2+ or Valkey" in out.stderr
        assert "Traceback" not in out.stderr
        client = redis.Redis.from_url(old.url, protocol=2)
        with pytest.raises(PublishRefused) as refused:
            publish(client, CASES[0]["event"], wait_aof=True)
        client.close()
    assert refused.value.refusal.code == "UNKNOWNCOMMAND"


def test_item16_a_publish_with_wait_aof_to_a_server_without_aof_is_refused_saying_why() -> None:
    with LocalRedis(appendfsync=None) as no_aof:
        client = redis.Redis.from_url(no_aof.url, protocol=2)
        with pytest.raises(PublishRefused, match=r"(?i)appendonly"):
            publish(client, CASES[0]["event"], wait_aof=True)
        client.close()


# --- item 17: TTL exhausted is a routine wait during a failover -------------------------------------------------------


def test_item17_ttl_exhausted_during_a_cluster_failover_is_a_warning_retry_not_an_error(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    exhausted = ClusterError("TTL exhausted.")
    assert refusal(exhausted).code == "TTL"
    assert "Redis answers with an error" not in refusal(exhausted).reason
    worker = Worker(make_settings(), fake)
    with capture_logs() as logs:
        worker.housekeeping.wait_for(exhausted, attempt=1, retry_in_s=0.1)
    (line,) = logs
    assert (line["event"], line["log_level"], line["reason"]) == ("redis_unavailable", "warning", "TTL")
    assert "failover" in line["waiting_for"]
    assert worker.metrics.faults.labels("TTL")._value.get() == 0
    assert "it resumes by itself" in heartbeat.problems(worker.settings.heartbeat_file, 30)[0]
