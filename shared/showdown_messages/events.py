"""ShowdownEvent: what a game server publishes when a hand ends.

Why over 400 lines: the event contract is one model a producer reads, with every field and every rule
a worker enforces beside it.

Field names are the wire contract. Chips are whole numbers of the table's
smallest unit (cash games: cents; tournaments: chips). Every rule a worker
enforces is enforced here too, so a producer that validates before
publishing never has an event dead-lettered.
"""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction
from operator import itemgetter
from typing import Annotated, Any, Final, Literal, NoReturn, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from showdown_messages.rejections import quote, reject
from showdown_messages.repeats import could_repeat, refuse_repeated_keys
from showdown_rules import (
    CANONICAL_CARDS,
    CARD_PATTERN,
    ID_PATTERN,
    ISO_4217_EXPONENTS,
    MAX_CHIPS,
    MAX_ID_LENGTH,
    MAX_ORDINAL,
    MAX_PLAYERS,
    MAX_RUNS,
    MAX_SEAT,
    MAX_TOTAL_CHIPS,
    PPM,
    SCHEMA_VERSION,
    SPELLINGS,
    VARIANT_SHAPES,
    VariantShape,
)

__all__ = [
    "MAX_CHIPS",
    "MAX_ID_LENGTH",
    "MAX_PLAYERS",
    "MAX_SEAT",
    "MAX_TOTAL_CHIPS",
    "PPM",
    "SCHEMA_VERSION",
    "VARIANT_SHAPES",
    "CashOutTaken",
    "JackpotDrop",
    "MysteryBountyDrawn",
    "Play",
    "PlayerIn",
    "ShowdownEvent",
    "Stakes",
    "Variant",
    "VariantShape",
]

Variant = Literal[
    "holdem",
    "short_deck",
    "short_deck_straight_over_trips",
    "omaha",
    "omaha_hilo",
    "stud",
    "stud_hilo",
    "razz",
    "deuce_to_seven",
    "five_card_draw",
    "badugi",
]
"""Every game settled: the keys of :data:`showdown_rules.VARIANT_SHAPES` (a test keeps the two equal)."""


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
Id = Annotated[str, Strict(), StringConstraints(min_length=1, max_length=MAX_ID_LENGTH, pattern=ID_PATTERN)]
"""An identifier: 1-200 characters, no control or format character, no line or paragraph separator
(:data:`showdown_rules.INVISIBLE_RANGES`)."""
Chips = Annotated[int, Strict(), Field(ge=0, le=MAX_CHIPS)]
"""A whole, non-negative number of chips (the smallest unit of the table's currency)."""
Ordinal = Annotated[int, Strict(), Field(ge=1, le=MAX_ORDINAL)]
"""An entry, purchase or round number: 1, 2, 3, ... up to 2^53 - 1 (exact as a double, as results are)."""
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
        description="The seat's own cards: hold'em and short deck 2, Omaha 4-6 (every player the same), "
        "stud games 7 (down and up cards), draw games the final hand (5; badugi 4). Required for every live seat at a "
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
    bounty: Chips | None = Field(
        default=None,
        description="Knockout tournaments: the bounty on this seat's head at the start of the hand, in the prize "
        "currency's smallest unit (cents), not chips. Give it for every seat or none, with `stack` and "
        "`bounty_cash_ppm`; each eliminated seat's bounty then goes to the winners of its relevant pot.",
    )


class MysteryBountyDrawn(BaseModel):
    """One envelope of a mystery-bounty stage: the one the room drew for an eliminated seat."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="MysteryBountyDrawn")

    seat: SeatNumber = Field(description="The seat eliminated in this hand.")
    amount: Annotated[int, Strict(), Field(ge=1, le=MAX_CHIPS)] = Field(
        description="The envelope drawn for its elimination (prize currency's smallest unit): an amount of the "
        "tournament's `open.mystery_bounties` pool with envelopes left."
    )


PHH_VARIANT_PATTERN: Final = r"^[FPN](?:T|S|O|O/8|7S|7S/8|R|2L1D|2L3D|B|5CD)$"
"""phh-std's variant codes: the betting letter (F fixed limit, P pot limit, N no limit), then the game."""
PHH_VARIANTS: Final = {
    "T": "holdem", "S": "short_deck", "O": "omaha", "O/8": "omaha_hilo", "7S": "stud", "7S/8": "stud_hilo",
    "R": "razz", "2L1D": "deuce_to_seven", "2L3D": "deuce_to_seven", "B": "badugi", "5CD": "five_card_draw",
}  # fmt: skip
"""The event's ``variant`` each phh-std game code (the code after its betting letter) is settled as."""
MAX_ACTIONS: Final = 1000
"""Actions a ``play`` may hold (ten seats, four capped rounds, with room to spare)."""
ForcedBets = Annotated[tuple[Chips, ...], Field(max_length=MAX_PLAYERS)]
Action = Annotated[str, Strict(), StringConstraints(min_length=1, max_length=64, pattern=r"^[ -~]+$")]


