"""Issue 41 section 1: ``audit replay --engine dask`` on a real local Dask cluster (two worker processes on
127.0.0.1) says exactly what the one-machine run says, byte for byte: on an intact archive and on every kind of
tampering the archive's replay tests use (tests/archive/test_archive.py, tests/archive/test_audit_proof.py),
across shards, chain restarts and files of several row groups, and through the CLI (its report, its output, its exit
status)."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import fakeredis
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from showdown_service.archive.archiver import Archiver
from showdown_service.archive.checkpoints import new_key_pair
from showdown_service.archive.replay import Totals, replay
from showdown_service.archive.scale import DaskEngine
from showdown_service.cli.commands import main as showdown_main
from showdown_service.decision.audit import record_hash, sha256_hex
from showdown_service.infra.config import Settings
from showdown_service.storage.layout import SCHEMA, all_files, open_store
from showdown_service.worker.loop import Worker
from tests.archive.test_archive import hands, mixed_entries, publish, settle_and_archive
from tests.archive.test_audit_proof import (
    COLUMN_EDITS,
    DEAD_LETTER_EDITS,
    METADATA_EDITS,
    restarted_beside,
    s3_endpoint,
    two_epochs,
)
from tests.archive.test_audit_proof import rewrite as rewrite_meta

__all__ = ["s3_endpoint", "two_epochs"]  # fixtures of tests/archive/test_audit_proof.py, used here

Row = dict[str, Any]
Tamper = Callable[[Settings, list[str]], None]
"""Tampers with the archive of ``settings`` (its files, in chain order, given)."""
TIMEOUT_S = 120
"""Each distributed run is bounded: a cluster that hangs fails the test, it does not hold the suite."""


@pytest.fixture(scope="module")
def engine() -> Iterator[DaskEngine]:
    """A real Dask cluster: a scheduler and two worker processes on 127.0.0.1 (free ports), closed after."""
    with DaskEngine(workers=2, timeout_s=TIMEOUT_S) as started:
        assert len(started.client.nthreads()) == 2, "two workers"
        yield started


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, Path, fakeredis.FakeRedis]:
    """One archive of mixed entries (hands, re-sends, refusals, a tournament with placements; files of 30 rows,
    signed checkpoints) and the Redis it came from, built once: each test tampers with a copy."""
    root = tmp_path_factory.mktemp("pristine")
    private, public = root / "archiver.pem", root / "archiver.pub"
    new_key_pair(private, public)
    settings = Settings(redis_url="redis://127.0.0.1:1/0", consumer="w1", block_ms=20, metrics_port=0,
                        heartbeat_file=root / "heartbeat", batch_size=40, archive_url=str(root / "archive"),
                        archive_file_rows=30, archive_signing_key=private,
                        archive_checkpoints_copy=root / "checkpoints.jsonl")  # fmt: skip
    client = fakeredis.FakeRedis(server=fakeredis.FakeServer(), protocol=2)
    settle_and_archive(client, settings, mixed_entries())
    return settings, root, client


@pytest.fixture
def copied(pristine: tuple[Settings, Path, fakeredis.FakeRedis], tmp_path: Path) -> Settings:
    settings, root, _ = pristine
    shutil.copytree(root / "archive", tmp_path / "archive")
    return settings.model_copy(update={"archive_url": str(tmp_path / "archive")})


def both(settings: Settings, engine: DaskEngine, **options: Any) -> tuple[list[bytes], Totals]:
    """The one-machine run and the distributed one: each difference as its report line, the totals; asserted
    equal, the one-machine run's returned."""
    alone: list[bytes] = []
    store = open_store(settings.archive_url, settings)
    totals = replay(store, settings, lambda d: alone.append(d.line()), **options)
    spread: list[bytes] = []
    spread_totals = replay(store, settings, lambda d: spread.append(d.line()), engine=engine, **options)
    assert spread == alone, "the same differences, in the same order, byte for byte"
    assert spread_totals == totals
    return alone, totals


def paths(settings: Settings) -> list[str]:
    return [path for _, _, path in all_files(open_store(settings.archive_url))]


