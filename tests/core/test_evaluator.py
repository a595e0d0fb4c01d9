"""The hand evaluator: ranking, descriptions, best five, the showdown API and bad input."""

from __future__ import annotations

import random
from itertools import combinations, pairwise

import pytest

from showdown_core import (
    DECK,
    VALUES,
    Board,
    Card,
    Category,
    InvalidEvent,
    best_five,
    evaluate,
    evaluate_showdown,
    parse_cards,
    value_of,
)


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text.split())


# Weakest first. Hands on one row tie; every row beats the row above it.
RANKING: list[list[str]] = [
    ["7c 5d 4h 3s 2c", "7d 5c 4s 3h 2d"],  # the worst hand there is
    ["8c 5d 4h 3s 2c"],
    ["Kc Qd Jh Ts 8c"],
    ["Ac 6d 5h 4s 3c"],  # ace-high, not a straight
    ["Ac Kd Qh Js 9c", "As Kh Qd Jc 9s"],  # best high card
    ["2c 2d 5h 4s 3c"],  # lowest pair
    ["2c 2d 6h 4s 3c"],  # kickers count
    ["2c 2d Ah Ks Qc"],
    ["3c 3d 5h 4s 2c"],  # a higher pair beats any kickers
    ["Ac Ad Kh Qs Tc"],
    ["Ac Ad Kh Qs Jc", "Ah As Kc Qd Jd"],  # best pair
    ["3c 3d 2h 2s 4c"],  # lowest two pair
    ["3c 3d 2h 2s Ac"],  # the kicker counts
    ["4c 4d 2h 2s 3c"],  # the top pair decides first
    ["Ac Ad Kh Ks Qc"],  # best two pair
    ["2c 2d 2h 3s 4c"],  # lowest trips
    ["2c 2d 2h As Kc"],
    ["3c 3d 3h 2s 4c"],
    ["Ac Ad Ah Ks Qc"],  # best trips
    ["5c 4d 3h 2s Ac"],  # the wheel, five-high: lowest straight
    ["6c 5d 4h 3s 2c"],
    ["Ac Kd Qh Js Tc", "As Kh Qd Jc Ts"],  # broadway
    ["7h 5h 4h 3h 2h"],  # lowest flush
    ["Ah Kh Qh Jh 9h", "As Ks Qs Js 9s"],  # best flush
    ["2c 2d 2h 3s 3c"],  # lowest full house
    ["2c 2d 2h As Ac"],
    ["3c 3d 3h 2s 2c"],  # the trips decide before the pair
    ["Ac Ad Ah Ks Kc"],  # best full house
    ["2c 2d 2h 2s 3c"],  # lowest quads
    ["2c 2d 2h 2s Ac"],
    ["Ac Ad Ah As Kc"],  # best quads
    ["5h 4h 3h 2h Ah"],  # steel wheel: lowest straight flush
    ["Kh Qh Jh Th 9h"],
    ["Ah Kh Qh Jh Th", "As Ks Qs Js Ts"],  # royal flushes tie
]


def test_the_whole_hand_ranking_is_ordered_as_in_the_rulebook() -> None:
    strengths: list[int] = []
    for row in RANKING:
        values = {evaluate(cards(h)) for h in row}
        assert len(values) == 1, f"{row} should tie"
        strengths.append(values.pop().strength)
    assert all(a < b for a, b in pairwise(strengths)), "each row beats the one above"
    assert strengths[0] == 1
    assert strengths[-1] == 7462
    # the best of each category is one below the lowest of the next: nothing lies between
    for best, lowest in ((4, 5), (10, 11), (14, 15), (18, 19), (21, 22), (23, 24), (27, 28), (30, 31)):
        assert strengths[best] + 1 == strengths[lowest], (RANKING[best], RANKING[lowest])


def test_values_enumerate_all_7462_classes_weakest_first() -> None:
    assert [v.strength for v in VALUES] == list(range(1, 7463))
    assert [sum(v.category is c for v in VALUES) for c in Category] == [1277, 2860, 858, 858, 10, 1277, 156, 156, 10]
    floors = [min(v.strength for v in VALUES if v.category is c) for c in Category]
    assert floors == sorted(floors)
    assert value_of(7462).description == "Royal flush"
    with pytest.raises(ValueError, match=r"1\.\.7462"):
        value_of(0)


@pytest.mark.parametrize(
    ("hand", "description"),
    [
        ("Ah Kh Qh Jh Th 2c 3d", "Royal flush"),
        ("5s 4s 3s 2s As Kd Kc", "Straight flush, Five high"),
        ("9c 9d 9h 9s Kd 2c 3c", "Four of a kind, Nines, King kicker"),
        ("Kc Kd Kh 5s 5d 2c 3h", "Full house, Kings full of Fives"),
        ("Ah Qh 9h 5h 3h 2c 2d", "Flush, Ace-Queen high"),
        ("Tc 9d 8h 7s 6c 2d 2h", "Straight, Ten high"),
        ("7c 7d 7h As 3d 9c Jd", "Three of a kind, Sevens"),
        ("Ac Ad 7h 7s Qd 3c 2h", "Two pair, Aces and Sevens, Queen kicker"),
        ("Jc Jd 2h 5s 8d 9c Kh", "Pair of Jacks"),
        ("Ac 3d 5h 8s Td Jc 2h", "High card, Ace"),
        ("6c 6d 6h 6s 2d", "Four of a kind, Sixes, Two kicker"),
        ("5c 4d 3h 2s Ac 5d Kh", "Straight, Five high"),
    ],
)
def test_descriptions_read_as_a_card_room_announces_them(hand: str, description: str) -> None:
    assert evaluate(cards(hand)).description == description


