"""A refusal is named, not silent (issue 36): the replay's summary counts the hands settled with their betting
played by the state machine (by their event's ``play``, or by the PHH reader) and those without, by why; each
hand's report line says the same, the state machine's message with it."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest

from showdown_service.cli.commands import main
from showdown_service.histories.compare import Verdict
from showdown_service.histories.report import Summary
from tests.helpers import REPO

FIXTURES = REPO / "tests" / "fixtures" / "replay"
STARS = FIXTURES / "pokerstars"
FILES = [
    FIXTURES / "phh" / "heads_up.phh",  # played by the PHH reader
    STARS / "games" / "stud.txt",  # by its play
    STARS / "games" / "five_card_draw.txt",  # its bet after the draw is the small bet: refused
    STARS / "capped.txt",  # a capped round: no play written
    FIXTURES / "ohh" / "two_hands.ohh",  # two hands of a reader that writes no play (Open Hand History's)
    STARS / "games" / "stud_deck_runs_out.txt",  # not read (no event): not counted
]
REFUSED = "the betting as written is refused by the state machine"
LINES = f"""\
  with the betting played             2
    by its event's play               1
    by the PHH reader                 1
  without the betting played          4
    without: a capped betting round   1
    without: its reader writes no play (ohh)  2
    without: {REFUSED} (raise_below_minimum)  1
"""


def test_the_summary_counts_the_hands_with_their_betting_played_and_those_without_by_why(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["replay", *map(str, FILES)]) == 1  # the stud hand whose deck ran out is not read
    out = capsys.readouterr().out
    assert LINES in out
    before, after = out.split(LINES)
    assert before.endswith("  money in = money out                held for 6 hands settled\n")
    assert after.startswith("  rake total")


def test_the_betting_lines_do_not_widen_the_summarys_other_lines(capsys: pytest.CaptureFixture[str]) -> None:
    """The other lines stay as they were, byte for byte: a long reason is not padded against."""
    assert main(["replay", *map(str, FILES)]) == 1  # the stud hand whose deck ran out is not read
    out = capsys.readouterr().out
    assert LINES in out
    others = [line for line in out.splitlines() if line not in LINES.splitlines()]
    assert "  hands read                          7" in others
    assert max(len(line) for line in others if line.startswith("  money")) == len(
        "  money in = money out                held for 6 hands settled"
    )


def test_each_report_line_says_how_its_betting_was_played_or_why_not(tmp_path: Path) -> None:
    report = tmp_path / "report.jsonl"
    main(["replay", *map(str, FILES), "--report", str(report)])
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    betting = {line["hand_id"]: line.get("betting") for line in lines}
    assert betting["phh:heads_up.phh"] == {"played": True, "by": "reader"}
    assert betting["pokerstars:30500000001"] == {"played": True, "by": "play"}
    assert betting["pokerstars:64100000001"] == {
        "played": False,
        "why_not": f"{REFUSED} (raise_below_minimum)",
        "detail": "play.actions[14] 'p1 cbr 10': p1 (seat 4): fixed limit: the raise is to 20",
    }
    assert betting["pokerstars:133000000001"] == {"played": False, "why_not": "a capped betting round"}
    assert betting["pokerstars:30600000001"] is None  # an error: no event, nothing to play


def test_only_the_hands_settled_are_counted_and_a_summary_without_any_has_no_betting_lines() -> None:
    summary = Summary()
    summary.add(Verdict("f", "h1", 1, "error", "unsupported", "why", {}, {}, False, 0))
    assert "betting" not in _written(summary)
    settled = Verdict("f", "h2", 9, "match", "", "", {}, {}, True, 0, "Razz", "razz", betting="play")
    summary.add(settled)
    out = _written(summary)
    assert "    by its event's play" in out
    counts = {line.split("  ")[1].strip(): line.split()[-1] for line in out.splitlines() if "betting" in line}
    assert counts == {"with the betting played": "1", "without the betting played": "0"}


def _written(summary: Summary) -> str:
    out = StringIO()
    summary.write(out)
    return out.getvalue()
