"""The reduced chaos run: workers, Redis and the network fail, and Redis refuses writes, while real hands settle;
the books must balance."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import orjson
import redis

from bench.chaos import (
    GROUP,
    MAX_DELIVERIES,
    REFUSALS,
    ChaosReport,
    Expectation,
    _keep_if_failed,
    _verify,
    run,
    run_cluster,
)
from showdown_service.infra.connection import connect
from showdown_service.worker.loop import Worker
from tests.helpers import REAL_SHOWDOWNS, read_cases, xadd_events

CASES = list(read_cases(REAL_SHOWDOWNS))


def test_no_hand_is_lost_duplicated_wrong_or_poison_through_crashes_outages_and_refused_writes() -> None:
    report = run(5_000, 3, rate=1_000.0, seed=11, timeout_s=240, log=lambda _: None)
    problems = report.lost + report.unread + report.vanished + report.duplicated + report.wrong
    assert problems == [], report.table() + "\n" + "\n".join(problems[:20])
    assert report.pending == 0
    assert report.chain_holds
    assert report.chain_records == report.events, "the chain holds every entry"
    assert report.tournament_lines > 100, "a whole tournament rode through the chaos too"
    assert report.events == 5_000 + report.tournament_lines
    assert report.audit_records == report.events
    assert report.tournament_exact, "its standings are the in-process replay's, every entry placed once"
    assert report.tournament_deals == 1, "with a deal at the final table"
    assert report.tournament_envelopes > 0, "and a mystery-bounty stage"
    assert report.outcomes["settled"] > 4_500
    assert report.outcomes["duplicate"] > 0
    assert report.outcomes["rejected"] > 0
    assert (report.kills, report.sigterms, report.redis_restarts, report.network_cuts) == (3, 1, 1, 1)
    # the known gap: redis-py re-sends a pipeline whose reply was lost; it must change nothing
    assert report.replies_lost > 0
    assert report.resent_after_lost_reply > 0, "redis-py sent a commit again after its reply was lost"
    # whatever the first copy did, the copy changed nothing: the counts above (no duplicate, every entry once,
    # the chain holds) include it
    assert report.redis_errors > 0, "the workers rode out real outages"
    assert report.refusals == dict.fromkeys(REFUSALS, 1)
    assert report.poison == 0, "a refused write is never a failure of settling"
    assert report.most_deliveries > MAX_DELIVERIES, "re-delivered past the limit, and still not poison"
    assert {"OOM", "READONLY", "NOREPLICAS", "BUSY"} <= set(report.waits), report.waits
    assert report.producer_retries > 0, "the producer was refused too, and re-sent"


def test_on_a_cluster_no_hand_is_lost_duplicated_or_wrong_when_a_master_is_killed_mid_run() -> None:
    """The cluster case: three masters with a replica each, six shards; the master of a shard is SIGKILLed halfway,
    its replica takes over, it comes back as a replica; a worker is SIGKILLed too. The producer and the workers WAIT
    for a replica, so the failover loses nothing they counted."""
    said: list[str] = []
    report = run_cluster(2_000, 1, rate=500.0, seed=11, timeout_s=180, log=said.append)
    problems = report.lost + report.unread + report.vanished + report.duplicated + report.wrong
    assert problems == [], report.table() + "\n" + "\n".join(problems[:20])
    assert report.pending == 0
    assert report.chain_holds, "every shard's chain holds"
    assert report.chain_records == report.events, "and together they hold every entry"
    assert report.audit_records == 2_000
    assert report.outcomes["settled"] > 1_800
    assert report.outcomes["duplicate"] > 0
    assert report.outcomes["rejected"] > 0
    assert (report.kills, report.redis_restarts) == (1, 1)
    (when,) = [int(line.split()[0].replace(",", "")) for line in said if line.endswith("published: master")]
    assert 0 < when < 2_000, "the master died mid-run, with events still to publish"
    assert report.poison == 0


def test_the_books_tell_entries_not_yet_read_and_xadds_redis_lost_from_entries_lost(
    client: redis.Redis, make_settings: Any, redis_url: str
) -> None:
    """A run whose drain timed out reads the books mid-work: entries no worker has read yet are not lost, their
    missing records do not make outcomes wrong, and a chain that verifies is not BROKEN for being short. An XADD that
    Redis no longer has is told apart too; only an entry a worker was handed and acked without a record is lost."""
    settings = make_settings(redis_url, consumer="w1")
    keys = settings.keys("default")
    events = [{**CASES[i]["event"], "hand_id": f"books-{i}"} for i in range(10)]
    ids = xadd_events(client, keys.events, [orjson.dumps(e) for e in events[:5]])
    worker = Worker(settings, connect(settings))
    worker.prepare_groups()
    worker.step()
    worker.flush()
    assert client.xlen(keys.audit) == 5
    ids += xadd_events(client, keys.events, [orjson.dumps(events[5])])  # handed to a worker, acked, no record
    handed: bytes = client.xreadgroup(GROUP, "rogue", {keys.events: ">"}, count=1)[0][1][0][0]  # type: ignore[index,assignment]
    client.xack(keys.events, GROUP, handed)
    ids += xadd_events(client, keys.events, [orjson.dumps(e) for e in events[6:9]])  # nobody has read them yet
    ms, _ = ids[8].decode().split("-")
    ids.append(f"{int(ms) + 1}-0".encode())  # the producer was told it was added; Redis lost it (never has it here)
    entry_ids = [i.decode() for i in ids]
    expected = [Expectation(f"books-{i}", "settled", award=CASES[i]["expected_award"]) for i in range(10)]
    report = ChaosReport(events=10)
    _verify(client, [keys], entry_ids, expected, report)
    assert report.lost == [entry_ids[5]]
    assert report.unread == entry_ids[6:9]
    assert report.vanished == [entry_ids[9]]
    assert report.xadds_missing == 1
    assert report.wrong == [], "an entry without a record has no outcome to be wrong"
    assert report.chain_holds, "the five records chain"
    assert report.chain_records == 5
    assert not report.passed
    table = report.table()
    assert "5 short of the entries" in table
    assert "BROKEN" not in table


def test_a_failed_run_keeps_its_logs_and_data_a_passed_one_keeps_nothing(tmp_path: Path) -> None:
    workdir = tmp_path / "run"
    (workdir / "redis").mkdir(parents=True)
    (workdir / "w0.jsonl").write_text('{"event": "batch"}\n')
    (workdir / "redis" / "appendonly.aof").write_text("*1\r\n")
    failed = ChaosReport(events=1, lost=["1-1"])
    _keep_if_failed(failed, workdir)
    kept = Path(failed.kept)
    try:
        assert (kept / "w0.jsonl").read_text() == '{"event": "batch"}\n'
        assert (kept / "redis" / "appendonly.aof").exists()
        assert failed.kept in failed.table()
    finally:
        shutil.rmtree(kept)
    passed = ChaosReport(events=0, tournament_exact=True, chain_holds=True)
    assert passed.passed
    _keep_if_failed(passed, workdir)
    assert passed.kept == ""
