"""Short-deck (6+) hold'em high: best five cards of a 36-card deck (sixes to aces).

Three rule changes from the standard high hand: A-6-7-8-9 is the lowest straight (and straight flush);
a flush beats a full house (fewer cards of a suit make it rarer); and three of a kind beats a straight,
the order of Triton and of the online rooms' 6+ games (:data:`SHORT_DECK`). The WSOP's live rules rank a
straight above three of a kind: :data:`SHORT_DECK_STRAIGHT_OVER_TRIPS`.

1,404 classes, ``strength`` 1 (J-9-8-7-6, the worst high card) to 1,404 (royal flush);
the two orders differ only in where the 252 three-of-a-kind classes and the 6 straights sit.

Evaluation as in :mod:`showdown_core.evaluator`: the sum of the cards' rank keys indexes a table of the
best hand without a flush (five, six or seven cards); the sum of their suit keys tells whether five share a
suit, and then that suit's rank mask indexes the flush table. With at most seven cards a flush excludes a
full house and four of a kind, so it is the hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from operator import attrgetter
from typing import Final

from showdown_core.cards import Card
from showdown_core.errors import InvalidEvent
from showdown_core.evaluator import FLUSH_SUIT, Category, best_five, class_members, describe, rank_multisets
from showdown_core.ranking import STRENGTH, RankedValue, Ranking, Value

LOWEST: Final = 6
_RANKS: Final = range(14, LOWEST - 1, -1)
_STRAIGHTS: Final = ((9, 8, 7, 6, 14), *(tuple(range(top, top - 5, -1)) for top in range(10, 15)))
"""Every straight, lowest (A-6-7-8-9, nine-high) first."""


def _class_order(trips_over_straight: bool) -> list[tuple[Category, tuple[int, ...]]]:
    """Every class, weakest first: a flush above a full house, and trips above a straight or below it."""
    members = class_members(_RANKS, _STRAIGHTS)
    middle = [Category.STRAIGHT, Category.THREE_OF_A_KIND]
    order = [
        Category.HIGH_CARD,
        Category.ONE_PAIR,
        Category.TWO_PAIR,
        *(middle if trips_over_straight else middle[::-1]),
        Category.FULL_HOUSE,
        Category.FLUSH,
        Category.FOUR_OF_A_KIND,
        Category.STRAIGHT_FLUSH,
    ]
    return [(category, ranks) for category in order for ranks in members[category]]


def _straight(ranks: set[int]) -> tuple[int, ...] | None:
    """The highest straight among ``ranks``, or ``None``."""
    return next((s for s in reversed(_STRAIGHTS) if ranks.issuperset(s)), None)


def _candidates(desc: tuple[int, ...]) -> list[tuple[Category, tuple[int, ...]]]:
    """Every class any five of the ranks ``desc`` (descending, 5 to 7) can make without a flush, best of
    each kind: the order chooses among them."""
    counts = Counter(desc)
    distinct = sorted(counts, reverse=True)
    found: list[tuple[Category, tuple[int, ...]]] = []
    quads = [r for r in distinct if counts[r] == 4]
    trips = [r for r in distinct if counts[r] >= 3]
    pairs = [r for r in distinct if counts[r] >= 2]
    if quads:
        q = quads[0]
        found.append((Category.FOUR_OF_A_KIND, (q, q, q, q, next(r for r in distinct if r != q))))
    if trips and len(pairs) > 1:
        t = trips[0]
        p = next(r for r in pairs if r != t)
        found.append((Category.FULL_HOUSE, (t, t, t, p, p)))
    straight = _straight(set(distinct))
    if straight:
        found.append((Category.STRAIGHT, straight))
    if trips and len(distinct) >= 3:
        t = trips[0]
        found.append((Category.THREE_OF_A_KIND, (t, t, t, *[r for r in distinct if r != t][:2])))
    if len(pairs) > 1 and len(distinct) >= 3:
        h, lo = pairs[:2]
        found.append((Category.TWO_PAIR, (h, h, lo, lo, next(r for r in distinct if r not in (h, lo)))))
    if pairs and len(distinct) >= 4:
        p = pairs[0]
        found.append((Category.ONE_PAIR, (p, p, *[r for r in distinct if r != p][:3])))
    if len(distinct) >= 5 and not straight:  # (a straight beats any high card)
        found.append((Category.HIGH_CARD, tuple(distinct[:5])))
    return found


class ShortDeck(Ranking):
    """6+ hold'em's high hand, in one of the two orders of three of a kind and straights."""

    def __init__(self, name: str, trips_over_straight: bool) -> None:
        self.name = name
        order = _class_order(trips_over_straight)
        values = tuple(
            RankedValue(name, strength, category, ranks, describe(category, ranks))
            for strength, (category, ranks) in enumerate(order, start=1)
        )
        self.values = values
        by_class = {(v.category, v.ranks): v for v in values}
        self._plain: dict[int, RankedValue] = {}
        for size in (5, 6, 7):
            for key, desc in rank_multisets(size, LOWEST):
                self._plain[key] = max((by_class[c] for c in _candidates(desc)), key=STRENGTH)
        self._flush: dict[int, RankedValue] = {}
        for size in range(5, 10):
            for ranks in combinations(_RANKS, size):
                bits = sum(1 << (r - 2) for r in ranks)
                straight = _straight(set(ranks))
                category, five = (Category.STRAIGHT_FLUSH, straight) if straight else (Category.FLUSH, tuple(ranks[:5]))
                self._flush[bits] = by_class[category, five]

    def best(self, cards: Sequence[Card]) -> RankedValue:
        n = len(cards)
        if n > 7:
            return max((self.best(seven) for seven in combinations(cards, 7)), key=STRENGTH)
        if n < 5:
            raise InvalidEvent.of("bad_card", "cards", f"a poker hand is 5 to 7 cards, got {n}")
        rank_sum = suit_sum = 0
        for c in cards:
            rank_sum += c.rank_key
            suit_sum += c.suit_key
        suit = FLUSH_SUIT[n][suit_sum]
        try:
            if suit < 0:
                return self._plain[rank_sum]
            return self._flush[sum([c.bit for c in cards if c.suit == suit])]
        except KeyError:
            low = min(cards, key=attrgetter("rank"))
            raise InvalidEvent.of("card_not_in_deck", "cards", f"{low} is not in the 36-card deck (6 to ace)") from None

    def playing_cards(self, cards: Sequence[Card], value: Value) -> tuple[Card, ...]:
        return best_five(cards, value)  # type: ignore[arg-type]  # best_five reads category and ranks only


SHORT_DECK: Final = ShortDeck("short_deck", trips_over_straight=True)
"""Three of a kind beats a straight (Triton, the online rooms' 6+ games): the default."""
SHORT_DECK_STRAIGHT_OVER_TRIPS: Final = ShortDeck("short_deck_straight_over_trips", trips_over_straight=False)
"""A straight beats three of a kind (the WSOP's live rules)."""
