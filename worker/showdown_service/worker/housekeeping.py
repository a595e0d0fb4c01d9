"""The worker's housekeeping: the heartbeat `showdown health` reads, trimming the events stream, gauges, and what
the worker waits for while Redis refuses it (one line when that changes, the gauges, the heartbeat).

A part of the worker (:mod:`showdown_service.worker.loop`) composed over its state: it reads the shared
:class:`~showdown_service.worker.state.WorkerState` and keeps its own schedule (the last beat, the next trim and
gauges) and what the worker waits for."""

from __future__ import annotations

from typing import Any, cast

from showdown_messages.protocol import entry_order
from showdown_messages.publish import Refusal, refusal
from showdown_service.infra.config import ShardKeys
from showdown_service.ops import heartbeat
from showdown_service.ops.sampling import Sampler
from showdown_service.worker.ingress import deleted_unread
from showdown_service.worker.restore import ArchiveUnreadable
from showdown_service.worker.state import ROUTINE_WAITS, Part, WorkerState, fault_action


class Housekeeping(Part):
    """Heartbeat, trim, gauges: what the loop does between batches; the wait on Redis, reported."""

    def __init__(self, state: WorkerState) -> None:
        super().__init__(state)
        self.clock = state.clock
        """What its schedule (beats, trims, gauges) and its wait reports read."""
        self.sampler = Sampler(state.client, state.shards, state.metrics, state.log)
        """Stream lengths and Redis memory, sampled with the pending and lag gauges."""
        self.last_beat = 0.0
        self.next_trim = 0.0
        self.next_gauges = 0.0
        self._deleted_seen: dict[str, str] = {}
        """Per shard: the deletion of unread entries last reported (each reported once)."""
        self._alerts: list[str] = []
        """Past faults the heartbeat keeps for `showdown health` (unread events deleted), newest last."""
        self._waiting: Refusal | None = None
        """What Redis refuses (or that it does not answer) while this worker waits; None while it works."""
        self._waiting_since = 0.0
        """clock.time() when the wait began."""

    def tick(self) -> None:
        """What is due between batches: the heartbeat, the trim, the gauges (each on its schedule)."""
        now = self.clock.monotonic()
        if now - self.last_beat >= heartbeat.BEAT_INTERVAL_S:
            self.beat()
        if now >= self.next_trim:
            self.next_trim = now + self.settings.trim_interval_s
            for keys in self.state.shards.values():
                self.trim(keys)
        if now >= self.next_gauges:
            self.next_gauges = now + 5.0
            self.refresh_gauges()
            self.sampler.sample()

    def beat(self) -> None:
        """Touch the heartbeat file that `showdown health` reads."""
        self.last_beat = self.clock.monotonic()
        self.settings.heartbeat_file.touch()
        self.metrics.heartbeat.set_to_current_time()

    def write_heartbeat(self) -> None:
        """Write the heartbeat file (see :mod:`showdown_service.ops.heartbeat`): empty while working; what the worker
        waits for, as JSON, while waiting."""
        state: dict[str, Any] = {"alerts": self._alerts} if self._alerts else {}
        if self._waiting is not None:
            state |= {"waiting_for": self._waiting.reason, "reason": self._waiting.code, "since": self._waiting_since}
            if self._waiting.code not in ROUTINE_WAITS:
                state["fault"] = fault_action(self._waiting.code)
        heartbeat.write(self.settings.heartbeat_file, state)
        self.last_beat = self.clock.monotonic()
        self.metrics.heartbeat.set_to_current_time()

    def trim(self, keys: ShardKeys) -> str | None:
        """Trim the events stream below every group's oldest pending or unread entry; returns the MINID used.

        Never removes an entry that some group has not read, or has read but
        not acked, nor (once an archiver has registered for the shard) one it has not archived: its
        ``events_floor`` (see :mod:`showdown_service.archive.archiver`).
        """
        floor: tuple[int, int] | None = None
        for group in self.client.xinfo_groups(keys.events):
            name = group["name"]
            low = group["last-delivered-id"]
            if group["pending"]:
                oldest = self.client.xpending(keys.events, name)["min"]
                if oldest is not None:  # None: the commit in flight acked them since XINFO answered
                    low = min(low, oldest, key=entry_order)
            floor = entry_order(low) if floor is None else min(floor, entry_order(low))
        archived = cast(bytes | None, self.client.hget(keys.archive, "events_floor"))
        archives = self.state._archived
        if keys.shard not in archives and archived is None:
            self.log.info("unarchived", shard=keys.shard, grows="audit, results, dead letters, standings",
                          hint="run `showdown archiver`: it archives every entry and bounds these streams")  # fmt: skip
        archives[keys.shard] = archived is not None
        if archived is not None and floor is not None:  # an archiver reads them: keep what it has not archived
            floor = min(floor, entry_order(archived))
        if floor is None or floor == (0, 0):
            return None
        minid = f"{floor[0]}-{floor[1]}"
        self.client.xtrim(keys.events, minid=minid, approximate=True)
        return minid

    def watch_deleted(self, keys: ShardKeys) -> None:
        """Report (once each: ERROR line, counter, heartbeat alert) unread entries deleted from the shard's stream."""
        found = deleted_unread(self.client, keys, self.settings.group)
        if found is None or self._deleted_seen.get(keys.shard) == found[0]:
            return
        self._deleted_seen[keys.shard] = found[0]
        self.metrics.deleted_unread.labels(keys.shard).inc()
        self.log.error("events_deleted_unread", shard=keys.shard, deleted=found[0], last_delivered_id=found[1],
                       stream=keys.events)  # fmt: skip
        self._alerts = [*self._alerts[-9:], f"shard {keys.shard}: unread events were deleted from {keys.events} "
                        f"({found[0]}, above the group's last-delivered-id {found[1]}): "
                        "they are lost unless their producers send them again"]  # fmt: skip
        self.write_heartbeat()

    def refresh_gauges(self) -> None:
        """The pending and lag gauges of every shard; unread entries deleted, reported."""
        for keys in self.state.shards.values():
            self.watch_deleted(keys)
            for group in self.client.xinfo_groups(keys.events):
                if group["name"].decode() == self.settings.group:
                    self.metrics.pending.labels(keys.shard).set(group["pending"])
                    if group.get("lag") is not None:
                        self.metrics.lag.labels(keys.shard).set(group["lag"])

    def wait_for(self, exc: Exception, *, attempt: int, retry_in_s: float) -> None:
        """Record a failed attempt: one log line when what the worker waits for changes, DEBUG for each retry.

        The entries in hand stay pending and nothing is counted against
        them: they are settled once Redis takes writes again.
        """
        why = exc.refusal if isinstance(exc, ArchiveUnreadable) else refusal(exc)
        error = f"{type(exc).__name__}: {exc}"
        if why.code == "UNBLOCKED":  # a blocked read ended by a role change: the next attempt says what to wait for
            self.log.debug("redis_retry", reason=why.code, attempt=attempt, error=error, retry_in_s=retry_in_s)
            return
        if why != self._waiting:
            if self._waiting is None:
                self._waiting_since = self.clock.time()
            else:
                self.metrics.waiting.labels(self._waiting.code).set(0)
                self.metrics.faults.labels(self._waiting.code).set(0)
            self._waiting = why
            self.metrics.waiting.labels(why.code).set(1)
            if why.code in ROUTINE_WAITS:
                self.log.warning("redis_unavailable", reason=why.code, waiting_for=why.reason, error=error,
                                 retry_in_s=retry_in_s)  # fmt: skip
            else:  # a fault: retried, but it will not go away by itself
                self.metrics.faults.labels(why.code).set(1)
                self.log.error("redis_unavailable", reason=why.code, waiting_for=why.reason, error=error,
                               retry_in_s=retry_in_s, fault=True, action=fault_action(why.code))  # fmt: skip
            self.write_heartbeat()
        else:
            self.log.debug("redis_retry", reason=why.code, attempt=attempt, error=error, retry_in_s=retry_in_s)
            self.beat()  # waiting is working: `showdown health` reports the wait, not a stale heartbeat

    def resume(self) -> None:
        """Redis took this worker's writes again (or it has none to make): end the wait, say so once."""
        if self._waiting is None:
            return
        why, self._waiting = self._waiting, None
        self.metrics.waiting.labels(why.code).set(0)
        self.metrics.faults.labels(why.code).set(0)
        self.log.info(
            "redis_resumed",
            reason=why.code,
            waited_for=why.reason,
            waited_s=round(self.clock.time() - self._waiting_since, 3),
        )
        self.write_heartbeat()

    @property
    def waiting_for(self) -> Refusal | None:
        """What the worker waits for (``Refusal('OOM', 'Redis refuses writes: OOM (...)')``), or None while it works."""
        return self._waiting
