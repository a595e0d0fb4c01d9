"""The I/O shell of showdown: event intake, result output, the CLI (and later the worker, audit and replay).

Everything that touches bytes, clocks, files or Redis lives here; the
settlement itself is :mod:`showdown_core`.
"""

__version__ = "0.1.0"

EVALUATOR = f"showdown/{__version__}"
"""Identifies the settling software in every result (``ShowdownResult.evaluator``)."""
