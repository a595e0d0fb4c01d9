"""The archive (issue 25): every entry archived once with its exact texts, re-settled and proven by the replay;
each kind of tampering caught by a test named for it; recall by SQL, by hand id and by export; checkpoints."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, cast

import fakeredis
import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import redis

from showdown_service.archive import archiver as archiver_module
from showdown_service.archive.archiver import Archiver
from showdown_service.archive.checkpoints import new_key_pair
from showdown_service.archive.replay import Difference, replay
from showdown_service.archive.verify import verify_texts
from showdown_service.infra.config import Settings, ShardKeys
from showdown_service.infra.streams import read_range
from showdown_service.storage.layout import SCHEMA, all_files, open_store, read_meta
from showdown_service.storage.recall import find_hand, query
from showdown_service.testing.simulate import simulate
from showdown_service.worker.ledger import expire
from showdown_service.worker.loop import Worker
from tests.helpers import REAL_SHOWDOWNS, read_cases

CASES = list(read_cases(REAL_SHOWDOWNS))
HANDS = 120


def hands(n: int, tag: str = "h") -> list[dict[str, Any]]:
    return [{**CASES[i % len(CASES)]["event"], "hand_id": f"{tag}-{i}"} for i in range(n)]


def publish(client: Any, keys: ShardKeys, entries: list[tuple[str, bytes | str]]) -> None:
    pipe = client.pipeline(transaction=False)
    for field, payload in entries:
        pipe.xadd(keys.events, {field: payload})
    pipe.execute()


def mixed_entries() -> list[tuple[str, bytes | str]]:
    """Hands, a re-send, a conflicting re-send, refusals, and a small tournament with its placements."""
    played = hands(HANDS)
    other = {**played[1], "players": played[2]["players"], "board": played[2]["board"]}
    entries: list[tuple[str, bytes | str]] = [("event", json.dumps(doc)) for doc in played]
    entries += [("event", json.dumps(played[3])), ("event", json.dumps(other)), ("event", "{not json"),
                ("event", json.dumps({"hand_id": "no-fields"}))]  # fmt: skip
    sim = simulate(3, players=9, reentries=1, stack=1000, rebuys=1)
    for line in sim.lines:
        ((field, body),) = orjson.loads(line).items()
        entries.append((field, orjson.dumps(body)))
    return entries


def settle_and_archive(client: Any, settings: Settings, entries: list[tuple[str, bytes | str]]) -> Archiver:
    keys = settings.keys("default")
    publish(client, keys, entries)
    archiver = Archiver(settings, client, open_store(settings.archive_url, settings))
    archiver.step(keys)  # registered first, as docs/archive.md says: the workers trim no event it has not taken
    worker = Worker(settings, client)
    worker.run(until_idle=True)
    archiver.drain()
    return archiver


@pytest.fixture
def archived(fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path) -> tuple[Settings, fakeredis.FakeRedis]:
    """An archive of mixed entries (several files), its settings and the Redis it came from."""
    private, public = tmp_path / "archiver.pem", tmp_path / "archiver.pub"
    new_key_pair(private, public)
    settings = make_settings(
        batch_size=40,
        archive_url=str(tmp_path / "archive"),
        archive_file_rows=50,
        archive_signing_key=private,
        archive_checkpoints_copy=tmp_path / "checkpoints.jsonl",
    )
    settle_and_archive(fake, settings, mixed_entries())
    return settings, fake


def prove(settings: Settings, url: str | None = None, client: Any = None, **options: Any) -> list[Difference]:
    found: list[Difference] = []
    replay(open_store(url or settings.archive_url), settings, found.append, client=client, **options)
    return found


def rows(settings: Settings) -> list[dict[str, Any]]:
    store = open_store(settings.archive_url)
    return [row for _, _, path in all_files(store) for row in pq.read_table(path).to_pylist()]


def rewrite(path: str, change: Any) -> None:
    """Rewrite one archive file's rows with ``change(rows)``, keeping its metadata (as a forger would)."""
    table = pq.read_table(path)
    meta = table.schema.metadata
    changed = change(table.to_pylist())
    pq.write_table(pa.Table.from_pylist(changed, schema=SCHEMA).replace_schema_metadata(meta), path, compression="zstd")


