"""The GGPoker reader builds each hand's ``play`` (issue 36, the round trip on every real hand): its blinds, antes,
actions (``raises $0.25 to $0.35``: to a total; Bet & Muck's ``bets``, and its ``folds`` once called, the cards given
up at the showdown: phh-std's muck) and board, the stakes' big blind (``($0.05/$0.1)``) its minimum bet. Every real
GGPoker hand of ``../shared/data`` either carries play and matches its history, or names why not; one hand's EV
Cashout amount mismatches (the replay's one GGPoker mismatch): a hand with an EV Cashout gets no play."""

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

CASH = SHARED_DATA / "rooms-more" / "GGPoker" / "ItalyToast-PokerHandHistoryParser" / "CashGame"


def test_every_real_ggpoker_hand_settles_with_its_play_played_or_names_why_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hands, why = read_room(monkeypatch, "GGPoker", ["ggpoker"])
    assert len(hands) == 13
    assert len(with_play(hands)) == 6
    assert reasons(hands, why) == {
        "a hand run more than once": 2,
        "an EV Cashout (paid by equity: the hand's play is not written with it here)": 2,  # HD149101, HD434130
        "a straddle or a button blind": 1,
        "a dead blind": 1,  # 'posts missed blind $0.5'
    }
    assert_played_and_matching(hands)


def test_a_bet_and_muck_fold_is_played_as_a_muck_at_the_showdown(monkeypatch: pytest.MonkeyPatch) -> None:
    """'42c6a201: Bet & Muck folds' after the river's bet is called: the betting is over, the cards are given up
    at the showdown (phh-std's 'sm'), not folded (which the state machine refuses once the betting is over)."""
    hands, why = read_room(monkeypatch, "GGPoker", ["ggpoker"])
    [hand] = [h for h in hands if h.hand_id == "ggpoker:HD52198761"]
    assert hand.event is not None
    assert hand.event.play is not None, why.get(hand.hand_id)
    assert hand.event.play.actions[-3:] == ("p3 cbr 5", "p2 cc", "p3 sm")


def test_every_real_ggpoker_hand_with_play_round_trips_through_ohh_and_the_unraked_through_phh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hands, _ = read_room(monkeypatch, "GGPoker", ["ggpoker"])
    assert round_trips(hands) == {"ohh": 6, "phh": 3}


def test_a_doctored_ggpoker_hand_acting_out_of_turn_gets_no_play(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """PotLimitOmaha.txt with the big blind folding before the small blind calls: out of turn."""
    swap = {"c1d29c12: calls $0.3\nHero: folds": "Hero: folds\nc1d29c12: calls $0.3"}
    _, why = doctored(monkeypatch, CASH / "GameTypeTests" / "PotLimitOmaha.txt", swap, tmp_path)
    assert why.startswith(STATE_MACHINE), why
    assert "play.actions[1] 'p2 f': p2 (seat 5): p1 is to act, not p2" in why, why
