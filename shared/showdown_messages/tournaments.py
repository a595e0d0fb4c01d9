"""Tournament messages: what a card room's tournament director sends beside the hands, and what comes back.

A tournament's messages travel on the same events stream as its hands, as the
JSON of an entry's ``tournament`` field (a hand's is ``event``), so one stream
order covers both: an entry is registered before the hands it plays, a
hand-for-hand round is complete after its hands. Every message carries
``schema_version`` 1 and a ``type``.

Money (``payouts``, ``bounty``, ``prize``, ``bounty_cash``) is in the prize
currency's smallest unit (cents); ``stack`` is in tournament chips.

The placement record (:class:`Placement`) is what the worker writes to a
shard's standings stream for every entry that finishes, in the same commit as
the hand (or message) that finished it.
"""

from __future__ import annotations

from typing import Annotated, Literal, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, Strict, TypeAdapter, ValidationError, model_validator

from showdown_messages.events import Chips, Id, Ordinal, _supported_version
from showdown_messages.rejections import reject
from showdown_messages.repeats import could_repeat, refuse_repeated_keys
from showdown_rules import MAX_CHIPS, MAX_ICM_DEAL_ENTRIES, PPM

__all__ = [
    "AnyTournamentMessage",
    "ChipsBought",
    "DealAgreed",
    "DealEntry",
    "EntryRegistered",
    "MysteryBounties",
    "MysteryEnvelopes",
    "Placement",
    "RegistrationClosed",
    "RoundComplete",
    "TournamentMessage",
    "TournamentOpened",
    "parse_tournament_message",
]

Version = Annotated[int, Strict(), AfterValidator(_supported_version)]
Payouts = Annotated[
    tuple[Chips, ...],
    Field(
        max_length=100_000,
        description="The prize for 1st, 2nd, 3rd, ... place, in the currency's smallest unit; places beyond the "
        "list win nothing. Never increasing down the list, the first prize more than 0, and no longer than the "
        "field once registration closes (every prize announced is paid). A satellite's seats are prizes of the "
        "seat's value, one a seat.",
    ),
]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Version = Field(description="Message format version; this is 1.", json_schema_extra={"const": 1})
    tournament_id: Id


def _check_payouts(payouts: tuple[int, ...], field: str) -> None:
    """Payouts pay something (the first prize is more than 0) and never increase down the list."""
    if payouts and not payouts[0]:
        raise reject(
            "bad_payouts",
            field,
            "pay nothing (the first prize is 0): announce the prizes in currency units (a satellite: each seat's "
            "value, one a seat)",
        )
    for i in range(1, len(payouts)):
        if payouts[i] > payouts[i - 1]:
            raise reject(
                "bad_payouts",
                f"{field}[{i}]",
                f"{payouts[i]} is more than place {i}'s {payouts[i - 1]}: a lower place never pays more",
            )


class MysteryEnvelopes(BaseModel):
    """Envelopes of one amount in a mystery-bounty pool."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="MysteryEnvelopes")

    amount: Annotated[int, Strict(), Field(ge=1, le=MAX_CHIPS)] = Field(
        description="What each of these envelopes pays (currency units)."
    )
    count: Annotated[int, Strict(), Field(ge=1, le=1_000_000)] = Field(description="How many envelopes pay it.")


class MysteryBounties(BaseModel):
    """A mystery-bounty stage: from ``from_entries_left`` entries in play on, each elimination wins an envelope."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="MysteryBounties")

    from_entries_left: Ordinal = Field(
        description="The stage covers every hand that starts with at most this many entries in play."
    )
    envelopes: Annotated[tuple[MysteryEnvelopes, ...], Field(min_length=1, max_length=10_000)] = Field(
        description="The published pool: amounts and how many of each. Every envelope is paid once; those left "
        "when the tournament ends are reported with the standings, never paid."
    )


