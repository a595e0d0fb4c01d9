"""How long a loop waits after its ``failures``-th failure in a row: bounded exponential backoff with jitter.

One policy for every loop that rides out an outage (the worker's, the
archiver's): ``min(max_s, 0.05 * 2**failures) * uniform(0.5, 1.0)``. The
exponent is capped, so an outage of any length waits ``max_s`` at most
(uncapped, ``0.05 * 2**1024`` raised ``OverflowError`` after about an hour of
retries at 5 s); the jitter keeps workers that lost Redis together from
coming back in step.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

BASE_S = 0.05
"""The first retry's wait before jitter (s): a blip is ridden over in well under a second."""
MAX_DOUBLINGS = 64
"""Doublings counted at most: ``BASE_S * 2**64`` exceeds any ``max_s`` a setting allows."""


@dataclass(frozen=True, slots=True)
class Backoff:
    """Bounded exponential backoff with jitter: :meth:`delay` for the ``failures``-th failure in a row."""

    max_s: float
    """The longest wait (s): ``SHOWDOWN_BACKOFF_MAX_S``."""
    jitter: Callable[[float, float], float] = field(default=random.uniform, repr=False)
    """Draws the factor in [0.5, 1.0] (``random.uniform``; a test passes its own)."""

    def delay(self, failures: int) -> float:
        """The wait (s) after the ``failures``-th failure in a row (1 for the first)."""
        return min(self.max_s, BASE_S * 2.0 ** min(failures, MAX_DOUBLINGS)) * self.jitter(0.5, 1.0)
