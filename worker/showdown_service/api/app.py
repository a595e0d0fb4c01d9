"""The read API's ASGI application (FastAPI): every route, the tokens and scopes, the request limit, the metrics.

Read-only: the routes run XRANGE, XREAD, HGET, HGETALL, EXISTS and PING, nothing that writes. A ``/v1``
route needs a bearer token holding its scope; ``/healthz``, ``/metrics`` and the floor pages need none (the
floor shows what a card room's screens show: standings and busts).
"""

from __future__ import annotations

import re
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib.resources import files
from typing import Annotated, Any, Literal, cast

import anyio.to_thread
from fastapi import Depends, FastAPI, Header, Path, Query, Request, Security
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic_core import to_json
from starlette.exceptions import HTTPException

from showdown_rules.limits import ID_PATTERN, MAX_ID_LENGTH
from showdown_service import __version__
from showdown_service.api import log
from showdown_service.api.auth import Caller, Refused
from showdown_service.api.index import ArchiveLookup, no_archive
from showdown_service.api.jackpots import jackpot_routes
from showdown_service.api.models import (
    ConsistencyProof,
    DeadLettersPage,
    Error,
    Hand,
    InclusionProof,
    ResultsPage,
    Standings,
    TournamentStandings,
    TreeHead,
)
from showdown_service.api.pages import dead_letters_page, results_page
from showdown_service.api.replay import history, log_line, page, replay_document, settled_hand
from showdown_service.api.settings import ApiSettings
from showdown_service.api.state import Api, Measured
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import REDIS_ERRORS, Client
from showdown_service.read.health import health

IdPath = Annotated[str, Path(min_length=1, max_length=MAX_ID_LENGTH, pattern=ID_PATTERN)]
"""An id as the contract has it (showdown_rules.limits): 1-200 characters, none a control or format character.
Routed as ``{name:path}`` where the id may end the path, so an id holding ``/`` (sent as ``%2F``) is reachable."""
ShardPath = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")]
"""A shard's name in a path (the routes answer only for SHOWDOWN_SHARDS' own)."""
HistoryFormat = Annotated[Literal["phh", "ohh"], Query(alias="format", description="PHH (TOML) or Open Hand History")]
IdQuery = Annotated[str | None, Query(min_length=1, max_length=MAX_ID_LENGTH, pattern=ID_PATTERN)]
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": Error, "description": "A malformed path or query."},
    401: {"model": Error, "description": "No bearer token, or one this API does not know."},
    403: {"model": Error, "description": "The token lacks the route's scope."},
    429: {"model": Error, "description": "Over the request limit (or too many event streams open)."},
    500: {"model": Error, "description": "The API failed (internal_error); the server logs why."},
}


BEARER = HTTPBearer(
    scheme_name="bearer",
    description="A token from SHOWDOWN_API_TOKENS, sent as 'Authorization: Bearer <token>'. Each route needs a scope "
    "its token holds: hands:read (/v1/hands, /v1/results, /v1/checkpoints), tournaments:read (/v1/tournaments), "
    "dead-letters:read (/v1/dead-letters); 403 insufficient_scope without it.",
    auto_error=False,  # only declared here (the OpenAPI document's securitySchemes): Api.caller checks the token
)


def operation_id(route: APIRoute) -> str:
    """A route's OpenAPI operationId: its function's name (``get_hand``), what a generated client calls."""
    return route.name


def json_body(body: Any) -> Response:
    """``body`` (plain JSON values) as the route's 200: serialised as FastAPI serialises a response model, never
    validated through the typed models (they describe what is read, they do not judge it)."""
    return Response(to_json(body), media_type="application/json")


ABSOLUTE_PATH = re.compile(r"(?<![\w:/.~-])/[^\s:'\",;()]+")
"""A file path in a health line (``/var/lib/showdown/heartbeat.json``): ``/healthz`` shows its last part only."""


def without_paths(line: str) -> str:
    """``line`` with each absolute file path cut to its file name: an open route shows no server layout."""
    return ABSOLUTE_PATH.sub(lambda m: m[0].rstrip("/").rsplit("/", 1)[-1] or "/", line)


