"""A jackpot's fund is kept on one shard (issue 39; decision/routing.py): producers route a hand with a jackpot by
its ``jackpot_id``; the registry names the shard that holds each fund (the first to read a hand of it), and a hand
naming a jackpot another shard holds is refused ``wrong_shard`` there, naming that shard, so its drop never starts a
second fund under the same id. The audit replay proves the refusal as the worker decided it; a registry that lost
its data gets each fund's shard back from the archive."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import redis
from structlog.testing import capture_logs

from showdown_messages import ShowdownEvent
from showdown_messages.publish import route, shard_for
from showdown_service.archive.archiver import Archiver
from showdown_service.archive.replay import Difference, replay
from showdown_service.decision.routing import jackpot_registry_key, registry_epoch_key
from showdown_service.infra.connection import connect
from showdown_service.infra.streams import read_range
from showdown_service.storage.layout import open_store
from tests.api_support import commit
from tests.worker.test_jackpot_worker import ggpoker_kings

SHARDS = ("east", "west")
JACKPOT = "ggpoker-bbj-usd"


def hand(hand_id: str, table_id: str) -> dict[str, Any]:
    return {**ggpoker_kings(), "hand_id": hand_id, "table_id": table_id}


def send(client: Any, settings: Any, shard: str, *docs: dict[str, Any]) -> None:
    for doc in docs:
        client.xadd(settings.keys(shard).events, {"event": json.dumps(doc)})


def test_a_hand_with_a_jackpot_routes_by_its_jackpot_id_on_every_table_a_hand_without_by_its_table() -> None:
    doc = hand("J-1", "table-a")
    assert route(ShowdownEvent.model_validate(doc)) == JACKPOT
    assert route(ShowdownEvent.model_validate({**doc, "table_id": "table-b"})) == JACKPOT, "every table alike"
    plain = {key: value for key, value in doc.items() if key != "jackpot"}
    assert route(ShowdownEvent.model_validate(plain)) == "table-a"


def test_a_hand_naming_a_jackpot_another_shard_holds_is_refused_there_and_its_drop_starts_no_second_fund(
    redis_url: str, make_settings: Any, client: redis.Redis, tmp_path: Path
) -> None:
    archive = str(tmp_path / "archive")
    east, west = (make_settings(redis_url, consumer=f"w-{s}", shards=s, archive_url=archive) for s in SHARDS)
    send(client, east, "east", hand("J-1", "table-a"))
    commit(east)
    send(client, west, "west", hand("J-2", "table-b"))  # a producer that routed by table_id
    commit(west)

    assert client.hget(jackpot_registry_key(), JACKPOT) == b"east"
    assert client.hget(east.keys("east").jackpot(JACKPOT), "balance") == b"200", "the east fund took the drop"
    assert client.exists(west.keys("west").jackpot(JACKPOT)) == 0, "no second fund under the same id"
    assert client.xlen(west.keys("west").results) == 0
    ((_, letter),) = read_range(client, west.keys("west").dead)
    assert letter[b"code"] == b"wrong_shard"
    assert letter[b"hand_id"] == b"J-2"
    assert letter[b"message"].decode().startswith(f"jackpot {JACKPOT!r} is held by shard 'east', not 'west'")

    send(client, east, "east", hand("J-3", "table-b"))  # routed as route() says: settles, drops into the one fund
    commit(east)
    assert client.hget(east.keys("east").jackpot(JACKPOT), "balance") == b"400"

    both = make_settings(redis_url, consumer="archiver", shards=",".join(SHARDS), archive_url=archive)
    Archiver(both, connect(both), open_store(archive, both)).drain()
    found: list[Difference] = []
    totals = replay(open_store(archive, both), both, found.append, client=connect(both))
    assert found == [], "the audit replay proves the refusal as the worker decided it"
    assert totals.entries == 3


def test_a_registry_that_lost_its_data_gets_each_fund_s_shard_back_from_the_archive(
    redis_url: str, make_settings: Any, client: redis.Redis, tmp_path: Path
) -> None:
    archive = str(tmp_path / "archive")
    east, west = (make_settings(redis_url, consumer=f"w-{s}", shards=s, archive_url=archive) for s in SHARDS)
    send(client, east, "east", hand("J-1", "table-a"))
    commit(east)
    both = make_settings(redis_url, consumer="archiver", shards=",".join(SHARDS), archive_url=archive)
    Archiver(both, connect(both), open_store(archive, both)).drain()
    client.delete(*cast(list[bytes], client.keys("showdown:{registry}:*")))  # the registry's node came back empty
    assert client.exists(registry_epoch_key()) == 0

    send(client, west, "west", hand("J-2", "table-b"))  # west reads a hand of the jackpot first after the loss
    with capture_logs() as logs:
        commit(west)
    assert client.hget(jackpot_registry_key(), JACKPOT) == b"east", "put back from the archive before any claim"
    (said,) = [line for line in logs if line["event"] == "registry_restored"]
    assert said["jackpots"] == 1
    ((_, letter),) = read_range(client, west.keys("west").dead)
    assert letter[b"code"] == b"wrong_shard"
    assert client.exists(west.keys("west").jackpot(JACKPOT)) == 0


def test_the_routing_of_a_jackpot_hand_is_the_shard_of_its_jackpot_id() -> None:
    doc = hand("J-1", "table-a")
    assert shard_for(route(ShowdownEvent.model_validate(doc)), SHARDS) == shard_for(JACKPOT, SHARDS)
