"""The read API's response bodies, as the OpenAPI document describes them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class Error(BaseModel):
    """Every refusal's body: a code and a sentence."""

    code: str = Field(description="unauthenticated, invalid_token, insufficient_scope, bad_query, "
                      "unknown_tournament, archive_unavailable, archive_incomplete, too_many_requests, "
                      "too_many_streams")  # fmt: skip
    message: str


class Hand(BaseModel):
    """What happened to a hand."""

    hand_id: str
    status: Literal["settled", "refused", "pending", "unknown"]
    result: dict[str, Any] | None = Field(description="The ShowdownResult, when settled.")
    dead_letter: dict[str, Any] | None = Field(description="The newest dead letter naming the hand.")
    audit: dict[str, Any] | None = Field(description="The newest audit record naming the hand.")


class Page(BaseModel):
    """A page of results or dead letters."""

    items: list[dict[str, Any]]
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
    """A tournament's standings."""

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
