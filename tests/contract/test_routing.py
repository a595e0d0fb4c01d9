"""Routing that cannot lose a tournament: one rule (with test vectors every language can check), and a hand or
message reaching a shard other than the one holding its tournament dead-lettered ``wrong_shard``, end to end on a
real server with two shards."""

from __future__ import annotations

import re
import zlib
from typing import Any

import orjson
import pytest
import redis
from redis.crc import key_slot

from showdown_messages import CODES
from showdown_messages.publish import shard_for
from showdown_service.decision.routing import registry_key
from showdown_service.infra.config import Settings
from showdown_service.infra.streams import read_range
from showdown_service.worker.ledger import read_book
from tests.api_support import commit, knockout, publish_lines, second_bust
from tests.helpers import REPO
from tests.tournament_builders import all_in, entry

MESSAGES_MD = REPO / "docs" / "messages.md"
SHARDS = ("t0", "t1")
HOLDER = shard_for("T", SHARDS)
OTHER = next(s for s in SHARDS if s != HOLDER)


def vectors() -> list[list[str]]:
    """The rows of docs/messages.md's routing table: id, CRC-32, then the shard of each shard list."""
    text = MESSAGES_MD.read_text(encoding="utf-8").split("<!-- routing-vectors -->", 1)[1]
    rows = [line for line in text.splitlines()[3:] if line.startswith("|")]
    return [[cell.strip().strip("`") for cell in row.strip("|").split("|")] for row in rows]


def test_the_documented_routing_vectors_are_the_codes() -> None:
    header = MESSAGES_MD.read_text(encoding="utf-8").split("<!-- routing-vectors -->", 1)[1].splitlines()[1]
    lists = [tuple(found.split(",")) for found in re.findall(r"of `([^`]+)`", header)]
    rows = vectors()
    assert len(rows) >= 5
    assert lists == [("t0", "t1"), ("a", "b", "c"), ("s0", "s1", "s2", "s3")]
    for routing_id, crc, *shards in rows:
        assert int(crc) == zlib.crc32(routing_id.encode("utf-8")), routing_id
        assert shards == [shard_for(routing_id, shard_list) for shard_list in lists], routing_id
    assert any(not row[0].isascii() for row in rows), "a vector with non-ASCII bytes (UTF-8 is the rule)"


def test_wrong_shard_is_a_documented_code() -> None:
    assert "wrong_shard" in CODES


def two_shards(make_settings: Any, url: str) -> dict[str, Settings]:
    """A worker's settings for each shard (each worker serves one), all knowing both shards for routing."""
    return {shard: make_settings(url, consumer=f"w-{shard}", shards=shard) for shard in SHARDS}


def dead(client: redis.Redis, settings: Settings, shard: str) -> list[dict[bytes, bytes]]:
    return [fields for _, fields in read_range(client, settings.keys(shard).dead)]


def results(client: redis.Redis, settings: Settings, shard: str) -> list[dict[str, Any]]:
    return [orjson.loads(f[b"result"]) for _, f in read_range(client, settings.keys(shard).results)]


def test_a_tournament_hand_sent_to_another_shard_is_dead_lettered_naming_the_holder_never_settled_plain(
    redis_url: str, make_settings: Any, client: redis.Redis
) -> None:
    workers = two_shards(make_settings, redis_url)
    held, other = workers[HOLDER], workers[OTHER]
    publish_lines(client, held.keys(HOLDER).events, knockout())
    commit(held)
    publish_lines(client, other.keys(OTHER).events, second_bust())  # a producer routing this hand by its table
    commit(other)
    letters = dead(client, other, OTHER)
    assert [f[b"code"] for f in letters] == [b"wrong_shard"]
    assert letters[0][b"hand_id"] == b"T-h2"
    message = letters[0][b"message"].decode()
    assert f"held by shard {HOLDER!r}" in message
    assert f"not {OTHER!r}" in message
    assert results(client, other, OTHER) == [], "never settled as a plain hand"
    book = read_book(client, held.keys(HOLDER), "T")
    assert book is not None
    assert [e.player_id for e in book.standings("T")[1]] == ["a", "b", "c"], "c still plays: the ledger untouched"
    assert client.hget(registry_key(), "T") == HOLDER.encode()


