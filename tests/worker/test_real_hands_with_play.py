"""Issue 36's real data, through a real worker: every real hand of ``../shared/data`` that the replay reads with its
betting as ``play`` (the 6,844 Pluribus PHH hands with phh-std's own fields, and each room history whose reader
builds the play) published as a v2 event to a real server's events stream and settled by a ``Worker``. Each must
settle (no dead letter), to the pots and awards of the replay's own settlement of the same event, which matched the
room's recorded outcome (``judge``: ``match``); for the PHH hands each seat's ``end_stack`` is the file's
``finishing_stacks`` (Pluribus writes a chopped odd chip as a half: within one chip).

The rooms' hands come and go with their readers' play (`histories/room_play.py`): the test takes whatever the
replay gives play today and asserts the floor below which that count must not fall.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import orjson
import redis

from showdown_core import settle
from showdown_messages import ShowdownEvent
from showdown_messages.protocol import EVENT_FIELD, HAND_ID_FIELD, RESULT_FIELD
from showdown_service.decision.intake import parse_event, to_showdown
from showdown_service.decision.wire import encode_result
from showdown_service.histories.compare import MATCH, judge
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.run import PHH, find_files, read_file
from showdown_service.infra.streams import read_range
from showdown_service.worker.loop import Worker
from tests.decision.test_play_event import PLURIBUS, pluribus_event
from tests.helpers import SHARED_DATA

ROOM_FOLDERS = ("pokerstars", "variants", "rooms", "rooms-more")
ROOM_HANDS_WITH_PLAY_AT_LEAST = 1105
"""Room histories' cash hands settled with their play (stop 47: iPoker 584, partypoker 234, Microgaming 37, OnGame 35,
Winamax 33, Full Tilt 32, 888poker 32, Boss Media 25, PokerStars 21, Merge 18, Entraction 17, Bovada 17, IGT 6,
GGPoker 5, PKR 5, ACR 4)."""
AT = datetime(2026, 11, 29, tzinfo=UTC)
KNOWN_MISMATCHES = {
    "ipoker:7973334568": "the room splits its rake over two pots otherwise than the rules (docs/replay.md)",
}
"""Hands with play whose settlement the replay reports as a mismatch with the room's recorded outcome, and why."""


def room_hands_with_play() -> tuple[list[dict[str, Any]], Counter[str], set[str]]:
    """Every room history's hand that the replay reads with ``play`` and that matches its recorded outcome, as the
    event document; how many by format; the known mismatches met."""
    files, _ = find_files([str(SHARED_DATA / folder) for folder in ROOM_FOLDERS])
    docs, formats, seen, met = [], Counter[str](), set(), set()
    for source in files:
        kind, hands, _ = read_file(source)
        if kind == PHH:
            continue  # the PHH files carry their play in their own fields: below
        for hand in hands:
            if not isinstance(hand, HandRecord) or hand.event is None or hand.event.play is None:
                continue
            if hand.event.tournament_id is not None or hand.hand_id in seen:
                continue  # a tournament's hand needs its ledger opened: tests/worker/test_tournament_worker.py
            verdict = judge(hand)
            if verdict.status != MATCH:  # the replay's known mismatches with the room; any other fails here
                assert hand.hand_id in KNOWN_MISMATCHES, (source, hand.hand_id, verdict.reason)
                met.add(hand.hand_id)
                continue
            seen.add(hand.hand_id)
            docs.append(hand.event.model_dump(mode="json", exclude_none=True))
            formats[str(kind)] += 1
    return docs, formats, met


def local_result(doc: dict[str, Any]) -> dict[str, Any]:
    """The replay's settlement of the same event, as the result's JSON."""
    event: ShowdownEvent = parse_event(json.dumps(doc))
    return dict(orjson.loads(encode_result(settle(to_showdown(event)), AT)))


def same_money(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    keep = ("pots", "awards", "rake", "uncalled", "currency")
    return {key: ours.get(key) for key in keep if ours.get(key) != theirs.get(key)}


def test_every_real_hand_with_play_settles_through_a_real_worker_as_the_replay_settles_it(
    client: redis.Redis, make_settings: Any, redis_url: str
) -> None:
    rooms, formats, met = room_hands_with_play()
    assert len(rooms) >= ROOM_HANDS_WITH_PLAY_AT_LEAST, formats
    assert met == KNOWN_MISMATCHES.keys(), "each known mismatch still met (else it is no longer known)"
    pluribus = [pluribus_event(path) for path in sorted(PLURIBUS.rglob("*.phh"))]
    assert len(pluribus) == 6844
    finishing = {doc["hand_id"]: fields["finishing_stacks"] for doc, fields in pluribus}
    docs = rooms + [doc for doc, _ in pluribus]
    settings = make_settings(redis_url, batch_size=500)
    keys = settings.keys("default")
    for start in range(0, len(docs), 1000):
        with client.pipeline(transaction=False) as pipe:
            for doc in docs[start : start + 1000]:
                pipe.xadd(keys.events, {EVENT_FIELD: json.dumps(doc)})
            pipe.execute()
    Worker(settings, client).run(until_idle=True, timeout_s=600.0)

    dead = [{k.decode(): v.decode() for k, v in fields.items()} for _, fields in read_range(client, keys.dead)]
    assert dead == [], [(d.get(HAND_ID_FIELD), d.get("code"), d.get("message")) for d in dead[:5]]
    results = {
        fields[HAND_ID_FIELD.encode()].decode(): orjson.loads(fields[RESULT_FIELD.encode()])
        for _, fields in read_range(client, keys.results)
    }
    assert len(results) == len(docs)
    wrong = {}
    for doc in docs:
        ours = results[doc["hand_id"]]
        differs = same_money(ours, local_result(doc))
        ends = [award["end_stack"] for award in ours["awards"]]
        if doc["hand_id"] in finishing and any(
            abs(end - recorded) > 1 for end, recorded in zip(ends, finishing[doc["hand_id"]], strict=True)
        ):
            differs["end_stack"] = (ends, finishing[doc["hand_id"]])
        if differs:
            wrong[doc["hand_id"]] = differs
    assert wrong == {}, list(wrong.items())[:3]
