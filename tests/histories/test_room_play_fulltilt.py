"""The Full Tilt reader builds each hand's ``play`` (issue 36, the round trip on every real hand): its blinds
(``posts the small blind of $5``), antes, actions (``raises to $25``: a total) and board, the stakes' big blind
(``$5/$10``) its minimum bet. A capped table (``CAP NL Hold'em``: nobody puts in more than the cap) has no play:
phh-std has no cap. Every real Full Tilt hand of ``../shared/data`` either carries play and matches its history,
or names why not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import SHARED_DATA
from tests.histories.builder_play import (
    FIXED_LIMIT,
    STATE_MACHINE,
    assert_played_and_matching,
    doctored,
    read_room,
    reasons,
    round_trips,
    with_play,
)

THREE_BET = SHARED_DATA / "rooms" / "FullTilt" / "CashGame" / "HandActionTests" / "3BetHand.txt"
"""A real heads-up hand: jobetzu raises to $20, theking881 to $50, jobetzu calls and folds on the flop."""


def test_every_real_fulltilt_hand_settles_with_its_play_played_or_names_why_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hands, why = read_room(monkeypatch, "FullTilt", ["fulltilt"])
    assert len(hands) == 53
    assert len(with_play(hands)) == 41
    assert reasons(hands, why) == {
        FIXED_LIMIT: 7,
        "a capped table (no seat puts in more than the cap)": 4,
        "a hand run more than once": 1,
    }
    assert_played_and_matching(hands)


def test_every_real_fulltilt_hand_with_play_round_trips_through_ohh_and_the_unraked_through_phh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hands, _ = read_room(monkeypatch, "FullTilt", ["fulltilt"])
    assert round_trips(hands) == {"ohh": 41, "phh": 15}


def test_a_doctored_fulltilt_hand_raising_below_the_minimum_gets_no_play(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """theking881's raise to $50 over $20 written as one to $25 (the call and the pot following): below the least
    raise, to $30 (TDA 2024 Rule 43); the builder reads it, the state machine refuses the play."""
    below = {
        "theking881 raises to $50": "theking881 raises to $25",
        "jobetzu calls $30": "jobetzu calls $5",
        "Total pot $100 |": "Total pot $50 |",
        "theking881 wins the pot ($99.50)": "theking881 wins the pot ($49.50)",
        "collected ($99.50)": "collected ($49.50)",
    }
    _, why = doctored(monkeypatch, THREE_BET, below, tmp_path)
    assert why.startswith(STATE_MACHINE), why
    assert "play.actions[1] 'p1 cbr 2500'" in why, why
    assert "TDA 2024 Rule 43" in why, why
