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
    "one_card",
    "two_card",
    "three_card",
    "badugi",
    "five_low",
    "six_low",
    "seven_low",
    "eight_low",
    "nine_low",
    "ten_low",
    "jack_low",
    "queen_low",
    "king_low",
    "ace_low",
]
"""A hand's category, named by the ranking that valued it (see :data:`CATEGORY_MEANING`)."""

CATEGORY_MEANING = (
    "High hands (high, short deck, the high half of hi-lo): high_card, one_pair, two_pair, three_of_a_kind, "
    "straight, flush, full_house, four_of_a_kind, straight_flush. "
    "Low hands (eight_or_better, ace_to_five as in razz, deuce_to_seven): a hand with five different ranks that "
    "counts as a low is named by its highest card, five_low (5-4-3-2-A, the best ace-to-five and eight-or-better "
    "low) up to king_low in ace-to-five, seven_low (7-5-4-3-2, the best deuce-to-seven hand) up to ace_low in "
    "deuce-to-seven, five_low to eight_low in eight-or-better; a lower highest card wins. What counts against a "
    "low keeps its high name: one_pair up to four_of_a_kind, and in deuce-to-seven straight, flush and "
    "straight_flush. Badugi: badugi (four cards of four suits and four ranks), then three_card, two_card and "
    "one_card hands; more cards win, then the lower."
)
"""What each :data:`Category` means: the description of every ``category`` field of the result."""
Ranking = Literal[
    "high", "short_deck", "short_deck_straight_over_trips", "eight_or_better", "ace_to_five", "deuce_to_seven", "badugi"
]
Amount = Annotated[int, Field(ge=0)]
Street = Literal[
    "preflop", "flop", "turn", "river", "third", "fourth", "fifth", "sixth", "seventh",
    "predraw", "first_draw", "second_draw", "third_draw", "showdown",
]  # fmt: skip
"""A betting round: board games' four, stud's five (third street to seventh), draw games' (before the first draw, then
after each); ``showdown``: mucked at the showdown."""


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Share(_Out):
    """Chips one seat takes from one pot."""

    seat: SeatNumber
    amount: Amount


class PotPart(_Out):
    """One run's part of a pot, or one half of it, with its own amount, winners and hand."""

    run: Annotated[int, Field(ge=1, le=3)] = Field(description="1 for the first (or only) board, then 2, 3.")
    half: Literal["whole", "high", "low"] = Field(
        description="`high` or `low` in a hi-lo game; `whole` when the part was not split (no hand qualified "
        "for low, or a game with one ranking run more than once)."
    )
    ranking: Ranking = Field(description="The ranking that awarded it.")
    amount: Amount
    winners: tuple[Share, ...] = Field(description="Who takes it; at most one odd chip per seat.")
    hand: str = Field(description="The winning hand, e.g. 'Eight-six low'.")


class Pot(_Out):
    """One pot: main pot first (index 0), then side pots in order."""

    index: Annotated[int, Field(ge=0)]
    amount: Amount = Field(description="Chips in the pot before rake, dead money included.")
    rake: Amount = Field(default=0, description="Chips the house took from this pot.")
    eligible_seats: tuple[SeatNumber, ...] = Field(description="Live seats that put in enough to win it.")
    winners: tuple[Share, ...] = Field(
        description="Who takes the pot (each seat's total over its parts); odd chips already placed."
    )
    hand: str | None = Field(
        description="The winning hand, e.g. 'Full house, Kings full of Fives' (of the first part: run 1, the high "
        "half in a hi-lo game); null if uncontested."
    )
    parts: tuple[PotPart, ...] = Field(
        default=(),
        description="How the pot was divided, when it was: each run's part and each half of a hi-lo game "
        "(listed even when no low qualified). Empty when one hand's ranking awarded the whole pot on one board.",
    )


class Award(_Out):
    """Everything one seat collects, one entry per seat in the event (zeros included)."""

    seat: SeatNumber
    player_id: Id
    amount: Amount = Field(description="Pots won plus any uncalled bet returned.")
    net: int = Field(description="amount minus every chip the seat put in (dead money included).")
    end_stack: Amount | None = Field(
        default=None,
        description="The seat's chips at the end of the hand: its starting stack (`players[].stack`, or the "
        "event's `play.starting_stacks`) plus `net`. Absent when the event gives no starting stacks.",
    )
    folded_on: Street | None = Field(
        default=None,
        description="With the event's `play`: the street the seat folded on (`showdown` for a muck), null when it "
        "did not fold. Absent without a play.",
    )


