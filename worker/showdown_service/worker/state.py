"""What every part of a :class:`~showdown_service.worker.loop.Worker` shares: its settings, client, clock and state.

The worker (:mod:`showdown_service.worker.loop`) is a :class:`WorkerState` that builds a part per job, each an object
given this state (and what else it calls, as a function) in its constructor: consumer-group plumbing and claims
(:mod:`showdown_service.worker.groups`), the I/O pipeline (:mod:`showdown_service.worker.io`), planning
(:mod:`showdown_service.worker.planning`) and housekeeping (:mod:`showdown_service.worker.housekeeping`). No part
calls another through the state: the loop ties them (it commits what planning plans, settles what the pipeline
answers). What one part alone needs stays in that part (housekeeping's schedule, the pipeline's streams, planning's
router); the state holds what several share: the chain heads and ledgers, the scripts, the clock.
"""

from __future__ import annotations

import threading

from redis.cluster import RedisCluster

from showdown_core.tournament import Book
from showdown_service.decision.audit import Head
from showdown_service.decision.rake_schedules import schedules_in
from showdown_service.infra.backoff import Backoff
from showdown_service.infra.clock import SYSTEM_CLOCK, Clock
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import Client, keep_repeated_fields, run_watch
from showdown_service.infra.logs import get_logger
from showdown_service.infra.streams import Row
from showdown_service.ops.metrics import Metrics
from showdown_service.worker.commit import COMMIT_LUA
from showdown_service.worker.funds import LOAD_LUA as FUND_LUA
from showdown_service.worker.ingress import Ingress
from showdown_service.worker.ledger import LOAD_LUA

Entry = Row
"""(entry id, fields or None for a deleted entry)."""

ROUTINE_WAITS = frozenset(
    {"OOM", "READONLY", "NOREPLICAS", "MISCONF", "MASTERDOWN", "BUSY", "LOADING", "UNREACHABLE", "TIMEOUT"}
    | {"CLUSTERDOWN", "TRYAGAIN", "MOVED", "ASK", "TTL"}  # Redis Cluster: a failover, a slot being migrated
)
"""Reasons to wait that are the server's state, logged as warnings; any other (NOPERM, a script error) is an error."""
FAULT_ACTIONS = {
    "WRONGTYPE": "a key of the shard holds another type than the worker writes (a stream, hash or string written by "
    "another client): find it (TYPE of the shard's showdown:{<shard>}:* keys named in the batch), rename it away; "
    "the worker then goes on",
    "NOPERM": "the worker's Redis user lacks a grant: load deploy/redis/users.acl as shipped (or as "
    "`showdown acl` writes it for your shards)",
    "ARCHIVE": "the shard's chain is empty and the archive holding its old chain cannot be read: make "
    "SHOWDOWN_ARCHIVE_URL readable (its credentials, its server); the worker restores the dedupe from it, then "
    "settles (docs/durability.md)",
}
"""What an operator must do about an error that does not go away by itself (any reason not in ROUTINE_WAITS)."""


def fault_action(code: str) -> str:
    """What an operator must do about the fault ``code`` (:data:`FAULT_ACTIONS`)."""
    return FAULT_ACTIONS.get(code, "an operator must look: see the worker's redis_unavailable error line")


class WorkerState:
    """One consumer of the group, serving one or more shards: the state its parts share."""

    def __init__(
        self, settings: Settings, client: Client, *, metrics: Metrics | None = None, clock: Clock = SYSTEM_CLOCK
    ) -> None:
        self.settings = settings
        self.clock = clock
        """What the loop's schedules (claims, heartbeats, trims, gauges, order waits) and its wait reports read."""
        self.rake_schedules = schedules_in(settings.rake_schedules_dir)
        """The rake schedules an event may name: read once, at start (a file that is no schedule stops it)."""
        self.backoff = Backoff(settings.backoff_max_s)
        """How long the loop waits after each failed attempt while Redis is down (:mod:`.infra.backoff`)."""
        self.client = client
        keep_repeated_fields(client)  # a field given twice in an entry is refused, not read on its last value
        self._runs = run_watch(client)
        """Each server's run id, read as each connection opens (a client of ``connect(..., watch=True)``): a restarted
        server is an error, never ridden over."""
        self._restarts_seen = self._runs.restarts
        self.cluster = isinstance(client, RedisCluster)
        """Redis Cluster: every shard is read with a command of its own, on the node holding it."""
        self.metrics = metrics or Metrics()
        self.shards = {shard: settings.keys(shard) for shard in settings.shards}
        self._commit_script = client.register_script(COMMIT_LUA)
        self._load_script = client.register_script(LOAD_LUA)
        self._fund_script = client.register_script(FUND_LUA)
        """Reads jackpot funds with the audit head (:mod:`showdown_service.worker.funds`)."""
        self.ingress = Ingress(client, self.shards.values(), count=settings.batch_size)
        """Moves each shard's inbox (the producers' RPUSH-only list) into its events stream before each read."""
        self._books: dict[str, tuple[Head, Book]] = {}
        """Per shard: the tournament ledgers this worker holds, and the chain head they are exact at (they
        change only in commits, and every commit moves the head)."""
        self._heads: dict[str, Head] = {}
        """The chain head each shard's next commit builds on (as this worker last planned or saw it)."""
        self._contended: dict[str, int] = {}
        """Per shard: commits still to plan on a freshly read head since the last conflict."""
        self._vouched: set[str] = set()
        """Shards whose head this worker checked against the archive (not behind it) since it started, since its last
        Redis error, and since the head last went backwards under it (:func:`.restore.chain_behind`)."""
        self._top: dict[str, int] = {}
        """Per shard: the seq of the last head this worker committed (a head read lower means Redis lost writes)."""
        self._stopping = threading.Event()
        self._archived: dict[str, bool] = {}
        """Per shard: an archiver keeps it (the streams are trimmed by the archiver, once archived, not by MAXLEN)."""
        self.log = get_logger(worker=settings.consumer)

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()


class Part:
    """A part of the worker composed over its state (:class:`.housekeeping.Housekeeping`, :class:`.io.IOPipeline`,
    :class:`.groups.GroupPlumbing`, :class:`.planning.Planning`): the state it is given, and what every part reads
    of it. A part reaches no other part through it: the loop (:class:`.loop.Worker`) passes what one part gives
    another."""

    def __init__(self, state: WorkerState) -> None:
        self.state = state
        self.settings = state.settings
        self.client = state.client
        self.metrics = state.metrics
        self.log = state.log
