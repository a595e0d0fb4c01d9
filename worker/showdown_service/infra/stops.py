"""Stop signals (SIGTERM, SIGINT), honoured from the first instant: the state and handlers every command shares.

:mod:`showdown_service.cli.launch` installs :func:`catch_stop_signals` before it
imports anything heavy; the commands then look at :data:`STOP_REQUESTED`
(the worker) or call :func:`interrupt_on_stop` (everything else). Standard
library only, and no import of the CLI, so that the CLI and the entry point
import this module without importing each other.
"""

from __future__ import annotations

import signal
import threading
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

    Does nothing unless :func:`showdown_service.cli.launch.main` caught the signals: a caller running the CLI
    in its own process (a test) keeps its own handlers.
    """
    if signal.getsignal(signal.SIGTERM) is not _request_stop:
        return
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, _interrupt)
    if STOP_REQUESTED.is_set():
        raise KeyboardInterrupt
