"""Issue 37: the archiver keeps each chain's Merkle tree beside the archive and signs a C2SP tree head per file;
``showdown proof HAND_ID`` hands out an inclusion proof that ``scripts/verify_proof.py`` checks."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import fakeredis
import httpx
import orjson
import pytest
import redis

from showdown_service.archive import tlog
from showdown_service.archive.archiver import Archiver
from showdown_service.archive.checkpoints import load_private_key, new_key_pair, sign
from showdown_service.archive.merkle import CompactRange, leaf_hash, record_leaf, roots_at
from showdown_service.archive.note import Verifier, open_checkpoint
from showdown_service.archive.replay import Difference, replay
from showdown_service.cli.commands import main
from showdown_service.infra.config import Settings
from showdown_service.storage.layout import NameTaken, all_files, epoch_runs, open_store, read_rows
from tests.api_support import HANDS_ONLY, bearer, serving
from tests.archive.test_archive import hands, settle_and_archive
from tests.helpers import REPO, wait_until, xadd_events

VERIFY = [sys.executable, str(REPO / "scripts" / "verify_proof.py")]
SHOWDOWN = [sys.executable, "-m", "showdown_service"]
ENTRIES = 70
ROWS = 25


def signed_settings(make_settings: Any, tmp_path: Path, **overrides: Any) -> Settings:
    private = tmp_path / "archiver.pem"
    if not private.exists():
        new_key_pair(private, tmp_path / "archiver.pub")
    values: dict[str, Any] = {
        "batch_size": 30,
        "archive_url": str(tmp_path / "archive"),
        "archive_file_rows": ROWS,
        "archive_signing_key": private,
        "archive_checkpoints_copy": tmp_path / "checkpoints.jsonl",
        "archive_log_name": "room.example",
    }
    settings: Settings = make_settings(**(values | overrides))
    return settings


@pytest.fixture
def signed(fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path) -> Settings:
    """70 settled hands archived in files of 25 rows, with a signing key and a checkpoints copy."""
    settings = signed_settings(make_settings, tmp_path)
    settle_and_archive(fake, settings, [("event", json.dumps(doc)) for doc in hands(ENTRIES)])
    return settings


def verifier_key(settings: Settings, capsys: pytest.CaptureFixture[str]) -> str:
    """The key ``showdown archive verifier-key --key PEM`` prints."""
    capsys.readouterr()
    os.environ["SHOWDOWN_ARCHIVE_LOG_NAME"] = settings.archive_log_name
    try:
        assert main(["archive", "verifier-key", "--key", str(settings.archive_signing_key)]) == 0
    finally:
        del os.environ["SHOWDOWN_ARCHIVE_LOG_NAME"]
    return capsys.readouterr().out.strip()


def chain_leaves(url: str, shard: str = "default") -> dict[str, list[bytes]]:
    """Each chain's leaf hashes, read from the files alone (pyarrow), by epoch (16 hex)."""
    store = open_store(url)
    found: dict[str, list[bytes]] = {}
    for epoch, runs in epoch_runs(store, shard).items():
        rows = [row for run in runs for row in read_rows(store, run.path, ["seq", "audit"]).to_pylist()]
        assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))
        found[epoch] = [leaf_hash(record_leaf(r["audit"])) for r in rows]
    return found


def heads(url: str, shard: str = "default") -> dict[str, dict[int, str]]:
    """Every signed tree head under checkpoints/, by epoch and size."""
    found: dict[str, dict[int, str]] = {}
    for path in sorted((Path(url) / "checkpoints" / shard).glob("[0-9a-f]*.note")):  # not a SIGKILL's .writing-*
        epoch, size = path.stem.split("-")
        found.setdefault(epoch, {})[int(size)] = path.read_text()
    return found