def rows_of(path: str) -> list[Row]:
    return list(pq.read_table(path).to_pylist())


def rewrite(path: str, change: Callable[[list[Row]], list[Row]], row_group_size: int | None = None) -> None:
    """Rewrite one file's rows with ``change(rows)``, keeping its metadata (as a forger would)."""
    table = pq.read_table(path)
    changed = pa.Table.from_pylist(change(table.to_pylist()), schema=SCHEMA).replace_schema_metadata(
        table.schema.metadata
    )
    pq.write_table(changed, path, compression="zstd", row_group_size=row_group_size)


def edit_row(settings: Settings, test: Callable[[Row], bool], edit: Callable[[Row], Row]) -> None:
    """Edit the first row passing ``test`` in the first file holding one."""
    path = next(p for p in paths(settings) if any(test(r) for r in rows_of(p)))
    number = next(i for i, r in enumerate(rows_of(path)) if test(r))
    rewrite(path, lambda rows: [edit(r) if i == number else r for i, r in enumerate(rows)])


def _hand(hand_id: str) -> Callable[[Row], bool]:
    return lambda row: row["hand_id"] == hand_id


def _json_edit(column: str, change: Callable[[Any], Any]) -> Callable[[Row], Row]:
    def edit(row: Row) -> Row:
        return {**row, column: json.dumps(change(json.loads(row[column])))}

    return edit


def _event(doc: dict[str, Any]) -> dict[str, Any]:
    doc["players"][0]["contributed"] += 1
    return doc


def _result(doc: dict[str, Any]) -> dict[str, Any]:
    doc["awards"][0]["amount"] += 1
    return doc


def _placements(placed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    placed[0]["prize"] = placed[0].get("prize", 0) + 100
    return placed


def _older(row: Row) -> Row:
    """The row as an older evaluator would have written it, digest and chain hash and all."""
    result = json.loads(row["result"])
    result["evaluator"] = "showdown-0.0.1"
    text = json.dumps(result)
    record = json.loads(row["audit"])
    record["result_sha256"] = sha256_hex(text.encode())
    record["hash"] = record_hash(record)
    return {**row, "result": text, "audit": json.dumps(record)}


def _swap(rows: list[Row]) -> list[Row]:
    i = next(n for n, r in enumerate(rows) if r["hand_id"] == "h-20")
    rows[i], rows[i + 1] = rows[i + 1], rows[i]
    return rows


def _garbage(path: str) -> None:
    Path(path).write_bytes(b"not parquet at all")


def _in_file_with(hand_id: str, change: Callable[[list[Row]], list[Row]]) -> Tamper:
    def tamper(settings: Settings, files: list[str]) -> None:
        rewrite(next(p for p in files if any(r["hand_id"] == hand_id for r in rows_of(p))), change)

    return tamper


def _row(test: Callable[[Row], bool], edit: Callable[[Row], Row]) -> Tamper:
    return lambda settings, _: edit_row(settings, test, edit)


def _dead_letter_field(name: str) -> Tamper:
    return _row(lambda r: r["dead_letter"] is not None and r["hand_id"] == "no-fields",
                _json_edit("dead_letter", DEAD_LETTER_EDITS[name]))  # fmt: skip


def _metadata(key: str) -> Tamper:
    def tamper(settings: Settings, files: list[str]) -> None:
        meta = {k.decode(): v.decode() for k, v in (pq.read_metadata(files[2]).metadata or {}).items()}
        rewrite_meta(files[2], meta=METADATA_EDITS[key](meta, {}))

    return tamper


TAMPERED: dict[str, Tamper] = {
    "intact": lambda settings, files: None,
    "edited_event": _row(_hand("h-7"), _json_edit("event", _event)),
    "edited_result": _row(_hand("h-9"), _json_edit("result", _result)),
    "edited_dead_letter": _row(lambda r: r["dead_letter"] is not None,
                               _json_edit("dead_letter", lambda d: {**d, "code": "payload_too_large"})),
    "edited_standings": _row(lambda r: r["standings"] is not None, _json_edit("standings", _placements)),
    "edited_audit": _row(_hand("h-11"), lambda r: {**r, "audit": r["audit"].replace(
        '"outcome":"settled"', '"outcome":"duplicate"')}),
    "deleted_row": _in_file_with("h-12", lambda rows: [r for r in rows if r["hand_id"] != "h-12"]),
    "deleted_file": lambda settings, files: Path(files[1]).unlink(),
    "deleted_newest_file": lambda settings, files: Path(files[-1]).unlink(),
    "swapped_rows": _in_file_with("h-20", _swap),
    "unreadable_file": lambda settings, files: _garbage(files[2]),
    "other_version": _row(_hand("h-5"), _older),
    **{f"edited_column_{name}": _row(test, edit) for name, (test, edit) in COLUMN_EDITS.items()},
    **{f"edited_dead_letter_{name}": _dead_letter_field(name) for name in DEAD_LETTER_EDITS},
    **{f"edited_metadata_{key}": _metadata(key) for key in METADATA_EDITS},
}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(TAMPERED))
def test_the_distributed_replay_says_what_the_one_machine_run_says_on_each_kind_of_tampering(
    copied: Settings, pristine: tuple[Settings, Path, fakeredis.FakeRedis], engine: DaskEngine, kind: str
) -> None:
    """Online (against the Redis the archive came from: the live chain and the recorded progress compared too)."""
    TAMPERED[kind](copied, paths(copied))
    found, totals = both(copied, engine, client=pristine[2])
    assert totals.entries > 100
    assert (found == []) == (kind == "intact"), "each tampering is caught (and the intact archive holds)"