class Play(BaseModel):
    """The hand's betting in the Poker Hand History standard's fields and notation (phh-std, phh.readthedocs.io).

    ``p<i>`` in ``actions`` is the i-th entry of the event's ``players``, listed in the order the hand was played:
    p1 the small blind (heads-up: p1 the big blind, p2 the button), the last the button. A worker plays the
    actions and refuses the event when they break a betting rule or give other `contributed`, `dead_money`,
    `folded`, `board`, `stack` or `button_seat` values than the event states.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, title="Play")

    variant: Annotated[str, Strict(), StringConstraints(pattern=PHH_VARIANT_PATTERN)] = Field(
        description="phh-std's code: the betting structure (N no limit, P pot limit, F fixed limit) then the game "
        "(T hold'em, S short deck, O Omaha, O/8, 7S stud, 7S/8, R razz, 2L1D and 2L3D deuce-to-seven single and "
        "triple draw, B badugi, 5CD five-card draw): NT, PO, F7S/8. Its game must be the event's `variant`."
    )
    starting_stacks: Annotated[tuple[Chips, ...], Field(min_length=2, max_length=MAX_PLAYERS)] = Field(
        description="Each player's chips at the start of the hand, p1 first: one per entry of `players`."
    )
    antes: ForcedBets = Field(default=(), description="Each player's ante, p1 first (empty: none).")
    blinds_or_straddles: ForcedBets = Field(
        default=(),
        description="Each player's blind or straddle, p1 first: [small, big, 0, ...] (heads-up also [small, big], "
        "p1 posting the big blind). Empty: none (stud).",
    )
    bring_in: Chips | None = Field(default=None, description="Stud: the bring-in.")
    small_bet: Chips | None = Field(default=None, description="Fixed limit: the small bet (the early streets).")
    big_bet: Chips | None = Field(default=None, description="Fixed limit: the big bet (the late streets).")
    min_bet: Chips | None = Field(default=None, description="No limit and pot limit: the least bet (the big blind).")
    ante_trimming_status: Annotated[bool, Strict()] = Field(
        default=False,
        description="Antes count toward each seat's level (`contributed`); else they are `dead_money`.",
    )
    actions: Annotated[tuple[Action, ...], Field(max_length=MAX_ACTIONS)] = Field(
        description="phh-std's actions in order: 'd dh p1 AsKd' (own cards; ?? unknown), 'd db 7h8d9c' (board), "
        "'p2 cbr 300' (complete, bet or raise to), 'p3 cc' (check or call), 'p1 f' (fold), 'p1 pb' (stud "
        "bring-in), 'p2 sd 7c' (draw: discard; stand pat without cards), 'p1 sm AcKd' (show; without cards: muck)."
    )


class Stakes(BaseModel):
    """The table's blinds, in the currency's minor units: which row of its rake schedule applies."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="Stakes")

    small_blind: Annotated[int, Strict(), Field(ge=1, le=MAX_CHIPS)] = Field(description="The small blind.")
    big_blind: Annotated[int, Strict(), Field(ge=1, le=MAX_CHIPS)] = Field(
        description="The big blind (fixed limit: the small bet): a schedule's stakes rows are found by it."
    )


