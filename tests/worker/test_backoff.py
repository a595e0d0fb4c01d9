"""One backoff (infra.backoff) for the worker's loop and the archiver's: bounded, exponential, jittered."""

from __future__ import annotations

import threading
from typing import Any

import fakeredis
import pytest
import redis
from structlog.testing import capture_logs

from showdown_service.archive.archiver import Archiver
from showdown_service.infra.backoff import Backoff
from showdown_service.storage.layout import open_store
from showdown_service.worker.loop import Worker

ATTEMPTS = 1100
"""Failed attempts in a row: past 1,024, where ``0.05 * 2**n`` no longer converts to a float."""


def whole(low: float, high: float) -> float:
    return high


def half(low: float, high: float) -> float:
    return low


def test_backoff_doubles_from_a_tenth_of_a_second_up_to_max_s_the_worker_s_delays() -> None:
    """The delays the worker waited before the policy was one object: min(max_s, 0.05 * 2**n) * [0.5, 1.0]."""
    assert [Backoff(1.0, jitter=whole).delay(n) for n in range(1, 7)] == [0.1, 0.2, 0.4, 0.8, 1.0, 1.0]
    assert [Backoff(1.0, jitter=half).delay(n) for n in range(1, 7)] == [0.05, 0.1, 0.2, 0.4, 0.5, 0.5]


def test_backoff_jitter_draws_between_half_and_the_whole_delay() -> None:
    drawn: list[tuple[float, float]] = []

    def spy(low: float, high: float) -> float:
        drawn.append((low, high))
        return 0.75

    assert Backoff(5.0, jitter=spy).delay(3) == pytest.approx(0.3)
    assert drawn == [(0.5, 1.0)]
    delays = {Backoff(5.0).delay(2) for _ in range(200)}
    assert all(0.1 <= d <= 0.2 for d in delays)
    assert len(delays) > 1, "jittered: workers that lost Redis together do not come back in step"


def test_backoff_after_any_number_of_failures_waits_max_s_at_most() -> None:
    assert Backoff(5.0, jitter=whole).delay(1024) == 5.0
    assert Backoff(5.0, jitter=whole).delay(10**9) == 5.0


def test_worker_rides_out_more_than_1024_failed_attempts_in_a_row(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    """An outage of about an hour at the default 5 s: the worker's old inline backoff raised OverflowError."""
    worker = Worker(make_settings(backoff_max_s=0.0001), fake)
    attempts = 0

    def refused() -> None:
        nonlocal attempts
        attempts += 1
        if attempts == ATTEMPTS:
            worker.stop()
        raise redis.ConnectionError("Connection refused")

    worker.prepare_groups = refused  # type: ignore[method-assign]
    worker.run()
    assert attempts == ATTEMPTS
    assert worker.metrics.redis_errors._value.get() == ATTEMPTS


def test_archiver_rides_out_more_than_1024_failed_attempts_in_a_row(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Any
) -> None:
    settings = make_settings(archive_url=str(tmp_path / "archive"), backoff_max_s=0.0001)
    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    attempts = 0

    def refused(**_: Any) -> bool:
        nonlocal attempts
        attempts += 1
        if attempts == ATTEMPTS:
            archiver.stop()
        raise redis.ConnectionError("Connection refused")

    fake.ping = refused  # type: ignore[method-assign]
    archiver.run()
    assert attempts == ATTEMPTS


def test_archiver_waits_with_the_worker_s_jittered_backoff(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Any
) -> None:
    """The archiver waited min(max_s, 0.05 * 2**n) without jitter; now as the worker does (here the lowest draw)."""
    settings = make_settings(archive_url=str(tmp_path / "archive"), backoff_max_s=5.0)
    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    archiver.backoff = Backoff(settings.backoff_max_s, jitter=half)
    waited = threading.Event()

    def refused(**_: Any) -> bool:
        waited.set()
        archiver.stop()
        raise redis.ConnectionError("Connection refused")

    fake.ping = refused  # type: ignore[method-assign]
    with capture_logs() as logs:
        archiver.run()
    assert waited.is_set()
    ((line,),) = [[e for e in logs if e["event"] == "archive_waiting"]]
    assert line["retry_in_s"] == 0.05, "the first retry: 0.1 s, drawn at half"
