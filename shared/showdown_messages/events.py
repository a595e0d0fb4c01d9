"""ShowdownEvent: what a game server publishes when a hand ends.

Field names are the wire contract. Chips are whole numbers of the table's
smallest unit (cash games: cents; tournaments: chips). Every rule a worker
enforces is enforced here too, so a producer that validates before
publishing never has an event dead-lettered.
"""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction
from typing import Annotated, Any, Final, Literal, NamedTuple, NoReturn, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, Strict, StringConstraints, model_validator

from showdown_messages.cards import CARD_PATTERN, SPELLINGS
from showdown_messages.rejections import quote, reject

SCHEMA_VERSION: Final = 1
MAX_PLAYERS: Final = 10
MAX_SEAT: Final = 10
"""Seats are numbered clockwise 1..MAX_SEAT; odd chips go clockwise from the button."""
MAX_TOTAL_CHIPS: Final = 2**53 - 1
"""Largest total of chips put in by all seats: every amount in a result is then exact as a double
(JavaScript and many JSON readers use doubles)."""
MAX_CHIPS: Final = 10**15
"""Largest chip amount accepted in any field (well inside a double's exact integers)."""
MAX_ID_LENGTH: Final = 200
PPM: Final = 1_000_000
"""``rake_ppm`` is in parts per million of the pot: 4.5% is 45_000."""


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


def _supported_version(version: int) -> int:
    if version != SCHEMA_VERSION:
        raise reject(
            "unsupported_schema_version", "", f"{quote(version)} is not a supported schema_version ({SCHEMA_VERSION})"
        )
    return version


