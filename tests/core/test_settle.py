"""Pots and settlement: every rule, one hand each, chip for chip."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from showdown_core import DECK, HOLDEM, InvariantViolation, Pot, SeatHand, Share, Showdown, build_pots, settle
from showdown_core import pots as pots_module
from tests.helpers import collected, event, seat, settle_doc

BOARD = "2c 7d 9h Js 3s"


def test_the_best_hand_takes_a_heads_up_pot() -> None:
    doc = event(seat(1, "As Ad", 500), seat(2, "Kc Kd", 500), board=BOARD)
    assert collected(doc) == {1: 1000, 2: 0}


def test_folded_chips_go_to_the_pot_but_folded_seats_win_nothing() -> None:
    doc = event(seat(1, "As Ad", 500), seat(2, "Kc Kd", 500), seat(3, "Qc Qd", 200, folded=True), board=BOARD)
    result = settle_doc(doc)
    assert result.collected_by_seat() == {1: 1200, 2: 0, 3: 0}
    assert [p.eligible for p in result.pots] == [(1, 2)]


def test_equal_hands_split_the_pot_equally() -> None:
    doc = event(seat(1, "Ac Kd", 500), seat(2, "As Kh", 500), board=BOARD)
    assert collected(doc) == {1: 500, 2: 500}


@pytest.mark.parametrize(
    ("button", "lucky"),
    [(1, 2), (2, 4), (3, 4), (4, 2), (6, 2), (10, 2)],
)
def test_the_odd_chip_goes_to_the_first_tied_winner_left_of_the_button(button: int, lucky: int) -> None:
    doc = event(
        seat(2, "Ac Kd", 500),
        seat(4, "As Kh", 500),
        seat(5, "Qc Qd", 1, folded=True),
        board=BOARD,
        button=button,
    )
    won = collected(doc)
    assert won[lucky] == 501
    assert won[2] + won[4] == 1001


def test_two_odd_chips_go_one_at_a_time_clockwise_from_the_button() -> None:
    board = "Ah Kh Qh Jh Th"  # the board plays: a three-way royal flush split
    doc = event(
        seat(1, "2c 3c", 100),
        seat(3, "2d 3d", 100),
        seat(5, "2s 3s", 100),
        seat(6, None, 2, folded=True),
        board=board,
        button=3,
    )
    assert collected(doc) == {1: 101, 3: 100, 5: 101, 6: 0}  # seats 5, then 1, follow button 3


def test_three_all_ins_of_different_sizes_make_a_main_pot_and_two_side_pots() -> None:
    doc = event(
        seat(1, "As Ad", 100),  # best hand, shortest stack
        seat(2, "Kc Kd", 300),  # second best
        seat(3, "Qc Qd", 600),  # worst hand, deepest
        seat(4, "8c 8d", 600),
        board=BOARD,
    )
    result = settle_doc(doc)
    assert [(p.amount, p.eligible) for p in result.pots] == [(400, (1, 2, 3, 4)), (600, (2, 3, 4)), (600, (3, 4))]
    assert result.collected_by_seat() == {1: 400, 2: 600, 3: 600, 4: 0}
    assert [p.hand.description if p.hand else None for p in result.pots] == [
        "Pair of Aces",
        "Pair of Kings",
        "Pair of Queens",
    ]


def test_an_uncalled_bet_is_returned_and_is_in_no_pot() -> None:
    doc = event(seat(1, "As Ad", 1000), seat(2, "Kc Kd", 300), board=BOARD)
    result = settle_doc(doc)
    assert result.returned == (Share(1, 700),)
    assert [p.amount for p in result.pots] == [600]
    assert result.collected_by_seat() == {1: 1300, 2: 0}


def test_a_bet_above_a_live_seat_but_matched_by_a_folded_seat_is_a_pot_not_a_return() -> None:
    doc = event(seat(1, "As Ad", 100), seat(2, None, 200, folded=True), seat(3, "Kc Kd", 300), board=BOARD)
    result = settle_doc(doc)
    assert [(p.amount, p.eligible) for p in result.pots] == [(300, (1, 3)), (200, (3,))]
    assert result.returned == (Share(3, 100),)
    assert result.collected_by_seat() == {1: 300, 2: 0, 3: 300}


def test_dead_money_joins_the_main_pot_without_raising_anyones_level() -> None:
    doc = event(seat(1, "As Ad", 300, dead=100), seat(2, "Kc Kd", 300), seat(3, None, 100, folded=True), board=BOARD)
    result = settle_doc(doc)
    assert [(p.amount, p.eligible) for p in result.pots] == [(800, (1, 2))]
    assert result.collected_by_seat() == {1: 800, 2: 0, 3: 0}


def test_a_seat_all_in_for_dead_money_alone_can_win_only_the_dead_money() -> None:
    doc = event(seat(1, "As Ad", 0, dead=100), seat(2, "Kc Kd", 500), seat(3, "Qc Qd", 500), board=BOARD)
    result = settle_doc(doc)
    assert [(p.amount, p.eligible) for p in result.pots] == [(100, (1, 2, 3)), (1000, (2, 3))]
    assert result.collected_by_seat() == {1: 100, 2: 1000, 3: 0}


def test_one_live_player_takes_everything_without_a_showdown() -> None:
    doc = event(seat(1, None, 50, folded=True), seat(2, "Kc", 100, folded=False), seat(3, None, 100, folded=True))
    result = settle_doc(doc)
    assert result.collected_by_seat() == {1: 0, 2: 250, 3: 0}
    assert result.shown == ()
    assert all(p.hand is None for p in result.pots)


def test_a_single_eligible_side_pot_in_a_contested_hand_names_the_winners_hand() -> None:
    doc = event(seat(1, "As Ad", 100), seat(2, None, 200, folded=True), seat(3, "Kc Kd", 300), board=BOARD)
    side = settle_doc(doc).pots[1]
    assert side.winners == (Share(3, 200),)
    assert side.hand is not None
    assert side.hand.description == "Pair of Kings"


def test_a_split_side_pot_and_a_won_main_pot_are_settled_independently() -> None:
    doc = event(
        seat(1, "Qc Qd", 100),  # short stack wins the main pot with queens full
        seat(2, "Ac Kd", 301),
        seat(3, "As Kh", 301),
        board="Qh Js Ts 4c 4d",  # seats 2 and 3 both hold the ace-high straight
        button=1,
    )
    result = settle_doc(doc)
    assert [p.amount for p in result.pots] == [300, 402]
    assert result.pots[0].winners == (Share(1, 300),)
    assert result.pots[1].winners == (Share(2, 201), Share(3, 201))
    assert result.collected_by_seat() == {1: 300, 2: 201, 3: 201}


def test_stud_hands_are_the_best_five_of_each_players_seven_cards() -> None:
    doc = event(
        seat(1, "As Ad 2c 3c 4c 9d 8s", 100),
        seat(2, "Kc Kd Ks 2d 3d 4d 7h", 100),
        button=None,
        variant="stud",
    )
    result = settle_doc(doc)
    assert result.collected_by_seat() == {1: 0, 2: 200}
    assert [s.value.description for s in result.shown] == ["Pair of Aces", "Three of a kind, Kings"]


def test_in_stud_the_odd_chip_goes_to_the_highest_card_by_suit() -> None:
    # both play the same Ace-high straight; seat 2 holds the ace of spades
    doc = event(
        seat(1, "Ah Kd Qc Jc Td 2c 3c", 101),
        seat(2, "As Kc Qd Jd Tc 2d 3d", 101),
        seat(3, None, 1, folded=True),
        button=None,
        variant="stud",
    )
    assert collected(doc) == {1: 101, 2: 102, 3: 0}


def test_busts_are_reported_worst_finish_first_with_shared_places() -> None:
    doc = event(
        seat(1, "As Ad", 300, stack=300),  # wins everything
        seat(2, "Kc Kd", 100, stack=100),  # busts with the smallest stack: worst
        seat(3, "Qc Qd", 200, stack=200),
        seat(4, "8c 8d", 200, stack=200),  # same starting stack as seat 3: shares their place
        seat(5, None, 0, folded=True, stack=900),
        board=BOARD,
    )
    result = settle_doc(doc)
    assert [(b.seat, b.finish) for b in result.busts] == [(2, 1), (3, 2), (4, 2)]
    later = event(*doc["players"][:4], seat(5, "5c 5h", 150, stack=150), board=BOARD)
    assert [(b.seat, b.finish) for b in settle_doc(later).busts] == [(2, 1), (5, 2), (3, 3), (4, 3)]


def test_busts_need_starting_stacks_and_a_seat_with_chips_left_is_not_bust() -> None:
    doc = event(seat(1, "As Ad", 100, stack=500), seat(2, "Kc Kd", 100, stack=100), board=BOARD)
    assert [b.seat for b in settle_doc(doc).busts] == [2]
    doc = event(seat(1, "As Ad", 100), seat(2, "Kc Kd", 100), board=BOARD)
    assert settle_doc(doc).busts == ()


def test_a_settlement_that_loses_a_chip_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    real = pots_module.build_pots

    def leaky(seats: Any) -> tuple[list[Pot], list[Share]]:
        pots, returned = real(seats)
        return [Pot(pots[0].amount - 1, pots[0].eligible), *pots[1:]], returned

    monkeypatch.setattr("showdown_core.settlement.build_pots", leaky)
    with pytest.raises(InvariantViolation, match="999 chips awarded but 1000 put in"):
        settle_doc(event(seat(1, "As Ad", 500), seat(2, "Kc Kd", 500), board=BOARD))


def test_pots_and_returns_add_up_to_every_chip_put_in_on_random_contributions() -> None:
    rng = random.Random(5)
    for _ in range(2000):
        n = rng.randint(2, 10)
        seats = []
        for number in range(1, n + 1):
            folded = rng.random() < 0.4
            seats.append(
                SeatHand(number, f"p{number}", (), rng.choice([0, 5, 50, 100, 100, 250]), rng.choice([0, 0, 7]), folded)
            )
        top = max(s.contributed for s in seats)
        live_top = [s for s in seats if s.contributed == top and not s.folded]
        if not live_top:
            seats[0] = seats[0]._replace(contributed=top, folded=False)
        pots, returned = build_pots(seats)
        assert sum(p.amount for p in pots) + sum(r.amount for r in returned) == sum(s.put_in for s in seats)
        live = {s.seat for s in seats if not s.folded}
        assert all(set(p.eligible) <= live and p.eligible for p in pots)
        assert all(a.eligible != b.eligible for a, b in itertools.pairwise(pots)), "equal neighbours merge"


def test_the_usual_showdown_and_the_hand_nobody_called_make_the_pots_the_general_slicing_makes() -> None:
    """build_pots makes two usual cases at once (every live seat at the top; one live seat at the top, everybody
    else folded): on random tables of both, with dead money and folded seats as high as the top, the same pots
    and returned bets as the general slicing (pots.sliced)."""
    rng = random.Random(23)
    quick = {"showdown": 0, "uncalled": 0, "uncalled with a bet back": 0}
    for _ in range(5000):
        n = rng.randint(2, 9)
        top = rng.choice([0, 2, 100, 250])
        alone = rng.random() < 0.5
        live = {rng.randint(1, n)} if alone else set(rng.sample(range(1, n + 1), rng.randint(2, n)))
        seats = []
        for number in range(1, n + 1):
            put_in = top if number in live else min(top, rng.choice([0, 1, 50, top]))
            seats.append(SeatHand(number, f"p{number}", (), put_in, rng.choice([0, 0, 0, 3]), number not in live))
        made = build_pots(seats)
        assert made == pots_module.sliced(seats), seats
        quick["uncalled" if alone else "showdown"] += 1
        quick["uncalled with a bet back"] += bool(alone and made[1])
    assert min(quick.values()) > 500, quick


def test_random_full_settlements_pay_out_exactly_what_was_put_in() -> None:
    rng = random.Random(11)
    for _ in range(1000):
        deck = rng.sample(DECK, 25)
        n = rng.randint(2, 10)
        levels = sorted(rng.sample(range(1, 2000), 3))
        seats = [
            SeatHand(
                number,
                f"p{number}",
                (deck[3 + 2 * number], deck[4 + 2 * number]),
                rng.choice(levels),
                0,
                rng.random() < 0.3,
                5000,
            )
            for number in range(1, n + 1)
        ]
        top = max(s.contributed for s in seats)
        seats[0] = seats[0]._replace(contributed=top, folded=False)
        seats[1] = seats[1]._replace(folded=False)
        result = settle(Showdown("h", "t", HOLDEM, tuple(deck[:5]), rng.randint(1, 10), tuple(seats)))
        assert sum(result.collected) == sum(s.put_in for s in seats)
        for pot in result.pots:
            assert sum(w.amount for w in pot.winners) == pot.amount
            assert {w.seat for w in pot.winners} <= set(pot.eligible)
