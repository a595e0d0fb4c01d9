"""Timing helpers: interleaved rounds, best-of, per-operation figures."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass


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


@dataclass(frozen=True)
class Ratios:
    """A side B measured against a side A (``bench.rake_schedule``, ``bench.play``): instructions an event by
    callgrind, and CPU per event in interleaved rounds; the ratios B / A each bench judges by."""

    instructions: tuple[float, float] | None
    """Instructions an event, (A, B); None without valgrind."""
    rounds: list[tuple[float, float]]
    """CPU microseconds an event a round, (A, B)."""

    @property
    def instruction_ratio(self) -> float | None:
        return None if self.instructions is None else self.instructions[1] / self.instructions[0]

    @property
    def median_ratio(self) -> float:
        return statistics.median(b / a for a, b in self.rounds)

    @property
    def least_ratio(self) -> float:
        return min(b for _, b in self.rounds) / min(a for a, _ in self.rounds)
