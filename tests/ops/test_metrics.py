"""The worker's metrics against what its streams hold: dead letters by code, tournament messages by type and
outcome, placements and the money they were paid, tournaments opened and finished; the sampled stream lengths and
Redis memory; a sample Redis refuses; and the audit verdict `showdown audit verify --metrics-file` writes."""

from __future__ import annotations

import collections
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis
import structlog

from showdown_service.cli.commands import main
from showdown_service.infra.config import Settings
from showdown_service.ops.metrics import Metrics
from showdown_service.ops.sampling import LISTS, STREAMS, Sampler
from showdown_service.testing.simulate import simulate
from showdown_service.worker.loop import Worker
from tests.helpers import xadd_events
from tests.tournament_builders import opened
from tests.worker.test_tournament_worker import drain, publish

REFUSED = ["{not json", '{"hand_id": 7}', "[]"]


def value(metrics: Metrics, name: str, **labels: str) -> float:
    """The sample ``name`` with exactly ``labels`` (0 when there is none)."""
    found = metrics.registry.get_sample_value(name, labels)
    return 0.0 if found is None else found


def samples(metrics: Metrics, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    return {
        tuple(sorted(s.labels.items())): s.value
        for family in metrics.registry.collect()
        for s in family.samples
        if s.name == name
    }


def test_dead_letters_tournament_messages_placements_and_money_are_counted_as_the_streams_hold_them(
    fake: Any, make_settings: Any
) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    sim = simulate(3, players=12, reentries=2, stack=500, mystery_from=5)
    publish(fake, keys, sim.lines)
    xadd_events(fake, keys.events, REFUSED)
    metrics = Metrics()
    drain(Worker(settings, fake, metrics=metrics))

    dead = collections.Counter(fields[b"code"].decode() for _, fields in fake.xrange(keys.dead))
    assert sum(dead.values()) >= len(REFUSED)
    counted = {dict(labels)["code"]: n for labels, n in samples(metrics, "showdown_dead_letters_total").items()}
    assert counted == dead

    types = collections.Counter(
        orjson.loads(line)["tournament"]["type"] for line in sim.lines if b'"tournament"' in line
    )
    applied = {
        dict(labels)["type"]: n
        for labels, n in samples(metrics, "showdown_tournament_messages_total").items()
        if dict(labels)["outcome"] == "applied"
    }
    assert applied == types, "every message of the simulated tournament applied, by type"

    placements = [orjson.loads(fields[b"placement"]) for _, fields in fake.xrange(keys.standings)]
    assert placements, "the tournament placed its entries"
    assert value(metrics, "showdown_placements_total", shard="default") == len(placements)
    assert value(metrics, "showdown_prizes_paid_minor_units_total", shard="default") == sum(
        p["prize"] for p in placements
    )
    assert value(metrics, "showdown_bounties_paid_minor_units_total", shard="default") == sum(
        p["bounty_cash"] for p in placements
    )
    assert value(metrics, "showdown_bounties_paid_minor_units_total", shard="default") > 0
    assert value(metrics, "showdown_mystery_bounties_paid_minor_units_total", shard="default") == sum(
        p.get("mystery_bounty_cash", 0) for p in placements
    )
    assert value(metrics, "showdown_mystery_bounties_paid_minor_units_total", shard="default") > 0
    assert value(metrics, "showdown_tournaments_opened_total", shard="default") == 1
    assert value(metrics, "showdown_tournaments_finished_total", shard="default") == 1


def test_a_refused_tournament_message_is_counted_by_its_type_as_refused(fake: Any, make_settings: Any) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    entry = {"schema_version": 1, "type": "entry", "tournament_id": "never-opened", "player_id": "p1", "entry": 1,
             "stack": 1000}  # fmt: skip
    fake.xadd(keys.events, {"tournament": json.dumps(entry)})
    metrics = Metrics()
    drain(Worker(settings, fake, metrics=metrics))
    ((_, fields),) = fake.xrange(keys.dead)
    code = fields[b"code"].decode()
    assert value(metrics, "showdown_tournament_messages_total", shard="default", type="entry", outcome="refused") == 1
    assert value(metrics, "showdown_dead_letters_total", shard="default", code=code) == 1


def test_housekeeping_samples_each_streams_length_and_the_nodes_memory(
    client: redis.Redis, redis_url: str, make_settings: Any
) -> None:
    settings = make_settings(redis_url)
    keys = settings.keys("default")
    xadd_events(client, keys.events, REFUSED)
    metrics = Metrics()
    worker = Worker(settings, redis.Redis.from_url(redis_url, protocol=2), metrics=metrics)
    drain(worker)
    worker.housekeeping.next_gauges = 0.0  # the next step samples (every 5 s otherwise)
    worker.step()  # one pass, deliberately: the one that samples
    for stream in STREAMS:
        expected = client.xlen(getattr(keys, stream)) if client.exists(getattr(keys, stream)) else 0
        assert value(metrics, "showdown_stream_length_entries", shard="default", stream=stream) == expected, stream
    assert value(metrics, "showdown_stream_length_entries", shard="default", stream="dead") == len(REFUSED)
    assert value(metrics, "showdown_stream_length_entries", shard="default", stream="inbox") == 0, "moved: empty"
    memory = client.info("memory")
    assert value(metrics, "showdown_redis_memory_used_bytes", shard="default") > 0
    assert value(metrics, "showdown_redis_memory_max_bytes", shard="default") == memory["maxmemory"]
    assert value(metrics, "showdown_samples_total", outcome="ok") >= 1
    assert value(metrics, "showdown_heartbeat_timestamp_seconds") > 0


def test_the_producers_inbox_not_yet_moved_is_sampled_as_stream_inbox(
    client: redis.Redis, redis_url: str, make_settings: Any
) -> None:
    """h24b's inbox list (RPUSH by producers, moved into events by the workers): its length is the backlog the
    ShowdownInboxBacklog alert watches."""
    keys = make_settings(redis_url).keys("default")
    client.rpush(keys.inbox, *(f"event {{}} {i}" for i in range(7)))
    metrics = Metrics()
    Sampler(client, {"default": keys}, metrics, structlog.get_logger()).sample()
    assert LISTS == ("inbox",)
    assert value(metrics, "showdown_stream_length_entries", shard="default", stream="inbox") == 7
    assert value(metrics, "showdown_stream_length_entries", shard="default", stream="events") == 0
    assert value(metrics, "showdown_samples_total", outcome="ok") == 1


def test_a_workers_tournament_counters_exist_at_zero_for_its_shards_before_any_tournament(
    client: redis.Redis, redis_url: str, make_settings: Any
) -> None:
    """Prometheus's increase() counts nothing for a series' first sample: counters first seen at 1 would lose the
    first tournament of every worker's life (docs/operations.md, "Open tournaments")."""
    metrics = Metrics()
    Worker(make_settings(redis_url, shards=["default", "t1"]), client, metrics=metrics)
    for shard in ("default", "t1"):
        for name in ("showdown_tournaments_opened_total", "showdown_tournaments_finished_total",
                     "showdown_placements_total", "showdown_prizes_paid_minor_units_total"):  # fmt: skip
            assert metrics.registry.get_sample_value(name, {"shard": shard}) == 0, (name, shard)


def test_two_tournaments_opened_and_one_finished_leave_one_in_the_open_set_and_the_gauge(
    client: redis.Redis, redis_url: str, make_settings: Any
) -> None:
    """The exact open-tournaments gauge (docs/operations.md, "Open tournaments"): the commit script SADDs a ledger's
    tournament while open and SREMs it once the winner is placed; the sampler reads SCARD. A commit sent again (a
    client re-send, a re-delivery) changes nothing: the set is idempotent and the script refuses entries no longer
    pending."""
    settings = make_settings(redis_url)
    keys = settings.keys("default")
    finished = simulate(4, tournament_id="MTT-DONE", players=9, stack=500)
    publish(client, keys, [*finished.lines, opened("MTT-OPEN").encode()])
    metrics = Metrics()
    worker = Worker(settings, redis.Redis.from_url(redis_url, protocol=2), metrics=metrics)
    drain(worker)
    assert client.xlen(keys.audit) == len(finished.lines) + 1, "every line committed"
    assert client.smembers(keys.tournaments_open) == {b"MTT-OPEN"}
    Sampler(client, {"default": keys}, metrics, structlog.get_logger()).sample()
    assert value(metrics, "showdown_tournaments_open", shard="default") == 1
    assert value(metrics, "showdown_tournaments_opened_total", shard="default") == 2
    assert value(metrics, "showdown_tournaments_finished_total", shard="default") == 1

    again = [opened("MTT-LATE").encode()]
    publish(client, keys, again)
    worker.prepare_groups()
    worker.step()  # one pass, deliberately: its commit is in flight
    ((_, planned),) = worker._inflight
    worker.flush()
    assert client.smembers(keys.tournaments_open) == {b"MTT-OPEN", b"MTT-LATE"}
    resent = worker._commit_script(keys=planned.keys, args=planned.args)  # as a redis-py re-send would
    assert resent[0] == 0, "the entry is no longer pending: nothing written twice"
    assert client.smembers(keys.tournaments_open) == {b"MTT-OPEN", b"MTT-LATE"}
    Sampler(client, {"default": keys}, metrics, structlog.get_logger()).sample()
    assert value(metrics, "showdown_tournaments_open", shard="default") == 2


def test_a_sample_redis_refuses_is_counted_and_the_worker_goes_on(
    client: redis.Redis, redis_url: str, make_settings: Any
) -> None:
    """A worker user without +xlen/+llen/+scard/+info (an ACL file older than this version): the gauges stay unset,
    the sample counts as refused, and the worker settles all the same."""
    client.acl_setuser(
        "old-worker",
        enabled=True,
        passwords=["+pw"],
        keys=["showdown:*"],
        commands=["+@all", "-xlen", "-llen", "-scard", "-info"],
    )
    try:
        settings = make_settings(redis_url, redis_username="old-worker", redis_password="pw")
        keys = settings.keys("default")
        xadd_events(client, keys.events, REFUSED)
        metrics = Metrics()
        worker_client = redis.Redis.from_url(redis_url, protocol=2, username="old-worker", password="pw")
        drain(Worker(settings, worker_client, metrics=metrics))
        assert client.xlen(keys.dead) == len(REFUSED), "settled all the same"
        assert value(metrics, "showdown_samples_total", outcome="refused") >= 1
        assert value(metrics, "showdown_samples_total", outcome="ok") == 0
        assert samples(metrics, "showdown_stream_length_entries") == {}
        assert samples(metrics, "showdown_redis_memory_used_bytes") == {}
        assert samples(metrics, "showdown_tournaments_open") == {}
    finally:
        client.acl_deluser("old-worker")


def test_audit_verify_writes_its_verdict_for_the_textfile_collector(
    client: redis.Redis, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOWDOWN_REDIS_URL", redis_url)
    settings = Settings()
    keys = settings.keys("default")
    xadd_events(client, keys.events, REFUSED)
    drain(Worker(Settings(redis_url=redis_url, metrics_port=0, heartbeat_file=tmp_path / "hb"), client))
    out = tmp_path / "showdown_audit.prom"
    assert main(["audit", "verify", "--metrics-file", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert 'showdown_audit_chain_broken{shard="default"} 0.0' in text
    assert 'showdown_audit_last_verified_timestamp_seconds{shard="default"}' in text

    client.set(keys.audit_head, f"99:{'0' * 64}")  # a head the chain does not reach: broken
    assert main(["audit", "verify", "--metrics-file", str(out)]) == 1
    text = out.read_text(encoding="utf-8")
    assert 'showdown_audit_chain_broken{shard="default"} 1.0' in text
    assert "showdown_audit_last_verified_timestamp_seconds{" not in text, "no verification that held"
