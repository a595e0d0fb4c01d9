"""On a real Redis Cluster: the registry (a slot of its own) guards a tournament across shards on different
masters, and the read API answers a hand, the standings and the events from there."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from redis.crc import key_slot

from showdown_service.decision.routing import registry_key
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import connect
from showdown_service.infra.streams import read_range
from showdown_service.testing.localredis import LocalCluster
from tests.api_support import bearer, commit, knockout, publish_lines, second_bust, serving, sse_events
from tests.contract.test_routing import HOLDER, OTHER, SHARDS


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster() as running:
        yield running


def on_cluster(make_settings: Any, cluster: LocalCluster, shards: str) -> Settings:
    settings: Settings = make_settings(cluster.url, redis_cluster=True, shards=shards, key_prefix="rc",
                                       consumer=f"w-{shards.replace(',', '-')}")  # fmt: skip
    return settings


def test_wrong_shard_and_the_read_api_on_a_cluster(make_settings: Any, cluster: LocalCluster) -> None:
    held, other = on_cluster(make_settings, cluster, HOLDER), on_cluster(make_settings, cluster, OTHER)
    slots = {key_slot(held.keys(HOLDER).events.encode()), key_slot(other.keys(OTHER).events.encode()),
             key_slot(registry_key("rc").encode())}  # fmt: skip
    assert len(slots) == 3, "each shard, and the registry, a slot of its own"
    client = connect(held)
    publish_lines(client, held.keys(HOLDER).events, knockout())
    commit(held)
    publish_lines(client, other.keys(OTHER).events, second_bust())
    commit(other)
    letters = [fields for _, fields in read_range(client, other.keys(OTHER).dead)]
    assert [f[b"code"] for f in letters] == [b"wrong_shard"]
    assert f"held by shard {HOLDER!r}" in letters[0][b"message"].decode()
    assert client.hget(registry_key("rc"), "T") == HOLDER.encode()

    both = on_cluster(make_settings, cluster, ",".join(SHARDS))
    with serving(both) as url:
        hand = httpx.get(f"{url}/v1/hands/T-h1", headers=bearer()).json()
        refused = httpx.get(f"{url}/v1/hands/T-h2", headers=bearer()).json()
        standings = httpx.get(f"{url}/v1/tournaments/T/standings", headers=bearer()).json()
        with httpx.stream("GET", f"{url}/v1/tournaments/T/events", headers=bearer(), timeout=20) as stream:
            events = sse_events(stream.iter_lines(), 2)
    assert hand["status"] == "settled"
    assert refused["status"] == "refused"
    assert refused["dead_letter"]["code"] == "wrong_shard"
    assert standings["shard"] == HOLDER
    assert [p["player_id"] for p in standings["placements"]] == ["d"]
    assert [(e["event"], e["data"]["player_id"]) for e in events] == [("bust", "d"), ("placement", "d")]
    assert standings["prize_pool"] == 4000