@pytest.mark.parametrize(
    ("hand", "best"),
    [
        ("As Kd 7c 7s 2h Ah Ac", "As Ah Ac 7s 7c"),
        ("5s 4s 3s 2s As Kd Kc", "5s 4s 3s 2s As"),
        ("Ah Qh 9h 5h 3h 2h 2d", "Ah Qh 9h 5h 3h"),
        ("Ac Ad 7h 7s Qd Qc 2h", "Ad Ac Qd Qc 7s"),
        ("Tc 9d 8h 7s 6c 6d 2h", "Tc 9d 8h 7s 6d"),
        ("Kc Kd Kh Ks Qc Qd Qh", "Ks Kh Kd Kc Qh"),
    ],
)
def test_best_five_lists_the_playing_cards_most_significant_first(hand: str, best: str) -> None:
    seven = cards(hand)
    assert [c.text for c in best_five(seven, evaluate(seven))] == best.split()


def test_seven_cards_are_worth_their_best_five_card_subset() -> None:
    rng = random.Random(20261122)
    for _ in range(300):
        hand = rng.sample(DECK, 7)
        best = max(evaluate(five) for five in combinations(hand, 5))
        assert evaluate(hand) == best
        assert max(evaluate(six) for six in combinations(hand, 6)) == best


def test_the_showdown_api_agrees_with_one_evaluation_per_player() -> None:
    rng = random.Random(7)
    for _ in range(300):
        deal = rng.sample(DECK, 5 + 2 * 6)
        board, holes = deal[:5], [deal[5 + 2 * i : 7 + 2 * i] for i in range(6)]
        assert evaluate_showdown(board, holes) == [evaluate(board + h) for h in holes]
        prepared = Board(tuple(board))
        assert [prepared.evaluate(h) for h in holes] == [evaluate(board + h) for h in holes]


def test_a_partial_board_evaluates_with_the_matching_table() -> None:
    flop = Board(cards("Ah Kh Qh"))
    assert flop.evaluate(cards("Jh Th")).description == "Royal flush"
    assert flop.evaluate(cards("Jh Th 2c")).description == "Royal flush"


def test_hand_values_compare_by_strength_so_max_and_equality_work() -> None:
    pair = evaluate(cards("Jc Jd 2h 5s 8d"))
    same = evaluate(cards("Jh Js 2c 5d 8c"))
    flush = evaluate(cards("Ah Qh 9h 5h 3h"))
    assert pair == same
    assert hash(pair) == hash(same)
    assert pair < flush
    assert flush > pair
    assert pair <= same
    assert flush >= same
    assert max([pair, flush, same]) is flush
    assert pair != flush


def test_a_repeated_card_is_refused_naming_both_positions() -> None:
    with pytest.raises(InvalidEvent, match=r"cards\[4\]: As is also cards\[0\]") as caught:
        evaluate(cards("As Kd 7c 7s As"))
    assert caught.value.code == "duplicate_card"
    for hand in ("As As Kd Qc Jh", "As Kd Qc Jh 2c As", "Kd As Qc Jh 2c 3d As"):
        with pytest.raises(InvalidEvent, match=r"holds a card twice|is also"):
            evaluate(cards(hand))


def test_the_showdown_api_refuses_a_card_shared_by_board_and_hand() -> None:
    with pytest.raises(InvalidEvent) as caught:
        evaluate_showdown(cards("Ah Kd 7c 7s 2h"), [cards("As Ac"), cards("Kd Qs")])
    assert caught.value.code == "duplicate_card"
    with pytest.raises(InvalidEvent) as caught:
        Board(cards("Ah Kd 7c 7s 2h")).evaluate(cards("2h 3c"))
    assert caught.value.code == "duplicate_card"
    with pytest.raises(InvalidEvent) as caught:
        Board(cards("Ah Ah 7c"))
    assert caught.value.code == "duplicate_card"


@pytest.mark.parametrize("count", [0, 1, 4, 8])
def test_a_hand_of_other_than_five_to_seven_cards_is_refused(count: int) -> None:
    with pytest.raises(InvalidEvent, match="5 to 7 cards") as caught:
        evaluate(DECK[:count])
    assert caught.value.code == "bad_card"
    with pytest.raises(InvalidEvent, match="at most 5"):
        Board(DECK[:6])
    with pytest.raises(InvalidEvent, match="5 to 7"):
        Board(DECK[:3]).evaluate(DECK[10:11])
