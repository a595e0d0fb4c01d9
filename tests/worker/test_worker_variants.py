"""The worker settles every game on the same path as hold'em: results, dedupe, audit, dead letters."""

from __future__ import annotations

from typing import Any

import fakeredis
import orjson

from showdown_messages import ShowdownResult
from showdown_service.decision import audit
from showdown_service.infra.streams import read_range
from showdown_service.worker.loop import Worker
from tests.helpers import VARIANT_SHOWDOWNS, read_cases, xadd_events

CASES = list(read_cases(VARIANT_SHOWDOWNS))


def test_the_worker_settles_a_hand_of_every_game_as_worked_out_by_hand(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    xadd_events(fake, keys.events, [case["event"] for case in CASES])
    worker = Worker(settings, fake)
    worker.run(until_idle=True)
    results = {}
    for _, fields in read_range(fake, keys.results):
        result = ShowdownResult.model_validate_json(fields[b"result"])  # every result keeps the contract
        results[result.hand_id] = orjson.loads(fields[b"result"])
    assert len(results) == len(CASES)
    for case in CASES:
        result = results[case["event"]["hand_id"]]
        assert result["variant"] == case["event"]["variant"]
        assert {str(a["seat"]): a["amount"] for a in result["awards"]} == case["expected_award"], case["categories"]
    assert fake.xlen(keys.dead) == 0
    verdict = audit.verify(audit.read_stream(fake, keys.audit), audit.Head.decode(fake.get(keys.audit_head)))
    assert verdict.holds
    assert verdict.records == len(CASES)


def test_a_short_deck_hand_with_a_deuce_becomes_a_dead_letter_naming_the_card(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    bad = next(case["event"] for case in CASES if case["event"]["variant"] == "short_deck")
    bad = {**bad, "hand_id": "bad-6plus", "board": ["2c", *bad["board"][1:]]}
    xadd_events(fake, keys.events, [bad])
    worker = Worker(settings, fake)
    worker.run(until_idle=True)
    dead = [{k.decode(): v.decode() for k, v in f.items()} for _, f in read_range(fake, keys.dead)]
    assert [(d["code"], d["hand_id"]) for d in dead] == [("card_not_in_deck", "bad-6plus")]
    assert "board[0]: 2c is not in the short-deck" in dead[0]["message"]
