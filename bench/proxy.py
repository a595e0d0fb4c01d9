"""A loopback TCP proxy the chaos run owns, so it can cut the network between workers and Redis."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from types import TracebackType

from showdown_service.testing.localredis import free_port

_BUFFER = 65536


_SAME = 65536
"""Bytes of a request kept to tell a re-send from a new request: a whole small commit, or a large one's keys
and its first arguments (the audit heads, which no other commit shares)."""


class FlakyProxy:
    """Forwards 127.0.0.1:<port> to 127.0.0.1:<target>; :meth:`cut` drops every connection for a while.

    During a cut, live connections are closed mid-stream (whatever was in
    flight, requests or replies, is lost) and new ones are closed at once,
    as a network partition would look to the clients.
    """

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._listener.settimeout(0.2)
        self._cut_until = 0.0
        self._pairs: set[tuple[socket.socket, socket.socket]] = set()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._accept, name="proxy-accept", daemon=True)
        self.cuts = 0
        self.dropped = 0
        self._lose_reply_to: bytes | None = None
        self._doomed: dict[tuple[socket.socket, socket.socket], bytearray] = {}
        """Connections whose next reply is dropped, with the start of the request that doomed them."""
        self._unanswered: list[bytes] = []
        """The start of each request whose reply was dropped, until the client sends it again."""
        self.replies_lost = 0
        self.resent = 0
        """Requests sent again, byte for byte, after their reply was lost (redis-py re-sending a pipeline)."""

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> FlakyProxy:
        self._thread.start()
        return self

    def cut(self, seconds: float) -> None:
        """Partition: close every connection now, and refuse new ones for ``seconds``."""
        self.cuts += 1
        self._cut_until = time.monotonic() + seconds
        with self._lock:
            pairs = list(self._pairs)
        for client, upstream in pairs:
            self._close(client, upstream)
            self.dropped += 1

    def wait_until_joined(self) -> None:
        """Return once a cut in progress has ended (at once if there is none)."""
        time.sleep(max(0.0, self._cut_until - time.monotonic()))

    def lose_next_reply(self, marker: bytes = b"EVALSHA") -> None:
        """Forward the next request containing ``marker``, then drop its connection before the reply.

        Redis has run the request; the client never hears back, reconnects
        and (redis-py does) sends it again.
        """
        self._lose_reply_to = marker

    def _cutting(self) -> bool:
        return time.monotonic() < self._cut_until

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if self._cutting():
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=2)
            except OSError:  # Redis is down: the client sees the connection close
                client.close()
                continue
            for s in (client, upstream):
                s.settimeout(None)
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            pair = (client, upstream)
            with self._lock:
                self._pairs.add(pair)
            threading.Thread(target=self._pump, args=(client, upstream, pair, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, pair, False), daemon=True).start()

    def _pump(
        self, source: socket.socket, sink: socket.socket, pair: tuple[socket.socket, socket.socket], upstream: bool
    ) -> None:
        sent = bytearray()  # upstream: the first _SAME bytes this connection sent, from a doomed request on
        watching = upstream and bool(self._unanswered)  # a connection opened after a lost reply: a re-send?
        try:
            while True:
                data = source.recv(_BUFFER)
                if not data or self._cutting():
                    break
                if not upstream and pair in self._doomed:  # the reply Redis sent: it never arrives
                    self.replies_lost += 1
                    self._unanswered.append(bytes(self._doomed[pair][: _SAME - 256]))  # room for a header before it
                    break
                sink.sendall(data)
                if upstream:
                    if pair in self._doomed or watching:
                        sent += data[: _SAME - len(sent)]
                    if watching and self._is_resend(sent):
                        watching = False
                    marker = self._lose_reply_to
                    if marker is not None and marker in data:
                        self._lose_reply_to = None
                        sent = bytearray(data[data.index(marker) :][:_SAME])
                        self._doomed[pair] = sent
        except OSError:
            pass
        self._doomed.pop(pair, None)
        self._close(*pair)

    def _is_resend(self, sent: bytearray) -> bool:
        """Whether ``sent`` (a new connection's first bytes) repeats, byte for byte, a request whose reply was
        lost: as much of it as was kept (a whole small commit, or the first 64 KB of a large one: past its
        keys, to the audit heads that no other commit shares); counted once."""
        for i, unanswered in enumerate(self._unanswered):
            if len(sent) >= len(unanswered) and sent.find(unanswered) >= 0:
                self.resent += 1
                del self._unanswered[i]
                return True
        return False

    def _close(self, client: socket.socket, upstream: socket.socket) -> None:
        with self._lock:
            self._pairs.discard((client, upstream))
        for s in (client, upstream):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def close(self) -> None:
        self._stopping.set()
        self._listener.close()
        with self._lock:
            pairs = list(self._pairs)
        for pair in pairs:
            self._close(*pair)
        self._thread.join(2)

    def __enter__(self) -> FlakyProxy:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
