"""The read API's response bodies, as the OpenAPI document describes them.

The messages inside them are the contract's own models (``showdown_messages``: the JSON Schemas under
``shared/schemas/``), so a client generated from the document is typed end to end. These models describe the
bodies only: the routes serve the bodies as read (never re-validated or re-serialised through them).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from showdown_messages.records import AuditRecord
from showdown_messages.results import ShowdownResult
from showdown_messages.tournaments import Placement


class Error(BaseModel):
    """Every refusal's body: a code and a sentence."""

    code: str = Field(description="unauthenticated, invalid_token, insufficient_scope, bad_query, "
                      "unknown_tournament, archive_unavailable, archive_incomplete, too_many_requests, "
                      "too_many_streams, too_many_archive_lookups, archive_busy, internal_error")  # fmt: skip
    message: str


class DeadLetterItem(BaseModel):
    """A dead letter as the API shows one from Redis: the stream entry's fields, where it is, what its payload
    names, and whether it was requeued."""

    model_config = ConfigDict(title="DeadLetterItem")

    shard: str
    id: str = Field(description="The dead-letter stream entry id.")
    code: str = Field(description="Why, as a stable code (see the rejection codes).")
    message: str = Field(description="Why, for people: the field, the value, what is wrong.")
    entry_id: str = Field(description="The refused events-stream entry.")
    hand_id: str | None = Field(description="The hand_id the payload names, when it names one.")
    tournament_id: str | None = Field(description="The tournament_id the payload names, when it names one.")
    type: str | None = Field(description="A tournament message's type (open, entry, ...); null for a hand.")
    raw: str = Field(description="The payload kept, as text.")
    raw_bytes: int = Field(description="The original payload's full length in bytes.")
    worker: str
    at: str = Field(description="When it was dead-lettered (RFC 3339, UTC).")
    requeued_as: str | None = Field(description="The events entry id it was requeued as, once it was.")


class ArchivedDeadLetter(BaseModel):
    """A dead letter as the archive keeps it: the stream entry's fields less ``raw`` (all strings, as on the
    wire: the DeadLetter schema's)."""

    model_config = ConfigDict(title="ArchivedDeadLetter")

    code: str
    message: str
    entry_id: str
    raw_bytes: str = Field(description="The original payload's full length in bytes (decimal).")
    hand_id: str = Field(description="The hand_id the payload claimed, or empty.")
    worker: str
    at: str = Field(description="When it was dead-lettered (RFC 3339, UTC).")


class Hand(BaseModel):
    """What happened to a hand."""

    hand_id: str
    status: Literal["settled", "refused", "pending", "unknown"]
    result: ShowdownResult | None = Field(description="The ShowdownResult, when settled.")
    dead_letter: DeadLetterItem | ArchivedDeadLetter | None = Field(
        description="The newest dead letter naming the hand (from Redis; from the archive: its fields less raw)."
    )
    audit: AuditRecord | None = Field(description="The newest audit record naming the hand.")


class ResultItem(BaseModel):
    """A result on a page: its shard, its results-stream entry id, the ShowdownResult."""

    shard: str
    id: str = Field(description="The results-stream entry id.")
    result: ShowdownResult


class ResultsPage(BaseModel):
    """A page of results."""

    items: list[ResultItem]
    next: str | None = Field(description="Give it as `cursor` for the next page; null: the window is read.")


class DeadLettersPage(BaseModel):
    """A page of dead letters."""

    items: list[DeadLetterItem]
    next: str | None = Field(description="Give it as `cursor` for the next page; null: the window is read.")


class Playing(BaseModel):
    player_id: str
    entry: int
    chips: int
    bounty: int
    bounty_cash: int
    mystery_bounty_cash: int = Field(default=0, description="Won from mystery-bounty envelopes so far.")


class DealEntry(BaseModel):
    player_id: str
    entry: int
    amount: int = Field(description="What the deal guarantees the entry (currency units).")


class Deal(BaseModel):
    """A final-table deal agreed."""

    method: str = Field(description="icm, chip_chop, equal or custom.")
    left_to_play_for: int = Field(description="Kept back for the eventual winner (currency units).")
    entries: list[DealEntry]


class Envelopes(BaseModel):
    amount: int
    count: int


class Standings(BaseModel):
    """A tournament's standings as the floor page reads them (its placements as stored, unchecked)."""

    tournament_id: str
    shard: str
    registration_open: bool
    over: bool
    prize_pool: int = Field(description="The payouts' sum (currency units).")
    payouts: list[int] = Field(default=[], description="The prize of 1st, 2nd, 3rd, ... place (currency units).")
    deal: Deal | None = Field(default=None, description="The final-table deal, once one is agreed.")
    mystery_envelopes_left: list[Envelopes] | None = Field(
        default=None, description="Mystery-bounty envelopes not yet drawn (null: no mystery-bounty stage)."
    )
    placements: list[dict[str, Any]] = Field(description="Placement objects of the finished entries, by place.")
    playing: list[Playing] = Field(description="Entries still playing, most chips first.")


class TournamentStandings(BaseModel):
    """A tournament's standings."""

    tournament_id: str
    shard: str
    registration_open: bool
    over: bool
    prize_pool: int = Field(description="The payouts' sum (currency units).")
    placements: list[Placement] = Field(description="Placement objects of the finished entries, by place.")
    playing: list[Playing] = Field(description="Entries still playing, most chips first.")
