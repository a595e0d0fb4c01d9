"""Game variants: a row of data (:data:`showdown_rules.VARIANT_SHAPES`) plus its rankings.

A :class:`Variant` answers what the settlement asks of a game, the same way
for every game:

* :meth:`Variant.hands`: each live hand's high and low value on one board
  (any own and board cards, or Omaha's exactly two own and three board);
* :meth:`Variant.odd_chip_order`: in which order tied winners of one part of
  a pot receive the chips its division leaves over, one chip each.

Hi-lo halves, runs and odd chips are one mechanism in
:mod:`showdown_core.settlement`; nothing here is written per game. A new game
is a row in ``VARIANT_SHAPES`` naming rankings that exist.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib import import_module
from typing import Final

from showdown_core.cards import Card
from showdown_core.ranking import Ranking, Value
from showdown_rules import MAX_SEAT, VARIANT_SHAPES, VariantShape

_RANKINGS: Final = {
    "high": ("showdown_core.high", "HIGH"),
    "short_deck": ("showdown_core.short_deck", "SHORT_DECK"),
    "short_deck_straight_over_trips": ("showdown_core.short_deck", "SHORT_DECK_STRAIGHT_OVER_TRIPS"),
    "eight_or_better": ("showdown_core.eight_or_better", "EIGHT_OR_BETTER"),
    "ace_to_five": ("showdown_core.ace_to_five", "ACE_TO_FIVE"),
    "deuce_to_seven": ("showdown_core.deuce_to_seven", "DEUCE_TO_SEVEN"),
    "badugi": ("showdown_core.badugi", "BADUGI"),
}
"""Ranking wire name -> (module, constant): one small module per ranking."""


def ranking(name: str) -> Ranking:
    """The ranking called ``name`` on the wire (``eight_or_better``)."""
    module, constant = _RANKINGS[name]
    found = getattr(import_module(module), constant)
    assert isinstance(found, Ranking)
    return found


Hands = tuple[list[Value | None] | None, list[Value | None] | None]
"""Per live hand, in order: the high values (``None`` list in a low-only game) and the low values
(``None`` list in a high-only game; a ``None`` value is a hand with no qualifying low)."""


@dataclass(frozen=True, slots=True)
class Variant:
    """One game: its shape and the rankings that award its pots."""

    name: str
    shape: VariantShape
    high: Ranking | None
    low: Ranking | None

    def hands(self, board: Sequence[Card], holes: Sequence[Sequence[Card]]) -> Hands:
        """Each hand's high and low value on ``board`` (empty in stud and draw games), board done once."""
        omaha = self.shape.omaha
        high, low = self.high, self.low
        highs = None if high is None else (high.omaha(board, holes) if omaha else high.with_board(board, holes))
        lows = None if low is None else (low.omaha(board, holes) if omaha else low.with_board(board, holes))
        return highs, lows

    def playing_cards(
        self, ranking: Ranking, board: Sequence[Card], own: Sequence[Card], value: Value
    ) -> tuple[Card, ...]:
        """The cards that make ``value`` (a value of ``ranking`` for ``own`` on ``board``), most significant first."""
        if self.shape.omaha:
            return ranking.omaha_playing_cards(board, own, value)
        return ranking.playing_cards((*own, *board), value)

    def odd_chip_order(
        self,
        tied: Sequence[tuple[int, Sequence[Card]]],
        button_seat: int | None,
        ranking: Ranking,
        values: dict[int, Value | None],
        board: Sequence[Card] = (),
    ) -> list[int]:
        """Seats of the tied winners of one part of a pot (given as ``(seat, own cards)``), in the order
        they receive its odd chips.

        Board and draw games: clockwise from the first seat left of the
        button (seats are numbered clockwise; the button's seat may be
        empty). Stud games (TDA 2024 Rule 20-B): the tied winner whose five
        cards for this part (``ranking``'s hand, ``values`` by seat) hold the
        highest card by rank, then suit (spades > hearts > diamonds > clubs);
        in a low hand the ace counts low.
        """
        if not self.shape.odd_chip_by_card:
            button = button_seat or 0
            return sorted((seat for seat, _ in tied), key=lambda seat: (seat - button - 1) % MAX_SEAT)
        ace_low = ranking.ace_low

        def top_card(entry: tuple[int, Sequence[Card]]) -> tuple[int, int]:
            seat, own = entry
            value = values[seat]
            assert value is not None  # a tied winner has a hand
            five = self.playing_cards(ranking, board, own, value)
            return max((1 if ace_low and c.rank == 14 else c.rank, c.suit) for c in five)

        return [seat for seat, _ in sorted(tied, key=top_card, reverse=True)]


def _variant(name: str, shape: VariantShape) -> Variant:
    return Variant(
        name,
        shape,
        None if shape.high is None else ranking(shape.high),
        None if shape.low is None else ranking(shape.low),
    )


class _Variants(dict[str, Variant]):
    """Wire name -> variant, built on first use (a ranking's module loads when its first game is settled)."""

    def __missing__(self, name: str) -> Variant:
        shape = VARIANT_SHAPES[name]  # KeyError for a name that is no game
        built = self[name] = _variant(name, shape)
        return built


VARIANTS: Final[dict[str, Variant]] = _Variants()
"""Every supported variant by its wire name (the keys of ``VARIANT_SHAPES``)."""


def prepare_every_variant() -> None:
    """Load every game's rankings and build their tables now (about a second), so that a long-running process
    settles the first hand of each game as fast as the next."""
    for name in VARIANT_SHAPES:
        variant = VARIANTS[name]
        for rank in (variant.high, variant.low):
            if rank is not None:
                rank.prepare()


HOLDEM: Final = VARIANTS["holdem"]
STUD: Final = VARIANTS["stud"]
