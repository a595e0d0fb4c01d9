"""Tournaments through the worker: the ledger moves in the same commit as the hand, so places, prizes and bounties
are exact and written once, whatever the batch sizes, the workers, a kill or a re-delivery."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, cast

import fakeredis
import orjson
import pytest
import redis

from showdown_messages import ShowdownResult
from showdown_messages.publish import events_stream, publish_tournament, shard_for
from showdown_messages.publish import publish as publish_event
from showdown_service.decision import audit
from showdown_service.decision.tournament_replay import TournamentReplay
from showdown_service.infra.config import Settings, ShardKeys
from showdown_service.infra.streams import read_range
from showdown_service.testing.simulate import Simulation, simulate
from showdown_service.worker import loop as worker_module
from showdown_service.worker.ledger import read_book
from showdown_service.worker.loop import Worker
from tests.helpers import move_inboxes, wait_until
from tests.tournament_builders import all_in, chips, closed, deal, entry, opened

SHOWDOWN = [sys.executable, "-m", "showdown_service"]


def publish(client: Any, keys: ShardKeys, lines: list[bytes] | list[str]) -> None:
    """XADD each line as a stream entry: ``{"event": ...}`` lines in field ``event``, tournament messages in
    field ``tournament`` (as a producer does)."""
    pipe = client.pipeline(transaction=False)
    for line in lines:
        doc = orjson.loads(line)
        ((field, body),) = doc.items()
        pipe.xadd(keys.events, {field: orjson.dumps(body)})
    pipe.execute()


def drain(worker: Worker) -> None:
    worker.run(until_idle=True)


def replayed(lines: list[bytes] | list[str], tournament_id: str) -> list[dict[str, Any]]:
    run = TournamentReplay()
    run.feed([line if isinstance(line, str) else line.decode() for line in lines])
    return run.book.standings(tournament_id)[0]


def placements(client: Any, keys: ShardKeys) -> list[dict[str, Any]]:
    return [orjson.loads(f[b"placement"]) for _, f in read_range(client, keys.standings)]


def test_the_worker_keeps_a_generated_tournament_exactly_as_the_replay_does(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    sim = simulate(7, players=40, reentries=6, stack=2000, rebuys=8)
    settings = make_settings(batch_size=37)
    keys = settings.keys("default")
    publish(fake, keys, sim.lines)
    drain(Worker(settings, fake))
    expected = replayed(sim.lines, sim.tournament_id)
    book = read_book(fake, keys, sim.tournament_id)
    assert book is not None
    assert book.standings(sim.tournament_id)[0] == expected
    written = placements(fake, keys)
    assert sorted(written, key=json.dumps) == sorted(expected, key=json.dumps), "one placement per entry, no more"
    assert fake.xlen(keys.dead) == 0
    records = [orjson.loads(f[b"audit"]) for _, f in read_range(fake, keys.audit)]
    assert len(records) == len(sim.lines)
    assert sum(1 for r in records if r.get("standings_sha256")) >= 1
    verdict = audit.verify(audit.read_stream(fake, keys.audit), audit.Head.decode(fake.get(keys.audit_head)))
    assert verdict.holds


def test_the_worker_keeps_a_tournament_with_a_deal_and_a_mystery_stage_exactly_as_the_replay_does(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    sim = simulate(12, players=30, reentries=4, stack=2000, paid_fraction=0.3, deal_at=4, mystery_from=7)
    assert sim.deals == 1
    assert sim.envelopes_drawn >= 3
    settings = make_settings(batch_size=23)
    keys = settings.keys("default")
    publish(fake, keys, sim.lines)
    drain(Worker(settings, fake))
    expected = replayed(sim.lines, sim.tournament_id)
    assert all("mystery_bounty_cash" in p for p in expected)
    book = read_book(fake, keys, sim.tournament_id)
    assert book is not None
    assert book.standings(sim.tournament_id)[0] == expected
    assert sorted(placements(fake, keys), key=json.dumps) == sorted(expected, key=json.dumps)
    assert fake.xlen(keys.dead) == 0
    left = book.envelopes_left(sim.tournament_id)
    assert sum(p["mystery_bounty_cash"] for p in expected) + sum(a * c for a, c in left.items()) == sim.mystery_pool


def test_a_refused_deal_or_envelope_leaves_no_trace_and_its_corrected_version_is_applied(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    mystery = {"from_entries_left": 3, "envelopes": [{"amount": 500, "count": 2}]}
    bad_hand = all_in("h2", [(1, "a", 2000, 1000), (3, "c", 1000, 1000)], mystery=[(3, 7)])
    good_hand = all_in("h2", [(1, "a", 2000, 1000), (3, "c", 1000, 1000)], mystery=[(3, 500)])
    publish(fake, keys, [opened(payouts=[600, 300, 100], mystery_bounties=mystery), entry("a"), entry("b"),
                         entry("c"), entry("d"), closed(), all_in("h1", [(1, "a", 1000, 1000), (4, "d", 1000, 1000)]),
                         deal("icm", ["a", "b"]), deal("icm", ["a", "b", "c"], 100), bad_hand])  # fmt: skip
    drain(Worker(settings, fake))
    assert [f[b"code"] for _, f in read_range(fake, keys.dead)] == [b"deal_entries", b"mystery_bounty_envelope"]
    assert fake.get(keys.seen("h2")) is None, "the refused hand is not remembered as settled"
    publish(fake, keys, [good_hand])
    drain(Worker(settings, fake))
    assert fake.xlen(keys.dead) == 2
    book = read_book(fake, keys, "T")
    assert book is not None
    ledger = book.ledgers["T"]
    assert ledger is not None
    assert ledger.deal is not None
    finished, playing = book.standings("T")
    c = next(p for p in finished if p["player_id"] == "c")
    assert c["prize"] == dict(ledger.deal.amounts)[("c", 1)]
    assert {e.player_id: e.mystery_cash for e in playing} == {"a": 500, "b": 0}
    assert book.envelopes_left("T") == {500: 1}


def test_a_hand_the_ledger_refuses_is_dead_lettered_naming_the_seat_and_both_stacks(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    publish(fake, keys, [opened(payouts=[100]), entry("a"), entry("b"), closed(),
                         all_in("h1", [(1, "a", 1000, 100), (2, "b", 999, 100)])])  # fmt: skip
    drain(Worker(settings, fake))
    ((_, dead),) = read_range(fake, keys.dead)
    assert dead[b"code"] == b"stack_mismatch"
    assert b"seat 2" in dead[b"message"]
    assert b"999" in dead[b"message"]
    assert b"1000" in dead[b"message"]
    assert fake.xlen(keys.results) == 0, "a refused tournament hand publishes no result"
    assert fake.get(keys.seen("h1")) is None, "nor is it remembered as settled: the corrected hand may come"


def test_a_hand_sent_twice_moves_the_ledger_once(fake: fakeredis.FakeRedis, make_settings: Any) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    hand = all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)])
    publish(fake, keys, [opened(payouts=[100, 50]), entry("a"), entry("b"), entry("c"), closed(), hand, hand])
    drain(Worker(settings, fake))
    assert [p["player_id"] for p in placements(fake, keys)] == ["b"]
    book = read_book(fake, keys, "T")
    assert book is not None
    assert [(e.player_id, e.chips) for e in book.standings("T")[1]] == [("a", 2000), ("c", 1000)]


def test_a_knockout_hand_without_bounties_reports_the_bounty_from_the_ledger(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    publish(fake, keys, [opened(payouts=[100, 50], bounty_cash_ppm=500_000), entry("a", bounty=3979),
                         entry("b", bounty=3979), entry("c", bounty=3979), closed(),
                         all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)])])  # fmt: skip
    drain(Worker(settings, fake))
    ((_, fields),) = read_range(fake, keys.results)
    result = orjson.loads(fields[b"result"])
    assert result["bounties"] == [{"seat": 2, "player_id": "b", "bounty": 3979, "pot": 0, "winners": [
        {"seat": 1, "player_id": "a", "amount": 3979, "cash": 1990, "added": 1989}]}]  # fmt: skip


def test_a_result_names_each_mystery_bounty_envelope_the_hand_paid(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    """Issue 42 item 6: the result's `mystery_bounties` was absent (null to a reader) though the hand paid an
    envelope: only the placement's total said so."""
    settings = make_settings()
    keys = settings.keys("default")
    pool = {"from_entries_left": 3, "envelopes": [{"amount": 6000, "count": 1}, {"amount": 1000, "count": 1}]}
    publish(fake, keys, [opened(payouts=[700, 300], mystery_bounties=pool), entry("a"), entry("b"), entry("c"),
                         closed(), all_in("h1", [(1, "a", 1000, 1000), (3, "c", 1000, 1000)], mystery=[(3, 6000)]),
                         all_in("h2", [(1, "a", 2000, 500), (2, "b", 1000, 500)])])  # fmt: skip
    drain(Worker(settings, fake))
    first, second = (orjson.loads(fields[b"result"]) for _, fields in read_range(fake, keys.results))
    assert first["mystery_bounties"] == [{"seat": 3, "player_id": "c", "bounty": 6000, "pot": 0, "winners": [
        {"seat": 1, "player_id": "a", "amount": 6000, "cash": 6000, "added": 0}]}]  # fmt: skip
    assert "mystery_bounties" not in second, "a hand that paid none: absent, as its bounties are"
    ShowdownResult.model_validate(first)
    (placed,) = placements(fake, keys)
    assert (placed["player_id"], placed["mystery_bounty_cash"]) == ("c", 0)


