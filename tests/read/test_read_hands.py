"""The commit writes each result's ``hand_id`` beside it (issue 35 item 3), and the read side learns a result's hand
from that field, parsing the result only for entries an older worker wrote without it."""

from __future__ import annotations

import itertools
from typing import Any

import orjson
import redis

from showdown_messages.protocol import ENTRY_ID_FIELD_B, HAND_ID_FIELD_B, RESULT_FIELD_B
from showdown_service.infra.entry_fields import result_hand
from showdown_service.infra.examples import example_lines
from showdown_service.infra.streams import read_range
from showdown_service.read.hands import result_in_redis
from showdown_service.worker.loop import Worker
from tests.helpers import xadd_events

CASES = [orjson.loads(line)["event"] for line in itertools.islice(example_lines(), 12)]


def test_each_result_entry_names_its_hand_beside_the_result_and_the_read_side_reads_it_there(
    client: redis.Redis, make_settings: Any, redis_url: str
) -> None:
    settings = make_settings(redis_url)
    keys = settings.keys("default")
    events = [{**case, "hand_id": f"h-{i}"} for i, case in enumerate(CASES)]
    xadd_events(client, keys.events, events)
    worker = Worker(settings, client)
    worker.prepare_groups()
    for _ in range(5):
        worker.step()
    worker.flush()
    rows = read_range(client, keys.results)
    assert len(rows) == len(events)
    for _, fields in rows:
        assert set(fields) == {RESULT_FIELD_B, ENTRY_ID_FIELD_B, HAND_ID_FIELD_B}
        assert fields[HAND_ID_FIELD_B].decode() == orjson.loads(fields[RESULT_FIELD_B])["hand_id"]
    assert [result_hand(fields) for _, fields in rows] == [e["hand_id"] for e in events]
    found = result_in_redis(client, keys, "h-3")
    assert found is not None
    assert found == (rows[3][0].decode(), orjson.loads(rows[3][1][RESULT_FIELD_B]))
    assert result_in_redis(client, keys, "h-99") is None


def test_a_result_entry_without_the_field_is_read_by_its_json_and_the_field_wins_over_the_json() -> None:
    older = {RESULT_FIELD_B: b'{"hand_id":"T-1","pots":[]}', ENTRY_ID_FIELD_B: b"1-0"}
    assert result_hand(older) == "T-1"
    assert result_hand({**older, HAND_ID_FIELD_B: b"T-2"}) == "T-2", "the field, not the JSON"
    assert result_hand({RESULT_FIELD_B: b"not json"}) is None
