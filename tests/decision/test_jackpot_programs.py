"""Jackpot program files whose qualifier names a hand their games cannot make (issue 39, bad input), read by
decision/jackpot_live.py: refused ``jackpot_qualifier_impossible`` naming the file and the hand, and a hand naming
such a program dead-lettered with that code; a short-deck program judges its bad beat in short deck's ranking."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from showdown_core import InvalidEvent, parse_cards
from showdown_core.evaluator import Category
from showdown_core.jackpot import bad_beat
from showdown_core.jackpot_qualifier import qualifier
from showdown_service.decision import jackpot_live
from showdown_service.decision.jackpot_live import read_program, shipped_programs
from showdown_service.decision.settling import prepare
from tests.helpers import event, seat

IMPOSSIBLE = "jackpot_qualifier_impossible"


def program_file(minimum: str, variants: list[str]) -> str:
    return json.dumps(
        {
            "format": "showdown.jackpot_program",
            "format_version": 1,
            "id": "room-bad-beat",
            "variants": variants,
            "drop": {"big_blinds": 1, "minimum_pot_big_blinds": 30},
            "qualifier": {"minimum": minimum, "both_hole_cards": True},
            "shares_ppm": {"loser": 100000, "winner": 30000, "other": 8000},
        }
    )


def test_a_program_file_with_an_impossible_qualifier_is_refused_naming_the_file_and_the_hand() -> None:
    with pytest.raises(InvalidEvent) as caught:
        read_program(program_file("2222", ["short_deck"]), "six-plus.json")
    assert (caught.value.code, caught.value.field) == (IMPOSSIBLE, "six-plus.json")
    assert "qualifier.minimum: '2222' holds a 2" in caught.value.message


def test_every_shipped_program_is_a_hand_its_games_make() -> None:
    for program, variants in shipped_programs().values():
        assert qualifier("2222" if program.omaha else "AAATT", variants).minimum is program.minimum
        assert program.ranking == "high"


def test_a_short_deck_program_judges_the_bad_beat_in_short_decks_ranking() -> None:
    """A losing flush beats aces full in 6+ (flush over full house): it qualifies for an AAATT program there, and
    not in hold'em's ranking, where a flush is under the full house."""
    program, _ = read_program(program_file("AAATT", ["short_deck"]), "six-plus.json")
    assert program.ranking == "short_deck"
    board = parse_cards(["Kh", "Qh", "9h", "6c", "6d"])
    live = [(1, parse_cards(["Ah", "7h"])), (2, parse_cards(["6h", "6s"]))]  # ace-high flush loses to quad sixes
    beat = bad_beat(program, board, live)
    assert beat is not None
    assert (beat.losers, beat.winners) == ((1,), (2,))
    assert beat.losing_hand.category is Category.FLUSH
    holdem = replace(program, minimum=qualifier("AAATT", ["holdem"]).minimum, ranking="high")
    assert bad_beat(holdem, board, live) is None  # hold'em's minimum AAATT in its own ranking: a flush is under it


def test_a_hand_naming_a_program_with_an_impossible_qualifier_is_dead_lettered_with_its_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shipped programs are read when a hand with a jackpot settles: one impossible qualifier among them refuses
    the hand with its code, nothing settled and so nothing paid into or out of the fund."""

    def shipped() -> Any:
        return {"room-bad-beat": read_program(program_file("AAAAA", ["holdem"]), "data/jackpot/room.json")}

    monkeypatch.setattr(jackpot_live, "shipped_programs", shipped)
    doc = event(
        seat(1, "Ad Ah", 3000),
        seat(2, "Tc Th", 3000),
        board="Ac Td Ts 4h 2c",
        rake=400,
        stakes={"small_blind": 50, "big_blind": 100},
        jackpot={"jackpot_id": "room-bbj", "program": "room-bad-beat", "drop": 100},
    )
    fields = {b"event": json.dumps(doc).encode()}
    now = datetime(2026, 11, 29, 12, tzinfo=UTC)
    prepared = prepare("1-0", fields, failures=0, max_deliveries=5, max_payload_bytes=1 << 20, now=now, started=0.0)
    assert prepared.code == IMPOSSIBLE
    assert "data/jackpot/room.json: qualifier.minimum: 'AAAAA' is five of a kind" in (prepared.message or "")
    assert prepared.jackpot_id is None
