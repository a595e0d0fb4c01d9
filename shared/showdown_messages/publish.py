"""Producer side: validate an event, then RPUSH it to its shard's inbox, which the workers move into the events
stream.

Needs redis-py (``pip install './shared[publish]'``); the models alone do not.
:func:`connect` makes a client that runs only the commands it is asked to.

Routing: a deployment may run several shards. Producers send each event to
``shard_for(route(event), shards)``, a stable hash, so one table's hands stay
in one stream and are settled in order: ``route`` is the ``tournament_id`` of
a tournament's hand (a tournament's hands and messages all go to one shard,
whose stream order its ledger follows), else the ``jackpot_id`` of a hand
that drops into a jackpot (its fund is kept on one shard), else the ``table_id``.
:func:`publish_tournament` sends a tournament message (``open``, ``entry``, ``chips``,
``registration_closed``, ``round_complete``) to the same shard.

The append-only path: a producer may only ``RPUSH`` to one list per shard,
``<prefix>:{<shard>}:inbox``, one element per message (``event <JSON>`` or
``tournament <JSON>``: :func:`element`); the workers move it into the
shard's events stream in list order, atomically (showdown_service.worker.ingress).
It never XADDs: an ACL cannot stop an XADD from trimming the stream
(``MAXLEN``, ``MINID``) or from wedging it (an explicit maximal id), and a
list that only takes RPUSH can only grow. A tournament's messages keep
their order when they are pushed in order to one shard (as these functions
do: each waits for its reply).

A write Redis refuses (memory full, a read-only replica, too few replicas,
a busy script) or cannot confirm (a lost connection) raises
:class:`PublishRefused`: which hand was not published, and why. Publishing
it again is always safe: a worker records a re-sent hand as a ``duplicate``
and never settles it twice (within the dedupe TTL, 7 days by default).
"""

from __future__ import annotations

import inspect
import json
import zlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from showdown_messages.events import ShowdownEvent
from showdown_messages.protocol import EVENT_FIELD, TOURNAMENT_FIELD, key, queue_waits
from showdown_messages.tournaments import AnyTournamentMessage, parse_tournament_message

__all__ = [
    "EVENT_FIELD",  # the entry's fields are the protocol's (showdown_messages.protocol); named here as before
    "TOURNAMENT_FIELD",
    "PublishRefused",
    "Refusal",
    "connect",
    "events_stream",
    "publish",
    "publish_tournament",
    "refusal",
    "refusal_reason",
    "route",
    "shard_for",
]

if TYPE_CHECKING:  # pragma: no cover
    import redis
    from redis.cluster import RedisCluster

_CODE_OF_CLASS = {
    "OutOfMemoryError": "OOM",
    "ReadOnlyError": "READONLY",
    "BusyLoadingError": "LOADING",
    "NoPermissionError": "NOPERM",
    "MasterDownError": "MASTERDOWN",
    "NoScriptError": "NOSCRIPT",
    "ExecAbortError": "EXECABORT",
    "AuthenticationError": "AUTH",
    "TimeoutError": "TIMEOUT",
    "TryAgainError": "TRYAGAIN",
    "ClusterDownError": "CLUSTERDOWN",
    "MovedError": "MOVED",
    "AskError": "ASK",
    "ConnectionError": "UNREACHABLE",
}
"""redis-py exception classes whose message no longer starts with the server's error code (most specific first)."""
_MEANING = {
    "OOM": "Redis refuses writes: OOM (memory is full: maxmemory reached, nothing may be evicted)",
    "READONLY": "Redis refuses writes: READONLY (this server is a read-only replica)",
    "NOREPLICAS": "Redis refuses writes: NOREPLICAS (fewer replicas in sync than min-replicas-to-write)",
    "MISCONF": "Redis refuses writes: MISCONF (it cannot save its data to disk)",
    "MASTERDOWN": "Redis refuses: MASTERDOWN (a replica that lost its primary)",
    "BUSY": "Redis is busy: BUSY (a script or function runs past busy-reply-threshold)",
    "UNBLOCKED": "Redis ended a blocked read: UNBLOCKED (the server changed role)",
    "LOADING": "Redis is loading its data: LOADING",
    "NOPERM": "Redis refuses the command: NOPERM (the ACL user lacks a grant)",
    "AUTH": "Redis refuses the login: AUTH (check the user name and password)",
    "TRYAGAIN": "Redis Cluster asks to try again: TRYAGAIN (the shard's slot is being migrated)",
    "CLUSTERDOWN": "Redis Cluster is down: CLUSTERDOWN (a slot has no master: a failover is under way)",
    "MOVED": "Redis Cluster moved the shard: MOVED (the client follows it to its new node)",
    "ASK": "Redis Cluster is migrating the shard: ASK (the client follows it to its new node)",
    "NOTREPLICATED": "Redis did not replicate the write in time: WAIT (fewer replicas acknowledged it than asked for)",
    "NOTFSYNCED": "Redis did not write the write to its disk in time: WAITAOF (its AOF was not fsynced in time)",
    "UNREACHABLE": "Redis does not answer: the connection failed",
    "TIMEOUT": "Redis does not answer: the reply timed out",
    "TTL": "Redis Cluster is changing: TTL exhausted (redis-py followed MOVED/ASK or retried a failed node as often "
    "as it may: a failover or a slot migration is under way)",
    "UNKNOWNCOMMAND": "Redis does not know the command (WAITAOF needs Redis 7.2+ or Valkey: "
    "unset the AOF wait on an older server)",
}


