"""``showdown rake``: the schedules known, and what one takes from a pot (the amount alone on the first line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from showdown_service.cli.commands import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(["rake", *argv])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_rake_list_names_every_shipped_schedule_by_id(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "--list")
    assert code == 0
    assert [line.split()[0] for line in lines] == [
        "888poker-usd-nl-pl", "bodog-usd-nl-pl", "live-usd-fixed-drop", "pokerstars-de-eur-nl-pl",
        "pokerstars-usd-nl-pl",
    ]  # fmt: skip
    assert lines[-1].endswith("2012-01-01.. percentage  data/rake/pokerstars-usd-nl-pl.json")


def test_rake_id_prints_the_amount_in_minor_units_on_the_first_line(capsys: pytest.CaptureFixture[str]) -> None:
    # PokerStars USD NL $0.05/$0.10: 4.50%, cap $1.50 for 5+ players dealt in
    code, lines, _ = run(capsys, "pokerstars-usd-nl-pl", "--pot", "5000", "--players", "5", "--big-blind", "10")
    assert (code, lines[0]) == (0, "150")
    assert lines[2] == "rule       4.5% (half_even), caps 50 / 100 / 150 for 2 / 3-4 / 5+ players"
    assert run(capsys, "pokerstars-usd-nl-pl", "--pot", "2468", "--players", "5", "--big-blind", "10")[1][0] == "111"
    assert run(capsys, "pokerstars-de-eur-nl-pl", "--pot", "90", "--players", "2", "--big-blind", "2")[1][0] == "4"
    assert run(capsys, "bodog-usd-nl-pl", "--pot", "399", "--players", "3", "--big-blind", "25")[1][0] == "19"


def test_rake_first_round_is_no_flop_no_drop(capsys: pytest.CaptureFixture[str]) -> None:
    lines = run(
        capsys, "live-usd-fixed-drop", "--pot", "5000", "--players", "6", "--big-blind", "500", "--first-round"
    )[1]
    assert lines[0] == "0"
    assert lines[-1] == "first round: no flop, no drop"


def test_rake_refuses_unknown_ids_and_stakes_with_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "nowhere", "--pot", "100", "--players", "2")
    assert (code, err.strip()) == (2, "showdown rake: 'nowhere' is no schedule known (see showdown rake --list)")
    code, _, err = run(capsys, "pokerstars-usd-nl-pl", "--pot", "100", "--players", "2", "--big-blind", "1000")
    assert code == 2
    assert "posts no rake for big blind 1000" in err
    assert run(capsys, "pokerstars-usd-nl-pl")[0] == 2


def test_rake_lists_the_directory_settings_schedules_and_refuses_a_bad_file_by_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOWDOWN_RAKE_SCHEDULES_DIR", str(tmp_path))
    room = {"format": "showdown.rake_schedule", "format_version": 1, "id": "my-room", "room": "Mine",
            "currency": "GBP", "games": ["holdem"], "versions": [{"effective_from": "2026-01-01",
            "mode": "percentage", "stakes": [{"percent": 5}]}]}  # fmt: skip
    (tmp_path / "my-room.json").write_text(json.dumps(room, indent=1))
    code, lines, _ = run(capsys, "--list")
    assert code == 0
    assert any(line.startswith("my-room  Mine  GBP") for line in lines)
    assert run(capsys, "my-room", "--pot", "1010", "--players", "2")[1][0] == "50"  # 50.5 -> 50
    room["versions"][0]["stakes"][0]["percent"] = 120  # type: ignore[index]
    (tmp_path / "my-room.json").write_text(json.dumps(room, indent=1))
    code, _, err = run(capsys, "--list")
    assert code == 2
    assert err.strip() == f"showdown: {tmp_path / 'my-room.json'}:16: versions[0].stakes[0].percent: 120% is over 100%"
