"""``showdown audit verify``'s second half: what players are paid from, against the audit records' digests.

The chain proves the audit records; this proves the texts beside them in
Redis: every result on the results stream hashes to some record's
``result_sha256``, every dead letter names an entry whose record carries its
code, and the standings stream is a run of placement groups each hashing to
a record's ``standings_sha256``, in order. A result replaced in the stream
(``XDEL`` and ``XADD`` of a forged one) is caught: no record names its digest.
Streams trimmed at the front are checked from what remains.

And the archive against Redis (:func:`archive_beyond`): a file appended
after the last one, correctly chained, goes past Redis's head or past the
archiver's recorded progress: a forged tail.
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from showdown_messages.protocol import CODE_FIELD_B, ENTRY_ID_FIELD_B, PLACEMENT_FIELD_B, RESULT_FIELD_B
from showdown_service.decision.audit import read_stream, sha256_hex
from showdown_service.infra.config import Settings, ShardKeys
from showdown_service.infra.connection import Client
from showdown_service.infra.entry_fields import result_hand
from showdown_service.infra.streams import read_range
from showdown_service.storage.lookup import archive_exists

PAGE = 1000


@dataclass(frozen=True, slots=True)
class Forgery:
    stream: str
    stream_id: str
    detail: str


def _entries(client: Client, key: str) -> list[tuple[str, dict[bytes, bytes]]]:
    found: list[tuple[str, dict[bytes, bytes]]] = []
    low = "-"
    while True:
        rows = read_range(client, key, low=low, count=PAGE)
        found += [(sid.decode(), fields) for sid, fields in rows]
        if len(rows) < PAGE:
            return found
        low = "(" + rows[-1][0].decode()


def verify_texts(client: Client, keys: ShardKeys) -> tuple[int, list[Forgery]]:
    """(texts checked, those no audit record accounts for)."""
    results: set[str] = set()
    dead: set[tuple[str, str]] = set()
    standings: list[str] = []
    for _, raw in read_stream(client, keys.audit):
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue  # the chain's own walk names it
        if body.get("result_sha256"):
            results.add(str(body["result_sha256"]))
        if body.get("code"):
            dead.add((str(body.get("entry_id")), str(body["code"])))
        if body.get("standings_sha256"):
            standings.append(str(body["standings_sha256"]))
    forged: list[Forgery] = []
    checked = 0
    for sid, fields in _entries(client, keys.results):
        checked += 1
        if sha256_hex(fields.get(RESULT_FIELD_B, b"")) not in results:
            hand = result_hand(fields) or "?"
            forged.append(Forgery(keys.results, sid, f"result of hand {hand}: no audit record has its digest"))
    for sid, fields in _entries(client, keys.dead):
        checked += 1
        pair = (
            fields.get(ENTRY_ID_FIELD_B, b"").decode(errors="replace"),
            fields.get(CODE_FIELD_B, b"").decode(errors="replace"),
        )
        if pair not in dead:
            forged.append(
                Forgery(keys.dead, sid, f"dead letter of entry {pair[0]} ({pair[1]}): no audit record says so")
            )
    placements = _entries(client, keys.standings)
    checked += len(placements)
    wanted = set(standings)
    at = 0
    while at < len(placements):
        joined = b"["
        for end in range(at, min(len(placements), at + 10_000)):
            joined += (b"," if end > at else b"") + placements[end][1].get(PLACEMENT_FIELD_B, b"")
            if sha256_hex(joined + b"]") in wanted:
                at = end + 1
                break
        else:
            sid = placements[at][0]
            forged.append(Forgery(keys.standings, sid, "a placement no audit record's standings digest covers"))
            at += 1
    return checked, forged


def archive_beyond(client: Client, settings: Settings, keys: ShardKeys) -> tuple[list[str], str]:
    """Where ``SHOWDOWN_ARCHIVE_URL``'s archive of the shard goes past Redis's head or the archiver's recorded
    progress (a forged tail): one line each, none when no archive was written there; and why the archive could
    not be read ("" when it was)."""
    if not archive_exists(settings.archive_url):
        return [], ""
    from pyarrow.lib import ArrowException  # noqa: PLC0415 - pyarrow only when there is an archive

    from showdown_service.archive.chains import NOTICES, archived_ends, beyond  # noqa: PLC0415
    from showdown_service.storage.layout import ArchiveError, open_store  # noqa: PLC0415

    try:
        ends = archived_ends(open_store(settings.archive_url, settings), keys.shard)
    except (OSError, ArrowException, ArchiveError) as exc:  # the store unreachable, or not ours to read
        return [], f"{type(exc).__name__}: {exc}"
    _, found = beyond(client, keys, ends)
    return [f"{d.kind}: {d.detail}" for d in found if d.kind not in NOTICES], ""