class Refusal(NamedTuple):
    """Why Redis did not take a command, for an operator."""

    code: str
    """``OOM``, ``READONLY``, ``NOREPLICAS``, ``BUSY``, ``MISCONF``, ``LOADING``, ``NOPERM``, ``UNREACHABLE``,
    ``TIMEOUT``, ... or the server's own error code (``WRONGTYPE``, ``ERR``)."""
    reason: str
    """One line: ``Redis refuses writes: OOM (its memory is full: ...)``."""

    @property
    def unanswered(self) -> bool:
        """Redis did not answer (the connection failed, or timed out): a write may or may not have happened."""
        return self.code in ("UNREACHABLE", "TIMEOUT")


def refusal_reason(code: str) -> str:
    """The one line saying what a refusal code means (``NOTREPLICATED``: too few replicas acknowledged a write)."""
    return _MEANING.get(code, f"Redis answers with an error: {code}")


_IN_PIPELINE = " of pipeline caused error: "
"""What redis-py puts between ``Command # 2 (XADD ...)`` and the server's error when a pipeline raises it (keeping
the class: only the code at the message's start is moved)."""


def refusal(exc: BaseException) -> Refusal:
    """What a redis-py error means: its code and one line saying why (no import of redis needed)."""
    for cls in type(exc).__mro__:
        code = _CODE_OF_CLASS.get(cls.__name__)
        if code is not None:
            return Refusal(code, _MEANING[code])
    text = str(exc)
    if type(exc).__name__ == "ClusterError" and text.startswith("TTL exhausted"):  # redis-py's own retries ran out
        return Refusal("TTL", _MEANING["TTL"])
    if text.startswith("unknown command"):  # Redis 7.0's answer to WAITAOF: "unknown command 'WAITAOF', ..."
        return Refusal("UNKNOWNCOMMAND", _MEANING["UNKNOWNCOMMAND"])
    if text.startswith("Command # ") and _IN_PIPELINE in text:  # redis-py names the pipeline's failed command first
        text = text.split(_IN_PIPELINE, 1)[1]
    first = text.split(" ", 1)[0]
    code = first if first.isalpha() and first.isupper() else "ERR"
    return Refusal(code, _MEANING.get(code, f"Redis answers with an error: {code}"))


class PublishRefused(Exception):
    """Redis refused a write (or did not confirm it): from ``hand_id`` on, nothing was published by this call.

    ``accepted`` events of the call were published before it. Publishing the
    rest again, or everything again, is safe: a re-sent hand is a
    ``duplicate`` to the workers (within the dedupe TTL), never settled twice.
    """

    def __init__(
        self,
        *,
        accepted: int,
        hand_id: str | None,
        why: Refusal,
        detail: str,
        where: str = "",
        unsure: bool = False,
    ) -> None:
        self.accepted = accepted
        """Events of this call published before the first one that was not."""
        self.hand_id = hand_id
        """The first hand not published (None: its payload names none)."""
        self.refusal = why
        self.detail = detail
        self.where = where
        """Where the first unpublished event was in the caller's input (``line 450``), if it says."""
        self.unsure = unsure
        """True when the connection failed: the events sent last may or may not have arrived."""
        super().__init__(str(self))

    def __str__(self) -> str:
        place = f" ({self.where})" if self.where else ""
        first = f"hand_id {self.hand_id!r}{place}" if self.hand_id else (self.where or "the event")
        verb = "may not have been published (no reply)" if self.unsure else "was not published"
        return (
            f"{self.accepted} event{'' if self.accepted == 1 else 's'} published; {first} {verb}: {self.why_text}. "
            "Publishing it again is safe: a hand already published is recorded as a duplicate, never settled twice."
        )

    @property
    def why_text(self) -> str:
        """The refusal and the server's own words: ``Redis refuses writes: OOM (...): command not allowed ...``."""
        return f"{self.refusal.reason}: {self.detail.rstrip('. ')}"


def events_stream(shard: str = "default", *, prefix: str = "showdown", name: str = "events") -> str:
    """The events stream of a shard: ``showdown:{default}:events`` (the braces are the hash tag)."""
    return key(shard, name, prefix=prefix)


