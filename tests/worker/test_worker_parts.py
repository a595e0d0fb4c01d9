"""The worker assembled from a part per job (groups and claims, I/O, planning, housekeeping), and its commit loop
that is never re-entered: a batch waiting for an earlier tournament entry that a dead worker holds is left to the
claim, which takes that entry and the batch together, in stream order."""

from __future__ import annotations

from typing import Any

import fakeredis
import orjson

from showdown_service.infra.streams import read_range
from showdown_service.worker.groups import GroupPlumbing
from showdown_service.worker.housekeeping import Housekeeping
from showdown_service.worker.io import IOPipeline
from showdown_service.worker.loop import Worker
from showdown_service.worker.planning import Planning
from showdown_service.worker.state import WorkerState
from tests.tournament_builders import entry, opened


def publish(client: Any, stream: str, lines: list[str]) -> None:
    for line in lines:
        ((field, body),) = orjson.loads(line).items()
        client.xadd(stream, {field: orjson.dumps(body)})


def test_the_worker_is_its_parts() -> None:
    assert Worker.__mro__[1:3] == (Planning, WorkerState)
    assert GroupPlumbing not in Worker.__mro__
    assert Housekeeping not in Worker.__mro__
    assert IOPipeline not in Worker.__mro__


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
