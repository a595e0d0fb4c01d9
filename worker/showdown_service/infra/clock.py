"""The clock a loop reads: monotonic time for its schedules (claims, heartbeats, waits), wall time for what it reports.

:data:`SYSTEM_CLOCK` is the real one (``time.monotonic`` and ``time.time``
themselves, no wrapper on the hot path); a test passes a clock of its own
and moves it by hand, so a schedule (the next claim, the next heartbeat) is
driven without sleeping.
"""

from __future__ import annotations

import time as _time
from typing import Protocol


class Clock(Protocol):
    """What the worker asks of a clock."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (schedules and durations)."""

    def time(self) -> float:
        """Seconds since the epoch (what is reported: when a wait began, when the worker stopped)."""


class SystemClock:
    """The real clock."""

    __slots__ = ()
    monotonic = staticmethod(_time.monotonic)
    time = staticmethod(_time.time)


SYSTEM_CLOCK: Clock = SystemClock()
