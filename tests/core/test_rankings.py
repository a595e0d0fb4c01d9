"""Every ranking, exhaustively where the space allows it, and against pokerkit's hand classes.

Each ranking (:mod:`showdown_core.ranking`) numbers its classes densely, 1 for its worst hand upward. Here:

* every five-card hand of the 52-card deck under the high-deck rankings, every five-card hand of the
  36-card deck under both short-deck orders, and every four-card badugi hand, counted by category against
  the counts of the rules (the poker probabilities every textbook gives), and every class reached;
* every class of every ranking, dealt as a hand, has the strength pokerkit's lookups give it (the strength
  mapping is :func:`tests.core.test_differential.hand_strength`'s);
* best-of-seven (stud, razz), Omaha's two-plus-three and badugi's largest rainbow set on random deals,
  against pokerkit's classes of every subset;
* descriptions, the cards that play, and bad input.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Final

import pytest

from showdown_core import DECK, Card, InvalidEvent, parse_cards
from showdown_core.ranking import RankedValue, Ranking, Value
from showdown_core.variants import ranking
from tests.core.test_differential import best_strength, hand_strength, omaha_strength

ALL: Final = ("high", "short_deck", "short_deck_straight_over_trips", "eight_or_better", "ace_to_five")
ALL_RANKINGS: Final = (*ALL, "deuce_to_seven", "badugi")
SHORT_DECK: Final = tuple(c for c in DECK if c.rank >= 6)


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text.split())


def texts(hand: Iterable[Card]) -> list[str]:
    return [c.text for c in hand]


def census(rank: Ranking, hands: Iterable[Sequence[Card]]) -> tuple[Counter[str], set[int]]:
    """Hands per category, and the strengths reached (``none`` for a hand that makes no hand of ``rank``)."""
    counts: Counter[str] = Counter()
    reached: set[int] = set()
    for hand in hands:
        value = rank.best(hand)
        if value is None:
            counts["none"] += 1
        else:
            counts[value.category.wire] += 1
            reached.add(value.strength)
    return counts, reached


# --- exhaustive ---------------------------------------------------------------------------------------------


def test_every_five_card_hand_under_ace_to_five_falls_in_the_categories_of_the_rules() -> None:
    counts, reached = census(ranking("ace_to_five"), combinations(DECK, 5))
    assert counts == {  # straights and flushes count for nothing: they are no-pair hands
        "high_card": 1_317_888,
        "one_pair": 1_098_240,
        "two_pair": 123_552,
        "three_of_a_kind": 54_912,
        "full_house": 3_744,
        "four_of_a_kind": 624,
    }
    assert reached == set(range(1, 6_175 + 1))


def test_every_five_card_hand_under_eight_or_better_qualifies_only_with_five_ranks_of_eight_or_lower() -> None:
    counts, reached = census(ranking("eight_or_better"), combinations(DECK, 5))
    assert counts == {"high_card": 56 * 4**5, "none": 2_598_960 - 56 * 4**5}
    assert reached == set(range(1, 56 + 1))


def test_every_five_card_hand_under_deuce_to_seven_reads_the_wheels_as_ace_high() -> None:
    counts, reached = census(ranking("deuce_to_seven"), combinations(DECK, 5))
    assert counts == {
        "high_card": 1_302_540 + 1_020,  # A-5-4-3-2 offsuit is no straight
        "one_pair": 1_098_240,
        "two_pair": 123_552,
        "three_of_a_kind": 54_912,
        "straight": 10_200 - 1_020,
        "flush": 5_108 + 4,  # A-5-4-3-2 suited is a flush
        "full_house": 3_744,
        "four_of_a_kind": 624,
        "straight_flush": 40 - 4,
    }
    assert reached == set(range(1, 7_462 + 1))


@pytest.mark.parametrize("name", ["short_deck", "short_deck_straight_over_trips"])
def test_every_five_card_hand_of_the_36_card_deck_falls_in_the_categories_of_the_rules(name: str) -> None:
    counts, reached = census(ranking(name), combinations(SHORT_DECK, 5))
    assert counts == {
        "high_card": 120 * 1_020,
        "one_pair": 193_536,
        "two_pair": 36_288,
        "three_of_a_kind": 16_128,
        "straight": 6 * 1_020,  # A-6-7-8-9 to T-J-Q-K-A
        "flush": 480,
        "full_house": 1_728,
        "four_of_a_kind": 288,
        "straight_flush": 24,
    }
    assert sum(counts.values()) == 376_992
    assert reached == set(range(1, 1_404 + 1))


def _badugi_by_definition(hand: Sequence[Card]) -> tuple[int, tuple[int, ...]]:
    """(cards that play, their ranks highest first, ace 1): the largest set of different suits and ranks, the
    lowest of those."""
    for size in (4, 3, 2, 1):
        sets = [
            tuple(sorted((1 if c.rank == 14 else c.rank for c in s), reverse=True))
            for s in combinations(hand, size)
            if len({c.suit for c in s}) == size and len({c.rank for c in s}) == size
        ]
        if sets:
            return size, min(sets)
    raise AssertionError("one card is always a hand")


def test_every_four_card_badugi_hand_plays_its_largest_rainbow_set_and_the_lowest_of_them() -> None:
    badugi = ranking("badugi")
    counts: Counter[str] = Counter()
    reached: set[int] = set()
    for i, hand in enumerate(combinations(DECK, 4)):
        value = badugi.best(hand)
        assert value is not None, "every badugi hand plays at least one card"
        counts[value.category.wire] += 1
        reached.add(value.strength)
        if i % 7 == 0:  # the definition is slow: every seventh hand, 38,675 of them
            assert (len(value.ranks), value.ranks) == _badugi_by_definition(hand), texts(hand)
    assert counts["badugi"] == 715 * 24  # four ranks, and the four suits among them
    assert sum(counts.values()) == 270_725
    assert reached == set(range(1, 1_092 + 1))


# --- against pokerkit's classes -------------------------------------------------------------------------------


def _representative(rank: Ranking, value: Value, deck: Sequence[Card]) -> tuple[Card, ...]:
    """A hand of ``value``'s class (its ranks; suited only for a flush or straight flush; rainbow in badugi)."""
    wanted = [14 if r == 1 else r for r in value.ranks]
    suited = value.category.wire in ("flush", "straight_flush")
    taken: list[Card] = []
    for i, r in enumerate(wanted):
        pool = [c for c in deck if c.rank == r and c not in taken]
        if suited:
            pool = [c for c in pool if c.suit == 3]
        elif value.category.wire in ("high_card", "straight", "badugi", "three_card", "two_card"):
            pool = [c for c in pool if c.suit == i % 4]  # never five of a suit; badugi: a suit each
        taken.append(pool[0])
    hand = tuple(taken)
    assert rank.best(hand) is value, (texts(hand), value)
    return hand


