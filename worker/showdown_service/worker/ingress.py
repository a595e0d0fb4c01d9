"""The producers' append-only path: each shard's inbox list, moved into its events stream by the workers.

Why a list: an ACL cannot limit XADD's arguments, so a user that may XADD to
a stream may also trim it (``XADD ... MAXLEN 1``, ``MINID``) or wedge it (an
explicit id ``18446744073709551615-18446744073709551615`` refuses every later
XADD), and a Redis Function runs its XADD under its caller's ACL. A user
granted ``RPUSH`` alone, on one exact list key per shard, can only append.

The protocol (docs/producers.md; :func:`showdown_messages.publish.publish`):
``RPUSH <prefix>:{<shard>}:inbox <element> ...``, one element per message:
``event <ShowdownEvent JSON>`` or ``tournament <message JSON>``; any other
element is taken whole as an event (a bare event JSON works) and refused
with its bytes as a dead letter if it is none.

:data:`MOVE_LUA` moves up to ``n`` elements, in list order, into the events
stream: it reads them (``LRANGE``), XADDs each with a ``*`` id, and only then
removes exactly those it added (``LTRIM``). A script runs whole or not at
all, so a worker killed at any point neither loses nor duplicates an
element; should an XADD fail inside it (memory full), the elements from it
on stay in the list for the next move, and the error is raised to the worker
like any other refused write. Order is the list's: a tournament's messages
keep the order they were pushed in.

An idle worker waits on its events streams (a blocking ``XREADGROUP``),
which any XADD wakes: an entry XADDed to the stream directly (``dead-letters
--requeue``, a backlog left after an outage, a test harness) is read at once.
Meanwhile a thread of its own waits on the inboxes (``BLMOVE inbox inbox
LEFT LEFT``: a blocking look that leaves the list as it was) and moves a
push into its stream as it comes, whose XADD wakes the read: a push wakes
the worker at once too. Before, the idle worker waited on the inbox alone,
and an entry XADDed to a stream waited out ``SHOWDOWN_BLOCK_MS`` each time
the worker had caught up (issue 41: such entries settled at about half the
inbox's rate).

:func:`deleted_unread` watches for unread entries deleted anyway (an admin's
XTRIM or XDEL): XINFO STREAM's ``max-deleted-entry-id`` above the group's
``last-delivered-id``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any

import redis
from redis.cluster import RedisCluster

from showdown_messages.protocol import entry_order
from showdown_service.infra.config import ShardKeys
from showdown_service.infra.connection import Client

MOVE_LUA = """
local inbox, events, n = KEYS[1], KEYS[2], tonumber(ARGV[1])
local elements = redis.call('LRANGE', inbox, 0, n - 1)
local moved = 0
local failed = ''
for _, element in ipairs(elements) do
  local field, body = 'event', element
  if string.sub(element, 1, 6) == 'event ' then
    body = string.sub(element, 7)
  elseif string.sub(element, 1, 11) == 'tournament ' then
    field, body = 'tournament', string.sub(element, 12)
  end
  local added = redis.pcall('XADD', events, '*', field, body)
  if type(added) == 'table' and added.err then
    failed = added.err
    break
  end
  moved = moved + 1
end
if moved > 0 then
  redis.call('LTRIM', inbox, moved, -1)
