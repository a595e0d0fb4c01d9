"""Issue 34 item 3, the worker: a worker planning a deal keeps its heartbeat and its entries (another worker's claim
finds nothing idle), and an entry whose commits keep being lost to other workers' claims reaches ``poison``."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pytest
import redis

from showdown_core import deals as core_deals
from showdown_core import icm as core_icm
from showdown_service.infra.connection import connect
from showdown_service.infra.streams import read_range
from showdown_service.worker.loop import Worker
from tests.api_support import commit, publish_lines
from tests.contract.test_deal_bounds import field
from tests.tournament_builders import deal


def test_a_worker_planning_a_slow_deal_keeps_its_heartbeat_and_its_entries(
    redis_url: str, make_settings: Any, client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deal's plan takes 6 s, twice claim_idle_ms: meanwhile another worker's XAUTOCLAIM finds nothing idle,
    and the heartbeat file is touched; the deal commits once, by the worker that planned it. (A claim time of 3 s,
    kept alive every second, leaves two seconds for a loaded machine to run the keeper: the test asserts what the
    keeper guarantees, not how fast a busy machine schedules it. Without the keeper the entries sit idle 6 s and
    the thief takes them.)"""
    settings = make_settings(redis_url, consumer="planner", claim_idle_ms=3000)
    keys = settings.keys("default")
    heartbeat = settings.heartbeat_file
    heartbeat.touch()
    beats: list[tuple[int, int]] = []
    real = core_icm.icm

    def slow(stacks: Sequence[int], prizes: Sequence[int]) -> tuple[Fraction, ...]:
        before = heartbeat.stat().st_mtime_ns
        time.sleep(6.0)
        beats.append((before, heartbeat.stat().st_mtime_ns))
        return real(stacks, prizes)

    monkeypatch.setattr(core_deals, "icm", slow)
    publish_lines(client, keys.events, [*field(3), deal("icm", ["p0", "p1", "p2"])])
    planner = threading.Thread(target=commit, args=(settings,))
    planner.start()
    stolen: list[Any] = []
    while planner.is_alive():
        time.sleep(0.05)
        try:
            _, rows, *_ = client.xautoclaim(keys.events, settings.group, "thief", 3000, start_id="0-0")
        except redis.ResponseError:  # the group is not made yet
            continue
        stolen += rows
    planner.join()
    assert stolen == [], "nothing the planner held went idle"
    assert len(beats) == 1
    assert beats[0][1] > beats[0][0], "the heartbeat was touched while the deal was planned"
    records = [json.loads(f[b"audit"]) for _, f in read_range(client, keys.audit)]
    assert [(r["outcome"], r["worker"]) for r in records][-1] == ("settled", "planner")
    assert len(records) == 6
    assert client.xlen(keys.dead) == 0


def test_an_entry_whose_commits_keep_being_lost_to_claims_is_poison_at_the_max_deliveries_th_loss(
    redis_url: str, make_settings: Any, client: redis.Redis
) -> None:
    """Each time the worker commits, another has claimed the entry first (as two workers with a claim time shorter
    than a plan did, back and forth): each lost commit counts, and the claim after the fifth dead-letters the
    entry poison, naming why, instead of planning it forever."""
    settings = make_settings(redis_url, claim_idle_ms=100, max_deliveries=5)
    keys = settings.keys("default")
    publish_lines(client, keys.events, [*field(3)[:1]])  # one entry: the tournament's open
    worker = Worker(settings, connect(settings))
    worker.prepare_groups()
    real = worker.pipeline.commit_now

    def lost(k: Any, planned: Any) -> Any:  # another worker claims the entry between the plan and the commit
        client.xclaim(keys.events, settings.group, "other", 0, [d.prepared.entry_id for d in planned.decisions])
        return real(k, planned)

    worker.pipeline.commit_now = lost  # type: ignore[method-assign,assignment]
    rows = worker.pipeline.read(block=0)
    for _ in range(5):
        for shard_keys, entries in rows:
            worker.process(shard_keys, entries)
        assert client.xlen(keys.audit) == 0, "never committed"
        rows = [(keys, client.xautoclaim(keys.events, settings.group, settings.consumer, 0, start_id="0-0")[1])]
    worker.pipeline.commit_now = real  # type: ignore[method-assign]
    time.sleep(0.15)  # past claim_idle_ms
    worker.claim_stale()
    (letter,) = [fields for _, fields in read_range(client, keys.dead)]
    assert letter[b"code"] == b"poison"
    assert letter[b"message"].decode().startswith("it failed 5 times without a commit (limit 5")
    assert client.xpending(keys.events, settings.group)["pending"] == 0
