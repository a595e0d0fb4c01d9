"""The WPN readers build each hand's ``play`` (issue 36, the round trip on every real hand): the current client's
(ACR: ``Hand #N - Holdem(No Limit) - ...``) names its betting, and its hands carry play; the 2014 client's (``Game
ID: N 2/4 Braunite (Omaha)``) names the game but not its betting, which is never guessed: those hands get no play,
and say why. Every real WPN hand of ``../shared/data`` either carries play and matches its history, or names why
not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import SHARED_DATA
from tests.histories.builder_play import (
    STATE_MACHINE,
    UNNAMED,
    assert_played_and_matching,
    doctored,
    read_room,
    reasons,
    round_trips,
    with_play,
)

SHOWED = (
    SHARED_DATA / "rooms-more" / "WinningPoker" / "ItalyToast-PokerHandHistoryParser" / "WinningPokerV2" / "CashGame"
    / "HandActionTests" / "ActionShowedCards.txt"
)  # fmt: skip
"""A real pot-limit Omaha hand of the current client: hora raises to $225, bets $399 on the flop and everybody folds."""


def test_every_real_wpn_hand_settles_with_its_play_played_or_names_why_not(monkeypatch: pytest.MonkeyPatch) -> None:
    hands, why = read_room(monkeypatch, "WinningPoker", ["acr", "wpn"])
    acr = [hand for hand in hands if hand.hand_id.startswith("acr:")]
    assert (len(acr), len(hands) - len(acr)) == (32, 52)
    assert len(with_play(hands)) == len(with_play(acr)) == 27
    # a new player's 'Player4 posts $0.25' (3) and the 2014 client's 'posts (0.25)' (2) are posts beside the blinds
    assert reasons(hands, why) == {
        UNNAMED: 46,  # the 2014 client: '(Omaha)'
        "a blind posted beside the small and big blinds (a player new to the table)": 5,
        "a straddle or a button blind": 1,
        "a dead blind": 1,  # 'posts (0.25) as a dead bet'
        "blinds posted out of position": 1,
        "a dead button (no player of the hand in the button's seat)": 1,
    }
    assert_played_and_matching(hands)


def test_every_real_wpn_hand_with_play_round_trips_through_ohh_and_the_unraked_through_phh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hands, _ = read_room(monkeypatch, "WinningPoker", ["acr", "wpn"])
    assert round_trips(hands) == {"ohh": 27, "phh": 21}


def test_a_doctored_wpn_hand_acting_out_of_turn_gets_no_play(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    swap = {"yangis folds\nbenzrider folds": "benzrider folds\nyangis folds"}
    _, why = doctored(monkeypatch, SHOWED, swap, tmp_path)
    assert why.startswith(STATE_MACHINE), why
    assert "play.actions[0] 'p4 f': p4 (seat 7): p3 is to act, not p4" in why, why


def test_a_doctored_wpn_hand_betting_beyond_the_pot_at_pot_limit_gets_no_play(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """hora's flop bet of $399 into $725 written as $900 (returned uncalled all the same): beyond the pot."""
    beyond = {"hora bets $399.00": "hora bets $900.00", "Uncalled bet ($399.00)": "Uncalled bet ($900.00)"}
    _, why = doctored(monkeypatch, SHOWED, beyond, tmp_path)
    assert why.startswith(STATE_MACHINE), why
    assert "play.actions[10] 'p6 cbr 90000'" in why, why
    assert "pot" in why, why
