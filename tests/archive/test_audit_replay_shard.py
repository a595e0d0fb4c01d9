"""Issue 41: ``audit replay --shard NAME`` proves the named shards only (a driver a shard, docs/scale.md). On an
archive of two shards, intact and with every kind of tampering the archive's replay tests use, each shard's run says
exactly that shard's part of the whole run (its differences in the whole run's order, its totals, its exit status),
so ``--shard a`` and ``--shard b`` together say what the whole run says; an unknown shard is refused, naming the
shards the archive has. The same on a real local Dask cluster (``--engine dask``: the cluster of
tests/archive/test_audit_replay_dask.py, two worker processes on 127.0.0.1)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import fakeredis
import pytest

from showdown_service.archive.archiver import Archiver
from showdown_service.archive.checkpoints import new_key_pair
from showdown_service.archive.replay import Totals, replay
from showdown_service.archive.scale import DaskEngine
from showdown_service.cli.commands import main as showdown_main
from showdown_service.infra.config import Settings
from showdown_service.storage.layout import all_files, open_store
from showdown_service.worker.loop import Worker
from tests.archive.test_archive import mixed_entries, publish
from tests.archive.test_audit_replay_dask import TAMPERED, engine

__all__ = ["engine"]  # the Dask cluster of tests/archive/test_audit_replay_dask.py (a scheduler, two workers)

SHARDS = ("a", "b")
Archived = tuple[Settings, Path, fakeredis.FakeRedis]


@pytest.fixture(scope="module")
def two_shards(tmp_path_factory: pytest.TempPathFactory) -> Archived:
    """One archive of two shards, each of mixed entries (hands, re-sends, refusals, a tournament with placements;
    files of 30 rows, signed checkpoints and tree heads), and the Redis it came from, built once: each test tampers
    with a copy."""
    root = tmp_path_factory.mktemp("two-shards")
    private, public = root / "archiver.pem", root / "archiver.pub"
    new_key_pair(private, public)
    settings = Settings(redis_url="redis://127.0.0.1:1/0", consumer="w1", block_ms=20, metrics_port=0,
                        heartbeat_file=root / "heartbeat", batch_size=40, archive_url=str(root / "archive"),
                        archive_file_rows=30, archive_signing_key=private, shards=",".join(SHARDS),
                        archive_checkpoints_copy=root / "checkpoints.jsonl")  # fmt: skip
    client = fakeredis.FakeRedis(server=fakeredis.FakeServer(), protocol=2)
    entries = mixed_entries()
    archiver = Archiver(settings, client, open_store(settings.archive_url, settings))
    for shard in SHARDS:
        publish(client, settings.keys(shard), entries)
        archiver.step(settings.keys(shard))  # registered first: the workers trim no event it has not taken
    worker = Worker(settings, client)
    worker.prepare_groups()
    for _ in range(2 * len(entries) // settings.batch_size + 10):
        worker.step()
    worker.flush()
    archiver.drain()
    return settings, root, client


@pytest.fixture
def copied(two_shards: Archived, tmp_path: Path) -> Settings:
    settings, root, _ = two_shards
    shutil.copytree(root / "archive", tmp_path / "archive")
    return settings.model_copy(update={"archive_url": str(tmp_path / "archive")})


def shard_of(line: bytes) -> str:
    return str(json.loads(line)["shard"])


def run(settings: Settings, **options: Any) -> tuple[list[bytes], Totals]:
    found: list[bytes] = []
    totals = replay(open_store(settings.archive_url, settings), settings, lambda d: found.append(d.line()), **options)
    return found, totals


def files_of(settings: Settings, shard: str) -> list[str]:
    return [path for _, _, path in all_files(open_store(settings.archive_url)) if f"/shard={shard}/" in path]


def assert_parts(whole: tuple[list[bytes], Totals], parts: dict[str, tuple[list[bytes], Totals]]) -> None:
    """Each shard's run is its part of the whole run (in the whole run's order); together they are the whole."""
    found, totals = whole
    for shard, (part, part_totals) in parts.items():
        assert part == [line for line in found if shard_of(line) == shard], f"shard {shard}'s part"
        assert part_totals.shards == (shard,)
        assert part_totals.unproven == tuple(s for s in SHARDS if s != shard)
    assert sorted(line for part, _ in parts.values() for line in part) == sorted(found), "together: the whole"
    for name in ("files", "entries", "resettled", "tree_heads"):
        assert sum(getattr(t, name) for _, t in parts.values()) == getattr(totals, name), name


@pytest.mark.parametrize("kind", sorted(TAMPERED))
def test_each_shards_run_is_its_part_of_the_whole_run_on_each_kind_of_tampering(
    copied: Settings, two_shards: Archived, kind: str
) -> None:
    """Online (the live chain and the recorded progress compared), with signed checkpoints and tree heads. Rows are
    tampered with in shard a, files in shard b (the tampering's files are b's)."""
    _, root, client = two_shards
    TAMPERED[kind](copied, files_of(copied, "b"))
    options: dict[str, Any] = {"client": client, "checkpoints": root / "checkpoints.jsonl",
                               "public_key": root / "archiver.pub"}  # fmt: skip
    whole = run(copied, **options)
    assert whole[1].entries > 200
    assert whole[1].tree_heads > 0
    assert whole[1].shards == SHARDS
    assert whole[1].unproven == ()
    assert (whole[0] == []) == (kind == "intact"), "each tampering is caught (and the intact archive holds)"
    parts = {shard: run(copied, only=[shard], **options) for shard in SHARDS}
    assert_parts(whole, parts)
    assert run(copied, only=SHARDS, **options) == whole, "both named: the whole run"


@pytest.mark.parametrize("kind", ["intact", "edited_result", "deleted_file", "unreadable_file"])
def test_with_jobs_each_shards_run_is_its_part_alike(copied: Settings, two_shards: Archived, kind: str) -> None:
    """``--jobs 2``: a shard named alone is prepared in the pool, both named are a process a shard."""
    TAMPERED[kind](copied, files_of(copied, "b"))
    whole = run(copied, client=two_shards[2])
    parts = {shard: run(copied, jobs=2, only=[shard], client=two_shards[2]) for shard in SHARDS}
    assert_parts(whole, parts)
    assert run(copied, jobs=2, only=["b", "a"], client=two_shards[2]) == whole


def test_what_no_shard_owns_is_reported_by_every_shards_run(copied: Settings, two_shards: Archived) -> None:
    """A checkpoints line that cannot be read names no shard, nor does a checkpoint of a shard the archive does
    not hold: each could be any shard's, so every shard's run reports them, each after its own."""
    _, root, client = two_shards
    checkpoints = copied_checkpoints = Path(copied.archive_url).parent / "checkpoints.jsonl"
    lines = (root / "checkpoints.jsonl").read_text(encoding="utf-8").splitlines()
    stray = {**json.loads(lines[0]), "shard": "gone"}
    copied_checkpoints.write_text("\n".join([*lines, "{not json", json.dumps(stray)]) + "\n", encoding="utf-8")
    options: dict[str, Any] = {"client": client, "checkpoints": checkpoints, "public_key": root / "archiver.pub"}
    whole, _ = run(copied, **options)
    ownerless = [line for line in whole if shard_of(line) not in SHARDS]
    assert [json.loads(line)["kind"] for line in ownerless] == ["checkpoint_unreadable", "checkpoint_signature"]
    for shard in SHARDS:
        part, _ = run(copied, only=[shard], **options)
        assert part == [line for line in whole if shard_of(line) in (shard, "", "gone")]


def test_an_unknown_shard_is_refused_naming_the_archives_shards(copied: Settings, two_shards: Archived) -> None:
    with pytest.raises(Exception, match=r"holds no shard c, east: its shards are a, b$"):
        run(copied, only=["a", "east", "c"])


def test_the_cli_proves_the_named_shards_and_says_which(
    copied: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each shard's report file and DIFFERENCE lines are its part of the whole run's, its exit status its own;
    ``--shard a --shard b`` and ``--shard a,b`` are the whole run (and say no shard was left)."""
    for key in ("SHOWDOWN_REDIS_URL", "SHOWDOWN_ARCHIVE_URL"):
        monkeypatch.delenv(key, raising=False)
    TAMPERED["edited_result"](copied, [])  # a row of shard a
    TAMPERED["deleted_row"](copied, files_of(copied, "a"))

    def cli(*extra: str) -> tuple[int, list[str], list[bytes]]:
        report = tmp_path / "report.jsonl"
        capsys.readouterr()
        status = showdown_main(["audit", "replay", copied.archive_url, "--offline", "--report", str(report), *extra])
        return status, capsys.readouterr().out.splitlines(), report.read_bytes().splitlines()

    status, out, report = cli()
    assert status == 1
    assert {shard_of(line) for line in report} == {"a"}
    a, b = cli("--shard", "a"), cli("--shard", "b")
    assert a[0] == 1
    assert a[2] == report
    differences = [line for line in out if line.startswith("DIFFERENCE ")]
    assert differences == [line for line in out if line.startswith("DIFFERENCE shard a ")]
    assert [line for line in a[1] if line.startswith("DIFFERENCE ")] == differences
    assert a[1][-2] == "shards proven: a; not proven: b"
    assert b[0] == 0
    assert b[2] == []
    assert b[1][-2:] == ["shards proven: b; not proven: a", f"{b[1][-1].split(':')[0]}: every entry holds"]
    for both in (cli("--shard", "a", "--shard", "b"), cli("--shard", "b,a")):
        assert both[0] == 1
        assert both[2] == report
        assert both[1] == [*out[:-1], "shards proven: a, b; no other shard", out[-1]]


