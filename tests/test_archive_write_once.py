"""The archive never rewrites itself (issue 33): write-once files, locally and on S3 (Object Lock too)."""

from __future__ import annotations

import json
import subprocess
import sys
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

from showdown_service.archive.archiver import Archiver
from showdown_service.archive.layout import ArchiveError, all_files, open_store, put_file
from showdown_service.archive.replay import Difference, replay
from showdown_service.config import Settings, ShardKeys
from showdown_service.localredis import free_port
from showdown_service.streams import read_range
from showdown_service.worker import Worker
from tests.helpers import REAL_SHOWDOWNS, read_cases

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
    worker.prepare_groups()
    for _ in range(len(events) // settings.batch_size + 3):
        worker.step()
    worker.flush()


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


# --- S3: conditional put and Object Lock ----------------------------------------------------------


@pytest.fixture
def s3_endpoint() -> Iterator[str]:
    """moto's S3 server on a free 127.0.0.1 port (as tests/test_archive_redis.py starts it)."""
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
    from showdown_service.archive.layout import NameTaken

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
    assert names == ["checkpoints", "checkpoints", "shard=default", "shard=default"]
    soon = datetime.now(UTC) + timedelta(days=3)
    for version in objects:
        head = s3.head_object(Bucket="locked", Key=version["Key"], VersionId=version["VersionId"])
        assert head["ObjectLockMode"] == "COMPLIANCE"
        assert abs((head["ObjectLockRetainUntilDate"] - soon).total_seconds()) < 120
        with pytest.raises(ClientError, match="AccessDenied"):
            s3.delete_object(Bucket="locked", Key=version["Key"], VersionId=version["VersionId"])
    data_key = next(o["Key"] for o in objects if "/shard=" in o["Key"])
    original = s3.get_object(Bucket="locked", Key=data_key)["Body"].read()
    s3.put_object(Bucket="locked", Key=data_key, Body=b"forged")  # an unconditional overwrite: a new version only
    kept = [v for v in s3.list_object_versions(Bucket="locked", Prefix=data_key)["Versions"] if not v["IsLatest"]]
    assert s3.get_object(Bucket="locked", Key=data_key, VersionId=kept[0]["VersionId"])["Body"].read() == original
    with pytest.raises(ClientError, match="AccessDenied"):
        s3.delete_object(Bucket="locked", Key=data_key, VersionId=kept[0]["VersionId"])
