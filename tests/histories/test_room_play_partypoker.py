"""The partypoker reader builds each hand's ``play`` (issue 36, the round trip on the rooms' hands), as the
PokerStars reader does (tests/histories/test_room_play.py): its blinds, antes, actions (each bracketed amount the
chips added, a raise written to the round's total) and board as phh-std's, so that the replay settles the hand with
its betting played by the state machine; on every real partypoker hand of ``../shared/data``. A hand phh-std cannot
express here is left without play, and why is named; a doctored copy of a real hand whose betting breaks a rule is
refused by the state machine and gets none."""

from __future__ import annotations

from collections import Counter

import pytest

from showdown_service.histories import partypoker
from showdown_service.histories.hands import HandRecord
from tests.helpers import SHARED_DATA
from tests.histories.test_room_play_ipoker import check_every_hand, doctored, read_room, room_files, round_trips

FILES = room_files("PartyPoker")
WHY_NOT = {  # by hand as read (a hand in two of the files counts twice, as in the replay's report)
    "a second blind (posted out of position)": 32,  # a new player's big blind
    "a dead small blind (posts big blind + dead)": 9,
    "fixed limit without its small bet and big bet": 5,
    "a big blind posted all-in for less than the stakes' big blind": 1,  # the others call the full $0.25
    "a dead button (the button's seat is not in the hand)": 1,  # the button sits out
}


def test_every_real_partypoker_hand_settles_with_its_play_played_or_names_why_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hands, why, errors = read_room(monkeypatch, partypoker, partypoker.read_partypoker, FILES)
    assert (len(hands), errors) == (291, 7)
    assert check_every_hand(hands, why, {}) == 243
    assert Counter(reason for _, reason in why) == WHY_NOT
    assert not any("state machine" in reason for _, reason in why), "no real hand's betting is refused"


def test_every_real_partypoker_hand_with_play_round_trips_through_ohh_and_the_unraked_through_phh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hands, _, _ = read_room(monkeypatch, partypoker, partypoker.read_partypoker, FILES)
    assert round_trips(hands) == {"ohh": 243, "phh": 38, "phh_no_cards": 2}


THREE_BET = SHARED_DATA / "rooms" / "PartyPoker" / "CashGame" / "HandActionTests" / "3BetHand.txt"
"""Heads-up, $0.05/$0.10: the button's small blind raises [$0.25] (to 0.30), the big blind [$0.70] (to 0.80), the
button calls [$0.50]; on the flop the big blind bets 0.80, the button raises [$2.94] and the big blind folds."""


def test_a_real_partypoker_hand_gets_its_play() -> None:
    [hand] = partypoker.read_partypoker(THREE_BET.read_text(encoding="utf-8-sig"), str(THREE_BET))
    assert isinstance(hand, HandRecord)
    assert hand.event is not None
    assert hand.event.play is not None
    play = hand.event.play
    assert (play.variant, play.min_bet, list(play.blinds_or_straddles), list(play.antes)) == ("NT", 10, [5, 10], [0, 0])
    assert list(play.actions) == ["p2 cbr 30", "p1 cbr 80", "p2 cc", "d db 9cKdQs", "p1 cbr 80", "p2 cbr 294", "p1 f"]


def test_partypoker_a_raise_below_the_minimum_gets_no_play(monkeypatch: pytest.MonkeyPatch) -> None:
    """TDA 2024 Rule 43: the button raises to 0.60, the big blind re-raises to 0.80 (a raise of 0.20, where 0.50 is
    the least) and the button calls: each puts in what it did as written, so the hand reads, and the state machine
    refuses the re-raise."""
    text = THREE_BET.read_text(encoding="utf-8-sig")
    text = text.replace("Kelevra_91 raises [$0.25 USD]", "Kelevra_91 raises [$0.55 USD]")
    text = text.replace("Kelevra_91 calls [$0.50 USD]", "Kelevra_91 calls [$0.20 USD]")
    _, why = doctored(monkeypatch, partypoker, partypoker.read_partypoker, text, "min-raise.txt")
    assert why == (
        "the betting as written is refused by the state machine (raise_below_minimum): "
        "play.actions[1] 'p1 cbr 80': p1 (seat 5): the least"
        " raise is to 110 (TDA 2024 Rule 43)"
    )


def test_partypoker_an_action_out_of_turn_gets_no_play(monkeypatch: pytest.MonkeyPatch) -> None:
    """The small blind calling before the button folds (the two lines swapped: the chips are the same): the state
    machine refuses an action out of turn (the button acts first before the flop, three-handed)."""
    path = SHARED_DATA / "rooms" / "PartyPoker" / "CashGame" / "HandActionTests" / "BasicHand.txt"
    real = path.read_text(encoding="utf-8-sig")
    [hand] = partypoker.read_partypoker(real, str(path))
    assert isinstance(hand, HandRecord)
    assert hand.event is not None
    assert hand.event.play is not None  # as written: played
    text = real.replace("Sajator folds\njott1982 calls [$0.05 USD]\n", "jott1982 calls [$0.05 USD]\nSajator folds\n")
    assert text != real
    _, why = doctored(monkeypatch, partypoker, partypoker.read_partypoker, text, "out-of-turn.txt")
    assert why == (
        "the betting as written is refused by the state machine (out_of_turn): "
        "play.actions[0] 'p1 cc': p1 (seat 5): p3 is to act,"
        " not p1"
    )
