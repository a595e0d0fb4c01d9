"""Redis back with its chain's head BEHIND the archive (issue 33, item 1 of what was left): an AOF that lost its last
writes (``appendfsync everysec`` loses up to a second; here the AOF is cut where it stood earlier, after a SIGKILL,
on a real server). The workers never extend a chain the archive has passed: the first settlement after the loss
begins a new epoch, after the dedupe is restored from the archive (a re-sent hand of the lost second is a
duplicate); the gap is named in the shard's reset and by health; the old epoch's archived files stay byte for byte;
the archiver writes the new epoch beside them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, cast

import orjson
import pytest
import redis

from showdown_service.archive.archiver import Archiver
from showdown_service.cli.commands import main as showdown_main
from showdown_service.decision.audit import Head
from showdown_service.infra.config import Settings, ShardKeys
from showdown_service.infra.examples import example_lines
from showdown_service.infra.streams import read_range
from showdown_service.ops import heartbeat
from showdown_service.read.health import health
from showdown_service.storage.layout import open_store, read_meta
from showdown_service.testing.localredis import LocalRedis
from showdown_service.worker.ledger import read_book
from showdown_service.worker.loop import Worker
from showdown_service.worker.restore import read_reset
from tests.helpers import xadd_events
from tests.worker.test_redis_loss import _tournament_run, _uninterrupted, archive_all, drain, publish

CASES = [orjson.loads(line)["event"] for line in list(example_lines())[:12]]


def hands(n: int, tag: str = "h") -> list[dict[str, Any]]:
    return [{**CASES[i % len(CASES)], "hand_id": f"{tag}-{i}"} for i in range(n)]


def records(client: redis.Redis, keys: ShardKeys) -> list[dict[str, Any]]:
    return [orjson.loads(fields[b"audit"]) for _, fields in read_range(client, keys.audit)]


def steps(worker: Worker) -> None:
    worker.run(until_idle=True)


def incr_aof(data_dir: Path) -> Path:
    """The server's incremental AOF (Redis 7 / Valkey: appendonlydir/<name>.<n>.incr.aof), where writes go."""
    (found,) = sorted((data_dir / "appendonlydir").glob("*.incr.aof"))
    return found


@pytest.mark.parametrize("same_worker", [False, True], ids=["a-worker-started-after", "the-worker-that-ran-on"])
def test_redis_back_behind_the_archive_begins_a_new_epoch_names_the_gap_and_pays_no_lost_second_hand_twice(
    make_settings: Any, tmp_path: Path, same_worker: bool
) -> None:
    with LocalRedis(appendfsync="always", data_dir=tmp_path / "redis") as server:
        client = redis.Redis.from_url(server.url, protocol=2)
        archive = tmp_path / "archive"
        settings: Settings = make_settings(server.url, archive_url=str(archive), heartbeat_file=tmp_path / "hb")
        keys = settings.keys("default")
        archiver = Archiver(settings, client, open_store(settings.archive_url))
        archiver.drain()  # registered before the worker settles (no event trimmed it has not read)
        worker = Worker(settings, client)
        worker.prepare_groups()
        docs = hands(9)
        xadd_events(client, keys.events, docs[:4])
        steps(worker)
        archiver.drain()
        cut = incr_aof(server.data_dir).stat().st_size  # appendfsync always: every write is on disk when answered
        xadd_events(client, keys.events, docs[4:8])
        steps(worker)
        archiver.drain()
        old_epoch = client.get(keys.audit_epoch)
        assert isinstance(old_epoch, bytes)
        written = {path: path.read_bytes() for path in archive.rglob("*") if path.is_file()}
        assert max(read_meta(archiver.store, str(p)).last_seq for p in written if p.suffix == ".parquet") == 8

        server.kill()  # a crash: what the AOF had past `cut` (the second before) is lost
        os.truncate(incr_aof(server.data_dir), cut)
        server.restart()
        assert Head.decode(client.get(keys.audit_head)).seq == 4, "Redis is back behind the archive (seq 8)"

        conflicting = {**docs[0], "hand_id": docs[6]["hand_id"]}
        xadd_events(client, keys.events, [docs[5], conflicting, docs[8]])  # h-5, h-6 settled in the lost second
        if not same_worker:
            worker = Worker(settings, client)
            worker.prepare_groups()
        steps(worker)
        got = [(r["seq"], r["prev_hash"] == "0" * 64, r["hand_id"], r["outcome"], r["code"])
               for r in records(client, keys)]  # fmt: skip
        assert got == [
            (1, True, "h-5", "duplicate", None),
            (2, False, "h-6", "rejected", "conflicting_duplicate"),
            (3, False, "h-8", "settled", None),
        ], "a new epoch, never the old chain extended from seq 4; the lost second's hands are not paid again"
        new_epoch = records(client, keys)[0]["hash"]
        assert client.get(keys.audit_epoch) == new_epoch.encode()
        assert client.xlen(keys.results) == 1, "only h-8's result: the old chain's (archived) left Redis's streams"

        reset = read_reset(client, keys)
        assert reset is not None
        assert (reset.archived_epoch, reset.archived_seq, reset.redis_seq) == (old_epoch.decode(), 8, 4)
        assert (reset.epoch, reset.hands) == (new_epoch, 8)
        assert reset.text() == (
            f"the chain restarted: epoch {old_epoch.decode()[:16]} archived to seq 8 (Redis came back at seq 4, "
            f"behind the archive: its writes after that were lost), epoch {new_epoch[:16]} began at "
            f"{records(client, keys)[0]['at']}"
        )
        heartbeat.write(settings.heartbeat_file)
        ok, lines = health(settings, client)
        assert ok, lines
        assert lines[0].startswith(f"degraded: shard default: {reset.text()};")

        archiver.drain()  # the archiver sees the chain changed and writes the new epoch beside the old one
        assert all(path.read_bytes() == data for path, data in written.items()), "nothing archived is rewritten"
        new_files = sorted(str(p) for p in archive.rglob("*.parquet") if p not in written)
        assert len(new_files) == 1
        assert f"-{new_epoch[:16]}-000000000001-000000000003.parquet" in new_files[0]
        assert client.hget(keys.archive, "previous_epoch") == old_epoch
        client.close()


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, redis_url: str, tmp_path: Path) -> Settings:
    """The command line's settings: the test server, an archive under tmp_path (as in
    tests/worker/test_redis_loss.py)."""
    for name, value in {"REDIS_URL": redis_url, "ARCHIVE_URL": str(tmp_path / "archive"),
                        "HEARTBEAT_FILE": str(tmp_path / "hb-cli"), "METRICS_PORT": "0"}.items():  # fmt: skip
        monkeypatch.setenv(f"SHOWDOWN_{name}", value)
    return Settings()