class TournamentOpened(_Message):
    """``open``: a tournament starts, with its rules. Its hands are checked against its ledger from now on."""

    model_config = ConfigDict(title="TournamentOpened")

    type: Literal["open"]
    payouts: Payouts
    bounty_cash_ppm: Annotated[int, Strict(), Field(ge=0, le=PPM)] | None = Field(
        default=None,
        description="Knockout tournaments: the cash part of a bounty in parts per million (1000000 fixed "
        "knockout, 500000 the usual progressive knockout); null or absent: no bounties.",
    )
    equal_stacks: Literal["tie", "seat_order"] = Field(
        default="tie",
        description="Players eliminated in one hand with equal starting stacks: `tie` share the places "
        "(PokerStars), `seat_order` the first left of the button finishes higher (GGPoker).",
    )
    hand_for_hand: Literal["by_stack", "tie"] = Field(
        default="by_stack",
        description="Busts of one hand-for-hand round: `by_stack` ranked by starting stack across tables as one "
        "hand (PokerStars), `tie` all share the places (WSOP Rule 126.b).",
    )
    satellite: Annotated[bool, Strict()] = Field(
        default=False,
        description="End early when every remaining entry would receive the same prize: they all finish in the "
        "best remaining place and share those prizes (a satellite's seats; Double-or-Nothing).",
    )

    mystery_bounties: MysteryBounties | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # absent from the canonical JSON (the message's digest) when not given
        description="Mystery bounties: the stage and its pool of envelopes (absent: none).",
    )

    @model_validator(mode="after")
    def _check(self) -> Self:
        _check_payouts(self.payouts, "payouts")
        return self


class EntryRegistered(_Message):
    """``entry``: a player buys in (or re-enters) with ``stack`` chips and, in a knockout, ``bounty`` on their head."""

    model_config = ConfigDict(title="EntryRegistered")

    type: Literal["entry"]
    player_id: Id
    entry: Ordinal = Field(
        description="1 for the player's first entry, 2 for a re-entry, ...: each entry finishes on its own."
    )
    stack: Annotated[int, Strict(), Field(ge=1, le=10**15)] = Field(description="Starting chips.")
    bounty: Chips | None = Field(
        default=None, description="The bounty on the entry's head (currency units); required in a knockout."
    )


class ChipsBought(_Message):
    """``chips``: an entry in play buys chips between hands (a rebuy, an add-on); its next hand starts with them."""

    model_config = ConfigDict(title="ChipsBought")

    type: Literal["chips"]
    player_id: Id
    entry: Ordinal = Field(description="The entry buying, as registered.")
    purchase: Ordinal = Field(
        description="1 for the entry's first purchase, 2 for its second, ...: a purchase sent twice is applied once."
    )
    kind: Literal["rebuy", "add_on"] = Field(description="What the card room sold (for the record).")
    chips: Annotated[int, Strict(), Field(ge=1, le=10**15)] = Field(description="Chips added to the entry's stack.")
    bounty: Chips | None = Field(
        default=None,
        description="Knockout tournaments: added to the bounty on the entry's head (currency units), if the "
        "purchase buys bounty too.",
    )


class RegistrationClosed(_Message):
    """``registration_closed``: no more entries. Places are counted from here (the field is the entries left)."""

    model_config = ConfigDict(title="RegistrationClosed")

    type: Literal["registration_closed"]
    payouts: Payouts | None = Field(
        default=None, description="Replaces the payouts of `open`: the prize pool is known only now."
    )

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.payouts is not None:
            if not self.payouts:
                raise reject(
                    "bad_payouts",
                    "payouts",
                    "is empty: registration closes with the prizes announced (leave the field out to keep open's)",
                )
            _check_payouts(self.payouts, "payouts")
        return self


class RoundComplete(_Message):
    """``round_complete``: every table has finished hand-for-hand round ``round``; its busts are placed now."""

    model_config = ConfigDict(title="RoundComplete")

    type: Literal["round_complete"]
    round: Ordinal


