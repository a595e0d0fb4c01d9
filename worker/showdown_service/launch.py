"""The ``showdown`` entry point: stop signals are honoured from the first instant.

Importing the CLI builds the evaluator's tables and loads pydantic, redis
and friends (about half a second). A SIGTERM in that window would kill the
process with the default action. This module installs the stop handlers
first, imports only the standard library, and hands over; a stop that
arrived early is still honoured (the worker exits 0 without settling
anything).

Only the worker finishes what it holds before it stops; every other command
calls :func:`interrupt_on_stop` once its arguments are read, so that Ctrl-C
and SIGTERM end it at once (``results --follow``, a replay, the demo).
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


def _interrupt(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def catch_stop_signals() -> None:
    """From now on SIGTERM and SIGINT only set :data:`STOP_REQUESTED`: the caller stops when it looks."""
    signal.signal(signal.SIGTERM, _request_stop)
    signal.signal(signal.SIGINT, _request_stop)


def interrupt_on_stop() -> None:
    """From now on SIGTERM and SIGINT raise KeyboardInterrupt (so ``with`` blocks clean up); so does a stop
    that already arrived while the CLI was loading.

    Does nothing unless :func:`main` caught the signals: a caller running the CLI
    in its own process (a test) keeps its own handlers.
    """
    if signal.getsignal(signal.SIGTERM) is not _request_stop:
        return
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, _interrupt)
    if STOP_REQUESTED.is_set():
        raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """Install the stop handlers, then run the CLI."""
    catch_stop_signals()
    from showdown_service.cli import main as cli_main  # noqa: PLC0415 - the point: after the handlers

    return cli_main(argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