def file_with(settings: Settings, test: Any) -> str:
    store = open_store(settings.archive_url)
    return next(path for _, _, path in all_files(store) if any(test(r) for r in pq.read_table(path).to_pylist()))


def kinds(found: list[Difference]) -> set[str]:
    return {d.kind for d in found}


# --- archived once, exactly -----------------------------------------------------------------


def test_every_entry_is_archived_once_with_its_exact_texts(archived: tuple[Settings, Any]) -> None:
    settings, client = archived
    keys = settings.keys("default")
    kept = rows(settings)
    audit = read_range(client, keys.audit)
    assert [r["seq"] for r in kept] == list(range(1, len(audit) + 1)), "every seq once, in order"
    assert [r["audit"].encode() for r in kept] == [f[b"audit"] for _, f in audit], "the audit texts as stored"
    events = {sid.decode(): f for sid, f in read_range(client, keys.events)}
    for row in kept:
        fields = events[row["entry_id"]]
        assert row["event"].encode() == fields[row["event_field"].encode()], "the event text as received"
    results = [f[b"result"] for _, f in read_range(client, keys.results)]
    assert [r["result"].encode() for r in kept if r["result"] is not None] == results
    placements = [f[b"placement"] for _, f in read_range(client, keys.standings)]
    assert placements, "the tournament placed its players"
    archived_placements = [p for r in kept if r["standings"] for p in orjson.loads(r["standings"])]
    assert archived_placements == [orjson.loads(p) for p in placements]
    dead = [json.loads(r["dead_letter"])["code"] for r in kept if r["dead_letter"]]
    assert dead == [f[b"code"].decode() for _, f in read_range(client, keys.dead)]
    assert {r["outcome"] for r in kept} >= {"settled", "duplicate", "rejected"}


