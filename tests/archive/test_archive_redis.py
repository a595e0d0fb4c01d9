"""The archive on real servers: workers and an archiver SIGKILLed mid-run, every entry archived once; the S3
path against a real S3-compatible server (moto's server mode, started here); the command line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol, cast

import httpx
import orjson
import pyarrow.parquet as pq
import pytest
import redis
from _pytest.capture import CaptureResult
from redis.typing import EncodableT, FieldT

from showdown_core.tournament import Entry, Ledger, Rules
from showdown_service.archive.archiver import Archiver
from showdown_service.archive.replay import Difference, replay
from showdown_service.cli.commands import main as showdown_main
from showdown_service.decision.tournament_replay import TournamentReplay
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import connect
from showdown_service.infra.streams import read_range
from showdown_service.storage.layout import all_files, open_store
from showdown_service.storage.recall import find_hand, query
from showdown_service.testing.localredis import free_port
from showdown_service.worker import ledger as store
from showdown_service.worker.loop import Worker
from tests.api_support import bearer, serving
from tests.helpers import REAL_SHOWDOWNS, read_cases, wait_until, xadd_events
from tests.tournament_builders import all_in, chips, closed, deal, entry, opened

CASES = list(read_cases(REAL_SHOWDOWNS))
SHOWDOWN = [sys.executable, "-m", "showdown_service"]


def hands(n: int, tag: str = "h") -> list[dict[str, Any]]:
    return [{**CASES[i % len(CASES)]["event"], "hand_id": f"{tag}-{i}"} for i in range(n)]


def archived_rows(url: str) -> list[dict[str, Any]]:
    store = open_store(url)
    return [row for _, _, path in all_files(store) for row in pq.read_table(path).to_pylist()]


def head_seq(client: redis.Redis, key: str) -> int:
    raw = client.get(key)
    return int(str(raw.decode() if isinstance(raw, bytes) else raw).split(":")[0]) if raw else 0


def test_workers_and_an_archiver_sigkilled_mid_run_leave_every_entry_archived_once(
    client: redis.Redis, worker_env: dict[str, str], tmp_path: Path
) -> None:
    entries = 1200
    archive = tmp_path / "archive"
    env = {**worker_env, "SHOWDOWN_ARCHIVE_URL": str(archive), "SHOWDOWN_ARCHIVE_FILE_ROWS": "53",
           "SHOWDOWN_ARCHIVE_INTERVAL_S": "0.2", "SHOWDOWN_BATCH_SIZE": "50", "SHOWDOWN_CLAIM_IDLE_MS": "1000",
           "SHOWDOWN_TRIM_INTERVAL_S": "0.1", "SHOWDOWN_ARCHIVE_LOCK_TTL_S": "1"}  # fmt: skip
    keys = Settings(redis_url=worker_env["SHOWDOWN_REDIS_URL"]).keys("default")
    docs = hands(entries)
    xadd_events(client, keys.events, [*docs[:600], docs[7], "{not json"])

    def spawn(command: str, name: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [*SHOWDOWN, command], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**env, "SHOWDOWN_CONSUMER": name, "SHOWDOWN_HEARTBEAT_FILE": str(tmp_path / f"hb-{name}")},
        )  # fmt: skip

    workers = [spawn("worker", "w1"), spawn("worker", "w2")]
    archiver = spawn("archiver", "a1")
    try:
        for kill in range(2):  # SIGKILL the archiver (and a worker) mid-run, restart them
            files = 2 * kill
            wait_until(lambda: len(all_files(open_store(str(archive)))) > files, what="more files", timeout=60)  # noqa: B023
            archiver.kill()
            archiver.wait(10)
            if kill == 0:
                workers[0].kill()
                workers[0].wait(10)
                xadd_events(client, keys.events, docs[600:])
                workers[0] = spawn("worker", "w1b")
            archiver = spawn("archiver", f"a{kill + 2}")
        total = entries + 2
        wait_until(lambda: head_seq(client, keys.audit_head) == total, what="every entry settled", timeout=120)
        wait_until(
            lambda: int(client.hget(keys.archive, "seq") or 0) == total, what="every entry archived", timeout=120
        )
    finally:
        for process in [*workers, archiver]:
            process.send_signal(signal.SIGTERM)
        for process in [*workers, archiver]:
            process.wait(30)
    kept = archived_rows(str(archive))
    assert [r["seq"] for r in kept] == list(range(1, total + 1)), "every entry once: no gap, no repeat"
    assert len({r["entry_id"] for r in kept}) == total
    assert sum(r["outcome"] == "settled" for r in kept) == entries
    assert all(r["event"] is not None for r in kept), "no event was trimmed before it was archived"
    found: list[Difference] = []
    settings = Settings(redis_url=worker_env["SHOWDOWN_REDIS_URL"])
    replay(open_store(str(archive)), settings, found.append, client=connect(settings), jobs=2)
    assert found == []


@pytest.fixture
def s3_server() -> Iterator[str]:
    """A real S3-compatible server (moto's server mode) on 127.0.0.1 with a free port, and a bucket."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
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
        request = urllib.request.Request(f"{endpoint}/showdown-archive", method="PUT")
        urllib.request.urlopen(request, timeout=10).close()
        yield endpoint
    finally:
        server.terminate()
        server.wait(10)


def test_the_archive_on_s3_is_written_queried_and_proven_against_a_real_s3_compatible_server(
    client: redis.Redis, redis_url: str, make_settings: Any, s3_server: str, tmp_path: Path
) -> None:
    settings = make_settings(
        redis_url,
        batch_size=25,
        archive_url="s3://showdown-archive/prod",
        archive_s3_endpoint=s3_server,
        archive_s3_region="us-east-1",
        archive_s3_access_key="testing",
        archive_s3_secret_key="testing",
        archive_file_rows=40,
    )
    keys = settings.keys("default")
    xadd_events(client, keys.events, [*hands(100), "{not json"])
    from showdown_service.worker.loop import Worker

    archiver = Archiver(settings, connect(settings), open_store(settings.archive_url, settings))
    archiver.step(keys)  # registered before the workers trim anything
    worker = Worker(settings, connect(settings))
    worker.run(until_idle=True)
    archiver.drain()
    store = open_store(settings.archive_url, settings)
    files = all_files(store)
    assert [(first, last) for first, last, _ in files] == [(1, 40), (41, 80), (81, 101)]
    assert files[0][2].startswith("showdown-archive/prod/shard=default/day=")
    _, counted = query(store, "SELECT count(*), count(result), count(dead_letter) FROM entries")
    assert counted == [(101, 100, 1)]
    found = find_hand(settings.archive_url, "h-42", settings=settings)
    assert found is not None
    assert found.result == orjson.loads(read_range(client, keys.results)[42][1][b"result"])
    differences: list[Difference] = []
    replay(store, settings, differences.append, client=connect(settings))
    assert differences == []


# --- the command line ------------------------------------------------------------------------


class Showdown(Protocol):
    def __call__(self, args: list[str], env: dict[str, str], code: int = 0) -> CaptureResult[str]: ...


@pytest.fixture
def showdown(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Showdown:
    """``showdown ARGS`` in this process with the ``SHOWDOWN_*`` variables of ``env``: its output and exit status."""

    def call(args: list[str], env: dict[str, str], code: int = 0) -> CaptureResult[str]:
        for key in [k for k in os.environ if k.startswith("SHOWDOWN_")]:
            monkeypatch.delenv(key)
        for key, value in env.items():
            if key.startswith("SHOWDOWN_"):
                monkeypatch.setenv(key, value)
        capsys.readouterr()
        status = showdown_main(args)
        done = capsys.readouterr()
        assert status == code, (done.out, done.err)
        return done

    return call


def test_hand_query_export_and_replay_from_the_command_line(
    client: redis.Redis, worker_env: dict[str, str], tmp_path: Path, showdown: Showdown
) -> None:
    env = {**worker_env, "SHOWDOWN_ARCHIVE_URL": str(tmp_path / "archive"), "SHOWDOWN_ARCHIVE_KEEP": "10",
           "SHOWDOWN_ARCHIVE_FILE_ROWS": "10", "SHOWDOWN_ARCHIVE_INTERVAL_S": "0.2"}  # fmt: skip
    keys = Settings(redis_url=worker_env["SHOWDOWN_REDIS_URL"]).keys("default")
    archiver = subprocess.Popen([*SHOWDOWN, "archiver"], env=env, stdout=subprocess.DEVNULL)
    wait_until(lambda: client.exists(keys.archive) == 1, what="the archiver to register")
    xadd_events(client, keys.events, [*hands(40), "{not json"])
    worker = subprocess.Popen([*SHOWDOWN, "worker"], env=env, stdout=subprocess.DEVNULL)
    try:
        wait_until(lambda: head_seq(client, keys.audit_head) == 41, what="every entry settled")
        wait_until(lambda: int(client.hget(keys.archive, "seq") or 0) == 41, what="every entry archived")
        wait_until(lambda: client.xlen(keys.results) <= 30, what="the results stream trimmed")
    finally:
        for process in (worker, archiver):
            process.send_signal(signal.SIGTERM)
            assert process.wait(30) == 0
    in_redis = json.loads(showdown(["hand", "h-39", "--json"], env).out)
    assert (in_redis["where"], in_redis["result"]["hand_id"], in_redis["audit"]["outcome"]) == (
        "redis",
        "h-39",
        "settled",
    )
    assert in_redis["event"]["hand_id"] == "h-39"
    found = find_hand(env["SHOWDOWN_ARCHIVE_URL"], "h-39")
    assert found is not None
    assert {**found.document(), "where": "redis"} == in_redis, "the same texts, wherever found"
    in_archive = json.loads(showdown(["hand", "h-3", "--json"], env).out)
    assert (in_archive["where"], in_archive["result"]["hand_id"]) == ("archive", "h-3")
    showdown(["hand", "h-999"], env, code=1)
    counted = showdown(
        ["archive", "query", "SELECT outcome, count(*) AS n FROM entries GROUP BY 1 ORDER BY 1", "--json"], env
    )
    assert [json.loads(line) for line in counted.out.splitlines()] == [
        {"outcome": "rejected", "n": 1}, {"outcome": "settled", "n": 40}
    ]  # fmt: skip
    assert showdown(["archive", "query", "SELECT count(*) AS n FROM entries", "--csv"], env).out.split() == ["n", "41"]
    today = time.strftime("%Y-%m-%d", time.gmtime())
    lines = showdown(["archive", "export", "--from", today, "--to", today], env).out.splitlines()
    assert [json.loads(line)["seq"] for line in lines] == list(range(1, 42))
    out = tmp_path / "export.parquet"
    showdown(["archive", "export", "--from", today, "--to", today, "--format", "parquet", "--out", str(out)], env)
    assert pq.read_table(out).num_rows == 41
    showdown(["archive", "export", "--from", "2000-01-01", "--to", "2000-01-02", "--format", "csv"], env)
    proven = showdown(["audit", "replay", str(tmp_path / "archive"), "--report", str(tmp_path / "report.jsonl")], env)
    assert "41 entries, 41 re-settled: every entry holds" in proven.out
    assert (tmp_path / "report.jsonl").read_text() == ""
    first = all_files(open_store(str(tmp_path / "archive")))[0][2]
    Path(first).unlink()
    failed = showdown(
        ["audit", "replay", str(tmp_path / "archive"), "--report", str(tmp_path / "report.jsonl")], env, code=1
    )
    assert "missing" in failed.out
    reported = [json.loads(line) for line in (tmp_path / "report.jsonl").read_text().splitlines()]
    assert reported[0]["kind"] == "missing"
    assert set(reported[0]) >= {"hand_id", "entry_id", "shard", "kind", "detail"}


def test_audit_verify_catches_a_forged_result_and_refuses_an_unknown_shard(
    client: redis.Redis, worker_env: dict[str, str], showdown: Showdown
) -> None:
    keys = Settings(redis_url=worker_env["SHOWDOWN_REDIS_URL"]).keys("default")
    xadd_events(client, keys.events, hands(10))
    settings = Settings(
        redis_url=worker_env["SHOWDOWN_REDIS_URL"], heartbeat_file=Path(worker_env["SHOWDOWN_HEARTBEAT_FILE"])
    )
    worker = Worker(settings, connect(settings))
    worker.run(until_idle=True)
    assert head_seq(client, keys.audit_head) == 10
    assert (
        "10 results, dead letters and placements match their digests" in showdown(["audit", "verify"], worker_env).out
    )
    unknown = showdown(["audit", "verify"], {**worker_env, "SHOWDOWN_SHARDS": "typo"}, code=1)
    assert "shard typo: NO AUDIT STREAM" in unknown.out
    stream_id, fields = read_range(client, keys.results)[4]
    doc = json.loads(fields[b"result"])
    doc["awards"][0]["amount"], doc["awards"][1]["amount"] = doc["awards"][1]["amount"], doc["awards"][0]["amount"]
    client.xdel(keys.results, stream_id)
    client.xadd(keys.results, {"result": json.dumps(doc)})
    forged = showdown(["audit", "verify"], worker_env, code=1)
    assert f"FORGED {keys.results}" in forged.out
    assert f"result of hand {doc['hand_id']}: no audit record has its digest" in forged.out


# --- the archive asked by the read API and by a requeue ---------------------------------------


def test_the_read_api_and_a_requeue_find_a_hand_redis_trimmed_in_the_archive(
    client: redis.Redis, redis_url: str, make_settings: Any, tmp_path: Path
) -> None:
    from showdown_service.api.archive import lookup
    from showdown_service.read.requeue import settled_in_archive, settled_result

    settings = make_settings(redis_url, batch_size=25, archive_url=str(tmp_path / "archive"), archive_keep=5)
    keys = settings.keys("default")
    xadd_events(client, keys.events, [*hands(30), "{not json"])
    archiver = Archiver(settings, connect(settings), open_store(settings.archive_url, settings))
    archiver.step(keys)  # registered before the worker trims anything
    worker = Worker(settings, connect(settings))
    worker.run(until_idle=True)
    archiver.drain()
    client.xtrim(keys.results, maxlen=5, approximate=False)  # Redis's window: the archive has the rest
    assert settled_result(client, keys, "h-2") is None, "no longer in Redis"
    archived = lookup(settings)("h-2")
    assert archived is not None
    assert (archived["status"], archived["result"]["hand_id"], archived["audit"]["outcome"]) == (
        "settled",
        "h-2",
        "settled",
    )
    assert lookup(settings)("never-dealt") is None
    said = settled_in_archive(settings, "default", "h-2")
    assert said is not None
    assert said.startswith("archived result ")
    assert "h-2" in said
    assert settled_in_archive(settings, "another-shard", "h-2") is None, "a shard's own archive rows only"


def test_showdown_hand_reads_the_event_redis_trimmed_from_the_archive(
    client: redis.Redis, redis_url: str, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    settings = make_settings(redis_url, archive_url=str(tmp_path / "archive"))
    keys = settings.keys("default")
    xadd_events(client, keys.events, hands(3))
    archiver = Archiver(settings, connect(settings), open_store(settings.archive_url, settings))
    archiver.step(keys)
    worker = Worker(settings, connect(settings))
    worker.run(until_idle=True)
    archiver.drain()
    client.xtrim(keys.events, maxlen=0, approximate=False)  # the events trimmed; the result and audit kept
    monkeypatch.setenv("SHOWDOWN_REDIS_URL", redis_url)
    monkeypatch.setenv("SHOWDOWN_ARCHIVE_URL", settings.archive_url)
    assert showdown_main(["hand", "h-1"]) == 0
    shown = capsys.readouterr().out
    assert "found in redis" in shown
    assert "event: (none)" not in shown
    event = next(line for line in shown.splitlines() if line.startswith("  event: "))
    assert orjson.loads(event.removeprefix("  event: "))["hand_id"] == "h-1"
    assert showdown_main(["hand", "h-1", "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["event"]["hand_id"] == "h-1"


def test_asking_an_archive_that_was_never_written_finds_nothing_and_creates_nothing(
    make_settings: Any, tmp_path: Path
) -> None:
    from showdown_service.api.archive import lookup
    from showdown_service.read.requeue import settled_in_archive

    settings = make_settings(archive_url=str(tmp_path / "no-archive-here"))
    assert lookup(settings)("h-1") is None
    assert settled_in_archive(settings, "default", "h-1") is None
    assert not (tmp_path / "no-archive-here").exists()


def test_a_finished_tournament_s_ledger_expires_once_archived_and_late_lines_are_decided_as_before(
    client: redis.Redis, worker_env: dict[str, str], tmp_path: Path, showdown: Showdown
) -> None:
    """Issue 25 item 2: T finishes, the archiver archives the hand that finished it and expires T's ledger (its
    e:/c: fields give way to one short f: field per entry); late lines are then decided exactly as the full
    ledger decides them (the in-memory replay below), the standings are the same, and ``audit replay`` proves the
    whole archive."""
    played = [opened(payouts=[700, 300]), entry("a"), entry("b"), entry("c"), chips("a", 500), closed(),
              all_in("h1", [(1, "a", 1500, 1000), (2, "b", 1000, 1000)]),
              all_in("h2", [(1, "a", 2500, 1000), (3, "c", 1000, 1000)])]  # fmt: skip
    late = [all_in("h9", [(1, "a", 3500, 1000), (2, "b", 1000, 1000)]), entry("d"), entry("a"), entry("a", 999),
            chips("a", 500), chips("a", 400), chips("a", 500, purchase=2)]  # fmt: skip
    expected = TournamentReplay()
    expected.feed(played)
    full = {name.encode(): value for name, value in _ledger_hash(expected).items()}
    decided = [expected.feed_line(line) for line in late]
    env = {**worker_env, "SHOWDOWN_ARCHIVE_URL": str(tmp_path / "archive"), "SHOWDOWN_ARCHIVE_KEEP": "5",
           "SHOWDOWN_ARCHIVE_INTERVAL_S": "0.1"}  # fmt: skip
    keys = Settings(redis_url=worker_env["SHOWDOWN_REDIS_URL"]).keys("default")
    worker = subprocess.Popen([*SHOWDOWN, "worker"], env=env, stdout=subprocess.DEVNULL)
    archiver = None
    try:
        _send(client, keys.events, played)
        wait_until(lambda: head_seq(client, keys.audit_head) == len(played), what="T settled")
        before = _standings(showdown, env)
        archiver = subprocess.Popen([*SHOWDOWN, "archiver"], env=env, stdout=subprocess.DEVNULL)
        wait_until(lambda: int(client.hget(keys.archive, "seq") or 0) == len(played), what="T archived")
        wait_until(lambda: client.hlen(keys.tournament("T")) == 4, what="T expired (7 fields before)")
        kept = client.hgetall(keys.tournament("T"))
        assert sorted(kept) == [b"f:1:a", b"f:1:b", b"f:1:c", b"rules"]
        assert kept[b"rules"] == full[b"rules"]
        assert sum(map(len, kept.values())) < sum(map(len, full.values()))
        assert _standings(showdown, env) == before, "the standings of the expired ledger, from the archive"
        _send(client, keys.events, late)
        wait_until(lambda: head_seq(client, keys.audit_head) == len(played) + len(late), what="late lines decided")
        wait_until(lambda: int(client.hget(keys.archive, "seq") or 0) == len(played) + len(late), what="archived")
        healthy = showdown(["health"], env)
        assert f"shard default: archive lag 0 entries (archived to seq {len(played) + len(late)}" in healthy.out
    finally:
        for process in (worker, archiver):
            if process is not None:
                process.send_signal(signal.SIGTERM)
                assert process.wait(30) == 0
    rows = sorted(archived_rows(env["SHOWDOWN_ARCHIVE_URL"]), key=lambda row: row["seq"])[-len(late) :]
    assert [(row["outcome"], row["code"]) for row in rows] == [(d.outcome, d.code) for d in decided if d is not None]
    messages = [orjson.loads(row["dead_letter"])["message"] if row["dead_letter"] else None for row in rows]
    assert messages == [d.message for d in decided if d is not None], "the same words, byte for byte"
    assert sorted(client.hkeys(keys.tournament("T"))) == [b"f:1:a", b"f:1:b", b"f:1:c", b"rules"], "still expired"
    assert _standings(showdown, env) == before, "late lines change nothing"
    assert client.scard(keys.tournaments_open) == 0, "the open-tournaments gauge's set: T finished, never reopened"
    assert json.loads(before[0]) == [
        {"tournament_id": "T", "player_id": p, "entry": 1, "place": n, "tied": 1, "prize": prize, "bounty_cash": 0}
        for p, n, prize in (("a", 1, 700), ("c", 2, 300), ("b", 3, 0))
    ]
    total = len(played) + len(late)
    proven = showdown(["audit", "replay", str(tmp_path / "archive"), "--offline"], env)
    assert f"{total} entries, {total} re-settled: every entry holds" in proven.out
    verified = showdown(["audit", "verify"], env)
    assert "the chain holds" in verified.out


def test_expired_standings_with_re_entries_ties_a_deal_and_bounties_are_the_ledger_s_byte_for_byte(
    client: redis.Redis, worker_env: dict[str, str], tmp_path: Path, showdown: Showdown
) -> None:
    """Entries out while registration was open (no place; written in seat order c, b, listed in registration
    order b, c), their re-entries, two entries tied for 4th, a deal, bounty cash: the standings of the expired
    ledger, read from the archive, are the full ledger's (CLI ``--json``, CLI text with the deal, the API)."""
    lines = [
        opened(payouts=[3000, 2000, 1000, 500], bounty_cash_ppm=500_000),
        *(entry(p, bounty=100) for p in "bcade"),
        all_in("h1", [(1, "a", 1000, 1000), (2, "c", 1000, 1000), (3, "b", 1000, 1000)]),
        entry("b", number=2, bounty=100), entry("c", number=2, bounty=100),
        chips("d", 500, bounty=50), chips("e", 500, bounty=50),
        closed(),
        all_in("h2", [(1, "a", 3000, 1500), (2, "d", 1500, 1500), (3, "e", 1500, 1500)]),
        deal("equal", [("a", 1), ("b", 2), ("c", 2)], 600),
        all_in("h3", [(1, "a", 6000, 1000), (2, "b", 1000, 1000)]),
        all_in("h4", [(1, "a", 7000, 1000), (3, "c", 1000, 1000)]),
    ]  # fmt: skip
    env = {**worker_env, "SHOWDOWN_ARCHIVE_URL": str(tmp_path / "archive"), "SHOWDOWN_ARCHIVE_KEEP": "0",
           "SHOWDOWN_ARCHIVE_INTERVAL_S": "0.1", "SHOWDOWN_ARCHIVE_FILE_ROWS": "4"}  # fmt: skip
    keys = Settings(redis_url=worker_env["SHOWDOWN_REDIS_URL"]).keys("default")
    worker = subprocess.Popen([*SHOWDOWN, "worker"], env=env, stdout=subprocess.DEVNULL)
    archiver = None
    try:
        _send(client, keys.events, lines)
        wait_until(lambda: head_seq(client, keys.audit_head) == len(lines), what="T settled")
        full = sum(map(len, client.hgetall(keys.tournament("T")).values()))
        before = _standings(showdown, env)
        archiver = subprocess.Popen([*SHOWDOWN, "archiver"], env=env, stdout=subprocess.DEVNULL)
        wait_until(lambda: _expired(client, keys.tournament("T")), what="T expired")
    finally:
        for process in (worker, archiver):
            if process is not None:
                process.send_signal(signal.SIGTERM)
                assert process.wait(30) == 0
    assert sum(map(len, client.hgetall(keys.tournament("T")).values())) < full
    assert _standings(showdown, env) == before
    listed = [(p["player_id"], p["entry"], p["place"], p["tied"], p["prize"]) for p in json.loads(before[0])]
    assert listed == [("a", 1, 1, 1, 2400), ("c", 2, 2, 1, 1800), ("b", 2, 3, 1, 1800), ("d", 1, 4, 2, 250),
                      ("e", 1, 4, 2, 250), ("b", 1, None, 1, 0), ("c", 1, None, 1, 0)]  # fmt: skip
    assert "deal (equal, 600 left to play for): a#1 1800, b#2 1800, c#2 1800" in before[1]
    assert json.loads(before[2])["placements"] == json.loads(before[0])


def test_expired_standings_without_their_archive_are_an_error_naming_why_never_a_guess(
    client: redis.Redis, worker_env: dict[str, str], tmp_path: Path, showdown: Showdown
) -> None:
    """No archive at SHOWDOWN_ARCHIVE_URL: ``archive_unavailable`` (CLI exit 1, API 503); an archive missing the
    file with the tournament's registrations: ``archive_incomplete``. Neither answers with the expired ledger's
    figures."""
    lines = [opened(payouts=[100]), entry("a"), entry("b"), closed(), all_in("h1", [(1, "a", 1000, 1000),
             (2, "b", 1000, 1000)])]  # fmt: skip
    archive = tmp_path / "archive"
    env = {**worker_env, "SHOWDOWN_ARCHIVE_URL": str(archive), "SHOWDOWN_ARCHIVE_KEEP": "0",
           "SHOWDOWN_ARCHIVE_INTERVAL_S": "0.1", "SHOWDOWN_ARCHIVE_FILE_ROWS": "2"}  # fmt: skip
    keys = Settings(redis_url=worker_env["SHOWDOWN_REDIS_URL"]).keys("default")
    archiver = subprocess.Popen([*SHOWDOWN, "archiver"], env=env, stdout=subprocess.DEVNULL)
    worker = subprocess.Popen([*SHOWDOWN, "worker"], env=env, stdout=subprocess.DEVNULL)
    try:
        _send(client, keys.events, lines)
        wait_until(lambda: _expired(client, keys.tournament("T")), what="T expired")
    finally:
        for process in (worker, archiver):
            process.send_signal(signal.SIGTERM)
            assert process.wait(30) == 0
    elsewhere = {**env, "SHOWDOWN_ARCHIVE_URL": str(tmp_path / "not-the-archive")}
    refused = showdown(["tournament", "standings", "T", "--json"], elsewhere, code=1)
    assert refused.out == ""
    assert "archive_unavailable" in refused.err
    assert f"no archive at SHOWDOWN_ARCHIVE_URL={str(tmp_path / 'not-the-archive')!r}" in refused.err
    with serving(Settings(redis_url=env["SHOWDOWN_REDIS_URL"], archive_url=elsewhere["SHOWDOWN_ARCHIVE_URL"])) as url:
        reply = httpx.get(f"{url}/v1/tournaments/T/standings", headers=bearer())
    assert (reply.status_code, reply.json()["code"]) == (503, "archive_unavailable")
    first = min(all_files(open_store(str(archive))))[2]  # open, a's and b's registrations (2 rows a file)
    Path(first).unlink()
    gap = showdown(["tournament", "standings", "T"], env, code=1)
    assert gap.out == ""
    assert "archive_incomplete" in gap.err
    assert "lacks the settled entry message of entry 1 of 'a'" in gap.err


def test_a_finished_ledger_of_ten_thousand_entries_expires_in_one_script(client: redis.Redis, redis_url: str) -> None:
    """EXPIRE_LUA sets the fields 500 at a time: Lua's unpack refuses ~8,000 values (4,000 entries) at once."""
    keys = Settings(redis_url=redis_url).keys("default")
    entries = 10_000
    rules = Rules("BIG", (100,), None, "tie", "by_stack", False, None, ())
    fields: dict[FieldT, EncodableT] = {
        store.RULES_FIELD: store.encode_rules(Ledger(rules, False, entries + 1, over=True))
    }
    for i in range(entries):
        e = Entry(f"p{i}", 1, i + 1, 0, 0, 0, 1000, status="finished", place=entries - i, prize=100 * (i == 0))
        fields[store.entry_field(e.player_id, 1)] = store.encode_entry(e)
        fields[store.chips_field(e.player_id, 1)] = b"0"
    client.hset(keys.tournament("BIG"), mapping=fields)
    assert store.expire(client, keys, ["BIG"]) == ["BIG"]
    kept = cast(dict[bytes, bytes], client.hgetall(keys.tournament("BIG")))
    assert len(kept) == entries + 1
    assert kept[b"f:1:p9999"] == b"[1000,0,[]]"
    assert kept[b"rules"] == fields[store.RULES_FIELD]


def _expired(client: redis.Redis, key: str) -> bool:
    names = cast(list[bytes], client.hkeys(key))
    return bool(names) and all(name == b"rules" or name.startswith(b"f:") for name in names)


def _standings(showdown: Showdown, env: dict[str, str]) -> tuple[str, str, bytes, bytes]:
    """T's standings: ``showdown tournament standings T --json``, the same as text, the API's body and the floor
    page's (what its screen draws)."""
    as_json = showdown(["tournament", "standings", "T", "--json"], env).out
    as_text = showdown(["tournament", "standings", "T"], env).out
    settings = Settings(redis_url=env["SHOWDOWN_REDIS_URL"], archive_url=env["SHOWDOWN_ARCHIVE_URL"])
    with serving(settings) as url:
        reply = httpx.get(f"{url}/v1/tournaments/T/standings", headers=bearer())
        floor = httpx.get(f"{url}/floor/T/standings")
    assert (reply.status_code, floor.status_code) == (200, 200), (reply.text, floor.text)
    return as_json, as_text, reply.content, floor.content


def _send(client: redis.Redis, stream: str, lines: list[str]) -> None:
    """XADD each builder line as the stream entry it stands for (``tournament`` or ``event`` field)."""
    for line in lines:
        ((name, body),) = json.loads(line).items()
        client.xadd(stream, {name: json.dumps(body)})


def _ledger_hash(run: TournamentReplay) -> dict[str, bytes]:
    """T's hash as the worker writes it, from an in-memory replay's ledger."""
    ledger = run.book.ledgers["T"]
    assert ledger is not None
    fields = {store.RULES_FIELD: store.encode_rules(ledger)}
    for e in ledger.entries.values():
        fields[store.entry_field(e.player_id, e.entry)] = store.encode_entry(e)
        fields[store.chips_field(e.player_id, e.entry)] = str(e.chips).encode()
    return fields


def test_audit_verify_holds_for_a_chain_the_archiver_trimmed_to_nothing_and_still_catches_a_lost_record(
    client: redis.Redis, worker_env: dict[str, str], tmp_path: Path, showdown: Showdown
) -> None:
    """SHOWDOWN_ARCHIVE_KEEP=0: once archived, the audit stream keeps no record, only the head. ``audit verify``
    ends the chain where the archive goes (the archiver's progress in Redis) instead of calling it truncated; a head
    past that point (a record neither in Redis nor in the archive) is still a break."""
    env = {**worker_env, "SHOWDOWN_ARCHIVE_URL": str(tmp_path / "archive"), "SHOWDOWN_ARCHIVE_KEEP": "0",
           "SHOWDOWN_ARCHIVE_INTERVAL_S": "0.1"}  # fmt: skip
    keys = Settings(redis_url=worker_env["SHOWDOWN_REDIS_URL"]).keys("default")
    xadd_events(client, keys.events, hands(12))
    worker = subprocess.Popen([*SHOWDOWN, "worker"], env=env, stdout=subprocess.DEVNULL)
    archiver = subprocess.Popen([*SHOWDOWN, "archiver"], env=env, stdout=subprocess.DEVNULL)
    try:
        wait_until(lambda: int(client.hget(keys.archive, "seq") or 0) == 12, what="every hand archived")
        wait_until(lambda: client.xlen(keys.audit) == 0, what="the audit stream trimmed to nothing")
    finally:
        for process in (worker, archiver):
            process.send_signal(signal.SIGTERM)
            assert process.wait(30) == 0
    verified = showdown(["audit", "verify"], env)
    assert verified.out.startswith("shard default: 0 records, the chain holds (head seq 12, archived to seq 12 ")
    client.set(keys.audit_head, f"13:{'0' * 64}")  # a 13th record the head names, kept nowhere
    broken = showdown(["audit", "verify"], env, code=1)
    assert "BROKEN" in broken.out
    assert "truncated: the stored head is seq 13 but the stream ends at seq 12" in broken.out
