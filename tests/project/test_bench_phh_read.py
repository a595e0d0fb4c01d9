"""bench.phh_read's race against another checkout (issue 36): both checkouts' figures from one run, CPU time."""

from __future__ import annotations

from collections.abc import Callable

from bench import phh_read
from tests.helpers import REPO


def test_cpu_race_against_a_checkout_gives_this_and_the_other_checkouts_figure_for_each_contender() -> None:
    """Both sides run alike, each in a child process of its own: the parent's contenders are not timed."""
    calls: list[str] = []
    runs: dict[str, tuple[Callable[[], object], int]] = {"read_phh": (lambda: calls.append("read"), 1)}
    best = phh_read.cpu_race("bench.phh_read", runs, 2, REPO)
    assert calls == []
    assert set(best) == {"this read_phh", "this machine", "other read_phh", "other machine"}
    assert min(best.values()) > 0  # each child read real hands: every 10th Pluribus hand takes CPU time


def test_cpu_race_without_a_checkout_times_this_process_contenders_once_a_round() -> None:
    calls: list[str] = []
    best = phh_read.cpu_race("bench.phh_read", {"machine": (lambda: calls.append("machine"), 1)}, 3, None)
    assert calls == ["machine"] * 3
    assert set(best) == {"this machine"}
