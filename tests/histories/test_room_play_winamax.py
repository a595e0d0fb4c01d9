"""The Winamax reader builds each hand's ``play`` (issue 36, the round trip on every real hand): its blinds, antes,
actions (``raises 2€ to 3.25€``: to a total) and board, the stakes' big blind (``(0.25€/0.50€)``; a tournament's
``(25/150/300)``, the ante first) its minimum bet. Winamax writes no uncalled bet: the play derives it. Every real
Winamax hand of ``../shared/data`` either carries play and matches its history, or names why not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import SHARED_DATA
from tests.histories.builder_play import (
    STATE_MACHINE,
    assert_played_and_matching,
    doctored,
    read_room,
    reasons,
    round_trips,
    with_play,
)

THREE_BET = SHARED_DATA / "rooms" / "Winamax" / "CashGame" / "HandActionTests" / "3BetHand.txt"
"""A real hand: fanf4K UR0 raises, totti6720 (the small blind) re-raises, titi250 (the big blind) folds."""


def test_every_real_winamax_hand_settles_with_its_play_played_or_names_why_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hands, why = read_room(monkeypatch, "Winamax", ["winamax"])
    assert len(hands) == 41
    assert len(with_play(hands)) == 40
    # 'WAHIL posts big blind 0.10€ out of position': a player new to the table
    assert reasons(hands, why) == {"a second blind (posted out of position)": 1}
    assert_played_and_matching(hands)


def test_every_real_winamax_hand_with_play_round_trips_through_ohh_and_the_unraked_through_phh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hands, _ = read_room(monkeypatch, "Winamax", ["winamax"])
    assert round_trips(hands) == {"ohh": 40, "phh": 19}


def test_a_doctored_winamax_hand_acting_out_of_turn_gets_no_play(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The big blind folds before the small blind's re-raise: out of turn, refused by the state machine."""
    swap = {"totti6720 raises 2€ to 3.25€\ntiti250 folds": "titi250 folds\ntotti6720 raises 2€ to 3.25€"}
    _, why = doctored(monkeypatch, THREE_BET, swap, tmp_path)
    assert why.startswith(STATE_MACHINE), why
    assert "play.actions[2] 'p2 f': p2 (seat 2): p1 is to act, not p2" in why, why
