"""The 888poker (Pacific) reader builds each hand's ``play`` (issue 36, the round trip on every real hand): the
builder logs the blinds, antes, actions and board as the reader meets them, so that the replay settles the hand with
its betting played by the state machine; on every real 888poker hand of ``../shared/data``. 888 writes no uncalled
bet: the play derives it (the state machine returns what nobody called), and an all-in beyond what anybody left can
match is a call (its excess uncalled). A hand phh-std cannot express here is left without play, and why is named."""

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

CASH = SHARED_DATA / "rooms" / "Pacific" / "CashGame"


def test_every_real_888poker_hand_settles_with_its_play_played_or_names_why_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hands, why = read_room(monkeypatch, "Pacific", ["888poker"])
    assert len(hands) == 166
    assert len(with_play(hands)) == 146
    assert reasons(hands, why) == {
        FIXED_LIMIT: 7,
        "a dead button (no player of the hand in the button's seat)": 5,  # tournament tables with a seat gone
        "blinds posted out of position": 3,  # a tournament hand whose small blind's seat is gone: no small blind
        "a second blind (posted out of position)": 2,  # a player new to the table posts the big blind
        "a dead blind": 2,  # 'posts dead blind [$0.50 + $1]'
        "a big blind other than the stakes' (the header's)": 1,  # $200/$400 in the header, 150 and 300 posted
    }
    assert_played_and_matching(hands)


def test_every_real_888poker_hand_with_play_round_trips_through_ohh_and_the_unraked_through_phh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hands, _ = read_room(monkeypatch, "Pacific", ["888poker"])
    assert round_trips(hands) == {"ohh": 146, "phh": 121}


def test_an_uncalled_all_in_beyond_every_stack_left_is_played_as_a_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """'ROBGAN raises [$3,990]' to 4010 over an all-in of 4000, the one seat left (Anmajo60, 2220) unable to call
    more: phh-std's call, the 10 chips beyond it uncalled (888 writes no uncalled bet; the play derives it)."""
    hands, why = read_room(monkeypatch, "Pacific", ["888poker"])
    [hand] = [h for h in hands if h.hand_id == "888poker:616554036"]
    assert hand.event is not None
    assert hand.event.play is not None, why.get(hand.hand_id)
    assert "p6 cc" in hand.event.play.actions
    robgan = next(p for p in hand.event.players if p.player_id == "ROBGAN")
    assert (robgan.stack, robgan.contributed) == (4010, 4000)


def test_a_doctored_888poker_hand_acting_out_of_turn_gets_no_play(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """3BetHand.txt with littlez33 (the small blind) folding before Krautsturm (the button): the builder reads it,
    the state machine refuses the play, and the hand is settled without it."""
    swap = {"Krautsturm folds\nlittlez33 folds": "littlez33 folds\nKrautsturm folds"}
    _, why = doctored(monkeypatch, CASH / "HandActionTests" / "3BetHand.txt", swap, tmp_path)
    assert why.startswith(STATE_MACHINE), why
    assert "play.actions[3] 'p1 f': p1 (seat 7): p6 is to act, not p1" in why, why


def test_a_doctored_888poker_hand_raising_below_the_minimum_gets_no_play(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """River.txt with the button's raise to $2 over the $1 big blind written as one to $1.50 (the big blind's call
    and the pot following): below the least raise (TDA 2024 Rule 43), refused by the state machine."""
    below = {
        "MomWasRight raises [$2]": "MomWasRight raises [$1.50]",
        "Jack3bet calls [$1]": "Jack3bet calls [$0.50]",
        "Jack3bet collected [ $4.28 ]": "Jack3bet collected [ $3.33 ]",
    }
    _, why = doctored(monkeypatch, CASH / "StreetTests" / "River.txt", below, tmp_path)
    assert why.startswith(STATE_MACHINE), why
    assert "play.actions[0] 'p3 cbr 150': p3 (seat 1)" in why, why
    assert "TDA 2024 Rule 43" in why, why


def test_a_hand_whose_play_is_no_valid_event_is_read_without_play_never_lost(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """River.txt with the river's two checks written 600 times over: the builder reads it (a check faces no bet), the
    play would hold more than the contract's 1000 actions; the hand is read and settled without play, and says
    why, not turned into an error."""
    checks = "Jack3bet checks\nMomWasRight checks\n"
    river = "** Dealing river ** [ 7d ]\n"
    hand, why = doctored(
        monkeypatch, CASH / "StreetTests" / "River.txt", {river + checks: river + checks * 600}, tmp_path
    )
    assert hand.outcome is not None
    assert why == "the play is not a valid event (beyond the contract's limits)"
