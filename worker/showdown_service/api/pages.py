"""Paged, filtered reads of the results and dead-letter streams (Redis's window of them).

A page lists matching entries in stream order, shard after shard (the
configured order). Its ``next`` cursor (``<shard>/<entry id>``: where the
page stopped reading) gives the following page: nothing is listed twice or
skipped. A page ends at ``limit`` items, or after ``scan_max`` entries read,
so a rare filter returns short pages (even empty ones) with a ``next`` until
the window is read to its end (``next`` null).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

import orjson

from showdown_messages.protocol import RESULT_FIELD_B
from showdown_service.api.auth import Refused
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import Client
from showdown_service.infra.streams import Fields, read_range
from showdown_service.read.dead_letters import letter, resolved_key

CHUNK = 1000
"""Entries read per XRANGE."""

_ENTRY_ID = re.compile(r"([0-9]+)-([0-9]+)")
"""A stream entry id as text: ASCII digits only (``re``'s ``\\d`` also takes other scripts' digits, which Redis
refuses)."""
STREAM_ID_MAX = 2**64 - 1
"""Redis's largest millisecond and sequence number in a stream entry id."""


def parse_entry_id(text: str) -> tuple[int, int] | None:
    """``text`` as a Redis stream entry id ``(ms, seq)``, or None when it is not one Redis takes as a range's
    start (each part at most 2^64-1, and not the largest id of all, after which nothing can follow)."""
    match = _ENTRY_ID.fullmatch(text)
    if match is None:
        return None
    ms, seq = int(match[1]), int(match[2])
    if ms > STREAM_ID_MAX or seq > STREAM_ID_MAX or (ms, seq) == (STREAM_ID_MAX, STREAM_ID_MAX):
        return None
    return ms, seq


@dataclass(frozen=True, slots=True)
class Position:
    shard_index: int
    low: str
    """Where to read that shard from (an XRANGE start: ``-``, ``<id>``, or ``(<id>`` after a cursor)."""
    later: str
    """Where to read the shards after it from (``-``, or the ``since`` id)."""


def since_id(since: str | None) -> str:
    """The first entry id a ``since`` allows: an entry id as given, or an ISO-8601 time (its millisecond)."""
    if not since:
        return "-"
    if _ENTRY_ID.fullmatch(since):
        given = parse_entry_id(since)
        if given is None:
            raise Refused(400, "bad_query", f"since={since!r}: an entry id's parts are at most 2^64-1 each")
        return f"{given[0]}-{given[1]}"  # as Redis writes it
    try:
        moment = datetime.fromisoformat(since)
    except ValueError:
        raise Refused(
            400, "bad_query", f"since={since!r}: give an entry id such as 1718000000000-0 or an ISO-8601 time"
        ) from None
    if moment.tzinfo is None:
        raise Refused(400, "bad_query", f"since={since!r}: give the time zone (2026-11-25T14:00:00Z)")
    try:
        ms = int(moment.timestamp() * 1000)
    except (OverflowError, ValueError):  # a time the platform cannot count in seconds since 1970
        ms = -1
    if ms < 0:
        raise Refused(400, "bad_query", f"since={since!r}: give a time from 1970-01-01T00:00:00Z on")
    return f"{ms}-0"


def start(shards: Sequence[str], cursor: str | None, since: str | None) -> Position:
    """Where a page starts: after ``cursor`` (a previous page's ``next``), else at ``since``."""
    low = since_id(since)
    if not cursor:
        return Position(0, low, low)
    shard, _, after = cursor.partition("/")
    given = parse_entry_id(after)
    if shard not in shards or given is None:
        raise Refused(400, "bad_query", f"cursor={cursor!r} is not a 'next' this API gave")
    return Position(shards.index(shard), f"({given[0]}-{given[1]}", low)


def scan(
    client: Client,
    shards: Sequence[str],
    stream_of: Callable[[str], str],
    position: Position,
    keep: Callable[[str, bytes, Fields], dict[str, Any] | None],
    *,
    limit: int,
    scan_max: int,
) -> tuple[list[dict[str, Any]], str | None]:
    """Items ``keep`` makes of the entries from ``position`` on (None: skipped), and the ``next`` cursor."""
    items: list[dict[str, Any]] = []
    read = 0
    index, low = position.shard_index, position.low
    while index < len(shards):
        shard = shards[index]
        while True:
            count = min(CHUNK, scan_max - read)
            rows = read_range(client, stream_of(shard), low=low, count=count)
            for entry_id, fields in rows:
                read += 1
                item = keep(shard, entry_id, fields)
                if item is not None:
                    items.append(item)
                if len(items) == limit or read == scan_max:
                    return items, f"{shard}/{entry_id.decode()}"
            if len(rows) < count:
                break
            low = f"({rows[-1][0].decode()}"
        index, low = index + 1, position.later
    return items, None


def results_page(
    client: Client,
    settings: Settings,
    *,
    hand_id: str | None,
    player_id: str | None,
    table_id: str | None,
    tournament_id: str | None,
    since: str | None,
    cursor: str | None,
    limit: int,
    scan_max: int,
) -> dict[str, Any]:
    """``{"items": [{"shard", "id", "result"}...], "next"}``: the results matching every filter given."""

    def keep(shard: str, entry_id: bytes, fields: Fields) -> dict[str, Any] | None:
        raw = fields.get(RESULT_FIELD_B)
        if not raw:
            return None
        result = orjson.loads(raw)
        if (
            (hand_id is not None and result.get("hand_id") != hand_id)
            or (table_id is not None and result.get("table_id") != table_id)
            or (tournament_id is not None and result.get("tournament_id") != tournament_id)
            or (player_id is not None and all(a.get("player_id") != player_id for a in result.get("awards", ())))
        ):
            return None
        return {"shard": shard, "id": entry_id.decode(), "result": result}

    position = start(settings.shards, cursor, since)
    items, following = scan(
        client, settings.shards, lambda s: settings.keys(s).results, position, keep, limit=limit, scan_max=scan_max
    )
    return {"items": items, "next": following}


def dead_letters_page(
    client: Client,
    settings: Settings,
    *,
    code: str | None,
    tournament_id: str | None,
    hand_id: str | None,
    since: str | None,
    cursor: str | None,
    limit: int,
    scan_max: int,
) -> dict[str, Any]:
    """``{"items": [<dead letter>...], "next"}``: the dead letters matching every filter given."""

    def keep(shard: str, entry_id: bytes, fields: Fields) -> dict[str, Any] | None:
        found = letter(shard, entry_id, fields)
        if not found.matches(code=code, tournament_id=tournament_id, hand_id=hand_id):
            return None
        mark = cast(bytes | None, client.hget(resolved_key(settings.keys(shard).dead), entry_id))  # a kept one only
        return {**found.document(), "requeued_as": mark.decode() if mark else None}

    position = start(settings.shards, cursor, since)
    items, following = scan(
        client, settings.shards, lambda s: settings.keys(s).dead, position, keep, limit=limit, scan_max=scan_max
    )
    return {"items": items, "next": following}
