"""Paged, filtered reads of the results and dead-letter streams (Redis's window of them).

A page lists matching entries in stream order, shard after shard (the
configured order). Its ``next`` cursor (``<shard>/<entry id>``: where the
page stopped reading) gives the following page: nothing is listed twice or
skipped. A page ends at ``limit`` items, or after ``scan_max`` entries read,
so a rare filter returns short pages (even empty ones) with a ``next`` until
the window is read to its end (``next`` null).

One results filter (:class:`ResultFilter`: hand, player, table, tournament)
serves the read API's ``/v1/results`` pages and ``showdown results``
(:func:`newest`); a ``since`` or ``cursor`` that is not one is
:class:`BadQuery`, naming which and why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

import orjson

from showdown_core.errors import ShowdownError
from showdown_messages.protocol import RESULT_FIELD_B, entry_id_shaped, parse_entry_id
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import Client
from showdown_service.infra.streams import Fields, read_range
from showdown_service.read.dead_letters import letter, resolved_key

CHUNK = 1000
"""Entries read per XRANGE."""


class BadQuery(ShowdownError):
    """A ``since`` or ``cursor`` that is none: which, and why (the read API's ``400 bad_query``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class ResultFilter:
    """Which results to keep: those matching every filter given (a player: any seat of the hand's awards)."""

    hand_id: str | None = None
    player_id: str | None = None
    table_id: str | None = None
    tournament_id: str | None = None

    def matches(self, result: Mapping[str, Any]) -> bool:
        """Whether ``result`` (a ShowdownResult's JSON, parsed) passes every filter given."""
        return (
            (self.hand_id is None or result.get("hand_id") == self.hand_id)
            and (self.table_id is None or result.get("table_id") == self.table_id)
            and (self.tournament_id is None or result.get("tournament_id") == self.tournament_id)
            and (self.player_id is None or any(a.get("player_id") == self.player_id for a in result.get("awards", ())))
        )


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
    if entry_id_shaped(since):
        given = parse_entry_id(since)
        if given is None:
            raise BadQuery(f"since={since!r}: an entry id's parts are at most 2^64-1 each")
        return f"{given[0]}-{given[1]}"  # as Redis writes it
    try:
        moment = datetime.fromisoformat(since)
    except ValueError:
        raise BadQuery(f"since={since!r}: give an entry id such as 1718000000000-0 or an ISO-8601 time") from None
    if moment.tzinfo is None:
        raise BadQuery(f"since={since!r}: give the time zone (2026-11-25T14:00:00Z)")
    try:
        ms = int(moment.timestamp() * 1000)
    except (OverflowError, ValueError):  # a time the platform cannot count in seconds since 1970
        ms = -1
    if ms < 0:
        raise BadQuery(f"since={since!r}: give a time from 1970-01-01T00:00:00Z on")
    return f"{ms}-0"


def start(shards: Sequence[str], cursor: str | None, since: str | None) -> Position:
    """Where a page starts: after ``cursor`` (a previous page's ``next``), else at ``since``."""
    low = since_id(since)
    if not cursor:
        return Position(0, low, low)
    shard, _, after = cursor.partition("/")
    given = parse_entry_id(after)
    if shard not in shards or given is None:
        raise BadQuery(f"cursor={cursor!r} is not a 'next' this API gave")
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


@dataclass(frozen=True, slots=True)
class PageQuery:
    """Where a page starts (``since``, or a previous page's ``cursor``) and how long it may be (``limit`` items,
    ``scan_max`` entries read)."""

    since: str | None
    cursor: str | None
    limit: int
    scan_max: int


def _page(
    client: Client,
    settings: Settings,
    stream_of: Callable[[str], str],
    keep: Callable[[str, bytes, Fields], dict[str, Any] | None],
    query: PageQuery,
) -> dict[str, Any]:
    position = start(settings.shards, query.cursor, query.since)
    items, following = scan(
        client, settings.shards, stream_of, position, keep, limit=query.limit, scan_max=query.scan_max
    )
    return {"items": items, "next": following}


def results_page(client: Client, settings: Settings, wanted: ResultFilter, query: PageQuery) -> dict[str, Any]:
    """``{"items": [{"shard", "id", "result"}...], "next"}``: the results ``wanted`` keeps."""

    def keep(shard: str, entry_id: bytes, fields: Fields) -> dict[str, Any] | None:
        raw = fields.get(RESULT_FIELD_B)
        if not raw:
            return None
        result = orjson.loads(raw)
        if not wanted.matches(result):
            return None
        return {"shard": shard, "id": entry_id.decode(), "result": result}

    return _page(client, settings, lambda s: settings.keys(s).results, keep, query)


def dead_letters_page(
    client: Client, settings: Settings, query: PageQuery, *, code: str | None, tournament_id: str | None,
    hand_id: str | None,
) -> dict[str, Any]:  # fmt: skip
    """``{"items": [<dead letter>...], "next"}``: the dead letters matching every filter given."""

    def keep(shard: str, entry_id: bytes, fields: Fields) -> dict[str, Any] | None:
        found = letter(shard, entry_id, fields)
        if not found.matches(code=code, tournament_id=tournament_id, hand_id=hand_id):
            return None
        mark = cast(bytes | None, client.hget(resolved_key(settings.keys(shard).dead), entry_id))  # a kept one only
        return {**found.document(), "requeued_as": mark.decode() if mark else None}

    return _page(client, settings, lambda s: settings.keys(s).dead, keep, query)


def newest(client: Client, key: str, wanted: ResultFilter, count: int, *, high: str) -> list[tuple[bytes, Fields]]:
    """The newest ``count`` results of stream ``key`` up to ``high`` that ``wanted`` keeps, oldest first (an entry
    without a result read as ``{}``)."""
    found: list[tuple[bytes, Fields]] = []
    while len(found) < count:
        rows = read_range(client, key, high=high, count=CHUNK, newest_first=True)
        for entry_id, fields in rows:
            if wanted.matches(orjson.loads(fields.get(RESULT_FIELD_B, b"{}"))):
                found.append((entry_id, fields))
                if len(found) == count:
                    break
        if len(rows) < CHUNK:
            break
        high = f"({rows[-1][0].decode()}"
    return found[::-1]
