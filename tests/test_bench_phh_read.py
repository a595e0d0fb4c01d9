"""bench.phh_read's race against another checkout (issue 36): both checkouts' figures from one run, CPU time."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bench import phh_read


def test_cpu_race_against_a_checkout_gives_this_and_the_other_checkouts_figure_for_each_contender() -> None:
    calls: list[str] = []
    runs: dict[str, tuple[Callable[[], object], int]] = {
        "read_phh": (lambda: calls.append("read"), 1),
        "machine": (lambda: calls.append("machine"), 1),
    }
    best = phh_read.cpu_race("bench.phh_read", runs, 2, Path(__file__).resolve().parents[1])
    assert calls == ["read", "machine", "read", "machine"]  # two rounds, each contender once a round
    assert set(best) == {"this read_phh", "this machine", "other read_phh", "other machine"}
    assert best["other read_phh"] > 0  # the child read real hands: every 10th Pluribus hand takes CPU time
    assert best["other machine"] > 0


def test_cpu_race_without_a_checkout_gives_this_checkouts_figures_only() -> None:
    best = phh_read.cpu_race("bench.phh_read", {"machine": (lambda: None, 1)}, 1, None)
    assert set(best) == {"this machine"}
