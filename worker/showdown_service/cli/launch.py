"""The ``showdown`` entry point: stop signals are honoured from the first instant.

Importing the CLI builds the evaluator's tables and loads pydantic, redis
and friends (about half a second). A SIGTERM in that window would kill the
process with the default action. This module installs the stop handlers
first (:mod:`showdown_service.infra.stops`, standard library only), and hands
over; a stop that arrived early is still honoured (the worker exits 0
without settling anything).

Only the worker finishes what it holds before it stops; every other command
calls :func:`~showdown_service.infra.stops.interrupt_on_stop` once its arguments
are read, so that Ctrl-C and SIGTERM end it at once (``results --follow``, a
replay, the demo).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from showdown_service.infra.stops import catch_stop_signals


def main(argv: Sequence[str] | None = None) -> int:
    """Install the stop handlers, then run the CLI."""
    catch_stop_signals()
    from showdown_service.cli.commands import main as cli_main  # noqa: PLC0415 - the point: after the handlers

    return cli_main(argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