@pytest.mark.parametrize("name", ALL_RANKINGS)
def test_every_class_has_the_strength_pokerkits_lookup_gives_it(name: str) -> None:
    rank = ranking(name)
    deck = SHORT_DECK if name.startswith("short_deck") else DECK
    values = rank.values
    assert [v.strength for v in values] == list(range(1, len(values) + 1))
    for value in values:
        hand = _representative(rank, value, deck)
        assert hand_strength(name, texts(hand)) == value.strength, (name, texts(hand), value)


@pytest.mark.parametrize("name", ALL)
def test_the_best_five_of_seven_random_cards_is_pokerkits_best_class(name: str) -> None:
    rng = random.Random(name)
    rank = ranking(name)
    deck = SHORT_DECK if name.startswith("short_deck") else DECK
    for _ in range(3_000):
        seven = rng.sample(deck, 7)
        value = rank.best(seven)
        assert (None if value is None else value.strength) == best_strength(name, frozenset(texts(seven))), texts(seven)
        if value is not None:
            five = rank.playing_cards(seven, value)
            assert len(five) == 5
            assert set(five) <= set(seven)
            assert rank.best(five) is value


@pytest.mark.parametrize(
    ("name", "own"), [("high", 4), ("high", 5), ("high", 6), ("eight_or_better", 4), ("eight_or_better", 5)]
)
def test_omaha_hands_of_two_own_and_three_board_cards_are_pokerkits_best_class(name: str, own: int) -> None:
    rng = random.Random(f"{name}{own}")
    rank = ranking(name)
    for _ in range(400):
        players = rng.randint(2, 47 // own if own < 6 else 7)
        dealt = rng.sample(DECK, 5 + own * players)
        board, holes = dealt[:5], [dealt[5 + own * i : 5 + own * (i + 1)] for i in range(players)]
        values = rank.omaha(board, holes)
        for hole, value in zip(holes, values, strict=True):
            want = omaha_strength(name, texts(hole), texts(board))
            assert (None if value is None else value.strength) == want, (texts(board), texts(hole))
            if value is not None:
                five = rank.omaha_playing_cards(board, hole, value)
                assert len(set(five) & set(hole)) == 2
                assert len(set(five) & set(board)) == 3


@pytest.mark.parametrize("own", [4, 5, 6])
def test_omaha_high_finds_the_cards_that_play_as_the_general_search_does(own: int) -> None:
    # High values the fives from their tallies (showdown_core.evaluator.omaha_five): the same five, in the same
    # search order, as Ranking's general search, flushes included (half the deals are mostly of one suit)
    rng = random.Random(f"omaha five {own}")
    rank = ranking("high")
    for k in range(600):
        if k % 2:
            suit = rng.choice(DECK).suit
            dealt = rng.sample([c for c in DECK if c.suit == suit], 5 + own - 2)
            dealt += rng.sample([c for c in DECK if c.suit != suit], 2)
            rng.shuffle(dealt)
        else:
            dealt = rng.sample(DECK, 5 + own)
        board, hole = dealt[:5], dealt[5:]
        (value,) = rank.omaha(board, [hole])
        assert value is not None
        assert rank.omaha_playing_cards(board, hole, value) == Ranking.omaha_playing_cards(rank, board, hole, value)


# --- rules, descriptions, cards that play ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "hand", "description"),
    [
        ("eight_or_better", "8c 6d 4h 2s Ac", "Eight-six low, 8-6-4-2-A"),
        ("eight_or_better", "5c 4d 3h 2s Ac", "Five-four low, 5-4-3-2-A (the wheel)"),
        ("ace_to_five", "Kc Qd Jh 9s 8c", "King-queen low, K-Q-J-9-8"),
        ("ace_to_five", "Ac Ad 5h 3s 2c", "Pair of Aces, A-A-5-3-2"),
        ("deuce_to_seven", "7c 5d 4h 3s 2c", "Seven-five low, 7-5-4-3-2 (number one)"),
        ("deuce_to_seven", "As 5c 4d 3h 2s", "Ace-five low, A-5-4-3-2"),
        ("deuce_to_seven", "7h 5h 4h 3h 2h", "Flush, Seven-Five high"),
        ("badugi", "8c 5d 3h 2s", "Badugi, 8-5-3-2"),
        ("badugi", "Ac 2c 8d 9h", "Three-card hand, 9-8-A"),
        ("badugi", "Kc Kd Kh Ks", "One-card hand, K"),
        ("short_deck", "As 6c 7d 8h 9s", "Straight, Nine high"),
        ("short_deck", "9h 8h 7h 6h Ah", "Straight flush, Nine high"),
    ],
)
def test_hands_are_described_as_a_card_room_says_them(name: str, hand: str, description: str) -> None:
    value = ranking(name).best(cards(hand))
    assert value is not None
    assert value.description == description


