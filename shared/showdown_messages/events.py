"""ShowdownEvent: what a game server publishes when a hand ends.

Field names are the wire contract. Chips are whole numbers of the table's
smallest unit (cash games: cents; tournaments: chips). Every rule a worker
enforces is enforced here too, so a producer that validates before
publishing never has an event dead-lettered.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Final, Literal, NamedTuple, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, Strict, StringConstraints, model_validator

from showdown_messages.cards import canonical_card
from showdown_messages.rejections import quote, reject

SCHEMA_VERSION: Final = 1
MAX_PLAYERS: Final = 10
MAX_SEAT: Final = 10
"""Seats are numbered clockwise 1..MAX_SEAT; odd chips go clockwise from the button."""
MAX_CHIPS: Final = 10**15
"""Largest chip amount accepted in any field (well inside a double's exact integers)."""
MAX_ID_LENGTH: Final = 200


class VariantShape(NamedTuple):
    """How many cards a variant deals: what a valid showdown of it looks like."""

    label: str
    """Name for people, e.g. ``hold'em``."""
    hole_cards: int
    """Cards each player holds at showdown (hold'em 2, seven-card stud 7)."""
    board_cards: int
    """Community cards at showdown (hold'em 5, stud 0)."""


VARIANT_SHAPES: Final = {
    "holdem": VariantShape("hold'em", hole_cards=2, board_cards=5),
    "stud": VariantShape("seven-card stud", hole_cards=7, board_cards=0),
}
"""Every supported ``variant``. Omaha (4 hole cards) and hi-lo games add rows here."""

Variant = Literal["holdem", "stud"]


def _card(text: str) -> str:
    canonical = canonical_card(text)
    if canonical is None:
        raise reject("bad_card", "", f"{quote(text)} is not a card")
    return canonical


def _supported_version(version: int) -> int:
    if version != SCHEMA_VERSION:
        raise reject(
            "unsupported_schema_version", "", f"{version} is not a supported schema_version ({SCHEMA_VERSION})"
        )
    return version


CardText = Annotated[str, Strict(), AfterValidator(_card)]
"""A card: ``As``, ``Td``, ``10d``, ``as``, ``A♠``. Normalised to canonical text (``As``)."""
Id = Annotated[str, Strict(), StringConstraints(min_length=1, max_length=MAX_ID_LENGTH, pattern=r"^[^\x00-\x1f\x7f]+$")]
"""An identifier: 1-200 characters, no control characters."""
Chips = Annotated[int, Strict(), Field(ge=0, le=MAX_CHIPS)]
"""A whole, non-negative number of chips (the smallest unit of the table's currency)."""
SeatNumber = Annotated[int, Strict(), Field(ge=1, le=MAX_SEAT)]
"""A seat, numbered clockwise from 1."""
Cards = Annotated[tuple[CardText, ...], Field(max_length=7)]


class PlayerIn(BaseModel):
    """One seat's part in the hand."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="Player")

    seat: SeatNumber
    player_id: Id
    hole_cards: Cards | None = Field(
        default=None,
        description="The seat's own cards (hold'em 2, stud 7). Required for every live seat at a "
        "contested showdown; folded seats' cards are optional and never published.",
    )
    contributed: Chips = Field(
        description="Every chip the seat put in this hand (blinds, antes, bets, calls), an uncalled "
        "bet included or not: either way it is returned.",
    )
    dead_money: Chips = Field(
        default=0,
        description="Chips the seat put in that count toward no seat's level (a big-blind ante, a dead "
        "blind). They go to the main pot.",
    )
    folded: Annotated[bool, Strict()] = Field(
        default=False, description="Out of the hand: folded, or mucked at showdown (a muck forfeits)."
    )
    stack: Chips | None = Field(
        default=None,
        description="Chips at the start of the hand. Give it for every seat or none; with it, busts are reported.",
    )


class ShowdownEvent(BaseModel):
    """A finished hand, ready to settle."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="ShowdownEvent")

    schema_version: Annotated[int, Strict(), AfterValidator(_supported_version)] = Field(
        description="Message format version; this is 1.", json_schema_extra={"const": SCHEMA_VERSION}
    )
    hand_id: Id = Field(description="Unique per hand, forever: the settlement dedupe key.")
    table_id: Id
    tournament_id: Id | None = None
    variant: Variant = "holdem"
    board: Annotated[tuple[CardText, ...], Field(max_length=5)] = Field(
        default=(), description="Community cards, in the order dealt."
    )
    button_seat: SeatNumber | None = Field(
        default=None, description="The dealer button's seat (may be empty). Required for hold'em."
    )
    occurred_at: datetime | None = Field(default=None, description="When the hand ended (RFC 3339).")
    players: Annotated[tuple[PlayerIn, ...], Field(min_length=1, max_length=MAX_PLAYERS)]

    @model_validator(mode="after")
    def _check_game_rules(self) -> Self:
        """Rules that span fields. Each failure names the field to fix."""
        players = self.players
        shape = VARIANT_SHAPES[self.variant]

        seat_at: dict[int, int] = {}
        index_of: dict[str, int] = {}
        for i, p in enumerate(players):
            j = seat_at.setdefault(p.seat, i)
            if j != i:
                raise reject("duplicate_seat", f"players[{i}].seat", f"seat {p.seat} is taken by players[{j}] too")
            j = index_of.setdefault(p.player_id, i)
            if j != i:
                raise reject(
                    "duplicate_player",
                    f"players[{i}].player_id",
                    f"{quote(p.player_id)} also sits at players[{j}]",
                )

        stacked = [p.stack is not None for p in players]
        if any(stacked) and not all(stacked):
            i = stacked.index(False)
            raise reject("partial_stacks", f"players[{i}].stack", "is missing while other seats give theirs")
        for i, p in enumerate(players):
            if p.stack is not None and p.stack < p.contributed + p.dead_money:
                raise reject(
                    "stack_too_small",
                    f"players[{i}].stack",
                    f"{p.stack} is less than the {p.contributed + p.dead_money} chips the seat put in",
                )

        place_of: dict[str, str] = {}
        for k, card in enumerate(self.board):
            _place_card(place_of, card, f"board[{k}]")
        for i, p in enumerate(players):
            for k, card in enumerate(p.hole_cards or ()):
                _place_card(place_of, card, f"players[{i}].hole_cards[{k}]")

        live = [i for i, p in enumerate(players) if not p.folded]
        if not live:
            raise reject("no_live_player", "players", "every player folded; somebody must be left to win")
        contested = len(live) >= 2
        board = len(self.board)
        if board > shape.board_cards or (contested and board != shape.board_cards):
            raise reject(
                "bad_board_size",
                "board",
                f"has {board} cards; a {shape.label} showdown has {shape.board_cards}",
            )
        for i, p in enumerate(players):
            held = len(p.hole_cards or ())
            if held > shape.hole_cards or (contested and not p.folded and held != shape.hole_cards):
                raise reject(
                    "bad_hole_cards",
                    f"players[{i}].hole_cards",
                    f"has {held} cards; a {shape.label} player shows {shape.hole_cards}",
                )
        if self.variant == "holdem" and self.button_seat is None:
            raise reject("missing_button", "button_seat", "is required for hold'em: it decides who gets odd chips")

        top = max(p.contributed for p in players)
        if top and all(p.folded for p in players if p.contributed == top):
            seats = ", ".join(str(p.seat) for p in players if p.contributed == top)
            raise reject(
                "folded_top_contribution",
                "players",
                f"the largest contribution ({top}) belongs only to folded seat(s) {seats}; a live seat must match it",
            )
        return self


def _place_card(place_of: dict[str, str], card: str, where: str) -> None:
    first = place_of.setdefault(card, where)
    if first != where:
        raise reject("duplicate_card", where, f"{card} is also at {first}; each card exists once")
