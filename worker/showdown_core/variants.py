"""Game variants: how hands are valued and who receives an odd chip.

A :class:`Variant` answers two questions for the settlement:

* ``values(board, hands)``: each live hand's value (hold'em: best five of
  two hole cards and the board; stud: best five of the seven own cards).
* ``odd_chip_order(...)``: in which order tied winners receive the chips a
  split leaves over, one chip each.

Adding Omaha means a variant whose ``values`` takes the best of exactly two
hole cards with three board cards; adding a hi-lo game means a variant that
splits each pot in halves, awarding each half with its own ranking (the
settlement would call the award step once per half). The wire ``variant``
field and :data:`showdown_messages.VARIANT_SHAPES` grow a row for each.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from showdown_core.cards import Card
from showdown_core.evaluator import HandValue, evaluate, evaluate_showdown
from showdown_messages import MAX_SEAT, VARIANT_SHAPES, VariantShape


@dataclass(frozen=True, slots=True)
class Variant(ABC):
    """Rules shared by every variant; subclasses give the valuation and odd-chip order."""

    name: str
    shape: VariantShape

    @abstractmethod
    def values(self, board: Sequence[Card], hands: Sequence[Sequence[Card]]) -> list[HandValue]:
        """Value of each hand in ``hands`` (in order) at showdown."""

    @abstractmethod
    def odd_chip_order(self, tied: Sequence[tuple[int, Sequence[Card]]], button_seat: int | None) -> list[int]:
        """Seats of tied winners (given as ``(seat, cards)``) in the order they receive odd chips."""


@dataclass(frozen=True, slots=True)
class Holdem(Variant):
    """Texas hold'em: best five of two hole cards and a five-card board.

    Odd chips go one at a time clockwise from the first seat left of the
    button (seats are numbered clockwise; the button's seat may be empty).
    """

    def values(self, board: Sequence[Card], hands: Sequence[Sequence[Card]]) -> list[HandValue]:
        # the message model has checked every card of the event for repeats
        return evaluate_showdown(board, hands, assume_distinct=True)

    def odd_chip_order(self, tied: Sequence[tuple[int, Sequence[Card]]], button_seat: int | None) -> list[int]:
        button = button_seat or 0
        return sorted((seat for seat, _ in tied), key=lambda seat: (seat - button - 1) % MAX_SEAT)


@dataclass(frozen=True, slots=True)
class Stud(Variant):
    """Seven-card stud: best five of the player's own seven cards, no board.

    Odd chips go to the tied winner holding the highest card by rank, then
    suit (spades > hearts > diamonds > clubs), then the next highest, and so on.
    """

    def values(self, board: Sequence[Card], hands: Sequence[Sequence[Card]]) -> list[HandValue]:
        return [evaluate(hand) for hand in hands]

    def odd_chip_order(self, tied: Sequence[tuple[int, Sequence[Card]]], button_seat: int | None) -> list[int]:
        return [seat for seat, cards in sorted(tied, key=lambda t: max(t[1]), reverse=True)]


HOLDEM: Final = Holdem("holdem", VARIANT_SHAPES["holdem"])
STUD: Final = Stud("stud", VARIANT_SHAPES["stud"])
VARIANTS: Final[dict[str, Variant]] = {v.name: v for v in (HOLDEM, STUD)}
"""Every supported variant by its wire name."""
