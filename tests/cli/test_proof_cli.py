"""``showdown proof --consistency``: roots and proofs computed from a real archiver's files, read-only."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import fakeredis
import pyarrow.parquet as pq
import pytest

from scripts import verify_proof
from showdown_service.archive.merkle import leaf_hash, record_leaf, tree_hash
from showdown_service.cli.commands import main
from showdown_service.infra.config import Settings
from showdown_service.storage.layout import all_files, open_store
from tests.archive.test_archive import hands, settle_and_archive

ENTRIES = 90


@pytest.fixture
def archive(fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path) -> Path:
    """An archive of 90 settled hands in several files (25 rows each) on shard default."""
    settings = make_settings(batch_size=30, archive_url=str(tmp_path / "archive"), archive_file_rows=25)
    settle_and_archive(fake, settings, [("event", json.dumps(doc)) for doc in hands(ENTRIES)])
    return tmp_path / "archive"


def audit_texts(archive: Path) -> list[str]:
    """The audit column of every file, in seq order, read with pyarrow alone."""
    rows = [row for _, _, path in all_files_of(archive) for row in pq.read_table(path).to_pylist()]
    return [row["audit"] for row in sorted(rows, key=lambda row: row["seq"])]


def all_files_of(archive: Path) -> list[tuple[int, int, str]]:
    return all_files(open_store(str(archive)))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["proof", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_consistency_proof_from_the_archive_verifies_with_the_standalone_verifier(
    archive: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    texts = audit_texts(archive)
    assert len(texts) == ENTRIES
    assert len(all_files_of(archive)) >= 3, "the proof reads across files"
    hashes = [leaf_hash(record_leaf(t)) for t in texts]
    for size1, size2 in ((7, ENTRIES), (25, 26), (64, 64), (0, 30), (1, 2)):
        code, out, err = run(capsys, "--consistency", str(size1), str(size2), "--archive", str(archive), "--json")
        assert (code, err) == (0, ""), err
        proof = json.loads(out)
        root1, root2 = verify_proof.b64(proof["root1"], "root1"), verify_proof.b64(proof["root2"], "root2")
        assert root1 == tree_hash(hashes[:size1])
        assert root2 == tree_hash(hashes[:size2])
        path = [verify_proof.b64(p, "path") for p in proof["consistency_path"]]
        verify_proof.verify_consistency(size1, size2, path, root1, root2)
    code, out, _ = run(capsys, "--consistency", "3", "5", "--archive", str(archive))
    assert code == 0
    assert out.startswith("shard default: the tree of 3 entries is the start of the tree of 5\n")


def test_what_the_archive_does_not_hold_is_named(archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--consistency", "3", str(ENTRIES + 1), "--archive", str(archive))
    assert code == 1
    assert f"the archive holds seq 1-{ENTRIES} of shard default epoch " in err
    assert err.endswith(f", not {ENTRIES + 1}\n")
    code, _, err = run(capsys, "--consistency", "3", "5", "--archive", str(archive), "--shard", "elsewhere")
    assert (code, "the archive holds no entries of shard elsewhere" in err) == (1, True)
    code, _, err = run(capsys, "--consistency", "3", "5", "--archive", str(archive), "--epoch", "0123456789abcdef")
    assert (code, "shard default has no chain 0123456789abcdef (its chains: " in err) == (1, True)
    code, _, err = run(capsys, "--consistency", "5", "3", "--archive", str(archive))
    assert (code, "SIZE1 (5) is at most SIZE2 (3)" in err) == (2, True)
    code, _, err = run(capsys, "--consistency", "1", "2", "--archive", str(archive / "nowhere"))
    assert (code, "no archive at" in err) == (2, True)
    assert not (archive / "nowhere").exists(), "a read-only command creates nothing"
    second = sorted(all_files_of(archive))[1]
    Path(second[2]).unlink()
    code, _, err = run(capsys, "--consistency", "3", str(ENTRIES), "--archive", str(archive))
    assert (code, err) == (0, ""), "the proof is read from the tiles, not the files' leaves"
    shutil.rmtree(archive / "tiles")  # as an archive kept before tiles: proven from its files, which break
    code, _, err = run(capsys, "--consistency", "3", str(ENTRIES), "--archive", str(archive))
    assert code == 1
    assert f"starts at seq {sorted(all_files_of(archive))[1][0]}, the log is at {second[0] - 1}" in err
    code, _, err = run(capsys, "--consistency", "3", str(second[0] - 1), "--archive", str(archive))
    assert (code, err) == (0, ""), "the run before the gap is still proven"


def test_its_help_says_what_it_does_the_settings_it_reads_and_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["proof", "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    usage, description, *_ = text.split("\n\n")
    assert usage.startswith("usage: showdown proof")
    assert len(description) > 150
    named = set(re.findall(r"SHOWDOWN_[A-Z0-9_]*[A-Z0-9]", text))
    assert "SHOWDOWN_ARCHIVE_URL" in named
    assert named <= {f"SHOWDOWN_{name.upper()}" for name in Settings.model_fields}, named
    assert "showdown proof --consistency" in text.split("\nexample:\n", 1)[1]