CardText = Annotated[str, Strict(), StringConstraints(pattern=CARD_PATTERN)]
"""A card: ``As``, ``Td``, ``10d``, ``as``, ``A♠``. Normalised to canonical text (``As``) by the event.

The spelling is checked by pydantic-core (a regex, no Python call per card);
canonicalising and the duplicate check happen once per event."""
Id = Annotated[
    str, Strict(), StringConstraints(min_length=1, max_length=MAX_ID_LENGTH, pattern=r"^[^\x00-\x1f\x7f-\x9f]+$")
]
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
    occurred_at: Annotated[datetime, Strict()] | None = Field(
        default=None, description="When the hand ended: RFC 3339 text, e.g. 2026-11-21T12:00:00Z."
    )
    players: Annotated[tuple[PlayerIn, ...], Field(min_length=1, max_length=MAX_PLAYERS)]
    rake: Chips = Field(
        default=0,
        description="Chips the house took from the pots before awarding them (never from an uncalled bet, "
        "which is returned whole). Taken from the pots in order, main pot first: the first k pots together "
        "give round-half-even(rate x their chips), never more than `rake` in all, so a capped rake falls short "
        "on the last pots. The rate is `rake_ppm` when given, else `rake` / the chips in all the pots.",
    )
    rake_ppm: Annotated[int, Strict(), Field(ge=0, le=PPM)] | None = Field(
        default=None,
        description="The house's rake rate in parts per million of the pot (4.5% = 45000), when the room "
        "charges a true percentage with a cap: it decides how `rake` falls on the main and side pots. "
        "Without it the rake falls on every pot in proportion to its chips.",
    )

    @model_validator(mode="after")
    def _check_game_rules(self) -> Self:
        """Rules that span fields. Each failure names the field to fix.

        Also rewrites every card to canonical text (a no-op for producers
        that already send it). This runs for every event a worker takes, so
        the checks are set sizes and comprehensions; offenders are looked
        for, and messages built, only once a check has failed.
        """
        players = self.players
        shape = VARIANT_SHAPES[self.variant]
        need = shape.hole_cards
        spell = _SPELLINGS.__getitem__  # the card pattern admits exactly its keys
        board = self.board
        canonical = tuple(map(spell, board))
        if canonical != board:
            self.__dict__["board"] = canonical  # frozen model: set once, during validation
        cards = list(canonical)
        seats: set[int] = set()
        ids: set[str] = set()
        stacked = live = top = live_top = total = 0
        too_many = stack_short = live_shows_wrong = False
        for p in players:  # one pass gathers what every rule below needs
            seats.add(p.seat)
            ids.add(p.player_id)
            contributed = p.contributed
            put_in = contributed + p.dead_money
            total += put_in
            top = max(top, contributed)
            held = p.hole_cards
            shown = 0
            if held:
                canonical = tuple(map(spell, held))
                if canonical != held:
                    p.__dict__["hole_cards"] = canonical  # as for the board above
                cards += canonical
                shown = len(canonical)
                too_many = too_many or shown > need
            if not p.folded:
                live += 1
                live_top = max(live_top, contributed)
                live_shows_wrong = live_shows_wrong or shown != need
            if p.stack is not None:
                stacked += 1
                stack_short = stack_short or p.stack < put_in

        count = len(players)
        if len(seats) != count:
            _raise_first_repeat(
                "duplicate_seat", "seat", [p.seat for p in players], "seat {} is taken by players[{}] too"
            )
        if len(ids) != count:
            named = [quote(p.player_id) for p in players]
            _raise_first_repeat("duplicate_player", "player_id", named, "{} also sits at players[{}]")
        if len(set(cards)) != len(cards):
            self._raise_duplicate_card()
        if stacked and stacked != count:
            i = next(i for i, p in enumerate(players) if p.stack is None)
            raise reject("partial_stacks", f"players[{i}].stack", "is missing while other seats give theirs")
        if stack_short:
            i, p = next((i, p) for i, p in enumerate(players) if p.stack < p.contributed + p.dead_money)  # type: ignore[operator]
            raise reject(
                "stack_too_small",
                f"players[{i}].stack",
                f"{p.stack} is less than the {p.contributed + p.dead_money} chips the seat put in",
            )
        if total > MAX_TOTAL_CHIPS:
            raise reject(
                "bad_chips",
                "players",
                f"the chips put in total {total}, more than {MAX_TOTAL_CHIPS} (2^53 - 1): results could not be "
                "read exactly as JSON numbers",
            )
        if not live:
            raise reject("no_live_player", "players", "every player folded; somebody must be left to win")
        contested = live > 1
        if len(board) > shape.board_cards or (contested and len(board) != shape.board_cards):
            raise reject(
                "bad_board_size", "board", f"has {len(board)} cards; a {shape.label} showdown has {shape.board_cards}"
            )
        if too_many or (contested and live_shows_wrong):
            i, p = next(
                (i, p)
                for i, p in enumerate(players)
                if len(p.hole_cards or ()) > need or (contested and not p.folded and len(p.hole_cards or ()) != need)
            )
            raise reject(
                "bad_hole_cards",
                f"players[{i}].hole_cards",
                f"has {len(p.hole_cards or ())} cards; a {shape.label} player shows {need}",
            )
        if self.variant == "holdem" and self.button_seat is None:
            raise reject("missing_button", "button_seat", "is required for hold'em: it decides who gets odd chips")
        if top and live_top != top:
            holders = ", ".join(str(p.seat) for p in players if p.contributed == top)
            raise reject(
                "folded_top_contribution",
                "players",
                f"the largest contribution ({top}) belongs only to folded seat(s) {holders}; a live seat must match it",
            )
        if self.rake:
            _check_rake(self.rake, self.rake_ppm, players)
        return self

    def _raise_duplicate_card(self) -> NoReturn:
        first: dict[str, str] = {}
        places = [(card, f"board[{k}]") for k, card in enumerate(self.board)]
        for i, p in enumerate(self.players):
            places += [(card, f"players[{i}].hole_cards[{k}]") for k, card in enumerate(p.hole_cards or ())]
        for card, where in places:
            if card in first:
                raise reject("duplicate_card", where, f"{card} is also at {first[card]}; each card exists once")
            first[card] = where
        raise AssertionError("a repeated card was counted but not found")  # pragma: no cover


def _check_rake(rake: int, rake_ppm: int | None, players: tuple[PlayerIn, ...]) -> None:
    """The rake must come out of the pots: not out of an uncalled bet, not beyond what the rate gives."""
    levels = sorted((p.contributed for p in players), reverse=True)
    uncalled = levels[0] - levels[1] if len(levels) > 1 else levels[0]
    pots = sum(p.contributed + p.dead_money for p in players) - uncalled
    if rake > pots:
        raise reject(
            "bad_rake",
            "rake",
            f"{rake} is more than the {pots} chips in the pots (an uncalled bet, {uncalled} here, is never raked)",
        )
    if rake_ppm is not None and rake > (most := round(Fraction(rake_ppm * pots, PPM))):
        raise reject(
            "bad_rake",
            "rake",
            f"{rake} is more than rake_ppm {rake_ppm} allows: {most} of the {pots} chips in the pots",
        )


_SPELLINGS: Final = dict(SPELLINGS)  # a plain dict: the fastest lookup


def _raise_first_repeat(code: str, field: str, values: list[Any], template: str) -> NoReturn:
    first: dict[Any, int] = {}
    for i, value in enumerate(values):
        if value in first:
            raise reject(code, f"players[{i}].{field}", template.format(value, first[value]))
        first[value] = i
    raise AssertionError("a repeat was counted but not found")  # pragma: no cover
