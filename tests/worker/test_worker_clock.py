"""The worker's clock (infra.clock): its claim schedule and its wait reports read it, so a test drives them without
sleeping."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import fakeredis
import orjson
import redis
from structlog.testing import capture_logs

from showdown_service.worker.loop import Worker
from tests.helpers import event, seat, xadd_events

CLAIM_IDLE_MS = 60_000
HAND = event(seat(1, "As Ad", 500), seat(2, "Kc Kd", 500), board="2c 7d 9h Js 3s", hand_id="stale-1")


@dataclass(slots=True)
class ManualClock:
    """A clock the test moves by hand."""

    at: float = 1_000_000.0

    def monotonic(self) -> float:
        return self.at

    def time(self) -> float:
        return self.at

    def advance(self, seconds: float) -> None:
        self.at += seconds


def test_a_dead_worker_s_entry_is_claimed_when_the_clock_reaches_the_next_claim_not_before_and_without_sleeping(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    """Claims run every claim_idle_ms / 2 of the worker's clock (30 s here): Redis may already count the entry idle
    past claim_idle_ms, the worker claims it only at its next claim."""
    settings = make_settings(claim_idle_ms=CLAIM_IDLE_MS)
    keys = settings.keys("default")
    clock = ManualClock()
    worker = Worker(settings, fake, clock=clock)
    worker.prepare_groups()
    worker.step()  # its first claim (nothing stale), at once; the next at +30 s
    (entry_id,) = xadd_events(fake, keys.events, [HAND])
    fake.xreadgroup(settings.group, "dead", {keys.events: ">"}, count=1)  # read by a worker that then died
    fake.xclaim(keys.events, settings.group, "dead", 0, [entry_id], idle=CLAIM_IDLE_MS + 1_000)  # idle 61 s to Redis
    for advance in (0.0, 10.0, 19.9):  # +29.9 s of the worker's clock: no claim yet
        clock.advance(advance)
        worker.step()
        assert fake.xlen(keys.results) == 0, f"claimed early, at +{clock.at - 1_000_000.0:.1f} s"
    assert [p["consumer"] for p in fake.xpending_range(keys.events, settings.group, "-", "+", 10)] == [b"dead"]
    clock.advance(0.2)  # +30.1 s: the next claim is due
    with capture_logs() as logs:
        worker.step()
        worker.flush()
    assert [e["count"] for e in logs if e["event"] == "entries_reclaimed"] == [1]
    assert fake.xlen(keys.results) == 1
    assert fake.xpending(keys.events, settings.group)["pending"] == 0


def test_a_wait_on_redis_is_reported_in_the_clock_s_seconds(fake: fakeredis.FakeRedis, make_settings: Any) -> None:
    settings = make_settings()
    clock = ManualClock(at=1_700_000_000.0)
    worker = Worker(settings, fake, clock=clock)
    with capture_logs() as logs:
        worker.housekeeping.wait_for(redis.ConnectionError("Connection refused"), attempt=1, retry_in_s=0.1)
        assert orjson.loads(settings.heartbeat_file.read_bytes())["since"] == 1_700_000_000.0
        clock.advance(12.5)
        worker.housekeeping.resume()
    (resumed,) = [e for e in logs if e["event"] == "redis_resumed"]
    assert resumed["waited_s"] == 12.5
