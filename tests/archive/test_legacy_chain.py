"""A chain begun before epochs existed (issue 33): Redis holds no ``audit:epoch`` for it and its archive files are
named without one. The worker's check of a head against the archive treats it as epoch 0 (the archive's chain of
files named without an epoch) and checks it, never skips it: Redis back behind such an archive (an AOF that lost its
last writes) begins a new epoch, and a hand of the lost writes re-sent is a duplicate, not paid twice."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import redis

from showdown_service.archive.archiver import Archiver
from showdown_service.cli.commands import main as showdown_main
from showdown_service.decision.audit import Head
from showdown_service.infra.config import Settings
from showdown_service.storage.layout import open_store
from showdown_service.testing.localredis import LocalRedis
from showdown_service.worker.loop import Worker
from tests.helpers import xadd_events
from tests.worker.test_redis_behind import hands, incr_aof, records, steps


def legacy(path: Path) -> None:
    """Make an archive file one an archiver wrote before epochs: named without the epoch, none in its metadata."""
    table = pq.read_table(path)
    meta = {k: v for k, v in (table.schema.metadata or {}).items() if k != b"epoch"}
    shard, _, first, last = path.stem.split("-")
    pq.write_table(table.replace_schema_metadata(meta), path.with_name(f"{shard}-{first}-{last}.parquet"))
    path.unlink()


def test_redis_back_behind_the_archive_of_a_chain_without_an_epoch_begins_a_new_epoch_and_pays_no_hand_twice(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with LocalRedis(appendfsync="always", data_dir=tmp_path / "redis") as server:
        client = redis.Redis.from_url(server.url, protocol=2)
        archive = tmp_path / "archive"
        settings: Settings = make_settings(server.url, archive_url=str(archive), heartbeat_file=tmp_path / "hb")
        keys = settings.keys("default")
        archiver = Archiver(settings, client, open_store(settings.archive_url))
        archiver.drain()
        worker = Worker(settings, client)
        worker.prepare_groups()
        docs = hands(9)
        xadd_events(client, keys.events, docs[:4])
        steps(worker)
        client.delete(keys.audit_epoch)  # a chain begun before epochs: Redis never had the key
        archiver.drain()
        cut = incr_aof(server.data_dir).stat().st_size
        xadd_events(client, keys.events, docs[4:8])
        steps(worker)
        archiver.drain()
        assert len(list(archive.rglob("*.parquet"))) == 2
        for path in archive.rglob("*.parquet"):
            legacy(path)
        names = sorted(p.name for p in archive.rglob("*.parquet"))
        assert names == ["default-000000000001-000000000004.parquet", "default-000000000005-000000000008.parquet"]
        monkeypatch.setenv("SHOWDOWN_REDIS_URL", server.url)
        monkeypatch.setenv("SHOWDOWN_ARCHIVE_URL", str(archive))
        capsys.readouterr()
        assert showdown_main(["audit", "replay", str(archive)]) == 0, "the epoch-0 chain proven, not skipped"
        assert "8 entries, 8 re-settled: every entry holds" in capsys.readouterr().out
        assert showdown_main(["audit", "verify"]) == 0
        assert "8 records, the chain holds (head seq 8, archived to seq 8" in capsys.readouterr().out

        server.kill()
        os.truncate(incr_aof(server.data_dir), cut)
        server.restart()
        assert Head.decode(client.get(keys.audit_head)).seq == 4, "back behind the archive (seq 8)"
        assert client.exists(keys.audit_epoch) == 0
        xadd_events(client, keys.events, [docs[5], docs[8]])  # h-5 settled in the lost writes
        worker = Worker(settings, client)
        worker.prepare_groups()
        steps(worker)
        got = [(r["seq"], r["hand_id"], r["outcome"]) for r in records(client, keys)]
        assert got == [(1, "h-5", "duplicate"), (2, "h-8", "settled")], (
            f"a new epoch, never the epoch-0 chain extended from seq 4 (h-5 paid twice): {got}"
        )
        reset = client.hgetall(keys.audit_reset)
        assert reset[b"redis_seq"] == b"4"
        assert reset[b"archived_seq"] == b"8"
        client.close()
