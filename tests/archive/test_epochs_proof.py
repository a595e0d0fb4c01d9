"""Issue 37: ``showdown proof --consistency`` across a chain's restart. After Redis lost its data the shard's chain
begins a new epoch at seq 1: no tree of one chain is a prefix of the other's, so the archiver signs an epoch
boundary (the old chain's last tree: origin, size, root; the new chain's origin) and the proof goes through it,
checked by the standalone verifier."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import fakeredis
import pytest

from showdown_service.archive import tlog
from showdown_service.archive.checkpoints import load_private_key
from showdown_service.archive.merkle import CompactRange, leaf_hash
from showdown_service.archive.note import Checkpoint, sign
from showdown_service.archive.replay import Difference, replay
from showdown_service.cli.commands import main
from showdown_service.infra.config import Settings
from showdown_service.storage.layout import open_store
from tests.archive.test_archive import hands, settle_and_archive
from tests.archive.test_tlog import VERIFY, chain_leaves, signed_settings, verifier_key


def lose_redis_and_go_on(fake: fakeredis.FakeRedis, settings: Settings) -> tuple[str, str]:
    """30 hands archived (signed heads at 25 and 30), Redis restarted empty, 12 more: (old epoch, new epoch)."""
    settle_and_archive(fake, settings, [("event", json.dumps(doc)) for doc in hands(30)])
    (old,) = chain_leaves(settings.archive_url)
    fake.flushall()
    settle_and_archive(fake, settings, [("event", json.dumps(doc)) for doc in hands(12, "new")])
    (new,) = set(chain_leaves(settings.archive_url)) - {old}
    return old, new


def verified(tmp_path: Path, document: dict[str, Any], vkey: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "epochs.json"
    path.write_text(json.dumps(document))
    return subprocess.run([*VERIFY, "epochs", str(path), "--key", vkey], check=False, capture_output=True, text=True)


def test_a_proof_across_a_chain_s_restart_goes_through_the_signed_epoch_boundary_and_verifies(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = signed_settings(make_settings, tmp_path)
    old, new = lose_redis_and_go_on(fake, settings)
    vkey = verifier_key(settings, capsys)
    boundary = (Path(settings.archive_url) / "checkpoints" / "default" / f"{new}-boundary.note").read_text()
    ended, following = tlog.parse_boundary(boundary.split("\n\n")[0] + "\n")
    assert (ended.origin, ended.size, following) == (f"room.example/default/{old}", 30, f"room.example/default/{new}")
    url = settings.archive_url
    for given in (["--epoch", old], []):  # the old chain named, or read from the boundary
        assert main(["proof", "--consistency", "25", "12", *given, "--to-epoch", new, "--archive", url, "--json"]) == 0
        document = json.loads(capsys.readouterr().out)
        assert (document["epoch1"], document["epoch2"]) == (old, new)
        done = verified(tmp_path, document, vkey)
        assert (done.returncode, done.stdout) == (
            0,
            f"OK tree 25 is a prefix of tree 30 in room.example/default/{old}, followed by room.example/default/"
            f"{new} (tree 12)\n",
        ), done.stderr
    forged = dict(document, boundary=document["boundary"].replace("\n30\n", "\n29\n", 1))
    assert verified(tmp_path, forged, vkey).returncode == 1, "a boundary edited: its signature fails"
    swapped = dict(document, checkpoint2=document["consistency"]["checkpoint1"])
    done = verified(tmp_path, swapped, vkey)
    assert (done.returncode, f"followed by room.example/default/{new}, the second head is of" in done.stderr) == (
        1,
        True,
    )
    assert main(["proof", "--consistency", "25", "12", "--to-epoch", new, "--archive", url]) == 0
    text = capsys.readouterr().out
    assert f"the room signed that epoch {new} followed it" in text
    assert main(["proof", "--consistency", "25", "12", "--epoch", new, "--to-epoch", new, "--archive", url]) == 1
    assert f"follows room.example/default/{old}, not epoch {new}" in capsys.readouterr().err
    assert main(["proof", "--consistency", "25", "12", "--to-epoch", old, "--archive", url]) == 1
    assert f"no signed epoch boundary into epoch {old}" in capsys.readouterr().err


def test_without_a_signing_key_no_boundary_is_claimed(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = signed_settings(make_settings, tmp_path, archive_signing_key=None, archive_checkpoints_copy=None)
    _, new = lose_redis_and_go_on(fake, settings)
    assert not list((Path(settings.archive_url) / "checkpoints").rglob("*boundary*"))
    assert main(["proof", "--consistency", "3", "5", "--to-epoch", new, "--archive", settings.archive_url]) == 1
    assert f"no signed epoch boundary into epoch {new}" in capsys.readouterr().err


def test_audit_replay_checks_the_signed_epoch_boundary_against_the_old_chain_s_files(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    settings = signed_settings(make_settings, tmp_path)
    old, new = lose_redis_and_go_on(fake, settings)

    def found() -> list[tuple[str, str]]:
        differences: list[Difference] = []
        replay(open_store(settings.archive_url), settings, differences.append, public_key=tmp_path / "archiver.pub")
        return [(d.kind, d.detail) for d in differences if d.kind != "reset"]  # the restart said, as it always is

    assert found() == []
    path = Path(settings.archive_url) / "checkpoints" / "default" / f"{new}-boundary.note"
    signer = tlog.signer("room.example", load_private_key(tmp_path / "archiver.pem"))
    other = CompactRange().extend(leaf_hash(b"another history %d" % i) for i in range(30))
    ended = Checkpoint(f"room.example/default/{old}", 30, other.root())
    path.write_text(sign(tlog.boundary_text("room.example", "default", ended, new), signer))
    ((kind, detail),) = found()
    assert (kind, f"the ended chain room.example/default/{old} is not the files' tree at size 30" in detail) == (
        "epoch_boundary",
        True,
    )
    path.write_text(path.read_text().replace("\n30\n", "\n25\n", 1))
    assert [kind for kind, _ in found()] == ["epoch_boundary"], "its signature fails"
