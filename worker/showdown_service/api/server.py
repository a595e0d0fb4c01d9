"""How ``showdown api`` runs on uvicorn: its config, with a deadline for each request's head.

uvicorn times out an idle keep-alive connection, but not a request whose
head (request line and headers) never ends: a client that connects and sends
half a request, or nothing, holds its connection for ever. Here each request's
head must arrive whole within ``SHOWDOWN_API_HEADER_TIMEOUT_S`` of the
connection (or of the request's first byte on a kept-alive one); sending it a
byte at a time does not move the deadline. Otherwise the connection is closed.
"""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class HeadTimedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, closing a connection whose request head is not whole by its deadline."""

    head_timeout_s: float = 10.0
    """Set per server by :func:`config` (on a subclass)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_deadline: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        if self._head_deadline is None:
            self._head_deadline = self.loop.call_later(self.head_timeout_s, self._head_late)

    def _disarm(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_late(self) -> None:
        self._head_deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()  # a connection that sends nothing is timed too

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()  # a request on a kept-alive connection: from its first byte

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def config(app: Any, *, host: str, port: int, head_timeout_s: float, **options: Any) -> uvicorn.Config:
    """The uvicorn config serving ``app``: the head deadline above, no access log, warnings only."""
    protocol = type("HeadTimed", (HeadTimedProtocol,), {"head_timeout_s": head_timeout_s})
    return uvicorn.Config(app, host=host, port=port, http=protocol, log_level="warning", access_log=False, **options)