end
return {moved, failed}
"""
"""KEYS: the shard's inbox, its events stream; ARGV: how many elements to move at most. Returns ``{moved, error}``
(``error`` empty, or the first XADD's refusal: the elements from that one on stay in the inbox)."""

IDLE_SHARD_BLOCK_MS = 50
"""With several shards, how long (ms) the watcher waits on one shard's inbox before it waits on the next (in turn);
on a cluster, how long an idle worker waits on one shard's stream before the next's (see
:meth:`~showdown_service.worker.io.IOPipeline.read`)."""


class InboxMoveFailed(redis.ResponseError):
    """An XADD inside the move was refused (its elements stay in the inbox): the server's own error text."""


class Ingress:
    """Moves each shard's inbox into its events stream: queued before every read, and the wait of an idle worker."""

    def __init__(self, client: Client, shards: Iterable[ShardKeys], *, count: int) -> None:
        self.client = client
        self.shards = list(shards)
        self.count = count
        """Elements moved per shard per read (the batch size: the read that follows takes as many)."""
        self._script = client.register_script(MOVE_LUA)
        self._next = 0
        self.moved = 0
        """Elements moved so far (for tests and logs)."""
        self._lock = threading.Lock()
        """Guards the watcher's state (and ``moved``: the watcher's thread moves too)."""
        self._idle = False
        """The worker waits on its streams: the watcher waits on the inboxes (see :meth:`watching`)."""
        self._watcher: threading.Thread | None = None
        self._refused: redis.RedisError | None = None
        """The refusal that ended the watcher (a write refused: OOM, READONLY, ...): raised by the next
        :meth:`check`, so the worker waits for it as for any refusal of its own, never silently. A lost connection
        is not kept: it may be over by then, and the worker's own next command meets any that is not."""

    @property
    def replies(self) -> int:
        """How many replies :meth:`queue` adds to a pipeline."""
        return len(self.shards)

    def queue(self, pipe: Any) -> None:
        """Add the move of every shard's inbox to ``pipe`` (before its reads: they see what was moved)."""
        for keys in self.shards:
            pipe.execute_command("EVALSHA", self._script.sha, 2, keys.inbox, keys.events, self.count)

    def check(self, replies: Sequence[Any]) -> None:
        """Read the replies of :meth:`queue`: load the script where a node lacked it (and move then); raise a
        refused move (the worker waits as for any refused write: nothing was lost, the elements stay), or what
        ended the watcher's wait (its BLMOVE is a write: memory full refuses it while the worker's reads go on)."""
        with self._lock:
            refused, self._refused = self._refused, None
        if refused is not None:
            raise refused
        for keys, reply in zip(self.shards, replies, strict=True):
            if isinstance(reply, redis.exceptions.NoScriptError):  # a restart without persistence, a failover
                reply = self._script(keys=[keys.inbox, keys.events], args=[self.count])  # noqa: PLW2901 - loads it
            elif isinstance(reply, Exception):
                raise reply
            moved, failed = int(reply[0]), reply[1]
            with self._lock:
                self.moved += moved
            if failed:
                text = failed.decode(errors="replace") if isinstance(failed, bytes) else str(failed)
                raise InboxMoveFailed(text)

    def move(self) -> int:
        """Move every shard's inbox now (one pipeline); how many elements moved."""
        before = self.moved
        pipe = self.client.pipeline(transaction=False)
        self.queue(pipe)
        self.check(pipe.execute(raise_on_error=False))
        return self.moved - before

    def watching(self, block_ms: int) -> AbstractContextManager[None]:
        """While the worker waits on its streams (a blocking XREADGROUP, which an XADD wakes), a thread of this
        ingress waits on the inboxes and moves each push into its stream as it comes (:meth:`_watch`): that
        move's XADD wakes the read. So an idle worker wakes at once for either path, a push to an inbox or an
        entry XADDed straight to the stream (``dead-letters --requeue``, a backlog left after an outage)."""
        return _Watching(self, block_ms)

    def _start_watching(self, block_ms: int) -> None:
        with self._lock:
            self._idle = True
            if self._watcher is not None or not self.shards:  # one watcher at most: the one still waiting goes on
                return
            self._watcher = threading.Thread(target=self._watch, args=(block_ms,), name="inbox-watch", daemon=True)
            self._watcher.start()

    def _stop_watching(self) -> None:
        with self._lock:
            self._idle = False  # the watcher ends once its wait in hand answers (a push, or its timeout)

    def stop(self, timeout_s: float = 5.0) -> None:
        """The worker stops: the watcher ends with its wait in hand (``block_ms`` at most), waited for here, so a
        stopped worker leaves no command of its own running on Redis."""
        self._stop_watching()
        with self._lock:
            watcher = self._watcher
        if watcher is not None:
            watcher.join(timeout_s)

    def _watch(self, block_ms: int) -> None:
        """(The watcher's thread) While the worker is idle: wait up to ``block_ms`` for a push to an inbox (one
        shard's at a time, in turn, when there are several), leaving the list as it was (``BLMOVE inbox inbox LEFT
        LEFT`` takes its first element and puts it back), and move every inbox once one came. A refused move or a
        lost connection ends it; the worker's next :meth:`check` raises a refusal: the worker waits as for any."""
        timeout_s = (block_ms or 1000) / 1000
        if len(self.shards) > 1 or isinstance(self.client, RedisCluster):
            timeout_s = min(timeout_s, IDLE_SHARD_BLOCK_MS / 1000)
        try:
            while True:
                with self._lock:
                    if not self._idle:
                        self._watcher = None
                        return
                    keys = self.shards[self._next % len(self.shards)]
                    self._next += 1
                if self.client.blmove(keys.inbox, keys.inbox, timeout_s, "LEFT", "LEFT") is not None:  # type: ignore[arg-type]  # s
                    self.move()
        except Exception as exc:  # the thread must never die with an exception nobody sees
            # A refusal is raised by the worker's next check. Anything else is a lost connection, including redis-py's
            # own TypeError when the client is closed under a blocking call (its socket is None, seen in CI): the
            # worker's loop meets a lost connection itself on its next command, and starts a new watcher.
            with self._lock:
                self._watcher = None
                if isinstance(exc, redis.ResponseError):
                    self._refused = exc


class _Watching:
    """:meth:`Ingress.watching`'s context: the watcher waits on the inboxes for as long as the worker waits."""

    def __init__(self, ingress: Ingress, block_ms: int) -> None:
        self.ingress, self.block_ms = ingress, block_ms

    def __enter__(self) -> None:
        self.ingress._start_watching(self.block_ms)

    def __exit__(self, *exc: object) -> None:
        self.ingress._stop_watching()


def deleted_unread(client: Client, keys: ShardKeys, group: str) -> tuple[str, str] | None:
    """``(what was deleted, last-delivered-id)`` when entries the group had not read yet were deleted from the shard's
    events stream; None otherwise, or before the group exists. The workers trim only below what every group has read
    and acked, so this is always someone else.

    Two traces, both in XINFO: an XDEL leaves ``max-deleted-entry-id`` above the group's ``last-delivered-id``; an
    XTRIM (or XADD with MAXLEN/MINID) past it leaves the stream's first entry above ``last-delivered-id`` with fewer
    entries than were added and not yet read (``entries-added`` - the group's ``entries-read`` > ``length``).
    """
    try:
        stream: dict[str, Any] = client.xinfo_stream(keys.events)
        groups: list[dict[str, Any]] = client.xinfo_groups(keys.events)
    except redis.ResponseError as exc:
        if "no such key" in str(exc).lower():
            return None
        raise
    ours = next((g for g in groups if _text(g["name"]) == group), None)
    if ours is None:
        return None
    delivered = _text(ours["last-delivered-id"])
    deleted = stream.get("max-deleted-entry-id")
    if deleted is not None and entry_order(deleted) > entry_order(delivered):
        return f"max-deleted-entry-id {_text(deleted)}", delivered
    first = stream.get("recorded-first-entry-id")
    added, length, read = stream.get("entries-added"), stream.get("length"), ours.get("entries-read")
    if read is None and entry_order(delivered) == (0, 0):
        read = 0  # a group that never read anything has read nothing
    if added is None or length is None or read is None:
        return None  # the group's entries-read is unknown (XDEL fragments): only the XDEL trace above tells
    missing = int(added) - int(read) - int(length)
    if missing > 0 and (int(length) == 0 or (first is not None and entry_order(first) > entry_order(delivered))):
        return f"{missing} unread entries trimmed (first entry now {_text(first or '0-0')})", delivered
    return None


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
