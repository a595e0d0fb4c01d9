"""The audit trail: one record per input entry, hash-chained per shard.

A record holds digests, never cards: ``event_sha256`` (of the canonical
event, or of the raw payload when it could not be read) and
``result_sha256`` (of the published ShowdownResult). Its ``hash`` is the
sha256 of the record's canonical JSON (keys sorted, ``hash`` left out),
which includes ``prev_hash``: editing, inserting or deleting any record
breaks the chain at that point, and :func:`verify` says where.

The chain's head (``<seq>:<hash>`` of the newest record) is kept in Redis
next to the stream, so deleting the newest records shows too.

No Redis client is imported here (the decision step chains records with this
module and loads no redis-py): :func:`read_stream` takes any client that
answers XRANGE.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from typing import Any, Final, NamedTuple, cast

import orjson

from showdown_messages.protocol import AUDIT_FIELD

GENESIS = "0" * 64
"""``prev_hash`` of a shard's first record."""


class Head(NamedTuple):
    """The newest record of a chain: its sequence number and hash."""

    seq: int
    hash: str

    def encode(self) -> str:
        return f"{self.seq}:{self.hash}"

    @classmethod
    def decode(cls, raw: bytes | str | None) -> Head:
        """Parse a stored head; ``None`` (no record yet) is the genesis head."""
        if not raw:
            return EMPTY
        text = raw.decode() if isinstance(raw, bytes) else raw
        seq, _, digest = text.partition(":")
        return cls(int(seq), digest)


EMPTY = Head(0, GENESIS)


def record_hash(body: dict[str, Any]) -> str:
    """sha256 of a record's canonical JSON, ``hash`` excluded."""
    return _digest({k: v for k, v in body.items() if k != "hash"})


def _digest(fields: dict[str, Any]) -> str:
    return sha256_hex(orjson.dumps(fields, option=orjson.OPT_SORT_KEYS))


def sha256_hex(data: bytes) -> str:
    """The sha256 of ``data`` as 64 hex digits: every digest the service writes (events, results, records)."""
    return hashlib.sha256(data).hexdigest()


def make_record(
    head: Head,
    *,
    hand_id: str | None,
    entry_id: str,
    outcome: str,
    code: str | None,
    event_sha256: str,
    result_sha256: str | None,
    worker: str,
    at: str,
    standings_sha256: str | None = None,
    requeued_from: str | None = None,
    body_changed: bool = False,
    table_id: str | None = None,
    tournament_id: str | None = None,
) -> tuple[dict[str, Any], bytes, Head]:
    """The next record after ``head``: as a dict, as the JSON stored in the audit stream, and the new head.

    ``table_id`` and ``tournament_id``: the event's, when an event was read (a tournament hand's tournament); a
    key is left out when it is None (an unreadable payload, a tournament message, a cash hand's tournament), as
    every record written before they were (:data:`IDS`).

    The record is serialised once: its canonical JSON (keys sorted) is hashed, and the stored JSON is that
    text with ``hash`` appended (a reader re-sorts the keys to check it, see :func:`record_hash`).
    """
    body: dict[str, Any] = {
        "at": at,
        **({"body_changed": body_changed} if requeued_from is not None else {}),
        "code": code,
        "entry_id": entry_id,
        "event_sha256": event_sha256,
        "hand_id": hand_id,
        "outcome": outcome,
        "prev_hash": head.hash,
        **({"requeued_from": requeued_from} if requeued_from is not None else {}),
        "result_sha256": result_sha256,
        "seq": head.seq + 1,
        **({"standings_sha256": standings_sha256} if standings_sha256 is not None else {}),
        **({"table_id": table_id} if table_id is not None else {}),
        **({"tournament_id": tournament_id} if tournament_id is not None else {}),
        "worker": worker,
    }  # in sorted order, as _digest would sort them
    canonical = orjson.dumps(body)
    digest = sha256_hex(canonical)
    body["hash"] = digest
    return body, b'%s,"hash":"%s"}' % (canonical[:-1], digest.encode()), Head(head.seq + 1, digest)


IDS: Final = ("table_id", "tournament_id")
"""The keys a record gained with issue 35: the table and tournament of the hand it judges. A record written before
has neither (and its hash covers the keys it has)."""


def as_written(decided: dict[str, Any], archived: dict[str, Any]) -> dict[str, Any]:
    """``decided`` (a record this code decides again) as the code that wrote ``archived`` wrote it: without the
    :data:`IDS` when ``archived`` has none of them (a record written before them), its hash taken again; else
    ``decided`` itself. A replay compares this with ``archived``: an old record still proves, a new one proves
    its ids."""
    if not any(key in decided for key in IDS) or any(key in archived for key in IDS):
        return decided
    older = {key: value for key, value in decided.items() if key not in IDS}
    older["hash"] = record_hash(older)
    return older