def test_a_running_knockout_after_redis_came_back_behind_the_archive_is_refused_restored_and_ends_as_without(
    client: redis.Redis, env: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its ledger in Redis stands at the older head, the archive has it further: the new epoch drops it, its
    entries are refused ``ledger_lost`` (never a plain hand, never applied to the stale ledger), ``tournament
    restore`` rebuilds it as it stood at its last archived entry, and once requeued it ends as without the loss.
    Redis is put back behind the archive with DUMP/RESTORE of every key (a snapshot restored)."""
    settings = env.model_copy(update={"consumer": "w1", "block_ms": 20})
    keys = settings.keys("default")
    sim = _tournament_run()
    tid = sim.tournament_id
    quarter, half = len(sim.lines) // 4, len(sim.lines) // 2
    archiver = archive_all(settings, client)
    publish(client, keys, sim.lines[:quarter])
    drain(settings, client)
    snapshot = {name: cast(bytes, client.dump(name)) for name in cast(list[bytes], client.keys("*"))}
    publish(client, keys, sim.lines[quarter:half])
    drain(settings, client)
    archiver.drain()
    archived = client.hgetall(keys.tournament(tid))
    client.flushall()
    for name, dumped in snapshot.items():
        client.restore(name, 0, dumped)
    assert client.hgetall(keys.tournament(tid)) != archived, "Redis's ledger stands behind the archive's"
    rest = sim.lines[half:]
    publish(client, keys, rest)
    drain(settings, client)
    refused = records(client, keys)
    assert [r["seq"] for r in refused] == list(range(1, len(rest) + 1)), "a new epoch: only its records in Redis"
    assert {(r["outcome"], r["code"]) for r in refused} == {("rejected", "ledger_lost")}, "never a plain hand"
    assert client.smembers(keys.tournaments_lost) == {tid.encode()}
    capsys.readouterr()
    assert showdown_main(["tournament", "restore", tid]) == 0
    assert client.hgetall(keys.tournament(tid)) == archived, "as it stood at its last archived entry"
    assert showdown_main(["dead-letters", "--code", "ledger_lost", "--requeue"]) == 0
    drain(settings, client)
    book = read_book(client, keys, tid)
    assert book is not None
    assert orjson.dumps(book.standings(tid)[0]) == orjson.dumps(_uninterrupted(sim.lines, tid))
