"""The ``showdown`` entry point: stop signals are honoured from the first instant.

Importing the CLI builds the evaluator's tables and loads pydantic, redis
and friends (about half a second). A SIGTERM in that window would kill the
process with the default action. This module installs the stop handlers
first, imports only the standard library, and hands over; a stop that
arrived early is still honoured (the worker exits 0 without settling
anything).
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

STOP_REQUESTED = threading.Event()
"""Set by SIGTERM or SIGINT; the worker checks it before it starts and while it runs."""


def _request_stop(_signum: int, _frame: FrameType | None) -> None:
    STOP_REQUESTED.set()


def main(argv: Sequence[str] | None = None) -> int:
    """Install the stop handlers, then run the CLI."""
    signal.signal(signal.SIGTERM, _request_stop)
    signal.signal(signal.SIGINT, _request_stop)
    from showdown_service.cli import main as cli_main  # noqa: PLC0415 - the point: after the handlers

    return cli_main(argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
