"""``Archiver.run(until_idle=True)``: archive as ``run()`` does, return once every shard is archived, bounded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import fakeredis
import pytest

from showdown_service.archive.archiver import Archiver, ArchiverNotIdle
from showdown_service.storage.layout import open_store
from showdown_service.worker.loop import Worker
from tests.archive.test_archive import hands, prove, publish, rows


def test_archiver_run_until_idle_archives_every_shard_in_many_files_then_returns_still_holding_its_shards(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    settings = make_settings(batch_size=20, archive_url=str(tmp_path / "a"), archive_file_rows=10, shards="east,west")
    for shard in ("east", "west"):
        publish(fake, settings.keys(shard), [("event", json.dumps(doc)) for doc in hands(25, shard)])
    Worker(settings, fake).run(until_idle=True)
    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    archiver.run(until_idle=True)
    assert sorted((r["shard"], r["seq"]) for r in rows(settings)) == [
        (shard, seq) for shard in ("east", "west") for seq in range(1, 26)
    ]
    assert {shard: int(fake.hget(settings.keys(shard).archive, "seq") or 0) for shard in ("east", "west")} == {
        "east": 25,
        "west": 25,
    }
    assert prove(settings) == []
    assert archiver.idle()
    assert all(fake.exists(settings.keys(shard).archive + ":lock") for shard in ("east", "west")), "still held"
    publish(fake, settings.keys("east"), [("event", json.dumps(doc)) for doc in hands(3, "later")])
    Worker(settings, fake).run(until_idle=True)
    archiver.run(until_idle=True)  # runs again
    assert int(fake.hget(settings.keys("east").archive, "seq") or 0) == 28


def test_archiver_run_until_idle_past_its_bound_raises_naming_the_wait(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    settings = make_settings(batch_size=20, archive_url=str(tmp_path / "a"), backoff_max_s=0.05)
    keys = settings.keys("default")
    publish(fake, keys, [("event", json.dumps(doc)) for doc in hands(5)])
    Worker(settings, fake).run(until_idle=True)
    blocker = tmp_path / "a" / "shard=default"
    blocker.parent.mkdir(exist_ok=True)
    blocker.write_text("a file where the shard's directory goes: every write fails, as on a full disk")
    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    with pytest.raises(ArchiverNotIdle) as raised:
        archiver.run(until_idle=True, max_turns=4)  # read, write refused, read again, refused again
    assert str(raised.value).startswith("archiver not idle after 4 turns (")
    (waiting,) = raised.value.pending
    assert waiting.startswith("waiting for the archive: ")
    assert int(fake.hget(keys.archive, "seq") or 0) == 0
    blocker.unlink()
    archiver.run(until_idle=True)
    assert [r["seq"] for r in rows(settings)] == [1, 2, 3, 4, 5]