ARCHIVE_503 = (
    "The tournament finished and its ledger expired, and the archive (SHOWDOWN_ARCHIVE_URL) cannot answer: "
    "archive_unavailable (none there, or unreadable) or archive_incomplete (it lacks an entry's records); or "
    "ledger_lost: Redis lost the ledger of a tournament still running (`showdown tournament restore` rebuilds it)."
)


def create_app(
    settings: Settings,
    api_settings: ApiSettings,
    client: Client,
    *,
    archive: ArchiveLookup = no_archive,
) -> FastAPI:
    """The ASGI application. ``archive``: where a hand Redis no longer holds is looked up (h25's archive)."""
    state = Api(settings, api_settings, client, archive)
    app = _application(state)
    _answer_errors(app)
    app.add_middleware(Measured, api=state)
    hands = Depends(_scoped(state, "hands:read"))
    tournaments = Depends(_scoped(state, "tournaments:read"))
    letters = Depends(_scoped(state, "dead-letters:read"))
    _log_routes(app, settings, hands)
    _replay_routes(app, state, hands)  # before /v1/hands/{hand_id:path}, which would take their paths
    _read_routes(app, state, hands, tournaments, letters)
    jackpot_routes(app, state, hands, ERRORS)  # GET /v1/jackpots/{id}
    _probe_routes(app, state)
    if api_settings.floor:
        _floor_routes(app, state)
    return app


def _application(state: Api) -> FastAPI:
    """The FastAPI application: its lifespan (the hand index read before the first request, then followed), its
    OpenAPI document without FastAPI's ``422``."""

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await anyio.to_thread.run_sync(state.index.catch_up)  # the index is read before the first request
        stop = threading.Event()
        follower = threading.Thread(target=state.index.follow, args=(stop,), name="hand-index", daemon=True)
        follower.start()
        try:
            yield
        finally:
            stop.set()
            follower.join(timeout=5)

    app = FastAPI(
        title="showdown read API",
        version=__version__,
        description="What happened to a hand, a tournament's standings and news, dead letters and results: "
        "read-only, from Redis (and the archive). See docs/api.md.",
        lifespan=lifespan,
        docs_url=None,  # no docs UI: FastAPI's loads its scripts from a CDN; docs/api.md and openapi.json suffice
        redoc_url=None,
        generate_unique_id_function=operation_id,
    )
    app.state.api = state
    described = app.openapi

    def document() -> dict[str, Any]:
        """FastAPI's document without its ``422``: a malformed path or query is answered 400 ``bad_query``
        (``malformed`` below), which each route lists."""
        if app.openapi_schema is None:
            built = described()
            for item in built["paths"].values():
                for operation in item.values():
                    operation["responses"].pop("422", None)
            for name in ("HTTPValidationError", "ValidationError"):
                built.get("components", {}).get("schemas", {}).pop(name, None)
        return cast(dict[str, Any], app.openapi_schema)

    app.openapi = document  # type: ignore[method-assign]

    return app


