"""The archive never rewrites itself (issue 33): write-once files, locally and on S3 (Object Lock too); the newest
file is the one with the highest seq whatever its day, and a run that does not continue its chain is never
written; a chain that restarted (a Redis that lost its data) is archived beside the old one; a checkpoint copy
that cannot be written is waited for, never skipped."""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import fakeredis
import orjson
import pyarrow.parquet as pq
import pytest
from structlog.testing import capture_logs

from showdown_service.archive import archiver as archiver_module
from showdown_service.archive.archiver import Archiver
from showdown_service.archive.replay import Difference, replay
from showdown_service.infra.config import Settings, ShardKeys
from showdown_service.infra.streams import read_range
from showdown_service.ops import heartbeat
from showdown_service.storage.layout import ArchiveError, all_files, open_store, put_file, read_meta
from showdown_service.testing.localredis import free_port
from showdown_service.worker.loop import Worker
from tests.helpers import REAL_SHOWDOWNS, read_cases, wait_until

CASES = list(read_cases(REAL_SHOWDOWNS))


def hands(n: int, tag: str = "h") -> list[str]:
    return [json.dumps({**CASES[i % len(CASES)]["event"], "hand_id": f"{tag}-{i}"}) for i in range(n)]


def publish(client: Any, keys: ShardKeys, events: list[str]) -> None:
    for event in events:
        client.xadd(keys.events, {"event": event})


def settle(client: Any, settings: Settings, events: list[str], worker: Worker | None = None) -> None:
    keys = settings.keys("default")
    publish(client, keys, events)
    worker = worker or Worker(settings, client)
    worker.run(until_idle=True)


def contents(settings: Settings) -> dict[str, bytes]:
    """Every file of the archive (data and checkpoints) and its bytes."""
    root = Path(settings.archive_url)
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def archived_seqs(settings: Settings) -> list[int]:
    return [
        r["seq"] for _, _, path in all_files(open_store(settings.archive_url)) for r in pq.read_table(path).to_pylist()
    ]


def audit_records(client: Any, keys: ShardKeys) -> list[dict[str, Any]]:
    return [orjson.loads(fields[b"audit"]) for _, fields in read_range(client, keys.audit)]