class CashOutTaken(BaseModel):
    """An all-in cash-out the room paid (PokerStars' All-in Cash Out, GGPoker's EV Cashout): see docs/cashout.md."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="CashOut")

    seat: SeatNumber = Field(description="The seat that cashed out: all-in, or covering the all-ins.")
    street: Literal["preflop", "flop", "turn"] | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # absent from the canonical JSON (the event's digest) when not given
        description="When: the board then known is the first 0, 3 or 4 cards of `board`. Needed unless `action` "
        "says when; given with it, it must be the street of that action (`cashout_street_mismatch`).",
    )
    action: Annotated[int, Strict(), Field(ge=0, le=MAX_ACTIONS - 1)] | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # as above: an event's digest is as before without it
        description="When, by the whole hand's `play`: the index into `play.actions` of the action after which the "
        "seat cashed out (0 is the first); the board then known is the one dealt by then. Refused past the last "
        "action or after the river is dealt (`cashout_action_out_of_range`), before the seat was all-in and called "
        "(`cashout_before_all_in`), and without `play` (`bad_cashout`).",
    )
    amount: Chips = Field(
        description="What the room paid the seat: (pot - rake) x its exact equity then, less the fee, rounded "
        "half to even to the minor unit (summed over the pots it contests, each by its equity among that pot's "
        "hands). Refused when it differs (`cashout_mismatch`)."
    )
    fee_ppm: Annotated[int, Strict(), Field(ge=0, le=PPM)] = Field(
        description="The room's fee in parts per million of the hand's value, not of the pot (PokerStars: 1% = "
        "10000 to 2022, about 2% since)."
    )


class JackpotDrop(BaseModel):
    """The jackpot drop the room took from this hand's pot (GGPoker's Bad Beat Jackpot): see docs/jackpot.md."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="JackpotDrop")

    jackpot_id: Id = Field(description="The jackpot (its fund) the drop goes to: the room's id for it.")
    program: Id = Field(
        description="The jackpot program (its published rule: the drop, the qualifying hand, the shares) the "
        "workers know (`data/jackpot/`): refused `unknown_jackpot_program` otherwise."
    )
    drop: Chips = Field(
        description="What the room took for the jackpot: part of `rake` (everything taken from the pot), taken "
        "after the house's rake. Refused when the program takes another amount (`jackpot_drop_mismatch`)."
    )
    seed: Chips | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # absent from the canonical JSON (the event's digest) when not given
        description="What the room puts in the fund when this hand declares the jackpot (the first hand naming "
        "`jackpot_id` on its shard): money in that no pot paid. A later hand may state it again; another figure, or "
        "another `program`, is refused `jackpot_program_changed`. Absent: 0.",
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
    variant: Variant = Field(
        default="holdem",
        description="The game: holdem, short_deck (6+, trips beat a straight), short_deck_straight_over_trips "
        "(the WSOP live order), omaha (4-6 cards; Courchevel too), omaha_hilo (4-5 cards), stud, stud_hilo, "
        "razz, deuce_to_seven (single or triple draw), five_card_draw, badugi.",
    )
    board: Annotated[tuple[CardText, ...], Field(max_length=5)] = Field(
        default=(), description="Community cards, in the order dealt (board games; empty in stud and draw)."
    )
    boards: (
        Annotated[
            tuple[Annotated[tuple[CardText, ...], Field(max_length=5)], ...],
            Field(min_length=2, max_length=MAX_RUNS),
        ]
        | None
    ) = Field(
        default=None,
        description="Instead of `board` when the hand was run more than once: 2 or 3 complete boards, in the "
        "order run. The cards dealt before the all-in start every board; every other card appears once in the "
        "event. Each pot is divided equally among the runs (a chip left over goes to the earliest run) and each "
        "run's part is awarded by that board alone.",
    )
    button_seat: SeatNumber | None = Field(
        default=None,
        description="The dealer button's seat (may be empty). Required for board and draw games: odd chips go "
        "clockwise from it.",
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
    rake_schedule: Id | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # absent from the canonical JSON (the event's digest) when not given
        description="The id of the table's posted rake schedule (`showdown rake --list`; docs/rake.md). The worker "
        "takes the rake it gives from the pots; a `rake` given as well must equal it (`rake_mismatch`); an id no "
        "worker knows is refused (`unknown_rake_schedule`). With it, the result says who paid the rake (`rake_paid`).",
    )
    stakes: Stakes | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # as above
        description='The table\'s blinds in minor units, e.g. {"small_blind": 5, "big_blind": 10}: the row of '
        "`rake_schedule` that applies (caps and rates are posted by stakes).",
    )

    bounty_cash_ppm: Annotated[int, Strict(), Field(ge=0, le=PPM)] | None = Field(
        default=None,
        description="The cash part of a knockout bounty in parts per million: 1000000 for a fixed knockout, "
        "500000 for the usual progressive knockout (the rest is added to the winner's own bounty; an odd cent "
        "goes to the cash part). Required when `players[].bounty` is given.",
    )
    hand_for_hand_round: Ordinal | None = Field(
        default=None,
        description="Tournaments in hand-for-hand play: the round this hand belongs to (every table plays one "
        "hand per round). The round's busts are placed together when its `round_complete` message arrives.",
    )

    mystery_bounties: Annotated[tuple[MysteryBountyDrawn, ...], Field(max_length=MAX_PLAYERS)] | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # absent from the canonical JSON (the event's digest) when not given
        description="Tournaments in a mystery-bounty stage (a hand that starts with at most "
        "`open.mystery_bounties.from_entries_left` entries in play): one envelope per seat eliminated in this "
        "hand, as the room drew it; paid as cash to the winner(s) of that seat's relevant pot, divided as a "
        "knockout bounty is. `[]` or absent when nobody is eliminated; refused outside the stage, and on a hand "
        "with no `tournament_id` (`mystery_bounty_not_expected`).",
    )

    play: Play | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # absent from the canonical JSON (the event's digest) when not given
        description="The hand's betting in phh-std's fields and actions, `p<i>` the i-th entry of `players` (listed "
        "in the order the hand was played: p1 the small blind, the last the button). With it the worker plays the "
        "hand and refuses it (`betting_mismatch`, or the broken rule's code, naming the action and the seat) when "
        "the actions break a betting rule or give other `contributed`, `dead_money`, `folded`, board, `stack` or "
        "`button_seat` values than stated; the result then gives the street each seat folded on and whether the "
        "hand saw a flop.",
    )

    cashouts: Annotated[tuple[CashOutTaken, ...], Field(max_length=MAX_PLAYERS)] | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # absent from the canonical JSON (the event's digest) when not given
        description="Cash games: the all-in cash-outs the room paid, one a seat at most. Each seat that cashed out "
        "collects its `amount` whatever the run-out, and the house takes that seat's share of the run-out. Needs "
        "starting stacks (`stack`) to show the seat all-in.",
    )

    jackpot: JackpotDrop | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # absent from the canonical JSON (the event's digest) when not given
        description="Cash games: the jackpot drop the room took (counted in `rake`), checked against its program; "
        "the result's `jackpot` says whether the hand is the program's bad beat. Needs `stakes` (the drop is in big "
        "blinds).",
    )

    currency: Annotated[str, Strict()] | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # absent from the canonical JSON (the event's digest) when not given
        description="Cash games: the table's currency, an ISO 4217 code (USD, EUR, GBP, JPY, ...): every chip amount "
        "is a whole number of its minor unit (cents for USD; yen for JPY). The result, the archive and the API say "
        "it. Refused when it is not a code of the standard's with a minor unit (`bad_currency`) and on a tournament "
        "hand, whose chips are no currency (`tournament_currency`). Absent: the amounts are in the table's unit, "
        "unnamed.",
    )

    @field_validator("currency")
    @classmethod
    def _known_currency(cls, currency: str | None, info: ValidationInfo) -> str | None:
        """A code of ISO 4217's with a minor unit, of a cash hand (run only when the field is given)."""
        if currency is None:
            return None
        if currency not in ISO_4217_EXPONENTS:
            hint = f" (did you mean {currency.upper()!r}?)" if currency.upper() in ISO_4217_EXPONENTS else ""
            raise reject(
                "bad_currency",
                "currency",
                f"{quote(currency)} is not an ISO 4217 code with a minor unit: three upper-case letters such as "
                f"'USD', 'EUR', 'GBP', 'JPY'{hint}",
            )
        if info.data.get("tournament_id") is not None:
            raise reject(
                "tournament_currency",
                "currency",
                f"{currency} is given on a hand of tournament {quote(info.data['tournament_id'])}: a tournament's "
                "chips are no currency (send the hand without one)",
            )
        return currency

    @model_validator(mode="after")
    def _check_game_rules(self) -> Self:
        """Rules that span fields. Each failure names the field to fix.

        Also rewrites every card to canonical text (for producers that do not
        already send it). This runs for every event a worker takes, so the
        checks are set sizes and one pass over the players; offenders are
        looked for, and messages built, only once a check has failed.
        """
        players = self.players
        shape = VARIANT_SHAPES[self.variant]
        counts = shape.hole_cards
        most = counts[-1]
        cards = list(self.board)
        seats: set[int] = set()
        ids: set[str] = set()
        add_seat, add_id = seats.add, ids.add
        stacked = live = top = live_top = total = bountied = 0
        too_many = stack_short = live_shows_wrong = unequal = False
        live_count = -1
        fields = player_fields
        for p in players:  # one pass gathers what every rule below needs
            seat, player_id, held, contributed, dead_money, folded, stack, bounty = fields(p.__dict__)
            add_seat(seat)
            add_id(player_id)
            put_in = contributed + dead_money
            total += put_in
            if contributed > top:  # noqa: PLR1730  # a comparison: a third of max()'s time, per player per event
                top = contributed
            shown = 0
            if held:
                cards += held
                shown = len(held)
                if shown > most:
                    too_many = True
            if not folded:
                live += 1
                if contributed > live_top:  # noqa: PLR1730  # as above
                    live_top = contributed
                if shown not in counts:
                    live_shows_wrong = True
                if live_count != shown:
                    unequal = live_count >= 0
                    live_count = shown
            if stack is not None:
                stacked += 1
                if stack < put_in:
                    stack_short = True
            if bounty is not None:
                bountied += 1
        if not _CANONICAL.issuperset(cards):  # a producer spelling cards its own way ("10d", "a♠")
            cards = self._canonicalise()
        if self.boards is not None:
            cards += self._canonical_boards(shape)

        count = len(players)
        if len(seats) != count or len(ids) != count or len(set(cards)) != len(cards) or shape.lowest_rank > 2:
            self._check_identities(shape, seats, ids, cards)
        if stack_short or total > MAX_TOTAL_CHIPS or (stacked and stacked != count):
            _check_stacks(players, stacked, stack_short, total)
        if not live:
            raise reject("no_live_player", "players", "every player folded; somebody must be left to win")
        contested = live > 1
        self._check_shapes(shape, contested, too_many or (contested and live_shows_wrong), contested and unequal)
        if top and live_top != top:
            holders = ", ".join(str(p.seat) for p in players if p.contributed == top)
            raise reject(
                "folded_top_contribution",
                "players",
                f"the largest contribution ({top}) belongs only to folded seat(s) {holders}; a live seat must match it",
            )
        if (
            self.rake
            or bountied
            or self.mystery_bounties is not None
            or self.play is not None
            or self.cashouts
            or self.jackpot is not None
        ):
            self._check_sections(shape, contested, seats, stacked, bountied)
        return self

    def _check_identities(self, shape: VariantShape, seats: set[int], ids: set[str], cards: list[str]) -> None:
        """Each seat, player and card once; a short deck's cards in its deck."""
        players, count = self.players, len(self.players)
        if len(seats) != count:
            _raise_first_repeat(
                "duplicate_seat", "seat", [p.seat for p in players], "seat {} is taken by players[{}] too"
            )
        if len(ids) != count:
            named = [quote(p.player_id) for p in players]
            _raise_first_repeat("duplicate_player", "player_id", named, "{} also sits at players[{}]")
        if len(set(cards)) != len(cards):
            self._raise_duplicate_card()
        if shape.lowest_rank > 2:
            self._check_deck(shape, cards)

    def _check_shapes(self, shape: VariantShape, contested: bool, wrong_holes: bool, unequal: bool) -> None:
        """The board, the hole cards and the button as the game deals them."""
        players = self.players
        first_board = self.boards[0] if self.boards else self.board
        if len(first_board) > shape.board_cards or (contested and len(first_board) != shape.board_cards):
            where = "boards[0]" if self.boards else "board"
            raise reject(
                "bad_board_size",
                where,
                f"has {len(first_board)} cards; a {shape.label} showdown has {shape.board_cards}",
            )
        if wrong_holes:
            counts, most = shape.hole_cards, shape.hole_cards[-1]
            i, p = next(
                (i, p)
                for i, p in enumerate(players)
                if len(p.hole_cards or ()) > most
                or (contested and not p.folded and len(p.hole_cards or ()) not in counts)
            )
            raise reject(
                "bad_hole_cards",
                f"players[{i}].hole_cards",
                f"has {len(p.hole_cards or ())} cards; a {shape.label} player shows {shape.hole_text()}",
            )
        if unequal:
            live_players = [(i, p) for i, p in enumerate(players) if not p.folded]
            first_i, first_p = live_players[0]
            i, p = next((i, p) for i, p in live_players if len(p.hole_cards or ()) != len(first_p.hole_cards or ()))
            raise reject(
                "unequal_hole_cards",
                f"players[{i}].hole_cards",
                f"has {len(p.hole_cards or ())} cards but players[{first_i}] has {len(first_p.hole_cards or ())}; "
                f"every {shape.label} player is dealt the same number",
            )
        if shape.needs_button and self.button_seat is None:
            raise reject(
                "missing_button", "button_seat", f"is required for {shape.label}: it decides who gets odd chips"
            )

    def _check_sections(
        self, shape: VariantShape, contested: bool, seats: set[int], stacked: int, bountied: int
    ) -> None:
        """The optional sections, each by its own rules: rake, bounties, mystery envelopes, the play, cash-outs, the
        jackpot drop."""
        if self.rake:
            _check_rake(self.rake, self.rake_ppm, self.players)
        if bountied:
            self._check_bounties(bountied, stacked)
        if self.mystery_bounties is not None and self.tournament_id is None:
            raise reject(
                "mystery_bounty_not_expected",
                "mystery_bounties",
                "are given on a hand with no tournament_id: mystery bounties are paid only in a tournament's "
                "mystery-bounty stage (send the hand with its tournament_id, or without envelopes)",
            )
        if self.mystery_bounties:
            _check_mystery(self.mystery_bounties, seats, stacked)
        if self.play is not None:
            _check_play(self.play, self.variant, len(self.players))
        if self.cashouts:
            self._check_cashouts(shape, contested)
        if self.jackpot is not None:
            self._check_jackpot(self.jackpot)

    def _check_jackpot(self, jackpot: JackpotDrop) -> None:
        """A jackpot drop is of a cash hand with its stakes, and part of the rake (everything taken from the pot)."""
        if self.tournament_id is not None:
            raise reject(
                "bad_jackpot", "jackpot", "is given, but the hand is a tournament's: a jackpot is a cash pot's"
            )
        if self.stakes is None:
            raise reject("bad_jackpot", "jackpot", "needs `stakes`: a program's drop and minimum are in big blinds")
        if jackpot.drop > self.rake:
            raise reject(
                "bad_jackpot",
                "jackpot.drop",
                f"{jackpot.drop} is more than the rake of {self.rake}: `rake` counts everything taken from the pot, "
                "the jackpot drop included",
            )

    def _check_cashouts(self, shape: VariantShape, contested: bool) -> None:
        """Each cash-out is of a live seat of a contested cash hand with a board, run once; one a seat; and the
        seat was all-in (or covered every all-in: no more betting could involve it), which needs stacks."""
        cashouts = self.cashouts
        assert cashouts is not None
        where = "cashouts"
        if not shape.board_cards or self.boards is not None or self.tournament_id is not None or not contested:
            why = (
                f"{shape.label} has no board"
                if not shape.board_cards
                else "the hand was run more than once"
                if self.boards is not None
                else "the hand is a tournament's (chips, not cash)"
                if self.tournament_id is not None
                else "the showdown is uncontested"
            )
            raise reject("bad_cashout", where, f"are given, but {why}: a cash-out is of a contested cash hand")
        by_seat = {p.seat: p for p in self.players}
        live = [p for p in self.players if not p.folded]
        named: dict[int, int] = {}
        play = self.play
        stacks = {p.seat: p.stack for p in self.players}
        if play is not None:  # the play's starting stacks show who was all-in too (its order is the players')
            starts = zip(self.players, play.starting_stacks, strict=False)
            stacks |= {p.seat: start for p, start in starts if p.stack is None}
        for i, offer in enumerate(cashouts):
            if offer.action is None and offer.street is None:
                raise reject("bad_cashout", f"cashouts[{i}]", "names no point: give `street`, or `action` with `play`")
            if offer.action is not None:
                if play is None:
                    raise reject(
                        "bad_cashout",
                        f"cashouts[{i}].action",
                        f"is {offer.action}, an index into play.actions, but the event has no `play`",
                    )
                if offer.action >= len(play.actions):
                    raise reject(
                        "cashout_action_out_of_range",
                        f"cashouts[{i}].action",
                        f"is {offer.action}; play.actions holds {len(play.actions)} actions (0 to "
                        f"{len(play.actions) - 1})",
                    )
            where = f"cashouts[{i}].seat"
            player = by_seat.get(offer.seat)
            if player is None or player.folded:
                raise reject("bad_cashout", where, f"seat {offer.seat} is {'folded' if player else 'not in the hand'}")
            if offer.seat in named:
                raise reject(
                    "cashout_repeated", where, f"seat {offer.seat} cashed out at cashouts[{named[offer.seat]}] already"
                )
            named[offer.seat] = i
            if stacks[offer.seat] is None:
                raise reject(
                    "cashout_not_all_in", where, f"seat {offer.seat}: without starting stacks nobody is shown all-in"
                )
            if not _all_in(player, live, stacks):
                raise reject(
                    "cashout_not_all_in",
                    where,
                    f"seat {offer.seat} put in {player.contributed + player.dead_money} of its {stacks[offer.seat]} "
                    "chips and another live seat could still bet: only a seat all-in (or covering every all-in) cashes "
                    "out",
                )

    def _check_bounties(self, bountied: int, stacked: int) -> None:
        """Bounties are given for every seat or none (``bountied`` seats give one), with starting stacks (busts
        decide who is paid) and the cash fraction (``bounty_cash_ppm``)."""
        players = self.players
        if bountied != len(players):
            i = next(i for i, p in enumerate(players) if p.bounty is None)
            raise reject("partial_bounties", f"players[{i}].bounty", "is missing while other seats give theirs")
        if not stacked:
            raise reject(
                "bounty_without_stack",
                "players[0].stack",
                "is missing: bounties are paid for eliminations, which need every seat's starting stack",
            )
        if self.bounty_cash_ppm is None:
            raise reject(
                "missing_bounty_cash_ppm",
                "bounty_cash_ppm",
                "is required with bounties: 1000000 for a fixed knockout, 500000 for a progressive knockout",
            )

    def _canonicalise(self) -> list[str]:
        """Rewrite the board's and every player's cards to canonical text (the frozen model is set once,
        during validation) and return them all. ``boards`` is rewritten by :meth:`_canonical_boards`."""
        spell = _SPELLINGS.__getitem__  # the card pattern admits exactly its keys
        cards = list(map(spell, self.board))
        self.__dict__["board"] = tuple(cards)
        for p in self.players:
            if p.hole_cards:
                p.__dict__["hole_cards"] = held = tuple(map(spell, p.hole_cards))
                cards += held
        return cards

    def _canonical_boards(self, shape: VariantShape) -> list[str]:
        """Canonicalise ``boards`` in place and return its distinct cards: the shared start once, then each
        board's own cards. Refuses boards for a game without a board, beside ``board``, or incomplete."""
        boards = self.boards
        assert boards is not None
        if not shape.board_cards:
            raise reject("bad_boards", "boards", f"is given, but {shape.label} has no board")
        if self.board:
            raise reject("bad_boards", "boards", "is given beside board: send boards alone when a hand is run again")
        spell = _SPELLINGS.__getitem__
        canonical = tuple(tuple(map(spell, b)) for b in boards)
        if canonical != boards:
            self.__dict__["boards"] = canonical
        for i, b in enumerate(canonical):
            if len(b) != shape.board_cards:
                raise reject(
                    "bad_boards",
                    f"boards[{i}]",
                    f"has {len(b)} cards; each board of a hand run again is complete ({shape.board_cards} cards)",
                )
        shared = _shared_start(canonical)
        return [*canonical[0][:shared], *(card for b in canonical for card in b[shared:])]

    def _raise_duplicate_card(self) -> NoReturn:
        first: dict[str, str] = {}
        places = [(card, f"board[{k}]") for k, card in enumerate(self.board)]
        if self.boards:
            shared = _shared_start(self.boards)
            places += [(card, f"boards[0][{k}]") for k, card in enumerate(self.boards[0][:shared])]
            for i, b in enumerate(self.boards):
                places += [(card, f"boards[{i}][{k}]") for k, card in enumerate(b) if k >= shared]
        for i, p in enumerate(self.players):
            places += [(card, f"players[{i}].hole_cards[{k}]") for k, card in enumerate(p.hole_cards or ())]
        for card, where in places:
            if card in first:
                raise reject("duplicate_card", where, f"{card} is also at {first[card]}; each card exists once")
            first[card] = where
        raise AssertionError("a repeated card was counted but not found")  # pragma: no cover

    def _check_deck(self, shape: VariantShape, cards: list[str]) -> None:
        """Refuse a card below the deck's lowest rank (short deck: 6), naming where it is."""
        low = _RANKS_BELOW[shape.lowest_rank]
        if not any(card[0] in low for card in cards):
            return
        places = [(card, f"board[{k}]") for k, card in enumerate(self.board)]
        for i, b in enumerate(self.boards or ()):
            places += [(card, f"boards[{i}][{k}]") for k, card in enumerate(b)]
        for i, p in enumerate(self.players):
            places += [(card, f"players[{i}].hole_cards[{k}]") for k, card in enumerate(p.hole_cards or ())]
        card, where = next((card, where) for card, where in places if card[0] in low)
        raise reject(
            "card_not_in_deck",
            where,
            f"{card} is not in the {shape.label} deck, which starts at {_RANK_TEXT[shape.lowest_rank]}",
        )

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **options: Any) -> Self:
        """Pydantic's reading, and one more refusal: a key given twice in one object (``duplicate_key``),
        which a JSON parser would settle silently on its last value (see :mod:`showdown_messages.repeats`)."""
        try:
            event = super().model_validate_json(json_data, **options)
        except ValidationError:
            refuse_repeated_keys(json_data, cls.__name__)  # the repeat is the reason to give, if there is one
            raise
        given = len(event.__pydantic_fields_set__)
        for p in event.players:
            given += len(p.__pydantic_fields_set__)
        if event.play is not None:
            given += len(event.play.__pydantic_fields_set__)
        if event.stakes is not None:  # an object's keys each count (else every event with stakes is read again)
            given += len(event.stakes.__pydantic_fields_set__)
        if could_repeat(json_data, given):
            refuse_repeated_keys(json_data, cls.__name__)
        return event


