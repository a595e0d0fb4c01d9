"""Dead letters as an operator (``showdown dead-letters``) and the read API see them.

A dead letter's stream entry holds ``code``, ``message``, ``entry_id``,
``raw`` (the refused payload, cut at ``dead_raw_max_bytes``), ``raw_bytes``,
``hand_id`` (empty for a tournament message or an unreadable payload),
``worker`` and ``at``. :func:`letter` adds what the payload itself says: the
``tournament_id`` of a hand or tournament message, and a tournament
message's ``type``; and, read from the shard's ``dead:resolved`` hash, the
entry id it was requeued as (``requeued_as``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from showdown_messages.protocol import (
    AT_FIELD_B,
    CODE_FIELD_B,
    ENTRY_ID_FIELD_B,
    HAND_ID_FIELD_B,
    MESSAGE_FIELD_B,
    RAW_BYTES_FIELD_B,
    RAW_FIELD_B,
    WORKER_FIELD_B,
)

CLAIMED = b"requeuing"
"""A mark's value between the claim (HSETNX) and the XADD (a requeue that stopped there names no entry)."""


def resolved_key(dead_key: str) -> str:
    """The hash of a shard's requeued dead letters, beside its dead-letter stream (same hash tag):
    ``<dead letter id> -> <the events entry it became>`` (``requeuing`` while a requeue is under way)."""
    return f"{dead_key}:resolved"


def _text(value: bytes | None) -> str:
    return value.decode(errors="replace") if value is not None else ""


def _about(raw: bytes) -> tuple[str | None, str | None, str | None]:
    """(hand_id, tournament_id, type) the refused payload names, when it is a JSON object (else Nones)."""
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:  # (a cut payload, or not JSON at all)
        return None, None, None
    if not isinstance(doc, dict):
        return None, None, None
    for wrapper in ("event", "tournament"):  # a payload may arrive wrapped, as `showdown publish` reads it
        if isinstance(doc.get(wrapper), dict) and len(doc) == 1:
            doc = doc[wrapper]

    def named(key: str) -> str | None:
        value = doc.get(key)
        return value if isinstance(value, str) else None

    return named("hand_id"), named("tournament_id"), named("type") if "hand_id" not in doc else None


@dataclass(frozen=True, slots=True)
class Letter:
    """One dead letter, read."""

    shard: str
    id: str
    code: str
    message: str
    entry_id: str
    hand_id: str | None
    tournament_id: str | None
    type: str | None
    """A tournament message's type (``open``, ``entry``, ...); None for a hand."""
    raw: str
    """The payload kept, as text (undecodable bytes replaced)."""
    payload: bytes
    """The payload kept, byte for byte (what a requeue sends back)."""
    raw_bytes: int
    worker: str
    at: str
    requeued_as: str | None
    """The events entry id this letter was sent back as, once it was (``showdown dead-letters --requeue``)."""

    def document(self) -> dict[str, Any]:
        """The letter as the read API serves it."""
        return {
            "shard": self.shard,
            "id": self.id,
            "code": self.code,
            "message": self.message,
            "entry_id": self.entry_id,
            "hand_id": self.hand_id,
            "tournament_id": self.tournament_id,
            "type": self.type,
            "raw": self.raw,
            "raw_bytes": self.raw_bytes,
            "worker": self.worker,
            "at": self.at,
            "requeued_as": self.requeued_as,
        }

    def matches(self, *, code: str | None = None, tournament_id: str | None = None, hand_id: str | None = None) -> bool:
        """True when every filter given holds (None: no filter)."""
        return (
            (code is None or self.code == code)
            and (tournament_id is None or self.tournament_id == tournament_id)
            and (hand_id is None or self.hand_id == hand_id)
        )


def letter(shard: str, entry_id: bytes, fields: Mapping[bytes, bytes], requeued_as: bytes | None = None) -> Letter:
    """A dead letter's stream entry, read (``requeued_as``: its value in the shard's ``dead:resolved`` hash)."""
    raw = fields.get(RAW_FIELD_B, b"")
    hand_id, tournament_id, kind = _about(raw)
    stored_hand = _text(fields.get(HAND_ID_FIELD_B))
    try:
        raw_bytes = int(fields.get(RAW_BYTES_FIELD_B, b"") or len(raw))
    except ValueError:
        raw_bytes = len(raw)
    return Letter(
        shard=shard,
        id=entry_id.decode(),
        code=_text(fields.get(CODE_FIELD_B)),
        message=_text(fields.get(MESSAGE_FIELD_B)),
        entry_id=_text(fields.get(ENTRY_ID_FIELD_B)),
        hand_id=stored_hand or hand_id,
        tournament_id=tournament_id,
        type=kind,
        raw=_text(raw),
        payload=raw,
        raw_bytes=raw_bytes,
        worker=_text(fields.get(WORKER_FIELD_B)),
        at=_text(fields.get(AT_FIELD_B)),
        requeued_as=requeued_as.decode() if requeued_as else None,
    )
