"""ShowdownResult: the public settlement of one hand.

Public means it never reveals a folded or mucked hand: ``hands`` lists only
the seats that showed down. Chips are whole units, as in the event.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from showdown_messages.events import Id, SeatNumber, Variant

Category = Literal[
    "high_card",
    "one_pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
]
Amount = Annotated[int, Field(ge=0)]


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Share(_Out):
    """Chips one seat takes from one pot."""

    seat: SeatNumber
    amount: Amount


class Pot(_Out):
    """One pot: main pot first (index 0), then side pots in order."""

    index: Annotated[int, Field(ge=0)]
    amount: Amount = Field(description="Chips in the pot before rake, dead money included.")
    rake: Amount = Field(default=0, description="Chips the house took from this pot.")
    eligible_seats: tuple[SeatNumber, ...] = Field(description="Live seats that put in enough to win it.")
    winners: tuple[Share, ...] = Field(description="Who takes the pot; odd chips already placed.")
    hand: str | None = Field(
        description="The winning hand, e.g. 'Full house, Kings full of Fives'; null if uncontested."
    )


class Award(_Out):
    """Everything one seat collects, one entry per seat in the event (zeros included)."""

    seat: SeatNumber
    player_id: Id
    amount: Amount = Field(description="Pots won plus any uncalled bet returned.")
    net: int = Field(description="amount minus every chip the seat put in (dead money included).")


class ShownHand(_Out):
    """A hand shown down at a contested showdown."""

    seat: SeatNumber
    player_id: Id
    category: Category
    best_five: tuple[str, ...] = Field(description="The five cards that play, most significant first.")
    description: str = Field(description="For people: 'Two pair, Aces and Sevens, Queen kicker'.")
    strength: Annotated[int, Field(ge=1, le=7462)] = Field(
        description="1 (seven-high) to 7462 (royal flush); higher wins, equal ties."
    )


class Bust(_Out):
    """A seat left with no chips (reported when starting stacks are given)."""

    seat: SeatNumber
    player_id: Id
    finish: Annotated[int, Field(ge=1)] = Field(
        description="1 for the worst finish among this hand's busts; a shared place shares the number "
        "and the next is skipped (1, 1, 3). With R players left before the hand, the tournament "
        "place is R - finish + 1."
    )


class Returned(_Out):
    """An uncalled bet given back to the seat that made it."""

    seat: SeatNumber
    amount: Amount


class ShowdownResult(_Out):
    """The settlement of one ShowdownEvent."""

    model_config = ConfigDict(title="ShowdownResult")

    schema_version: Literal[1]
    hand_id: Id
    table_id: Id
    tournament_id: Id | None
    variant: Variant
    pots: tuple[Pot, ...]
    returned: tuple[Returned, ...] = Field(description="Uncalled bets returned; not part of any pot.")
    awards: tuple[Award, ...]
    hands: tuple[ShownHand, ...]
    busts: tuple[Bust, ...] = Field(description="Worst finish first.")
    settled_at: datetime
    evaluator: str = Field(description="The settling software, 'showdown/<version>'.")
