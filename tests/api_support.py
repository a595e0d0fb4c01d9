"""The read API on a real port (uvicorn in a thread), a worker to commit what a test publishes, and tokens."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
import uvicorn

from showdown_service.api.app import create_app
from showdown_service.api.auth import token_digest
from showdown_service.api.index import ArchiveLookup, no_archive
from showdown_service.api.server import config
from showdown_service.api.settings import ApiSettings, Token
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import Client, connect
from showdown_service.worker.loop import Worker
from tests.tournament_builders import all_in, closed, entry, opened

EVERYTHING = "token-everything"
HANDS_ONLY = "token-hands-only"
TOKENS = (
    Token(name="ops", sha256=token_digest(EVERYTHING), scopes=("hands:read", "tournaments:read", "dead-letters:read")),
    Token(name="game-server", sha256=token_digest(HANDS_ONLY), scopes=("hands:read",)),
)


def bearer(token: str = EVERYTHING) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@contextmanager
def serving(settings: Settings, api: ApiSettings | None = None, archive: ArchiveLookup = no_archive) -> Iterator[str]:
    """The API for ``settings`` on 127.0.0.1 (a free port), in a thread; its base URL. Stopped on leaving."""
    api = api or ApiSettings(tokens=TOKENS, poll_s=0.05)
    app = create_app(settings, api, connect(settings), archive=archive)
    server = uvicorn.Server(config(app, host="127.0.0.1", port=0, head_timeout_s=api.head_timeout_s))  # as served
    thread = threading.Thread(target=server.run, name="api", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise AssertionError("the API did not start within 20 s")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)


def publish_lines(client: Client, stream: str, lines: list[str]) -> list[bytes]:
    """XADD each ``{"event": ...}`` / ``{"tournament": ...}`` line as a producer does; the entry ids."""
    pipe = client.pipeline(transaction=False)
    for line in lines:
        ((field, body),) = orjson.loads(line).items()
        pipe.xadd(stream, {field: orjson.dumps(body) if isinstance(body, dict) else body})
    return list(pipe.execute())


def commit(settings: Settings) -> None:
    """A worker settles (and commits) everything the shards' streams hold."""
    worker = Worker(settings, connect(settings))
    worker.run(until_idle=True)
    worker.ingress.stop()  # as a stopped worker does: its inbox watcher's wait ends before the caller goes on


def knockout(tid: str = "T") -> list[str]:
    """A knockout (4 entries, 1,000 a head, half cash) up to its first bust: ``d`` busts in hand ``<tid>-h1``."""
    return [
        opened(tid, payouts=[3000, 1000], bounty_cash_ppm=500_000),
        entry("a", bounty=1000, tid=tid),
        entry("b", bounty=1000, tid=tid),
        entry("c", bounty=1000, tid=tid),
        entry("d", stack=300, bounty=1000, tid=tid),
        closed(tid),
        all_in(
            f"{tid}-h1", [(1, "a", 1000, 300), (2, "b", 1000, 300), (3, "c", 1000, 300), (4, "d", 300, 300)], tid=tid
        ),
    ]


def second_bust(tid: str = "T") -> list[str]:
    """After :func:`knockout`: ``c`` busts to ``a`` in hand ``<tid>-h2``."""
    return [all_in(f"{tid}-h2", [(1, "a", 1900, 700), (3, "c", 700, 700)], tid=tid)]


def sse_events(lines: Iterator[str], wanted: int, timeout: float = 20.0) -> list[dict[str, Any]]:
    """Read ``wanted`` events (``{"id", "event", "data"}``) from the lines of an event stream."""
    found: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    deadline = time.monotonic() + timeout
    for line in lines:
        if time.monotonic() > deadline:
            raise AssertionError(f"only {len(found)} of {wanted} events within {timeout} s: {found}")
        if not line:
            if "data" in current:
                found.append(current)
                if len(found) == wanted:
                    return found
            current = {}
            continue
        name, _, value = line.partition(":")
        if name in ("id", "event"):
            current[name] = value.strip()
        elif name == "data":
            current["data"] = orjson.loads(value.strip())
    raise AssertionError(f"the stream ended after {len(found)} of {wanted} events")
