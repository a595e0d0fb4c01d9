"""Redis coming back without its data (issue 33, items 2-4, the workers' side): the chain's epoch, the dedupe
restored from the archive before the new chain's first commit, tournaments refused ``ledger_lost`` until restored
from the archive, then settling as an uninterrupted run would have; health, ``audit verify``, the gauge and the
alert name the reset. On real servers (FLUSHALL stands for a restart without data; one test restarts a server)."""

from __future__ import annotations

import itertools
import json
import threading
from pathlib import Path
from typing import Any, cast

import orjson
import pytest
import redis

from showdown_core import InvariantViolation
from showdown_messages.publish import Refusal
from showdown_service.archive.archiver import Archiver
from showdown_service.archive.ledger_restore import rebuild, restore
from showdown_service.cli.commands import main as showdown_main
from showdown_service.decision import audit
from showdown_service.decision.tournament_replay import TournamentReplay
from showdown_service.infra.config import Settings, ShardKeys
from showdown_service.infra.examples import example_lines
from showdown_service.infra.streams import read_range
from showdown_service.ops import heartbeat
from showdown_service.read.health import health
from showdown_service.storage.layout import open_store
from showdown_service.testing.localredis import LocalRedis
from showdown_service.testing.simulate import Simulation, simulate
from showdown_service.worker.funds import fold_archived
from showdown_service.worker.ledger import read_book
from showdown_service.worker.loop import Worker
from showdown_service.worker.restore import ArchiveUnreadable, read_reset
from tests.helpers import wait_until, xadd_events
from tests.worker.test_jackpot_worker import bad_beat_hand, ggpoker_kings

CASES = [orjson.loads(line)["event"] for line in itertools.islice(example_lines(), 20)]


def hands(n: int, tag: str = "h") -> list[dict[str, Any]]:
    """``n`` bundled showdowns (each a different hand) as hands ``<tag>-0``, ``<tag>-1``, ..."""
    return [{**CASES[i % len(CASES)], "hand_id": f"{tag}-{i}"} for i in range(n)]


def drain(settings: Settings, client: redis.Redis) -> Worker:
    worker = Worker(settings, client)
    worker.run(until_idle=True)
    return worker


def archive_all(settings: Settings, client: redis.Redis) -> Archiver:
    """An archiver of the shard that archived everything committed so far (drain it again for more: it holds the
    shard's lock)."""
    archiver = Archiver(settings, client, open_store(settings.archive_url))
    archiver.drain()
    return archiver


def records(client: redis.Redis, keys: ShardKeys) -> list[dict[str, Any]]:
    return [orjson.loads(fields[b"audit"]) for _, fields in read_range(client, keys.audit)]


def publish(client: redis.Redis, keys: ShardKeys, lines: list[bytes]) -> None:
    """Each line as the stream entry a producer sends (``{"event": ...}`` in field event, messages in tournament)."""
    pipe = client.pipeline(transaction=False)
    for line in lines:
        ((field, body),) = orjson.loads(line).items()
        pipe.xadd(keys.events, {field: orjson.dumps(body)})
    pipe.execute()


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, redis_url: str, tmp_path: Path) -> Settings:
    """The command line's settings: the test server, an archive under tmp_path."""
    for name, value in {"REDIS_URL": redis_url, "ARCHIVE_URL": str(tmp_path / "archive"),
                        "HEARTBEAT_FILE": str(tmp_path / "hb-cli"), "METRICS_PORT": "0"}.items():  # fmt: skip
        monkeypatch.setenv(f"SHOWDOWN_{name}", value)
    return Settings()


def test_the_first_record_s_hash_is_the_chain_s_epoch_written_with_it_and_kept(
    client: redis.Redis, make_settings: Any, redis_url: str
) -> None:
    settings = make_settings(redis_url)
    keys = settings.keys("default")
    xadd_events(client, keys.events, hands(3))
    drain(settings, client)
    first = records(client, keys)[0]
    assert first["seq"] == 1
    assert client.get(keys.audit_epoch) == first["hash"].encode()
    xadd_events(client, keys.events, hands(3, tag="later"))
    drain(settings, client)
    assert len(records(client, keys)) == 6
    assert audit.read_epoch(client, keys.audit_epoch, keys.audit) == first["hash"], "later commits keep it"
    client.delete(keys.audit_epoch)  # a chain begun before the key was written: its seq 1 record says it
    assert audit.read_epoch(client, keys.audit_epoch, keys.audit) == first["hash"]