def test_results_and_dead_letters_no_record_names_are_skipped_and_every_record_still_gets_its_own(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    """The collector reads as many results (dead letters) as the records want, and looks further only when some
    record found none among them: here a stray result and a stray dead letter no audit record names (written
    before any, as a forger or an old tool might) push every batch's last text past the first read."""
    settings = make_settings(batch_size=20, archive_url=str(tmp_path / "a"), archive_file_rows=10)
    keys = settings.keys("default")
    fake.xadd(keys.results, {"result": b'{"hand_id": "stray"}', "entry_id": b"0-1"})
    fake.xadd(keys.dead, {"code": b"stray", "entry_id": b"0-1"})
    entries: list[tuple[str, bytes | str]] = [("event", json.dumps(doc)) for doc in hands(24)]
    entries += [("event", "{not json"), ("event", "{nor this")]
    settle_and_archive(fake, settings, entries)
    kept = rows(settings)
    assert len(kept) == 26
    results = [f[b"result"].decode() for _, f in read_range(fake, keys.results)][1:]
    assert [r["result"] for r in kept[:24]] == results, "each hand's own result, the stray one in none"
    assert [json.loads(r["dead_letter"])["code"] for r in kept[24:]] == ["malformed_json", "malformed_json"]
    assert prove(settings) == []


def test_files_chain_each_holds_a_contiguous_run_named_in_its_metadata(archived: tuple[Settings, Any]) -> None:
    settings, _ = archived
    store = open_store(settings.archive_url)
    files = all_files(store)
    assert len(files) >= 3
    previous_last, previous_hash = 0, "0" * 64
    for first, last, path in files:
        meta = read_meta(store, path)
        assert (meta.first_seq, meta.last_seq) == (first, last) == (previous_last + 1, last)
        assert meta.first_prev_hash == previous_hash
        assert "zstd" in str(pq.ParquetFile(path).metadata.row_group(0).column(0).compression).lower()
        previous_last, previous_hash = last, meta.last_hash


def test_a_restarted_archiver_resumes_after_its_newest_file_and_repeats_nothing(
    archived: tuple[Settings, Any],
) -> None:
    settings, client = archived
    before = all_files(open_store(settings.archive_url))
    settle_and_archive(client, settings, [("event", json.dumps(doc)) for doc in hands(30, "later")])
    after = all_files(open_store(settings.archive_url))
    assert after[: len(before)] == before
    assert [r["seq"] for r in rows(settings)] == list(range(1, len(rows(settings)) + 1))
    assert prove(settings, client=client) == []


def test_a_second_archiver_on_the_same_shard_waits_for_the_lock(archived: tuple[Settings, Any]) -> None:
    settings, client = archived
    first = Archiver(settings, client, open_store(settings.archive_url))
    second = Archiver(settings, client, open_store(settings.archive_url))
    keys = settings.keys("default")
    publish(client, keys, [("event", json.dumps(doc)) for doc in hands(5, "two")])
    first.step(keys)
    assert second.step(keys) is False, "the shard is held by the first"


# --- the replay proves it -------------------------------------------------------------------


def test_replay_of_an_untouched_archive_reproduces_every_decision_byte_for_byte(
    archived: tuple[Settings, Any],
) -> None:
    settings, client = archived
    assert prove(settings, client=client) == []


def test_replay_with_jobs_proves_the_same(archived: tuple[Settings, Any]) -> None:
    settings, _ = archived
    assert prove(settings, jobs=2) == []


def test_tampering_an_edited_event_is_caught(archived: tuple[Settings, Any]) -> None:
    settings, _ = archived
    path = file_with(settings, lambda r: r["hand_id"] == "h-7")

    def edit(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for row in found:
            if row["hand_id"] == "h-7":
                row["event"] = row["event"].replace('"h-7"', '"h-7" ', 1).replace('"pot"', '"pot" ', 1)
                doc = json.loads(row["event"])
                doc["players"][0]["contributed"] += 1
                row["event"] = json.dumps(doc)
        return found

    rewrite(path, edit)
    found = prove(settings)
    assert "event_digest" in kinds(found)
    assert {d.hand_id for d in found} == {"h-7"}


def test_tampering_an_edited_result_is_caught(archived: tuple[Settings, Any]) -> None:
    settings, _ = archived
    path = file_with(settings, lambda r: r["hand_id"] == "h-9")

    def edit(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for row in found:
            if row["hand_id"] == "h-9":
                doc = json.loads(row["result"])
                doc["awards"][0]["amount"] += 1
                row["result"] = json.dumps(doc)
        return found

    rewrite(path, edit)
    assert kinds(prove(settings)) == {"result_digest", "resettled_result"}


def test_tampering_an_edited_dead_letter_is_caught(archived: tuple[Settings, Any]) -> None:
    settings, _ = archived
    path = file_with(settings, lambda r: r["dead_letter"] is not None)

    def edit(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for row in found:
            if row["dead_letter"] is not None:
                doc = json.loads(row["dead_letter"])
                doc["code"] = "payload_too_large"
                row["dead_letter"] = json.dumps(doc)
                break
        return found

    rewrite(path, edit)
    assert kinds(prove(settings)) == {"dead_letter"}


def test_tampering_an_edited_standings_record_is_caught(archived: tuple[Settings, Any]) -> None:
    settings, _ = archived
    path = file_with(settings, lambda r: r["standings"] is not None)

    def edit(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for row in found:
            if row["standings"] is not None:
                placed = json.loads(row["standings"])
                placed[0]["prize"] = placed[0].get("prize", 0) + 100
                row["standings"] = json.dumps(placed)
                break
        return found

    rewrite(path, edit)
    assert "standings_digest" in kinds(prove(settings))


def test_tampering_an_edited_audit_record_is_caught(archived: tuple[Settings, Any]) -> None:
    settings, _ = archived
    path = file_with(settings, lambda r: r["hand_id"] == "h-11")

    def edit(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for row in found:
            if row["hand_id"] == "h-11":
                row["audit"] = row["audit"].replace('"outcome":"settled"', '"outcome":"duplicate"')
        return found

    rewrite(path, edit)
    assert "edited_audit" in kinds(prove(settings))


def test_tampering_a_deleted_row_is_caught(archived: tuple[Settings, Any]) -> None:
    settings, _ = archived
    path = file_with(settings, lambda r: r["hand_id"] == "h-12")
    rewrite(path, lambda found: [r for r in found if r["hand_id"] != "h-12"])
    found = prove(settings)
    assert "missing" in kinds(found)


def test_tampering_a_deleted_file_is_caught(archived: tuple[Settings, Any]) -> None:
    settings, client = archived
    files = all_files(open_store(settings.archive_url))
    Path(files[1][2]).unlink()
    found = prove(settings)
    assert [(d.kind, d.detail) for d in found if d.kind == "missing"] == [
        ("missing", f"seqs {files[1][0]}..{files[1][1]} are not in the archive")
    ]
    Path(files[-1][2]).unlink()  # the newest file: only the live chain and the recorded progress can tell
    assert "missing" in kinds(prove(settings, client=client, checkpoints=None))


def test_tampering_two_swapped_rows_are_caught(archived: tuple[Settings, Any]) -> None:
    settings, _ = archived
    path = file_with(settings, lambda r: r["hand_id"] == "h-20")

    def swap(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        i = next(n for n, r in enumerate(found) if r["hand_id"] == "h-20")
        found[i], found[i + 1] = found[i + 1], found[i]
        return found

    rewrite(path, swap)
    assert {"missing", "repeated"} <= kinds(prove(settings))


def test_tampering_a_forged_result_in_redis_is_caught_by_audit_verify(archived: tuple[Settings, Any]) -> None:
    settings, client = archived
    keys = settings.keys("default")
    assert verify_texts(client, keys)[1] == []
    stream_id, fields = read_range(client, keys.results)[5]
    doc = json.loads(fields[b"result"])
    doc["awards"][0]["amount"], doc["awards"][1]["amount"] = doc["awards"][1]["amount"], doc["awards"][0]["amount"]
    client.xdel(keys.results, stream_id)
    client.xadd(keys.results, {"result": json.dumps(doc)})
    _, forged = verify_texts(client, keys)
    assert [f.detail for f in forged] == [f"result of hand {doc['hand_id']}: no audit record has its digest"]


def test_an_unreadable_file_is_named_and_everything_else_is_still_proven(archived: tuple[Settings, Any]) -> None:
    settings, _ = archived
    files = all_files(open_store(settings.archive_url))
    Path(files[2][2]).write_bytes(b"not parquet at all")
    found = prove(settings)
    assert [d.kind for d in found] == ["unreadable_file", "missing", "not_resettled"], found
    assert found[0].file == files[2][2]


def test_a_result_of_another_evaluator_version_that_resettles_differently_is_reported_as_such(
    archived: tuple[Settings, Any],
) -> None:
    settings, _ = archived
    path = file_with(settings, lambda r: r["hand_id"] == "h-5")

    def older(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for row in found:
            if row["hand_id"] == "h-5":  # as an older version would have written it, digest and all
                doc = json.loads(row["result"])
                doc["evaluator"] = "showdown-0.0.1"
                row["result"] = json.dumps(doc)
                record = json.loads(row["audit"])
                from showdown_service.decision.audit import record_hash, sha256_hex

                record["result_sha256"] = sha256_hex(row["result"].encode())
                record["hash"] = record_hash(record)
                row["audit"] = json.dumps(record)
        return found

    rewrite(path, older)
    assert "other_version" in kinds(prove(settings))


# --- checkpoints ------------------------------------------------------------------------------


def test_signed_checkpoints_prove_the_archive_and_catch_a_rewritten_chain_and_head(
    archived: tuple[Settings, Any], tmp_path: Path
) -> None:
    settings, _ = archived
    copy = settings.archive_checkpoints_copy
    assert copy is not None
    public = tmp_path / "archiver.pub"
    assert len(copy.read_text().splitlines()) == len(all_files(open_store(settings.archive_url)))
    assert prove(settings, checkpoints=copy, public_key=public) == []
    path = file_with(settings, lambda r: r["hand_id"] == "h-30")
    table = pq.read_table(path)  # rewritten whole (as a forger re-chaining every record would): other bytes
    pq.write_table(table, path, compression="snappy")
    found = prove(settings, checkpoints=copy, public_key=public)
    assert [d.kind for d in found] == ["checkpoint_file"]
    forged = tmp_path / "forged.jsonl"
    lines = [json.loads(line) for line in copy.read_text().splitlines()]
    lines[0]["last_seq"] += 1
    forged.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    assert "checkpoint_signature" in kinds(prove(settings, checkpoints=forged, public_key=public))


# --- Redis bounded, and the events stream waits for the archive -----------------------------------


def test_archived_streams_are_trimmed_to_about_archive_keep_and_never_before_archived(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    settings = make_settings(batch_size=20, archive_url=str(tmp_path / "a"), archive_file_rows=10, archive_keep=30)
    keys = settings.keys("default")
    archiver = settle_and_archive(fake, settings, [("event", json.dumps(doc)) for doc in hands(100)])
    assert 30 <= fake.xlen(keys.audit) <= 40
    assert 30 <= fake.xlen(keys.results) <= 40
    assert archiver.metrics.lag_entries.labels("default")._value.get() == 0
    first = orjson.loads(read_range(fake, keys.audit, count=1)[0][1][b"audit"])["seq"]
    assert first <= 100 - 30 + 1
    assert prove(settings) == []


def test_without_an_archiver_nothing_is_trimmed_by_it(fake: fakeredis.FakeRedis, make_settings: Any) -> None:
    settings = make_settings(batch_size=20, trim_interval_s=0.001)
    keys = settings.keys("default")
    publish(fake, keys, [("event", json.dumps(doc)) for doc in hands(60)])
    worker = Worker(settings, fake)
    worker.run(until_idle=True)
    assert (fake.xlen(keys.audit), fake.xlen(keys.results)) == (60, 60)
    assert not fake.exists(keys.archive)


def test_the_worker_keeps_events_an_archiver_has_not_archived(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    settings = make_settings(batch_size=20, archive_url=str(tmp_path / "a"))
    keys = settings.keys("default")
    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    archiver.step(keys)  # registers: events_floor 0-0 until it has archived something
    assert fake.hget(keys.archive, "events_floor") == b"0-0"
    publish(fake, keys, [("event", json.dumps(doc)) for doc in hands(60)])
    worker = Worker(settings, fake)
    worker.run(until_idle=True)
    assert worker.trim(keys) is None or fake.xlen(keys.events) == 60, "nothing trimmed before it is archived"
    assert fake.xlen(keys.events) == 60
    archiver.drain()
    last = read_range(fake, keys.events, newest_first=True, count=1)[0][0].decode()
    floor = fake.hget(keys.archive, "events_floor")
    assert worker.trim(keys) == last == (floor.decode() if isinstance(floor, bytes) else floor)
    assert prove(settings) == []


# --- recall -------------------------------------------------------------------------------------------


def test_archive_query_has_the_entries_and_placements_views(archived: tuple[Settings, Any]) -> None:
    settings, _ = archived
    store = open_store(settings.archive_url)
    columns, counted = query(store, "SELECT outcome, count(*) FROM entries GROUP BY outcome ORDER BY outcome")
    assert columns[0] == "outcome"
    assert dict(counted)["settled"] >= HANDS
    _, placed = query(store, "SELECT count(*), count(DISTINCT json_extract_string(placement, '$.player_id')) "
                             "FROM placements")  # fmt: skip
    assert placed[0][0] >= 9


def test_find_hand_returns_the_entry_that_settled_it_from_the_archive(archived: tuple[Settings, Any]) -> None:
    settings, _ = archived
    found = find_hand(settings.archive_url, "h-3")
    assert found is not None
    assert (found.where, found.outcome, found.result["hand_id"]) == ("archive", "settled", "h-3")
    assert found.audit["outcome"] == "settled"
    assert find_hand(settings.archive_url, "nowhere") is None


def test_an_archive_copied_elsewhere_is_proven_there(archived: tuple[Settings, Any], tmp_path: Path) -> None:
    settings, _ = archived
    shutil.copytree(settings.archive_url, tmp_path / "copy")
    assert prove(settings, url=str(tmp_path / "copy")) == []


def test_health_says_what_grows_without_an_archiver_and_the_lag_with_one(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    from showdown_service.read.health import _what_grows

    settings = make_settings(batch_size=20, archive_url=str(tmp_path / "a"))
    keys = settings.keys("default")
    publish(fake, keys, [("event", json.dumps(doc)) for doc in hands(30)])
    worker = Worker(settings, fake)
    worker.run(until_idle=True)
    assert _what_grows(fake, settings) == [
        "shard default: no archiver: 30 audit records so far; the audit, results, dead-letter and standings streams "
        "grow in Redis (run `showdown archiver`)"
    ]
    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    archiver.step(keys)
    assert _what_grows(fake, settings) == ["shard default: archive lag 30 entries (archived to seq 0 of 30)"]
    assert archiver.metrics.lag_entries.labels("default")._value.get() == 30
    assert archiver.metrics.lag_seconds.labels("default")._value.get() >= 0
    archiver.drain()
    assert _what_grows(fake, settings) == ["shard default: archive lag 0 entries (archived to seq 30 of 30)"]


def test_replay_proves_the_archive_alone_when_redis_is_not_reachable(archived: tuple[Settings, Any]) -> None:
    settings, _ = archived
    found: list[Difference] = []
    unreachable = redis.Redis(host="127.0.0.1", port=1, protocol=2, socket_connect_timeout=1)
    totals = replay(open_store(settings.archive_url), settings, found.append, client=unreachable)
    assert found == []
    assert totals.live_unchecked.startswith("ConnectionError")


def test_keygen_writes_a_pair_once_and_export_refuses_days_in_the_wrong_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from showdown_service.cli.commands import main

    private, public = tmp_path / "a.pem", tmp_path / "a.pub"
    assert main(["archive", "keygen", str(private), str(public)]) == 0
    assert private.stat().st_mode & 0o777 == 0o600
    assert main(["archive", "keygen", str(private), str(public)]) == 2, "an existing key is never overwritten"
    assert "exists: not overwritten" in capsys.readouterr().err
    monkeypatch.setenv("SHOWDOWN_ARCHIVE_URL", str(tmp_path / "archive"))
    assert main(["archive", "export", "--from", "2026-02-01", "--to", "2026-01-01"]) == 2
    assert "--from 2026-02-01 is after --to 2026-01-01" in capsys.readouterr().err
    assert main(["archive", "export", "--from", "2026-01-01", "--to", "2026-01-02", "--format", "parquet"]) == 2
    with pytest.raises(SystemExit):
        main(["archive", "export", "--from", "yesterday", "--to", "2026-01-02"])
    assert "'yesterday' is not a day such as 2026-11-25" in capsys.readouterr().err
    assert main(["archive", "query", "SELECT nonsense FROM entries"]) == 2
    assert "nonsense" in capsys.readouterr().err


def test_a_store_that_cannot_be_written_makes_the_archiver_wait_never_skip_or_trim(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    import threading

    from showdown_service.ops import heartbeat
    from tests.helpers import wait_until

    settings = make_settings(batch_size=20, archive_url=str(tmp_path / "a"), archive_file_rows=10, archive_keep=0,
                             archive_interval_s=0.01, backoff_max_s=0.05)  # fmt: skip
    keys = settings.keys("default")
    publish(fake, keys, [("event", json.dumps(doc)) for doc in hands(30)])
    worker = Worker(settings, fake)
    worker.run(until_idle=True)
    blocker = tmp_path / "a" / "shard=default"  # after the first commit: at an empty chain a worker reads the archive
    blocker.parent.mkdir()
    blocker.write_text("a file where the shard's directory goes: every write fails, as on a full disk")
    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    runner = threading.Thread(target=archiver.run)
    runner.start()
    try:
        wait_until(lambda: archiver.metrics.waiting.labels("default")._value.get() == 1, what="the archiver waiting")
        problems = heartbeat.problems(settings.archiver_heartbeat, 30)
        assert any("the archive" in p for p in problems), problems
        assert (fake.xlen(keys.audit), fake.xlen(keys.results)) == (30, 30), "nothing trimmed while it waits"
        assert int(fake.hget(keys.archive, "seq") or 0) == 0
        blocker.unlink()
        wait_until(lambda: int(fake.hget(keys.archive, "seq") or 0) == 30, what="archived once the store is back")
        assert archiver.metrics.waiting.labels("default")._value.get() == 0
    finally:
        archiver.stop()
        runner.join(30)
    assert not runner.is_alive()
    assert [r["seq"] for r in rows(settings)] == list(range(1, 31))
    assert prove(settings) == []


def test_replay_with_jobs_proves_each_shard_in_a_process_of_its_own(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    settings = make_settings(batch_size=20, archive_url=str(tmp_path / "a"), archive_file_rows=15, shards="east,west")
    for shard in ("east", "west"):
        publish(fake, settings.keys(shard), [("event", json.dumps(doc)) for doc in hands(25, shard)])
    worker = Worker(settings, fake)
    worker.run(until_idle=True)
    Archiver(settings, fake, open_store(settings.archive_url)).drain()
    assert prove(settings, jobs=2) == []
    path = file_with(settings, lambda r: r["hand_id"] == "west-4")
    rewrite(path, lambda found: [r for r in found if r["hand_id"] != "west-4"])
    found = prove(settings, jobs=2)
    assert [(d.shard, d.kind) for d in found] == [("west", "missing")]
    one = prove(settings)
    assert [(d.shard, d.kind, d.detail) for d in one] == [(d.shard, d.kind, d.detail) for d in found]


# --- a finished tournament's ledger expires once archived ----------------------------------------------------


def _settled_tournament(fake: fakeredis.FakeRedis, settings: Settings) -> tuple[str, dict[Any, Any]]:
    """A small tournament settled to its end by a worker: its id and its full ledger hash."""
    keys = settings.keys("default")
    sim = simulate(5, players=6, reentries=1, stack=1000)
    publish(fake, keys, [(field, orjson.dumps(body)) for line in sim.lines
                         for field, body in orjson.loads(line).items()])  # fmt: skip
    worker = Worker(settings, fake)
    worker.run(until_idle=True)
    full = cast(dict[bytes, bytes], fake.hgetall(keys.tournament(sim.tournament_id)))
    assert full
    assert not any(name.startswith(b"f:") for name in full)
    return sim.tournament_id, full


def _is_expired(fake: fakeredis.FakeRedis, key: str) -> bool:
    names = cast(list[bytes], fake.hkeys(key))
    return bool(names) and all(name == b"rules" or name.startswith(b"f:") for name in names)


def test_a_ledger_an_archiver_stopped_before_expiring_it_expires_when_the_next_archiver_resumes(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    settings = make_settings(batch_size=20, archive_url=str(tmp_path / "a"))
    keys = settings.keys("default")
    tournament_id, full = _settled_tournament(fake, settings)
    Archiver(settings, fake, open_store(settings.archive_url)).drain()
    key = keys.tournament(tournament_id)
    assert _is_expired(fake, key)
    fake.delete(key)
    fake.hset(key, mapping=full)  # as if it had been stopped (SIGKILL) between writing the file and expiring
    fake.delete(keys.archive + ":lock")  # and its lease had run out
    Archiver(settings, fake, open_store(settings.archive_url)).step(keys)
    assert _is_expired(fake, key), "the newest file's finished tournaments expired again on resuming"
    assert prove(settings) == []


def test_a_redis_error_while_expiring_leaves_the_ledger_to_the_next_turn(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = make_settings(batch_size=20, archive_url=str(tmp_path / "a"))
    keys = settings.keys("default")
    tournament_id, _ = _settled_tournament(fake, settings)
    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    real = expire

    def down_once(*args: Any) -> list[str]:
        monkeypatch.setattr(archiver_module, "expire", real)
        raise redis.ConnectionError("Redis went away")

    monkeypatch.setattr(archiver_module, "expire", down_once)
    with pytest.raises(redis.ConnectionError):
        archiver.drain()
    key = keys.tournament(tournament_id)
    assert not _is_expired(fake, key)
    assert len(all_files(open_store(settings.archive_url))) == 1, "the file was written before"
    archiver.step(keys)
    assert _is_expired(fake, key)


def test_a_ledger_redis_refuses_to_expire_stays_whole_and_archiving_goes_on(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refusal (an ACL without the grants, a script error) is not an outage: retrying would stall the archive."""
    settings = make_settings(batch_size=20, archive_url=str(tmp_path / "a"))
    keys = settings.keys("default")
    tournament_id, full = _settled_tournament(fake, settings)
    tried: list[str] = []

    def refused(_client: Any, _keys: ShardKeys, tournament_ids: Any) -> list[str]:
        tried.extend(tournament_ids)
        raise redis.ResponseError("NOPERM this user has no permissions to run the 'evalsha' command")

    monkeypatch.setattr(archiver_module, "expire", refused)
    archiver = Archiver(settings, fake, open_store(settings.archive_url))
    archiver.drain()
    assert tried == [tournament_id]
    assert fake.hgetall(keys.tournament(tournament_id)) == full, "left whole"
    publish(fake, keys, [("event", json.dumps(doc)) for doc in hands(3, "after")])
    worker = Worker(settings, fake)
    worker.run(until_idle=True)
    archiver.drain()
    assert tried == [tournament_id], "not tried again"
    assert len(all_files(open_store(settings.archive_url))) == 2, "archiving went on"
    assert prove(settings) == []
