"""``showdown archiver``: move every entry the workers acknowledged into Parquet files, exactly once.

Per shard, in a loop until SIGTERM:

1. hold the shard's lock (``<prefix>:{shard}:archive:lock``, a lease renewed
   each turn): one archiver per shard; a second waits, harmlessly;
2. on (re)start, resume from the archive itself: the newest file's metadata
   holds its last ``seq``, hash and the stream cursors after it;
3. collect the next audit records with their texts (:mod:`.collect`) into a
   buffer; write the buffer as one file when it holds ``archive_file_rows``
   rows, when its oldest row has waited ``archive_interval_s``, when the UTC
   day of the records changes, or at stop. The file's name is its run of
   seqs, it appears whole (a temporary name renamed, or one S3 PUT), and it is
   written only after checking that the archive's newest file is still the one
   this run follows: a SIGKILL at any point leaves each entry in exactly one
   file (a buffer not yet written is collected again on restart);
4. after each file: sign its checkpoint, record progress in Redis
   (``<prefix>:{shard}:archive``: ``seq``, ``hash``, the cursors, and
   ``events_floor``, below which the workers may trim the events stream),
   and trim the results, audit, dead-letter and standings streams to about
   ``archive_keep`` archived entries (never an entry not yet archived);
   then expire the ledgers of the tournaments the file finished (retried the
   next turn after a Redis error, and for the newest file at a restart).

A store that cannot be written (a full disk, an unreachable object store) or
a Redis that does not answer makes it wait and retry, logged once when the
state changes and written into its heartbeat file for ``showdown health``:
nothing is skipped, nothing trimmed.
"""

from __future__ import annotations

import hashlib
import threading
import time
import uuid
from collections import deque
from datetime import UTC, datetime
from typing import Any, cast

import orjson
import pyarrow as pa
import redis
from pyarrow.lib import ArrowException

from showdown_service import heartbeat
from showdown_service.archive.checkpoints import load_private_key, sign
from showdown_service.archive.collect import Cursors, collect, events_floor
from showdown_service.archive.layout import (
    SCHEMA,
    ArchiveError,
    Store,
    encode_file,
    file_name,
    newest_file,
    put_file,
    read_rows,
)
from showdown_service.archive.metrics import ArchiveMetrics
from showdown_service.audit import GENESIS, Head
from showdown_service.config import Settings, ShardKeys
from showdown_service.connection import REDIS_ERRORS, Client
from showdown_service.logs import get_logger
from showdown_service.streams import read_range
from showdown_service.tournament.store import expire

READ_COUNT = 1000
"""Audit records read per round trip."""
IDLE_S = 0.2

RENEW_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) and 1 or 0
"""
RELEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class ShardState:
    """Where one shard's archive stands."""

    def __init__(self, head: Head, cursors: Cursors) -> None:
        self.head = head
        """The last archived record (seq and hash)."""
        self.cursors = cursors
        """Cursors after the last *written* file."""
        self.read_cursors = cursors
        """Cursors after the buffer."""
        self.buffer: list[dict[str, Any]] = []
        self.buffered_at = 0.0
        self.events_floor = "0-0"
        """Below this the workers may trim the events stream (as last computed; "0-0" until then)."""
        self.kept: deque[tuple[int, Cursors]] = deque()
        """(last seq, cursors) after each file written since start: where trimming to archive_keep may cut."""
        self.to_expire: set[str] = set()
        """Tournaments finished in a written file whose ledgers are not yet expired (tried again each turn)."""


