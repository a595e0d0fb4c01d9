"""``showdown api [--host H] [--port P]``: serve the read API with uvicorn."""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time

from showdown_service import heartbeat, logs
from showdown_service.config import Settings


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
    from showdown_service.connection import connect  # noqa: PLC0415 - see above

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
    try:
        uvicorn.Server(config(app, host=args.host, port=args.port, head_timeout_s=api.head_timeout_s)).run()
    finally:
        stopping.set()
        heartbeat.write(beat, {"stopped_at": time.time()})
        beating.close()
    return 0
