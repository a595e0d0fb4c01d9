"""The registry's own loss (issue 33): on Redis Cluster the node holding the ``{registry}`` slot can restart empty
while the shards' nodes keep their chains. No shard's head is empty, so no shard's restore runs; the hand claims and
the tournaments' shards are gone, and a copy of a settled hand read by another shard would be paid there too. The
registry's marker (``{registry}:epoch``) goes with it: a worker that finds it missing puts every claim and tournament
back from the archive before it claims a hand. Here on one server, only the registry's keys deleted (what the
registry node's loss leaves)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import redis

from showdown_service.decision.routing import hand_key, registry_epoch_key, registry_key
from showdown_service.testing.simulate import simulate
from tests.helpers import xadd_events
from tests.worker.test_redis_loss import CASES, archive_all, drain, publish, records


def test_a_registry_that_lost_its_data_alone_is_restored_from_the_archive_and_a_copy_elsewhere_is_refused(
    client: redis.Redis, make_settings: Any, redis_url: str, tmp_path: Path
) -> None:
    archive = str(tmp_path / "archive")
    both = make_settings(redis_url, consumer="archiver", shards="east,west", archive_url=archive)
    east, west = (make_settings(redis_url, consumer=f"w-{s}", shards=s, archive_url=archive) for s in ("east", "west"))
    hand = {**CASES[0], "hand_id": "H-1", "table_id": "table-a"}
    xadd_events(client, east.keys("east").events, [hand])
    xadd_events(client, west.keys("west").events, [{**CASES[1], "hand_id": "W-1"}])
    knockout = simulate(3, tournament_id="KO-E", players=6, reentries=0, stack=2000, quiet_hands=0)
    publish(client, east.keys("east"), knockout.lines[:5])  # its open and first entries: a tournament of east
    drain(east, client)
    drain(west, client)
    archive_all(both, client)
    assert client.get(hand_key("H-1")) == b"east"
    assert client.exists(registry_epoch_key()) == 1, "the registry's marker, written with its first check"
    heads = {s: client.get(both.keys(s).audit_head) for s in ("east", "west")}

    registry = cast(list[bytes], client.keys("showdown:{registry}:*"))
    client.delete(*registry)  # the registry's node restarted empty; the shards' chains are kept

    xadd_events(client, west.keys("west").events, [{**hand, "table_id": "table-b"}])  # a copy, routed west
    drain(west, client)
    got = [(r["hand_id"], r["outcome"], r["code"]) for r in records(client, west.keys("west"))]
    assert got == [("W-1", "settled", None), ("H-1", "rejected", "wrong_shard")], "never paid on a second shard"
    assert client.xlen(west.keys("west").results) == 1
    assert client.get(hand_key("H-1")) == b"east", "the claim put back names the shard that settled it"
    assert 0 < client.ttl(hand_key("H-1")) <= west.dedupe_ttl_s, "with what was left of its TTL"
    assert client.get(hand_key("W-1")) == b"west"
    assert client.exists(registry_epoch_key()) == 1, "the marker written again once restored"
    assert {s: client.get(both.keys(s).audit_head) for s in ("east",)} == {"east": heads["east"]}
    assert client.hgetall(registry_key()) == {b"KO-E": b"east"}, "the tournament's shard put back"