class Archiver:
    """Archives the configured shards until :meth:`stop`."""

    def __init__(
        self, settings: Settings, client: Client, store: Store, *, metrics: ArchiveMetrics | None = None
    ) -> None:
        self.settings = settings
        self.client = client
        self.store = store
        self.metrics = metrics or ArchiveMetrics()
        self.shards = {shard: settings.keys(shard) for shard in settings.shards}
        self.token = f"{settings.consumer}-{uuid.uuid4().hex[:8]}"
        self._renew = client.register_script(RENEW_LUA)
        self._lease_ms = int(settings.archive_lock_ttl_s * 1000)
        """The shard lock's lease: a killed archiver's shards are taken over this long after its last renewal."""
        self._release = client.register_script(RELEASE_LUA)
        self._states: dict[str, ShardState] = {}
        self._stopping = threading.Event()
        self._waiting: str | None = None
        self._signing_key = load_private_key(settings.archive_signing_key) if settings.archive_signing_key else None
        self.log = get_logger(archiver=settings.consumer)

    def stop(self) -> None:
        self._stopping.set()

    def run(self) -> None:
        """Archive until :meth:`stop`; on stop, write what is buffered."""
        self.log.info("archiver_started", shards=list(self.shards), archive=self.store.url)
        heartbeat.write(self.settings.heartbeat_file)
        failures = 0
        while not self._stopping.is_set():
            try:
                if failures or not self._states:
                    self.client.ping()  # Redis answers (and takes these credentials) before anything else
                busy = [self.step(keys) for keys in self.shards.values()].count(True) > 0  # every shard, each turn
                failures = 0
                self._resumed()
            except (*REDIS_ERRORS, OSError, ArrowException, ArchiveError) as exc:
                failures += 1
                self._states.clear()  # resume from the archive: what was buffered is collected again
                delay = min(self.settings.backoff_max_s, 0.05 * 2**failures)
                self._wait(exc, delay)
                self._stopping.wait(delay)
                continue
            heartbeat.write(self.settings.heartbeat_file) if self._waiting else self.settings.heartbeat_file.touch()
            if not busy:
                self._stopping.wait(IDLE_S)
        try:
            self.flush()
            for keys in self.shards.values():
                self._release(keys=[keys.archive + ":lock"], args=[self.token])
        except (*REDIS_ERRORS, OSError, ArrowException, ArchiveError) as exc:
            self.log.warning("unwritten_at_stop", error=f"{type(exc).__name__}: {exc}")
        heartbeat.write(self.settings.heartbeat_file, {"stopped_at": time.time()})
        self.log.info("archiver_stopped")

    def flush(self) -> None:
        """Write every shard's buffer now (at stop; and in tests)."""
        for keys in self.shards.values():
            state = self._states.get(keys.shard)
            if state is not None and state.buffer:
                self._write(keys, state)

    def drain(self, turns: int = 10_000) -> None:
        """Archive everything committed so far, then write it (bounded: ``turns`` reads per shard)."""
        for keys in self.shards.values():
            for _ in range(turns):
                if not self.step(keys):
                    break
        self.flush()

    def _wait(self, exc: Exception, delay: float) -> None:
        why = f"{type(exc).__name__}: {exc}"
        if why != self._waiting:
            self._waiting = why
            for shard in self.shards:
                self.metrics.waiting.labels(shard).set(1)
            self.log.warning("archive_waiting", error=why, retry_in_s=round(delay, 3))
            heartbeat.write(
                self.settings.heartbeat_file,
                {"waiting_for": f"the archive: {why}", "reason": "ARCHIVE", "since": time.time()},
            )

    def _resumed(self) -> None:
        if self._waiting is not None:
            self.log.info("archive_resumed", waited_for=self._waiting)
            self._waiting = None
            for shard in self.shards:
                self.metrics.waiting.labels(shard).set(0)
            heartbeat.write(self.settings.heartbeat_file)

    # --- one turn ----------------------------------------------------------------------

    def step(self, keys: ShardKeys) -> bool:
        """One turn for one shard; True if it read anything."""
        if not self._renew(keys=[keys.archive + ":lock"], args=[self.token, self._lease_ms]):
            if keys.shard in self._states:
                self.log.warning("archive_lock_lost", shard=keys.shard)
                del self._states[keys.shard]
            return False
        state = self._states.get(keys.shard)
        if state is None:
            state = self._states[keys.shard] = self._resume(keys)
        if state.to_expire:
            self._expire(keys, state)
        settings = self.settings
        room = settings.archive_file_rows - len(state.buffer)
        rows, cursors = collect(self.client, keys, state.read_cursors, min(READ_COUNT, room))
        for row in rows:
            if state.buffer and _day(row) != _day(state.buffer[0]):  # a file never spans two days
                self._write(keys, state)
                if keys.shard not in self._states:  # the archive moved on without this archiver: start over
                    return True
            if not state.buffer:
                state.buffered_at = time.monotonic()
            state.buffer.append(row)
        state.read_cursors = cursors
        if state.buffer and (
            len(state.buffer) >= settings.archive_file_rows
            or time.monotonic() - state.buffered_at >= settings.archive_interval_s
            or self._stopping.is_set()
        ):
            self._write(keys, state)
        self._gauges(keys, state)
        return bool(rows)

    def _resume(self, keys: ShardKeys) -> ShardState:
        meta = newest_file(self.store, keys.shard)
        if meta is None:
            state = ShardState(Head(0, GENESIS), Cursors())
        else:
            state = ShardState(Head(meta.last_seq, meta.last_hash), Cursors(**meta.cursors))
            state.kept.append((meta.last_seq, state.cursors))
        known = self.client.hget(keys.archive, "events_floor")  # still safe: a floor never needs to go down
        if known:
            state.events_floor = known.decode() if isinstance(known, bytes) else str(known)
        self.log.info("archive_resumed_from", shard=keys.shard, seq=state.head.seq, file=meta.path if meta else None)
        self._progress(keys, state, file=meta.path if meta else "")
        if meta is not None:  # a stop (even SIGKILL) after writing it may have come before its ledgers expired
            state.to_expire = _finished(read_rows(self.store, meta.path, columns=["standings"]).to_pylist())
        return state

    def _write(self, keys: ShardKeys, state: ShardState) -> None:
        """Write the buffer as one file; then checkpoint, progress, trim."""
        rows = state.buffer
        if not self._renew(keys=[keys.archive + ":lock"], args=[self.token, self._lease_ms]):
            self.log.warning("archive_lock_lost", shard=keys.shard)
            del self._states[keys.shard]
            return
        newest = newest_file(self.store, keys.shard)
        if (newest.last_seq if newest else 0) != state.head.seq:  # another archiver wrote meanwhile: start over
            self.log.warning("archive_moved_on", shard=keys.shard, expected=state.head.seq)
            del self._states[keys.shard]
            return
        first, last = rows[0], rows[-1]
        last_hash = str(orjson.loads(last["audit"]).get("hash", "")) if last["audit"] else ""
        first_prev = str(orjson.loads(first["audit"]).get("prev_hash", "")) if first["audit"] else ""
        meta = {
            "shard": keys.shard,
            "first_seq": str(first["seq"]),
            "last_seq": str(last["seq"]),
            "first_prev_hash": first_prev,
            "last_hash": last_hash,
            "rows": str(len(rows)),
            **state.read_cursors.as_meta(),
            "archiver": self.token,
            "written_at": _now(),
        }
        table = pa.table({name: [row.get(name) for row in rows] for name in SCHEMA.names}, schema=SCHEMA)
        data = encode_file(table, meta)
        relative = f"shard={keys.shard}/day={_day(first)}/{file_name(keys.shard, first['seq'], last['seq'])}"
        put_file(self.store, self.store.path(relative), data)
        if self._signing_key is not None:
            self._checkpoint(keys, first["seq"], last["seq"], last_hash, relative, data)
        state.head = Head(int(last["seq"]), last_hash)
        state.cursors = state.read_cursors
        state.buffer = []
        state.kept.append((state.head.seq, state.cursors))
        self.metrics.files.labels(keys.shard).inc()
        self.metrics.bytes.labels(keys.shard).inc(len(data))
        self.metrics.entries.labels(keys.shard).inc(len(rows))
        self._progress(keys, state, file=relative)
        trimmed = self._trim(keys, state)
        state.to_expire |= _finished(rows)
        self.log.info("archived", shard=keys.shard, file=relative, entries=len(rows), first_seq=first["seq"],
                      last_seq=last["seq"], bytes=len(data), trimmed_to=trimmed)  # fmt: skip
        self._expire(keys, state)

    def _expire(self, keys: ShardKeys, state: ShardState) -> None:
        """Expire the ledgers the written files finished (docs/archive.md); an outage leaves them to the next turn."""
        expired = 0
        for tournament_id in sorted(state.to_expire):
            try:
                expired += len(expire(self.client, keys, [tournament_id]))
            except redis.ResponseError as exc:  # refused, not an outage: that ledger stays whole, archiving goes on
                self.log.warning("ledger_not_expired", shard=keys.shard, tournament_id=tournament_id, error=str(exc))
            state.to_expire.discard(tournament_id)
        if expired:
            self.log.info("ledgers_expired", shard=keys.shard, expired=expired)

    def _checkpoint(  # noqa: PLR0917 - the run a file holds, as _write has it
        self, keys: ShardKeys, first: int, last: int, last_hash: str, relative: str, data: bytes
    ) -> None:
        assert self._signing_key is not None
        checkpoint = sign(
            self._signing_key,
            {
                "shard": keys.shard,
                "first_seq": first,
                "last_seq": last,
                "last_hash": last_hash,
                "file": relative,
                "sha256": hashlib.sha256(data).hexdigest(),
                "signed_at": _now(),
            },
        )
        line = orjson.dumps(checkpoint, option=orjson.OPT_SORT_KEYS)
        put_file(self.store, self.store.path("checkpoints", keys.shard, f"{last:012d}.json"), line + b"\n")
        copy = self.settings.archive_checkpoints_copy
        if copy is not None:
            with copy.open("ab") as out:
                out.write(line + b"\n")

    def _progress(self, keys: ShardKeys, state: ShardState, *, file: str) -> None:
        """Record in Redis how far the archive goes, and how far the events stream may be trimmed."""
        fields: dict[Any, Any] = {
            "seq": state.head.seq,
            "hash": state.head.hash,
            **state.cursors.as_meta(),
            "file": file,
            "updated_at": time.time(),
            "archiver": self.token,
        }
        floor = events_floor(self.client, keys, state.cursors.audit_id)
        if floor is not None:
            state.events_floor = floor
        fields["events_floor"] = state.events_floor  # "0-0" until known: the workers trim nothing till then
        self.client.hset(keys.archive, mapping=fields)

    def _trim(self, keys: ShardKeys, state: ShardState) -> int | None:
        """Trim the results, audit, dead-letter and standings streams to about ``archive_keep`` archived entries:
        at the newest file boundary at least that far behind. Returns the seq trimmed to, or None."""
        keep = self.settings.archive_keep
        cut: tuple[int, Cursors] | None = None
        while state.kept and state.kept[0][0] <= state.head.seq - keep:
            cut = state.kept.popleft()
        if cut is None:
            return None
        seq, cursors = cut
        for stream, last_id in (
            (keys.audit, cursors.audit_id),
            (keys.results, cursors.results_id),
            (keys.dead, cursors.dead_id),
            (keys.standings, cursors.standings_id),
        ):
            if last_id:
                ms, _, n = last_id.partition("-")
                self.client.xtrim(stream, minid=f"{ms}-{int(n) + 1}", approximate=False)
        return seq

    def _gauges(self, keys: ShardKeys, state: ShardState) -> None:
        head = Head.decode(cast(bytes | None, self.client.get(keys.audit_head)))
        behind = max(0, head.seq - state.head.seq)
        self.metrics.lag_entries.labels(keys.shard).set(behind)
        age = 0.0
        if state.buffer:
            age = _age(state.buffer[0].get("settled_at"))
        elif behind:
            after = f"({state.read_cursors.audit_id}" if state.read_cursors.audit_id else "-"
            nxt = read_range(self.client, keys.audit, low=after, count=1)
            if nxt:
                age = _age(orjson.loads(nxt[0][1][b"audit"]).get("at"))
        self.metrics.lag_seconds.labels(keys.shard).set(age)


def _finished(rows: list[dict[str, Any]]) -> set[str]:
    """The tournaments the rows' entries finished: those with a 1st-place placement record among them."""
    placements = [p for row in rows if row.get("standings") for p in orjson.loads(row["standings"])]
    return {str(p["tournament_id"]) for p in placements if p.get("place") == 1}


def _day(row: dict[str, Any]) -> str:
    at = row.get("settled_at") or ""
    return at[:10] if len(at) >= 10 else "unknown"


def _age(at: Any) -> float:
    try:
        then = datetime.fromisoformat(str(at).replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    return max(0.0, (datetime.now(UTC) - then).total_seconds())


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
