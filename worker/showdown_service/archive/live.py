"""``audit replay`` online: the archive against Redis's live chain.

The archive's last record is Redis's record of that seq (or the one Redis's live chain continues from); the
archive reaches the progress the archiver recorded, and goes no further than it nor past Redis's head
(:func:`.chains.beyond`); where it ends at the recorded progress, its newest file's cursors are the recorded ones;
and each archived row whose record Redis still holds has that record's stream id as its ``audit_id``.
"""

from __future__ import annotations

from typing import cast

import orjson

from showdown_service.archive.chains import ChainEnd, Difference, Sink, beyond
from showdown_service.archive.columns import record_of
from showdown_service.decision.audit import read_stream
from showdown_service.infra.config import ShardKeys
from showdown_service.infra.connection import Client
from showdown_service.storage.layout import CURSORS, ArchiveError, Store, read_rows


def prove_live(client: Client, store: Store, keys: ShardKeys, ends: list[ChainEnd], report: Sink) -> None:
    """The archive's end against Redis's live chain and the archiver's recorded progress; the archived rows Redis
    still holds against Redis's records."""
    shard = keys.shard
    end, found = beyond(client, keys, ends)
    for difference in found:
        report(difference)
    if end is None:
        return
    seq, last_hash = end.seq, end.hash
    recorded = int(cast(bytes | None, client.hget(keys.archive, "seq")) or 0)
    if recorded > seq:
        detail = f"the archiver recorded seq {recorded} archived, the archive ends at seq {seq}"
        report(Difference(shard, "missing", detail, seq=seq + 1))
    elif recorded == seq and end.file:  # the newest file's cursors are where a restarted archiver resumes
        for name in CURSORS:
            kept = cast(bytes | None, client.hget(keys.archive, name))
            if kept is not None and end.cursors.get(name) is not None and kept.decode() != end.cursors[name]:
                detail = f"its metadata's {name} {end.cursors[name]!r} is not the archiver's recorded {kept.decode()!r}"
                report(Difference(shard, "file_metadata", detail, seq=seq, file=end.file))
    live: dict[int, tuple[str, str]] = {}
    for stream_id, raw in read_stream(client, keys.audit):
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        live_seq = int(body.get("seq", 0))
        if live_seq <= seq:
            live[live_seq] = (stream_id, str(body.get("hash")))
        if live_seq == seq and body.get("hash") != last_hash:
            report(
                Difference(shard, "live_chain", f"Redis's record seq {seq} ({stream_id}) is not the archive's", seq=seq)
            )
        if live_seq == seq + 1 and body.get("prev_hash") != last_hash:
            detail = f"Redis's record seq {seq + 1} ({stream_id}) does not follow the archive's last hash"
            report(Difference(shard, "live_chain", detail, seq=seq + 1))
        if live_seq > seq:
            break
    _live_audit_ids(store, shard, end, live, report)


def _live_audit_ids(store: Store, shard: str, end: ChainEnd, live: dict[int, tuple[str, str]], report: Sink) -> None:
    """The ``audit_id`` column of each archived row whose record Redis still holds: that record's stream id."""
    if not live:
        return
    low = min(live)
    for _, last, path in end.files:
        if last < low:
            continue
        try:
            rows = read_rows(store, path, columns=["seq", "audit_id", "hand_id", "entry_id", "audit"]).to_pylist()
        except ArchiveError:
            continue  # the walk named it
        for number, row in enumerate(rows):
            stream_id, digest = live.get(row["seq"], (None, None))
            if stream_id is None or row["audit_id"] == stream_id:
                continue
            if record_of(row).get("hash") != digest:
                continue  # not the record Redis holds (the walk or the live chain says so)
            detail = f"the audit_id column says {row['audit_id']!r}, Redis's audit stream holds it at {stream_id!r}"
            where = (row["hand_id"], row["entry_id"], row["seq"], path, number)
            report(Difference(shard, "edited_column", detail, *where))
