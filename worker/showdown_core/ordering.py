"""Values ordered by their ``strength`` alone: the one comparison every hand value of every ranking shares.

:class:`~showdown_core.evaluator.HandValue` (standard high) and :class:`~showdown_core.ranking.RankedValue` (every
other ranking) are interned, so ``==`` and ``hash`` stay identity (C speed); only the order is by ``strength``
(higher wins, equal ties), written once here.
"""

from __future__ import annotations

from typing import Self


class ByStrength:
    """Mixin for a frozen, slotted dataclass with an ``int`` field ``strength``: ``<``, ``<=``, ``>``, ``>=`` by it."""

    __slots__ = ()
    strength: int

    def __lt__(self, other: Self) -> bool:
        return self.strength < other.strength

    def __le__(self, other: Self) -> bool:
        return self.strength <= other.strength

    def __gt__(self, other: Self) -> bool:
        return self.strength > other.strength

    def __ge__(self, other: Self) -> bool:
        return self.strength >= other.strength
