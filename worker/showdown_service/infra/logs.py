"""Logging: structlog, one JSON object per line on stdout.

Event names are fixed words (``entry``, ``redis_unavailable``); the facts
are fields. Every worker line carries the bound ``worker`` and ``shard``;
per-entry lines add ``hand_id`` and ``table_id``.
"""

from __future__ import annotations

import logging
import sys
from typing import BinaryIO

import orjson
import structlog


def configure(level: str = "info", stream: BinaryIO | None = None) -> None:
    """JSON lines to ``stream`` (default stdout), filtered at ``level``."""
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.dict_tracebacks,
            structlog.processors.JSONRenderer(serializer=orjson.dumps),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelNamesMapping()[level.upper()]),
        logger_factory=structlog.BytesLoggerFactory(file=stream or sys.stdout.buffer),
        cache_logger_on_first_use=True,
    )


def get_logger(**context: object) -> structlog.typing.FilteringBoundLogger:
    """A logger with ``context`` bound to every line."""
    logger: structlog.typing.FilteringBoundLogger = structlog.get_logger().bind(**context)
    return logger
