"""``showdown archiver``: move every entry the workers acknowledged into Parquet files, exactly once.

Per shard, in a loop until SIGTERM:

1. hold the shard's lock (``<prefix>:{shard}:archive:lock``, a lease renewed
   each turn): one archiver per shard; a second waits, harmlessly;
2. on (re)start, resume from the archive itself: the newest file (the highest
   seq, whatever its day) of the chain Redis holds (its *epoch*: the hash of
   its record at seq 1) holds its last ``seq``, hash and the stream cursors
   after it; a chain the archive holds nothing of (a Redis that lost its data
   began another) starts beside the others, under other names, and is
   announced (``archive_chain_restarted``: the old epoch, how far it was
   archived, its lost tail where known);
3. collect the next audit records with their texts (:mod:`.collect`) into a
   buffer; write the buffer as one file when it holds ``archive_file_rows``
   rows, when its oldest row has waited ``archive_interval_s``, when the UTC
   day of the records changes, or at stop. The file's name is its chain's
   epoch and its run of seqs, it appears whole and is never written over (a
   temporary file linked into place, or one conditional S3 PUT), and it is
   written only if its first record continues the newest file of its chain
   (seq and hash) and that file is still the newest: a SIGKILL at any point
   leaves each entry in exactly one file (a buffer not yet written is
   collected again on restart). A run that would not continue the chain, or
   a name that exists, is refused: the archiver stops writing, says why (an
   ``archive_refused`` error line, ``showdown_archive_refused``, the heartbeat
   for ``showdown health``) and looks again every ``backoff_max_s``;
4. after each file: keep the chain's Merkle tree beside it and sign its tree
   head (:mod:`.tlog`), sign its checkpoint and write it into the archive and its
   copy (a copy that cannot be written is retried, waiting, before anything
   else; a restarted archiver writes its newest file's checkpoint first if it
   is missing), record progress in Redis
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

Why over 400 lines: steps 2-4 are one per-shard state machine (resume, the
chain's continuity checked before each file, write once, checkpoint before
progress, the chain restarted) whose checks must be read in the order they
run; what stands apart is apart already (collecting: :mod:`.collect`;
names and files: :mod:`.layout`; S3: :mod:`.s3write`; signing:
:mod:`.checkpoints`). The re-tree of issue 35 splits its turn into steps.
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

from showdown_messages.protocol import AUDIT_FIELD_B, next_entry_id
from showdown_service.archive import timestamps, tlog
from showdown_service.archive.checkpoints import append_copy, copy_holds, load_private_key, sign
from showdown_service.archive.collect import Cursors, collect, events_floor
from showdown_service.archive.merkle import CompactRange, leaf_hash, record_leaf
from showdown_service.archive.metrics import ArchiveMetrics
from showdown_service.archive.note import Checkpoint
from showdown_service.archive.note import sign as sign_note
from showdown_service.decision.audit import GENESIS, Head
from showdown_service.infra.backoff import Backoff
from showdown_service.infra.config import Settings, ShardKeys
from showdown_service.infra.connection import REDIS_ERRORS, Client
from showdown_service.infra.logs import get_logger
from showdown_service.infra.streams import read_range
from showdown_service.ops import heartbeat
from showdown_service.storage.layout import (
    EPOCH,
    SCHEMA,
    ArchiveError,
    ArchiveRefused,
    FileMeta,
    NameTaken,
    Store,
    checkpoint_path,
    encode_file,
    epoch_runs,
    file_name,
    legacy_epoch,
    newest_file,
    newest_run,
    put_file,
    read_meta,
    read_rows,
)
from showdown_service.worker.ledger import expire

READ_COUNT = 1000
"""Audit records read per round trip."""
IDLE_S = 0.2
MOVED_ON_MAX = 3
"""Times in a row the archive may move on under this archiver (another one wrote) before it refuses to go on."""

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

    def __init__(self, head: Head, cursors: Cursors, epoch: str = "") -> None:
        self.head = head
        """The last archived record (seq and hash)."""
        self.epoch = epoch
        """The chain's epoch id (the hash of its record at seq 1); "" until known (a chain not begun yet)."""
        self.fresh = True
        """Resumed and nothing written since: a chain that does not continue now is refused, not resumed again."""
        self.others: dict[str, FileMeta] = {}
        """The newest file of each other chain the archive holds (by the epoch's first 16 hex digits)."""
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
        self.tree: CompactRange | None = None
        """The chain's Merkle tree (its compact range) at ``head.seq``; None until loaded (:mod:`.tlog`)."""
        self.tree_gap = ""
        """Why the chain has no tree (its files do not hold its run from seq 1); "" while it has one."""


