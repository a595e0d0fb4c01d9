"""A Redis client configured the way the worker needs it: one node, or Redis Cluster."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Final, TypeAlias

import redis
from redis._parsers import CommandsParser
from redis.backoff import ExponentialBackoff
from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException
from redis.retry import Retry

from showdown_service.infra.config import Settings
from showdown_service.infra.entry_fields import CALLBACKS

Client: TypeAlias = redis.Redis | RedisCluster
"""What every command of the service talks to: one node (``redis.Redis``) or a cluster (``RedisCluster``)."""

REDIS_ERRORS: tuple[type[Exception], ...] = (redis.RedisError, RedisClusterException)
"""What a Redis outage may raise: redis-py's cluster client raises RedisClusterException (not a RedisError) when,
after its retries, a slot has no node (a failover not yet complete)."""

CLUSTER_ACL_GRANTS = "+command +cluster|slots +asking"
"""What a cluster client needs on top of a user's own commands: ``COMMAND`` (redis-py reads the key positions of
every command once, on connect), ``CLUSTER SLOTS`` (the topology, on connect and after every MOVED or failed
node) and ``ASKING`` (a slot being migrated). deploy/redis/users-cluster.acl grants them to every user with a
cluster client (tests/ops/test_acl_cluster.py: each user's job on a cluster uses exactly its grants)."""


def connect(settings: Settings, *, name: str | None = None, watch: bool = False) -> Client:
    """A client for ``settings.redis_url``: RESP2 (XREADGROUP replies stay lists), hiredis when installed.

    With ``redis_cluster`` it is redis-py's :class:`RedisCluster`, started from
    the one node the URL names (it discovers the others with ``CLUSTER
    SLOTS``): every command goes to the node holding its key's slot, MOVED
    and ASK are followed, and a node that does not answer makes it read the
    topology again. Multi-key commands must stay within one shard (one hash
    tag): the worker reads each shard with a command of its own.

    Reads block for up to ``block_ms``, so the socket timeout sits above it.
    Transient connection errors are retried briefly here; the worker loop
    adds its own bounded backoff on top.

    No ``CLIENT SETINFO`` on connect (redis-py sends it by default): each ACL
    user of deploy/redis/users.acl is granted exactly the commands its job
    needs, and Redis 7.0 does not know the command, so no ACL file that loads
    there can grant it; on Redis 7.2+ (the 7.4 we deploy, Valkey) every
    connection would leave a denial in the ACL log.

    ``watch``: a worker's client, each connection checking the server's run id as it opens (:class:`RunWatch`): a
    restarted server is an error the worker sees, never ridden over in silence.
    """
    password = settings.redis_password.get_secret_value() if settings.redis_password else None
    options: dict[str, Any] = {
        "protocol": 2,
        "username": settings.redis_username,
        "password": password,
        "socket_timeout": settings.block_ms / 1000 + 10,
        "socket_connect_timeout": 5,
        "client_name": name,
        "retry": Retry(ExponentialBackoff(cap=0.5, base=0.05), 2),
        "driver_info": None,  # no CLIENT SETINFO (see above)
    }
    if settings.redis_ca_file is not None:
        options["ssl_ca_certs"] = str(settings.redis_ca_file)
    if settings.redis_cluster:
        found: Client = connect_cluster(settings.redis_url, **options)
    else:
        found = redis.Redis.from_url(
            settings.redis_url,
            health_check_interval=30,
            retry_on_error=[redis.ConnectionError, redis.TimeoutError],
            **options,
        )
        keep_repeated_fields(found)  # a field given twice in a stream entry stays visible (ambiguous_entry)
    if watch:
        watch_restarts(found)
    return found


def connect_cluster(url: str, **options: Any) -> RedisCluster:
    """redis-py's cluster client for ``url`` (any node), reading stream and script keys without asking the server.

    redis-py finds the keys of XREADGROUP and XREAD (whose key positions
    move), and of EVALSHA in a pipeline, with a ``COMMAND GETKEYS`` round trip
    before every call: a second round trip per read and per commit, and a
    grant every ACL user would need. They are read here instead (the keys
    follow ``STREAMS``, or ``numkeys``); every other command keeps redis-py's
    reading. ``options`` go to ``RedisCluster.from_url``.
    """
    client = RedisCluster.from_url(url, **options)
    client.commands_parser = StreamKeysParser(client.commands_parser)
    keep_repeated_fields(client)
    return client


class StreamKeysParser(CommandsParser):
    """redis-py's key finder, with the keys of XREADGROUP, XREAD and scripts read locally (see
    :func:`connect_cluster`)."""

    def __init__(self, inner: CommandsParser) -> None:  # not CommandsParser's: it sends COMMAND again
        self.commands = inner.commands
        self.redis_connection = inner.redis_connection

    def get_keys(self, redis_conn: Any, *args: Any) -> Any:
        """The keys of a command: for XREADGROUP and XREAD, the first half of what follows ``STREAMS``; for EVALSHA
        (the worker's commit, in a cluster pipeline, where redis-py asks the server for the keys of every command
        whose keys move), the ``numkeys`` keys after the script."""
        name = _word(args[0])
        if name in ("EVALSHA", "EVAL", "EVALSHA_RO", "EVAL_RO", "FCALL", "FCALL_RO"):  # <script> <numkeys> <key>...
            return list(args[3 : 3 + int(args[2])]) if len(args) > 2 else []
        if name in ("XREADGROUP", "XREAD"):
            i = 4 if name == "XREADGROUP" else 1  # after GROUP <group> <consumer>: a group named STREAMS is no keyword
            while i < len(args):
                word = _word(args[i])
                if word == "STREAMS":
                    rest = args[i + 1 :]
                    return list(rest[: len(rest) // 2])
                i += 1 if word == "NOACK" else 2  # COUNT n, BLOCK ms, MAXCOUNT n, CLAIM ms
        return super().get_keys(redis_conn, *args)  # type: ignore[no-untyped-call]


def _word(arg: Any) -> Any:
    """A command word as upper-case text (redis-py passes them as str or bytes)."""
    if isinstance(arg, bytes):
        return arg.decode(errors="replace").upper()
    return arg.upper() if isinstance(arg, str) else arg


def keep_repeated_fields(client: Client) -> None:
    """Have ``client`` read stream entries with :func:`showdown_service.infra.entry_fields.entry_fields` (a field given
    twice stays visible: ``ambiguous_entry``).

    A cluster client parses each reply with the client of the node that
    answered, made when the topology is read (and again after a failover):
    those made later get the callbacks as they are made.
    """
    if not isinstance(client, RedisCluster):
        for command, callback in CALLBACKS.items():
            client.set_response_callback(command, callback)
        return
    manager = client.nodes_manager
    make = manager.create_redis_node

    def create_redis_node(host: str, port: int, **kwargs: Any) -> Any:
        node = make(host, port, **kwargs)  # type: ignore[no-untyped-call]
        for command, callback in CALLBACKS.items():
            node.set_response_callback(command, callback)
        return node

    manager.create_redis_node = create_redis_node  # type: ignore[method-assign]
    for node in client.get_nodes():  # type: ignore[no-untyped-call]
        if node.redis_connection is not None:
            for command, callback in CALLBACKS.items():
                node.redis_connection.set_response_callback(command, callback)


class ServerRestarted(redis.ConnectionError):
    """A connection reached another run of a Redis server than the one the worker checked its chains on (the
    server restarted: its ``run_id`` changed), before any command went on it. Raised on every new connection to that
    server until the worker has taken note (:meth:`RunWatch.accept`)."""

    def __init__(self, address: str, known: str, now: str) -> None:
        super().__init__(
            f"Redis at {address} restarted (run id {known[:12]} is now {now[:12]}): whatever this worker knew of its "
            "chains is checked again before its next commit"
        )
        self.address = address


WATCH_ATTRIBUTE: Final = "_showdown_run_watch"
"""Where a client keeps its :class:`RunWatch` (one a client, however many workers share it)."""


class RunWatch:
    """Each Redis server's ``run_id`` (``INFO server``), read as each connection to it opens, before any command.

    redis-py reconnects on its own: a pooled connection the server closed is
    opened again when taken from the pool, and a command that met a closed one
    is retried on a new one. A worker that checked a shard's chain (its head
    against the archive, the restore after a loss) on one run of a server would
    then commit on the next run (restarted empty, or from an AOF that lost its
    last second) without ever seeing an error. With the watch installed, the
    first connection to a new run, and every one after it until the worker
    calls :meth:`accept`, raises :class:`ServerRestarted` (a
    ``ConnectionError``): no command reaches a restarted server before the
    worker has forgotten what it knew and checks again. A server restarts on a
    new TCP connection (the old ones are closed with the process), so nothing
    reaches a new run but through this check. (A proxy that keeps the client's
    connection across a restart of the server behind it would hide it.)
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: dict[str, str] = {}
        self._new: dict[str, str] = {}
        self.restarts = 0
        """Restarts accepted: a worker sharing the client compares it with the count it last saw."""

    def on_connect(self, connection: Any, then: Callable[[Any], None] | None) -> None:
        """``redis_connect_func`` of every connection: the handshake (``then``, or redis-py's own), then the run id
        compared with the one known for the address; raises :class:`ServerRestarted` on another."""
        if then is None:
            connection.on_connect()
        else:
            then(connection)
        connection.send_command("INFO", "server")
        try:
            run = _run_id(connection.read_response())
        except redis.ResponseError:  # a server without INFO (fakeredis), or a user not granted it: nothing to compare
            return
        address = _address(connection)
        with self._lock:
            known = self._known.setdefault(address, run)
            if known == run and address not in self._new:
                return
            self._new[address] = run
        raise ServerRestarted(address, known, run)

    def accept(self) -> list[str]:
        """Take note of every restart seen (the caller forgot what it knew of the chains): the addresses."""
        with self._lock:
            moved = sorted(self._new)
            self._known.update(self._new)
            self._new.clear()
            if moved:
                self.restarts += 1
            return moved


def run_watch(client: Client) -> RunWatch:
    """The :class:`RunWatch` of a client made with ``connect(..., watch=True)``; a watch that sees nothing for any
    other (a test's client, shared with the test's own reads)."""
    found = getattr(client, WATCH_ATTRIBUTE, None)
    return found if isinstance(found, RunWatch) else RunWatch()


def watch_restarts(client: Client) -> RunWatch:
    """Install a :class:`RunWatch` on ``client``'s connections (once: a client already watched keeps its watch).
    Sends nothing: the idle connections are closed, so the next command opens one and the watch learns the run."""
    found = getattr(client, WATCH_ATTRIBUTE, None)
    if isinstance(found, RunWatch):
        return found
    watch = RunWatch()
    if isinstance(client, RedisCluster):
        manager = client.nodes_manager
        make = manager.create_redis_node

        def create_redis_node(host: str, port: int, **kwargs: Any) -> Any:
            node = make(host, port, **kwargs)  # type: ignore[no-untyped-call]
            _install(node.connection_pool, watch)
            return node

        manager.create_redis_node = create_redis_node  # type: ignore[method-assign]
        for node in client.get_nodes():  # type: ignore[no-untyped-call]
            if node.redis_connection is not None:
                _install(node.redis_connection.connection_pool, watch)
    else:
        _install(client.connection_pool, watch)
    setattr(client, WATCH_ATTRIBUTE, watch)
    return watch


def _install(pool: Any, watch: RunWatch) -> None:
    """Every connection ``pool`` makes (and those it holds) calls ``watch`` as it opens; its idle ones are closed
    (opened again, through the watch, by their next command)."""
    before = pool.connection_kwargs.get("redis_connect_func")

    def hook(connection: Any) -> None:
        watch.on_connect(connection, before)

    pool.connection_kwargs["redis_connect_func"] = hook
    for connection in [*getattr(pool, "_available_connections", []), *getattr(pool, "_in_use_connections", [])]:
        connection.redis_connect_func = hook
    for connection in list(getattr(pool, "_available_connections", [])):
        connection.disconnect()


def _address(source: Any) -> str:
    """``host:port`` (or the socket's path) of a connection, or of a pool's connections."""
    kwargs = getattr(source, "connection_kwargs", None)

    def value(name: str, default: object) -> object:
        return kwargs.get(name, default) if isinstance(kwargs, dict) else getattr(source, name, default)

    path = value("path", None)
    return str(path) if path else f"{value('host', 'localhost')}:{value('port', 6379)}"


def _run_id(info: Any) -> str:
    """The ``run_id`` of an ``INFO server`` reply (its text, or redis-py's parsed dict)."""
    if isinstance(info, dict):
        return str(info.get("run_id", ""))
    text = info.decode() if isinstance(info, bytes) else str(info)
    for line in text.splitlines():
        if line.startswith("run_id:"):
            return line.partition(":")[2].strip()
    return ""