def test_with_signed_checkpoints_and_a_rewritten_file_it_says_the_same(
    copied: Settings, pristine: tuple[Settings, Path, fakeredis.FakeRedis], engine: DaskEngine
) -> None:
    _, root, _ = pristine
    TAMPERED["edited_result"](copied, paths(copied))
    found, _ = both(copied, engine, checkpoints=root / "checkpoints.jsonl", public_key=root / "archiver.pub")
    assert any(b'"checkpoint_file"' in line for line in found)


def test_files_of_several_row_groups_are_a_task_each_and_stitched_in_order(
    copied: Settings, engine: DaskEngine
) -> None:
    files = paths(copied)
    for path in files:
        rewrite(path, lambda rows: rows, row_group_size=7)
    assert pq.read_metadata(files[0]).num_row_groups > 1
    assert both(copied, engine)[0] == []
    _in_file_with("h-20", _swap)(copied, files)  # in the file's third row group or later
    assert both(copied, engine)[0]
    _garbage(files[3])
    found, _ = both(copied, engine)
    assert "unreadable_file" in [json.loads(line)["kind"] for line in found]


def test_two_chains_of_a_shard_each_proven_the_restart_a_reset_alike(
    two_epochs: tuple[Settings, Any, Any], engine: DaskEngine
) -> None:
    settings, _, again = two_epochs
    found, _ = both(settings, engine)
    assert [json.loads(line)["kind"] for line in found] == ["reset"]
    assert [json.loads(line)["kind"] for line in both(settings, engine, client=again)[0]] == ["reset"]


def test_a_hand_settled_again_by_a_new_chain_is_caught_alike(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, engine: DaskEngine
) -> None:
    """The dedupe the old chain left is carried into the new one by the driver, as the one-machine run does."""
    settings = make_settings(batch_size=10, archive_url=str(tmp_path / "archive"), archive_file_rows=7)
    settle_and_archive(fake, settings, [("event", json.dumps(doc)) for doc in hands(20)])
    restarted_beside(settings, make_settings, tmp_path,
                     [("event", json.dumps(doc)) for doc in [*hands(3, "after"), hands(20)[5]]])  # fmt: skip
    found, _ = both(settings, engine)
    assert [json.loads(line)["kind"] for line in found] == ["reset", "resettled_differs"]