_RANK_TEXT: Final = {r: "23456789TJQKA"[r - 2] for r in range(2, 15)}
_RANKS_BELOW: Final = {r: frozenset("23456789TJQKA"[: r - 2]) for r in range(2, 15)}


def _check_mystery(drawn: tuple[MysteryBountyDrawn, ...], seats: set[int], stacked: int) -> None:
    """Each envelope is for a seat of the hand, one a seat, and eliminations need starting stacks."""
    if not stacked:
        raise reject(
            "mystery_bounty_seat", "mystery_bounties", "are given without starting stacks (eliminations need them)"
        )
    named: set[int] = set()
    for i, envelope in enumerate(drawn):
        if envelope.seat not in seats:
            raise reject(
                "mystery_bounty_seat", f"mystery_bounties[{i}].seat", f"seat {envelope.seat} is not in the hand"
            )
        if envelope.seat in named:
            raise reject(
                "mystery_bounty_seat", f"mystery_bounties[{i}].seat", f"seat {envelope.seat} has an envelope already"
            )
        named.add(envelope.seat)


def _check_play(play: Play, variant: str, players: int) -> None:
    """A ``play`` names the event's game and one entry per player in each list (the betting is the worker's)."""
    game = PHH_VARIANTS[play.variant[1:]]
    if game != variant:
        raise reject("bad_play", "play.variant", f"{play.variant!r} is {game}, not the event's {variant}")
    for name in ("starting_stacks", "antes", "blinds_or_straddles"):
        given = len(getattr(play, name))
        if given != players and (given or name == "starting_stacks"):
            raise reject("bad_play", f"play.{name}", f"has {given} entries for {players} players (one each, p1 first)")


