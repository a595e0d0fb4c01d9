"""Where each hand is in the streams: the read API's index, built by reading the streams, never by writing.

Redis keeps results, dead letters and audit records in streams with no key
by hand id. The index reads every shard's events, results, dead-letter and
audit streams from their start and then follows them, remembering for each
hand id the newest entry of each: a lookup is a dictionary read, then one
pipelined ``XRANGE id id`` per stream to fetch what the entries hold.

Freshness: a lookup of a hand not yet known as settled first reads whatever
the streams gained since the last read (one round trip when nothing did), so
a hand is never reported ``unknown`` or ``pending`` after its commit returned.

Status of a hand (:meth:`HandIndex.lookup`):

* ``settled``: a result names it (a re-sent copy later recorded as a
  ``duplicate`` leaves it settled);
* ``pending``: its newest events entry has no audit record yet (published, or
  requeued after a refusal, and not yet committed);
* ``refused``: a dead letter names it and nothing newer is pending;
* ``unknown``: none of these streams names it (nor the archive).

The archive is asked only for a hand Redis does not know (or knows only by an
audit record), and it costs a scan: an unknown answer is kept
``unknown_ttl_s`` (Redis is still read first every time, so a hand that
arrives meanwhile is found), each caller has its own budget of archive
lookups (``permit``), and at most ``archive_concurrency`` run at once; over
either: refused (:meth:`HandIndex.busy`; the API's answer is 429), never a guess.

Which hand an entry names, and the archive's answer, are
:mod:`showdown_service.read.hands`' (the one hand lookup).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

import orjson
from redis.cluster import RedisCluster

from showdown_core.errors import ShowdownError
from showdown_messages.protocol import (
    AUDIT_FIELD_B,
    EVENT_FIELD_B,
    HAND_ID_FIELD_B,
    RAW_FIELD_B,
    RESULT_FIELD_B,
    entry_order,
)
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import REDIS_ERRORS, Client
from showdown_service.infra.entry_fields import hand_of, result_hand
from showdown_service.infra.streams import Fields
from showdown_service.read.dead_letters import letter, resolved_key

READ_COUNT = 10_000
"""Entries a stream gives the index per read."""
BODIES_KEPT = 100_000
"""Settled hands' answers kept ready (all dropped at once when full)."""
FOLLOW_IDLE_S = 0.05
"""How long the follower waits after a read that found nothing new."""
PRUNE_S = 60.0
"""How often (s) the follower forgets what Redis trimmed."""
ABSENT_KEPT = 100_000
"""Hand ids answered unknown by the archive kept (all dropped at once when full)."""

Where = tuple[str, bytes]
"""(shard, entry id)."""

ArchiveLookup = Callable[[str], "dict[str, Any] | None"]
"""The archive's answer for a hand id: the same document as :meth:`HandIndex.lookup`'s, or None."""


def no_archive(_hand_id: str) -> dict[str, Any] | None:
    """The lookup when no archive is configured: nothing there."""
    return None


class ArchiveBusy(ShowdownError):
    """The archive is answering as many lookups as it may at once (:meth:`HandIndex.busy`)."""


@dataclass(slots=True)
class _Streams:
    """The keys the index follows, by kind, and where it has read each up to."""

    keys: dict[str, tuple[str, str]]
    """stream key -> (shard, kind)."""
    after: dict[str, bytes]


def read_after(
    client: Client, after: Mapping[str, bytes], count: int
) -> list[tuple[bytes, list[tuple[bytes, Fields]]]]:
    """XREAD without blocking: entries after ``after[stream]``, up to ``count`` a stream (a pipeline on a cluster)."""
    if not isinstance(client, RedisCluster):
        wanted: dict[Any, Any] = dict(after)
        return cast(list[tuple[bytes, list[tuple[bytes, Fields]]]], client.xread(wanted, count=count) or [])
    pipe = client.pipeline(transaction=False)  # type: ignore[no-untyped-call]
    for stream, entry_id in after.items():
        pipe.xread({stream: entry_id}, count=count)
    replies = [reply for reply in pipe.execute() if reply]
    return [pair for reply in replies for pair in cast(list[tuple[bytes, list[tuple[bytes, Fields]]]], reply)]


