"""Exact equity (issue 39): heads-up preflop hold'em, every one of the 1,712,304 boards, against 100 ms.

Measures :func:`showdown_core.equity.equity` for AsKc against 7h7c with no board (the issue's target: under
100 ms with the batch evaluator's tables), best of a few rounds, wall time and this process's CPU time (on a
shared machine the CPU time is the one that does not count other processes' turns); and a flop spot and a
three-way preflop spot beside it.

Run: ``python -m bench.equity`` (or ``make bench`` for every benchmark).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from bench import Figure, Section
from showdown_core import Card, parse_cards
from showdown_core.equity import equity
from showdown_core.variants import VARIANTS

TARGET = 0.100
"""Seconds: the issue's target for heads-up preflop hold'em."""
ROUNDS = 5

SPOTS: tuple[tuple[str, str, Sequence[str], Sequence[str]], ...] = (
    ("heads-up preflop (1,712,304 boards)", "holdem", (), ("AsKc", "7h7c")),
    ("three-way preflop (1,370,754 boards)", "holdem", (), ("AsKs", "QsJs", "2d2c")),
    ("heads-up on the flop (990 boards)", "holdem", ("Ah", "7d", "2c"), ("AsKc", "7h7c")),
    ("Omaha Hi/Lo heads-up preflop (1,086,008 boards)", "omaha_hilo", (), ("Ah2h3dKd", "KsQsJcTc")),
    ("short deck heads-up preflop (201,376 boards)", "short_deck", (), ("AsKs", "7h7c")),
    ("Omaha Hi/Lo heads-up on the flop (903 boards)", "omaha_hilo", ("4c", "5d", "9s"), ("Ah2hKcQd", "Ad3sKdQc")),
)


def _hand(text: str) -> tuple[Card, ...]:
    return parse_cards([text[i : i + 2] for i in range(0, len(text), 2)])


def best_times(variant: str, board: Sequence[str], hands: Sequence[str]) -> tuple[float, float]:
    """Best wall and best CPU seconds of one equity over ``ROUNDS`` rounds (after one to warm up)."""
    game, known, holes = VARIANTS[variant], parse_cards(board), [_hand(h) for h in hands]
    equity(game, holes, known)
    wall = cpu = float("inf")
    for _ in range(ROUNDS):
        start, start_cpu = time.perf_counter(), time.process_time()
        equity(game, holes, known)
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu


def section() -> Section:
    rows = ["| spot | wall (best of 5) | CPU (best of 5) |", "|---|---:|---:|"]
    headline = (0.0, 0.0)
    for label, variant, board, hands in SPOTS:
        wall, cpu = best_times(variant, board, hands)
        if variant == "holdem" and not board and len(hands) == 2:
            headline = (wall, cpu)
        rows.append(f"| {label} | {wall * 1e3:.1f} ms | {cpu * 1e3:.1f} ms |")
    wall, cpu = headline
    markdown = "\n".join(
        [
            "## Exact equity",
            "",
            "`showdown_core.equity.equity`, every remaining board enumerated (`python -m bench.equity`). Target: "
            f"heads-up preflop hold'em under {TARGET * 1e3:.0f} ms; measured {wall * 1e3:.1f} ms wall, "
            f"{cpu * 1e3:.1f} ms of CPU.",
            "",
            *rows,
            "",
        ]
    )
    return Section(markdown, [Figure("equity: heads-up preflop, 100 ms / CPU time", TARGET / cpu, 1.0)])


def main() -> None:
    print(section().markdown)


if __name__ == "__main__":
    main()
