"""Every game the service settles, one row of data each.

A row says what a valid showdown of the game looks like (cards per player,
board, deck) and how it is settled (which rankings award the pot, how own
and board cards combine, who gets odd chips). The contract validates events
against it; the core (:mod:`showdown_core.variants`) pairs each ranking name
with its evaluator. Betting structure (limit, pot-limit, no-limit) changes
nothing here, and neither does a hand being dealt as single or triple draw:
what is settled is the final hand.
"""

from __future__ import annotations

from typing import Final, Literal, NamedTuple

RankingName = Literal[
    "high", "short_deck", "short_deck_straight_over_trips", "eight_or_better", "ace_to_five", "deuce_to_seven", "badugi"
]
"""The rankings of :mod:`showdown_core.ranking`, by wire name."""


class VariantShape(NamedTuple):
    """One game: the cards of a valid showdown and the rules that settle it."""

    label: str
    """Name for people, e.g. ``Omaha Hi/Lo``."""
    hole_cards: tuple[int, ...]
    """How many own cards a live player may hold at showdown (Omaha: 4, 5 or 6; every player the same)."""
    board_cards: int
    """Community cards at a contested showdown (board games 5, stud and draw 0)."""
    high: RankingName | None
    """The ranking that awards the pot (or the high half); ``None`` in a low-only game."""
    low: RankingName | None
    """The ranking of the low half (hi-lo games) or of the whole pot (razz, 2-7, badugi)."""
    omaha: bool = False
    """A hand is exactly two own cards and three board cards (else any of own and board cards)."""
    odd_chip_by_card: bool = False
    """Stud games: an odd chip goes to the tied winner whose five cards hold the highest card by suit
    (else clockwise from the button)."""
    lowest_rank: int = 2
    """The deck's lowest rank: 2, or 6 in a 36-card short deck."""

    @property
    def split(self) -> bool:
        """A hi-lo game: each pot (each run's part) is split into a high and a low half."""
        return self.high is not None and self.low is not None

    @property
    def needs_button(self) -> bool:
        """Odd chips go clockwise from the button, so the event must say where it is."""
        return not self.odd_chip_by_card

    def hole_text(self) -> str:
        """``2``, ``4, 5 or 6``: how many own cards, for messages."""
        counts = [str(n) for n in self.hole_cards]
        return counts[0] if len(counts) == 1 else f"{', '.join(counts[:-1])} or {counts[-1]}"


VARIANT_SHAPES: Final[dict[str, VariantShape]] = {
    "holdem": VariantShape("hold'em", (2,), 5, "high", None),
    "short_deck": VariantShape("short-deck (6+) hold'em", (2,), 5, "short_deck", None, lowest_rank=6),
    "short_deck_straight_over_trips": VariantShape(
        "short-deck hold'em, straight over trips", (2,), 5, "short_deck_straight_over_trips", None, lowest_rank=6
    ),
    "omaha": VariantShape("Omaha", (4, 5, 6), 5, "high", None, omaha=True),
    "omaha_hilo": VariantShape("Omaha Hi/Lo", (4, 5), 5, "high", "eight_or_better", omaha=True),
    "stud": VariantShape("seven-card stud", (7,), 0, "high", None, odd_chip_by_card=True),
    "stud_hilo": VariantShape("seven-card stud Hi/Lo", (7,), 0, "high", "eight_or_better", odd_chip_by_card=True),
    "razz": VariantShape("razz", (7,), 0, None, "ace_to_five", odd_chip_by_card=True),
    "deuce_to_seven": VariantShape("deuce-to-seven", (5,), 0, None, "deuce_to_seven"),
    "five_card_draw": VariantShape("five-card draw", (5,), 0, "high", None),
    "badugi": VariantShape("badugi", (4,), 0, None, "badugi"),
}
"""Every supported ``variant``, by wire name. ``holdem`` and ``stud`` are the original two.

``short_deck`` ranks three of a kind above a straight (Triton and the online
rooms' 6+ games); ``short_deck_straight_over_trips`` is the WSOP live order.
Courchevel settles as ``omaha`` (or ``omaha_hilo``) with five cards."""

VARIANT_NAMES: Final[tuple[str, ...]] = tuple(VARIANT_SHAPES)

MAX_RUNS: Final = 3
"""A hand may be run two or three times (``boards``)."""
