"""The service's other two messages: audit records and dead letters.

Both are written by the worker; auditors and operators read them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class AuditRecord(BaseModel):
    """One record per input entry, hash-chained per shard (the audit stream's ``audit`` field).

    ``hash`` is the sha256 of this record's JSON with keys sorted and
    ``hash`` left out; ``prev_hash`` is the previous record's ``hash``
    (64 zeros for a shard's first record). Holds digests, never cards.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, title="AuditRecord")

    seq: Annotated[int, Field(ge=1)] = Field(description="1, 2, 3, ... per shard, no gaps.")
    hand_id: str | None = Field(
        description="The event's hand_id (null when the payload named none, and for tournament messages)."
    )
    table_id: str | None = Field(
        default=None,
        description="The event's table_id, when its event was read (a hand settled, a duplicate, or refused once "
        "read); absent for an unreadable payload and a tournament message, and in records written before it.",
    )
    tournament_id: str | None = Field(
        default=None,
        description="The event's tournament_id, for a tournament hand whose event was read; absent otherwise (a "
        "cash hand, a tournament message, an unreadable payload), and in records written before it.",
    )
    entry_id: str = Field(description="The events-stream entry id this record judges.")
    outcome: Literal["settled", "rejected", "duplicate", "poison"]
    code: str | None = Field(description="The rejection code for rejected and poison entries, else null.")
    event_sha256: Sha256 = Field(description="Digest of the canonical event, or of the raw payload if unreadable.")
    result_sha256: Sha256 | None = Field(description="Digest of the published ShowdownResult (settled only).")
    standings_sha256: Sha256 | None = Field(
        default=None,
        description="Digest of the placement records this entry wrote to the standings stream (their JSON as a "
        "list), when it finished tournament entries; absent otherwise.",
    )
    requeued_from: str | None = Field(
        default=None,
        description="The dead letter this entry was requeued from (`showdown dead-letters --requeue`); absent "
        "otherwise.",
    )
    body_changed: bool | None = Field(
        default=None,
        description="With requeued_from: true when the operator sent an edited body (`--event FILE`) instead of the "
        "dead letter's own payload; absent otherwise.",
    )
    worker: str = Field(description="The consumer that committed it.")
    at: datetime = Field(description="Commit time (UTC).")
    prev_hash: Sha256
    hash: Sha256


class DeadLetter(BaseModel):
    """A refused entry, with why (the fields of a dead-letter stream entry, all strings on the wire)."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="DeadLetter")

    code: str = Field(description="Why, as a stable code (see the rejection codes).")
    message: str = Field(description="Why, for people: the field, the value, what is wrong.")
    entry_id: str = Field(description="The refused events-stream entry.")
    raw: str = Field(
        description="The original payload, cut to SHOWDOWN_DEAD_RAW_MAX_BYTES; for an entry that was not one payload "
        'field (ambiguous_entry, missing_event), every field it held: {"entry_fields": {name: value}} (a value that '
        'is not UTF-8 as {"base64": ...}).'
    )
    raw_bytes: str = Field(description="The original payload's full length in bytes (decimal).")
    hand_id: str = Field(description="The hand_id the payload claimed, or empty.")
    worker: str
    at: str = Field(description="When it was dead-lettered (RFC 3339, UTC).")
