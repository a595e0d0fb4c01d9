"""``Worker.run(until_idle=True)``: serve as ``run()`` does, return once nothing is left to do, bounded."""

from __future__ import annotations

import json
from typing import Any

import fakeredis
import orjson
import pytest

from showdown_messages.publish import element
from showdown_service.infra.streams import read_range
from showdown_service.worker.loop import Worker, WorkerNotIdle
from tests.helpers import event, seat, xadd_events

SHARDS = ("east", "west")


def hand(n: int, tag: str = "h") -> dict[str, Any]:
    return event(seat(1, "As Ad", 500), seat(2, "Kc Kd", 500), board="2c 7d 9h Js 3s", hand_id=f"{tag}-{n}")


def outcomes(fake: fakeredis.FakeRedis, stream: str) -> list[str]:
    return [orjson.loads(fields[b"audit"])["outcome"] for _, fields in read_range(fake, stream)]


def cursed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settling the hand ``cursed`` raises (a bug in settlement): it stays pending for the claim."""
    from showdown_service.decision import intake

    real = intake.to_showdown

    def explode_on_cursed(ev: Any) -> Any:
        if ev.hand_id == "cursed":
            raise RuntimeError("a bug in settlement")
        return real(ev)

    monkeypatch.setattr("showdown_service.decision.settling.to_showdown", explode_on_cursed)


def test_run_until_idle_settles_every_shard_s_stream_and_inbox_in_many_batches_then_returns(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings(shards=SHARDS, batch_size=7)
    for shard in SHARDS:
        keys = settings.keys(shard)
        xadd_events(fake, keys.events, [hand(n, f"{shard}-s") for n in range(30)])
        fake.rpush(keys.inbox, *(element("event", json.dumps(hand(n, f"{shard}-i"))) for n in range(25)))
    worker = Worker(settings, fake)
    worker.run(until_idle=True)
    for shard in SHARDS:
        keys = settings.keys(shard)
        assert fake.llen(keys.inbox) == 0, shard
        assert outcomes(fake, keys.audit) == ["settled"] * 55, shard
        assert fake.xlen(keys.results) == 55, shard
        assert fake.xpending(keys.events, settings.group)["pending"] == 0, shard
    assert worker.idle()
    assert not worker.still_pending() or worker.still_pending() == ["nothing in hand: new entries kept coming"]


def test_run_until_idle_first_finishes_the_entries_a_crashed_run_of_the_same_consumer_left_pending(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings(claim_idle_ms=600_000)  # never claimed: only recovery takes them
    keys = settings.keys("default")
    xadd_events(fake, keys.events, [hand(n) for n in range(5)])
    Worker(settings, fake).prepare_groups()
    fake.xreadgroup(settings.group, settings.consumer, {keys.events: ">"}, count=5)  # read, then the process died
    Worker(settings, fake).run(until_idle=True)  # the same consumer, restarted
    assert outcomes(fake, keys.audit) == ["settled"] * 5
    assert fake.xpending(keys.events, settings.group)["pending"] == 0


def test_run_until_idle_waits_out_its_own_failing_entry_until_it_is_poison(
    fake: fakeredis.FakeRedis, make_settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its own entry pending after a failure is not idle: the claim retries it until max_deliveries makes it poison."""
    cursed(monkeypatch)
    settings = make_settings(claim_idle_ms=100, max_deliveries=3)
    keys = settings.keys("default")
    xadd_events(fake, keys.events, [{**hand(1), "hand_id": "cursed"}, hand(2)])
    worker = Worker(settings, fake)
    worker.run(until_idle=True, timeout_s=30)
    assert [(f[b"code"], f[b"hand_id"]) for _, f in read_range(fake, keys.dead)] == [(b"poison", b"cursed")]
    assert fake.xlen(keys.results) == 1
    assert fake.xpending(keys.events, settings.group)["pending"] == 0


def test_run_until_idle_past_its_bound_raises_naming_the_entry_still_pending(
    fake: fakeredis.FakeRedis, make_settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    cursed(monkeypatch)
    settings = make_settings(claim_idle_ms=600_000, max_deliveries=3)  # its retry is ten minutes away
    keys = settings.keys("default")
    xadd_events(fake, keys.events, [{**hand(1), "hand_id": "cursed"}, hand(2)])
    worker = Worker(settings, fake)
    with pytest.raises(WorkerNotIdle) as raised:
        worker.run(until_idle=True, max_steps=5)
    assert str(raised.value).startswith("worker w1 not idle after 5 steps (")
    assert raised.value.pending == [
        "shard default: 1 entries pending for w1 (left to the claim, every claim_idle_ms / 2)"
    ]
    assert fake.xlen(keys.results) == 1, "the rest settled"
    with pytest.raises(WorkerNotIdle, match=r"not idle after \d+ steps \([\d.]+ s\): shard default: 1 entries"):
        worker.run(until_idle=True, timeout_s=0.2)  # its bound in seconds, too


def test_run_until_idle_leaves_the_worker_running_and_usable_again(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    worker = Worker(settings, fake)
    xadd_events(fake, keys.events, [hand(n, "first") for n in range(3)])
    worker.run(until_idle=True)
    assert fake.xlen(keys.results) == 3
    xadd_events(fake, keys.events, [hand(n, "second") for n in range(4)])
    worker.run(until_idle=True)
    assert outcomes(fake, keys.audit) == ["settled"] * 7
    assert "stopped_at" not in (orjson.loads(settings.heartbeat_file.read_bytes() or b"{}") or {})
    worker.step()  # its I/O thread still serves
    assert fake.xlen(keys.results) == 7
