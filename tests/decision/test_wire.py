"""The ShowdownResult documents the service writes: valid, public, and consistent."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson
import pytest

from showdown_core.ranking import Ranking
from showdown_core.variants import Variant
from showdown_messages import ShowdownResult
from showdown_service.decision.wire import encode_result
from tests.helpers import REAL_SHOWDOWNS, VARIANT_SHOWDOWNS, event, read_cases, seat, settle_doc

WHEN = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def test_every_result_validates_against_the_published_contract() -> None:
    for case in read_cases(REAL_SHOWDOWNS):
        payload = encode_result(settle_doc(case["event"]), WHEN)
        result = ShowdownResult.model_validate_json(payload)
        assert len(result.awards) == len(case["event"]["players"])
        assert {a.seat: a.amount for a in result.awards} == {int(s): v for s, v in case["expected_award"].items()}
        assert sum(a.net for a in result.awards) == 0


def test_a_result_never_shows_folded_or_mucked_cards() -> None:
    doc = event(
        seat(1, "As Ad", 500),
        seat(2, "Kc Kd", 500),
        seat(3, "Qc Qh", 200, folded=True),  # folded, cards known to the room
        seat(4, "8s 8h", 500, folded=True),  # mucked at showdown
        board="2c 7d 9h Js 3s",
    )
    text = encode_result(settle_doc(doc), WHEN).decode()
    for hidden in ("Qc", "Qh", "8s", "8h"):
        assert hidden not in text
    shown = [h["seat"] for h in orjson.loads(text)["hands"]]
    assert shown == [1, 2]


def test_a_result_carries_pots_hands_awards_and_metadata() -> None:
    doc = event(seat(1, "As Ad", 500, stack=500), seat(2, "Kc Kd", 500, stack=500), board="2c 7d 9h Js 3s")
    doc["tournament_id"] = "MTT-77"
    result = orjson.loads(encode_result(settle_doc(doc), WHEN))
    assert result["pots"] == [
        {
            "index": 0,
            "amount": 1000,
            "rake": 0,
            "eligible_seats": [1, 2],
            "winners": [{"seat": 1, "amount": 1000}],
            "hand": "Pair of Aces",
        }
    ]
    assert result["hands"][0] == {
        "seat": 1,
        "player_id": "p1",
        "category": "one_pair",
        "best_five": ["As", "Ad", "Js", "9h", "7d"],
        "description": "Pair of Aces",
        "strength": result["hands"][0]["strength"],
    }
    assert result["hands"][0]["strength"] > result["hands"][1]["strength"]
    assert result["awards"] == [  # starting stacks given: each seat's end stack too
        {"seat": 1, "player_id": "p1", "amount": 1000, "net": 500, "end_stack": 1000},
        {"seat": 2, "player_id": "p2", "amount": 0, "net": -500, "end_stack": 0},
    ]
    assert result["busts"] == [{"seat": 2, "player_id": "p2", "finish": 1}]
    assert result["tournament_id"] == "MTT-77"
    assert result["settled_at"] == "2026-11-22T12:00:00Z"
    assert result["evaluator"].startswith("showdown/")


def test_the_wire_only_formats_the_cards_the_settlement_carries(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [case["event"] for path in (REAL_SHOWDOWNS, VARIANT_SHOWDOWNS) for case in read_cases(path)]
    settled = [settle_doc(doc) for doc in cases]
    assert len({s.showdown.variant.name for s in settled}) > 5, "hi-lo, Omaha, lows and runs among them"
    expected = [encode_result(s, WHEN) for s in settled]
    assert any(s.shown for s in settled)
    for s, text in zip(settled, expected, strict=True):
        hands = orjson.loads(text)["hands"]
        assert [[c.text for c in shown.cards] for shown in s.shown] == [h["best_five"] for h in hands]

    def decides(*_: object) -> None:
        raise AssertionError("the wire worked out which cards play: the settlement should carry them")

    monkeypatch.setattr(Ranking, "playing_cards", decides)
    monkeypatch.setattr(Ranking, "omaha_playing_cards", decides)
    monkeypatch.setattr(Variant, "playing_cards", decides)
    assert [encode_result(s, WHEN) for s in settled] == expected