class DealEntry(BaseModel):
    """One entry in play, as a deal names it."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="DealEntry")

    player_id: Id
    entry: Ordinal = Field(description="The entry's number, as registered.")
    amount: Chips | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="Method `custom` only (and then for every entry): the amount agreed (currency units).",
    )


class DealAgreed(_Message):
    """``deal``: every entry in play agrees a deal between hands; play goes on to decide the places, and each entry
    is paid its deal amount when it finishes (the winner: theirs plus ``left_to_play_for``)."""

    model_config = ConfigDict(title="DealAgreed")

    type: Literal["deal"]
    method: Literal["icm", "chip_chop", "equal", "custom"] = Field(
        description="`icm`: Malmuth-Harville over the unpaid prizes (`left_to_play_for` off first prize); "
        "`chip_chop`: in proportion to chips; `equal`: the same for each; `custom`: the `amount` of each entry. "
        "The stacks are the ledger's, not the message's. An `icm` deal names at most 20 entries (`deal_too_large`)."
    )
    entries: Annotated[tuple[DealEntry, ...], Field(min_length=2, max_length=10_000)] = Field(
        description="Every entry still in play, and no other."
    )
    left_to_play_for: Chips = Field(
        default=0,
        description="Kept back for the eventual winner (currency units), taken off first prize first; at most "
        "first prize minus second.",
    )

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.method == "icm" and len(self.entries) > MAX_ICM_DEAL_ENTRIES:
            raise reject(
                "deal_too_large",
                "entries",
                f"{len(self.entries)} entries: an icm deal is shared between at most {MAX_ICM_DEAL_ENTRIES} (its Monte "
                "Carlo's work grows with the field); agree it as chip_chop, equal or custom",
            )
        custom = self.method == "custom"
        for i, e in enumerate(self.entries):
            if custom and e.amount is None:
                raise reject("deal_amounts", f"entries[{i}].amount", "is required: the method is custom")
            if not custom and e.amount is not None:
                raise reject(
                    "deal_amounts", f"entries[{i}].amount", f"is given only with method custom, not {self.method}"
                )
        return self


AnyTournamentMessage = (
    TournamentOpened | EntryRegistered | ChipsBought | RegistrationClosed | RoundComplete | DealAgreed
)
"""Any of the tournament messages (a type to annotate and ``isinstance`` with)."""
TournamentMessage = Annotated[AnyTournamentMessage, Field(discriminator="type")]
"""Any tournament message, told apart by ``type`` when read."""
_ADAPTER: TypeAdapter[TournamentMessage] = TypeAdapter(TournamentMessage)


def parse_tournament_message(
    payload: bytes | str,
) -> AnyTournamentMessage:
    """Validate one tournament message's JSON (raises ``pydantic.ValidationError``); a key given twice in it is
    refused (``duplicate_key``), as in an event."""
    try:
        message = _ADAPTER.validate_json(payload)
    except ValidationError:
        refuse_repeated_keys(payload, "TournamentMessage")
        raise
    if could_repeat(payload, len(message.__pydantic_fields_set__)):
        refuse_repeated_keys(payload, "TournamentMessage")
    return message


class Placement(BaseModel):
    """How one entry finished: a standings stream entry's ``placement`` field, and `showdown tournament standings
    --json`."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="Placement")

    tournament_id: Id
    player_id: Id
    entry: Annotated[int, Field(ge=1)]
    place: Annotated[int, Field(ge=1)] | None = Field(
        description="1 for the winner; tied entries all show the best place they share. Null for an entry "
        "eliminated while registration was open (it finishes without a place)."
    )
    tied: Annotated[int, Field(ge=1)] = Field(description="How many entries share the place (1 when alone).")
    prize: Annotated[int, Field(ge=0)] = Field(
        description="Currency units: the place's prize, or an equal share of the tied places' prizes (left-over "
        "cents one each to the tied entries in the order they entered)."
    )
    bounty_cash: Annotated[int, Field(ge=0)] = Field(
        description="Currency units collected from bounties over the whole tournament (the winner's own final "
        "bounty included)."
    )
    mystery_bounty_cash: Annotated[int, Field(ge=0)] = Field(
        default=0,
        description="Currency units won from mystery-bounty envelopes over the whole tournament (absent or 0 "
        "without a mystery-bounty stage).",
    )
