"""A Redis restart that redis-py rides over in silence (issue 33): a worker idle while its server was killed and
started again from an AOF that lost its last writes never sees an error from redis-py (a pooled connection the
server closed is opened again as it is taken from the pool), yet the chain it had checked against the archive is
not the one Redis came back with. Here another worker had committed past the first one's last head (its head is no
lower than what that worker last wrote, so "the head went backwards" cannot tell), and the archive holds the chain
further than Redis. The worker that ran on must learn of the restart (the server's run id, read as each connection
opens: :class:`~showdown_service.infra.connection.RunWatch`) and check again: a new epoch, the lost writes' hand a
duplicate, never the old chain extended (a fork of an archived seq, and the hand paid twice)."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis

from showdown_service.archive.archiver import Archiver
from showdown_service.decision.audit import Head
from showdown_service.infra.config import Settings, ShardKeys
from showdown_service.infra.connection import RunWatch, ServerRestarted, connect, watch_restarts
from showdown_service.infra.examples import example_lines
from showdown_service.infra.streams import read_range
from showdown_service.storage.layout import open_store
from showdown_service.testing.localredis import LocalRedis
from showdown_service.worker.loop import Worker
from tests.helpers import wait_until, xadd_events

CASES = [orjson.loads(line)["event"] for line in list(example_lines())[:12]]


def hands(n: int, tag: str = "h") -> list[dict[str, Any]]:
    return [{**CASES[i % len(CASES)], "hand_id": f"{tag}-{i}"} for i in range(n)]


def records(client: redis.Redis, keys: ShardKeys) -> list[dict[str, Any]]:
    return [orjson.loads(fields[b"audit"]) for _, fields in read_range(client, keys.audit)]


def steps(worker: Worker) -> None:
    worker.run(until_idle=True)


def incr_aof(data_dir: Path) -> Path:
    (found,) = sorted((data_dir / "appendonlydir").glob("*.incr.aof"))
    return found


def test_a_worker_that_never_saw_an_error_checks_again_after_a_silent_restart_and_extends_no_chain_the_archive_passed(
    make_settings: Any, tmp_path: Path
) -> None:
    with LocalRedis(appendfsync="always", data_dir=tmp_path / "redis") as server:
        client = redis.Redis.from_url(server.url, protocol=2)
        archive = tmp_path / "archive"
        first: Settings = make_settings(server.url, "a", archive_url=str(archive), backoff_max_s=0.05)
        second: Settings = first.model_copy(update={"consumer": "b", "heartbeat_file": tmp_path / "hb-b"})
        keys = first.keys("default")
        archiver = Archiver(first, client, open_store(first.archive_url))
        archiver.drain()  # registered before the workers settle
        ran_on = Worker(first, connect(first, name="a", watch=True))  # as `showdown worker` makes it
        ran_on.prepare_groups()
        docs = hands(10)
        xadd_events(client, keys.events, docs[:4])
        steps(ran_on)  # seq 1-4: its chain checked against the archive, its last head seq 4
        other = Worker(second, connect(second, name="b", watch=True))
        xadd_events(client, keys.events, docs[4:6])
        steps(other)  # seq 5-6, past what the first worker last wrote
        archiver.drain()
        cut = incr_aof(server.data_dir).stat().st_size  # appendfsync always: every write is on disk when answered
        xadd_events(client, keys.events, docs[6:8])
        steps(other)  # seq 7-8: lost with Redis's last writes, archived
        archiver.drain()
        assert [r["seq"] for r in records(client, keys)] == list(range(1, 9))
        old_epoch = client.get(keys.audit_epoch)

        server.kill()
        os.truncate(incr_aof(server.data_dir), cut)
        server.restart()
        assert Head.decode(client.get(keys.audit_head)).seq == 6, "back at seq 6: not below the first worker's 4"
        xadd_events(client, keys.events, [docs[7], docs[8]])  # h-7 was settled in the lost writes

        thread = threading.Thread(target=ran_on.run, name="ran-on", daemon=True)  # the worker's own loop
        thread.start()
        try:
            wait_until(lambda: {r["hand_id"] for r in records(client, keys)} >= {"h-7", "h-8"},
                       what="h-7 and h-8 decided by the worker that ran on", timeout=60)  # fmt: skip
        finally:
            ran_on.stop()
            thread.join(30)
        assert not thread.is_alive()
        got = [(r["seq"], r["hand_id"], r["outcome"]) for r in records(client, keys)]
        assert got == [(1, "h-7", "duplicate"), (2, "h-8", "settled")], (
            "a new epoch begun after the restore, never the old chain extended from seq 6 (h-7 paid twice, seq 7 "
            f"forked from the archived one): {got}"
        )
        assert client.get(keys.audit_epoch) != old_epoch
        client.close()


def test_the_watch_refuses_every_connection_to_a_restarted_server_until_the_worker_takes_note(tmp_path: Path) -> None:
    """What makes the detection certain: no command reaches the new run of the server before :meth:`accept`,
    whichever connection meets it first (a pooled one opened again, or one of a retried command)."""
    with LocalRedis(data_dir=tmp_path / "redis") as server:
        client = redis.Redis.from_url(server.url, protocol=2)
        watch = watch_restarts(client)
        assert watch_restarts(client) is watch, "one watch a client"
        assert isinstance(watch, RunWatch)
        client.set("k", "1")
        server.kill()
        server.restart()
        for _ in range(3):
            with pytest.raises(ServerRestarted, match="restarted"):
                client.set("k", "2")
        assert watch.accept() == [f"127.0.0.1:{server.port}"]
        assert watch.restarts == 1
        assert client.set("k", "2") is True
        assert client.get("k") == b"2"
        assert watch.accept() == []
        client.close()