def _all_in(player: PlayerIn, live: list[PlayerIn], stacks: dict[int, int | None]) -> bool:
    """No more betting could involve ``player``: it put in its whole stack, or every other live seat put in
    theirs and it matched the most any of them put in (it covered them: GGPoker's covering EV Cashout).
    ``stacks``: each seat's starting stack (its ``stack``, else its ``play.starting_stacks`` entry)."""
    if player.contributed + player.dead_money == stacks[player.seat]:
        return True
    others = [p for p in live if p is not player]
    return all(p.contributed + p.dead_money == stacks[p.seat] for p in others) and all(
        player.contributed >= p.contributed for p in others
    )


def _shared_start(boards: tuple[tuple[str, ...], ...]) -> int:
    """How many cards every board starts with alike: those dealt before the hand was run again."""
    first = boards[0]
    shared = 0
    while shared < len(first) and all(len(b) > shared and b[shared] == first[shared] for b in boards[1:]):
        shared += 1
    return shared


def _check_stacks(players: tuple[PlayerIn, ...], stacked: int, stack_short: bool, total: int) -> None:
    """Stacks all given or none; none short of what its seat put in; the chips put in readable as JSON numbers."""
    if stacked and stacked != len(players):
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
player_fields: Final = itemgetter(
    "seat", "player_id", "hole_cards", "contributed", "dead_money", "folded", "stack", "bounty"
)
"""A :class:`PlayerIn`'s fields in order, from its ``__dict__`` at once: half the time of seven attribute
loads on a model (the contract's check)."""
_CANONICAL: Final = frozenset(CANONICAL_CARDS)


def _raise_first_repeat(code: str, field: str, values: list[Any], template: str) -> NoReturn:
    first: dict[Any, int] = {}
    for i, value in enumerate(values):
        if value in first:
            raise reject(code, f"players[{i}].{field}", template.format(value, first[value]))
        first[value] = i
    raise AssertionError("a repeat was counted but not found")  # pragma: no cover
