"""Deuce-to-seven low (2-7 single and triple draw): the worst high hand wins.

Aces are high only, and straights and flushes count against a hand, so the best hand is 7-5-4-3-2 of mixed
suits ("number one") and A-5-4-3-2 is no straight but an ace-high hand. The 7,462 classes are the high
hand's, with the two wheels (5-4-3-2-A straight and straight flush) re-read as ace-high (a high card
and a flush), in reverse: ``strength`` 1 is a royal flush, 7,462 is 7-5-4-3-2, and higher wins.

A five-card hand is valued by the high evaluator, then mapped through a 7,462-entry table.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Final

from showdown_core.cards import Card
from showdown_core.errors import InvalidEvent
from showdown_core.evaluator import RANK_NAMES, Category, HandValue, describe, evaluate
from showdown_core.evaluator import VALUES as HIGH_VALUES
from showdown_core.ranking import STRENGTH, LowCategory, RankedValue, Ranking, Value, cards_of_ranks, spelled

_WHEEL: Final = (5, 4, 3, 2, 14)
_ACE_FIVE: Final = (14, 5, 4, 3, 2)


def _as_deuce(value: HandValue) -> tuple[Category, tuple[int, ...]]:
    """A high hand as deuce-to-seven reads it: the wheels are ace-high."""
    if value.ranks == _WHEEL:
        return (Category.HIGH_CARD if value.category is Category.STRAIGHT else Category.FLUSH), _ACE_FIVE
    return value.category, value.ranks


def _describe(category: Category, r: tuple[int, ...]) -> str:
    if category is Category.HIGH_CARD:
        number_one = " (number one)" if r == (7, 5, 4, 3, 2) else ""
        return f"{RANK_NAMES[r[0]]}-{RANK_NAMES[r[1]].lower()} low, {spelled(r)}{number_one}"
    return describe(category, r)


def _classes() -> tuple[tuple[RankedValue, ...], tuple[RankedValue, ...]]:
    """The deuce-to-seven values, worst first, and the table from a high strength to its deuce value."""
    worst_first = sorted({_as_deuce(v) for v in HIGH_VALUES}, reverse=True)  # the best high hand first
    values = tuple(
        RankedValue("deuce_to_seven", strength, LowCategory(category), ranks, _describe(category, ranks))
        for strength, (category, ranks) in enumerate(worst_first, start=1)
    )
    by_class = {(v.category, v.ranks): v for v in values}
    by_high = tuple(by_class[LowCategory(c), r] for c, r in (_as_deuce(v) for v in HIGH_VALUES))
    return values, by_high


VALUES, _BY_HIGH_STRENGTH = _classes()
"""All 7,462 values, worst first (``VALUES[s - 1].strength == s``); and by high strength - 1, the deuce value."""


class DeuceToSeven(Ranking):
    """2-7 lowball: five cards, aces high, straights and flushes count against the hand."""

    name = "deuce_to_seven"
    values = VALUES

    def best(self, cards: Sequence[Card]) -> RankedValue:
        if len(cards) == 5:
            return _BY_HIGH_STRENGTH[evaluate(cards).strength - 1]
        if len(cards) < 5:
            raise InvalidEvent.of("bad_hole_cards", "cards", f"a deuce-to-seven hand is 5 cards, got {len(cards)}")
        return max((self.best(five) for five in combinations(cards, 5)), key=STRENGTH)

    def playing_cards(self, cards: Sequence[Card], value: Value) -> tuple[Card, ...]:
        five = cards if len(cards) == 5 else self.five_making(cards, value)
        return cards_of_ranks(five, value.ranks)


DEUCE_TO_SEVEN: Final = DeuceToSeven()