class HandIndex:
    """Hand id -> the newest entry naming it in each of the events, results, dead-letter and audit streams."""

    def __init__(
        self,
        settings: Settings,
        client: Client,
        archive: ArchiveLookup = no_archive,
        *,
        unknown_ttl_s: float = 2.0,
        archive_concurrency: int = 2,
    ) -> None:
        self.settings = settings
        self.client = client
        self.archive = archive
        self.unknown_ttl_s = unknown_ttl_s
        self._absent: dict[str, float] = {}
        """hand id -> until when (monotonic) the archive's "not here" stands."""
        self._scans = threading.BoundedSemaphore(archive_concurrency)
        keys: dict[str, tuple[str, str]] = {}
        for shard in settings.shards:
            k = settings.keys(shard)
            for kind, key in (("events", k.events), ("results", k.results), ("dead", k.dead), ("audit", k.audit)):
                keys[key] = (shard, kind)
        self._streams = _Streams(keys=keys, after=dict.fromkeys(keys, b"0-0"))
        self.events: dict[str, Where] = {}
        self.results: dict[str, Where] = {}
        self.dead: dict[str, Where] = {}
        self.audit: dict[str, tuple[str, bytes, bytes]] = {}
        """hand id -> (shard, audit entry id, the events entry id it recorded)."""
        self._lock = threading.Lock()
        self._last_read_started = 0.0
        self._bodies: dict[str, tuple[tuple[Any, ...], bytes]] = {}

    def catch_up(self, *, since: float | None = None) -> int:
        """Read what every stream gained; how many entries. ``since``: a caller's start time (monotonic); a read
        begun after it already covers the caller, and is not repeated."""
        with self._lock:
            if since is not None and self._last_read_started > since:
                return 0
            self._last_read_started = time.monotonic()
            total = 0
            while True:
                replies = read_after(self.client, self._streams.after, READ_COUNT)
                got = sum(len(rows) for _, rows in replies)
                for stream, rows in replies:
                    self._take(stream.decode(), rows)
                total += got
                if not any(len(rows) == READ_COUNT for _, rows in replies):
                    return total

    def _take(self, stream: str, rows: list[tuple[bytes, Fields]]) -> None:
        shard, kind = self._streams.keys[stream]
        for entry_id, fields in rows:
            if kind == "results":
                hand = result_hand(fields)
                if hand is not None:
                    self.results[hand] = (shard, entry_id)
            elif kind == "events":
                hand = hand_of(fields.get(EVENT_FIELD_B))
                if hand is not None:
                    self.events[hand] = (shard, entry_id)
            elif kind == "dead":
                hand = fields.get(HAND_ID_FIELD_B, b"").decode(errors="replace") or hand_of(fields.get(RAW_FIELD_B))
                if hand:
                    self.dead[hand] = (shard, entry_id)
            else:
                try:
                    record = orjson.loads(fields.get(AUDIT_FIELD_B, b"{}"))
                except orjson.JSONDecodeError:  # not ours to judge here: `showdown audit verify` names it
                    continue
                hand = record.get("hand_id") if isinstance(record, dict) else None
                if isinstance(hand, str):
                    self.audit[hand] = (shard, entry_id, str(record.get("entry_id", "")).encode())
        if rows:
            self._streams.after[stream] = rows[-1][0]

    def _pending(self, hand_id: str) -> bool:
        event = self.events.get(hand_id)
        if event is None:
            return False
        done = self.audit.get(hand_id)
        return done is None or (done[0], done[2]) != event

    def cached(self, hand_id: str) -> bytes | None:
        """The JSON body of a settled hand's answer, when the entries naming it are still those it was made from
        (no Redis read: what a settled hand holds changes only when a newer entry names it, which the index
        would know)."""
        found = self._bodies.get(hand_id)
        if found is None or found[0] != self._positions(hand_id):
            return None
        return found[1]

    def answer(self, hand_id: str, permit: Callable[[], None] = lambda: None) -> tuple[int, bytes]:
        """HTTP status (200, or 404 for an unknown hand) and the JSON body of :meth:`lookup`; a settled hand's
        body is kept for :meth:`cached`."""
        positions = self._positions(hand_id)
        found = self.lookup(hand_id, permit)
        body = orjson.dumps(found)
        if found["status"] == "settled" and positions == self._positions(hand_id):
            if len(self._bodies) >= BODIES_KEPT:
                self._bodies.clear()
            self._bodies[hand_id] = (positions, body)
        return (404 if found["status"] == "unknown" else 200), body

    def _positions(self, hand_id: str) -> tuple[Any, ...]:
        return self.results.get(hand_id), self.dead.get(hand_id), self.audit.get(hand_id), self.events.get(hand_id)

    def follow(self, stop: threading.Event, idle_s: float = FOLLOW_IDLE_S) -> None:
        """Read the streams' news until ``stop`` is set (a thread of the API): settled hands' answers stay current
        without a read per request; every ``PRUNE_S`` the entries Redis trimmed away are forgotten."""
        pruned = time.monotonic()
        while not stop.is_set():
            try:
                got = self.catch_up()
                if time.monotonic() - pruned > PRUNE_S:
                    self.prune()
                    pruned = time.monotonic()
            except REDIS_ERRORS:
                got = 0
            if not got:
                stop.wait(idle_s)

    def prune(self) -> int:
        """Forget the entries older than each stream's oldest (trimmed by Redis: the archive has them now); how
        many. Keeps the index as large as Redis's window, not as everything the API ever read."""
        oldest: dict[tuple[str, str], tuple[int, int] | None] = {}
        for key, (shard, kind) in self._streams.keys.items():
            first = cast(list[tuple[bytes, Fields]], self.client.xrange(key, count=1))
            oldest[shard, kind] = entry_order(first[0][0]) if first else None

        def gone(shard: str, kind: str, entry_id: bytes) -> bool:
            low = oldest.get((shard, kind))
            return low is None or entry_order(entry_id) < low

        dropped = 0
        with self._lock:
            for kind, index in (("results", self.results), ("dead", self.dead), ("events", self.events)):
                stale = [hand for hand, (shard, entry_id) in index.items() if gone(shard, kind, entry_id)]
                for hand in stale:
                    del index[hand]
                dropped += len(stale)
            stale = [hand for hand, (shard, entry_id, _) in self.audit.items() if gone(shard, "audit", entry_id)]
            for hand in stale:
                del self.audit[hand]
            dropped += len(stale)
        return dropped

    def lookup(self, hand_id: str, permit: Callable[[], None] = lambda: None) -> dict[str, Any]:
        """``{"hand_id", "status", "result", "dead_letter", "audit"}`` (see the module's docstring). ``permit``:
        called before the archive is asked; it raises to refuse (the caller's archive budget)."""
        if hand_id not in self.results:
            self.catch_up(since=time.monotonic())
        found = self._fetch(hand_id)
        if found["status"] == "unknown" or (found["status"] != "pending" and found["result"] is None
                                              and found["dead_letter"] is None):  # fmt: skip
            archived = self._archived(hand_id, permit)
            if archived is not None:
                return archived
        return found

    def busy(self) -> Exception:
        """What a lookup raises when ``archive_concurrency`` archive lookups run already (the API's: a 429)."""
        return ArchiveBusy("the archive is answering as many lookups as it may at once: ask again")

    def _archived(self, hand_id: str, permit: Callable[[], None]) -> dict[str, Any] | None:
        """The archive's answer for a hand Redis does not hold, unless it said "not here" within
        ``unknown_ttl_s``."""
        if self.archive is no_archive:
            return None
        if self._absent.get(hand_id, 0.0) > time.monotonic():
            return None
        permit()
        if not self._scans.acquire(blocking=False):
            raise self.busy()
        try:
            found = self.archive(hand_id)
        finally:
            self._scans.release()
        if found is None and self.unknown_ttl_s > 0:
            if len(self._absent) >= ABSENT_KEPT:
                self._absent.clear()
            self._absent[hand_id] = time.monotonic() + self.unknown_ttl_s
        return found

    def _fetch(self, hand_id: str) -> dict[str, Any]:
        result_at, dead_at, audit_at = self.results.get(hand_id), self.dead.get(hand_id), self.audit.get(hand_id)
        pipe = self.client.pipeline(transaction=False)
        asked: list[str] = []
        if result_at is not None:
            pipe.xrange(self.settings.keys(result_at[0]).results, result_at[1], result_at[1])
            asked.append("result")
        if dead_at is not None:
            pipe.xrange(self.settings.keys(dead_at[0]).dead, dead_at[1], dead_at[1])
            pipe.hget(resolved_key(self.settings.keys(dead_at[0]).dead), dead_at[1])
            asked += ["dead", "requeued"]
        if audit_at is not None:
            pipe.xrange(self.settings.keys(audit_at[0]).audit, audit_at[1], audit_at[1])
            asked.append("audit")
        replies = dict(zip(asked, pipe.execute(), strict=True)) if asked else {}
        result = _first(replies.get("result"), RESULT_FIELD_B)
        record = _first(replies.get("audit"), AUDIT_FIELD_B)
        dead_rows = replies.get("dead") or []
        dead_letter = None
        if dead_at is not None and dead_rows:
            dead_letter = letter(dead_at[0], dead_rows[0][0], dead_rows[0][1], replies.get("requeued")).document()
        if result is not None:
            status = "settled"
        elif self._pending(hand_id):
            status = "pending"
        elif dead_letter is not None:
            status = "refused"
        else:
            status = "unknown"
        return {"hand_id": hand_id, "status": status, "result": result, "dead_letter": dead_letter, "audit": record}


def _first(rows: Any, field: bytes) -> dict[str, Any] | None:
    """The JSON in ``field`` of the first of ``rows`` (an XRANGE reply), parsed; None when there is none."""
    if not rows:
        return None
    value = rows[0][1].get(field)
    return cast(dict[str, Any], orjson.loads(value)) if value else None
