"""bench.play: issue 36's speed target (a hand with ``play`` within 2x of the same hand without) judged by the larger
of the instructions' ratio and the CPU median of interleaved rounds, with a PASS or FAIL line and exit status."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import play
from bench.play import Measured
from tests.helpers import REPO


def test_the_verdict_is_the_larger_of_the_instructions_and_the_cpu_median() -> None:
    """The betting is Python bytecode beside pydantic-core's Rust: fewer instructions a cycle, so the instructions
    alone read the play cheaper than the CPU finds it."""
    cheap_by_instructions = Measured((500_000.0, 900_000.0), [(150.0, 330.0), (150.0, 345.0), (150.0, 320.0)])
    assert (cheap_by_instructions.instruction_ratio, cheap_by_instructions.verdict) == (1.8, "FAIL")  # CPU 2.2
    line = cheap_by_instructions.line()
    assert "instructions 900.0 k / 500.0 k = 1.800" in line
    assert "CPU median of 3 rounds' ratios 2.200 (330 us / 150 us), least of 3 2.133" in line
    assert line.endswith("FAIL (the larger 2.200 against 2.00)")
    assert Measured((500_000.0, 1_050_000.0), [(150.0, 280.0)]).verdict == "FAIL"  # instructions 2.1, CPU 1.87
    assert Measured((500_000.0, 950_000.0), [(150.0, 290.0), (150.0, 310.0), (150.0, 295.0)]).verdict == "PASS"


def test_without_a_counter_the_verdict_is_the_median_of_the_rounds_ratios() -> None:
    assert Measured(None, [(100.0, 190.0), (100.0, 260.0), (100.0, 199.0)]).verdict == "PASS"  # 1.99
    m = Measured(None, [(100.0, 205.0), (100.0, 150.0), (100.0, 230.0)])  # 2.05, though the least is 1.5
    assert (m.verdict, m.least_ratio) == ("FAIL", 1.5)
    assert "instructions not counted (no valgrind)" in m.line()
    assert m.line().endswith("FAIL (CPU median 2.050 against 2.00)")


def test_a_fail_exits_1_a_pass_0(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(play, "measure", lambda rounds, against: {"this": Measured((1.0, 2.1), [(1.0, 1.5)])})
    assert play.main([]) == 1
    assert "FAIL" in capsys.readouterr().out
    monkeypatch.setattr(play, "measure", lambda rounds, against: {"this": Measured((1.0, 1.9), [(1.0, 1.95)])})
    assert play.main(["--rounds", "3"]) == 0
    assert capsys.readouterr().out.startswith("with play / without: instructions")


def test_against_a_checkout_both_are_judged_and_the_verdict_is_this_ones(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    measured = {"this": Measured((1.0, 1.9), [(1.0, 1.8)]), "other": Measured((1.0, 2.2), [(1.0, 2.4)])}
    monkeypatch.setattr(play, "measure", lambda rounds, against: measured)
    assert play.main(["--against", "/nowhere"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("this: with play / without")
    assert "PASS (the larger 1.900 against 2.00)" in out[0]
    assert out[1].startswith("other: with play / without")
    assert "FAIL (the larger 2.400" in out[1]
    assert out[2:] == [
        "with play, other / this: instructions 1.158",
        "with play, other / this: CPU median of the rounds' ratios 1.333",
    ]


@pytest.fixture(scope="module")
def a_few_hands() -> tuple[list[bytes], list[bytes]]:
    plain, played = play.entries()
    assert len(plain) == len(played) == 685  # every 10th Pluribus hand: all of them settle, with play and without
    assert all(b'"play"' in e and b'"play"' not in p for p, e in zip(plain, played, strict=True))
    return plain[:3], played[:3]


def test_the_rounds_interleave_both_sides_judging_the_benchs_hands(
    a_few_hands: tuple[list[bytes], list[bytes]],
) -> None:
    rounds = play.cpu_rounds(*a_few_hands, rounds=2)
    assert len(rounds) == 2
    assert all(a > 0 and b > 0 for a, b in rounds)


def test_the_counted_child_judges_every_hand_of_its_side_from_the_file(
    a_few_hands: tuple[list[bytes], list[bytes]], tmp_path: Path
) -> None:
    """What callgrind counts (here without it): the side's hands read back from the parent's file, each judged."""
    events = tmp_path / "events.json"
    play.write_events(*a_few_hands, events)
    assert play.read_events(events) == {"without": a_few_hands[0], "with": a_few_hands[1]}
    assert play.child("with", events) == 3
    assert play.child("without", events) == 3


def test_raced_rounds_give_this_and_the_other_checkouts_rounds_from_child_processes(
    a_few_hands: tuple[list[bytes], list[bytes]], tmp_path: Path
) -> None:
    events = tmp_path / "events.json"
    play.write_events(*a_few_hands, events)
    this, other = play.raced_rounds(events, REPO, 2)
    assert len(this) == len(other) == 2
    assert all(a > 0 and b > 0 for a, b in this + other)