def test_tournaments_sharing_a_shard_stay_independent(fake: fakeredis.FakeRedis, make_settings: Any) -> None:
    one = simulate(1, tournament_id="MTT-A", players=20, reentries=2, stack=1000)
    two = simulate(2, tournament_id="MTT-B", players=25, reentries=3, stack=1000)
    lines = [line for pair in zip(one.lines, two.lines, strict=False) for line in pair]
    lines += one.lines[len(two.lines) :] + two.lines[len(one.lines) :]
    settings = make_settings(batch_size=50)
    keys = settings.keys("default")
    publish(fake, keys, lines)
    drain(Worker(settings, fake))
    for sim in (one, two):
        book = read_book(fake, keys, sim.tournament_id)
        assert book is not None
        assert book.standings(sim.tournament_id)[0] == replayed(sim.lines, sim.tournament_id)


def _spawn(env: dict[str, str], consumer: str, **extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*SHOWDOWN, "worker"], env={**env, "SHOWDOWN_CONSUMER": consumer, **extra}, stdout=subprocess.DEVNULL
    )


def test_two_workers_one_killed_mid_run_settle_a_large_tournament_exactly_once(
    client: redis.Redis, worker_env: dict[str, str], tmp_path: Path
) -> None:
    """Hundreds of entries, many tables, re-entries, rebuys, hand-for-hand on the bubble, PKO; two worker processes on
    the shard, one SIGKILLed mid-run: every place, prize and bounty exact, none twice."""
    sim: Simulation = simulate(11, players=300, reentries=40, stack=5000, rebuys=30, deal_at=4, mystery_from=12)
    assert sim.entries >= 300
    assert sim.rounds >= 1, "hand-for-hand on the bubble"
    assert sim.purchases >= 10, "rebuys and add-ons"
    assert sim.deals == 1, "a deal at the final table"
    assert sim.envelopes_drawn >= 5, "a mystery-bounty stage"
    keys = Settings().keys("default")
    publish(client, keys, sim.lines)
    fast = {"SHOWDOWN_BATCH_SIZE": "50", "SHOWDOWN_CLAIM_IDLE_MS": "500"}
    doomed = _spawn(worker_env, "doomed", **fast)
    steady = _spawn({**worker_env, "SHOWDOWN_HEARTBEAT_FILE": str(tmp_path / "beat-2")}, "steady", **fast)
    try:
        wait_until(lambda: client.xlen(keys.audit) > len(sim.lines) // 4, what="a quarter of the tournament")
        doomed.kill()
        doomed.wait()
        wait_until(lambda: client.xlen(keys.audit) == len(sim.lines), what="every line audited", timeout=180)
    finally:
        for worker in (doomed, steady):
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
                worker.wait(30)
    expected = replayed(sim.lines, sim.tournament_id)
    written = placements(client, keys)
    assert Counter(json.dumps(p, sort_keys=True) for p in written) == Counter(
        json.dumps(p, sort_keys=True) for p in expected
    ), "every entry placed exactly once, as the replay places it"
    out = subprocess.run(
        [*SHOWDOWN, "tournament", "standings", sim.tournament_id, "--json"],
        env=worker_env,
        capture_output=True,
        check=True,
    )
    assert json.loads(out.stdout) == expected
    assert client.xlen(keys.dead) == 0
    assert client.xlen(keys.results) == sim.hands
    assert client.exists(keys.tournaments_open) == 0, "the finished tournament left the open set (killed: no stale id)"
    verdict = audit.verify(audit.read_stream(client, keys.audit), audit.Head.decode(client.get(keys.audit_head)))
    assert verdict.holds, verdict.first_break


def test_a_tournaments_hands_and_messages_go_to_the_shard_of_its_id_whatever_the_table(
    fake: fakeredis.FakeRedis,
) -> None:
    shards = ("s1", "s2", "s3", "s4", "s5")
    home = shard_for("MTT-9", shards)
    publish_tournament(fake, json.loads(opened("MTT-9"))["tournament"], shards=shards)
    for table in ("t1", "t2", "t3", "t4", "t5", "t6"):
        event = json.loads(all_in(f"h-{table}", [(1, "a", 100, 10), (2, "b", 100, 10)], tid="MTT-9", table=table))
        publish_event(fake, event["event"], shards=shards)
    move_inboxes(fake, shards)
    assert {s: fake.xlen(events_stream(s)) for s in shards if fake.xlen(events_stream(s))} == {home: 7}
    ((_, fields), *_) = read_range(fake, events_stream(home))
    assert set(fields) == {b"tournament"}


def test_showdown_publish_sends_tournament_messages_to_the_tournaments_shard(
    redis_url: str, client: redis.Redis, tmp_path: Path
) -> None:
    shards = "s1,s2,s3"
    lines = [opened("MTT-4"), entry("a", tid="MTT-4"), closed("MTT-4"),
             all_in("h1", [(1, "a", 1000, 10)], tid="MTT-4", table="x")]  # fmt: skip
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    env = {"SHOWDOWN_REDIS_URL": redis_url, "SHOWDOWN_SHARDS": shards, "PATH": "/usr/bin:/bin"}
    out = subprocess.run([*SHOWDOWN, "publish", str(path)], env=env, capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    home = shard_for("MTT-4", shards.split(","))
    move_inboxes(client, shards.split(","))
    assert client.xlen(events_stream(home)) == 4


def test_an_entry_holding_both_a_hand_and_a_tournament_message_is_dead_lettered_not_half_read(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    hand = json.loads(all_in("h1", [(1, "a", 1000, 10), (2, "b", 1000, 10)], tid=None))["event"]
    fake.xadd(keys.events, {"event": json.dumps(hand), "tournament": json.loads(opened())["tournament"]["type"]})
    drain(Worker(settings, fake))
    ((_, dead),) = read_range(fake, keys.dead)
    assert dead[b"code"] == b"ambiguous_entry"
    assert fake.xlen(keys.results) == 0


def test_showdown_publish_reads_pretty_printed_tournament_messages_and_refuses_a_key_given_twice(
    redis_url: str, client: redis.Redis, tmp_path: Path
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(json.loads(opened("MTT-5")), indent=2) + "\n" + entry("a", tid="MTT-5")[:-2]
                    + ', "stack": 5}}\n')  # fmt: skip
    env = {"SHOWDOWN_REDIS_URL": redis_url, "PATH": "/usr/bin:/bin"}
    out = subprocess.run([*SHOWDOWN, "publish", str(path)], env=env, capture_output=True, text=True, check=False)
    assert out.returncode == 1
    assert json.loads(out.stderr.splitlines()[0])["code"] == "duplicate_key"
    move_inboxes(client)
    assert client.xlen(events_stream("default")) == 1


def _held(worker: Worker) -> dict[str, Any]:
    """The ledgers the worker holds between commits on the default shard (by tournament id)."""
    _, book = worker._books["default"]
    return dict(book.ledgers)


def test_a_worker_lets_go_of_a_finished_tournament_and_reads_it_again_for_a_late_hand(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    worker = Worker(settings, fake)
    publish(fake, keys, [opened(payouts=[100]), entry("a"), entry("b"), closed(), opened(tid="U"), entry("x", tid="U"),
                         all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)])])  # fmt: skip
    drain(worker)
    assert [p["place"] for p in placements(fake, keys)] == [2, 1]
    assert set(_held(worker)) == {"U"}, "the finished tournament is not held; the one still running is"
    publish(fake, keys, [all_in("h2", [(1, "a", 2000, 100), (2, "c", 1000, 100)])])
    drain(worker)
    ((_, dead),) = read_range(fake, keys.dead)
    assert dead[b"code"] == b"tournament_over"


def test_a_tournament_new_to_the_worker_is_read_alone_the_ones_it_holds_are_not_read_again(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    worker = Worker(settings, fake)
    publish(fake, keys, [opened(payouts=[100]), entry("a"), entry("b")])
    drain(worker)
    read: list[list[str]] = []
    load = worker._load_script

    def recorded(*, keys: list[str], args: list[str]) -> Any:
        read.append(keys)
        return load(keys=keys, args=args)

    worker._load_script = recorded  # type: ignore[assignment]
    publish(fake, keys, [opened(tid="U"), entry("x", tid="U"), entry("c")])
    drain(worker)
    assert read == [[keys.audit_head, keys.tournaments_lost, keys.tournament("U")]]
    assert set(_held(worker)) == {"T", "U"}
    book = read_book(fake, keys, "T")
    assert book is not None
    assert [e.player_id for e in book.standings("T")[1]] == ["a", "b", "c"]


def test_a_worker_forgets_unopened_tournaments_beyond_its_bound(
    fake: fakeredis.FakeRedis, make_settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker_module, "KEPT_UNOPENED", 2)
    settings = make_settings()
    keys = settings.keys("default")
    worker = Worker(settings, fake)
    publish(fake, keys, [opened(payouts=[100]), entry("a")])
    publish(fake, keys, [all_in(f"h{k}", [(1, "p", 1000, 10), (2, "q", 1000, 10)], tid=f"cash-{k}") for k in range(2)])
    drain(worker)
    assert set(_held(worker)) == {"T", "cash-0", "cash-1"}, "within the bound: remembered as not opened"
    publish(fake, keys, [all_in("h2", [(1, "p", 1000, 10), (2, "q", 1000, 10)], tid="cash-2")])
    drain(worker)
    assert set(_held(worker)) == {"T"}
    assert fake.xlen(keys.results) == 3, "hands of tournaments never opened settle as any hand"


def test_a_rebuy_through_the_worker_is_kept_in_the_ledger_and_the_next_hand_is_checked_against_it(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings(batch_size=3)
    keys = settings.keys("default")
    publish(fake, keys, [opened(payouts=[100]), entry("a"), entry("b"),
                         all_in("h1", [(1, "a", 1000, 600), (2, "b", 1000, 600)]), chips("b", 1000),
                         chips("b", 1000), all_in("h2", [(1, "a", 1600, 100), (2, "b", 1400, 100)])])  # fmt: skip
    drain(Worker(settings, fake))
    assert fake.xlen(keys.dead) == 0
    book = read_book(fake, keys, "T")
    assert book is not None
    ledger = book.ledgers["T"]
    assert ledger is not None
    b = ledger.entries[("b", 1)]
    assert (b.chips, b.bought) == (1300, ((1000, 0),)), "bought once, though sent twice; read back from Redis"
    outcomes = [orjson.loads(f[b"audit"])["outcome"] for _, f in read_range(fake, keys.audit)]
    assert outcomes.count("duplicate") == 1


def test_a_commit_waiting_for_an_earlier_entry_held_elsewhere_is_planned_again_only_once_that_entry_is_done(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    keys = make_settings().keys("default")
    publish(fake, keys, [opened(payouts=[100]), entry("a"), entry("b")])
    other = Worker(make_settings(consumer="w2", batch_size=1), fake)
    other.prepare_groups()
    ((_, held),) = other.pipeline.read(block=None)  # w2 holds the `open`, not yet committed
    waiting = Worker(make_settings(consumer="w1"), fake)
    plans = 0
    plan = waiting.planning.plan_at

    def counted(*args: Any) -> Any:
        nonlocal plans
        plans += 1
        return plan(*args)

    waiting.planning.plan_at = counted  # type: ignore[method-assign, assignment]
    thread = threading.Thread(target=waiting.run, kwargs={"until_idle": True, "timeout_s": 30})
    thread.start()
    time.sleep(0.3)  # a dozen backoffs (2 ms doubling): w1 waits, asking Redis only whether the `open` is done
    assert thread.is_alive()
    assert plans == 1
    other.process(keys, held)
    thread.join(10)
    assert not thread.is_alive()
    assert plans == 2, "planned again once, after the blocking entry was committed"
    assert [orjson.loads(f[b"audit"])["outcome"] for _, f in read_range(fake, keys.audit)] == ["settled"] * 3


def test_a_dead_lettered_tournament_message_is_requeued_as_one_and_applied(
    client: redis.Redis, worker_env: dict[str, str], make_settings: Any
) -> None:
    settings = make_settings(url=worker_env["SHOWDOWN_REDIS_URL"])
    keys = settings.keys("default")
    worker = Worker(settings, client)
    publish(client, keys, [entry("early"), opened(payouts=[100]), entry("a")])  # the first before its `open`
    drain(worker)
    ((dead_id, dead),) = read_range(client, keys.dead)
    assert dead[b"code"] == b"tournament_not_open"
    requeue = [*SHOWDOWN, "dead-letters", "--requeue", dead_id.decode()]
    done = subprocess.run(requeue, env=worker_env, capture_output=True, text=True, check=True)
    assert "(tournament message)" in done.stdout
    drain(worker)
    assert client.xlen(keys.dead) == 1, "applied this time, not refused again"
    book = read_book(client, keys, "T")
    assert book is not None
    assert sorted(e.player_id for e in book.standings("T")[1]) == ["a", "early"]
    broken = cast(bytes, client.xadd(keys.dead, {"code": "x", "raw": b'{"type": "entry", "tournament_id": "T"}'}))
    refused = subprocess.run([*SHOWDOWN, "dead-letters", "--requeue", broken.decode()], env=worker_env,
                             capture_output=True, text=True, check=False)  # fmt: skip
    assert refused.returncode == 1
    assert "the tournament message is still invalid" in refused.stderr