def _answer_errors(app: FastAPI) -> None:
    """Every error answered as ``{"code", "message"}``: a refusal, an unrouted path, a failure, a malformed query."""

    @app.exception_handler(Refused)
    async def refused(_request: Request, exc: Refused) -> JSONResponse:
        return JSONResponse({"code": exc.code, "message": exc.message}, exc.status, headers=exc.headers)

    @app.exception_handler(HTTPException)
    async def not_routed(_request: Request, exc: HTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "bad_request")
        message = {404: "no such route: see docs/api.md", 405: "this route answers GET only"}.get(
            exc.status_code, str(exc.detail)
        )
        return JSONResponse({"code": code, "message": message}, exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def failed(_request: Request, exc: Exception) -> JSONResponse:  # logged by the server with its traceback
        return JSONResponse({"code": "internal_error", "message": f"the API failed: {type(exc).__name__}"}, 500)

    @app.exception_handler(RequestValidationError)
    async def malformed(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        return JSONResponse({"code": "bad_query", "message": f"{where}: {first.get('msg')}"}, 400)


def _scoped(state: Api, scope: str) -> Callable[..., Caller]:
    """The caller of a route that needs ``scope`` (declared in the document as the bearer scheme naming it)."""
    declared = Security(BEARER, scopes=[scope])  # for the document (security: bearer, naming the scope)

    def check(request: Request, _bearer: HTTPAuthorizationCredentials | None = declared) -> Caller:
        return state.caller(request, scope)

    return check


def _log_routes(app: FastAPI, settings: Settings, hands: Any) -> None:
    """The Merkle log's routes: a hand's inclusion proof, a shard's signed tree head, a consistency proof."""
    size_query = Query(None, ge=0, description="The signed tree head of this size (default: the newest).")
    epoch_query = Query(None, pattern=r"^[0-9a-f]{16}$", description="The chain (default: the newest).")
    log_errors: dict[int | str, dict[str, Any]] = {
        **ERRORS, 404: {"model": Error, "description": "unknown_shard, no_tree_head, hand_not_archived or "
                        "not_yet_signed."},
        503: {"model": Error, "description": "archive_unavailable: no archive here, or its files and its signed "
              "head disagree."},
    }  # fmt: skip

    @app.get("/v1/hands/{hand_id:path}/proof", response_model=None,
             responses={200: {"model": InclusionProof}, **log_errors}, dependencies=[hands],
             summary="A hand's Merkle inclusion proof")  # fmt: skip
    def get_hand_proof(hand_id: IdPath, size: int | None = size_query) -> Response:
        """The archived entry that settled the hand: its audit record (the leaf), its index, the tree size, the
        audit path and the signed tree head it verifies against, as ``showdown proof HAND_ID --json``."""
        return json_body(log.hand_proof(settings, hand_id, size))

    @app.get("/v1/checkpoints/{shard}", response_model=None, responses={200: {"model": TreeHead}, **log_errors},
             dependencies=[hands], summary="A shard's signed tree head")  # fmt: skip
    def get_checkpoint(shard: ShardPath, size: int | None = size_query, epoch: str | None = epoch_query) -> Response:
        """The newest signed tree head of the shard's newest chain (or of ``size``, of ``epoch``): a C2SP
        checkpoint note, verified with the room's key (``showdown archive verifier-key``)."""
        return json_body(log.tree_head(settings, shard, size, epoch))

    @app.get("/v1/checkpoints/{shard}/consistency", response_model=None,
             responses={200: {"model": ConsistencyProof}, **log_errors}, dependencies=[hands],
             summary="A consistency proof between two signed tree heads")  # fmt: skip
    def get_consistency(
        shard: ShardPath,
        size1: Annotated[int, Query(ge=0)],
        size2: Annotated[int, Query(ge=0)],
        epoch: str | None = epoch_query,
    ) -> Response:
        """That the signed tree of ``size1`` is the start of the signed tree of ``size2`` (RFC 9162 2.1.4)."""
        return json_body(log.consistency(settings, shard, size1, size2, epoch))


def _replay_routes(app: FastAPI, state: Api, hands: Any) -> None:
    """A settled hand given back whole (api/replay.py): as a hand history, and its replay page."""
    whole: dict[int | str, dict[str, Any]] = {404: {"model": Error, "description": "Not a settled hand."},
             409: {"model": Error, "description": "no_history: no play, or a game OHH cannot hold."}}  # fmt: skip
    texts = {"application/toml": {"schema": {"type": "string"}}, "application/json": {"schema": {"type": "object"}}}

    @app.get("/v1/hands/{hand_id:path}/history", response_model=None, summary="A settled hand as a hand history",
             responses={200: {"content": texts, "description": "PHH or OHH"}, **ERRORS, **whole})  # fmt: skip
    def get_history(hand_id: IdPath, fmt: HistoryFormat = "phh", caller: Caller = hands) -> Response:
        """The event's play and the result as PHH (phh-std TOML) or Open Hand History JSON (hh-specs 1.4)."""
        body, media = history(*settled_hand(state, hand_id, state.archive_permit(caller))[:2], fmt)
        return Response(body, media_type=media)

    html = {"content": {"text/html": {"schema": {"type": "string"}}}, "description": "The page"}

    @app.get("/hands/{hand_id:path}", response_model=None, responses={200: html, **ERRORS, **whole},
             summary="A settled hand's replay page")  # fmt: skip
    def hand_page(hand_id: IdPath, caller: Caller = hands) -> HTMLResponse:
        """Street by street, the cards drawn: Pennsylvania's replay list (58 Pa. Code 810a.11(a))."""
        event, result, place = settled_hand(state, hand_id, state.archive_permit(caller))
        document = replay_document(event, result, log_line(state, hand_id, place))
        return HTMLResponse(page(document), headers={"Cache-Control": "no-store"})


def _read_routes(app: FastAPI, state: Api, hands: Any, tournaments: Any, letters: Any) -> None:
    """What happened to a hand, results, dead letters, a tournament's standings and its events."""
    settings, api_settings = state.settings, state.api
    limit_query = Query(100, ge=1, le=api_settings.page_max, description="Most items on the page.")

    @app.get("/v1/hands/{hand_id:path}", response_model=Hand, responses={**ERRORS, 404: {"model": Hand}},
             summary="What happened to a hand")  # fmt: skip
    async def get_hand(hand_id: IdPath, caller: Caller = hands) -> Response:
        """``settled``, ``refused``, ``pending`` or ``unknown`` (404, same body), with the result, the dead
        letter and the audit record (null when absent). An id holding ``/`` is sent with it as ``%2F``."""
        body = state.index.cached(hand_id)  # a settled hand: from memory, without a thread
        if body is not None:
            return Response(body, media_type="application/json")
        status, body = await anyio.to_thread.run_sync(state.index.answer, hand_id, state.archive_permit(caller))
        return Response(body, status, media_type="application/json")

    @app.get("/v1/results", response_model=None, responses={200: {"model": ResultsPage}, **ERRORS},
             dependencies=[hands], summary="Results, filtered and paged")  # fmt: skip
    def get_results(  # noqa: PLR0917 - the filters
        player_id: IdQuery = None,
        table_id: IdQuery = None,
        tournament_id: IdQuery = None,
        hand_id: IdQuery = None,
        since: Annotated[str | None, Query(max_length=40, description="An entry id or ISO-8601 time.")] = None,
        cursor: Annotated[str | None, Query(max_length=300, description="A page's `next`.")] = None,
        limit: int = limit_query,
    ) -> Response:
        """Items ``{"shard", "id", "result"}`` in stream order, shard after shard; ``next``: the following page."""
        return json_body(results_page(
            state.client, settings, hand_id=hand_id, player_id=player_id, table_id=table_id,
            tournament_id=tournament_id, since=since, cursor=cursor, limit=limit, scan_max=api_settings.scan_max,
        ))  # fmt: skip

    @app.get("/v1/dead-letters", response_model=None, responses={200: {"model": DeadLettersPage}, **ERRORS},
             dependencies=[letters], summary="Dead letters, filtered and paged")  # fmt: skip
    def get_dead_letters(  # noqa: PLR0917 - the filters
        code: Annotated[str | None, Query(min_length=1, max_length=64, pattern=r"^[a-z_]+$")] = None,
        tournament_id: IdQuery = None,
        hand_id: IdQuery = None,
        since: Annotated[str | None, Query(max_length=40, description="An entry id or ISO-8601 time.")] = None,
        cursor: Annotated[str | None, Query(max_length=300, description="A page's `next`.")] = None,
        limit: int = limit_query,
    ) -> Response:
        """Each letter with its tournament and message type read from its payload, and ``requeued_as``."""
        return json_body(dead_letters_page(
            state.client, settings, code=code, tournament_id=tournament_id, hand_id=hand_id, since=since,
            cursor=cursor, limit=limit, scan_max=api_settings.scan_max,
        ))  # fmt: skip

    @app.get("/v1/tournaments/{tournament_id:path}/standings", response_model=None,
             responses={200: {"model": TournamentStandings}, **ERRORS, 404: {"model": Error},
                        503: {"model": Error, "description": ARCHIVE_503}},
             dependencies=[tournaments], summary="A tournament's standings")  # fmt: skip
    def get_standings(tournament_id: IdPath) -> Response:
        """The placement objects (as ``showdown tournament standings --json``), the entries still playing, the
        prize pool. A finished tournament whose ledger expired is answered from the archive, the same."""
        return json_body(state.standings(tournament_id))

    @app.get("/v1/tournaments/{tournament_id:path}/events", responses={**ERRORS, 404: {"model": Error},
             200: {"content": {"text/event-stream": {}}, "description": "bust and placement events"}},
             response_class=StreamingResponse, dependencies=[tournaments],
             summary="A tournament's busts and placements, live (Server-Sent Events)")  # fmt: skip
    async def get_events(
        request: Request, tournament_id: IdPath,
        last_event_id: Annotated[str | None, Header(max_length=100)] = None,
    ) -> StreamingResponse:  # fmt: skip
        """One ``bust`` event per bust (with the bounty it paid) and one ``placement`` per finished entry, as
        they are committed; resumable with ``Last-Event-ID``: nothing missed, nothing repeated."""
        return await state.events(request, tournament_id, last_event_id)


def _probe_routes(app: FastAPI, state: Api) -> None:
    """``/healthz`` (showdown health's judgement), ``/metrics``, and the orchestrator's ``/livez`` and ``/readyz``."""
    settings = state.settings

    @app.get("/healthz", response_class=PlainTextResponse, summary="The judgement of `showdown health`")
    def healthz() -> PlainTextResponse:
        healthy, lines = health(settings, state.client, growth=False)  # the judgement (archive lag: health's)
        shown = [without_paths(line) for line in lines]  # open to all: no file paths of the server
        return PlainTextResponse("\n".join(shown) + "\n", 200 if healthy else 503)

    @app.get("/metrics", response_class=PlainTextResponse, summary="Prometheus metrics of this API process")
    def metrics() -> Response:
        return Response(generate_latest(state.registry), media_type=CONTENT_TYPE_LATEST)

    # The probes of this process for an orchestrator (compose's healthcheck, Kubernetes' probes: deploy/): /healthz
    # judges the workers by their heartbeat file, which an API container does not share, so it cannot say whether
    # this process is up. Not in the OpenAPI document: no client of the API calls them.
    @app.get("/livez", response_class=PlainTextResponse, include_in_schema=False)
    def livez() -> PlainTextResponse:
        return PlainTextResponse("alive\n")  # answering at all is the point: no Redis asked, never restarted for it

    @app.get("/readyz", response_class=PlainTextResponse, include_in_schema=False)
    def readyz() -> PlainTextResponse:
        try:
            state.client.ping()
        except REDIS_ERRORS as exc:
            return PlainTextResponse(f"not ready: Redis does not answer: {type(exc).__name__}\n", 503)
        return PlainTextResponse("ready: Redis answers\n")


def _floor_routes(app: FastAPI, state: Api) -> None:
    """The floor page of a tournament and what it reads (``SHOWDOWN_API_FLOOR``)."""
    page = (
        files("showdown_service.api")
        .joinpath("floor.html")
        .read_text(encoding="utf-8")
        .replace('content="CURRENCY"', f'content="{state.api.floor_currency or ""}"', 1)
    )  # the currency: three capital letters (ApiSettings), nothing to escape

    @app.get("/floor/{tournament_id}", response_class=HTMLResponse, summary="A tournament's floor page")
    def floor(request: Request, tournament_id: IdPath) -> HTMLResponse:
        state.limit.take("addr:" + (request.client.host if request.client else "?"))
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    @app.get("/floor/{tournament_id}/standings", response_model=Standings, include_in_schema=False)
    def floor_standings(request: Request, tournament_id: IdPath) -> Any:
        state.limit.take("addr:" + (request.client.host if request.client else "?"))
        return state.standings(tournament_id)

    @app.get("/floor/{tournament_id}/events", include_in_schema=False)
    async def floor_events(
        request: Request, tournament_id: IdPath,
        last_event_id: Annotated[str | None, Header(max_length=100)] = None,
    ) -> StreamingResponse:  # fmt: skip
        state.limit.take("addr:" + (request.client.host if request.client else "?"))
        return await state.events(request, tournament_id, last_event_id, floor=True)