def unchanged(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    """The files of ``before`` that are gone or changed in ``after``."""
    return [name for name, data in before.items() if after.get(name) != data]


def prove(settings: Settings, client: Any = None) -> list[Difference]:
    found: list[Difference] = []
    replay(open_store(settings.archive_url), settings, found.append, client=client)
    return found


# --- 1. write-once files ------------------------------------------------------------------------


def test_a_local_file_is_created_once_and_a_second_write_at_its_name_is_refused_leaving_it_whole(
    tmp_path: Path,
) -> None:
    store = open_store(str(tmp_path / "a"))
    path = store.path("shard=default", "day=2026-11-28", "default-000000000001-000000000002.parquet")
    put_file(store, path, b"the first")
    with pytest.raises(ArchiveError, match="exists already") as refused:
        put_file(store, path, b"the second")
    assert type(refused.value).__name__ == "NameTaken"
    assert Path(path).read_bytes() == b"the first"
    assert [p.name for p in Path(path).parent.iterdir()] == [Path(path).name], "no temporary file left behind"


def _run(archiver: Archiver) -> threading.Thread:
    runner = threading.Thread(target=archiver.run)
    runner.start()
    return runner


def _stop(archiver: Archiver, runner: threading.Thread) -> None:
    archiver.stop()
    runner.join(30)
    assert not runner.is_alive()


def test_an_archiver_whose_next_file_name_exists_refuses_loudly_and_writes_nothing_over_it(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file already at the name the next run goes to (its metadata saying the archive is empty, so every other
    check passes): the write is refused, the file kept, the archiver says why (an error line, the metric, the
    heartbeat) and looks again slowly, never in a busy loop."""
    settings = make_settings(batch_size=20, archive_url=str(tmp_path / "a"), archive_file_rows=10,
                             archive_interval_s=0.01, backoff_max_s=0.3)  # fmt: skip
    keys = settings.keys("default")
    settle(fake, settings, hands(10))
    records = audit_records(fake, keys)
    epoch = records[0]["hash"]
    day = records[0]["at"][:10]
    decoy = Path(
        settings.archive_url, "shard=default", f"day={day}", f"default-{epoch[:16]}-000000000001-000000000010.parquet"
    )
    decoy.parent.mkdir(parents=True)
    pq.write_table(pq.read_table(_one_file(fake, make_settings, tmp_path)).replace_schema_metadata({
        "shard": "default", "first_seq": "0", "last_seq": "0", "first_prev_hash": "0" * 64, "last_hash": "0" * 64,
        "epoch": epoch}), decoy)  # fmt: skip
    before = decoy.read_bytes()
    tries: list[float] = []
    real_put = put_file

    def timed(store: Any, path: str, data: bytes) -> None:
        tries.append(time.monotonic())
        real_put(store, path, data)

    monkeypatch.setattr(archiver_module, "put_file", timed)
    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    runner = _run(archiver)
    try:
        wait_until(lambda: archiver.metrics.refused.labels("default", "name_taken")._value.get() == 1,
                   what="the archiver refusing")  # fmt: skip
        problems = heartbeat.problems(settings.archiver_heartbeat, 30)
        assert any("refused" in p and "exists already" in p for p in problems), problems
        wait_until(lambda: len(tries) >= 3, what="two more tries")
    finally:
        _stop(archiver, runner)
    assert decoy.read_bytes() == before, "never written over"
    gaps = [later - earlier for earlier, later in itertools.pairwise(tries)]
    assert min(gaps) >= 0.3, f"each try waits backoff_max_s (0.3 s) after the last, never a busy loop: {gaps}"
    assert int(fake.hget(keys.archive, "seq") or 0) == 0, "no progress recorded"
    assert fake.xlen(keys.audit) == 10, "nothing trimmed"


def test_a_shard_refused_does_not_hold_up_the_other_shards(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    settings = make_settings(batch_size=20, archive_url=str(tmp_path / "a"), archive_file_rows=10, shards="east,west",
                             archive_interval_s=0.01, backoff_max_s=0.3)  # fmt: skip
    for shard in ("east", "west"):
        publish(fake, settings.keys(shard), hands(10, shard))
    worker = Worker(settings, fake)
    worker.run(until_idle=True)
    fake.set(settings.keys("east").audit + ":epoch", "f" * 64)  # Redis says another chain than its records hold
    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    runner = _run(archiver)
    try:
        wait_until(
            lambda: archiver.metrics.refused.labels("east", "chain_broken")._value.get() == 1, what="east refused"
        )
        wait_until(lambda: fake.hget(settings.keys("west").archive, "seq") == b"10", what="west archived meanwhile")
    finally:
        _stop(archiver, runner)
    assert fake.hget(settings.keys("east").archive, "seq") in (None, b"0")


def _count_puts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the archiver writes, as it writes them."""
    puts: list[str] = []
    real = put_file

    def counted(store: Any, path: str, data: bytes) -> None:
        puts.append(path)
        real(store, path, data)

    monkeypatch.setattr(archiver_module, "put_file", counted)
    return puts


def _one_file(fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path) -> str:
    """A well-formed archive file of another archive (its rows only serve as a body)."""
    settings = make_settings(consumer="other", batch_size=20, archive_url=str(tmp_path / "other"),
                             key_prefix="other")  # fmt: skip
    settle(fake, settings, hands(2, "other"))
    Archiver(settings, fake, open_store(settings.archive_url)).drain()
    return all_files(open_store(settings.archive_url))[0][2]


# --- S3: conditional put and Object Lock ----------------------------------------------------------


@pytest.fixture
def s3_endpoint() -> Iterator[str]:
    """moto's S3 server on a free 127.0.0.1 port (as tests/archive/test_archive_redis.py starts it)."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    endpoint = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(endpoint, timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.1)
        yield endpoint
    finally:
        server.terminate()
        server.wait(10)


def _s3(endpoint: str) -> Any:
    import boto3

    return boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="testing",
                        aws_secret_access_key="testing")  # fmt: skip


def _s3_settings(make_settings: Any, endpoint: str, bucket: str, **more: Any) -> Settings:
    return cast(Settings, make_settings(archive_url=f"s3://{bucket}/prod", archive_s3_endpoint=endpoint,
                                        archive_s3_region="us-east-1", archive_s3_access_key="testing",
                                        archive_s3_secret_key="testing", **more))  # fmt: skip


def test_on_s3_a_second_put_at_a_name_is_refused_by_the_store_and_the_object_stays(
    make_settings: Any, s3_endpoint: str
) -> None:
    s3 = _s3(s3_endpoint)
    s3.create_bucket(Bucket="plain")
    store = open_store("s3://plain/prod", _s3_settings(make_settings, s3_endpoint, "plain"))
    path = store.path("shard=default", "day=2026-11-28", "default-000000000001-000000000002.parquet")
    put_file(store, path, b"the first")
    with pytest.raises(ArchiveError, match="exists already") as refused:
        put_file(store, path, b"the second")
    assert type(refused.value).__name__ == "NameTaken"
    key = "prod/shard=default/day=2026-11-28/default-000000000001-000000000002.parquet"
    assert s3.get_object(Bucket="plain", Key=key)["Body"].read() == b"the first"


def test_on_s3_if_none_match_alone_refuses_an_overwrite(make_settings: Any, s3_endpoint: str) -> None:
    """The condition itself, without the HEAD before it (a race the HEAD cannot see): the store answers 412."""
    from showdown_service.storage.layout import NameTaken

    s3 = _s3(s3_endpoint)
    s3.create_bucket(Bucket="race")
    store = open_store("s3://race/prod", _s3_settings(make_settings, s3_endpoint, "race"))
    assert store.writer is not None
    writer = store.writer
    writer._exists = lambda bucket, key: False  # type: ignore[method-assign]
    put_file(store, store.path("x.json"), b"one")
    with pytest.raises(NameTaken, match="412"):
        put_file(store, store.path("x.json"), b"two")
    assert s3.get_object(Bucket="race", Key="prod/x.json")["Body"].read() == b"one"


def test_with_a_retention_setting_files_and_checkpoints_are_locked_and_a_delete_before_the_date_is_refused(
    fake: fakeredis.FakeRedis, make_settings: Any, s3_endpoint: str, tmp_path: Path
) -> None:
    from botocore.exceptions import ClientError

    from showdown_service.archive.checkpoints import new_key_pair

    s3 = _s3(s3_endpoint)
    s3.create_bucket(Bucket="locked", ObjectLockEnabledForBucket=True)
    private, public = tmp_path / "k.pem", tmp_path / "k.pub"
    new_key_pair(private, public)
    settings = _s3_settings(make_settings, s3_endpoint, "locked", batch_size=20, archive_file_rows=10,
                            archive_retention_days=3, archive_retention_mode="compliance",
                            archive_signing_key=private)  # fmt: skip
    settle(fake, settings, hands(20))
    Archiver(settings, fake, open_store(settings.archive_url, settings)).drain()
    objects = s3.list_object_versions(Bucket="locked", Prefix="prod/")["Versions"]
    names = sorted(o["Key"].removeprefix("prod/").split("/")[0] for o in objects)
    assert names == ["checkpoints"] * 4 + ["shard=default"] * 2 + ["tiles"] * 2 + ["tree"] * 2  # a JSON checkpoint
    # and a signed tree head per file, the tree's tile (tile/8/0/000.p/10, then .p/20) and its Merkle tree: each locked
    soon = datetime.now(UTC) + timedelta(days=3)
    for version in objects:
        head = s3.head_object(Bucket="locked", Key=version["Key"], VersionId=version["VersionId"])
        assert head["ObjectLockMode"] == "COMPLIANCE"
        assert abs((head["ObjectLockRetainUntilDate"] - soon).total_seconds()) < 120
        with pytest.raises(ClientError, match="AccessDenied"):
            s3.delete_object(Bucket="locked", Key=version["Key"], VersionId=version["VersionId"])
    fake.delete(settings.keys("default").archive + ":lock")
    settle(fake, settings, hands(5, "more"))
    Archiver(settings, fake, open_store(settings.archive_url, settings)).drain()  # resumes: reads its checkpoint
    assert len(s3.list_object_versions(Bucket="locked", Prefix="prod/")["Versions"]) == 15  # 5 objects a file
    data_key = next(o["Key"] for o in objects if "/shard=" in o["Key"])
    original = s3.get_object(Bucket="locked", Key=data_key)["Body"].read()
    s3.put_object(Bucket="locked", Key=data_key, Body=b"forged")  # an unconditional overwrite: a new version only
    kept = [v for v in s3.list_object_versions(Bucket="locked", Prefix=data_key)["Versions"] if not v["IsLatest"]]
    assert s3.get_object(Bucket="locked", Key=data_key, VersionId=kept[0]["VersionId"])["Body"].read() == original
    with pytest.raises(ClientError, match="AccessDenied"):
        s3.delete_object(Bucket="locked", Key=data_key, VersionId=kept[0]["VersionId"])


# --- 2. continuity: the newest file is the highest seq, whatever its day ------------------------------------------


class Clock:
    """The workers' clock (``datetime.now`` in their planning), set per step."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.at = datetime(2026, 11, 28, 23, 59, 59, 990_000, tzinfo=UTC)
        clock = self

        class Skewed(datetime):
            @classmethod
            def now(cls, tz: Any = None) -> Any:
                return clock.at

        from showdown_service.worker import planning as worker_planning

        monkeypatch.setattr(worker_planning, "datetime", Skewed)


def _copy_seen(seen: dict[str, bytes], settings: Settings) -> list[str]:
    """Record every file's bytes; the names of those that changed since first seen."""
    changed = []
    for name, data in contents(settings).items():
        if seen.setdefault(name, data) != data:
            changed.append(name)
    return changed


def test_two_workers_with_clocks_skewed_across_midnight_archive_every_record_once_and_rewrite_nothing(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Worker a's clock is 20 ms behind b's across UTC midnight: records' ``at`` go back a day in seq order, again
    and again, and files go under both days. Every record is archived once, no file is ever rewritten, and the
    archiver keeps up in a bounded number of turns."""
    clock = Clock(monkeypatch)
    settings = make_settings(batch_size=3, archive_url=str(tmp_path / "a"), archive_file_rows=4,
                             archive_interval_s=0.001)  # fmt: skip
    keys = settings.keys("default")
    a = Worker(settings, fake)
    b = Worker(make_settings(consumer="w2", batch_size=3, archive_url=settings.archive_url), fake)
    a.prepare_groups()
    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    seen: dict[str, bytes] = {}
    midnight = datetime(2026, 11, 29, tzinfo=UTC)
    for turn in range(12):
        publish(fake, keys, hands(3, f"t{turn}"))
        worker, skew = (a, -timedelta(milliseconds=10)) if turn % 2 == 0 else (b, timedelta(milliseconds=10))
        clock.at = midnight + skew + timedelta(microseconds=turn)
        worker.step()
        worker.flush()
        for _ in range(3):
            archiver.step(keys)
        assert _copy_seen(seen, settings) == [], "no file rewritten"
    archiver.drain(turns=20)
    assert _copy_seen(seen, settings) == []
    records = audit_records(fake, keys)
    assert len(records) == 36
    assert sorted({r["at"][:10] for r in records}) == ["2026-11-28", "2026-11-29"], "both days, back and forth"
    assert archived_seqs(settings) == list(range(1, 37)), "every record once"
    days = {Path(path).parent.name for _, _, path in all_files(open_store(settings.archive_url))}
    assert days == {"day=2026-11-28", "day=2026-11-29"}
    assert prove(settings, fake) == []


def test_a_worker_clock_corrected_backwards_a_day_archives_the_next_files_under_the_earlier_day_once(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock(monkeypatch)
    settings = make_settings(batch_size=5, archive_url=str(tmp_path / "a"), archive_file_rows=5)
    keys = settings.keys("default")
    clock.at = datetime(2026, 11, 29, 0, 0, 5, tzinfo=UTC)  # running a day ahead
    settle(fake, settings, hands(10, "ahead"))
    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    archiver.drain()
    before = contents(settings)
    clock.at = datetime(2026, 11, 28, 0, 0, 6, tzinfo=UTC)  # corrected: a day back
    settle(fake, settings, hands(10, "corrected"))
    puts = _count_puts(monkeypatch)
    for _ in range(30):  # bounded: a wedged archiver would rewrite the earlier day's file on every turn
        archiver.step(keys)
    archiver.flush()
    assert unchanged(before, contents(settings)) == []
    assert archived_seqs(settings) == list(range(1, 21))
    data_puts = [p for p in puts if p.endswith(".parquet")]
    assert len(data_puts) == len(set(data_puts)) == 2, data_puts
    assert all("day=2026-11-28" in p for p in data_puts)
    fake.delete(keys.archive + ":lock")  # as if the first had stopped
    restarted = Archiver(settings, fake, open_store(settings.archive_url))  # resumes from the highest seq
    settle(fake, settings, hands(5, "later"))
    restarted.drain()
    assert archived_seqs(settings) == list(range(1, 26))
    assert prove(settings, fake) == []


def test_an_archive_written_before_epochs_is_continued_under_the_new_names_and_left_as_it_was(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from showdown_service.storage import layout

    settings = make_settings(batch_size=10, archive_url=str(tmp_path / "a"), archive_file_rows=10)
    keys = settings.keys("default")
    settle(fake, settings, hands(20, "old"))

    def old_name(shard: str, first: int, last: int, epoch: str = "") -> str:
        return layout.file_name(shard, first, last)

    monkeypatch.setattr(archiver_module, "file_name", old_name)
    Archiver(settings, fake, open_store(settings.archive_url)).drain()
    monkeypatch.undo()
    for _, _, path in all_files(open_store(settings.archive_url)):  # as the archiver wrote them before epochs
        table = pq.read_table(path)
        meta = {k: v for k, v in (table.schema.metadata or {}).items() if k != b"epoch"}
        Path(path).unlink()
        pq.write_table(table.replace_schema_metadata(meta), path, compression="zstd")
    shutil.rmtree(Path(settings.archive_url) / "tree")  # nor did it keep a Merkle tree: rebuilt from the files
    shutil.rmtree(Path(settings.archive_url) / "tiles")  # nor its tiles
    before = contents(settings)
    assert all(re.fullmatch(r"default-\d{12}-\d{12}\.parquet", Path(name).name) for name in before), before
    settle(fake, settings, hands(10, "new"))
    fake.delete(keys.archive + ":lock")
    Archiver(settings, fake, open_store(settings.archive_url)).drain()
    assert unchanged(before, contents(settings)) == []
    epoch = audit_records(fake, keys)[0]["hash"]
    names = [Path(path).name for _, _, path in all_files(open_store(settings.archive_url))]
    assert names[2] == f"default-{epoch[:16]}-000000000021-000000000030.parquet"
    assert archived_seqs(settings) == list(range(1, 31))
    assert prove(settings, fake) == []


# --- 3. a chain that restarted: epochs side by side --------------------------------------------------------------


def test_a_redis_that_lost_its_data_starts_a_new_epoch_archived_beside_the_old_which_stays_byte_for_byte(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    """The reproduction of issue 33 (1) and the red team's (5): the archiver caught up, Redis restarted empty, new
    entries published. The old chain's files stay as they were; the new chain's go beside them, each record once;
    the restart is said (the log, the metric, the heartbeat's alerts, the progress hash); the loop is bounded."""
    settings = make_settings(batch_size=10, archive_url=str(tmp_path / "a"), archive_file_rows=10)
    keys = settings.keys("default")
    settle(fake, settings, hands(25, "old"))
    old_epoch = audit_records(fake, keys)[0]["hash"]
    running = Archiver(settings, fake, open_store(settings.archive_url))
    running.drain()
    settle(fake, settings, hands(3, "tail"))  # settled, not yet archived: lost with Redis
    running.step(keys)  # sees Redis's head at 28
    running._states[keys.shard].buffer.clear()  # as if the tail had not been read before the loss
    before = contents(settings)
    fake.flushall()  # Redis restarted without its data
    settle(fake, settings, hands(11, "new"))
    new_epoch = audit_records(fake, keys)[0]["hash"]
    assert new_epoch != old_epoch
    for _ in range(5):  # bounded: the old code looped rewriting seq 1 on every turn
        running.step(keys)
    running.flush()
    assert unchanged(before, contents(settings)) == [], "the old chain's files byte for byte"
    store = open_store(settings.archive_url)
    files = all_files(store)
    new = [path for _, _, path in files if f"-{new_epoch[:16]}-" in Path(path).name]
    old = [path for _, _, path in files if f"-{old_epoch[:16]}-" in Path(path).name]
    assert len(old) == 3
    assert [r["seq"] for path in new for r in pq.read_table(path).to_pylist()] == list(range(1, 12))
    assert {read_meta(store, path).epoch for path in new} == {new_epoch}
    progress = {k.decode(): v.decode() for k, v in cast(dict[bytes, bytes], fake.hgetall(keys.archive)).items()}
    assert progress["epoch"] == new_epoch
    assert progress["seq"] == "11"
    assert progress["previous_epoch"] == old_epoch
    assert progress["previous_epoch_seq"] == "25"
    assert progress["previous_epoch_lost"] == "seq 26-28 (3 entries)"
    assert running.metrics.chain_restarts.labels("default")._value.get() == 1
    running._heartbeat(force=True)
    alerts = heartbeat.alerts(settings.archiver_heartbeat)
    assert any(f"epoch {old_epoch[:16]} archived to seq 25, epoch {new_epoch[:16]} began" in a for a in alerts)

    # a new archiver (the old one restarted too) resumes the new chain, and more of it is archived once
    settle(fake, settings, hands(4, "more"))
    fake.delete(keys.archive + ":lock")  # as if the first had stopped
    again = Archiver(settings, fake, open_store(settings.archive_url))
    again.drain()
    assert unchanged(before, contents(settings)) == []
    new = [p for _, _, p in all_files(store) if f"-{new_epoch[:16]}-" in Path(p).name]
    assert [r["seq"] for path in new for r in pq.read_table(path).to_pylist()] == list(range(1, 16))
    assert again.metrics.chain_restarts.labels("default")._value.get() == 0, "said once, when the chain began"


def test_an_archiver_started_after_the_loss_says_the_lost_tail_is_unknown(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    settings = make_settings(batch_size=10, archive_url=str(tmp_path / "a"), archive_file_rows=10)
    keys = settings.keys("default")
    settle(fake, settings, hands(12, "old"))
    Archiver(settings, fake, open_store(settings.archive_url)).drain()
    before = contents(settings)
    fake.flushall()
    settle(fake, settings, hands(3, "new"))
    Archiver(settings, fake, open_store(settings.archive_url)).drain()
    assert unchanged(before, contents(settings)) == []
    assert fake.hget(keys.archive, "previous_epoch_lost") == b"unknown"
    assert fake.hget(keys.archive, "previous_epoch_seq") == b"12"
    assert sorted(archived_seqs(settings)) == sorted([*range(1, 13), *range(1, 4)])


def test_a_restart_not_yet_said_when_the_new_chain_s_first_file_was_written_is_said_on_resuming(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import redis

    settings = make_settings(batch_size=10, archive_url=str(tmp_path / "a"), archive_file_rows=10)
    keys = settings.keys("default")
    settle(fake, settings, hands(12, "old"))
    Archiver(settings, fake, open_store(settings.archive_url)).drain()
    fake.flushall()
    settle(fake, settings, hands(3, "new"))
    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    real = archiver._began

    def down_once(*args: Any) -> None:
        monkeypatch.setattr(archiver, "_began", real)
        raise redis.ConnectionError("Redis went away")

    monkeypatch.setattr(archiver, "_began", down_once)
    with pytest.raises(redis.ConnectionError):
        archiver.drain()
    assert fake.hget(keys.archive, "previous_epoch") is None
    archiver._states.clear()  # as the run loop does after an error
    archiver.drain()
    assert fake.hget(keys.archive, "previous_epoch_seq") == b"12"
    assert archiver.metrics.chain_restarts.labels("default")._value.get() == 1
    archiver._states.clear()
    archiver.drain()
    assert archiver.metrics.chain_restarts.labels("default")._value.get() == 1, "said once"
    assert sorted(archived_seqs(settings)) == sorted([*range(1, 13), *range(1, 4)])


def test_a_restored_redis_behind_the_archive_is_refused_never_written_over_and_never_looped_on(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    """Redis restored from a snapshot taken at seq 10 while the archive holds the chain to seq 20, and a worker that
    cannot see the archive (its own workers start a new epoch then: tests/worker/test_redis_behind.py): its next records
    (seq 11 on) fork the chain the archive holds. Refused, loudly; nothing written over."""
    settings = make_settings(batch_size=10, archive_url=str(tmp_path / "a"), archive_file_rows=5)
    settle(fake, settings, hands(10, "one"))
    snapshot = {name: cast(bytes, fake.dump(name)) for name in fake.keys("*")}
    settle(fake, settings, hands(10, "two"))
    Archiver(settings, fake, open_store(settings.archive_url)).drain()
    before = contents(settings)
    fake.flushall()
    for name, dumped in snapshot.items():
        fake.restore(name, 0, dumped)
    settle(fake, settings.model_copy(update={"archive_url": str(tmp_path / "not-here")}), hands(5, "fork"))
    from showdown_service.storage.layout import ArchiveRefused

    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    with pytest.raises(ArchiveRefused, match=r"seq 15, behind the archive's seq 20|begins at seq 11"):
        archiver.drain(turns=50)
    assert unchanged(before, contents(settings)) == []
    assert archived_seqs(settings) == list(range(1, 21))


# --- 4. a checkpoint copy that cannot be written -----------------------------------------------------------------


def test_a_checkpoint_copy_that_cannot_be_written_is_waited_for_and_every_file_gets_its_checkpoint(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    """The copy's directory is a file at first (every append fails, as on a full or unmounted volume): the archiver
    writes one file, then waits (metric, heartbeat) without writing another or recording progress; once the copy
    can be written, every file has exactly one checkpoint in it, in order."""
    from showdown_service.archive.checkpoints import new_key_pair

    private, public = tmp_path / "k.pem", tmp_path / "k.pub"
    new_key_pair(private, public)
    blocker = tmp_path / "copies"
    blocker.write_text("not a directory yet")
    settings = make_settings(batch_size=10, archive_url=str(tmp_path / "a"), archive_file_rows=10, archive_keep=0,
                             archive_interval_s=0.01, backoff_max_s=0.05, archive_signing_key=private,
                             archive_checkpoints_copy=blocker / "checkpoints.jsonl")  # fmt: skip
    keys = settings.keys("default")
    settle(fake, settings, hands(40))
    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    runner = _run(archiver)
    try:
        wait_until(lambda: archiver.metrics.waiting.labels("default")._value.get() == 1, what="the archiver waiting")
        time.sleep(0.5)  # it keeps trying meanwhile
        assert len(all_files(open_store(settings.archive_url))) == 1, "no second file while the copy fails"
        assert int(fake.hget(keys.archive, "seq") or 0) == 0, "no progress without the checkpoint copied"
        assert fake.xlen(keys.audit) == 40, "nothing trimmed"
        assert any("the archive" in p for p in heartbeat.problems(settings.archiver_heartbeat, 30))
        blocker.unlink()
        blocker.mkdir()
        wait_until(lambda: int(fake.hget(keys.archive, "seq") or 0) == 40, what="archived once the copy works")
    finally:
        _stop(archiver, runner)
    files = all_files(open_store(settings.archive_url))
    lines = [orjson.loads(line) for line in (blocker / "checkpoints.jsonl").read_bytes().splitlines()]
    root = Path(settings.archive_url)
    assert [line["file"] for line in lines] == [str(Path(path).relative_to(root)) for _, _, path in files]
    assert [line["sha256"] for line in lines] == [hashlib.sha256(Path(p).read_bytes()).hexdigest() for _, _, p in files]
    found: list[Difference] = []
    replay(open_store(settings.archive_url), settings, found.append, checkpoints=blocker / "checkpoints.jsonl",
           public_key=public)  # fmt: skip
    assert found == []


def test_an_online_audit_while_the_archiver_waits_for_its_checkpoint_copy_reports_no_tail_past_its_progress(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    """Between a file and its progress (here: the checkpoint copy waited for) the archive ends past the recorded
    seq: the archiver said first which file it writes, so an online audit does not call it a forged tail
    (``beyond_progress``, a false alarm before); a file past that one still is."""
    from showdown_service.archive.chains import archived_ends, beyond
    from showdown_service.archive.checkpoints import new_key_pair

    private, public = tmp_path / "k.pem", tmp_path / "k.pub"
    new_key_pair(private, public)
    blocker = tmp_path / "copies"
    blocker.write_text("not a directory")
    settings = make_settings(batch_size=10, archive_url=str(tmp_path / "a"), archive_file_rows=10, archive_keep=0,
                             archive_interval_s=0.01, backoff_max_s=0.05, archive_signing_key=private,
                             archive_checkpoints_copy=blocker / "checkpoints.jsonl")  # fmt: skip
    keys = settings.keys("default")
    settle(fake, settings, hands(20))
    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    runner = _run(archiver)
    try:
        wait_until(lambda: archiver.metrics.waiting.labels("default")._value.get() == 1, what="the archiver waiting")
        assert fake.hget(keys.archive, "seq") == b"0", "the file is written, its progress not yet"
        store = open_store(settings.archive_url)
        end, found = beyond(fake, keys, archived_ends(store, "default"))
        assert end is not None
        assert end.seq == 10
        assert found == [], "the file the archiver said it writes, not a tail past its progress"
        fake.hset(keys.archive, "writing", 5)  # as if it had said another file: this one is past it
        _, found = beyond(fake, keys, archived_ends(store, "default"))
        assert [d.kind for d in found] == ["beyond_progress"]
    finally:
        _stop(archiver, runner)


def test_a_copy_failing_three_times_then_a_progress_write_failing_leaves_each_checkpoint_once_in_the_copy(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The copy refuses three appends, then works; then Redis fails once just after a checkpoint was copied (before
    progress): the restarted turn finds the checkpoint already in the copy and appends it no second time."""
    import redis

    from showdown_service.archive.checkpoints import append_copy, new_key_pair

    private, public = tmp_path / "k.pem", tmp_path / "k.pub"
    new_key_pair(private, public)
    copy = tmp_path / "checkpoints.jsonl"
    settings = make_settings(batch_size=10, archive_url=str(tmp_path / "a"), archive_file_rows=10,
                             archive_interval_s=0.01, backoff_max_s=0.05, archive_signing_key=private,
                             archive_checkpoints_copy=copy)  # fmt: skip
    keys = settings.keys("default")
    settle(fake, settings, hands(30))
    failures = {"copy": 3, "progress": 0}

    def flaky_copy(path: Path, line: bytes) -> None:
        if failures["copy"] > 0:
            failures["copy"] -= 1
            if failures["copy"] == 0:
                failures["progress"] = 1  # once the copy works, the next progress write fails once
            raise OSError("No space left on device")
        append_copy(path, line)

    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    real_progress = archiver._progress

    def flaky_progress(keys: ShardKeys, state: Any, *, file: str) -> None:
        if failures["progress"] and file:
            failures["progress"] = 0
            raise redis.ConnectionError("Redis went away")
        real_progress(keys, state, file=file)

    monkeypatch.setattr(archiver_module, "append_copy", flaky_copy)
    monkeypatch.setattr(archiver, "_progress", flaky_progress)
    runner = _run(archiver)
    try:
        wait_until(lambda: int(fake.hget(keys.archive, "seq") or 0) == 30, what="everything archived")
    finally:
        _stop(archiver, runner)
    files = all_files(open_store(settings.archive_url))
    lines = [orjson.loads(line) for line in copy.read_bytes().splitlines()]
    assert len(files) == 3
    assert [line["last_seq"] for line in lines] == [last for _, last, _ in files], "each file once, in order"
    found: list[Difference] = []
    replay(open_store(settings.archive_url), settings, found.append, checkpoints=copy, public_key=public)
    assert found == []


def test_on_a_real_server_restarted_without_its_data_the_running_archiver_archives_the_new_chain_beside_the_old(
    make_settings: Any, tmp_path: Path
) -> None:
    """Valkey without persistence, as docs/getting-started.md starts it; the archiver running (its own thread) and
    caught up; the server killed and started again, empty; 11 entries settled. The old chain's files stay byte for
    byte, the new chain's 11 records are archived once beside them, and the progress hash names the restart."""
    from showdown_service.infra.connection import connect
    from showdown_service.testing.localredis import LocalRedis

    with LocalRedis(appendfsync=None) as server:
        settings = make_settings(server.url, batch_size=10, archive_url=str(tmp_path / "a"), archive_file_rows=10,
                                 archive_interval_s=0.05, backoff_max_s=0.2)  # fmt: skip
        keys = settings.keys("default")
        settle(connect(settings), settings, hands(30, "old"))
        archiver = Archiver(settings, connect(settings), open_store(settings.archive_url))
        runner = _run(archiver)
        try:
            client = connect(settings)
            wait_until(lambda: client.hget(keys.archive, "seq") == b"30", what="the old chain archived")
            before = contents(settings)
            server.kill()
            server.restart()  # no AOF, no snapshot: empty
            client = connect(settings)
            settle(client, settings, hands(11, "new"))
            wait_until(lambda: client.hget(keys.archive, "seq") == b"11", what="the new chain archived")
        finally:
            _stop(archiver, runner)
        assert unchanged(before, contents(settings)) == []
        new_epoch = audit_records(client, keys)[0]["hash"]
        store = open_store(settings.archive_url)
        new = [path for _, _, path in all_files(store) if f"-{new_epoch[:16]}-" in Path(path).name]
        assert [r["seq"] for path in new for r in pq.read_table(path).to_pylist()] == list(range(1, 12))
        progress = cast(dict[bytes, bytes], client.hgetall(keys.archive))
        assert (progress[b"epoch"].decode(), progress[b"previous_epoch_seq"]) == (new_epoch, b"30")
        assert progress[b"previous_epoch_lost"] == b"none", "it had archived all the old chain settled"
        assert archiver.metrics.chain_restarts.labels("default")._value.get() == 1


def test_a_shard_whose_name_ends_like_an_epoch_still_lists_its_files(tmp_path: Path) -> None:
    from showdown_service.storage.layout import shard_files, shard_runs

    store = open_store(str(tmp_path / "a"))
    shard = "eu-0123456789abcdef"
    old = store.path(f"shard={shard}", "day=2026-11-27", f"{shard}-000000000001-000000000002.parquet")
    new = store.path(f"shard={shard}", "day=2026-11-28", f"{shard}-fedcba9876543210-000000000003-000000000004.parquet")
    put_file(store, old, b"x")
    put_file(store, new, b"y")
    assert shard_files(store, shard) == [(1, 2, old), (3, 4, new)]
    assert [(r.epoch16, r.first_seq, r.day) for r in shard_runs(store, shard)] == [
        ("", 1, "2026-11-27"),
        ("fedcba9876543210", 3, "2026-11-28"),
    ]


def test_a_store_refusing_every_write_is_one_wait_not_a_wait_and_a_resume_each_turn(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading works, writing fails (a full disk, a bucket that refuses puts): each failed write used to be followed
    by `archive_resumed` as soon as a turn read the buffer again, and the backoff started over. Now the archiver
    waits once (its failures in a row counted on, so its retry delays grow) and resumes when a file is written."""
    settings = make_settings(batch_size=10, archive_url=str(tmp_path / "a"), archive_file_rows=100,
                             archive_interval_s=0.2, backoff_max_s=0.4)  # fmt: skip
    keys = settings.keys("default")
    settle(fake, settings, hands(10))  # fewer than a file's rows: written when the interval is up, a turn after
    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    real = archiver._write_run
    refusals = {"left": 4}

    def full_disk(keys: ShardKeys, state: Any) -> None:
        if refusals["left"]:
            refusals["left"] -= 1
            raise OSError(28, "No space left on device")
        real(keys, state)

    monkeypatch.setattr(archiver, "_write_run", full_disk)
    with capture_logs() as logs:
        runner = _run(archiver)
        try:
            wait_until(lambda: int(fake.hget(keys.archive, "seq") or 0) == 10, what="the file written at last")
        finally:
            _stop(archiver, runner)
    events = [e for e in logs if e["event"] in {"archive_waiting", "archive_resumed"}]
    assert [e["event"] for e in events] == ["archive_waiting", "archive_resumed"]
    assert refusals["left"] == 0
    assert len(all_files(open_store(settings.archive_url))) == 1
