"""The numpy batch evaluator, including every 5- and 7-card hand there is."""

from __future__ import annotations

from math import comb

import numpy as np
import numpy.typing as npt
import pytest

from showdown_core import DECK, Category, InvalidEvent, evaluate
from showdown_core.batch import categories, evaluate_batch


def colex(m: int, k: int) -> npt.NDArray[np.uint8]:
    """All k-subsets of range(m) in colexicographic order, as a ``(C(m, k), k)`` array.

    In colex order the subsets of range(j) come first, so any prefix of
    ``C(j, k)`` rows is exactly the k-subsets of range(j).
    """
    table = np.arange(m, dtype=np.uint8)[:, None]
    for size in range(2, k + 1):
        blocks = []
        for top in range(size - 1, m):
            n = comb(top, size - 1)
            block = np.empty((n, size), dtype=np.uint8)
            block[:, :-1] = table[:n]
            block[:, -1] = top
            blocks.append(block)
        table = np.concatenate(blocks)
    return table


def category_counts(strengths: npt.NDArray[np.int64]) -> dict[str, int]:
    """Hands per category, from a histogram of strengths (index = strength)."""
    per_category = np.bincount(categories(np.arange(1, len(strengths))), weights=strengths[1:], minlength=9)
    return {c.wire: int(per_category[c]) for c in Category}


def test_all_2598960_five_card_hands_take_7462_distinct_values_in_the_known_counts() -> None:
    hands = colex(52, 5)
    assert len(hands) == 2_598_960
    histogram = np.bincount(evaluate_batch(hands), minlength=7463)
    assert np.count_nonzero(histogram) == 7462
    assert category_counts(histogram) == {
        "high_card": 1_302_540,
        "one_pair": 1_098_240,
        "two_pair": 123_552,
        "three_of_a_kind": 54_912,
        "straight": 10_200,
        "flush": 5_108,
        "full_house": 3_744,
        "four_of_a_kind": 624,
        "straight_flush": 40,
    }


def test_all_133784560_seven_card_hands_fall_in_the_known_category_counts() -> None:
    six = colex(51, 6)
    histogram = np.zeros(7463, dtype=np.int64)
    total = 0
    for top in range(6, 52):  # the hand's highest card; the other six are the first C(top, 6) rows
        n = comb(top, 6)
        hands = np.empty((n, 7), dtype=np.uint8)
        hands[:, :6] = six[:n]
        hands[:, 6] = top
        histogram += np.bincount(evaluate_batch(hands, check=False), minlength=7463)
        total += n
    assert total == comb(52, 7) == 133_784_560
    assert category_counts(histogram) == {
        "high_card": 23_294_460,
        "one_pair": 58_627_800,
        "two_pair": 31_433_400,
        "three_of_a_kind": 6_461_620,
        "straight": 6_180_020,
        "flush": 4_047_644,
        "full_house": 3_473_184,
        "four_of_a_kind": 224_848,
        "straight_flush": 41_584,
    }
    assert np.count_nonzero(histogram) == 4824


@pytest.mark.parametrize("size", [5, 6, 7])
def test_the_batch_path_agrees_with_the_scalar_evaluator_on_random_hands(size: int) -> None:
    rng = np.random.default_rng(size)
    hands = np.argsort(rng.random((20_000, 52)), axis=1)[:, :size]
    expected = [evaluate([DECK[i] for i in row]).strength for row in hands]
    assert evaluate_batch(hands).tolist() == expected
    assert evaluate_batch(hands, threads=1).tolist() == expected
    assert evaluate_batch(hands.astype(np.int64), check=False).tolist() == expected


def test_categories_map_each_strength_to_its_category() -> None:
    strengths = np.array([1, 1277, 1278, 7452, 7453, 7462])
    assert categories(strengths).tolist() == [0, 0, 1, 7, 8, 8]


def test_a_batch_row_with_a_repeated_card_is_refused_by_row_number() -> None:
    hands = np.tile(np.arange(7, dtype=np.uint8), (100_000, 1))
    hands[70_001, 3] = hands[70_001, 0]
    with pytest.raises(InvalidEvent, match=r"cards\[70001\]") as caught:
        evaluate_batch(hands)
    assert caught.value.code == "duplicate_card"


def test_a_batch_card_index_outside_the_deck_is_refused_by_row_number() -> None:
    hands = np.tile(np.arange(5, dtype=np.int16), (10, 1))
    hands[4, 2] = 52
    with pytest.raises(InvalidEvent, match=r"cards\[4\].*outside 0..51") as caught:
        evaluate_batch(hands)
    assert caught.value.code == "bad_card"
    hands[4, 2] = -1
    with pytest.raises(InvalidEvent, match=r"cards\[4\]"):
        evaluate_batch(hands)


@pytest.mark.parametrize(
    "bad",
    [np.zeros((3, 4), dtype=np.uint8), np.zeros((3, 8), dtype=np.uint8), np.zeros(7), np.zeros((2, 7), dtype=float)],
)
def test_a_batch_of_the_wrong_shape_or_type_is_refused(bad: npt.NDArray[np.generic]) -> None:
    with pytest.raises(InvalidEvent, match=r"\(N, 5..7\) integer array"):
        evaluate_batch(bad)


def test_an_empty_batch_gives_an_empty_result() -> None:
    assert evaluate_batch(np.empty((0, 7), dtype=np.uint8)).shape == (0,)