class RankedHand(_Out):
    """One hand of a seat under one ranking (its high or its low)."""

    ranking: Ranking
    category: Category = Field(description=CATEGORY_MEANING)
    cards: tuple[str, ...] = Field(description="The cards that play (five; badugi up to four), most significant first.")
    description: str = Field(description="For people: 'Eight-six low', 'Badugi, 8-5-3-2'.")
    strength: Annotated[int, Field(ge=1, le=7462)] = Field(
        description="Within the ranking: 1 for its worst hand upward; higher wins, equal ties."
    )


class ShownHand(_Out):
    """A hand shown down at a contested showdown, on one board.

    The first five fields are the hand the game is mainly played for: the
    high hand, or in a low-only game (razz, deuce-to-seven, badugi) the low.
    """

    seat: SeatNumber
    player_id: Id
    category: Category = Field(description=CATEGORY_MEANING)
    best_five: tuple[str, ...] = Field(description="The cards that play, most significant first (badugi: up to 4).")
    description: str = Field(description="For people: 'Two pair, Aces and Sevens, Queen kicker'.")
    strength: Annotated[int, Field(ge=1, le=7462)] = Field(
        description="Within the hand's ranking: 1 for its worst hand (hold'em: seven-high) up to its best "
        "(hold'em: 7462, a royal flush); higher wins, equal ties."
    )
    run: Annotated[int, Field(ge=1, le=3)] = Field(
        default=1, description="The board this hand is on: 1, or 2, 3 for a hand run again (one entry per run)."
    )
    high: RankedHand | None = Field(
        default=None, description="In a hi-lo game: the high hand (the first five fields repeat it); else null."
    )
    low: RankedHand | None = Field(
        default=None,
        description="In a hi-lo game: the low hand, or null when it does not qualify (8-or-better). Else null.",
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


class BountyShare(_Out):
    """What one winner of the relevant pot takes of an eliminated player's bounty (currency units)."""

    seat: SeatNumber
    player_id: Id
    amount: Amount = Field(description="cash + added.")
    cash: Amount = Field(description="Paid to the winner now.")
    added: Amount = Field(description="Added to the bounty on the winner's own head (0 in a fixed knockout).")


class BountyAward(_Out):
    """An eliminated seat's bounty and who collects it: the winners of its relevant pot, by their fraction of
    that pot (a chop 1/k each; runs equal parts; a hi-lo part halved when a low qualifies)."""

    seat: SeatNumber
    player_id: Id
    bounty: Amount = Field(
        description="On the eliminated head when its elimination was settled (the hand's starting bounty plus "
        "what it won in this hand's earlier eliminations), currency units."
    )
    pot: Annotated[int, Field(ge=0)] = Field(
        description="The relevant pot's index: the highest pot the eliminated seat was eligible for."
    )
    winners: tuple[BountyShare, ...] = Field(description="Seats ascending; the amounts sum to `bounty`.")


class JackpotRole(_Out):
    """A seat's part in a bad beat: its role and the role's share of the jackpot's fund."""

    model_config = ConfigDict(title="JackpotRole")

    seat: SeatNumber
    player_id: Id
    role: Literal["loser", "winner", "other"] = Field(
        description="The losing hand, the winning hand, or another seat dealt in."
    )
    ppm: Annotated[int, Field(ge=0, le=1_000_000)] = Field(
        description="The role's parts per million of the fund before the payout (seats sharing a role split it)."
    )
    amount: Amount | None = Field(
        default=None,
        description="What the seat was paid from the fund: the role's ppm of `fund_before` plus the drop, rounded "
        "down (split equally, rounded down, among the role's seats). Absent where the fund is not kept (a replay "
        "of a history).",
    )


class JackpotSettled(_Out):
    """The hand's jackpot drop, checked against its program, and whether the hand is the program's bad beat."""

    model_config = ConfigDict(title="JackpotSettled")

    jackpot_id: Id
    program: Id
    drop: Amount = Field(description="What the pot paid into the fund (part of the rake), as the program takes it.")
    bad_beat: bool = Field(description="The best losing hand qualifies by the program (first run-out).")
    losing_hand: str | None = Field(default=None, description="The qualifying losing hand, for people.")
    winning_hand: str | None = Field(default=None, description="The hand that beat it, for people.")
    roles: tuple[JackpotRole, ...] = Field(
        default=(), description="With a bad beat: every seat dealt in with its role and share, seats ascending."
    )
    fund_before: Amount | None = Field(
        default=None,
        description="The fund's balance before this hand (its ledger in Redis; the seed when the hand declares it). "
        "Absent where the fund is not kept (a replay of a history).",
    )
    fund_after: Amount | None = Field(
        default=None,
        description="The fund's balance after this hand: `fund_before` + `drop` - the amounts paid.",
    )


class CashOutSettled(_Out):
    """An all-in cash-out, checked and paid: the seat took `amount`, the house its share of the run-out."""

    model_config = ConfigDict(title="CashOutSettled")

    seat: SeatNumber
    player_id: Id
    street: Literal["preflop", "flop", "turn"]
    equity: Annotated[str, Field(pattern=r"^[0-9]+/[1-9][0-9]*$")] = Field(
        description="The seat's exact equity then, as a fraction ('907/990'): value / (pot - rake) of the pots it "
        "contests, every remaining board enumerated."
    )
    value: Annotated[str, Field(pattern=r"^[0-9]+/[1-9][0-9]*$")] = Field(
        description="(pot - rake) x equity, exact, before the fee (minor units, as a fraction)."
    )
    fee_ppm: Annotated[int, Field(ge=0, le=1_000_000)]
    amount: Amount = Field(description="The offer paid to the seat: value less the fee, rounded half to even.")
    runout: Amount = Field(description="What the seat's hand won of the pots on the board dealt: the house's side.")
    house: int = Field(description="runout - amount: the house's net (negative when it paid more than it took).")
    action: Annotated[int, Field(ge=0)] | None = Field(
        default=None,
        description="The index into the event's `play.actions` after which the seat cashed out, when the event named "
        "it (`street` is then that action's); absent otherwise.",
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
    currency: str | None = Field(
        default=None,
        description="The event's `currency` (an ISO 4217 code): every amount is a whole number of its minor unit. "
        "Absent when the event named none (a tournament's chips; an event from before the field).",
    )
    pots: tuple[Pot, ...]
    returned: tuple[Returned, ...] = Field(description="Uncalled bets returned; not part of any pot.")
    awards: tuple[Award, ...]
    hands: tuple[ShownHand, ...] = Field(description="Per seat shown, and per run when a hand was run again.")
    busts: tuple[Bust, ...] = Field(description="Worst finish first.")
    bounties: tuple[BountyAward, ...] = Field(
        default=(),
        description="Knockout tournaments: one entry per eliminated seat that had a bounty, in the order settled "
        "(shortest starting stack first).",
    )
    mystery_bounties: tuple[BountyAward, ...] = Field(
        default=(),
        description="Tournaments in a mystery-bounty stage: one entry per envelope the hand paid (per eliminated "
        "seat): `bounty` is the envelope's amount, paid all as cash (`added` 0) to the winners of the seat's "
        "relevant pot, divided as a knockout bounty is. Absent when the hand paid none.",
    )
    saw_flop: bool | None = Field(
        default=None,
        description="With the event's `play`: whether the flop was dealt with two or more seats in the hand (what "
        "no-flop-no-drop rake policies ask); false in stud and draw games. Absent without a play.",
    )
    rake_schedule: Id | None = Field(
        default=None,
        description="The rake schedule the rake was taken by (the event's `rake_schedule`); absent without one.",
    )
    rake_paid: tuple[Share, ...] = Field(
        default=(),
        description="With a rake schedule: what each seat dealt in paid of the rake by the schedule's method "
        "(dealt, contributed or weighted contributed: for rakeback and loyalty), seats ascending, summing to the "
        "pots' rake exactly. Absent without a schedule.",
    )
    cashouts: tuple[CashOutSettled, ...] = Field(
        default=(),
        description="Cash games: each all-in cash-out, seat ascending (its `awards` amount is the offer, not the "
        "run-out). Absent when the hand had none.",
    )
    jackpot: JackpotSettled | None = Field(
        default=None,
        description="Cash games: the event's jackpot drop, checked, and the bad beat if the hand is one. Absent "
        "without a jackpot.",
    )
    settled_at: datetime
    evaluator: str = Field(description="The settling software, 'showdown/<version>'.")
