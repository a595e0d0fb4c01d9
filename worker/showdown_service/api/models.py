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
                      "too_many_streams, too_many_archive_lookups, archive_busy, unknown_shard, no_tree_head, "
                      "hand_not_archived, not_yet_signed, unknown_jackpot, internal_error")  # fmt: skip
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


class TreeHead(BaseModel):
    """A signed tree head of a shard's Merkle log (docs/verify.md): a c2sp.org/tlog-checkpoint signed note."""

    shard: str
    epoch: str = Field(description="The chain's epoch (16 hex digits): a Redis that lost its data began another.")
    size: int = Field(description="The tree size: the chain's entries seq 1 to size.")
    checkpoint: str = Field(description="The signed note: origin, size, base64 root, a blank line, signatures.")


class InclusionProof(BaseModel):
    """That a hand's archived entry (its audit record, the leaf) is in a signed tree (RFC 9162 section 2.1.3):
    what ``showdown proof HAND_ID --json`` prints and ``scripts/verify_proof.py inclusion`` checks."""

    hand_id: str
    shard: str
    epoch: str
    seq: int
    leaf: str = Field(description="The audit record's text exactly as archived: the leaf, as UTF-8.")
    leaf_index: int = Field(description="seq - 1.")
    tree_size: int
    inclusion_path: list[str] = Field(description="The audit path, base64 hashes, nearest sibling first.")
    checkpoint: str = Field(description="The signed tree head of tree_size the proof verifies against.")


class ConsistencyProof(BaseModel):
    """That the signed tree of size1 is the start of the signed tree of size2 (RFC 9162 section 2.1.4)."""

    shard: str
    epoch: str
    size1: int
    size2: int
    consistency_path: list[str] = Field(description="Base64 hashes, as RFC 9162 section 2.1.4.1 gives them.")
    checkpoint1: str
    checkpoint2: str
