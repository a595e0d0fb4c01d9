"""``showdown api [--host H] [--port P]``: serve the read API with uvicorn."""

from __future__ import annotations

import argparse
import json
import socket
import sys
import threading
import time
from typing import TYPE_CHECKING

from showdown_service import __version__
from showdown_service.infra import logs
from showdown_service.infra.config import Settings
from showdown_service.ops import heartbeat

if TYPE_CHECKING:
    from showdown_service.api.settings import ApiSettings


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``api`` to the ``showdown`` command line."""
    a = commands.add_parser(
        "api", help="serve the read API (hands, tournaments, dead letters, results; SSE; floor pages) over HTTP"
    )
    a.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    a.add_argument("--port", type=int, default=8080, help="port to listen on (default 8080; 0: any free one)")
    a.add_argument("--openapi", action="store_true", help="print the OpenAPI document and exit (docs/openapi.json)")
    a.set_defaults(run=run, finishes_on_stop=True)


def openapi_document() -> dict[str, object]:
    """The API's OpenAPI document, as committed in docs/openapi.json (no Redis is asked)."""
    import redis  # noqa: PLC0415 - only to build the app

    from showdown_service.api.app import create_app  # noqa: PLC0415 - see run()
    from showdown_service.api.settings import ApiSettings  # noqa: PLC0415 - see run()

    return create_app(Settings(), ApiSettings.model_construct(), redis.Redis()).openapi()  # defaults, not the env


def run(args: argparse.Namespace) -> int:
    if args.openapi:
        sys.stdout.write(json.dumps(openapi_document(), indent=2) + "\n")
        return 0
    import uvicorn  # noqa: PLC0415 - only this command needs the server

    from showdown_service.api.app import create_app  # noqa: PLC0415 - see above
    from showdown_service.api.archive import lookup  # noqa: PLC0415 - see above
    from showdown_service.api.server import config  # noqa: PLC0415 - see above
    from showdown_service.api.settings import ApiSettings  # noqa: PLC0415 - see above
    from showdown_service.infra.connection import connect  # noqa: PLC0415 - see above

    settings = Settings()
    api = ApiSettings()
    logs.configure(settings.log_level)
    beat = settings.api_heartbeat  # its own heartbeat (never the workers'), held until it ends; its /metrics is
    beating = heartbeat.claim(beat, heartbeat.API)  # served on its own port, beside the routes
    client = connect(settings)
    app = create_app(settings, api, client, archive=lookup(settings, client))
    heartbeat.write(beat)
    stopping = threading.Event()
    threading.Thread(target=heartbeat.keep_beating, args=(beat, stopping), name="heartbeat", daemon=True).start()
    started = started_line(settings, api)

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:  # bound: the address is known (the port too, when --port 0 chose one)
                host, port = self.servers[0].sockets[0].getsockname()[:2]
                logs.get_logger(component="api").info("api_started", address=f"http://{host}:{port}", **started)

    try:
        Server(config(app, host=args.host, port=args.port, head_timeout_s=api.head_timeout_s)).run()
    finally:
        stopping.set()
        heartbeat.write(beat, {"stopped_at": time.time()})
        beating.close()
    return 0


def started_line(settings: Settings, api: ApiSettings) -> dict[str, object]:
    """What ``showdown api`` logs once it listens (beside its address): what it reads and who may read it. Names
    and counts only: never a token, its digest or a password."""
    names = [token.name for token in api.tokens]
    return {
        "version": __version__,
        "shards": list(settings.shards),
        "archive": settings.archive_url,
        "auth": f"bearer tokens: {', '.join(names)}" if names else "no tokens: every /v1 request is refused (401)",
        "floor": "on: /floor/<tournament id> needs no token" if api.floor else "off",
    }
