"""Issue 33, the proof side: ``audit replay`` and ``audit verify`` prove everything that is read.

Red-team 4 (a forged tail: one more file after the last, correctly chained and decided by the project's own code),
red-team 8 (each column recall, the read API and the requeue guard read, edited), and chain epochs (a Redis that
came back empty begins a second chain beside the first: proven each on its own, reported as a reset)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import fakeredis
import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import redis

from showdown_service.archive.archiver import Archiver
from showdown_service.archive.checkpoints import new_key_pair
from showdown_service.archive.replay import Difference, name_epoch, replay
from showdown_service.cli.commands import main as showdown_main
from showdown_service.infra.config import Settings
from showdown_service.storage.layout import SCHEMA, all_files, open_store
from showdown_service.storage.recall import find_hand
from showdown_service.testing.localredis import free_port
from showdown_service.testing.simulate import simulate
from showdown_service.worker.loop import Worker
from tests.helpers import BUNDLED_SHOWDOWNS, REPO, read_cases, wait_until

CASES = list(read_cases(BUNDLED_SHOWDOWNS))
FORGED_PAYOUT = 2 * 10**15


def hands(n: int, tag: str = "h") -> list[dict[str, Any]]:
    return [{**CASES[i % len(CASES)]["event"], "hand_id": f"{tag}-{i}"} for i in range(n)]


def entries_of(docs: list[dict[str, Any]]) -> list[tuple[str, bytes | str]]:
    return [("event", json.dumps(doc)) for doc in docs]


def mixed_entries() -> list[tuple[str, bytes | str]]:
    """Hands, a re-send, a conflicting re-send, refusals, and a small tournament with its placements."""
    played = hands(60)
    other = {**played[1], "players": played[2]["players"], "board": played[2]["board"]}
    entries = entries_of(played)
    entries += [("event", json.dumps(played[3])), ("event", json.dumps(other)), ("event", "{not json"),
                ("event", json.dumps({"hand_id": "no-fields"}))]  # fmt: skip
    for line in simulate(3, players=6, reentries=1, stack=1000, rebuys=1).lines:
        ((field, body),) = orjson.loads(line).items()
        entries.append((field, orjson.dumps(body)))
    return entries


def settle(client: Any, settings: Settings, entries: list[tuple[str, bytes | str]]) -> None:
    keys = settings.keys("default")
    pipe = client.pipeline(transaction=False)
    for field, payload in entries:
        pipe.xadd(keys.events, {field: payload})
    pipe.execute()
    worker = Worker(settings, client)
    worker.run(until_idle=True)


def settle_and_archive(client: Any, settings: Settings, entries: list[tuple[str, bytes | str]]) -> None:
    archiver = Archiver(settings, client, open_store(settings.archive_url, settings))
    archiver.step(settings.keys("default"))  # registered first (docs/archive.md): no worker trims an event before
    settle(client, settings, entries)  # the archive took it (a time-based trim under load did: event_missing)
    archiver.drain()


@pytest.fixture
def archived(fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path) -> tuple[Settings, fakeredis.FakeRedis]:
    """An archive of mixed entries (several files) with signed checkpoints, its settings and its Redis."""
    private, public = tmp_path / "archiver.pem", tmp_path / "archiver.pub"
    new_key_pair(private, public)
    settings = make_settings(
        batch_size=40,
        archive_url=str(tmp_path / "archive"),
        archive_file_rows=30,
        archive_signing_key=private,
        archive_checkpoints_copy=tmp_path / "checkpoints.jsonl",
    )
    settle_and_archive(fake, settings, mixed_entries())
    return settings, fake


def prove(settings: Settings, url: str | None = None, client: Any = None, **options: Any) -> list[Difference]:
    found: list[Difference] = []
    replay(open_store(url or settings.archive_url), settings, found.append, client=client, **options)
    return found


def kinds(found: list[Difference]) -> list[str]:
    return [d.kind for d in found]


def files(url: str) -> list[str]:
    return [path for _, _, path in all_files(open_store(url))]


def rewrite(path: str, change: Any = None, meta: dict[str, str] | None = None) -> None:
    """Rewrite one archive file as a forger would: its rows through ``change``, its metadata updated by ``meta``."""
    table = pq.read_table(path)
    kept = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
    changed = change(table.to_pylist()) if change else table.to_pylist()
    out = pa.Table.from_pylist(changed, schema=SCHEMA).replace_schema_metadata({**kept, **(meta or {})})
    pq.write_table(out, path, compression="zstd")


def forged_hand(hand_id: str) -> dict[str, Any]:
    """A valid hand paying its winner 2*10^15 (two players all in for the most chips a player may hold)."""
    chips = FORGED_PAYOUT // 2
    return {
        "schema_version": 1,
        "hand_id": hand_id,
        "table_id": "t-forged",
        "variant": "holdem",
        "board": ["3d", "Qc", "2c", "9s", "5s"],
        "button_seat": 1,
        "players": [
            {"seat": 1, "player_id": "mallory", "hole_cards": ["As", "Ad"], "contributed": chips, "dead_money": 0,
             "folded": False, "stack": chips},
            {"seat": 2, "player_id": "victim", "hole_cards": ["7h", "8h"], "contributed": chips, "dead_money": 0,
             "folded": False, "stack": chips},
        ],
    }  # fmt: skip


def forge_tail(settings: Settings, client: Any, make_settings: Any) -> str:
    """Append one file after the archive's last, as the red team did: a Redis of the forger's own whose head is
    the real chain's head, a worker of this project settling the forged hand on it (its record chained on the real
    last hash), and an archiver of this project writing it into the archive (no signing key). Returns its path."""
    keys = settings.keys("default")
    forger = fakeredis.FakeRedis(server=fakeredis.FakeServer(), protocol=2)
    forger.set(keys.audit_head, client.get(keys.audit_head))
    forged = make_settings(consumer="mallory", batch_size=10, archive_url=settings.archive_url)
    before = files(settings.archive_url)
    settle_and_archive(forger, forged, entries_of([forged_hand("forged-1")]))
    (path,) = set(files(settings.archive_url)) - set(before)
    (row,) = pq.read_table(path).to_pylist()
    assert row["seq"] == int(client.get(keys.audit_head).split(b":")[0]) + 1
    assert json.loads(row["audit"])["prev_hash"] == client.get(keys.audit_head).decode().split(":")[1]
    assert max(a["amount"] for a in json.loads(row["result"])["awards"]) == FORGED_PAYOUT
    return path


# --- red-team 4: a forged tail -------------------------------------------------------------------------------


def test_a_forged_tail_passes_no_more_with_checkpoints_offline_nor_against_redis_online(
    archived: tuple[Settings, Any], make_settings: Any, tmp_path: Path
) -> None:
    settings, client = archived
    copy, public = settings.archive_checkpoints_copy, tmp_path / "archiver.pub"
    assert prove(settings, checkpoints=copy, public_key=public) == []
    assert prove(settings, client=client) == []
    path = forge_tail(settings, client, make_settings)
    found = find_hand(settings.archive_url, "forged-1")
    assert found is not None, "recall serves the forged hand: the proof must not say it holds"
    assert prove(settings) == [], "the chain alone holds: the forger chained it on the real last hash"
    offline = prove(settings, checkpoints=copy, public_key=public)
    assert [(d.kind, d.file) for d in offline] == [("uncheckpointed", path)]
    online = prove(settings, client=client)
    assert [(d.kind, d.file) for d in online] == [("beyond_head", path), ("beyond_progress", path)]


def test_a_checkpoints_copy_that_lost_a_line_leaves_its_file_uncheckpointed(
    archived: tuple[Settings, Any], tmp_path: Path
) -> None:
    settings, _ = archived
    copy = settings.archive_checkpoints_copy
    assert copy is not None
    lines = copy.read_text().splitlines()
    assert len(lines) == len(files(settings.archive_url)) >= 3
    lost = json.loads(lines[1])["file"]
    copy.write_text("\n".join(lines[:1] + lines[2:]) + "\n")
    found = prove(settings, checkpoints=copy, public_key=tmp_path / "archiver.pub")
    assert [(d.kind, d.file) for d in found] == [("uncheckpointed", str(tmp_path / "archive" / lost))]


@pytest.fixture
def s3_endpoint() -> Iterator[str]:
    """A real S3-compatible server (moto's server mode) on a free 127.0.0.1 port, with the bucket
    ``showdown-archive`` (as tests/archive/test_archive_redis.py starts it)."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    endpoint = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: _answers(endpoint) or server.poll() is not None, what="moto to answer", timeout=30)
        assert server.poll() is None
        urllib.request.urlopen(urllib.request.Request(f"{endpoint}/showdown-archive", method="PUT"), timeout=10).close()
        yield endpoint
    finally:
        server.terminate()
        server.wait(10)


def _answers(endpoint: str) -> bool:
    try:
        urllib.request.urlopen(endpoint, timeout=1).close()
    except OSError:
        return False
    return True


def test_on_s3_every_file_is_matched_to_its_checkpoint_and_one_without_is_named(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, s3_endpoint: str
) -> None:
    private, public = tmp_path / "archiver.pem", tmp_path / "archiver.pub"
    new_key_pair(private, public)
    settings = make_settings(batch_size=10, archive_url="s3://showdown-archive/prod", archive_s3_endpoint=s3_endpoint,
                             archive_s3_region="us-east-1", archive_s3_access_key="testing",
                             archive_s3_secret_key="testing", archive_file_rows=8, archive_signing_key=private,
                             archive_checkpoints_copy=tmp_path / "checkpoints.jsonl")  # fmt: skip
    settle_and_archive(fake, settings, entries_of(hands(20)))
    store = open_store(settings.archive_url, settings)
    listed = [path for _, _, path in all_files(store)]
    assert len(listed) == 3
    assert listed[0].startswith("showdown-archive/prod/shard=default/day=")

    def proven(copy: Path) -> list[Difference]:
        found: list[Difference] = []
        replay(store, settings, found.append, checkpoints=copy, public_key=public)
        return found

    copy = tmp_path / "checkpoints.jsonl"
    assert proven(copy) == []
    lines = copy.read_text().splitlines()
    copy.write_text("\n".join(lines[:-1]) + "\n")
    assert [(d.kind, d.file) for d in proven(copy)] == [("uncheckpointed", listed[-1])]


def test_audit_verify_and_audit_replay_online_say_the_archive_goes_past_redis_head(
    redis_url: str,
    make_settings: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings = make_settings(redis_url, batch_size=10, archive_url=str(tmp_path / "archive"), archive_file_rows=8)
    client = redis.Redis.from_url(redis_url, protocol=2)
    settle_and_archive(client, settings, entries_of(hands(20)))
    for key in [k for k in os.environ if k.startswith("SHOWDOWN_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("SHOWDOWN_REDIS_URL", redis_url)
    monkeypatch.setenv("SHOWDOWN_ARCHIVE_URL", settings.archive_url)

    def showdown(*args: str) -> tuple[int, str]:
        capsys.readouterr()
        status = showdown_main(list(args))
        return status, capsys.readouterr().out

    status, out = showdown("audit", "verify")
    assert (status, out.startswith("shard default: 20 records, the chain holds (head seq 20, archived to seq 20")) == (
        0,
        True,
    ), out
    replayed = showdown("audit", "replay", settings.archive_url)
    assert replayed[0] == 0, replayed[1]
    path = forge_tail(settings, client, make_settings)
    status, out = showdown("audit", "verify")
    assert status == 1, out
    assert (
        f"shard default: ARCHIVE beyond_head: the archive ends at seq 21 ({path}), past Redis's head at seq 20" in out
    )
    assert "shard default: ARCHIVE beyond_progress: the archive ends at seq 21" in out
    status, out = showdown("audit", "replay", settings.archive_url)
    assert status == 1, out
    assert "beyond_head" in out
    assert out.rstrip().endswith("2 differences")
    client.close()


def test_audit_verify_says_an_archive_it_cannot_read_and_still_verifies_the_chain(
    redis_url: str,
    make_settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    client = redis.Redis.from_url(redis_url, protocol=2)
    settle(client, make_settings(redis_url, batch_size=10), entries_of(hands(5)))
    client.close()
    for key in [k for k in os.environ if k.startswith("SHOWDOWN_")]:
        monkeypatch.delenv(key)
    unreachable = {"SHOWDOWN_REDIS_URL": redis_url, "SHOWDOWN_ARCHIVE_URL": "s3://showdown-archive/prod",
                   "SHOWDOWN_ARCHIVE_S3_ENDPOINT": f"http://127.0.0.1:{free_port()}",
                   "SHOWDOWN_ARCHIVE_S3_REGION": "us-east-1", "SHOWDOWN_ARCHIVE_S3_ACCESS_KEY": "testing",
                   "SHOWDOWN_ARCHIVE_S3_SECRET_KEY": "testing"}  # fmt: skip
    for key, value in unreachable.items():
        monkeypatch.setenv(key, value)
    capsys.readouterr()
    assert showdown_main(["audit", "verify"]) == 0
    done = capsys.readouterr()
    assert done.out.startswith("shard default: 5 records, the chain holds (head seq 5)")
    assert done.err.startswith("shard default: the archive (s3://showdown-archive/prod) was not read: OSError: ")


# --- red-team 8: every copied column is proven -----------------------------------------------------------------


def _settled(row: dict[str, Any]) -> bool:
    return row["outcome"] == "settled" and row["tournament_id"] is None and row["hand_id"] == "h-7"


def _refused(row: dict[str, Any]) -> bool:
    return row["dead_letter"] is not None and row["hand_id"] == "no-fields"


def _tournament(row: dict[str, Any]) -> bool:
    return row["event_field"] == "event" and row["tournament_id"] is not None and row["outcome"] == "settled"


Row = dict[str, Any]
COLUMN_EDITS: dict[str, tuple[Callable[[Row], bool], Callable[[Row], Row]]] = {
    "hand_id": (_settled, lambda r: {**r, "hand_id": "h-8"}),
    "outcome": (_settled, lambda r: {**r, "outcome": "duplicate"}),
    "code": (_settled, lambda r: {**r, "code": "malformed_json"}),
    "shard": (_settled, lambda r: {**r, "shard": "t1"}),
    "tournament_id": (_tournament, lambda r: {**r, "tournament_id": "another"}),
    "table_id": (_tournament, lambda r: {**r, "table_id": None}),
    "settled_at": (_settled, lambda r: {**r, "settled_at": "2001-01-01T00:00:00.000000Z"}),
    "audit_id": (_settled, lambda r: {**r, "audit_id": "1-0"}),
}


@pytest.mark.parametrize("column", sorted(COLUMN_EDITS))
def test_each_edited_column_is_a_difference_naming_the_column_file_and_row(
    archived: tuple[Settings, Any], column: str
) -> None:
    settings, _ = archived
    test, edit = COLUMN_EDITS[column]
    path = next(p for p in files(settings.archive_url) if any(test(r) for r in pq.read_table(p).to_pylist()))
    number = next(i for i, r in enumerate(pq.read_table(path).to_pylist()) if test(r))
    rewrite(path, lambda rows: [edit(r) if i == number else r for i, r in enumerate(rows)])
    found = prove(settings)
    assert [(d.kind, d.file, d.row) for d in found] == [("edited_column", path, number)], found
    assert found[0].detail.startswith(f"the {column} column ")


def test_a_settled_row_edited_to_duplicate_misleads_recall_and_is_caught(archived: tuple[Settings, Any]) -> None:
    """The red team's case: ``showdown hand`` then serves the conflicting re-send (a requeue would pay it again)."""
    settings, _ = archived
    before = find_hand(settings.archive_url, "h-1")
    assert before is not None
    assert before.outcome == "settled"
    path = next(p for p in files(settings.archive_url) if "h-1" in pq.read_table(p).column("hand_id").to_pylist())
    number = pq.read_table(path).column("hand_id").to_pylist().index("h-1")
    rewrite(path, lambda rows: [{**r, "outcome": "duplicate"} if i == number else r for i, r in enumerate(rows)])
    after = find_hand(settings.archive_url, "h-1")
    assert after is not None
    assert after.outcome != "settled"
    assert after.entry_id != before.entry_id, "recall now serves the conflicting re-send"
    found = prove(settings)
    assert [(d.kind, d.file, d.row, d.hand_id) for d in found] == [("edited_column", path, number, "h-1")]
    assert found[0].detail == "the outcome column says 'duplicate', what it copies 'settled'"


DEAD_LETTER_EDITS: dict[str, Callable[[Row], Row]] = {
    "entry_id": lambda d: {**d, "entry_id": "1-1"},
    "hand_id": lambda d: {**d, "hand_id": "h-1"},
    "worker": lambda d: {**d, "worker": "mallory"},
    "at": lambda d: {**d, "at": "2001-01-01T00:00:00.000000Z"},
    "raw_bytes": lambda d: {**d, "raw_bytes": "1"},
    "requeued_as": lambda d: {**d, "requeued_as": "9-9"},
}


@pytest.mark.parametrize("name", sorted(DEAD_LETTER_EDITS))
def test_each_edited_field_of_a_dead_letter_is_a_difference_naming_it(
    archived: tuple[Settings, Any], name: str
) -> None:
    settings, _ = archived
    path = next(p for p in files(settings.archive_url) if any(_refused(r) for r in pq.read_table(p).to_pylist()))
    number = next(i for i, r in enumerate(pq.read_table(path).to_pylist()) if _refused(r))

    def edit(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        letter = json.loads(rows[number]["dead_letter"])
        assert name == "requeued_as" or name in letter
        rows[number]["dead_letter"] = json.dumps(DEAD_LETTER_EDITS[name](letter))
        return rows

    rewrite(path, edit)
    found = prove(settings)
    assert [(d.kind, d.file, d.row) for d in found] == [("dead_letter", path, number)], found
    assert f"{name!r}" in found[0].detail or f"'s {name} says" in found[0].detail


def test_an_audit_id_edited_in_order_is_caught_against_the_record_redis_still_holds(
    archived: tuple[Settings, Any],
) -> None:
    settings, client = archived
    path = files(settings.archive_url)[0]
    rewrite(path, lambda rows: [{**rows[0], "audit_id": "0-1"}, *rows[1:]])  # still before the next row's
    assert prove(settings) == [], "offline, an audit_id still in order cannot be told"
    found = prove(settings, client=client)
    assert [(d.kind, d.file, d.row, d.seq) for d in found] == [("edited_column", path, 0, 1)], found
    assert found[0].detail.startswith("the audit_id column says '0-1', Redis's audit stream holds it at ")


def _meta(path: str) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in (pq.read_metadata(path).metadata or {}).items()}


METADATA_EDITS: dict[str, Callable[[dict[str, str], dict[str, str]], dict[str, str]]] = {
    "audit_id": lambda m, _: {"audit_id": "1-0"},
    "results_id": lambda m, before: {"results_id": "0-1"},
    "rows": lambda m, _: {"rows": str(int(m["rows"]) + 1)},
    "first_prev_hash": lambda m, _: {"first_prev_hash": "f" * 64},
    "last_hash": lambda m, _: {"last_hash": "f" * 64},
}


@pytest.mark.parametrize("key", sorted(METADATA_EDITS))
def test_each_edited_key_of_a_file_s_metadata_is_a_difference_naming_it(
    archived: tuple[Settings, Any], key: str
) -> None:
    settings, _ = archived
    paths = files(settings.archive_url)
    path = paths[2]
    rewrite(path, meta=METADATA_EDITS[key](_meta(path), _meta(paths[1])))
    found = prove(settings)
    assert {(d.kind, d.file) for d in found} == {("file_metadata", path)}, found
    assert all(f"{key} " in d.detail or f"says {key} " in d.detail or f"'s {key}" in d.detail for d in found), found


def test_the_newest_file_s_cursors_are_proven_against_the_archiver_s_recorded_ones(
    archived: tuple[Settings, Any],
) -> None:
    settings, client = archived
    newest = files(settings.archive_url)[-1]
    meta = _meta(newest)
    ms, _, n = meta["results_id"].partition("-")
    rewrite(newest, meta={"results_id": f"{ms}-{int(n) + 5}"})  # forward: a resumed archiver would skip results
    assert prove(settings) == [], "offline, a cursor moved forward on the newest file cannot be told"
    found = prove(settings, client=client)
    assert [(d.kind, d.file) for d in found] == [("file_metadata", newest)]
    assert found[0].detail.startswith("its metadata's results_id ")


# --- epochs: a chain restarted after a Redis loss ------------------------------------------------------------


@pytest.fixture
def two_epochs(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> tuple[Settings, fakeredis.FakeRedis, fakeredis.FakeRedis]:
    """An archive holding two chains of the shard side by side: 20 hands settled and archived (files of 7), then
    Redis lost everything and 10 more hands began a new chain at seq 1 (archived apart, files of 4, and copied in
    beside the first: names that do not collide)."""
    first = make_settings(batch_size=10, archive_url=str(tmp_path / "archive"), archive_file_rows=7)
    settle_and_archive(fake, first, entries_of(hands(20)))
    again = restarted_beside(first, make_settings, tmp_path, entries_of(hands(10, "after")))
    assert len(files(first.archive_url)) == 3 + 3
    return first, fake, again


def restarted_beside(
    settings: Settings, make_settings: Any, tmp_path: Path, entries: list[tuple[str, bytes | str]]
) -> fakeredis.FakeRedis:
    """A Redis that lost everything settles ``entries`` (a new chain from seq 1), archived apart in files of 4 and
    copied in beside ``settings``' archive (names that do not collide with files of 7); returns that Redis."""
    again = fakeredis.FakeRedis(server=fakeredis.FakeServer(), protocol=2)
    second = make_settings(batch_size=10, archive_url=str(tmp_path / "second"), archive_file_rows=4)
    settle_and_archive(again, second, entries)
    for path in files(second.archive_url):
        target = Path(settings.archive_url) / Path(path).relative_to(tmp_path / "second")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return again


def _epoch_of(path: str) -> str:
    return str(json.loads(pq.read_table(path).column("audit")[0].as_py())["hash"])


def test_two_chains_of_a_shard_are_each_proven_and_the_restart_reported_as_a_reset(
    two_epochs: tuple[Settings, Any, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings, _, _ = two_epochs
    paths = files(settings.archive_url)
    old = next(p for p in paths if p.endswith("-000000000001-000000000007.parquet"))
    new = next(p for p in paths if p.endswith("-000000000001-000000000004.parquet"))
    found = prove(settings)
    assert kinds(found) == ["reset"], found
    assert found[0].detail.startswith(
        f"the chain restarted: epoch {_epoch_of(old)[:16]} archived to seq 20, epoch {_epoch_of(new)[:16]} began at "
    )
    assert found[0].file == new
    for key in [k for k in os.environ if k.startswith("SHOWDOWN_")]:
        monkeypatch.delenv(key)
    capsys.readouterr()
    assert showdown_main(["audit", "replay", settings.archive_url, "--offline"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("RESET shard default: the chain restarted: epoch ")
    assert out[-1] == "6 files, 30 entries, 30 re-settled: every entry holds; the chain restarted 1 time (RESET above)"


def test_each_epoch_is_compared_with_the_redis_that_runs_it(two_epochs: tuple[Settings, Any, Any]) -> None:
    settings, lost, again = two_epochs
    assert kinds(prove(settings, client=again)) == ["reset"], "the new chain is Redis's: it holds against it"
    against_old = prove(settings, client=lost)
    assert kinds(against_old) == ["reset"], "the old Redis runs the old chain: it holds against that one too"
    empty = fakeredis.FakeRedis(server=fakeredis.FakeServer(), protocol=2)
    found = prove(settings, client=empty)
    assert kinds(found) == ["reset", "reset"]
    assert found[1].detail.startswith("Redis holds no chain of the shard (no head)")


def test_a_hand_settled_again_by_the_new_chain_after_a_loss_is_a_difference(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    """The new chain is re-settled with the dedupe the old one left (what the workers restore from the archive):
    a hand settled before the loss and settled again after it, within the dedupe window, was paid twice."""
    settings = make_settings(batch_size=10, archive_url=str(tmp_path / "archive"), archive_file_rows=7)
    settle_and_archive(fake, settings, entries_of(hands(20)))
    restarted_beside(settings, make_settings, tmp_path, entries_of([*hands(3, "after"), hands(20)[5]]))
    found = prove(settings)
    assert [(d.kind, d.hand_id, d.seq) for d in found] == [("reset", None, 1), ("resettled_differs", "h-5", 4)]
    assert found[1].detail == "re-settled, the audit record differs in: hash, outcome, result_sha256"


def test_a_file_whose_epoch_metadata_is_not_its_chain_s_is_a_difference(
    two_epochs: tuple[Settings, Any, Any],
) -> None:
    settings, _, _ = two_epochs
    paths = files(settings.archive_url)
    old = next(p for p in paths if p.endswith("-000000000001-000000000007.parquet"))
    new = next(p for p in paths if p.endswith("-000000000001-000000000004.parquet"))
    old_chain = ("-000000000007.parquet", "-000000000014.parquet", "-000000000020.parquet")
    for path in paths:  # every file written with its epoch, as new files are: still one reset, nothing else
        rewrite(path, meta={"epoch": _epoch_of(old) if path.endswith(old_chain) else _epoch_of(new)})
    assert kinds(prove(settings)) == ["reset"]
    second = next(p for p in paths if p.endswith("-000000000005-000000000008.parquet"))
    rewrite(second, meta={"epoch": _epoch_of(old)})  # claims the old chain, follows the new one
    found = prove(settings)
    # where the file's name carries its epoch too (the archiver's names, issue 33) the name disagrees as well:
    # one file, and nothing but that file, named
    mismatched = [(d.kind, d.file) for d in found if d.kind != "reset"]
    assert mismatched, found
    assert set(mismatched) == {("epoch_mismatch", second)}, found


def test_an_epoch_in_a_file_s_name_is_read_beside_names_without_one() -> None:
    assert name_epoch("default", "x/day=2026-11-28/default-0123456789abcdef-000000000001-000000000002.parquet") == (
        "0123456789abcdef"
    )
    assert name_epoch("default", "x/day=2026-11-28/default-000000000001-000000000002.parquet") == ""
    assert name_epoch("a-0123456789abcdef", "a-0123456789abcdef-000000000001-000000000002.parquet") == ""


# --- the docs name every kind ---------------------------------------------------------------------------------


def test_every_kind_audit_replay_reports_is_in_the_table_of_docs_archive_md() -> None:
    archive = REPO / "worker" / "showdown_service" / "archive"
    code = "\n".join((archive / name).read_text() for name in ("replay.py", "chains.py", "columns.py", "live.py"))
    reported = set(re.findall(r'(?:Difference\(\s*[\w"]*,\s*|diff\(\s*)"([a-z_]+)"', code))
    reported |= {"file_metadata", "resettled_differs", "other_version"}  # a helper's kind, and chosen ones
    new = {"edited_column", "beyond_head", "beyond_progress", "uncheckpointed", "epoch_mismatch", "reset"}
    assert new <= reported
    docs = (REPO / "docs" / "archive.md").read_text()
    table = {
        kind for row in re.findall(r"^\| (`.*?) \|", docs, flags=re.MULTILINE) for kind in re.findall(r"`(\w+)`", row)
    }
    assert reported - table == set()