@pytest.mark.parametrize(
    ("given", "error"),
    [
        (["--shard", "c"], "holds no shard c: its shards are a, b\n"),
        (["--shard", "a,east"], "holds no shard east: its shards are a, b\n"),
    ],
)
def test_the_cli_refuses_an_unknown_shard_with_exit_2(
    copied: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str], given: list[str], error: str
) -> None:
    """Before anything runs: no report written (nor a cluster started)."""
    report = tmp_path / "report.jsonl"
    status = showdown_main(["audit", "replay", copied.archive_url, "--offline", "--report", str(report), *given])
    assert status == 2
    assert capsys.readouterr().err == f"showdown audit replay: {copied.archive_url} {error}"
    assert not report.exists()


def test_the_cli_refuses_an_empty_shard_name(copied: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        showdown_main(["audit", "replay", copied.archive_url, "--offline", "--shard", "a,"])
    assert ended.value.code == 2
    assert "'a,': a shard's name, or names separated by commas, none empty" in capsys.readouterr().err


ON_THE_CLUSTER = ["intact", "edited_result", "edited_standings", "deleted_file", "deleted_newest_file",
                  "swapped_rows", "unreadable_file", "edited_metadata_last_hash"]  # fmt: skip
"""Kinds of tampering run on the Dask cluster too (each a few seconds there): rows, files and metadata."""


@pytest.mark.parametrize("kind", ON_THE_CLUSTER)
def test_on_the_dask_cluster_each_shards_run_is_its_part_alike(
    copied: Settings, two_shards: Archived, engine: DaskEngine, kind: str
) -> None:
    """``--engine dask --shard NAME``: the distributed run of one shard is that shard's one-machine run, byte for
    byte, and so its part of the whole run (online, with signed checkpoints and tree heads)."""
    _, root, client = two_shards
    TAMPERED[kind](copied, files_of(copied, "b"))
    options: dict[str, Any] = {"client": client, "checkpoints": root / "checkpoints.jsonl",
                               "public_key": root / "archiver.pub"}  # fmt: skip
    whole = run(copied, **options)
    parts = {shard: run(copied, engine=engine, only=[shard], **options) for shard in SHARDS}
    assert_parts(whole, parts)
    for shard in SHARDS:
        assert run(copied, only=[shard], **options) == parts[shard], "the one-machine run of the shard"


def test_the_cli_with_engine_dask_and_shard_says_what_the_one_machine_run_says(
    copied: Settings,
    engine: DaskEngine,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key in ("SHOWDOWN_REDIS_URL", "SHOWDOWN_ARCHIVE_URL"):
        monkeypatch.delenv(key, raising=False)
    TAMPERED["deleted_row"](copied, files_of(copied, "b"))

    def cli(*extra: str) -> tuple[int, str, bytes]:
        report = tmp_path / "report.jsonl"
        capsys.readouterr()
        status = showdown_main(["audit", "replay", copied.archive_url, "--offline", "--report", str(report), *extra])
        return status, capsys.readouterr().out, report.read_bytes()

    scheduler = ["--engine", "dask", "--scheduler", engine.client.scheduler.address]
    for shard, status in (("a", 0), ("b", 1)):
        alone = cli("--shard", shard)
        assert alone[0] == status
        assert cli(*scheduler, "--shard", shard) == alone
