"""What ``audit replay`` proves of each archived row and file besides the chain and the decision: every column
recall, the read API and the requeue guard read, against the audit record and event it copies; the archived texts
against the record's digests; the dead letter's fields; and each file's metadata against its rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from showdown_messages.protocol import stored_entry_order
from showdown_service.archive.chains import ChainFile, Difference, Sink
from showdown_service.archive.collect import claimed_ids
from showdown_service.decision.audit import Head, sha256_hex
from showdown_service.decision.settling import Prepared
from showdown_service.storage.layout import CURSORS

DEAD_LETTER_FIELDS = frozenset({"code", "message", "entry_id", "raw_bytes", "hand_id", "worker", "at"})
"""The fields of an archived dead letter (the stream entry's, less ``raw``)."""


@dataclass(slots=True)
class Walk:
    """Where a chain's walk stands."""

    previous: Head
    audit_id: tuple[int, int] = (-1, -1)
    cursors: dict[str, tuple[int, int]] = field(default_factory=dict)
    seen_entries: set[str] = field(default_factory=set)


def file_meta(shard: str, file: ChainFile, rows: list[dict[str, Any]], walk: Walk, report: Sink) -> None:
    """The file's metadata against its name and rows: the run it holds, its row count, and its cursors (the
    audit cursor is its last row's stream id; no cursor goes back)."""
    path, first, last = file.path, file.first, file.last

    def diff(detail: str) -> None:
        report(Difference(shard, "file_metadata", detail, file=path))

    meta = file.meta
    if meta is None:
        diff(file.why)
    else:
        try:
            if (int(meta["first_seq"]), int(meta["last_seq"])) != (first, last) or meta["shard"] != shard:
                diff(f"its name says seq {first}-{last}, its metadata {meta['first_seq']}-{meta['last_seq']}")
            lacks = [key for key in ("first_prev_hash", "last_hash") if key not in meta]
            if lacks:
                raise KeyError(", ".join(lacks))
        except (KeyError, ValueError) as exc:
            diff(f"archive file {path}: its metadata lacks the chain's run ({exc})")
    if rows and (rows[0]["seq"], rows[-1]["seq"]) != (first, last):
        detail = f"its name says seq {first}-{last}, its rows hold {rows[0]['seq']}-{rows[-1]['seq']}"
        report(Difference(shard, "file_rows", detail, file=path))
    if meta is None or not rows:
        return
    contiguous = rows[-1]["seq"] - rows[0]["seq"] + 1 == len(rows)  # else the rows' own differences say why
    if "rows" in meta and meta["rows"] != str(len(rows)) and contiguous:
        diff(f"its metadata says rows {meta['rows']}, the file holds {len(rows)}")
    ends = (record_of(rows[0]).get("prev_hash"), record_of(rows[-1]).get("hash"))
    for key, value in zip(("first_prev_hash", "last_hash"), ends, strict=True):
        if key in meta and value is not None and meta[key] != value:
            diff(f"its metadata's {key} is not its {'first' if key[0] == 'f' else 'last'} record's")
    if meta.get("audit_id") and meta["audit_id"] != rows[-1].get("audit_id"):
        diff(f"its metadata's audit_id {meta['audit_id']} is not its last row's ({rows[-1].get('audit_id')})")
    for name in CURSORS:
        if name not in meta:
            continue
        at = stored_entry_order(meta[name]) if meta[name] else (-1, -1)
        if at is None:
            diff(f"its metadata's {name} {meta[name]!r} is not a stream id")
            continue
        if at < walk.cursors.get(name, (-1, -1)):
            diff(f"its metadata's {name} {meta[name]} goes back from the previous file's")
        walk.cursors[name] = at


def record_of(row: dict[str, Any]) -> dict[str, Any]:
    try:
        record = orjson.loads(row.get("audit") or "null")
    except orjson.JSONDecodeError:
        return {}
    return record if isinstance(record, dict) else {}


def columns(
    shard: str, row: dict[str, Any], record: dict[str, Any], walk: Walk, diff: Callable[[str, str], None]
) -> None:
    """The columns copied from the record, the event and the audit stream (what recall, the read API and the
    requeue guard read) against what they copy."""
    copied = {
        "shard": shard,
        "outcome": record.get("outcome"),
        "code": record.get("code"),
        "hand_id": record.get("hand_id"),
        "settled_at": record.get("at"),
        **dict(zip(("tournament_id", "table_id", "currency"), _claimed(row), strict=True)),
    }
    for column, value in copied.items():
        if column not in row:  # a file written before the column (currency) has none to prove
            continue
        if row.get(column) != value:
            diff("edited_column", f"the {column} column says {row.get(column)!r}, what it copies {value!r}")
    audit_id = stored_entry_order(str(row.get("audit_id") or ""))
    if audit_id is None:
        diff("edited_column", f"the audit_id column {row.get('audit_id')!r} is not a stream id")
        return
    if audit_id <= walk.audit_id:
        diff("edited_column", f"the audit_id column {row.get('audit_id')} does not follow the previous row's")
    walk.audit_id = audit_id


def _claimed(row: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """``tournament_id``, ``table_id`` and ``currency`` as the archived payload states them (as the archiver copied
    them)."""
    if not row.get("event_field"):
        return None, None, None
    payload = row["event"].encode() if row.get("event") is not None else row.get("event_bytes")
    if not payload or not any(key in payload for key in (b'"tournament_id"', b'"table_id"', b'"currency"')):
        return None, None, None
    return claimed_ids(payload)


def dead_letter_fields(
    row: dict[str, Any], record: dict[str, Any], prepared: Prepared, diff: Callable[[str, str], None]
) -> None:
    """The dead letter's fields besides its code and message (proven with the digests and the re-settling)."""
    if row.get("dead_letter") is None:
        return
    try:
        letter = orjson.loads(row["dead_letter"])
    except orjson.JSONDecodeError:
        diff("dead_letter", "the dead letter is not JSON")
        return
    if not isinstance(letter, dict):
        diff("dead_letter", "the dead letter is not a JSON object")
        return
    wanted = {
        "entry_id": str(record.get("entry_id")),
        "hand_id": record.get("hand_id") or "",
        "worker": record.get("worker"),
        "at": record.get("at"),
        "raw_bytes": str(len(prepared.raw)),
    }
    for name, value in wanted.items():
        if name in letter and letter[name] != value:
            diff("dead_letter", f"the dead letter's {name} says {letter[name]!r}, what it copies {value!r}")
    for name in sorted(set(letter) - DEAD_LETTER_FIELDS):
        diff("dead_letter", f"the dead letter has a field {name!r} no dead letter has")


def digests(row: dict[str, Any], record: dict[str, Any], diff: Callable[[str, str], None]) -> None:
    """The archived texts against the record's digests."""
    if record.get("result_sha256"):
        if row.get("result") is None:
            diff("result_missing", "the record has a result_sha256 but the archive no result")
        elif sha256_hex(row["result"].encode()) != record["result_sha256"]:
            diff("result_digest", "the archived result does not hash to the record's result_sha256")
    elif row.get("result") is not None:
        diff("result_digest", "the archive has a result the record does not name")
    if record.get("standings_sha256"):
        if row.get("standings") is None:
            diff("standings_missing", "the record has a standings_sha256 but the archive no placements")
        elif sha256_hex(row["standings"].encode()) != record["standings_sha256"]:
            diff("standings_digest", "the archived placements do not hash to the record's standings_sha256")
    if record.get("code"):
        if row.get("dead_letter") is None:
            diff("dead_letter_missing", f"the record names code {record['code']} but the archive has no dead letter")
        elif orjson.loads(row["dead_letter"]).get("code") != record["code"]:
            diff("dead_letter", f"the dead letter's code is not the record's ({record['code']})")
    if row.get("event") is None and row.get("event_bytes") is None:
        diff("event_missing", "the entry's event was gone from Redis when it was archived")
