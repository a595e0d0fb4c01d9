"""bench.rake_schedule: issue 38's speed target judged by instructions when counted, else by the CPU median, with a
PASS or FAIL line and exit status."""

from __future__ import annotations

import pytest

from bench import rake_schedule
from bench.rake_schedule import Measured, collected

CALLGRIND = b"""==123== Callgrind, a call-graph generating cache profiler
==123== Events    : Ir
==123== Collected : 187654321
==123==
==123== I   refs:      187,654,321
"""


def test_the_instructions_are_callgrinds_collected_figure() -> None:
    assert collected(CALLGRIND) == 187_654_321
    with pytest.raises(RuntimeError, match="no 'Collected' figure"):
        collected(b"==1== valgrind: failed to start tool")


def test_the_verdict_is_by_instructions_when_counted_whatever_the_cpu_says() -> None:
    noisy = [(10.0, 14.0), (10.0, 9.0), (10.0, 13.0)]  # CPU median 1.3: the neighbours
    assert Measured((100_000.0, 109_000.0), noisy).verdict == "PASS"
    assert Measured((100_000.0, 111_000.0), [(10.0, 10.0)]).verdict == "FAIL"
    line = Measured((100_000.0, 109_000.0), noisy).line()
    assert "instructions 109.0 k / 100.0 k = 1.090" in line
    assert "CPU median of 3 rounds' ratios 1.300, least of 3 0.900" in line
    assert line.endswith("PASS (instructions 1.090 against 1.10)")


def test_without_a_counter_the_verdict_is_the_median_of_the_rounds_ratios() -> None:
    assert Measured(None, [(10.0, 10.5), (10.0, 11.5), (10.0, 10.9)]).verdict == "PASS"  # 1.09
    m = Measured(None, [(10.0, 11.2), (10.0, 10.5), (10.0, 11.5)])  # 1.12, though the least is 1.05
    assert (m.verdict, round(m.least_ratio, 3)) == ("FAIL", 1.05)
    assert "instructions not counted (no valgrind)" in m.line()


def test_a_fail_exits_1_a_pass_0(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(rake_schedule, "measure", lambda rounds: Measured((1.0, 1.2), [(1.0, 1.0)]))
    assert rake_schedule.main([]) == 1
    assert "FAIL" in capsys.readouterr().out
    monkeypatch.setattr(rake_schedule, "measure", lambda rounds: Measured((1.0, 1.05), [(1.0, 1.0)]))
    assert rake_schedule.main(["3"]) == 0


def test_the_rounds_interleave_both_sides_settling_the_benchs_hands() -> None:
    rounds = rake_schedule.cpu_rounds(rounds=2, count=3)
    assert len(rounds) == 2
    assert all(a > 0 and b > 0 for a, b in rounds)