def inbox_key(shard: str = "default", *, prefix: str = "showdown", name: str = "inbox") -> str:
    """The producers' list of a shard: ``showdown:{default}:inbox`` (same hash tag, so the same slot, as its stream)."""
    return key(shard, name, prefix=prefix)


def element(field: str, payload: str | bytes) -> bytes:
    """One inbox element: the stream field (``event`` or ``tournament``), one space, the JSON payload unchanged."""
    return field.encode() + b" " + (payload.encode() if isinstance(payload, str) else payload)


def shard_for(table_id: str, shards: Sequence[str]) -> str:
    """The shard a table's events go to: stable across processes and restarts (CRC-32 of the table id)."""
    if not shards:
        raise ValueError("at least one shard is needed")
    return shards[zlib.crc32(table_id.encode()) % len(shards)]


def route(event: ShowdownEvent) -> str:
    """What an event's shard is chosen by: its ``tournament_id`` when it has one, else its jackpot's ``jackpot_id``
    (a jackpot's fund is kept on one shard: every hand that drops into it goes there), else its ``table_id``."""
    if event.tournament_id:
        return event.tournament_id
    return event.jackpot.jackpot_id if event.jackpot is not None else event.table_id


def connect(url: str, *, cluster: bool = False, **options: Any) -> redis.Redis | RedisCluster:
    """A client to publish with: ``connect("redis://redis:6379/0", username="producer", password=...)``.

    ``cluster=True``: redis-py's ``RedisCluster``, started from the node
    ``url`` names (the others are discovered); each RPUSH goes to the node
    holding its shard. Its user needs ``+command +cluster|slots +asking`` too
    (redis-py reads the command table and the topology).

    ``options`` go to ``from_url``. Unlike redis-py's default, the
    client sends no ``CLIENT SETINFO`` on connect: the ``producer`` ACL user
    (deploy/redis/users.acl) may run ``RPUSH`` and nothing else, so on Redis
    7.2+ every connection would leave a denial in the server's ACL log.
    """
    import redis  # noqa: PLC0415 - redis is optional: only publishing needs it

    if "driver_info" in inspect.signature(redis.Redis.__init__).parameters:
        quiet: dict[str, Any] = {"driver_info": None}
    else:  # pragma: no cover - redis-py before DriverInfo (7.x)
        quiet = {"lib_name": None, "lib_version": None}
    if cluster:
        from redis.cluster import RedisCluster  # noqa: PLC0415 - see above

        return RedisCluster.from_url(url, **{**quiet, **options})
    return redis.Redis.from_url(url, **{**quiet, **options})


def publish(
    client: redis.Redis | RedisCluster,
    event: ShowdownEvent | Mapping[str, Any] | str | bytes,
    *,
    shards: Sequence[str] = ("default",),
    prefix: str = "showdown",
    name: str = "inbox",
    wait_replicas: int = 0,
    wait_timeout_ms: int = 1000,
    wait_aof: bool = False,
) -> int:
    """Validate ``event`` exactly as a worker would, then RPUSH it to the inbox of the shard of :func:`route`;
    returns the inbox's length after the push (the worker moves it into the events stream).

    Raises ``pydantic.ValidationError`` (see :func:`showdown_messages.rejections`)
    for an event a worker would dead-letter; nothing is sent then. Raises
    :class:`PublishRefused` when Redis refuses the write or the connection
    fails: publishing the event again is safe.

    ``wait_replicas`` > 0: after the RPUSH, ``WAIT wait_replicas
    wait_timeout_ms`` on the same connection (the node holding the shard);
    fewer replicas than that within the timeout raises :class:`PublishRefused`
    (code ``NOTREPLICATED``, ``unsure``): the event is on the master, but a
    failover now would lose it, so publish it again (a duplicate is harmless).
    Redis replicates asynchronously: without this, an event a master
    acknowledged may vanish when its replica is promoted.

    ``wait_aof``: after the RPUSH (and any WAIT), ``WAITAOF 1 0
    wait_timeout_ms``: the push is on the master's disk (its AOF fsynced)
    before this returns, so a crash of Redis under ``appendfsync everysec``
    cannot lose it; not in time raises :class:`PublishRefused` (code
    ``NOTFSYNCED``, ``unsure``). Redis 7.2+ and Valkey only: Redis 7.0
    answers ``unknown command`` (code ``UNKNOWNCOMMAND``).
    """
    if isinstance(event, ShowdownEvent):
        model = event
    elif isinstance(event, str | bytes):
        model = ShowdownEvent.model_validate_json(event)
    else:
        model = ShowdownEvent.model_validate(dict(event))
    inbox = inbox_key(shard_for(route(model), shards), prefix=prefix, name=name)
    pushed = element(EVENT_FIELD, model.model_dump_json(exclude_none=True))
    return _push(client, inbox, pushed, model.hand_id, (wait_replicas, wait_timeout_ms, wait_aof))


