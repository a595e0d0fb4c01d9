"""Badugi: four cards; the hand plays its largest set of cards of different suits and different ranks.

A badugi (four cards, four suits, four ranks) beats any three-card hand, which beats any two-card hand,
which beats any one-card hand. The ace is low. Among hands of as many cards, the lower highest card wins,
then the next (4-3-2-A is the best badugi; 4-3-2 beats 9-8-A among three-card hands). A hand of four cards
may hold several largest sets: the best of them plays.

1,092 classes (715 badugis, 286 three-card, 78 two-card and 13 one-card hands): ``strength`` 1 is a lone
king, 1,092 is 4-3-2-A. A class is the set of ranks that plays, so a 13-bit rank mask (ace bit 0) finds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Final

from showdown_core.cards import Card
from showdown_core.errors import InvalidEvent
from showdown_core.ranking import LowCategory, RankedValue, Ranking, Value, cards_of_ranks, spelled

_CATEGORY: Final = {4: LowCategory.BADUGI, 3: LowCategory.THREE_CARD, 2: LowCategory.TWO_CARD, 1: LowCategory.ONE_CARD}
_NAME: Final = {4: "Badugi", 3: "Three-card hand", 2: "Two-card hand", 1: "One-card hand"}
_LOW_RANK: Final = (0, 0, *range(2, 14), 1)
"""Card rank (2..14) -> its rank in badugi (the ace is 1)."""


def _classes() -> tuple[RankedValue, ...]:
    worst_first = [
        ranks for size in (1, 2, 3, 4) for ranks in sorted(combinations(range(13, 0, -1), size), reverse=True)
    ]
    return tuple(
        RankedValue("badugi", strength, _CATEGORY[len(r)], r, f"{_NAME[len(r)]}, {spelled(r)}")
        for strength, r in enumerate(worst_first, start=1)
    )


VALUES: Final = _classes()
"""All 1,092 values, worst first: ``VALUES[s - 1].strength == s``."""
_BY_MASK: Final = {sum(1 << (r - 1) for r in v.ranks): v for v in VALUES}
_SUBSETS: Final = tuple(tuple(combinations(range(4), size)) for size in (4, 3, 2, 1))
"""Positions of the subsets of four cards, largest first."""


class Badugi(Ranking):
    """Badugi: the largest set of different suits and ranks, lowest first, ace low."""

    name = "badugi"
    ace_low = True
    values = VALUES

    def best(self, cards: Sequence[Card]) -> RankedValue:
        if not 1 <= len(cards) <= 4:
            raise InvalidEvent.of("bad_hole_cards", "cards", f"a badugi hand is 4 cards, got {len(cards)}")
        low = _LOW_RANK
        ranks = [1 << (low[c.rank] - 1) for c in cards]
        suits = [1 << c.suit for c in cards]
        for subsets in _SUBSETS:
            best: RankedValue | None = None
            for subset in subsets:
                if len(subset) > len(cards) or subset[-1] >= len(cards):
                    continue
                rank_mask = suit_mask = 0
                for i in subset:
                    rank_mask |= ranks[i]
                    suit_mask |= suits[i]
                if rank_mask.bit_count() == suit_mask.bit_count() == len(subset):
                    value = _BY_MASK[rank_mask]
                    if best is None or value.strength > best.strength:
                        best = value
            if best is not None:
                return best
        raise AssertionError("a single card is always a hand")  # pragma: no cover

    def playing_cards(self, cards: Sequence[Card], value: Value) -> tuple[Card, ...]:
        size = len(value.ranks)
        playing = cards if len(cards) == size else self.five_making(cards, value, size)
        return cards_of_ranks(playing, value.ranks)


BADUGI: Final = Badugi()