@pytest.mark.parametrize(
    ("name", "hand", "playing"),
    [
        ("ace_to_five", "Ac Ad 2c 2d 3h 3s Kc", "Ad Ac Kc 3s 2d"),  # four ranks: one pair, the lowest
        ("ace_to_five", "7c 7s 5d 4h 2c Ah Kd", "7s 5d 4h 2c Ah"),  # of two sevens, the higher suit plays
        ("eight_or_better", "8c 6d 4h 2s Ac Kd 3c", "6d 4h 3c 2s Ac"),
        ("badugi", "Ah 2c 2d 3c", "3c 2d Ah"),  # the deuce of clubs would repeat a suit
    ],
)
def test_the_cards_that_play_are_listed_most_significant_first(name: str, hand: str, playing: str) -> None:
    rank = ranking(name)
    value = rank.best(cards(hand))
    assert value is not None
    assert texts(rank.playing_cards(cards(hand), value)) == playing.split()


def test_values_of_a_ranking_order_by_strength_and_are_interned() -> None:
    razz = ranking("ace_to_five")
    wheel, pair = razz.best(cards("5c 4d 3h 2s Ac")), razz.best(cards("Ac Ad 5h 3s 2c"))
    assert isinstance(wheel, RankedValue)
    assert isinstance(pair, RankedValue)
    assert max(wheel, pair) is wheel
    assert wheel > pair
    assert razz.best(cards("5s 4s 3s 2s As")) is wheel  # suits never matter in razz


def test_a_ranking_refuses_a_hand_it_cannot_value_naming_why() -> None:
    with pytest.raises(InvalidEvent, match="5 cards, got 4"):
        ranking("ace_to_five").best(cards("Ac 2d 3h 4s"))
    with pytest.raises(InvalidEvent, match="4 cards, got 5"):
        ranking("badugi").best(cards("Ac 2d 3h 4s 5c"))
    with pytest.raises(InvalidEvent) as short:
        ranking("short_deck").best(cards("As 5c 7d 8h 9s"))
    assert short.value.code == "card_not_in_deck"
    assert "5c" in str(short.value)
