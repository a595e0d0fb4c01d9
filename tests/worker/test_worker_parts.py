"""The worker composed of a part per job (groups and claims, I/O, planning, housekeeping), each an object over the
worker's explicit state that works alone over a state of its own; and its commit loop that is never re-entered: a
batch waiting for an earlier tournament entry that a dead worker holds is left to the claim, which takes that entry
and the batch together, in stream order."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

import fakeredis
import orjson
import redis

from showdown_service.infra.streams import read_group, read_range
from showdown_service.worker.groups import GroupPlumbing
from showdown_service.worker.housekeeping import Housekeeping
from showdown_service.worker.io import IOPipeline
from showdown_service.worker.loop import Worker
from showdown_service.worker.planning import Planning
from showdown_service.worker.state import Entry, WorkerState
from tests.helpers import REAL_SHOWDOWNS, read_cases, xadd_events
from tests.tournament_builders import entry, opened
from tests.worker.test_worker_clock import ManualClock

PARTS = (GroupPlumbing, Housekeeping, IOPipeline, Planning)
HANDS = [case["event"] for case in read_cases(REAL_SHOWDOWNS)][:3]
"""Real showdowns (../shared/data)."""


def publish(client: Any, stream: str, lines: list[str]) -> None:
    for line in lines:
        ((field, body),) = orjson.loads(line).items()
        client.xadd(stream, {field: orjson.dumps(body)})


def test_the_worker_is_its_state_and_the_parts_it_builds_no_mixin_left(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    assert Worker.__mro__ == (Worker, WorkerState, object)
    assert not any(issubclass(part, WorkerState) for part in PARTS), "a part holds the state; it is not one"
    worker = Worker(make_settings(), fake)
    parts = (worker.groups, worker.housekeeping, worker.pipeline, worker.planning)
    assert [type(part) for part in parts] == list(PARTS)
    assert all(part.state is worker for part in parts), "every part is over the worker's one state"


def test_housekeeping_alone_reports_a_wait_on_redis_in_its_clock_s_seconds_and_its_end(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    housekeeping = Housekeeping(WorkerState(settings, fake, clock=ManualClock(at=1_700_000_000.0)))
    housekeeping.wait_for(redis.ConnectionError("Connection refused"), attempt=1, retry_in_s=0.1)
    waiting = housekeeping.waiting_for
    assert waiting is not None
    beat = orjson.loads(settings.heartbeat_file.read_bytes())
    assert (beat["reason"], beat["since"]) == (waiting.code, 1_700_000_000.0)
    housekeeping.resume()
    assert housekeeping.waiting_for is None
    assert settings.heartbeat_file.read_bytes() == b"", "working again: an empty heartbeat"


def test_the_pipeline_alone_reads_the_next_batch_of_each_shard_and_commits_nothing_it_was_not_given(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    ids = xadd_events(fake, keys.events, HANDS)
    fake.xgroup_create(keys.events, settings.group, id="0")
    pipeline = IOPipeline(WorkerState(settings, fake))
    ((read_keys, rows),) = pipeline.read(block=None)
    assert read_keys == keys
    assert [entry_id for entry_id, _ in rows] == ids
    commits, reads = pipeline.answers([], pipeline.round_trip([]))
    assert commits == []
    assert pipeline.rows_of_each(reads) == [], "nothing new: every entry was read"
    assert not fake.exists(keys.results)


def test_group_plumbing_alone_hands_what_it_claims_to_the_process_it_was_given_with_the_failures_counted(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings(claim_idle_ms=100)
    keys = settings.keys("default")
    ids = xadd_events(fake, keys.events, HANDS)
    handed: list[tuple[str, list[bytes], Mapping[str, int] | None]] = []

    def process(shard_keys: Any, entries: Iterable[Entry], failures: Mapping[str, int] | None) -> None:
        handed.append((shard_keys.shard, [entry_id for entry_id, _ in entries], failures))

    groups = GroupPlumbing(WorkerState(settings, fake), process)
    groups.prepare_groups()
    read_group(fake, settings.group, "dead", {keys.events: ">"}, count=10)  # a worker that died holding them
    time.sleep(0.15)  # past claim_idle_ms: idle time only grows
    assert groups.count_failure(keys, ids[1].decode()) == 1
    assert groups.count_failure(keys, ids[1].decode()) == 2
    assert groups.claim_stale() == len(ids)
    assert handed == [("default", ids, {ids[1].decode(): 2})]
    assert groups.own_pending() == {"default": len(ids)}, "claimed: now this consumer's, until a commit"
    assert groups.pending(keys, ids[0].decode())


def test_planning_alone_judges_and_plans_a_batch_whose_commit_settles_each_real_showdown(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    xadd_events(fake, keys.events, HANDS)
    fake.xgroup_create(keys.events, settings.group, id="0")
    ((_, rows),) = read_group(fake, settings.group, settings.consumer, {keys.events: ">"}, count=10)
    state = WorkerState(settings, fake)

    def never(*_: Any) -> Any:
        raise AssertionError("nothing failed: no failure counted, no deal kept alive")

    planning = Planning(state, beat=never, count_failure=never)
    batch = planning.prepare(keys, rows)
    assert [p.code for p in batch] == [None] * len(HANDS)
    planned = planning.plan_batch(keys, batch)
    assert planned is not None
    assert [d.outcome for d in planned.decisions] == ["settled"] * len(HANDS)
    assert not fake.exists(keys.results), "planned, not committed: the loop commits"
    state._commit_script(keys=planned.keys, args=planned.args)
    assert fake.xlen(keys.results) == len(HANDS)
    assert fake.xpending(keys.events, settings.group)["pending"] == 0


def test_a_batch_waiting_for_a_dead_workers_earlier_entry_is_claimed_with_it_in_stream_order(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    keys = make_settings().keys("default")
    publish(fake, keys.events, [opened(payouts=[100]), entry("a"), entry("b")])
    dead = Worker(make_settings(consumer="dead", batch_size=1), fake)
    dead.prepare_groups()
    ((_, held),) = dead.pipeline.read(block=None)  # it reads the `open`, then dies without committing it
    assert [entry_id for entry_id, _ in held] == [read_range(fake, keys.events)[0][0]]
    calls = 0
    worker = Worker(make_settings(consumer="w1", claim_idle_ms=300), fake)
    settle = worker._settle_reply

    def counted(*args: Any) -> None:
        nonlocal calls
        calls += 1
        assert calls == 1, "the commit loop is never re-entered"
        try:
            settle(*args)
        finally:
            calls -= 1

    worker._settle_reply = counted  # type: ignore[method-assign, assignment]
    worker.run(until_idle=True, timeout_s=10)
    records = [orjson.loads(f[b"audit"]) for _, f in read_range(fake, keys.audit)]
    assert [(r["outcome"], r["code"]) for r in records] == [("settled", None)] * 3
    assert [r["entry_id"] for r in records] == [i.decode() for i, _ in read_range(fake, keys.events)]
    assert fake.xpending(keys.events, "adjudicators")["pending"] == 0
