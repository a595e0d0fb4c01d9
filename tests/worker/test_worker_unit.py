"""The worker's logic on fakeredis: outcomes, dedupe, dead letters, audit, poison, trimming."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import fakeredis
import orjson
import pytest
import redis
from prometheus_client import generate_latest
from structlog.testing import capture_logs

from showdown_messages import AuditRecord, DeadLetter, ShowdownResult
from showdown_messages.publish import PublishRefused, publish, refusal
from showdown_service.decision import audit
from showdown_service.decision.settling import prepare
from showdown_service.infra.streams import read_range
from showdown_service.worker.commit import plan
from showdown_service.worker.loop import FAILURE_COUNT_TTL_S, Worker
from tests.helpers import BUNDLED_SHOWDOWNS, event, read_cases, seat, wait_until, xadd_events

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
CASES = list(read_cases(BUNDLED_SHOWDOWNS))
GOOD = event(seat(1, "As Ad", 500), seat(2, "Kc Kd", 500), board="2c 7d 9h Js 3s", hand_id="good-1")


def drain(worker: Worker) -> None:
    worker.run(until_idle=True)


def audit_records(client: Any, key: str) -> list[dict[str, Any]]:
    return [orjson.loads(fields[b"audit"]) for _, fields in read_range(client, key)]


def dead_letters(client: Any, key: str) -> list[dict[str, str]]:
    return [{k.decode(): v.decode(errors="replace") for k, v in f.items()} for _, f in read_range(client, key)]


def prepared(raw: bytes | None, failures: int = 0, max_payload_bytes: int = 64 * 1024) -> Any:
    fields = None if raw is None else {b"event": raw}
    return prepare(
        "1-0", fields, failures=failures, max_deliveries=5, max_payload_bytes=max_payload_bytes, now=NOW, started=0.0
    )


# --- judging one entry ---------------------------------------------------------------------


def test_a_valid_event_is_settled_with_digests_of_event_and_result() -> None:
    p = prepared(json.dumps(GOOD).encode())
    assert p.valid
    assert p.result is not None
    assert orjson.loads(p.result)["hand_id"] == "good-1"
    assert len(p.event_sha256) == len(p.result_sha256 or "") == 64


def test_the_event_digest_ignores_key_order_spacing_and_card_spelling() -> None:
    same = dict(reversed(list(GOOD.items())))
    same["players"] = [dict(p) for p in GOOD["players"]]
    same["players"][0]["hole_cards"] = ["A♠", "ad"]
    a = prepared(json.dumps(GOOD).encode())
    b = prepared(json.dumps(same, indent=2).encode())
    assert a.event_sha256 == b.event_sha256
    other = dict(GOOD, table_id="T-2")
    assert prepared(json.dumps(other).encode()).event_sha256 != a.event_sha256


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b'{"schema_version": 1,', "malformed_json"),
        (b"[]", "not_an_object"),
        (json.dumps({**GOOD, "variant": "pineapple"}).encode(), "unknown_variant"),
        (json.dumps({**GOOD, "board": ["2c", "7d", "9h", "Js", "As"]}).encode(), "duplicate_card"),
    ],
)
def test_bad_input_becomes_a_rejection_never_an_exception(raw: bytes, code: str) -> None:
    p = prepared(raw)
    assert (p.valid, p.code) == (False, code)
    assert p.message
    assert p.raw == raw


def test_an_entry_without_an_event_field_or_deleted_is_refused_as_missing_event() -> None:
    assert prepare(
        "1-0", {b"evnt": b"{}"}, failures=0, max_deliveries=5, max_payload_bytes=999, now=NOW, started=0
    ).code == ("missing_event")
    assert prepared(None).code == "missing_event"


def test_an_oversized_payload_is_refused_unread() -> None:
    p = prepared(json.dumps(GOOD).encode(), max_payload_bytes=256)
    assert p.code == "payload_too_large"
    assert "limit is 256" in (p.message or "")


def test_an_entry_whose_settling_raised_max_deliveries_times_is_poison_and_not_settled_again() -> None:
    p = prepared(json.dumps(GOOD).encode(), failures=5)
    assert p.code == "poison"
    assert "settling it raised 5 times (limit 5" in (p.message or "")
    assert p.result is None


def test_fewer_failures_than_the_limit_still_settle() -> None:
    assert prepared(json.dumps(GOOD).encode(), failures=4).valid


def test_a_refused_payload_still_names_the_hand_it_claims_to_be() -> None:
    p = prepared(json.dumps({**GOOD, "variant": "pineapple"}).encode())
    assert (p.hand_id, p.table_id) == ("good-1", "T-1")


# --- planning a commit -------------------------------------------------------------------------


def test_a_plan_settles_new_hands_dedupes_resends_and_rejects_conflicts(make_settings: Any) -> None:
    keys = make_settings().keys("default")
    first = prepared(json.dumps(GOOD).encode())
    resend = prepared(json.dumps(GOOD).encode())
    changed = prepared(json.dumps({**GOOD, "table_id": "T-9"}).encode())
    bad = prepared(b"{")
    batch = [first, resend, changed, bad]
    for i, p in enumerate(batch):
        p.entry_id = f"10-{i}"
    planned = plan(
        keys, batch, {}, audit.EMPTY, group="g", consumer="w1", at="t", dedupe_ttl_s=9,
        maxlens=(0, 0, 0), dead_raw_max_bytes=10,
    )  # fmt: skip
    assert [(d.outcome, d.code) for d in planned.decisions] == [
        ("settled", None),
        ("duplicate", None),
        ("rejected", "conflicting_duplicate"),
        ("rejected", "malformed_json"),
    ]
    assert [d.record["seq"] for d in planned.decisions] == [1, 2, 3, 4]
    assert planned.decisions[1].record["prev_hash"] == planned.decisions[0].record["hash"]
    assert planned.head == audit.Head(4, planned.decisions[-1].record["hash"])
    assert planned.seen_keys == [keys.seen("good-1")]


def test_a_plan_against_a_known_hand_marks_the_resend_duplicate(make_settings: Any) -> None:
    keys = make_settings().keys("default")
    p = prepared(json.dumps(GOOD).encode())
    planned = plan(
        keys, [p], {keys.seen("good-1"): p.event_sha256}, audit.EMPTY, group="g", consumer="w1", at="t",
        dedupe_ttl_s=9, maxlens=(0, 0, 0), dead_raw_max_bytes=10,
    )  # fmt: skip
    assert planned.decisions[0].outcome == "duplicate"
    assert planned.decisions[0].record["result_sha256"] is None


# --- the loop -------------------------------------------------------------------------------------


def test_the_worker_settles_every_bundled_hand_exactly(fake: fakeredis.FakeRedis, make_settings: Any) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    xadd_events(fake, keys.events, [case["event"] for case in CASES])
    worker = Worker(settings, fake)
    worker.prepare_groups()
    drain(worker)
    results = {
        orjson.loads(f[b"result"])["hand_id"]: orjson.loads(f[b"result"]) for _, f in read_range(fake, keys.results)
    }
    assert len(results) == len(CASES)
    for case in CASES:
        awards = {str(a["seat"]): a["amount"] for a in results[case["event"]["hand_id"]]["awards"]}
        assert awards == case["expected_award"]
    assert fake.xpending(keys.events, settings.group)["pending"] == 0
    verdict = audit.verify(audit.read_stream(fake, keys.audit), audit.Head.decode(fake.get(keys.audit_head)))
    assert verdict.holds
    assert verdict.records == len(CASES)


def test_bad_entries_are_dead_lettered_while_good_ones_around_them_settle(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings(dead_raw_max_bytes=64)
    keys = settings.keys("default")
    huge = json.dumps({**GOOD, "hand_id": "big", "table_id": "x" * 201})
    xadd_events(fake, keys.events, [CASES[0]["event"], "not json", CASES[1]["event"], huge, b'{"schema_version": 2}'])
    fake.xadd(keys.events, {"something": "else"})
    xadd_events(fake, keys.events, [CASES[2]["event"]])
    worker = Worker(settings, fake)
    worker.prepare_groups()
    drain(worker)
    assert fake.xlen(keys.results) == 3
    letters = dead_letters(fake, keys.dead)
    assert [d["code"] for d in letters] == ["malformed_json", "bad_id", "unsupported_schema_version", "missing_event"]
    assert letters[0]["raw"] == "not json"
    assert len(letters[1]["raw"]) == 64
    assert int(letters[1]["raw_bytes"]) == len(huge)
    assert all(d["entry_id"] and d["message"] for d in letters)
    outcomes = Counter(r["outcome"] for r in audit_records(fake, keys.audit))
    assert outcomes == {"settled": 3, "rejected": 4}
    for letter in letters:
        DeadLetter.model_validate(letter)
    for record in audit_records(fake, keys.audit):
        AuditRecord.model_validate(record)
    for _, fields in read_range(fake, keys.results):
        ShowdownResult.model_validate_json(fields[b"result"])
    assert fake.xpending(keys.events, settings.group)["pending"] == 0


def test_a_resent_hand_gets_no_second_result_and_a_changed_one_is_dead_lettered(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    xadd_events(fake, keys.events, [GOOD])
    worker = Worker(settings, fake)
    worker.prepare_groups()
    drain(worker)
    xadd_events(fake, keys.events, [GOOD, {**GOOD, "table_id": "T-2"}, GOOD])
    drain(worker)
    assert fake.xlen(keys.results) == 1
    assert [d["code"] for d in dead_letters(fake, keys.dead)] == ["conflicting_duplicate"]
    assert [r["outcome"] for r in audit_records(fake, keys.audit)] == ["settled", "duplicate", "rejected", "duplicate"]
    assert fake.ttl(keys.seen("good-1")) > 0


def test_an_entry_whose_settling_crashes_is_retried_then_dead_lettered_as_poison(
    fake: fakeredis.FakeRedis, make_settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = make_settings(claim_idle_ms=100, max_deliveries=3)
    keys = settings.keys("default")
    from showdown_service.decision import intake

    real = intake.to_showdown

    def explode_on_bad_hand(ev: Any) -> Any:
        if ev.hand_id == "cursed":
            raise RuntimeError("a bug in settlement")
        return real(ev)

    monkeypatch.setattr("showdown_service.decision.settling.to_showdown", explode_on_bad_hand)
    xadd_events(fake, keys.events, [{**GOOD, "hand_id": "cursed"}, GOOD])
    worker = Worker(settings, fake)
    worker.run(until_idle=True, timeout_s=10)  # the claim takes entries idle >= 100 ms, every 50 ms, until poison
    letters = dead_letters(fake, keys.dead)
    assert [(d["code"], d["hand_id"]) for d in letters] == [("poison", "cursed")]
    assert "settling it raised 3 times (limit 3" in letters[0]["message"]
    assert fake.xlen(keys.results) == 1
    assert fake.xpending(keys.events, settings.group)["pending"] == 0
    assert worker.metrics.failures.labels("default")._value.get() == 3


def test_the_failure_count_survives_a_restart_and_a_claim_by_another_worker(
    fake: fakeredis.FakeRedis, make_settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(ev: Any) -> Any:
        raise RuntimeError("a bug in settlement")

    monkeypatch.setattr("showdown_service.decision.settling.to_showdown", explode)
    first = make_settings(consumer="first", max_deliveries=3, claim_idle_ms=100)
    keys = first.keys("default")
    (entry_id,) = xadd_events(fake, keys.events, [{**GOOD, "hand_id": "cursed"}])
    counted = keys.failures(entry_id.decode())
    one = Worker(first, fake)
    one.prepare_groups()
    one.step()  # reads it; settling raises: 1
    assert fake.get(counted) == b"1"
    time.sleep(0.11)  # `one` dies holding it; once idle past claim_idle_ms another worker takes it over
    Worker(make_settings(consumer="second", max_deliveries=3, claim_idle_ms=100), fake).claim_stale()  # 2
    assert (fake.get(counted), fake.xlen(keys.dead)) == (b"2", 0)
    restarted = Worker(make_settings(consumer="second", max_deliveries=3), fake)  # the same name, a new process
    restarted.recover_pending()  # its own pending entry, settled a third time: 3, poison
    letters = dead_letters(fake, keys.dead)
    assert [(d["code"], d["entry_id"]) for d in letters] == [("poison", entry_id.decode())]
    assert "raised 3 times" in letters[0]["message"]
    assert 0 < fake.ttl(counted) <= FAILURE_COUNT_TTL_S
    assert fake.xpending(keys.events, first.group)["pending"] == 0


def test_a_failure_redis_will_not_count_leaves_the_entry_pending_and_the_rest_of_the_batch_settles(
    fake: fakeredis.FakeRedis, make_settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from showdown_service.decision import intake

    real = intake.to_showdown

    def explode_on_bad_hand(ev: Any) -> Any:
        if ev.hand_id == "cursed":
            raise RuntimeError("a bug in settlement")
        return real(ev)

    monkeypatch.setattr("showdown_service.decision.settling.to_showdown", explode_on_bad_hand)
    settings = make_settings(max_deliveries=1)
    keys = settings.keys("default")
    cursed, _ = xadd_events(fake, keys.events, [{**GOOD, "hand_id": "cursed"}, GOOD])
    fake.rpush(keys.failures(cursed.decode()), "not a count")  # GET answers WRONGTYPE, as NOPERM would refuse it
    worker = Worker(settings, fake)
    worker.prepare_groups()
    with capture_logs() as logs:
        for _ in range(5):  # steps, deliberately: the entry stays pending (never idle) until a claim_idle_ms away
            worker.step()
        worker.flush()
    assert (fake.xlen(keys.results), fake.xlen(keys.dead)) == (1, 0)
    assert [p["message_id"] for p in fake.xpending_range(keys.events, settings.group, "-", "+", 10)] == [cursed]
    failed = [e for e in logs if e["event"] == "entry_failed"]
    assert failed
    assert failed[0]["failures"] is None
    assert failed[0]["then"].startswith("left pending, not counted: Redis answers with an error: WRONGTYPE")


def test_an_entry_delivered_far_more_often_than_max_deliveries_without_a_failure_settles(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    """Re-deliveries (crashes, refused commits re-read by a restarted worker) are not failures of settling."""
    settings = make_settings(max_deliveries=2)
    keys = settings.keys("default")
    xadd_events(fake, keys.events, [GOOD])
    fake.xgroup_create(keys.events, settings.group, id="0")
    fake.xreadgroup(settings.group, settings.consumer, {keys.events: ">"})
    for _ in range(10):  # re-read as a worker restarted after a crash, or after a refused commit, re-reads it
        fake.xreadgroup(settings.group, settings.consumer, {keys.events: "0"})
    (pending,) = fake.xpending_range(keys.events, settings.group, "-", "+", 1)
    assert int(pending["times_delivered"]) == 11
    Worker(settings, fake).recover_pending()
    assert (fake.xlen(keys.results), fake.xlen(keys.dead)) == (1, 0)


class RefusedScript:
    """The commit script, refused by ``refuse`` (when it raises) before it reaches Redis."""

    def __init__(self, script: Any, refuse: Any) -> None:
        self.script, self.refuse, self.sha = script, refuse, script.sha

    def __call__(self, **kwargs: Any) -> Any:
        self.refuse()
        return self.script(**kwargs)


class RefusingWorker(Worker):
    """A worker whose first ``refusals`` commits Redis refuses (OOM), as a full Redis under noeviction does."""

    def __init__(self, *args: Any, refusals: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.refusals = refusals
        self.most_deliveries = 0
        """The highest delivery count of an entry pending while a commit was refused."""
        self._commit_script = RefusedScript(self._commit_script, self._refuse)  # type: ignore[assignment]

    def _refuse(self) -> None:
        if self.refusals > 0:
            self.refusals -= 1
            keys = self.settings.keys("default")
            pending = self.client.xpending_range(keys.events, self.settings.group, "-", "+", 1000)
            self.most_deliveries = max([self.most_deliveries, *(int(p["times_delivered"]) for p in pending)])
            raise redis.exceptions.OutOfMemoryError("command not allowed when used memory > 'maxmemory'.")

    def _round_trip(self, plans: list[Any]) -> list[Any]:
        if plans:
            self._refuse()
        return super()._round_trip(plans)


def test_commits_refused_longer_than_max_deliveries_retries_wait_and_then_settle_once_without_poison(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings(max_deliveries=2, backoff_max_s=0.01, batch_size=10)
    keys = settings.keys("default")
    xadd_events(fake, keys.events, [case["event"] for case in CASES[:30]])
    worker = RefusingWorker(settings, fake, refusals=12)
    with capture_logs() as logs:
        runner = threading.Thread(target=worker.run)
        runner.start()
        try:
            wait_until(lambda: fake.xlen(keys.audit) == 30, what="every entry audited", timeout=30)
        finally:
            worker.stop()
            runner.join(30)
    assert worker.refusals == 0
    assert worker.metrics.redis_errors._value.get() == 12
    assert worker.most_deliveries > settings.max_deliveries + 1, "re-read after each refusal: counted, it was poison"
    assert fake.xlen(keys.dead) == 0
    assert fake.xlen(keys.results) == 30
    assert [r["outcome"] for r in audit_records(fake, keys.audit)] == ["settled"] * 30
    changes = [(e["event"], e.get("reason")) for e in logs if e["event"] in ("redis_unavailable", "redis_resumed")]
    assert changes == [("redis_unavailable", "OOM"), ("redis_resumed", "OOM")], "one line per change of state"
    assert sum(e["event"] == "redis_retry" for e in logs) == 11
    assert worker.metrics.waiting.labels("OOM")._value.get() == 0
    assert worker.waiting_for is None
    assert orjson.loads(settings.heartbeat_file.read_bytes()).keys() == {"stopped_at"}, "stopped, waiting for nothing"
    assert audit.verify(audit.read_stream(fake, keys.audit), audit.Head.decode(fake.get(keys.audit_head))).holds


def test_while_commits_are_refused_the_metric_and_the_heartbeat_say_what_the_worker_waits_for(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings(backoff_max_s=0.01)
    keys = settings.keys("default")
    xadd_events(fake, keys.events, [GOOD])
    worker = RefusingWorker(settings, fake, refusals=10**9)
    runner = threading.Thread(target=worker.run)
    runner.start()
    try:
        wait_until(lambda: worker.metrics.redis_errors._value.get() >= 5, what="five refused commits", timeout=30)
        exposition = generate_latest(worker.metrics.registry).decode()
        assert 'showdown_redis_waiting{reason="OOM"} 1.0' in exposition
        state = orjson.loads(settings.heartbeat_file.read_bytes())
        assert state["reason"] == "OOM"
        assert state["waiting_for"].startswith("Redis refuses writes: OOM")
        assert worker.waiting_for is not None
    finally:
        worker.stop()
        runner.join(30)
    assert fake.xlen(keys.dead) == 0
    assert fake.xpending(keys.events, settings.group)["pending"] == 1, "the hand waits, pending"


@pytest.mark.parametrize(
    ("error", "code", "reason"),
    [
        (redis.exceptions.OutOfMemoryError("command not allowed when used memory > 'maxmemory'."), "OOM",
         "Redis refuses writes: OOM"),
        (redis.exceptions.ReadOnlyError("You can't write against a read only replica."), "READONLY",
         "Redis refuses writes: READONLY"),
        (redis.exceptions.ResponseError("NOREPLICAS Not enough good replicas to write."), "NOREPLICAS",
         "Redis refuses writes: NOREPLICAS"),
        (redis.exceptions.ResponseError("MISCONF Errors writing to the AOF file"), "MISCONF",
         "Redis refuses writes: MISCONF"),
        (redis.exceptions.ResponseError("BUSY Redis is busy running a script."), "BUSY", "Redis is busy: BUSY"),
        # raised by a pipeline (raise_on_error), as redis-py words it: the server's code after the failed command
        (redis.exceptions.ResponseError("Command # 1 (SET showdown:{registry}:hand:h-0 default NX EX 604800) of "
                                        "pipeline caused error: BUSY Valkey is busy running a script. You can only "
                                        "call SCRIPT KILL or SHUTDOWN NOSAVE."), "BUSY", "Redis is busy: BUSY"),
        (redis.exceptions.ResponseError("Command # 3 (XADD s * event {}) of pipeline caused error: NOREPLICAS Not "
                                        "enough good replicas to write."), "NOREPLICAS", "Redis refuses writes"),
        (redis.exceptions.BusyLoadingError("Redis is loading the dataset in memory"), "LOADING",
         "Redis is loading its data"),
        (redis.exceptions.NoPermissionError("this user has no permissions"), "NOPERM",
         "Redis refuses the command: NOPERM"),
        (redis.exceptions.ConnectionError("Connection refused"), "UNREACHABLE", "Redis does not answer"),
        (redis.exceptions.TimeoutError("Timeout reading from socket"), "TIMEOUT", "Redis does not answer"),
        (redis.exceptions.ResponseError("WRONGTYPE Operation against a key"), "WRONGTYPE",
         "Redis answers with an error: WRONGTYPE"),
        (redis.exceptions.ResponseError("user_script:1: Script attempted to access a non local key"), "ERR",
         "Redis answers with an error: ERR"),
    ],
)  # fmt: skip
def test_each_redis_error_is_named_for_an_operator(error: Exception, code: str, reason: str) -> None:
    why = refusal(error)
    assert why.code == code
    assert why.reason.startswith(reason)


def test_publish_raises_one_clear_refusal_naming_the_hand_and_saying_a_resend_is_safe() -> None:
    class FullRedis:
        def rpush(self, *_args: Any, **_kwargs: Any) -> int:
            raise redis.exceptions.OutOfMemoryError("command not allowed when used memory > 'maxmemory'.")

    with pytest.raises(PublishRefused) as refused:
        publish(FullRedis(), GOOD)  # type: ignore[arg-type]
    assert (refused.value.accepted, refused.value.hand_id, refused.value.refusal.code) == (0, "good-1", "OOM")
    assert not refused.value.unsure
    message = str(refused.value)
    assert "hand_id 'good-1' was not published: Redis refuses writes: OOM" in message
    assert "maxmemory" in message
    assert "again is safe" in message
    assert "\n" not in message


def test_two_workers_on_one_shard_settle_each_entry_once_and_share_one_chain(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    a, b = (
        Worker(make_settings(consumer="a", batch_size=7), fake),
        Worker(make_settings(consumer="b", batch_size=5), fake),
    )
    keys = a.settings.keys("default")
    xadd_events(fake, keys.events, [case["event"] for case in CASES[:60]])
    a.prepare_groups()
    for _ in range(20):
        a.step()  # two workers, step by step in turn, deliberately: their commits contend
        b.step()
    a.flush()
    b.flush()
    records = audit_records(fake, keys.audit)
    assert len(records) == fake.xlen(keys.results) == 60
    assert {r["worker"] for r in records} == {"a", "b"}
    assert audit.verify(audit.read_stream(fake, keys.audit), audit.Head.decode(fake.get(keys.audit_head))).holds


def test_a_batch_whose_last_allowed_replan_commits_is_reported_not_given_up(
    fake: fakeredis.FakeRedis, make_settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("showdown_service.worker.loop.MAX_REPLANS", 1)
    first, second = Worker(make_settings(consumer="first"), fake), Worker(make_settings(consumer="second"), fake)
    keys = first.settings.keys("default")
    first.prepare_groups()
    xadd_events(fake, keys.events, [CASES[0]["event"]])
    drain(first)  # `first` now holds the shard's head as it left it
    xadd_events(fake, keys.events, [CASES[1]["event"]])
    drain(second)  # ...which `second` has moved
    xadd_events(fake, keys.events, [CASES[2]["event"]])
    drain(first)  # refused once (stale head), re-planned once, committed
    assert first.metrics.conflicts.labels("default")._value.get() == 1
    assert first.metrics.entries.labels("default", "settled")._value.get() == 2, "the re-planned batch was reported"
    assert fake.xlen(keys.results) == 3
    assert audit.verify(audit.read_stream(fake, keys.audit), audit.Head.decode(fake.get(keys.audit_head))).holds


def test_a_commit_sent_twice_writes_nothing_the_second_time(fake: fakeredis.FakeRedis, make_settings: Any) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    xadd_events(fake, keys.events, [GOOD, CASES[0]["event"]])
    worker = Worker(settings, fake)
    worker.prepare_groups()
    worker.step()  # reads, settles, and sends the commit in the background
    ((_, planned),) = worker._inflight
    worker.flush()  # the commit has run
    assert fake.xlen(keys.results) == 2
    again = worker._commit_script(keys=planned.keys, args=planned.args)  # as a client re-send would
    assert again[0] == 0
    assert sorted(g.decode() for g in again[2]) == sorted(d.prepared.entry_id for d in planned.decisions)
    assert fake.xlen(keys.results) == 2
    assert fake.xlen(keys.audit) == 2


def test_trimming_keeps_every_unread_and_pending_entry(fake: fakeredis.FakeRedis, make_settings: Any) -> None:
    settings = make_settings(batch_size=10)
    keys = settings.keys("default")
    ids = xadd_events(fake, keys.events, [case["event"] for case in CASES[:40]])
    worker = Worker(settings, fake)
    worker.prepare_groups()
    fake.xreadgroup(settings.group, "slowpoke", {keys.events: ">"}, count=5)  # 5 pending with another consumer
    worker.step()  # one pass, deliberately: stopped mid-way
    worker.flush()  # a batch or two settled and acked; the rest unread
    settled = fake.xlen(keys.results)
    assert 0 < settled < 35
    minid = worker.trim(keys)
    assert minid == ids[0].decode()
    remaining = [e for e, _ in read_range(fake, keys.events)]
    assert remaining == ids  # the oldest pending entry is the first one: nothing may go
    fake.xack(keys.events, settings.group, *ids[:5])
    worker.trim(keys)
    kept = [e for e, _ in read_range(fake, keys.events)]
    assert set(ids[5 + settled :]) <= set(kept), "unread entries survive"


def test_a_batch_of_latencies_counts_in_the_histogram_exactly_as_one_observation_each() -> None:
    from prometheus_client import CollectorRegistry, generate_latest

    from showdown_service.ops.metrics import LATENCY_BUCKETS, Metrics, observe_many

    amounts = [0.0, 0.0005, 0.00051, 0.0019, 0.002, 0.7, 29.0, 31.0, 1e9, *[i / 997 for i in range(500)]]
    one_by_one, batched = Metrics(CollectorRegistry()), Metrics(CollectorRegistry())
    for amount in amounts:
        one_by_one.latency.labels("s").observe(amount)
    observe_many(batched.latency.labels("s"), amounts)

    def samples(metrics: Metrics) -> list[str]:  # every line but the metrics' creation times
        text = generate_latest(metrics.registry).decode()
        return [line for line in text.splitlines() if "_created" not in line]

    assert samples(batched) == samples(one_by_one)
    assert len(LATENCY_BUCKETS) > 5, "the amounts above fall in many buckets, the +Inf one included"