def publish_tournament(
    client: redis.Redis | RedisCluster,
    message: AnyTournamentMessage | Mapping[str, Any] | str | bytes,
    *,
    shards: Sequence[str] = ("default",),
    prefix: str = "showdown",
    name: str = "inbox",
    wait_replicas: int = 0,
    wait_timeout_ms: int = 1000,
    wait_aof: bool = False,
) -> int:
    """Validate a tournament message, then RPUSH it (``tournament <JSON>``) to the inbox of the shard of its
    ``tournament_id``, where the tournament's hands go too; returns the inbox's length (``wait_replicas``,
    ``wait_aof`` as for :func:`publish`).

    Raises ``pydantic.ValidationError`` for a message a worker would refuse unread, and :class:`PublishRefused`
    when Redis refuses the write. Publishing a message again is safe: a repeated message is a ``duplicate``.
    """
    if isinstance(message, AnyTournamentMessage):
        model = message
    elif isinstance(message, str | bytes):
        model = parse_tournament_message(message)
    else:
        model = parse_tournament_message(json.dumps(dict(message)))
    inbox = inbox_key(shard_for(model.tournament_id, shards), prefix=prefix, name=name)
    pushed = element(TOURNAMENT_FIELD, model.model_dump_json(exclude_none=True))
    return _push(client, inbox, pushed, None, (wait_replicas, wait_timeout_ms, wait_aof))


def durability_waits(pipe: Any, client: Any, written: str, *, replicas: int, timeout_ms: int, aof: bool) -> int:
    """Add to ``pipe``, after a write to key ``written``, the WAIT (``replicas`` > 0) and WAITAOF (``aof``) that make
    it durable, on the node holding it (they cover the writes of their own connection); how many were added."""
    node = client.get_node_from_key(written) if hasattr(client, "get_node_from_key") else None
    added = queue_waits(pipe, replicas, timeout_ms, None if node is None else [node])
    if aof:
        pipe.execute_command("WAITAOF", 1, 0, timeout_ms, **({} if node is None else {"target_nodes": node}))
        added += 1
    return added


def durability_shortfall(
    waited: Sequence[Any], replicas: int, timeout_ms: int, aof: bool
) -> tuple[Refusal, str] | None:
    """Read the replies of :func:`durability_waits`: why the write is not known to be durable, or None when it is.
    A refused WAIT or WAITAOF (NOPERM, or ``unknown command`` on Redis before 7.2) is raised as it is."""
    for reply in waited:
        if isinstance(reply, Exception):
            raise reply
    replies = list(waited)
    if replicas:
        acked = int(replies.pop(0))
        if acked < replicas:
            detail = f"{acked} of {replicas} replicas acknowledged it within {timeout_ms} ms"
            return Refusal("NOTREPLICATED", refusal_reason("NOTREPLICATED")), detail
    if aof:
        local = int(replies.pop(0)[0])
        if local < 1:
            detail = f"the master had not fsynced its AOF within {timeout_ms} ms (or appendonly is off)"
            return Refusal("NOTFSYNCED", refusal_reason("NOTFSYNCED")), detail
    return None


def _push(
    client: redis.Redis | RedisCluster,
    inbox: str,
    pushed: bytes,
    hand_id: str | None,
    waits: tuple[int, int, bool],
) -> int:
    """RPUSH ``pushed`` to ``inbox`` (then WAIT / WAITAOF as ``waits`` asks), a refusal raised as
    :class:`PublishRefused`."""
    from redis import RedisError  # noqa: PLC0415 - redis is optional: only publishing needs it
    from redis.exceptions import RedisClusterException  # noqa: PLC0415 - see above

    replicas, timeout_ms, aof = waits
    try:
        if not replicas and not aof:
            return int(client.rpush(inbox, pushed))
        pipe = client.pipeline(transaction=False)  # one pipeline, one connection: WAIT covers its own writes
        pipe.rpush(inbox, pushed)
        durability_waits(pipe, client, inbox, replicas=replicas, timeout_ms=timeout_ms, aof=aof)
        length, *waited = pipe.execute(raise_on_error=False)
        if isinstance(length, Exception):
            raise length
        short = durability_shortfall(waited, replicas=replicas, timeout_ms=timeout_ms, aof=aof)
    except (RedisError, RedisClusterException) as exc:
        why = refusal(exc)
        raise PublishRefused(accepted=0, hand_id=hand_id, why=why, detail=str(exc), unsure=why.unanswered) from exc
    if short is not None:
        raise PublishRefused(accepted=0, hand_id=hand_id, why=short[0], detail=short[1], unsure=True)
    return int(length)
