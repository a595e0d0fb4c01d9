"""What the read API's routes share (:class:`Api`): settings, the Redis client, the hand index, the tokens, the
limits, the event streams' budgets and the metrics; and the ASGI pieces around them (:class:`Measured`, the
per-route metrics; :class:`EventStream`, a stream that frees its place). The routes are in
:mod:`showdown_service.api.app`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio.to_thread
from fastapi import Request
from fastapi.responses import StreamingResponse
from prometheus_client import CollectorRegistry, Counter, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from showdown_service.api import events as sse
from showdown_service.api.auth import Caller, RateLimit, Refused, Tokens, require
from showdown_service.api.index import ArchiveLookup, HandIndex
from showdown_service.api.settings import ApiSettings
from showdown_service.infra import logs
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import REDIS_ERRORS, Client
from showdown_service.read.standings import StandingsReader, StandingsRefused

KEEPALIVE_S = 15.0
"""An event stream quiet this long sends a comment line (proxies close idle connections)."""
ARCHIVED_KEPT = 256
"""Expired tournaments whose standings read from the archive the API keeps in memory (a floor page polls)."""


class Measured:
    """ASGI middleware: each request counted and timed by its route's template (never a hand or tournament id)."""

    def __init__(self, app: ASGIApp, api: Api) -> None:
        self.app = app
        self.api = api

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        status = 500

        async def sent(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                route = scope.get("route")  # its template without converters: /v1/hands/{hand_id}
                label = getattr(route, "path_format", None) or getattr(route, "path", "unmatched")
                self.api.latency.labels(label).observe(time.perf_counter() - began)
                self.api.requests.labels(label, str(status)).inc()
            await send(message)

        await self.app(scope, receive, sent)


class EventStream(StreamingResponse):
    """A streaming response that frees its event stream's place when it ends, even one whose body never began
    (the client gone before the first byte)."""

    def __init__(self, content: AsyncIterator[bytes], free: Callable[[], None], **options: Any) -> None:
        super().__init__(content, **options)
        self.free = free

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.free()


class Api:
    """What the routes share: settings, the Redis client, the hand index, the tokens, the limits, the metrics."""

    def __init__(self, settings: Settings, api: ApiSettings, client: Client, archive: ArchiveLookup) -> None:
        self.settings = settings
        self.api = api
        self.client = client
        self.index = HandIndex(
            settings, client, archive, unknown_ttl_s=api.unknown_ttl_s, archive_concurrency=api.archive_concurrency
        )
        self.tokens = Tokens(api.tokens)
        self.limit = RateLimit(api.rate_per_s, api.burst)
        self.archive_limit = RateLimit(api.archive_rate_per_s, api.archive_burst)
        """Each token's archive lookups (a scan each), apart from its requests."""
        self.streams_open = 0
        """Event streams of token holders (/v1) open; the floor's are counted apart, so they cannot starve these."""
        self.floor_streams_open = 0
        self.floor_streams_of: dict[str, int] = {}
        """Floor event streams open by client address."""
        self.log = logs.get_logger(component="api")
        self.standings_reader = StandingsReader(settings, client, kept=ARCHIVED_KEPT)
        """The one standings lookup, keeping what the archive answered."""
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "showdown_api_requests", "Requests served, by route and status.", ["route", "status"],
            registry=self.registry,
        )  # fmt: skip
        self.latency = Histogram(
            "showdown_api_request_seconds", "Time to answer a request (an event stream: to its first byte).",
            ["route"], registry=self.registry,
            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0),
        )  # fmt: skip

    def archive_permit(self, caller: Caller) -> Callable[[], None]:
        """What a hand lookup calls before it asks the archive: the caller's archive budget (429 beyond)."""

        def take() -> None:
            try:
                self.archive_limit.take("token:" + caller.name)
            except Refused as exc:
                raise Refused(
                    429, "too_many_archive_lookups",
                    f"over {self.api.archive_rate_per_s:g} archive lookups a second (hands Redis does not hold)",
                    exc.headers,
                ) from None  # fmt: skip

        return take

    def caller(self, request: Request, scope: str) -> Caller:
        try:
            caller = self.tokens.caller(request.headers.get("authorization"))
        except Refused:
            self.limit.take("addr:" + (request.client.host if request.client else "?"))
            raise
        self.limit.take("token:" + caller.name)
        require(caller, scope)
        return caller

    def tournament_shard(self, tournament_id: str) -> str:
        """The shard holding the tournament (:meth:`~showdown_service.read.standings.StandingsReader.shard_of`)."""
        shard = self.standings_reader.shard_of(tournament_id)
        if shard is None:
            raise Refused(404, "unknown_tournament", f"no shard holds tournament {tournament_id!r}")
        return shard

    def standings(self, tournament_id: str) -> dict[str, Any]:
        """The standings route's body, from the one standings lookup (:mod:`showdown_service.read.standings`)."""
        try:
            found = self.standings_reader.read(tournament_id)
        except StandingsRefused as exc:
            raise Refused(404 if exc.code == "unknown_tournament" else 503, exc.code, exc.message) from exc
        ledger, book = found.ledger, found.book
        deal = ledger.deal
        mystery = ledger.rules.mystery_from is not None
        return {
            "tournament_id": tournament_id,
            "shard": found.shard,
            "registration_open": ledger.registration_open,
            "over": ledger.over,
            "prize_pool": sum(ledger.rules.payouts),
            "payouts": list(ledger.rules.payouts),
            "deal": None
            if deal is None
            else {
                "method": deal.method,
                "left_to_play_for": deal.left_to_play_for,
                "entries": [{"player_id": p, "entry": n, "amount": amount} for (p, n), amount in deal.amounts],
            },
            "mystery_envelopes_left": [{"amount": a, "count": c} for a, c in book.envelopes_left(tournament_id).items()]
            if mystery
            else None,
            "placements": found.finished,
            "playing": [
                {
                    "player_id": e.player_id,
                    "entry": e.entry,
                    "chips": e.chips,
                    "bounty": e.bounty,
                    "bounty_cash": e.bounty_cash,
                    "mystery_bounty_cash": e.mystery_cash,
                }
                for e in found.playing
            ],
        }

    def reserve_stream(self, address: str | None) -> Callable[[], None]:
        """A place for an event stream (``address``: a floor stream's client; None: a token holder's), and what
        frees it (once, however often called); :class:`Refused` 429 when its budget is spent."""
        if address is None:
            if self.streams_open >= self.api.max_streams:
                raise Refused(429, "too_many_streams", f"{self.api.max_streams} event streams are open already")
            self.streams_open += 1
        else:
            if self.floor_streams_open >= self.api.floor_max_streams:
                raise Refused(
                    429, "too_many_streams", f"{self.api.floor_max_streams} floor event streams are open already"
                )
            mine = self.floor_streams_of.get(address, 0)
            if mine >= self.api.floor_streams_per_address:
                raise Refused(
                    429, "too_many_streams",
                    f"{self.api.floor_streams_per_address} floor event streams from this address are open already",
                )  # fmt: skip
            self.floor_streams_open += 1
            self.floor_streams_of[address] = mine + 1
        freed = False

        def free() -> None:
            nonlocal freed
            if freed:
                return
            freed = True
            if address is None:
                self.streams_open -= 1
                return
            self.floor_streams_open -= 1
            left = self.floor_streams_of[address] - 1
            if left:
                self.floor_streams_of[address] = left
            else:
                del self.floor_streams_of[address]

        return free

    async def events(
        self, request: Request, tournament_id: str, last_event_id: str | None, *, floor: bool = False
    ) -> StreamingResponse:
        cursor = sse.Cursor.parse(last_event_id)
        shard = await anyio.to_thread.run_sync(self.tournament_shard, tournament_id)
        keys = self.settings.keys(shard)
        # Reserved now (the event loop's one thread: no await between the check and the count), freed when the
        # response ends, whether or not its body was ever started.
        free = self.reserve_stream((request.client.host if request.client else "?") if floor else None)

        async def stream() -> AsyncIterator[bytes]:
            nonlocal cursor
            quiet_since = time.monotonic()
            try:
                yield b"retry: 1000\n\n"
                while not await request.is_disconnected():
                    try:
                        found, cursor = await anyio.to_thread.run_sync(
                            sse.news, self.client, keys.results, keys.standings, tournament_id, cursor
                        )
                    except REDIS_ERRORS as exc:  # ended cleanly: the client comes back with its Last-Event-ID
                        self.log.warning("api_stream_ended", error=f"{type(exc).__name__}: {exc}")
                        return
                    for event_id, kind, data in found:
                        yield sse.frame(event_id, kind, data)
                    if found:
                        quiet_since = time.monotonic()
                    elif time.monotonic() - quiet_since > KEEPALIVE_S:
                        yield b": keepalive\n\n"
                        quiet_since = time.monotonic()
                    if not found:
                        await asyncio.sleep(self.api.poll_s)
            finally:
                free()

        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return EventStream(stream(), free, media_type="text/event-stream", headers=headers)
