"""Eight-or-better low (the low half of Omaha Hi/Lo and stud Hi/Lo).

A low qualifies with five cards of different ranks, all eight or lower, the ace low; straights and flushes
do not count against it. There are 56 lows (five of the eight ranks A-8), ordered by the highest card,
then the next: ``strength`` 1 is 8-7-6-5-4, 56 is 5-4-3-2-A (the wheel). A hand without five different low
ranks has no low (``None``).

Only which low ranks a hand holds matters, so a hand is an 8-bit mask (bit 0 the ace, bit 7 the eight):

* any cards (stud Hi/Lo): the lowest five ranks of the mask, one lookup in a 256-entry table;
* Omaha (exactly two own and three board cards): the board's mask and the hand's mask make one key, whose
  answer is remembered (at most 65,536 keys). For each two low ranks of the hand, the three lowest board
  ranks not among them complete its best low: with two own ranks fixed, the lowest three others give the
  lowest five.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Final

from showdown_core.cards import Card
from showdown_core.evaluator import RANK_NAMES
from showdown_core.ranking import LowCategory, RankedValue, Ranking, Value, cards_of_ranks, spelled

LOW_BIT: Final = (0, 0, *(1 << (r - 1) for r in range(2, 9)), 0, 0, 0, 0, 0, 1)
"""Card rank (2..14) -> its bit in a low mask: the ace bit 0, the deuce bit 1 ... the eight bit 7; 0 above eight."""


def _describe(r: tuple[int, ...]) -> str:
    wheel = " (the wheel)" if r[0] == 5 else ""
    return f"{RANK_NAMES[r[0]]}-{RANK_NAMES[r[1]].lower()} low, {spelled(r)}{wheel}"


def _classes() -> tuple[RankedValue, ...]:
    lows = sorted(combinations(range(8, 0, -1), 5), reverse=True)  # worst (8-7-6-5-4) first
    return tuple(
        RankedValue("eight_or_better", strength, LowCategory.HIGH_CARD, ranks, _describe(ranks))
        for strength, ranks in enumerate(lows, start=1)
    )


VALUES: Final = _classes()
"""All 56 lows, worst first: ``VALUES[s - 1].strength == s``."""
_BY_MASK: Final = {sum(1 << (r - 1) for r in v.ranks): v for v in VALUES}


def _lowest(mask: int, n: int) -> int:
    """The ``n`` lowest ranks of the low mask ``mask`` (all of them if it has fewer)."""
    while mask.bit_count() > n:
        mask &= ~(1 << (mask.bit_length() - 1))  # drop the highest rank
    return mask


BEST: Final[tuple[RankedValue | None, ...]] = tuple(
    _BY_MASK[_lowest(mask, 5)] if mask.bit_count() >= 5 else None for mask in range(256)
)
"""Low mask of any number of cards -> their best low, or ``None``."""


def _omaha_low(board: int, own: int) -> RankedValue | None:
    """The best low of two ranks of ``own`` and three of ``board`` (low masks), or ``None``."""
    best: RankedValue | None = None
    own_bits = [1 << i for i in range(8) if own >> i & 1]
    for a, b in combinations(own_bits, 2):
        rest = _lowest(board & ~(a | b), 3)
        if rest.bit_count() < 3:
            continue
        low = _BY_MASK[a | b | rest]
        if best is None or low.strength > best.strength:
            best = low
    return best


_OMAHA: Final[dict[int, RankedValue | None]] = {}
"""``board mask << 8 | own mask`` -> the Omaha low, remembered as met (65,536 keys at most)."""


class EightOrBetter(Ranking):
    """The 8-or-better low: five different ranks, eight or lower, ace low."""

    name = "eight_or_better"
    ace_low = True
    values = VALUES

    def best(self, cards: Sequence[Card]) -> RankedValue | None:
        mask = 0
        for c in cards:
            mask |= LOW_BIT[c.rank]
        return BEST[mask]

    def with_board(self, board: Sequence[Card], holes: Sequence[Sequence[Card]]) -> list[Value | None]:
        low_bit, best = LOW_BIT, BEST
        common = 0
        for c in board:
            common |= low_bit[c.rank]
        out: list[Value | None] = []
        for hole in holes:
            mask = common
            for c in hole:
                mask |= low_bit[c.rank]
            out.append(best[mask])
        return out

    def omaha(self, board: Sequence[Card], holes: Sequence[Sequence[Card]]) -> list[Value | None]:
        low_bit, known = LOW_BIT, _OMAHA
        common = 0
        for c in board:
            common |= low_bit[c.rank]
        if common.bit_count() < 3:  # no three different low board cards: nobody has a low
            return [None] * len(holes)
        out: list[Value | None] = []
        for hole in holes:
            own = 0
            for c in hole:
                own |= low_bit[c.rank]
            key = common << 8 | own
            try:
                out.append(known[key])
            except KeyError:
                out.append(known.setdefault(key, _omaha_low(common, own)))
        return out

    def playing_cards(self, cards: Sequence[Card], value: Value) -> tuple[Card, ...]:
        return cards_of_ranks(cards, value.ranks)


EIGHT_OR_BETTER: Final = EightOrBetter()
