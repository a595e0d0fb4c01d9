"""Ace-to-five low (razz): the lowest five cards win; the ace is low; pairs count against a hand; straights
and flushes do not.

Every five-card hand is one of 6,175 classes (one per multiset of ranks), ordered best first as: no pair,
one pair, two pair, three of a kind, full house, four of a kind; within a category, the lower highest
group wins, then the next (pairs before kickers: 6-6-3-2-A beats 7-7-3-2-A, which beats 7-7-4-2-A).
``strength`` numbers them from 1 (K-K-K-K-Q) to 6,175 (5-4-3-2-A, the wheel), so, as in every ranking,
higher wins.

Suits never matter, so a hand's value is looked up by the sum of its cards' rank keys (the same
:data:`~showdown_core.cards.RANK_KEYS` the high evaluator uses, unique for 5, 6 or 7 ranks): five cards
directly; six and seven cards in tables where each multiset holds the best of its multisets one rank
smaller (built once, about 0.1 s).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from typing import Final

from showdown_core.cards import RANK_KEYS, Card
from showdown_core.errors import InvalidEvent
from showdown_core.evaluator import RANK_NAMES, Category, describe, rank_multisets
from showdown_core.ranking import STRENGTH, LowCategory, RankedValue, Ranking, Value, cards_of_ranks, spelled

_SHAPES: Final = {
    (1, 1, 1, 1, 1): LowCategory.HIGH_CARD,
    (2, 1, 1, 1): LowCategory.ONE_PAIR,
    (2, 2, 1): LowCategory.TWO_PAIR,
    (3, 1, 1): LowCategory.THREE_OF_A_KIND,
    (3, 2): LowCategory.FULL_HOUSE,
    (4, 1): LowCategory.FOUR_OF_A_KIND,
}
"""Rank counts, largest first -> category. The order of this table is the categories' order, best first."""
_ORDER: Final = {category: i for i, category in enumerate(_SHAPES.values())}


def _grouped(desc: tuple[int, ...]) -> tuple[LowCategory, tuple[int, ...]]:
    """A five-card rank multiset (ace as 1) as (category, ranks by group: pairs first, each group highest first)."""
    counts = Counter(desc)
    ranks = sorted(desc, key=lambda r: (counts[r], r), reverse=True)
    return _SHAPES[tuple(sorted(counts.values(), reverse=True))], tuple(ranks)


def _describe(category: LowCategory, r: tuple[int, ...]) -> str:
    """``Eight-six low, 8-6-4-2-A``; a paired hand as a high hand says it, then its ranks (the ace as 1)."""
    if category is LowCategory.HIGH_CARD:
        wheel = " (the wheel)" if r[0] == 5 else ""
        return f"{RANK_NAMES[r[0]]}-{RANK_NAMES[r[1]].lower()} low, {spelled(r)}{wheel}"
    return f"{describe(Category(category), r)}, {spelled(r)}"


def _card_rank(rank: int) -> int:
    return 14 if rank == 1 else rank


def _classes() -> tuple[RankedValue, ...]:
    found = []
    for desc in ((1 if r == 14 else r for r in desc) for _, desc in rank_multisets(5)):
        category, ranks = _grouped(tuple(desc))
        found.append((_ORDER[category], ranks, category))
    found.sort(reverse=True)  # worst first: the highest category, then the highest groups
    return tuple(
        RankedValue("ace_to_five", strength, category, ranks, _describe(category, ranks))
        for strength, (_, ranks, category) in enumerate(found, start=1)
    )


VALUES: Final = _classes()
"""All 6,175 values, worst first: ``VALUES[s - 1].strength == s``."""


def _key(ranks: Sequence[int]) -> int:
    return sum(RANK_KEYS[_card_rank(r) - 2] for r in ranks)


_FIVE: Final[dict[int, RankedValue]] = {_key(v.ranks): v for v in VALUES}


def _extend(smaller: dict[int, RankedValue], size: int) -> dict[int, RankedValue]:
    """Rank-key sum of ``size`` cards -> the best of their multisets one rank smaller."""
    return {
        key: max((smaller[key - RANK_KEYS[r - 2]] for r in set(desc)), key=STRENGTH)
        for key, desc in rank_multisets(size)
    }


_SIX: Final = _extend(_FIVE, 6)
_SEVEN: Final = _extend(_SIX, 7)
_BY_SIZE: Final = {5: _FIVE, 6: _SIX, 7: _SEVEN}


class AceToFive(Ranking):
    """Razz: the best (lowest) five of five to seven cards, ace low, pairs against, straights and flushes not."""

    name = "ace_to_five"
    ace_low = True
    values = VALUES

    def best(self, cards: Sequence[Card]) -> RankedValue:
        table = _BY_SIZE.get(len(cards))
        if table is None:
            if len(cards) < 5:
                raise InvalidEvent.of("bad_hole_cards", "cards", f"an ace-to-five hand is 5 cards, got {len(cards)}")
            return max((_FIVE[_key_of(five)] for five in combinations(cards, 5)), key=STRENGTH)
        return table[_key_of(cards)]

    def playing_cards(self, cards: Sequence[Card], value: Value) -> tuple[Card, ...]:
        return cards_of_ranks(cards, value.ranks)


def _key_of(cards: Sequence[Card]) -> int:
    return sum([c.rank_key for c in cards])


ACE_TO_FIVE: Final = AceToFive()