def test_shards_are_proven_in_shard_order_alike(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, engine: DaskEngine
) -> None:
    settings = make_settings(batch_size=20, archive_url=str(tmp_path / "a"), archive_file_rows=15, shards="east,west")
    for shard in ("east", "west"):
        publish(fake, settings.keys(shard), [("event", json.dumps(doc)) for doc in hands(25, shard)])
    worker = Worker(settings, fake)
    worker.run(until_idle=True)
    Archiver(settings, fake, open_store(settings.archive_url)).drain()
    assert both(settings, engine, client=fake)[0] == []
    for shard in ("east", "west"):
        _in_file_with(f"{shard}-4", lambda rows: [r for r in rows if not r["hand_id"].endswith("-4")])(
            settings, paths(settings)
        )
    found, _ = both(settings, engine, client=fake)
    assert [(json.loads(line)["shard"], json.loads(line)["kind"]) for line in found] == [
        ("east", "missing"),
        ("west", "missing"),
    ]


def test_an_s3_archive_is_read_by_the_workers_and_proven_alike(
    fake: fakeredis.FakeRedis, make_settings: Any, s3_endpoint: str, engine: DaskEngine
) -> None:
    """``s3://``: each task opens the archive's S3 filesystem on its worker with the replay's settings (a real
    S3-compatible server, moto's, on 127.0.0.1)."""
    settings = make_settings(batch_size=10, archive_url="s3://showdown-archive/prod", archive_s3_endpoint=s3_endpoint,
                             archive_s3_region="us-east-1", archive_s3_access_key="testing",
                             archive_s3_secret_key="testing", archive_file_rows=8)  # fmt: skip
    settle_and_archive(fake, settings, [("event", json.dumps(doc)) for doc in hands(20)])
    assert both(settings, engine, client=fake)[0] == []
    store = open_store(settings.archive_url, settings)
    listed = [path for _, _, path in all_files(store)]
    assert listed[0].startswith("showdown-archive/prod/shard=default/day="), "on S3"
    store.fs.delete_file(listed[1])
    found, _ = both(settings, engine, client=fake)
    assert [json.loads(line)["kind"] for line in found] == ["missing"]


def test_the_cli_with_engine_dask_prints_reports_and_exits_as_the_one_machine_run(
    copied: Settings,
    engine: DaskEngine,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``showdown audit replay ARCHIVE --engine dask --jobs 2`` (a cluster of its own, on 127.0.0.1) and
    ``--engine dask --scheduler ADDRESS`` (an existing cluster): the same lines printed, the same report file, the
    same exit status as the one-machine run, intact and tampered."""
    for key in ("SHOWDOWN_REDIS_URL", "SHOWDOWN_ARCHIVE_URL"):
        monkeypatch.delenv(key, raising=False)

    def run(*extra: str) -> tuple[int, str, bytes]:
        report = tmp_path / f"report{len(extra)}.jsonl"
        capsys.readouterr()
        status = showdown_main(["audit", "replay", copied.archive_url, "--offline", "--report", str(report), *extra])
        return status, capsys.readouterr().out, report.read_bytes()

    intact = run()
    assert intact[0] == 0
    assert intact == run("--engine", "dask", "--jobs", "2")
    TAMPERED["deleted_row"](copied, paths(copied))
    TAMPERED["edited_result"](copied, paths(copied))
    tampered = run()
    assert tampered[0] == 1
    assert tampered[1].count("DIFFERENCE ") >= 2
    assert tampered == run("--engine", "dask", "--scheduler", engine.client.scheduler.address)


def test_scheduler_without_engine_is_refused(copied: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    status = showdown_main(["audit", "replay", copied.archive_url, "--offline", "--scheduler", "tcp://127.0.0.1:1"])
    assert status == 2
    assert capsys.readouterr().err == "--scheduler goes with --engine dask\n"


def test_engine_dask_without_the_scale_extra_says_how_to_install_it(
    copied: Settings, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # as where it is not installed: importing it fails
    status = showdown_main(["audit", "replay", copied.archive_url, "--offline", "--engine", "dask"])
    assert status == 2
    assert capsys.readouterr().err == (
        "showdown audit replay: --engine dask needs Dask distributed: pip install 'showdown-service[scale]'\n"
    )