def test_after_redis_lost_its_data_a_re_sent_hand_is_a_duplicate_as_it_would_have_been(
    client: redis.Redis, make_settings: Any, redis_url: str, tmp_path: Path
) -> None:
    settings = make_settings(redis_url, archive_url=str(tmp_path / "archive"))
    keys = settings.keys("default")
    docs = hands(6)
    xadd_events(client, keys.events, docs[:5])
    drain(settings, client)
    archive_all(settings, client)
    old_epoch = client.get(keys.audit_epoch)
    assert isinstance(old_epoch, bytes)
    client.flushall()  # Redis restarted without its data
    other = {**docs[4], "hand_id": docs[1]["hand_id"]}
    assert other != docs[1]
    xadd_events(client, keys.events, [docs[0], other, docs[5]])
    drain(settings, client)
    got = [(r["hand_id"], r["outcome"], r["code"]) for r in records(client, keys)]
    assert got == [("h-0", "duplicate", None), ("h-1", "rejected", "conflicting_duplicate"), ("h-5", "settled", None)]
    assert client.xlen(keys.results) == 1
    first = records(client, keys)[0]
    assert client.get(keys.audit_epoch) == first["hash"].encode(), "the new chain's own epoch"
    reset = read_reset(client, keys)
    assert reset is not None
    assert (reset.archived_epoch, reset.archived_seq, reset.hands) == (old_epoch.decode(), 5, 5)
    assert (reset.epoch, reset.began_at) == (first["hash"], first["at"])
    assert reset.text() == (
        f"the chain restarted: epoch {old_epoch.decode()[:16]} archived to seq 5, epoch {first['hash'][:16]} "
        f"began at {first['at']}"
    )
    ttl = client.ttl(keys.seen("h-0"))
    assert 0 < ttl <= settings.dedupe_ttl_s, "restored with what was left of its TTL"


def test_a_worker_without_an_archive_starts_the_new_chain_as_before_and_records_no_reset(
    client: redis.Redis, make_settings: Any, redis_url: str, tmp_path: Path
) -> None:
    settings = make_settings(redis_url, archive_url=str(tmp_path / "no-archive-here"))
    keys = settings.keys("default")
    xadd_events(client, keys.events, hands(2))
    drain(settings, client)
    client.flushall()
    xadd_events(client, keys.events, hands(2))
    drain(settings, client)
    assert [r["outcome"] for r in records(client, keys)] == ["settled", "settled"]
    assert read_reset(client, keys) is None
    assert client.get(keys.audit_epoch) == records(client, keys)[0]["hash"].encode()
    assert not (tmp_path / "no-archive-here").exists(), "looking creates no archive"


def test_a_worker_that_cannot_read_the_archive_at_an_empty_chain_settles_nothing_and_waits_naming_it(
    client: redis.Redis, make_settings: Any, redis_url: str, tmp_path: Path
) -> None:
    archive = tmp_path / "archive"
    day = archive / "shard=default" / "day=2026-11-01"
    day.mkdir(parents=True)
    (day / "default-000000000001-000000000005.parquet").write_bytes(b"not parquet")
    settings = make_settings(redis_url, archive_url=str(archive))
    keys = settings.keys("default")
    xadd_events(client, keys.events, hands(2))
    worker = Worker(settings, client)
    worker.prepare_groups()
    with pytest.raises(ArchiveUnreadable) as unreadable:
        worker.step()
    assert client.xlen(keys.results) == 0
    assert client.xlen(keys.audit) == 0
    assert client.xpending(keys.events, settings.group)["pending"] == 2, "kept pending for the next try"
    worker.housekeeping.wait_for(unreadable.value, attempt=1, retry_in_s=0.1)
    assert worker.waiting_for is not None
    assert worker.waiting_for.code == "ARCHIVE"
    state = orjson.loads(settings.heartbeat_file.read_bytes())
    assert state["reason"] == "ARCHIVE"
    assert "archive" in state["waiting_for"]
    assert isinstance(unreadable.value.refusal, Refusal)


