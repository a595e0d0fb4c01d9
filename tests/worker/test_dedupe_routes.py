"""Issue 34 item 2: a hand is paid once whatever the route. A hand that reaches a second shard (re-sent with a
corrected table_id, sent to both shards around a change of the shard list, a tournament hand re-sent without its
tournament_id) is refused there ``wrong_shard``, naming the shard that took it; on a real server with two shards,
and on a real Redis Cluster."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import fakeredis
import orjson
import pytest
import redis
from redis.crc import key_slot

from showdown_service.decision.routing import Router, hand_key, registry_key
from showdown_service.decision.settling import prepare
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import connect
from showdown_service.infra.streams import read_range
from showdown_service.testing.localredis import LocalCluster
from tests.api_support import commit, knockout, publish_lines
from tests.contract.test_routing import HOLDER, OTHER, SHARDS
from tests.helpers import BUNDLED_SHOWDOWNS, read_cases

CASES = list(read_cases(BUNDLED_SHOWDOWNS))
HAND = {**CASES[0]["event"], "hand_id": "H-1", "table_id": "table-a"}


def two_shards(make_settings: Any, url: str, **more: Any) -> dict[str, Settings]:
    return {shard: make_settings(url, consumer=f"w-{shard}", shards=shard, **more) for shard in SHARDS}


def settled(client: Any, settings: Settings, shard: str) -> list[str]:
    return [orjson.loads(f[b"result"])["hand_id"] for _, f in read_range(client, settings.keys(shard).results)]


def letters(client: Any, settings: Settings, shard: str) -> list[dict[bytes, bytes]]:
    return [fields for _, fields in read_range(client, settings.keys(shard).dead)]


def send(client: Any, settings: Settings, shard: str, *docs: dict[str, Any]) -> None:
    for doc in docs:
        client.xadd(settings.keys(shard).events, {"event": json.dumps(doc)})


def assert_refused_on_other(client: Any, settings: dict[str, Settings], hand_id: str) -> None:
    (letter,) = letters(client, settings[OTHER], OTHER)
    assert letter[b"code"] == b"wrong_shard"
    assert letter[b"hand_id"] == hand_id.encode()
    message = letter[b"message"].decode()
    assert message.startswith(f"hand_id {hand_id!r} is held by shard {HOLDER!r}, not {OTHER!r}")
    assert hand_id not in settled(client, settings[OTHER], OTHER), "never paid on the second shard"


def test_a_hand_re_sent_with_a_corrected_table_id_to_another_shard_is_refused_there_naming_the_first(
    redis_url: str, make_settings: Any, client: redis.Redis
) -> None:
    workers = two_shards(make_settings, redis_url)
    send(client, workers[HOLDER], HOLDER, HAND)
    commit(workers[HOLDER])
    send(client, workers[OTHER], OTHER, {**HAND, "table_id": "table-b"})  # corrected: it routes elsewhere
    commit(workers[OTHER])
    assert settled(client, workers[HOLDER], HOLDER) == ["H-1"]
    assert_refused_on_other(client, workers, "H-1")
    assert client.get(hand_key("H-1")) == HOLDER.encode()
    assert 0 < client.ttl(hand_key("H-1")) <= workers[HOLDER].dedupe_ttl_s, "held as long as the dedupe key"


def test_the_same_hand_sent_to_both_shards_after_a_shard_list_change_settles_once(
    redis_url: str, make_settings: Any, client: redis.Redis
) -> None:
    workers = two_shards(make_settings, redis_url)
    send(client, workers[HOLDER], HOLDER, HAND, HAND)  # a re-send on the first shard stays a duplicate there
    send(client, workers[OTHER], OTHER, HAND)
    commit(workers[HOLDER])
    commit(workers[OTHER])
    assert settled(client, workers[HOLDER], HOLDER) == ["H-1"]
    assert letters(client, workers[HOLDER], HOLDER) == []
    outcomes = [orjson.loads(f[b"audit"])["outcome"] for _, f in read_range(client, workers[HOLDER].keys(HOLDER).audit)]
    assert outcomes == ["settled", "duplicate"]
    assert_refused_on_other(client, workers, "H-1")


def test_a_tournament_hand_re_sent_without_its_tournament_id_is_refused_on_the_shard_it_then_routes_to(
    redis_url: str, make_settings: Any, client: redis.Redis
) -> None:
    workers = two_shards(make_settings, redis_url)
    publish_lines(client, workers[HOLDER].keys(HOLDER).events, knockout())
    commit(workers[HOLDER])
    plain = {**orjson.loads(knockout()[-1])["event"], "tournament_id": None}
    del plain["tournament_id"]
    send(client, workers[OTHER], OTHER, plain)
    commit(workers[OTHER])
    assert settled(client, workers[HOLDER], HOLDER) == ["T-h1"]
    assert_refused_on_other(client, workers, "T-h1")


def test_a_claim_whose_commit_never_happened_does_not_block_its_own_shard_and_still_guards_the_other(
    redis_url: str, make_settings: Any, client: redis.Redis
) -> None:
    """A worker claims H-1 for its shard and dies before committing: the entry is still pending there; another
    worker of that shard claims it back and settles it (the claim is its shard's), and the copy on the other shard
    is refused, before and after."""
    workers = two_shards(make_settings, redis_url, claim_idle_ms=100)
    send(client, workers[HOLDER], HOLDER, HAND)
    dying = make_settings(redis_url, consumer="dies", shards=HOLDER)
    from showdown_service.worker.loop import Worker

    worker = Worker(dying, connect(dying))
    worker.prepare_groups()
    rows = worker.pipeline.read(block=0)  # read (now pending for "dies") and prepared (claimed), never committed
    ((keys, entries),) = rows
    assert [p.code for p in worker.planning.prepare(keys, entries)] == [None]
    assert client.get(hand_key("H-1")) == HOLDER.encode()
    send(client, workers[OTHER], OTHER, HAND)
    commit(workers[OTHER])
    assert_refused_on_other(client, workers, "H-1")
    assert settled(client, workers[HOLDER], HOLDER) == [], "not settled yet: its worker died"
    time.sleep(0.15)  # past claim_idle_ms
    commit(workers[HOLDER])  # claims the dead worker's entry back and settles it
    assert settled(client, workers[HOLDER], HOLDER) == ["H-1"]
    assert letters(client, workers[HOLDER], HOLDER) == []


def test_claim_hands_claims_each_valid_hand_once_and_leaves_the_rest_alone() -> None:
    fake = fakeredis.FakeRedis(server=fakeredis.FakeServer(), protocol=2)
    router = Router(fake)
    judge = partial(prepare, failures=0, max_deliveries=5, max_payload_bytes=65536, now=datetime.now(UTC), started=0.0)
    hand, bad = judge("1-0", {b"event": json.dumps(HAND).encode()}), judge("2-0", {b"event": b"{not json"})
    assert router.claim_hands("a", [hand, bad], 60) == [hand, bad]
    assert fake.get(hand_key("H-1")) == b"a"
    assert fake.keys("*") == [hand_key("H-1").encode()], "a refused entry claims nothing"
    refused, untouched = router.claim_hands("b", [hand, bad], 60)
    assert (refused.code, refused.result, untouched) == ("wrong_shard", None, bad)
    assert router.claim_hands("a", [hand], 60) == [hand], "its own shard's claim lets it through"


def calls(client: redis.Redis) -> dict[str, int]:
    """Commands the server ran so far, by name (INFO commandstats: a script's own commands count too)."""
    return {name.removeprefix("cmdstat_"): int(stat["calls"]) for name, stat in client.info("commandstats").items()}


def test_a_batch_s_hands_are_claimed_with_one_script_call_and_again_after_the_server_forgot_it(
    client: redis.Redis,
) -> None:
    """Issue 34's claim cost: one EVALSHA a batch (the script SETs NX GET each hand in the registry's slot), not
    a command a hand; a server that lost its scripts (restart, failover) answers NOSCRIPT once, the script is
    loaded again and the batch still claimed, with the same answers."""
    judge = partial(prepare, failures=0, max_deliveries=5, max_payload_bytes=65536, now=datetime.now(UTC), started=0.0)
    batch = [judge(f"{i}-0", {b"event": json.dumps({**HAND, "hand_id": f"H-{i}"}).encode()}) for i in range(1, 6)]
    client.set(hand_key("H-2"), "b")  # another shard took H-2 first
    router = Router(client)
    client.config_resetstat()
    out = router.claim_hands("a", batch, 60)
    ran = calls(client)
    assert ran.get("evalsha") == 1, ran
    assert ran.get("set") == 5, "one SET NX GET a hand, inside the script"
    assert [p.code for p in out] == [None, "wrong_shard", None, None, None]
    assert [client.get(hand_key(f"H-{i}")) for i in range(1, 6)] == [b"a", b"b", b"a", b"a", b"a"]
    assert 0 < client.ttl(hand_key("H-1")) <= 60
    client.script_flush()
    client.config_resetstat()
    assert [p.code for p in router.claim_hands("a", batch, 60)] == [None, "wrong_shard", None, None, None]
    assert calls(client).get("evalsha") == 2, "NOSCRIPT, then loaded and run again"
    assert [p.code for p in router.claim_hands("b", batch, 60)] == ["wrong_shard", None] + ["wrong_shard"] * 3


@pytest.mark.parametrize("prefix", ["showdown", "casino"])
def test_a_hand_s_claim_is_in_the_registry_s_slot(prefix: str) -> None:
    assert hand_key("h{1}", prefix) == f"{prefix}:{{registry}}:hand:h{{1}}"
    assert key_slot(hand_key("h{1}", prefix).encode()) == key_slot(registry_key(prefix).encode())


def test_the_audit_replay_proves_a_hand_refused_as_taken_by_another_shard(
    redis_url: str, make_settings: Any, client: redis.Redis, tmp_path: Path
) -> None:
    from showdown_service.archive.archiver import Archiver
    from showdown_service.archive.replay import Difference, replay
    from showdown_service.storage.layout import open_store

    workers = two_shards(make_settings, redis_url)
    send(client, workers[HOLDER], HOLDER, HAND)
    commit(workers[HOLDER])
    send(client, workers[OTHER], OTHER, {**HAND, "table_id": "table-b"})
    commit(workers[OTHER])
    assert [f[b"code"] for f in letters(client, workers[OTHER], OTHER)] == [b"wrong_shard"]
    archived = make_settings(redis_url, shards=",".join(SHARDS), archive_url=str(tmp_path / "archive"))
    Archiver(archived, connect(archived), open_store(archived.archive_url, archived)).drain()
    differences: list[Difference] = []
    totals = replay(open_store(archived.archive_url, archived), archived, differences.append, client=connect(archived))
    assert differences == []
    assert totals.entries == 2


# --- on a real Redis Cluster ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster() as running:
        yield running


def test_on_a_cluster_a_hand_settles_on_one_shard_whatever_the_route(make_settings: Any, cluster: LocalCluster) -> None:
    workers = {shard: make_settings(cluster.url, redis_cluster=True, shards=shard, key_prefix="dd",
                                    consumer=f"w-{shard}") for shard in SHARDS}  # fmt: skip
    slots = {key_slot(workers[s].keys(s).events.encode()) for s in SHARDS} | {key_slot(hand_key("H-1", "dd").encode())}
    assert len(slots) == 3, "each shard, and the registry, a slot of its own"
    client = connect(workers[HOLDER])
    send(client, workers[HOLDER], HOLDER, HAND)
    send(client, workers[OTHER], OTHER, {**HAND, "table_id": "table-b"})
    commit(workers[HOLDER])
    commit(workers[OTHER])
    assert settled(client, workers[HOLDER], HOLDER) == ["H-1"]
    assert_refused_on_other(client, workers, "H-1")
    assert client.get(hand_key("H-1", "dd")) == HOLDER.encode()
