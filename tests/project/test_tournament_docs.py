"""docs/tournaments.md's worked example is what the code does: its input file, the hand's bounties and the
standings, regenerated here by the commands the page names."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.helpers import REPO

PAGE = (REPO / "docs" / "tournaments.md").read_text(encoding="utf-8")
EXAMPLE = REPO / "docs" / "examples" / "pko-chop.jsonl"
SHOWDOWN = [sys.executable, "-m", "showdown_service"]


def showdown(*args: str, stdin: str | None = None) -> str:
    done = subprocess.run([*SHOWDOWN, *args], input=stdin, capture_output=True, text=True, check=True, cwd=REPO)
    return done.stdout


def test_the_worked_examples_input_is_shown_whole() -> None:
    assert EXAMPLE.read_text(encoding="utf-8").strip() in PAGE


def test_the_worked_examples_bounty_split_is_what_adjudicate_prints() -> None:
    event = json.loads(EXAMPLE.read_text(encoding="utf-8").splitlines()[-1])["event"]
    result = json.loads(showdown("adjudicate", "-", stdin=json.dumps(event)).splitlines()[0])
    assert f"```json\n{json.dumps(result['bounties'])}\n```" in PAGE


def test_the_worked_examples_standings_are_what_the_replay_prints() -> None:
    assert f"```text\n{showdown('tournament', 'replay', str(EXAMPLE))}```" in PAGE
    assert f"```json\n{showdown('tournament', 'replay', '--json', str(EXAMPLE))}```" in PAGE


DEAL = REPO / "docs" / "examples" / "deal-icm.jsonl"
MYSTERY = REPO / "docs" / "examples" / "mystery-stage.jsonl"


def test_the_deal_and_mystery_examples_inputs_are_shown_whole() -> None:
    for example in (DEAL, MYSTERY):
        assert f"```json\n{example.read_text(encoding='utf-8').strip()}\n```" in PAGE


def test_the_deal_example_standings_are_what_the_replay_prints() -> None:
    assert f"```text\n{showdown('tournament', 'replay', str(DEAL))}```" in PAGE
    assert f"```json\n{showdown('tournament', 'replay', '--json', str(DEAL))}```" in PAGE
    assert "deal (icm, 1000 left to play for): ana#1 7531, ben#1 7198, cai#1 6871" in PAGE


def test_the_mystery_example_standings_are_what_the_replay_prints() -> None:
    assert f"```text\n{showdown('tournament', 'replay', str(MYSTERY))}```" in PAGE


def test_the_icm_example_is_what_showdown_icm_prints() -> None:
    out = showdown("icm", "--stacks", "1500,1200,975", "--prizes", "9000,7600,5000")
    assert f"```text\n{out}```" in PAGE
    as_json = showdown("icm", "--stacks", "1500,1200,975", "--prizes", "9000,7600,5000", "--json").strip()
    assert f"`{as_json}`" in PAGE