def test_the_archiver_keeps_the_tree_and_signs_a_c2sp_tree_head_per_file_into_the_archive_and_the_copy(
    signed: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    url = signed.archive_url
    vkey = verifier_key(signed, capsys)
    verifier = Verifier.parse(vkey)
    assert vkey.startswith("room.example+")
    ((epoch, leaves),) = chain_leaves(url).items()
    assert len(leaves) == ENTRIES
    sizes = [last for _, last, _ in all_files(open_store(url))]
    assert sizes == [25, 50, 70]
    roots = roots_at(leaves, sizes)
    signed_heads = heads(url)[epoch]
    assert sorted(signed_heads) == sizes, "one signed tree head per file, at its last seq"
    copied = [orjson.loads(line) for line in Path(str(signed.archive_checkpoints_copy)).read_bytes().splitlines()]
    assert [c["tree_head"] for c in copied] == [signed_heads[s] for s in sizes], "the copy holds every head too"
    for size in sizes:
        checkpoint, _ = open_checkpoint(signed_heads[size], [verifier])
        assert (checkpoint.origin, checkpoint.size, checkpoint.root) == (f"room.example/default/{epoch}", size,
                                                                          roots[size])  # fmt: skip
        kept = json.loads((Path(url) / "tree" / "default" / f"{epoch}-{size:012d}.json").read_text())
        assert CompactRange.from_json(kept) == CompactRange().extend(leaves[:size])


def test_each_file_extends_the_kept_tree_and_never_reads_the_leaves_of_the_files_before(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def reread(*_args: Any) -> Any:
        raise AssertionError("the leaves of files written before were read again")

    monkeypatch.setattr(tlog, "leaves", reread)
    settings = signed_settings(make_settings, tmp_path)
    settle_and_archive(fake, settings, [("event", json.dumps(doc)) for doc in hands(ENTRIES)])
    assert sorted(heads(settings.archive_url)[next(iter(chain_leaves(settings.archive_url)))]) == [25, 50, 70]


def test_a_tree_and_head_lost_after_their_file_are_written_again_on_resume_from_the_files_alone(
    signed: Settings, fake: fakeredis.FakeRedis
) -> None:
    url = Path(signed.archive_url)
    ((epoch, _),) = chain_leaves(str(url)).items()
    newest_tree = url / "tree" / "default" / f"{epoch}-{70:012d}.json"
    newest_head = url / "checkpoints" / "default" / f"{epoch}-{70:012d}.note"
    before = newest_tree.read_bytes(), newest_head.read_bytes()
    for path in (url / "tree" / "default").glob("*.json"):  # as if every tree state was lost: rebuilt from files
        path.unlink()
    newest_head.unlink()
    fake.delete(signed.keys("default").archive + ":lock")  # the fixture's archiver is gone: its lease with it
    assert not Archiver(signed, fake, open_store(str(url), signed)).step(signed.keys("default"))
    assert (newest_tree.read_bytes(), newest_head.read_bytes()) == before


def test_a_tree_head_that_is_not_the_files_tree_refuses_the_archiver_rather_than_be_written_over(
    signed: Settings, fake: fakeredis.FakeRedis
) -> None:
    url = Path(signed.archive_url)
    ((epoch, _),) = chain_leaves(str(url)).items()
    newest_head = url / "checkpoints" / "default" / f"{epoch}-{70:012d}.note"
    newest_head.write_text(newest_head.read_text().replace("70\n", "71\n", 1))
    (url / "tree" / "default" / f"{epoch}-{70:012d}.json").unlink()
    fake.delete(signed.keys("default").archive + ":lock")
    archiver = Archiver(signed, fake, open_store(str(url), signed))
    with pytest.raises(NameTaken):
        archiver.step(signed.keys("default"))


def test_showdown_proof_hand_id_json_verifies_with_the_standalone_verifier_and_an_edited_leaf_fails(
    signed: Settings, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    vkey = verifier_key(signed, capsys)
    for hand, size, index in (("h-3", None, 3), ("h-60", None, 60), ("h-3", 25, 3)):
        sized = ["--size", str(size)] if size else []
        assert main(["proof", hand, "--json", "--archive", signed.archive_url, *sized]) == 0
        document = json.loads(capsys.readouterr().out)
        assert (document["hand_id"], document["leaf_index"], document["tree_size"]) == (hand, index, size or 70)
        assert json.loads(document["leaf"])["seq"] == index + 1
        proof = tmp_path / f"proof-{hand}-{size}.json"
        proof.write_text(json.dumps(document))
        checked = subprocess.run([*VERIFY, "inclusion", str(proof), "--key", vkey], check=False, capture_output=True,
                                 text=True)  # fmt: skip
        origin = document["checkpoint"].splitlines()[0]
        assert (checked.returncode, checked.stdout) == (0, f"OK leaf {index} of {size or 70} in {origin}\n")
        document["leaf"] = document["leaf"].replace('"seq"', '"seq" ', 1)
        proof.write_text(json.dumps(document))
        edited = subprocess.run([*VERIFY, "inclusion", str(proof), "--key", vkey], check=False, capture_output=True,
                                text=True)  # fmt: skip
        assert edited.returncode == 1
        assert "does not lead to the checkpoint's root hash" in edited.stderr
    assert main(["proof", "h-3", "--archive", signed.archive_url]) == 0
    text = capsys.readouterr().out
    assert "leaf 3 of tree size 70" in text
    assert "room.example/default/" in text


def test_showdown_proof_of_a_hand_not_archived_or_not_yet_signed_says_so(
    signed: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["proof", "no-such-hand", "--archive", signed.archive_url]) == 1
    assert "hand no-such-hand is not in the archive" in capsys.readouterr().err
    assert main(["proof", "h-60", "--size", "50", "--archive", signed.archive_url]) == 1
    assert "seq 61 is not yet in a signed tree head" in capsys.readouterr().err
    assert main(["proof", "--archive", signed.archive_url]) == 2
    assert "give HAND_ID or --consistency" in capsys.readouterr().err


def test_workers_and_an_archiver_sigkilled_mid_file_give_the_roots_of_an_undisturbed_run_of_the_same_entries(
    client: redis.Redis, worker_env: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The archiver is SIGKILLed twice while writing (files of 37 rows, a 0.1 s interval), a worker once: every
    file still has its tree and signed head, and each root is the one an undisturbed tree of the archived leaves
    (built from the files alone, in one pass) has at that size."""
    settings = Settings(redis_url=worker_env["SHOWDOWN_REDIS_URL"])
    private = tmp_path / "archiver.pem"
    new_key_pair(private, tmp_path / "archiver.pub")
    archive = tmp_path / "archive"
    env = {**worker_env, "SHOWDOWN_ARCHIVE_URL": str(archive), "SHOWDOWN_ARCHIVE_FILE_ROWS": "37",
           "SHOWDOWN_ARCHIVE_INTERVAL_S": "0.1", "SHOWDOWN_BATCH_SIZE": "20", "SHOWDOWN_ARCHIVE_LOCK_TTL_S": "1",
           "SHOWDOWN_ARCHIVE_SIGNING_KEY": str(private),
           "SHOWDOWN_ARCHIVE_CHECKPOINTS_COPY": str(tmp_path / "copy.jsonl")}  # fmt: skip
    keys = settings.keys("default")
    docs = hands(600)
    xadd_events(client, keys.events, docs[:300])

    def spawn(command: str, name: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [*SHOWDOWN, command], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**env, "SHOWDOWN_CONSUMER": name, "SHOWDOWN_HEARTBEAT_FILE": str(tmp_path / f"hb-{name}")},
        )  # fmt: skip

    def files() -> int:
        return len(all_files(open_store(str(archive))))

    workers = [spawn("worker", "w1"), spawn("worker", "w2")]
    archiver = spawn("archiver", "a1")
    try:
        for kill in range(2):
            seen = files()
            wait_until(lambda: files() > seen, what="a file more", timeout=60)  # noqa: B023
            archiver.send_signal(signal.SIGKILL)
            archiver.wait(10)
            if kill == 0:
                workers[0].send_signal(signal.SIGKILL)
                workers[0].wait(10)
                xadd_events(client, keys.events, docs[300:])
                workers[0] = spawn("worker", "w1b")
            archiver = spawn("archiver", f"a{kill + 2}")
        wait_until(lambda: int(client.hget(keys.archive, "seq") or 0) == len(docs), what="all archived", timeout=120)
    finally:
        for process in [*workers, archiver]:
            process.send_signal(signal.SIGTERM)
        for process in [*workers, archiver]:
            process.wait(30)
    ((epoch, leaves),) = chain_leaves(str(archive)).items()
    assert len(leaves) == len(docs)
    sizes = [last for _, last, _ in all_files(open_store(str(archive)))]
    signed_heads = heads(str(archive))[epoch]
    assert sorted(signed_heads) == sizes, "every file has its signed head, none other"
    undisturbed = roots_at(leaves, sizes)
    verifier = Verifier.parse(verifier_key(Settings(archive_signing_key=private), capsys))
    for size in sizes:
        checkpoint, _ = open_checkpoint(signed_heads[size], [verifier])
        assert checkpoint.root == undisturbed[size], f"the signed root at size {size}"
        kept = json.loads((archive / "tree" / "default" / f"{epoch}-{size:012d}.json").read_text())
        assert CompactRange.from_json(kept).root() == undisturbed[size]
        assert tlog.tiled(open_store(str(archive)), "default", epoch, size).tree().root() == undisturbed[size]
    copied = [orjson.loads(line) for line in (tmp_path / "copy.jsonl").read_bytes().splitlines()]
    assert sorted({c["tree_head"] for c in copied}) == sorted(set(signed_heads.values()))


def proven(settings: Settings, **options: Any) -> tuple[list[Difference], int]:
    found: list[Difference] = []
    totals = replay(open_store(settings.archive_url), settings, found.append, **options)
    return found, totals.tree_heads


def test_audit_replay_recomputes_every_root_and_checks_every_signed_head_of_the_archive_and_the_copy(
    signed: Settings, tmp_path: Path
) -> None:
    copy = Path(str(signed.archive_checkpoints_copy))
    assert proven(signed, checkpoints=copy, public_key=tmp_path / "archiver.pub") == ([], 6)
    assert proven(signed) == ([], 3), "without the key the roots are still recomputed"


def test_audit_replay_reports_a_fork_two_signed_heads_of_one_size_with_different_roots(
    signed: Settings, tmp_path: Path
) -> None:
    copy = Path(str(signed.archive_checkpoints_copy))
    key = load_private_key(tmp_path / "archiver.pem")
    lines = copy.read_bytes().splitlines()
    second = orjson.loads(lines[1])
    other = CompactRange().extend(leaf_hash(b"another history %d" % i) for i in range(50))
    forked = tlog.sign_head("room.example", "default", second["epoch"], other, tlog.signer("room.example", key))
    fields = {k: v for k, v in second.items() if k not in {"signature", "key_id"}} | {"tree_head": forked}
    copy.write_bytes(copy.read_bytes() + orjson.dumps(sign(key, fields), option=orjson.OPT_SORT_KEYS) + b"\n")
    found, _ = proven(signed, checkpoints=copy, public_key=tmp_path / "archiver.pub")
    assert sorted(d.kind for d in found) == ["fork", "tree_head_root"]
    fork = next(d for d in found if d.kind == "fork")
    assert (fork.seq, fork.shard) == (50, "default")
    assert f"{copy}:4" in fork.detail


def test_audit_replay_reports_a_head_whose_signature_fails_and_one_whose_root_is_not_the_files(
    signed: Settings, tmp_path: Path
) -> None:
    url = Path(signed.archive_url)
    ((epoch, _),) = chain_leaves(str(url)).items()
    head = url / "checkpoints" / "default" / f"{epoch}-{25:012d}.note"
    text, _, signatures = head.read_text().partition("\n\n")
    lines = text.split("\n")
    lines[2] = base64.b64encode(b"\x07" * 32).decode()
    head.write_text("\n".join(lines) + "\n\n" + signatures)
    found, _ = proven(signed, public_key=tmp_path / "archiver.pub")
    assert [(d.kind, d.shard) for d in found] == [("tree_head_signature", "default")]
    found, _ = proven(signed)
    assert [(d.kind, d.seq) for d in found] == [("tree_head_root", 25)]


def test_the_api_serves_the_signed_heads_a_hand_s_proof_and_a_consistency_proof_the_verifier_checks(
    signed: Settings, redis_url: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    vkey = verifier_key(signed, capsys)
    settings = signed.model_copy(update={"redis_url": redis_url})

    def verified(kind: str, document: dict[str, Any]) -> str:
        path = tmp_path / f"{kind}.json"
        path.write_text(json.dumps(document))
        done = subprocess.run([*VERIFY, kind, str(path), "--key", vkey], check=False, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    with serving(settings) as url:
        newest = httpx.get(f"{url}/v1/checkpoints/default", headers=bearer(HANDS_ONLY), timeout=20)
        assert newest.status_code == 200
        checkpoint, _ = open_checkpoint(newest.json()["checkpoint"], [Verifier.parse(vkey)])
        assert (newest.json()["size"], checkpoint.size) == (70, 70)
        epoch = newest.json()["epoch"]
        older = httpx.get(f"{url}/v1/checkpoints/default", params={"size": 25, "epoch": epoch},
                          headers=bearer(), timeout=20)  # fmt: skip
        assert (older.status_code, older.json()["size"]) == (200, 25)
        proof = httpx.get(f"{url}/v1/hands/h-3/proof", headers=bearer(), timeout=20)
        assert proof.status_code == 200
        assert "file" not in proof.json(), "no path of the server"
        assert verified("inclusion", proof.json()).startswith("OK leaf 3 of 70 in ")
        between = httpx.get(f"{url}/v1/checkpoints/default/consistency", params={"size1": 25, "size2": 70},
                            headers=bearer(), timeout=20)  # fmt: skip
        assert between.status_code == 200
        assert verified("consistency", between.json()).startswith("OK tree 25 is a prefix of tree 70 in ")
        refusals = {
            "/v1/checkpoints/default?size=26": (404, "no_tree_head"),
            "/v1/checkpoints/elsewhere": (404, "unknown_shard"),
            "/v1/hands/no-such-hand/proof": (404, "hand_not_archived"),
            "/v1/hands/h-60/proof?size=50": (404, "not_yet_signed"),
            "/v1/checkpoints/default/consistency?size1=70&size2=25": (400, "bad_query"),
        }
        for path, (status, code) in refusals.items():
            refused = httpx.get(f"{url}{path}", headers=bearer(), timeout=20)
            assert (refused.status_code, refused.json()["code"]) == (status, code), path
        assert httpx.get(f"{url}/v1/checkpoints/default", timeout=20).status_code == 401


def test_showdown_hand_says_where_the_hand_sits_in_the_log_and_the_command_that_proves_it(
    signed: Settings, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOWDOWN_ARCHIVE_URL", signed.archive_url)
    monkeypatch.setenv("SHOWDOWN_REDIS_URL", "redis://127.0.0.1:1/0")  # none there: the archive answers
    assert main(["hand", "h-3"]) == 0
    (line,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  log: ")]
    epoch = next(iter(chain_leaves(signed.archive_url)))
    signed_at = json.loads((Path(signed.archive_url) / "checkpoints" / "default" / f"{epoch}-{70:012d}.json")
                           .read_text())["signed_at"]  # fmt: skip
    assert line == f"  log: leaf 3 of shard default's log, epoch {epoch}, in the signed tree head of size 70 of " \
        f"{signed_at[:16]}Z: showdown proof h-3"  # fmt: skip


def test_a_witness_cosigns_a_signed_head_only_when_the_room_s_signature_holds(
    signed: Settings, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    vkey = verifier_key(signed, capsys)
    new_key_pair(tmp_path / "witness.pem", tmp_path / "witness.pub")
    ((epoch, _),) = chain_leaves(signed.archive_url).items()
    head = Path(signed.archive_url) / "checkpoints" / "default" / f"{epoch}-{70:012d}.note"
    witness = ["--key", str(tmp_path / "witness.pem"), "--name", "witness.example"]
    assert main(["archive", "cosign", str(head), "--log-key", vkey, *witness]) == 0
    out = capsys.readouterr()
    wkey = out.err.removeprefix("witness verifier key: ").strip()
    assert wkey.startswith("witness.example+")
    cosigned = tmp_path / "cosigned.note"
    cosigned.write_text(out.out)
    assert out.out.startswith(head.read_text()), "the room's note kept as it is, one line added"
    checked = subprocess.run([*VERIFY, "note", str(cosigned), "--key", vkey, "--key", wkey], check=False,
                             capture_output=True, text=True)  # fmt: skip
    assert (checked.returncode, checked.stdout.splitlines()[0]) == (0, "OK")
    forged = tmp_path / "forged.note"
    forged.write_text(head.read_text().replace("\n70\n", "\n71\n", 1))
    assert main(["archive", "cosign", str(forged), "--log-key", vkey, *witness]) == 1
    assert "the room's signature does not hold" in capsys.readouterr().err
