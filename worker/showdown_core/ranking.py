"""The ranking seam: how one kind of hand is valued (high, short-deck, the lows, badugi).

A :class:`Ranking` orders hands of one kind. Each ranking lives in a small
module of its own (:mod:`showdown_core.high`, :mod:`showdown_core.short_deck`,
:mod:`showdown_core.eight_or_better`, :mod:`showdown_core.ace_to_five`,
:mod:`showdown_core.deuce_to_seven`, :mod:`showdown_core.badugi`) and gives
ordered values: every value of a ranking has a ``strength``, dense from 1
(the worst hand of that ranking) upward, **higher always wins** (a low
ranking numbers its best low highest), equal strengths tie. So the
settlement compares ``strength`` whatever the game, and ``max()`` finds the
winner.

A variant (:mod:`showdown_core.variants`) is a row of data naming its high
and/or low ranking and how cards combine:

* :meth:`Ranking.with_board`: the best hand of the board plus each player's
  own cards, any of them (hold'em, short deck, stud and draw with an empty
  board);
* :meth:`Ranking.omaha`: exactly two own cards and three board cards.

Both take the board once for all players, so a ranking may prepare it once.
A hand that does not qualify (no 8-or-better low) is ``None``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from itertools import combinations
from operator import attrgetter
from typing import Final, Protocol

from showdown_core.cards import Card, mask_of, take_ranks
from showdown_core.ordering import ByStrength


class WireCategory(Protocol):
    """A hand category with its name in messages (``full_house``, ``badugi``)."""

    @property
    def wire(self) -> str: ...

    def __index__(self) -> int:
        """Its number: the high and the low categories number their common names alike."""


class Value(Protocol):
    """A ranked hand: what every ranking's values have in common."""

    @property
    def strength(self) -> int:
        """1 (the ranking's worst hand) upward; higher wins, equal ties."""

    @property
    def category(self) -> WireCategory: ...

    @property
    def ranks(self) -> tuple[int, ...]:
        """The playing ranks, most significant first (ace is 14, or 1 where it plays low)."""

    @property
    def description(self) -> str:
        """For people: ``Eight-six low``, ``Badugi, 8-5-3-2``."""


class LowCategory(IntEnum):
    """Categories of the low rankings and badugi (the high rankings use :class:`~showdown_core.evaluator.Category`)."""

    HIGH_CARD = 0
    """No pair: the usual low hand."""
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ONE_CARD = 9
    """Badugi: a one-card hand."""
    TWO_CARD = 10
    THREE_CARD = 11
    BADUGI = 12
    """Badugi: four cards of different suits and ranks."""

    @property
    def wire(self) -> str:
        """The name used in messages: ``three_card``."""
        return self.name.lower()


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class RankedValue(ByStrength):
    """A value of any ranking other than standard high (which has the interned
    :class:`~showdown_core.evaluator.HandValue`).

    Each ranking builds its values once and interns them, so ``is`` and
    ``==`` agree; ordering is by ``strength`` within one ranking (comparing
    values of two rankings is meaningless and not guarded against on the hot path).
    """

    ranking: str
    """The ranking's wire name: ``ace_to_five``."""
    strength: int
    category: WireCategory
    """A :class:`LowCategory`, or the high hands' :class:`~showdown_core.evaluator.Category` (short deck)."""
    ranks: tuple[int, ...]
    description: str

    def __repr__(self) -> str:
        return f"RankedValue({self.ranking}, {self.strength}, {self.description!r})"


class Ranking(ABC):
    """One way of ordering hands. Subclasses are stateless singletons (module constants)."""

    name: str
    """Wire name: ``high``, ``short_deck``, ``eight_or_better``, ``ace_to_five``, ``deuce_to_seven``, ``badugi``."""
    ace_low: bool = False
    """The ace plays low (for the stud odd-chip rule: "in a low hand the ace counts low")."""
    values: Sequence[Value]
    """Every class of this ranking, weakest first: ``values[s - 1].strength == s``."""

    def prepare(self) -> None:
        """Build now what this ranking would build on first use (a long-running process calls it at start, so
        that no hand waits for a table). Most rankings build everything when their module loads."""
        return

    @abstractmethod
    def best(self, cards: Sequence[Card]) -> Value | None:
        """The best hand that ``cards`` make (all may play), or ``None`` if none qualifies.

        ``cards`` are distinct (the event was checked as a whole). Raises
        :class:`~showdown_core.errors.InvalidEvent` for a count the ranking
        cannot value.
        """

    def with_board(self, board: Sequence[Card], holes: Sequence[Sequence[Card]]) -> list[Value | None]:
        """Each player's best hand from the board plus their own cards, any of them, in order."""
        return [self.best((*board, *hole)) for hole in holes]

    def omaha(self, board: Sequence[Card], holes: Sequence[Sequence[Card]]) -> list[Value | None]:
        """Each player's best hand of exactly two own cards and three board cards, in order.

        The general rule, 10 board triples times the own pairs; rankings
        override it with faster paths.
        """
        triples = list(combinations(board, 3))
        out: list[Value | None] = []
        for hole in holes:
            best: Value | None = None
            for pair in combinations(hole, 2):
                for triple in triples:
                    value = self.best((*pair, *triple))
                    if value is not None and (best is None or value.strength > best.strength):
                        best = value
            out.append(best)
        return out

    @abstractmethod
    def playing_cards(self, cards: Sequence[Card], value: Value) -> tuple[Card, ...]:
        """The cards of ``cards`` that make ``value``, most significant first (deterministic:
        where two cards could play, the higher suit)."""

    def omaha_playing_cards(self, board: Sequence[Card], hole: Sequence[Card], value: Value) -> tuple[Card, ...]:
        """The two own and three board cards that make ``value`` (an :meth:`omaha` result)."""
        for pair in combinations(sorted(hole, reverse=True), 2):
            for triple in combinations(sorted(board, reverse=True), 3):
                five = (*pair, *triple)
                if self.best(five) is value:
                    return self.playing_cards(five, value)
        raise ValueError(f"{value!r} is not made by two of {hole} and three of {board}")

    def five_making(self, cards: Sequence[Card], value: Value, size: int = 5) -> tuple[Card, ...]:
        """The first ``size`` of ``cards`` (taken highest card first, by rank then suit) whose best hand is
        ``value``: the general way to find the cards that play, for rankings whose suits matter."""
        for five in combinations(sorted(cards, reverse=True), size):
            if self.best(five) is value:
                return five
        raise ValueError(f"{value!r} is not made by {size} of {list(cards)}")


RANK_CHARS: Final = {1: "A", **{r: "23456789TJQKA"[r - 2] for r in range(2, 15)}}
"""Rank (2..14; 1 is the ace playing low) -> its character in hand descriptions (``8-6-4-2-A``)."""


def spelled(ranks: Sequence[int]) -> str:
    """``8-6-4-2-A``: ranks (most significant first) as card rooms write a low or a badugi."""
    return "-".join([RANK_CHARS[r] for r in ranks])


def cards_of_ranks(cards: Sequence[Card], ranks: Sequence[int]) -> tuple[Card, ...]:
    """For each of ``ranks`` in order (1 or 14 for an ace), a card of ``cards`` of that rank, each card once,
    the highest suit first: the cards that play a hand whose suits do not matter, most significant first.

    Raises ``ValueError`` if ``cards`` hold too few of some rank.
    """
    return take_ranks(mask_of(cards), ranks)


STRENGTH: Final = attrgetter("strength")
"""A value's strength: the key to ``max()`` values of one ranking by."""
