"""Read the next run of a shard's audit chain from Redis and join each record to its texts.

The worker's commit script writes, for each entry in chain order, its result
(if settled), its dead letter (if refused), its audit record, and after the
batch the placements its entries produced; the event stays in the events
stream under the entry's id. So each record is joined:

* ``event``: the events stream entry with the record's ``entry_id`` (one
  XRANGE each, pipelined);
* ``result``: the next results entry after the cursor whose sha256 is the
  record's ``result_sha256`` (entries in between match no record: skipped,
  never archived as another record's result);
* ``dead_letter``: the next dead letter after the cursor naming the record's
  ``entry_id``;
* ``standings``: the next placements after the cursor whose JSON array hashes
  to the record's ``standings_sha256``.

A text that is gone (trimmed before an archiver ran, deleted) is archived as
null and the audit replay reports it; the cursor does not move past it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any, cast

import orjson
import redis

from showdown_messages.protocol import (
    AUDIT_FIELD_B,
    ENTRY_ID_FIELD_B,
    EVENT_FIELD_B,
    PLACEMENT_FIELD_B,
    RAW_FIELD_B,
    REQUEUED_FROM_FIELD_B,
    RESULT_FIELD_B,
    TOURNAMENT_FIELD_B,
    entry_order,
    is_range_id,
)
from showdown_service.decision.audit import sha256_hex
from showdown_service.infra.config import ShardKeys
from showdown_service.infra.connection import Client
from showdown_service.infra.streams import Fields, read_range

LOOKAHEAD = 1000
"""How many entries past the expected one a join looks at before it calls a text missing."""
STANDINGS_LOOKAHEAD = 10
"""Placements past the expected one a standings join may start at."""
MAX_PLACEMENTS = 10_000
"""Most placements one entry may write (a hand busts at most a table; a tournament's end places the rest)."""
FLOOR_SCAN = 10_000
"""Most unarchived records read to compute ``events_floor``; with more behind, the floor stays where it was."""
PAYLOAD_FIELDS = (EVENT_FIELD_B, TOURNAMENT_FIELD_B)


@dataclass(frozen=True, slots=True)
class Cursors:
    """The stream ids the archiver has read up to (exclusive lower bounds of the next read; "" for none)."""

    audit_id: str = ""
    results_id: str = ""
    dead_id: str = ""
    standings_id: str = ""

    def as_meta(self) -> dict[str, str]:
        """The archive's meta fields for them: every cursor by its name, in order."""
        return asdict(self)


def _after(stream_id: str) -> str:
    return f"({stream_id}" if stream_id else "-"


def collect(client: Client, keys: ShardKeys, cursors: Cursors, count: int) -> tuple[list[dict[str, Any]], Cursors]:
    """Up to ``count`` audit records after ``cursors.audit_id``, each joined into an archive row; the cursors
    after them."""
    audit_rows = read_range(client, keys.audit, low=_after(cursors.audit_id), count=count)
    if not audit_rows:
        return [], cursors
    records = []
    for stream_id, fields in audit_rows:
        text = fields.get(AUDIT_FIELD_B, b"")
        try:
            body = orjson.loads(text)
        except orjson.JSONDecodeError:
            body = {}
        records.append((stream_id.decode(), text, body if isinstance(body, dict) else {}))
    events = _events(client, keys, [str(body.get("entry_id") or "0-0") for _, _, body in records])
    rows = [
        joined_row(keys.shard, sid, text, body, found) for (sid, text, body), found in zip(records, events, strict=True)
    ]
    cursors = replace(cursors, audit_id=records[-1][0])
    cursors = _join_results(client, keys, rows, records, cursors)
    cursors = _join_dead(client, keys, rows, records, cursors)
    cursors = _join_standings(client, keys, rows, records, cursors)
    return rows, cursors


def _events(client: Client, keys: ShardKeys, entry_ids: list[str]) -> list[list[tuple[bytes, Fields]]]:
    """Each entry's events-stream entry (``[]`` when gone). A batch's entries are nearly contiguous in the
    stream: one XRANGE over their span serves them, and the few it misses are read one by one."""
    valid = [e for e in entry_ids if is_range_id(e)]
    found: dict[str, tuple[bytes, Fields]] = {}
    if valid:
        low, high = min(valid, key=entry_order), max(valid, key=entry_order)
        for entry_id, fields in read_range(client, keys.events, low=low, high=high, count=2 * len(valid) + 100):
            found[entry_id.decode()] = (entry_id, fields)
    missing = [e for e in entry_ids if e not in found and is_range_id(e)]
    if missing:
        pipe = client.pipeline(transaction=False)
        for wanted in missing:
            pipe.xrange(keys.events, wanted, wanted)
        for wanted, rows in zip(missing, cast(list[list[tuple[bytes, Fields]]], pipe.execute()), strict=True):
            if rows:
                found[wanted] = rows[0]
    return [[found[e]] if e in found else [] for e in entry_ids]


def joined_row(
    shard: str, stream_id: str, text: bytes, body: dict[str, Any], found: list[tuple[bytes, Fields]]
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "shard": shard,
        "seq": _int(body.get("seq")),
        "entry_id": body.get("entry_id"),
        "outcome": body.get("outcome"),
        "code": body.get("code"),
        "hand_id": body.get("hand_id"),
        "tournament_id": None,
        "table_id": None,
        "settled_at": body.get("at"),
        "event": None,
        "event_bytes": None,
        "event_field": None,
        "entry_fields": None,
        "result": None,
        "dead_letter": None,
        "standings": None,
        "audit": text.decode(errors="replace"),
        "audit_id": stream_id,
        "currency": None,
    }
    if found:
        fields = found[0][1]
        payload_field = next((f for f in PAYLOAD_FIELDS if f in fields), None)
        if payload_field is not None:
            payload = fields[payload_field]
            row["event_field"] = payload_field.decode()
            try:
                row["event"] = payload.decode()
            except UnicodeDecodeError:
                row["event_bytes"] = payload
            row["tournament_id"], row["table_id"], row["currency"] = claimed_ids(payload)
        if set(fields) - {payload_field, REQUEUED_FROM_FIELD_B} or payload_field is None or len(fields) > 1:
            row["entry_fields"] = orjson.dumps(
                {k.decode(errors="replace"): v.decode(errors="replace") for k, v in fields.items()}
            ).decode()
    return row


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1


def claimed_ids(payload: bytes) -> tuple[str | None, str | None, str | None]:
    """``tournament_id``, ``table_id`` and ``currency`` as a payload states them (what the archive's columns copy;
    ``audit replay`` proves the columns by the same reading)."""
    try:
        doc = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None, None, None
    if not isinstance(doc, dict):
        return None, None, None
    tournament, table, currency = doc.get("tournament_id"), doc.get("table_id"), doc.get("currency")
    return (
        tournament if isinstance(tournament, str) else None,
        table if isinstance(table, str) else None,
        currency if isinstance(currency, str) else None,
    )


def _in_order(
    found: list[tuple[bytes, Fields]], wanted: list[int], matches: Callable[[int, Fields], bool]
) -> list[tuple[int, bytes, Fields]]:
    """For each record index of ``wanted``, in chain order, the first stream entry after the last one taken that
    ``matches`` it: ``(index, stream id, fields)``. A record none matches is left out (its text is gone: archived as
    null) and the next record's search starts where its own would have."""
    joined = []
    at = 0
    for i in wanted:
        for j in range(at, len(found)):
            if matches(i, found[j][1]):
                joined.append((i, *found[j]))
                at = j + 1
                break
    return joined


def _join_stream(
    client: Client, stream: str, after: str, wanted: list[int], matches: Callable[[int, Fields], bool]
) -> list[tuple[int, bytes, Fields]]:
    """:func:`_in_order` over the stream's entries after ``after``: as many as records want texts (the usual case:
    the worker wrote one per record, in chain order), then, only when some record found none among them, again with
    :data:`LOOKAHEAD` more (texts no record names in between, a text gone)."""
    found = read_range(client, stream, low=_after(after), count=len(wanted))
    joined = _in_order(found, wanted, matches)
    if len(joined) < len(wanted) and len(found) == len(wanted):
        found = read_range(client, stream, low=_after(after), count=len(wanted) + LOOKAHEAD)
        joined = _in_order(found, wanted, matches)
    return joined


def _join_results(
    client: Client, keys: ShardKeys, rows: list[dict[str, Any]], records: list[Any], cursors: Cursors
) -> Cursors:
    wanted = [i for i, (_, _, body) in enumerate(records) if body.get("result_sha256")]
    if not wanted:
        return cursors

    def hashes_to_it(i: int, fields: Fields) -> bool:  # its digest; its entry id too where the result names one
        body = records[i][2]
        return sha256_hex(fields.get(RESULT_FIELD_B, b"")) == body["result_sha256"] and fields.get(
            ENTRY_ID_FIELD_B
        ) in (
            None,
            str(body.get("entry_id")).encode(),
        )

    joined = _join_stream(client, keys.results, cursors.results_id, wanted, hashes_to_it)
    for i, _, fields in joined:
        rows[i]["result"] = fields.get(RESULT_FIELD_B, b"").decode()
    return replace(cursors, results_id=joined[-1][1].decode()) if joined else cursors  # after the last one joined


def _join_dead(
    client: Client, keys: ShardKeys, rows: list[dict[str, Any]], records: list[Any], cursors: Cursors
) -> Cursors:
    wanted = [i for i, (_, _, body) in enumerate(records) if body.get("code")]
    if not wanted:
        return cursors

    def names_it(i: int, fields: Fields) -> bool:
        return fields.get(ENTRY_ID_FIELD_B) == str(records[i][2].get("entry_id")).encode()

    joined = _join_stream(client, keys.dead, cursors.dead_id, wanted, names_it)
    for i, _, fields in joined:
        shown = {k.decode(): v.decode(errors="replace") for k, v in fields.items() if k != RAW_FIELD_B}
        rows[i]["dead_letter"] = orjson.dumps(shown).decode()
    return replace(cursors, dead_id=joined[-1][1].decode()) if joined else cursors  # after the last one joined


def _join_standings(
    client: Client, keys: ShardKeys, rows: list[dict[str, Any]], records: list[Any], cursors: Cursors
) -> Cursors:
    wanted = [i for i, (_, _, body) in enumerate(records) if body.get("standings_sha256")]
    if not wanted:
        return cursors
    found = read_range(client, keys.standings, low=_after(cursors.standings_id), count=100 * len(wanted) + LOOKAHEAD)
    texts = [(sid.decode(), f.get(PLACEMENT_FIELD_B, b"")) for sid, f in found]
    at = 0
    for i in wanted:
        digest = records[i][2]["standings_sha256"]
        for start in range(at, min(len(texts), at + STANDINGS_LOOKAHEAD)):
            joined = b"["
            for end in range(start, min(len(texts), start + MAX_PLACEMENTS)):
                joined += (b"," if end > start else b"") + texts[end][1]
                if sha256_hex(joined + b"]") == digest:
                    rows[i]["standings"] = (joined + b"]").decode()
                    cursors = replace(cursors, standings_id=texts[end][0])
                    at = end + 1
                    break
            else:
                continue
            break
    return cursors


def events_floor(client: Client, keys: ShardKeys, audit_cursor: str) -> str | None:
    """The lowest events id the archive may still need: below every group's oldest pending or unread entry
    (read first: whatever is acked after this was pending then) and below every record not yet archived (its
    buffer, and the records after it). None when too many records are behind to say."""
    group_floor: tuple[int, int] | None = None
    try:
        groups: list[dict[str, Any]] = client.xinfo_groups(keys.events)
    except redis.ResponseError:  # no events stream yet
        return None
    for group in groups:
        low = group["last-delivered-id"]
        if group["pending"]:
            oldest = client.xpending(keys.events, group["name"])["min"]
            if oldest is not None:
                low = min(low, oldest, key=entry_order)
        group_floor = entry_order(low) if group_floor is None else min(group_floor, entry_order(low))
    if group_floor is None:
        return None
    after = f"({audit_cursor}" if audit_cursor else "-"
    behind = read_range(client, keys.audit, low=after, count=FLOOR_SCAN + 1)
    if len(behind) > FLOOR_SCAN:
        return None
    floor = group_floor
    for _, fields in behind:
        try:
            entry_id = str(orjson.loads(fields[AUDIT_FIELD_B])["entry_id"])
        except (KeyError, orjson.JSONDecodeError, TypeError):
            continue
        floor = min(floor, entry_order(entry_id))
    return f"{floor[0]}-{floor[1]}"