class ArchiverNotIdle(RuntimeError):
    """:meth:`Archiver.run` with ``until_idle`` passed its bound with work left; the message says what."""

    def __init__(self, archiver: Archiver, turns: int, seconds: float) -> None:
        self.pending = archiver.still_pending() or ["nothing in hand: new records kept coming"]
        super().__init__(f"archiver not idle after {turns} turns ({seconds} s): {'; '.join(self.pending)}")


class Archiver:
    """Archives the configured shards until :meth:`stop`."""

    def __init__(
        self, settings: Settings, client: Client, store: Store, *, metrics: ArchiveMetrics | None = None
    ) -> None:
        self.settings = settings
        self.client = client
        self.store = store
        self.backoff = Backoff(settings.backoff_max_s)
        """The worker's policy: how long :meth:`run` waits after each failed turn (:mod:`.infra.backoff`)."""
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
        self._write_failed = False
        """The last write of a file failed: the wait lasts (and the backoff grows) until a write succeeds."""
        self._since = 0.0
        self._refused_until: dict[str, float] = {}
        """Shard -> when (monotonic) a refused shard is looked at again."""
        self._refusals: dict[str, str] = {}
        """Shard -> why the archiver refuses to write it (until a file of that shard is written)."""
        self._alerts: list[str] = []
        """What went wrong and is over (a chain that restarted), for ``showdown health``."""
        self._beat: dict[str, Any] | None = None
        self._moved_on: dict[str, int] = {}
        self._redis_heads: dict[str, tuple[str, int]] = {}
        """Shard -> (epoch, seq) of the newest head seen in Redis: what a chain that restarts lost after the archive."""
        self._signing_key = load_private_key(settings.archive_signing_key) if settings.archive_signing_key else None
        self._signer = tlog.signer(settings.archive_log_name, self._signing_key) if self._signing_key else None
        self.log = get_logger(archiver=settings.consumer)
        self.heartbeat_file = settings.archiver_heartbeat
        """The archiver's own heartbeat (never the workers': see :mod:`showdown_service.ops.heartbeat`)."""

    def stop(self) -> None:
        self._stopping.set()

    def run(self, *, until_idle: bool = False, max_turns: int = 10_000, timeout_s: float = 60.0) -> None:
        """Archive until :meth:`stop`; on stop, write what is buffered.

        ``until_idle``: return instead once idle (:meth:`idle`: a turn of every shard read nothing, what was buffered
        is written, nothing refused or left to expire), never pausing on an idle turn, and stopping nothing (the
        shard locks stay held: it may run again). Past ``max_turns`` turns or ``timeout_s`` seconds it raises
        :class:`ArchiverNotIdle`, naming what was still pending. Errors are waited out as serving does.
        """
        self.log.info("archiver_started", shards=list(self.shards), archive=self.store.url)
        if self.settings.archive_retention_days and self.store.writer is None:
            why = "SHOWDOWN_ARCHIVE_RETENTION_DAYS locks S3 objects; a local archive cannot be locked"
            self.log.warning("retention_not_applied", archive=self.store.url, why=why)
        self._heartbeat(force=True)
        failures = turns = 0
        deadline = time.monotonic() + timeout_s
        while not self._stopping.is_set():
            if until_idle:
                turns += 1
                if turns > max_turns or time.monotonic() > deadline:
                    raise ArchiverNotIdle(self, turns - 1, round(timeout_s - deadline + time.monotonic(), 3))
            try:
                if failures or not self._states:
                    self.client.ping()  # Redis answers (and takes these credentials) before anything else
                busy = [self._turn(keys) for keys in self.shards.values()].count(True) > 0  # every shard, each turn
                if until_idle and not busy:
                    self.flush()
                if self._write_failed and not any(state.buffer for state in self._states.values()):
                    self._write_failed = False  # nothing left to write here (another archiver holds the shard)
                if not self._write_failed:  # a turn that only read proves nothing of a store that refused a write
                    failures = 0
                    self._resumed()
            except (*REDIS_ERRORS, OSError, ArrowException, ArchiveError) as exc:
                failures += 1
                self._states.clear()  # resume from the archive: what was buffered is collected again
                delay = self.backoff.delay(failures)
                self._wait(exc, delay)
                self._stopping.wait(delay)
                continue
            self._heartbeat()
            if until_idle and not busy and self.idle():
                return
            if not busy:
                self._stopping.wait(IDLE_S)
        try:
            self.flush()
            for keys in self.shards.values():
                self._release(keys=[keys.archive + ":lock"], args=[self.token])
        except (*REDIS_ERRORS, OSError, ArrowException, ArchiveError) as exc:
            self.log.warning("unwritten_at_stop", error=f"{type(exc).__name__}: {exc}")
        heartbeat.write(self.heartbeat_file, {"stopped_at": time.time()} | self._alert_state())
        self.log.info("archiver_stopped")

    def idle(self) -> bool:
        """Nothing buffered, nothing left to expire, no shard refused, no wait (see :meth:`run`)."""
        return not self.still_pending()

    def still_pending(self) -> list[str]:
        """What keeps this archiver from being idle, in words (for :class:`ArchiverNotIdle`)."""
        pending = [f"shard {shard}: refused: {why}" for shard, why in sorted(self._refusals.items())]
        for shard, state in sorted(self._states.items()):
            pending += [f"shard {shard}: {len(state.buffer)} records buffered, not written"] if state.buffer else []
            pending += [f"shard {shard}: {len(state.to_expire)} ledgers to expire"] if state.to_expire else []
        return pending + ([f"waiting for the archive: {self._waiting}"] if self._waiting else [])

    def _turn(self, keys: ShardKeys) -> bool:
        """One turn of one shard in :meth:`run`: a shard refused is looked at again every ``backoff_max_s`` (never
        in a busy loop) while the other shards go on."""
        if time.monotonic() < self._refused_until.get(keys.shard, 0.0):
            return False
        try:
            return self.step(keys)
        except ArchiveRefused as exc:
            self._states.pop(keys.shard, None)  # resumed from the archive next time: nothing written meanwhile
            self._refused(exc)
            self._refused_until[keys.shard] = time.monotonic() + self.settings.backoff_max_s
            return False

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
            if self._waiting is None:
                self._since = time.time()
            self._waiting = why
            for shard in self.shards:
                self.metrics.waiting.labels(shard).set(1)
            self.log.warning("archive_waiting", error=why, retry_in_s=round(delay, 3))
            self._heartbeat()

    def _resumed(self) -> None:
        if self._waiting is not None:
            self.log.info("archive_resumed", waited_for=self._waiting)
            self._waiting = None
            for shard in self.shards:
                self.metrics.waiting.labels(shard).set(0)
            self._heartbeat()

    def _refused(self, exc: ArchiveRefused) -> None:
        """Stop writing the shard, loudly: once per cause (an error line), the metric, the heartbeat."""
        shard = exc.shard or "?"
        why = str(exc)
        if self._refusals.get(shard) != why:
            if not self._refusals:
                self._since = time.time()
            self._refusals[shard] = why
            self.metrics.refused.labels(shard, exc.reason).set(1)
            self.log.error("archive_refused", shard=shard, reason=exc.reason, error=why,
                           retry_in_s=self.settings.backoff_max_s)  # fmt: skip
            self._heartbeat()

    def _accepted(self, shard: str) -> None:
        if self._refusals.pop(shard, None) is not None:
            for reason in (ArchiveRefused.reason, NameTaken.reason):
                self.metrics.refused.labels(shard, reason).set(0)
            self.log.info("archive_accepted", shard=shard)
            self._heartbeat()

    def _alert_state(self) -> dict[str, Any]:
        return {"alerts": self._alerts[-10:]} if self._alerts else {}

    def _heartbeat(self, *, force: bool = False) -> None:
        """The heartbeat file: written whole when what it says changes, else touched."""
        state: dict[str, Any] = {}
        if self._refusals:
            why = "; ".join(f"shard {shard}: {why}" for shard, why in sorted(self._refusals.items()))
            state = {
                "waiting_for": f"the archive refused to write: {why}",
                "reason": "ARCHIVE_REFUSED",
                "fault": "nothing in the archive is ever written over: see the archiver's archive_refused log line "
                "and docs/archive.md (Runbooks)",
                "since": self._since,
            }
        elif self._waiting:
            state = {"waiting_for": f"the archive: {self._waiting}", "reason": "ARCHIVE", "since": self._since}
        state |= self._alert_state()
        if force or state != self._beat:
            heartbeat.write(self.heartbeat_file, state or None)
            self._beat = state
        else:
            self.heartbeat_file.touch()

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
            try:
                state = self._states[keys.shard] = self._resume(keys)
            except ArchiveRefused as exc:
                exc.shard = keys.shard
                raise
        if state.to_expire:
            self._expire(keys, state)
        settings = self.settings
        room = settings.archive_file_rows - len(state.buffer)
        rows, cursors = collect(self.client, keys, state.read_cursors, min(READ_COUNT, room))
        for row in rows:
            if state.buffer and _day(row) != _day(state.buffer[0]):  # a file never spans two days
                self._write(keys, state)
                if keys.shard not in self._states:  # the archive or the chain moved on: start over
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
            if keys.shard not in self._states:
                return True
        head = self._gauges(keys, state)
        if head.seq < state.head.seq:  # Redis's chain is behind what is archived of it: another chain
            self._chain_changed(keys, state, f"Redis's chain head is at seq {head.seq}, behind the archive's "
                                f"seq {state.head.seq} of epoch {state.epoch[:16] or '(unknown)'}")  # fmt: skip
            return True
        return bool(rows)

    def _resume(self, keys: ShardKeys) -> ShardState:
        """Where to go on from: the newest file of the chain Redis holds, or nothing (a chain the archive does not
        hold yet), never another chain's."""
        groups = epoch_runs(self.store, keys.shard)
        redis_epoch = self._redis_epoch(keys)
        chosen: str | None = None
        if redis_epoch and redis_epoch[:16] in groups:
            chosen = redis_epoch[:16]
        elif not redis_epoch or "" in groups:  # which chain Redis holds is not known: the one it continues, if any
            candidates = [""] if redis_epoch else list(groups)
            chosen = next((k for k in candidates if k in groups and self._continues(keys, groups[k])), None)
        newest = {k: newest_run(runs) for k, runs in groups.items()}
        others = {k: read_meta(self.store, run.path) for k, run in newest.items() if run is not None and k != chosen}
        run = newest.get(chosen) if chosen is not None else None
        if run is None:
            state = ShardState(Head(0, GENESIS), Cursors(), redis_epoch)
            meta = None
        else:
            meta = read_meta(self.store, run.path)
            epoch = meta.epoch or (legacy_epoch(self.store, groups[chosen]) if chosen == "" else "") or redis_epoch
            state = ShardState(Head(meta.last_seq, meta.last_hash), Cursors(**meta.cursors), epoch)
            state.kept.append((meta.last_seq, state.cursors))
        state.others = {k: m for k, m in others.items() if not state.epoch or k != state.epoch[:16]}
        known = self.client.hget(keys.archive, "events_floor")  # still safe: a floor never needs to go down
        if known:
            state.events_floor = known.decode() if isinstance(known, bytes) else str(known)
        self.log.info("archive_resumed_from", shard=keys.shard, seq=state.head.seq, file=meta.path if meta else None,
                      epoch=state.epoch or None, other_epochs=sorted(state.others) or None)  # fmt: skip
        if meta is not None:  # its tree and checkpoints first: a failure after the file may have lost them
            state.tree = self._tree(keys, state, state.epoch)
            head = self._tree_head(keys, state.epoch, state.tree) if state.tree is not None else ""
            self._ensure_checkpoint(keys, meta, head)
        said = _text(self.client.hget(keys.archive, "previous_epoch"))[:16]
        if meta is not None and state.others and said not in state.others:
            self._began(keys, state, state.epoch, {})  # its chain's first file is written, the restart not yet said
        self._progress(keys, state, file=meta.path if meta else "")
        if meta is not None:  # a stop (even SIGKILL) after writing it may have come before its ledgers expired
            state.to_expire = _finished(read_rows(self.store, meta.path, columns=["standings"]).to_pylist())
        return state

    def _redis_epoch(self, keys: ShardKeys) -> str:
        """The epoch id of the chain Redis holds: its epoch key, else its record at seq 1, else the one this
        archiver recorded in its progress; "" when none says (an empty Redis)."""
        name = getattr(keys, "audit_epoch", "") or keys.audit + ":epoch"
        try:
            found = _text(self.client.get(name))
        except redis.ResponseError as exc:  # an ACL without the grant (deploy/redis/users.acl has it): seq 1 then
            self.log.warning("epoch_key_unreadable", shard=keys.shard, key=name, error=str(exc))
            found = ""
        if EPOCH.match(found):
            return found
        first = read_range(self.client, keys.audit, count=1)
        if first:
            record = _record(first[0][1].get(AUDIT_FIELD_B))
            if record.get("seq") == 1 and EPOCH.match(str(record.get("hash", ""))):
                return str(record["hash"])
        found = _text(self.client.hget(keys.archive, "epoch"))
        if EPOCH.match(found) and self.client.get(keys.audit_head):
            return found
        return ""

    def _continues(self, keys: ShardKeys, runs: list[Any]) -> bool:
        """Whether Redis's chain continues the newest of ``runs``: its next record follows that file's last, or its
        head is that file's last record."""
        run = newest_run(runs)
        if run is None:
            return False
        meta = read_meta(self.store, run.path)
        after = meta.cursors.get("audit_id") or ""
        following = read_range(self.client, keys.audit, low=f"({after}" if after else "-", count=1)
        if following:
            record = _record(following[0][1].get(AUDIT_FIELD_B))
            return record.get("seq") == meta.last_seq + 1 and record.get("prev_hash") == meta.last_hash
        return Head.decode(cast(bytes | None, self.client.get(keys.audit_head))) == Head(meta.last_seq, meta.last_hash)

    def _chain_changed(self, keys: ShardKeys, state: ShardState, why: str) -> None:
        """The chain read does not continue what is archived of it: resume (once) from the archive and Redis as
        they are now; refused if it was just resumed."""
        if state.fresh:
            raise _refusal(keys, f"{why}: nothing is written over, and no run that does not continue its chain")
        self.log.warning("archive_chain_changed", shard=keys.shard, why=why)
        del self._states[keys.shard]

    def _write(self, keys: ShardKeys, state: ShardState) -> None:
        """Write the buffer as one file, if it continues the newest file of its chain; then checkpoint, progress,
        trim."""
        try:
            self._write_run(keys, state)
        except ArchiveRefused as exc:
            exc.shard = keys.shard
            raise
        except BaseException:
            self._write_failed = True
            raise
        self._write_failed = False

    def _write_run(self, keys: ShardKeys, state: ShardState) -> None:
        rows = state.buffer
        if not self._renew(keys=[keys.archive + ":lock"], args=[self.token, self._lease_ms]):
            self.log.warning("archive_lock_lost", shard=keys.shard)
            del self._states[keys.shard]
            return
        first, last = rows[0], rows[-1]
        record = _record(first["audit"])
        first_prev = str(record.get("prev_hash", ""))
        if (first["seq"], first_prev) != (state.head.seq + 1, state.head.hash):
            why = (
                f"the run read begins at seq {first['seq']} (prev_hash {first_prev[:16]}), the archive of epoch "
                f"{state.epoch[:16] or '(none yet)'} ends at seq {state.head.seq} (hash {state.head.hash[:16]})"
            )
            self._chain_changed(keys, state, why)
            return
        gap = next((i for i in range(1, len(rows)) if rows[i]["seq"] != rows[i - 1]["seq"] + 1), None)
        if gap is not None:
            why = f"the run read jumps from seq {rows[gap - 1]['seq']} to seq {rows[gap]['seq']}"
            self._chain_changed(keys, state, why)
            return
        epoch = state.epoch
        if state.head.seq == 0:  # the chain's first file: its record at seq 1 is its epoch
            began = str(record.get("hash", ""))
            if epoch and began != epoch:
                self._chain_changed(keys, state, f"Redis says epoch {epoch[:16]}, its record at seq 1 is {began[:16]}")
                return
            epoch = began
        newest = newest_file(self.store, keys.shard, epoch)
        if newest is not None and newest.last_seq > state.head.seq:  # another archiver wrote meanwhile: start over
            self._moved_on[keys.shard] = self._moved_on.get(keys.shard, 0) + 1
            if self._moved_on[keys.shard] > MOVED_ON_MAX:
                why = (
                    f"the archive of epoch {epoch[:16]} moved on to seq {newest.last_seq} under this archiver "
                    f"{MOVED_ON_MAX} times in a row (another archiver writing the shard?)"
                )
                raise _refusal(keys, why)
            self.log.warning("archive_moved_on", shard=keys.shard, expected=state.head.seq, found=newest.last_seq)
            del self._states[keys.shard]
            return
        if ((newest.last_seq, newest.last_hash) if newest else (0, GENESIS)) != tuple(state.head):
            ends = f"seq {newest.last_seq} (hash {newest.last_hash[:16]})" if newest else "nothing"
            raise _refusal(keys, f"the archive's newest file of epoch {epoch[:16]} ends at {ends}, not at seq "
                           f"{state.head.seq} (hash {state.head.hash[:16]}) which this run continues")  # fmt: skip
        last_hash = str(_record(last["audit"]).get("hash", ""))
        meta = {
            "shard": keys.shard,
            "epoch": epoch,
            "first_seq": str(first["seq"]),
            "last_seq": str(last["seq"]),
            "first_prev_hash": first_prev,
            "last_hash": last_hash,
            "rows": str(len(rows)),
            **state.read_cursors.as_meta(),
            "archiver": self.token,
            "written_at": _now(),
        }
        base = self._tree(keys, state, epoch)
        added = [leaf_hash(record_leaf(str(row["audit"]))) for row in rows] if base is not None else []
        tree = base.extend(added) if base is not None else None
        table = pa.table({name: [row.get(name) for row in rows] for name in SCHEMA.names}, schema=SCHEMA)
        data = encode_file(table, meta)
        name = file_name(keys.shard, first["seq"], last["seq"], epoch)
        relative = f"shard={keys.shard}/day={_day(first)}/{name}"
        # said before the file exists: an online audit between the file and its progress (a checkpoint copy waited
        # for) sees a file the archiver is writing, not a tail past its progress (``beyond_progress``)
        self.client.hset(keys.archive, mapping={"writing": last["seq"], "writing_epoch": epoch})
        put_file(self.store, self.store.path(relative), data)
        if state.head.seq == 0:
            self._began(keys, state, epoch, first)
        state.epoch, state.fresh = epoch, False
        self._moved_on[keys.shard] = 0
        head = self._tree_head(keys, epoch, tree, added) if tree is not None else ""
        if self._signing_key is not None:
            self._checkpoint(keys, epoch, first["seq"], last["seq"], last_hash, relative, data, head)
        state.head = Head(int(last["seq"]), last_hash)
        state.tree = tree
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
        self._accepted(keys.shard)
        self._expire(keys, state)

    def _began(self, keys: ShardKeys, state: ShardState, epoch: str, first: dict[str, Any]) -> None:
        """A chain's first file is written: if the archive holds another chain of the shard, say the chain
        restarted (how far the old one was archived, its lost tail where known), in the log, a metric, the
        heartbeat and the shard's progress hash."""
        others = {k: m for k, m in state.others.items() if k != epoch[:16]}
        if not others:
            return
        old_key, old = max(others.items(), key=lambda item: (item[1].written_at, item[1].last_seq))
        old_epoch = old.epoch or old_key
        seen = self._redis_heads.get(keys.shard)
        if seen is not None and seen[0][:16] == old_epoch[:16]:
            tail = seen[1] - old.last_seq
            lost = f"seq {old.last_seq + 1}-{seen[1]} ({tail} entries)" if tail > 0 else "none"
        else:
            lost = "unknown"
        began_at = str(first.get("settled_at") or "")
        message = (f"the chain restarted: epoch {old_epoch[:16]} archived to seq {old.last_seq}, epoch {epoch[:16]} "
                   f"began at {began_at or 'an unknown time'}; the old epoch's entries after seq {old.last_seq} "
                   f"(lost with Redis): {lost}")  # fmt: skip
        self.log.error("archive_chain_restarted", shard=keys.shard, old_epoch=old_epoch, archived_to=old.last_seq,
                       new_epoch=epoch, began_at=began_at, lost_tail=lost)  # fmt: skip
        self.metrics.chain_restarts.labels(keys.shard).inc()
        self._alerts.append(f"shard {keys.shard}: {message}")
        self.client.hset(keys.archive, mapping={"previous_epoch": old_epoch, "previous_epoch_seq": old.last_seq,
                                                "previous_epoch_lost": lost, "epoch_began_at": began_at,
                                                "epoch": epoch})  # fmt: skip
        self._heartbeat()
        self._boundary(keys, old_epoch, old.last_seq, epoch)

    def _boundary(self, keys: ShardKeys, old_epoch: str, old_size: int, epoch: str) -> None:
        """With a signing key, sign and keep (write-once) that the old chain, archived to ``old_size``, was followed
        by ``epoch``: its root there from the kept tree (:func:`.tlog.boundary_text`)."""
        if self._signer is None:
            return
        try:
            root = tlog.tree_at(self.store, keys.shard, old_epoch, old_size).root()
        except tlog.LogGap as exc:
            self.log.warning("epoch_boundary_unsigned", shard=keys.shard, old_epoch=old_epoch[:16], why=str(exc))
            return
        room = self.settings.archive_log_name
        ended = Checkpoint(tlog.origin(room, keys.shard, old_epoch), old_size, root)
        note = sign_note(tlog.boundary_text(room, keys.shard, ended, epoch), self._signer)
        tlog.write_boundary(self.store, keys.shard, epoch, note)

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

    def _tree(self, keys: ShardKeys, state: ShardState, epoch: str) -> CompactRange | None:
        """The chain's tree at the archive's head: kept in memory, else read back (:func:`.tlog.tree_at`); None
        for a chain whose files do not hold its run from seq 1 (said once: its files are archived all the same)."""
        if state.tree is not None and state.tree.size == state.head.seq:
            return state.tree
        if not state.head.seq:
            return CompactRange()
        if state.tree_gap:
            return None
        try:
            return tlog.tree_at(self.store, keys.shard, epoch, state.head.seq)
        except tlog.LogGap as exc:
            state.tree_gap = str(exc)
            self.log.warning("merkle_log_unavailable", shard=keys.shard, epoch=epoch[:16], why=state.tree_gap)
            return None

    def _tree_head(self, keys: ShardKeys, epoch: str, tree: CompactRange, added: list[bytes] | None = None) -> str:
        """Keep the tree beside the archive (its tiles grown by the leaf hashes ``added``, then its compact range)
        and, with a signing key, write its signed tree head under ``checkpoints/`` (all write-once; what a SIGKILL
        left is kept): returns the head ("" unsigned)."""
        added = added or []
        try:
            tlog.keep_tiles(self.store, keys.shard, epoch, tree.size - len(added), added)
        except tlog.LogGap as exc:  # a kept tree over files that no longer hold its leaves: proofs cannot be made
            self.log.warning("merkle_tiles_unavailable", shard=keys.shard, epoch=epoch[:16], why=str(exc))
        tlog.keep_tree(self.store, keys.shard, epoch, tree)
        if self._signer is None:
            return ""
        note = tlog.sign_head(self.settings.archive_log_name, keys.shard, epoch, tree, self._signer)
        note = tlog.write_head(self.store, keys.shard, epoch, tree.size, note)
        self._timestamp(keys, epoch, tree.size, note)
        return note

    def _timestamp(self, keys: ShardKeys, epoch: str, size: int, note: str) -> None:
        """With a timestamp authority configured, keep its RFC 3161 timestamp of the signed head beside it (once:
        a head that has one is not stamped again). An authority that fails is logged: archiving goes on."""
        url, command = self.settings.archive_tsa_url, self.settings.archive_tsa_command
        if not (url or command) or tlog.read_timestamp(self.store, keys.shard, epoch, size) is not None:
            return
        try:
            response = timestamps.stamp(note.encode("utf-8"), url=url, command=command)
            tlog.keep_timestamp(self.store, keys.shard, epoch, size, response)
        except timestamps.TimestampError as exc:
            self.log.warning("tree_head_not_timestamped", shard=keys.shard, epoch=epoch[:16], size=size, why=str(exc))
        except NameTaken:
            pass  # another archiver's timestamp of the same head, kept first

    def _checkpoint(  # noqa: PLR0917 - the run a file holds, as _write has it
        self,
        keys: ShardKeys,
        epoch: str,
        first: int,
        last: int,
        last_hash: str,
        relative: str,
        data: bytes,
        tree_head: str = "",
    ) -> None:
        """Sign the file's checkpoint (with the chain's signed tree head at its last seq, ``tree_head``), write it
        into the archive (once) and append it to the copy: before the file's progress is recorded. A failure
        raises: the archiver waits, and on resuming writes it first."""
        assert self._signing_key is not None
        fields: dict[str, Any] = {
            "shard": keys.shard,
            "first_seq": first,
            "last_seq": last,
            "last_hash": last_hash,
            "file": relative,
            "sha256": hashlib.sha256(data).hexdigest(),
            "signed_at": _now(),
        }
        if epoch:
            fields["epoch"] = epoch
        if tree_head:
            fields["tree_head"] = tree_head
        line = orjson.dumps(sign(self._signing_key, fields), option=orjson.OPT_SORT_KEYS) + b"\n"
        put_file(self.store, self.store.path(*checkpoint_path(keys.shard, last, epoch)), line)
        copy = self.settings.archive_checkpoints_copy
        if copy is not None:
            append_copy(copy, line)

    def _ensure_checkpoint(self, keys: ShardKeys, meta: FileMeta, tree_head: str = "") -> None:
        """The newest file's checkpoint, in the archive and in the copy, written now if a failure lost it."""
        if self._signing_key is None:
            return
        relative = meta.path.removeprefix(self.store.root.rstrip("/") + "/") if self.store.root else meta.path
        path = self.store.path(*checkpoint_path(keys.shard, meta.last_seq, meta.epoch))
        try:
            with self.store.fs.open_input_stream(path) as handle:
                line = bytes(handle.read())
        except FileNotFoundError:
            line = b""
        copy = self.settings.archive_checkpoints_copy
        if line:
            sha256 = str(orjson.loads(line).get("sha256", ""))
            if copy is not None and not copy_holds(copy, relative, sha256):
                append_copy(copy, line)
                self.log.info("checkpoint_copied_again", shard=keys.shard, file=relative)
            return
        with self.store.fs.open_input_stream(meta.path) as handle:
            data = bytes(handle.read())
        self._checkpoint(keys, meta.epoch, meta.first_seq, meta.last_seq, meta.last_hash, relative, data, tree_head)
        self.log.info("checkpoint_written_again", shard=keys.shard, file=relative)

    def _progress(self, keys: ShardKeys, state: ShardState, *, file: str) -> None:
        """Record in Redis how far the archive goes, and how far the events stream may be trimmed."""
        fields: dict[Any, Any] = {
            "seq": state.head.seq,
            "hash": state.head.hash,
            **state.cursors.as_meta(),
            "file": file,
            "updated_at": time.time(),
            "archiver": self.token,
            "epoch": state.epoch,
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
                self.client.xtrim(stream, minid=next_entry_id(last_id), approximate=False)
        return seq

    def _gauges(self, keys: ShardKeys, state: ShardState) -> Head:
        """Set the lag gauges; returns Redis's chain head."""
        head = Head.decode(cast(bytes | None, self.client.get(keys.audit_head)))
        if state.epoch and head.seq >= state.head.seq:
            self._redis_heads[keys.shard] = (state.epoch, head.seq)
        behind = max(0, head.seq - state.head.seq)
        self.metrics.lag_entries.labels(keys.shard).set(behind)
        age = 0.0
        if state.buffer:
            age = _age(state.buffer[0].get("settled_at"))
        elif behind:
            after = f"({state.read_cursors.audit_id}" if state.read_cursors.audit_id else "-"
            nxt = read_range(self.client, keys.audit, low=after, count=1)
            if nxt:
                age = _age(orjson.loads(nxt[0][1][AUDIT_FIELD_B]).get("at"))
        self.metrics.lag_seconds.labels(keys.shard).set(age)
        return head


def _refusal(keys: ShardKeys, why: str) -> ArchiveRefused:
    refused = ArchiveRefused(f"shard {keys.shard}: {why}")
    refused.shard = keys.shard
    return refused


def _record(text: Any) -> dict[str, Any]:
    """An audit record's text as a dict ({} if it is none)."""
    try:
        record = orjson.loads(text or "null")
    except orjson.JSONDecodeError:
        return {}
    return record if isinstance(record, dict) else {}


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else "" if value is None else str(value)


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