def _tournament_run() -> Simulation:
    """A knockout tournament (bounties paid from the ledger's heads)."""
    return simulate(5, players=30, reentries=4, stack=2000, quiet_hands=0)


def test_a_running_knockout_tournament_is_refused_ledger_lost_restored_byte_for_byte_requeued_and_ends_as_without(
    client: redis.Redis, env: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = env.model_copy(update={"consumer": "w1", "block_ms": 20})
    keys = settings.keys("default")
    sim = _tournament_run()
    tid = sim.tournament_id
    cut = len(sim.lines) // 2
    archiver = archive_all(settings, client)  # from the start: the workers trim no event it has not read
    publish(client, keys, sim.lines[:cut])
    drain(settings, client)
    archiver.drain()
    before = client.hgetall(keys.tournament(tid))
    assert before, "the tournament runs"
    client.flushall()
    rest = sim.lines[cut:]
    publish(client, keys, rest)
    drain(settings, client)
    refused = records(client, keys)
    assert len(refused) == len(rest)
    assert {(r["outcome"], r["code"]) for r in refused} == {("rejected", "ledger_lost")}, "never a plain hand"
    assert client.xlen(keys.results) == 0
    assert client.smembers(keys.tournaments_lost) == {tid.encode()}
    heartbeat.write(tmp_path / "hb")
    ok, lines = health(settings.model_copy(update={"heartbeat_file": tmp_path / "hb"}), client)
    assert ok, "the processes are healthy: a probe must not restart them"
    assert any(line.startswith("degraded: ") and "1 tournaments lost" in line and tid in line for line in lines)
    capsys.readouterr()
    assert showdown_main(["tournament", "restore", tid]) == 0
    assert "now requeue" in capsys.readouterr().out
    assert client.hgetall(keys.tournament(tid)) == before, "the ledger as it stood at its last archived entry"
    assert client.smembers(keys.tournaments_lost) == set()
    assert showdown_main(["tournament", "restore", tid]) == 1, "restored once"
    assert showdown_main(["dead-letters", "--code", "ledger_lost", "--requeue"]) == 0
    drain(settings, client)
    book = read_book(client, keys, tid)
    assert book is not None
    whole = _uninterrupted(sim.lines, tid)
    assert orjson.dumps(book.standings(tid)[0]) == orjson.dumps(whole)
    assert client.xlen(keys.dead) == len(rest), "only the letters requeued"


def _uninterrupted(lines: list[bytes], tid: str) -> list[dict[str, Any]]:
    """The standings of the same tournament settled without a loss (the worker's twin, in process)."""
    run = TournamentReplay()
    run.feed([line.decode() for line in lines])
    assert not run.refused
    return run.book.standings(tid)[0]


def test_a_finished_tournament_s_standings_are_read_from_the_archive_when_redis_lost_even_its_short_ledger(
    client: redis.Redis, env: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = env.model_copy(update={"consumer": "w1", "block_ms": 20})
    keys = settings.keys("default")
    sim = _tournament_run()
    archiver = archive_all(settings, client)  # from the start: the workers trim no event it has not read
    publish(client, keys, sim.lines)
    drain(settings, client)
    archiver.drain()
    client.flushall()
    capsys.readouterr()
    assert showdown_main(["tournament", "standings", sim.tournament_id, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == _uninterrupted(sim.lines, sim.tournament_id)


def test_a_running_tournament_whose_ledger_redis_lost_is_refused_ledger_lost_by_the_standings_command(
    client: redis.Redis, env: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    """The one standings lookup (read/standings.py): the command finds the tournament in the archive after Redis
    lost even its registry, and refuses a running one ``ledger_lost`` as the read API does (docs/api.md), never
    standings rebuilt in process while its entries are refused; the API, asked of an id no shard names in Redis,
    does not scan the archive for it."""
    settings = env.model_copy(update={"consumer": "w1", "block_ms": 20})
    keys = settings.keys("default")
    sim = _tournament_run()
    tid = sim.tournament_id
    cut = len(sim.lines) // 2
    archiver = archive_all(settings, client)  # from the start: the workers trim no event it has not read
    publish(client, keys, sim.lines[:cut])
    drain(settings, client)
    archiver.drain()
    assert client.hgetall(keys.tournament(tid)), "the tournament runs"
    client.flushall()
    capsys.readouterr()
    assert showdown_main(["tournament", "standings", tid]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"showdown tournament standings: ledger_lost: Redis lost tournament {tid!r}'s ledger on shard default and "
        f"it is still running: `showdown tournament restore {tid}` rebuilds it from the archive\n"
    )
    from showdown_service.read.standings import StandingsReader, StandingsRefused

    with pytest.raises(StandingsRefused) as refused:
        StandingsReader(settings, client).read(tid)
    assert refused.value.code == "unknown_tournament"


def test_restore_all_rebuilds_every_lost_ledger_a_finished_and_a_running_tournament_s_each_as_it_stood(
    client: redis.Redis, env: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = env.model_copy(update={"consumer": "w1", "block_ms": 20})
    keys = settings.keys("default")
    done = simulate(6, tournament_id="DONE", players=12, reentries=2, stack=2000, quiet_hands=0)
    running = simulate(7, tournament_id="RUNNING", players=12, reentries=2, stack=2000, quiet_hands=0)
    archiver = archive_all(settings, client)  # from the start: the workers trim no event it has not read
    publish(client, keys, [*done.lines, *running.lines[: len(running.lines) // 2]])
    drain(settings, client)
    before = {tid: client.hgetall(keys.tournament(tid)) for tid in ("RUNNING",)}
    archiver.drain()  # expires the finished tournament's ledger: Redis keeps only its short form
    short = cast(dict[bytes, bytes], client.hgetall(keys.tournament("DONE")))
    assert any(name.startswith(b"f:") for name in short)
    client.flushall()
    xadd_events(client, keys.events, hands(1))
    drain(settings, client)  # the new chain's first commit: the archive's tournaments are marked lost
    assert client.smembers(keys.tournaments_lost) == {b"DONE", b"RUNNING"}
    assert showdown_main(["tournament", "restore"]) == 2
    capsys.readouterr()
    assert showdown_main(["tournament", "restore", "--all"]) == 0
    assert capsys.readouterr().out.endswith("2 tournaments restored\n")
    assert client.smembers(keys.tournaments_lost) == set()
    assert client.hgetall(keys.tournament("RUNNING")) == before["RUNNING"]
    book = read_book(client, keys, "DONE")
    assert book is not None
    assert orjson.dumps(book.standings("DONE")[0]) == orjson.dumps(_uninterrupted(done.lines, "DONE"))


def test_a_tournament_whose_ledger_is_back_before_a_worker_restores_is_not_marked_lost(
    client: redis.Redis, env: Settings
) -> None:
    settings = env.model_copy(update={"consumer": "w1", "block_ms": 20})
    keys = settings.keys("default")
    sim = _tournament_run()
    archiver = archive_all(settings, client)  # from the start: the workers trim no event it has not read
    publish(client, keys, sim.lines[:20])
    drain(settings, client)
    archiver.drain()
    client.flushall()
    rebuilt = rebuild(settings, "default", sim.tournament_id)  # restored by another hand before this worker's turn
    assert restore(client, keys, rebuilt, sim.tournament_id)
    xadd_events(client, keys.events, hands(1))
    drain(settings, client)
    assert read_reset(client, keys) is not None, "the worker restored the rest"
    assert client.smembers(keys.tournaments_lost) == set()


def test_health_audit_verify_and_the_gauge_name_the_reset_until_acknowledged(
    client: redis.Redis, env: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = env.model_copy(update={"consumer": "w1", "block_ms": 20, "heartbeat_file": tmp_path / "hb"})
    keys = settings.keys("default")
    xadd_events(client, keys.events, hands(4))
    drain(settings, client)
    archive_all(settings, client)
    client.flushall()
    xadd_events(client, keys.events, hands(2, tag="new"))
    worker = drain(settings, client)
    reset = read_reset(client, keys)
    assert reset is not None
    assert reset.epoch is not None
    heartbeat.write(settings.heartbeat_file)
    ok, lines = health(settings, client)
    assert ok, "the processes are healthy: a probe must not restart them"
    assert (
        lines[0] == f"degraded: shard default: {reset.text()}; 4 dedupe keys restored from the archive; what the "
        "old epoch settled after its archived seq is lost (acknowledge: `showdown audit verify --acknowledge-reset`)"
    )
    assert lines[1] == "the processes are healthy: 1 worker, every heartbeat fresh, Redis answers"
    heartbeat.write(env.heartbeat_file)
    capsys.readouterr()
    assert showdown_main(["health"]) == 0
    assert capsys.readouterr().err.startswith(f"degraded: shard default: {reset.text()};")
    worker.housekeeping.sampler.sample()
    assert worker.metrics.chain_restarted.labels("default")._value.get() == 1
    capsys.readouterr()
    assert showdown_main(["audit", "verify"]) == 0
    out = capsys.readouterr().out
    assert f"shard default: RESTARTED: {reset.text()} (not acknowledged)" in out
    assert showdown_main(["audit", "verify", "--acknowledge-reset"]) == 0
    assert "shard default: chain restart acknowledged" in capsys.readouterr().out
    ok, lines = health(settings, client)
    assert ok, lines
    assert lines[0] == "healthy: 1 worker, every heartbeat fresh, Redis answers", "acknowledged: no longer degraded"
    worker.housekeeping.sampler.sample()
    assert worker.metrics.chain_restarted.labels("default")._value.get() == 0


def test_a_real_restart_without_data_under_a_running_worker_restores_the_dedupe_before_the_new_chain_settles(
    make_settings: Any, tmp_path: Path
) -> None:
    with LocalRedis(appendfsync=None) as server:  # no AOF, no snapshots: a restart loses everything
        client = redis.Redis.from_url(server.url, protocol=2)
        settings = make_settings(server.url, archive_url=str(tmp_path / "archive"), backoff_max_s=0.1)
        keys = settings.keys("default")
        worker = Worker(settings, client)
        running = threading.Thread(target=worker.run)
        running.start()
        try:
            docs = hands(5)
            xadd_events(client, keys.events, docs[:4])
            wait_until(lambda: client.xlen(keys.results) == 4, what="four hands settled")
            archive_all(settings, client)
            server.stop()
            server.restart()
            xadd_events(client, keys.events, [docs[2], docs[4]])
            wait_until(lambda: client.xlen(keys.audit) == 2, what="the re-sent and the new hand decided")
        finally:
            worker.stop()
            running.join(30)
        assert [(r["hand_id"], r["outcome"]) for r in records(client, keys)] == [("h-2", "duplicate"),
                                                                                 ("h-4", "settled")]  # fmt: skip
        reset = read_reset(client, keys)
        assert reset is not None
        assert reset.archived_seq == 4
        client.close()


def test_after_redis_lost_its_data_a_copy_of_a_hand_archived_on_another_shard_is_refused_not_paid_again(
    client: redis.Redis, make_settings: Any, redis_url: str, tmp_path: Path
) -> None:
    """The cross-shard claims (``{registry}:hand:<id>``, routing.py) are lost with Redis too: the restore puts them
    back from the archive (every shard's hands), so a copy of an archived hand read by another shard after the
    loss is ``wrong_shard`` there, as before the loss; its tournaments are claimed again in the registry."""
    from showdown_service.decision.routing import hand_key, registry_key

    archive = str(tmp_path / "archive")
    both = make_settings(redis_url, consumer="archiver", shards="east,west", archive_url=archive)
    east, west = (make_settings(redis_url, consumer=f"w-{s}", shards=s, archive_url=archive) for s in ("east", "west"))
    hand = {**CASES[0], "hand_id": "H-1", "table_id": "table-a"}
    xadd_events(client, east.keys("east").events, [hand])
    xadd_events(client, west.keys("west").events, [{**CASES[1], "hand_id": "W-1"}])
    drain(east, client)
    drain(west, client)
    archive_all(both, client)
    assert client.get(hand_key("H-1")) == b"east"
    client.flushall()  # Redis restarted without its data: the registry's claims went with it
    xadd_events(client, west.keys("west").events, [{**hand, "table_id": "table-b"}])  # a corrected copy, routed west
    drain(west, client)
    got = [(r["hand_id"], r["outcome"], r["code"]) for r in records(client, west.keys("west"))]
    assert got == [("H-1", "rejected", "wrong_shard")], "never paid on a second shard"
    assert client.xlen(west.keys("west").results) == 0
    assert client.get(hand_key("H-1")) == b"east", "the claim put back names the shard that settled it"
    assert 0 < client.ttl(hand_key("H-1")) <= west.dedupe_ttl_s, "with what was left of its TTL"
    reset = client.hgetall(west.keys("west").audit_reset)
    assert reset[b"claims"] == b"2"
    assert client.hlen(registry_key()) == 0, "no tournament here to claim"


def test_after_redis_lost_its_data_a_jackpot_fund_goes_on_from_the_archive_never_from_its_seed(
    client: redis.Redis, make_settings: Any, redis_url: str, tmp_path: Path
) -> None:
    """Issue 39 ("kept in Redis like a tournament ledger (and archived; exactly once across kills and requeues)"):
    the restore writes each fund back as its archived results leave it, before the new chain's first commit; a
    re-sent bad beat is a duplicate and pays nothing again; the next hand finds the fund where the archive left
    it (before, it found none and declared it again at its seed: the fund paid out twice)."""
    settings = make_settings(redis_url, archive_url=str(tmp_path / "archive"))
    keys = settings.keys("default")
    xadd_events(client, keys.events, [ggpoker_kings(seed=1_000_000), bad_beat_hand()])
    drain(settings, client)
    archive_all(settings, client)
    kept = client.hgetall(keys.jackpot("ggpoker-bbj-usd"))
    assert kept[b"balance"] == b"862259"
    client.flushall()  # Redis restarted without its data
    again = ggpoker_kings(seed=1_000_000) | {"hand_id": "HD149101-next"}
    xadd_events(client, keys.events, [bad_beat_hand(), again])
    drain(settings, client)
    assert [(r["hand_id"], r["outcome"]) for r in records(client, keys)] == [("BB-1", "duplicate"),
                                                                             ("HD149101-next", "settled")]  # fmt: skip
    (result,) = [orjson.loads(fields[b"result"]) for _, fields in read_range(client, keys.results)]
    assert (result["jackpot"]["fund_before"], result["jackpot"]["fund_after"]) == (862_259, 862_459)
    fund = client.hgetall(keys.jackpot("ggpoker-bbj-usd"))
    assert {k: fund[k] for k in (b"seed", b"hands", b"dropped", b"payouts", b"paid", b"last_bad_beat")} == {
        b"seed": b"1000000", b"hands": b"3", b"dropped": b"500", b"payouts": b"1", b"paid": b"138041",
        b"last_bad_beat": b"BB-1",
    }  # fmt: skip
    assert fund[b"last_at"] == kept[b"last_at"]
    reset = client.hgetall(keys.audit_reset)
    assert reset[b"jackpots"] == b"1"


def test_archived_funds_that_do_not_follow_on_are_never_restored() -> None:
    """A hand that found its fund elsewhere than the hand before left it (a result missing from the archive, or
    edited): the restore refuses (the worker waits, as for an unreadable archive) rather than write a fund that
    does not add up."""
    first = {"jackpot": {"jackpot_id": "j", "program": "p", "drop": 100, "bad_beat": False,
                         "fund_before": 500, "fund_after": 600}}  # fmt: skip
    gap = {"jackpot": {**first["jackpot"], "fund_before": 700, "fund_after": 800}}
    rows = [("h1", "2026-11-29T00:00:00Z", orjson.dumps(first).decode())]
    assert fold_archived(rows)["j"].balance == 600
    with pytest.raises(InvariantViolation, match="hand h2 found the fund at 700, the one before left 600"):
        fold_archived([*rows, ("h2", "2026-11-29T00:00:01Z", orjson.dumps(gap).decode())])
