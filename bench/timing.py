"""Timing helpers: interleaved rounds, best-of, per-operation figures."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping


def per_op(fn: Callable[[], object], ops: int) -> float:
    """Seconds per operation for one call of ``fn`` that performs ``ops`` operations."""
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) / ops


def race(contenders: Mapping[str, tuple[Callable[[], object], int]], rounds: int = 5) -> dict[str, float]:
    """Best seconds-per-op of each contender over ``rounds`` interleaved rounds.

    Interleaving (A, B, C, A, B, C, ...) spreads the machine's noise over
    every contender alike; the best round is the least disturbed one.
    """
    best = dict.fromkeys(contenders, float("inf"))
    for _ in range(rounds):
        for name, (fn, ops) in contenders.items():
            best[name] = min(best[name], per_op(fn, ops))
    return best


def fmt_time(seconds: float) -> str:
    """Human time per operation: ``183 ns``, ``2.4 us``, ``260 us``."""
    if seconds < 1e-6:
        return f"{seconds * 1e9:.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.3g} us"
    return f"{seconds * 1e3:.3g} ms"
