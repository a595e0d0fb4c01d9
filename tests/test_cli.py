"""The showdown command line, as an operator uses it."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from showdown_service.cli import adjudicate_lines, main
from tests.helpers import BUNDLED_SHOWDOWNS, event, read_cases, seat

GOOD = json.dumps(event(seat(1, "As Ad", 500), seat(2, "Kc Kd", 500), board="2c 7d 9h Js 3s", hand_id="good-1"))
GOOD_2 = GOOD.replace("good-1", "good-2")


def test_evaluate_prints_description_category_best_five_and_strength(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "As", "Kd", "7c", "7s", "2h", "Ah", "Ac"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Full house, Aces full of Sevens"
    assert lines[1].split() == ["category", "full_house"]
    assert lines[2].split() == ["best", "five", "As", "Ah", "Ac", "7s", "7c"]
    assert lines[3].split()[0] == "strength"


def test_evaluate_explains_a_bad_card_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "As", "Kd", "1s", "7s", "2h"]) == 2
    assert "cards[2]: '1s' is not a card" in capsys.readouterr().err


def test_adjudicate_keeps_order_and_reports_bad_lines_without_stopping() -> None:
    lines = [GOOD + "\n", "\n", '{"schema_version": 1\n', GOOD_2 + "\n", '{"schema_version": 9}\n']
    out, err = io.StringIO(), io.StringIO()
    assert adjudicate_lines(iter(lines), out, err) == 1
    results = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["hand_id"] for r in results] == ["good-1", "good-2"]
    rejections = [json.loads(line) for line in err.getvalue().splitlines()]
    assert [(r["line"], r["code"]) for r in rejections] == [(3, "malformed_json"), (5, "unsupported_schema_version")]
    assert all(r["message"] for r in rejections)


def test_adjudicate_exits_0_when_every_line_settles() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert adjudicate_lines(iter([GOOD, GOOD_2]), out, err) == 0
    assert err.getvalue() == ""


def test_adjudicate_reads_a_file_and_standard_input(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text(GOOD + "\n" + GOOD_2 + "\n", encoding="utf-8")
    run = [sys.executable, "-m", "showdown_service", "adjudicate"]
    from_file = subprocess.run([*run, str(path)], capture_output=True, text=True, check=True)
    from_stdin = subprocess.run([*run, "-"], input=path.read_text(), capture_output=True, text=True, check=True)
    assert len(from_file.stdout.splitlines()) == len(from_stdin.stdout.splitlines()) == 2


def test_the_bundled_examples_settle_readably(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["adjudicate", "--examples", "--summary"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == sum(1 for _ in read_cases(BUNDLED_SHOWDOWNS))
    assert any("side pot 1" in line for line in lines)
    assert any(" + " in line for line in lines), "some pot is split"


def test_a_closed_pipe_ends_the_output_quietly() -> None:
    with subprocess.Popen(
        [sys.executable, "-m", "showdown_service", "adjudicate", "--examples"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None
        assert proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()
        assert proc.wait(timeout=30) == 141
        assert b"Traceback" not in proc.stderr.read()