def test_a_tournament_message_sent_to_another_shard_is_wrong_shard_not_tournament_not_open(
    redis_url: str, make_settings: Any, client: redis.Redis
) -> None:
    workers = two_shards(make_settings, redis_url)
    publish_lines(client, workers[HOLDER].keys(HOLDER).events, knockout()[:2])
    commit(workers[HOLDER])
    publish_lines(client, workers[OTHER].keys(OTHER).events, [entry("late", bounty=1000)])
    commit(workers[OTHER])
    letters = dead(client, workers[OTHER], OTHER)
    assert [f[b"code"] for f in letters] == [b"wrong_shard"]
    assert f"shard {HOLDER!r}" in letters[0][b"message"].decode()


def test_two_shards_opening_one_tournament_one_holds_it_the_other_refuses_its_open_and_what_follows(
    redis_url: str, make_settings: Any, client: redis.Redis
) -> None:
    workers = two_shards(make_settings, redis_url)
    for shard, settings in workers.items():
        publish_lines(client, settings.keys(shard).events, knockout()[:3])
    commit(workers[OTHER])  # the other shard's worker reads its open first: it wins the claim
    commit(workers[HOLDER])
    assert client.hget(registry_key(), "T") == OTHER.encode()
    assert [f[b"code"] for f in dead(client, workers[HOLDER], HOLDER)] == [b"wrong_shard"] * 3
    assert dead(client, workers[OTHER], OTHER) == []
    assert read_book(client, workers[OTHER].keys(OTHER), "T") is not None
    assert read_book(client, workers[HOLDER].keys(HOLDER), "T") is None, "no second ledger"


def test_a_hand_naming_a_tournament_no_shard_opened_settles_as_today(
    redis_url: str, make_settings: Any, client: redis.Redis
) -> None:
    workers = two_shards(make_settings, redis_url)
    hand = all_in("U-h1", [(1, "a", 1000, 300), (2, "d", 300, 300)], tid="never-opened")
    publish_lines(client, workers[OTHER].keys(OTHER).events, [hand])
    commit(workers[OTHER])
    settled = results(client, workers[OTHER], OTHER)
    assert [r["hand_id"] for r in settled] == ["U-h1"]
    assert settled[0]["busts"] == [{"seat": 2, "player_id": "d", "finish": 1}]
    assert dead(client, workers[OTHER], OTHER) == []
    assert client.hget(registry_key(), "never-opened") is None


def test_a_tournament_opened_before_the_registry_is_claimed_by_its_shard_then_guarded(
    redis_url: str, make_settings: Any, client: redis.Redis
) -> None:
    workers = two_shards(make_settings, redis_url)
    publish_lines(client, workers[HOLDER].keys(HOLDER).events, knockout())
    commit(workers[HOLDER])
    client.delete(registry_key())  # as a deployment from before the registry
    publish_lines(client, workers[HOLDER].keys(HOLDER).events, second_bust())
    commit(workers[HOLDER])
    assert client.hget(registry_key(), "T") == HOLDER.encode()
    assert [r["hand_id"] for r in results(client, workers[HOLDER], HOLDER)] == ["T-h1", "T-h2"]


@pytest.mark.parametrize("prefix", ["showdown", "casino"])
def test_the_registry_has_a_hash_tag_of_its_own(prefix: str) -> None:
    key = registry_key(prefix)
    assert key == f"{prefix}:{{registry}}:tournaments"
    assert key_slot(key.encode()) == key_slot(b"registry"), "its slot is its tag's, whatever the prefix"


def test_the_audit_replay_of_a_shard_that_refused_wrong_shard_proves_it_as_the_worker_decided(
    redis_url: str, make_settings: Any, client: redis.Redis, tmp_path: Any
) -> None:
    """The registry is read at read time, which an archive does not keep: the replay takes the holder from the
    refusal the chain recorded (its hashes prove it), and decides the entry as the worker did."""
    from showdown_service.archive.archiver import Archiver
    from showdown_service.archive.replay import Difference, replay
    from showdown_service.infra.connection import connect
    from showdown_service.storage.layout import open_store

    workers = two_shards(make_settings, redis_url)
    held, other = workers[HOLDER], workers[OTHER]
    archived = make_settings(redis_url, shards=",".join(SHARDS), archive_url=str(tmp_path / "archive"))
    publish_lines(client, held.keys(HOLDER).events, knockout())
    commit(held)
    publish_lines(client, other.keys(OTHER).events, second_bust())
    commit(other)
    assert [f[b"code"] for f in dead(client, other, OTHER)] == [b"wrong_shard"]
    Archiver(archived, connect(archived), open_store(archived.archive_url, archived)).drain()
    differences: list[Difference] = []
    totals = replay(open_store(archived.archive_url, archived), archived, differences.append, client=connect(archived))
    assert differences == []
    assert totals.entries == len(knockout()) + len(second_bust())