class Break(NamedTuple):
    """Where and how a chain fails to hold."""

    seq: int | None
    stream_id: str
    kind: str
    """``edited`` (a record no longer matches its hash), ``deleted`` (records
    are missing before this one), ``inserted`` (a record that does not follow
    its predecessor), ``truncated`` (the newest records are gone) or
    ``unreadable``."""
    detail: str


class Verdict(NamedTuple):
    """The result of walking a chain."""

    records: int
    head: Head
    first_break: Break | None

    @property
    def holds(self) -> bool:
        return self.first_break is None


def verify(entries: Iterable[tuple[str, bytes]], stored_head: Head | None, archived: Head | None = None) -> Verdict:
    """Walk ``(stream id, record JSON)`` pairs in stream order; report the first break.

    ``stored_head`` is the head kept in Redis (``None`` to skip that check).
    A chain trimmed at the front (``audit_maxlen``, or the archiver) is checked
    from its first remaining record. ``archived``: the last record the archive
    holds, as the archiver recorded it in Redis; a stream the archiver trimmed
    to nothing (``SHOWDOWN_ARCHIVE_KEEP=0``) then ends there, and the stored
    head must be that record (``audit replay`` proves the archive itself).
    """
    previous: Head | None = None
    count = 0
    for stream_id, raw in entries:
        count += 1
        try:
            body = orjson.loads(raw)
            seq, claimed, prev_hash = int(body["seq"]), str(body["hash"]), str(body["prev_hash"])
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            return Verdict(
                count, previous or EMPTY, Break(None, stream_id, "unreadable", f"not an audit record: {exc}")
            )
        if record_hash(body) != claimed:
            return Verdict(
                count, previous or EMPTY, Break(seq, stream_id, "edited", "its content does not match its hash")
            )
        if previous is not None and (seq != previous.seq + 1 or prev_hash != previous.hash):
            kind = "deleted" if seq > previous.seq + 1 else "inserted"
            detail = f"follows seq {previous.seq} but claims seq {seq} after {prev_hash[:12]}..."
            return Verdict(count, previous, Break(seq, stream_id, kind, detail))
        if previous is None and seq == 1 and prev_hash != GENESIS:
            return Verdict(count, EMPTY, Break(seq, stream_id, "inserted", "the first record does not start the chain"))
        previous = Head(seq, claimed)
    last = previous or archived or EMPTY
    if stored_head is not None and stored_head != last:
        detail = f"the stored head is seq {stored_head.seq} but the stream ends at seq {last.seq}"
        return Verdict(count, last, Break(last.seq, "", "truncated", detail))
    return Verdict(count, last, None)


_AUDIT: Final = AUDIT_FIELD.encode()


def read_epoch(client: Any, epoch_key: str, audit_key: str) -> str | None:
    """The chain's epoch id (the ``hash`` of its seq 1 record, 64 hex digits), or None while it has no record.

    Read from ``epoch_key`` (``showdown:{<shard>}:audit:epoch``, written by the commit script with the first
    record); a chain begun before that key existed has none, and its epoch is read from its seq 1 record when the
    audit stream still holds it (None otherwise: trimmed, see the archive).
    """
    raw = client.get(epoch_key)
    if raw:
        return str(raw.decode() if isinstance(raw, bytes) else raw)
    rows = cast(list[tuple[bytes, dict[bytes, bytes]]], client.xrange(audit_key, min="-", max="+", count=1))
    for _, fields in rows:
        try:
            body = orjson.loads(fields.get(_AUDIT, b""))
        except orjson.JSONDecodeError:
            return None
        if isinstance(body, dict) and body.get("seq") == 1 and body.get("prev_hash") == GENESIS:
            return str(body.get("hash"))
    return None


def read_stream(client: Any, key: str, page: int = 1000) -> Iterator[tuple[str, bytes]]:
    """``(id, audit JSON)`` of every record in an audit stream, oldest first, paged (a redis-py client: RESP2)."""
    start = "-"
    while True:
        rows = cast(list[tuple[bytes, dict[bytes, bytes]]], client.xrange(key, min=start, max="+", count=page))
        for stream_id, fields in rows:
            yield stream_id.decode(), fields.get(_AUDIT, b"")
        if len(rows) < page:
            return
        start = "(" + rows[-1][0].decode()
