"""Hostile histories never stop ``showdown replay`` and never match silently (issue 34, items 7 and 8).

A number of thousands of digits, a document nested 100,000 deep, a place of fifty million, a negative stack: each is
that hand's (or that file's) error naming the file and the line, and the files after it are still replayed; a
summary row the reader cannot place, or a second row of one entry, is a difference of the tournament. Line numbers
are a running count: 100,000 hands of one file read the file's text once (the work counted, never timed).

Fixtures: ``tests/fixtures/replay/`` (PokerStars, PHH, GGPoker, Open Hand History, the PokerStars tournament), and
an iPoker session written here from the format (docs/replay.md, iPoker).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from showdown_service.cli.commands import main
from showdown_service.histories import reading
from showdown_service.histories.errors import ReplayError
from showdown_service.histories.ipoker import read_ipoker
from showdown_service.histories.ohh import read_ohh
from showdown_service.histories.summaries import Summary, read_summary
from tests.helpers import FIXTURES, audit_tournaments

FIXTURES = FIXTURES / "replay"
HUGE = "9" * 5000
"""A number of 5,000 digits: more than Python reads into an int (4,300) by default."""
HANDS = 100_000


def _replay(tmp_path: Path, files: dict[str, str]) -> tuple[int, list[dict[str, Any]]]:
    """Write ``files`` (name -> text) into a folder, replay it with a report, and return the status and the report."""
    folder = tmp_path / "paths"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    report = tmp_path / "report.jsonl"
    status = main(["replay", str(folder), "--report", str(report)])
    return status, [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]


def _fixture(path: str) -> str:
    return (FIXTURES / path).read_text(encoding="utf-8")


def _ipoker_game(code: int, stack: str = "$100") -> str:
    """One iPoker game: Ann (button, small blind) folds to Bob's big blind; Bob wins back his blind and Ann's."""
    return f"""  <game gamecode="{code}">
    <general>
      <players>
        <player seat="1" name="Ann" chips="{stack}" dealer="1" win="$0" bet="$0.50" />
        <player seat="2" name="Bob" chips="{stack}" dealer="0" win="$1.50" bet="$1" />
      </players>
    </general>
    <round no="0">
      <action no="1" player="Ann" type="1" sum="$0.50" />
      <action no="2" player="Bob" type="2" sum="$1" />
    </round>
    <round no="1">
      <action no="3" player="Ann" type="0" sum="$0" />
    </round>
  </game>
"""


def _ipoker(*games: str, gametype: str = "Holdem NL $0.50/$1") -> str:
    general = f"<general><gametype>{gametype}</gametype><tablename>Tafel, 1</tablename></general>"
    return (
        f'<?xml version="1.0" encoding="utf-8"?>\n<session sessioncode="1">\n  {general}\n{"".join(games)}</session>\n'
    )


# -- item 7: a number of thousands of digits is one hand's error; the run goes on -----------------------------


def _hostile_cases() -> Iterator[tuple[str, str, str, str, int]]:
    """``(name, hostile text, good text, what the error says, its line)`` per format."""
    stars = _fixture("pokerstars/heads_up_match.txt")
    yield "pokerstars", stars.replace("Ada (1500 in chips)", f"Ada ({HUGE} in chips)", 1), stars, "largest amount", 3
    phh = _fixture("phh/heads_up.phh")
    yield "phh", phh.replace("starting_stacks = [1000,", f"starting_stacks = [{HUGE},"), phh, "4300 digits", 1
    ohh = _fixture("ohh/two_hands.ohh")
    yield "ohh", ohh.replace('"starting_stack": 100}', f'"starting_stack": {HUGE}}}', 1), ohh, "4300 digits", 1
    gg = _fixture("ggpoker/three_hands.txt")
    yield "ggpoker", gg.replace("4f5a6b7c ($5 in chips)", f"4f5a6b7c (${HUGE} in chips)", 1), gg, "largest amount", 3
    good = _ipoker(_ipoker_game(1))
    yield "ipoker", _ipoker(_ipoker_game(1, f"${HUGE}")), good, "largest amount", 4


@pytest.mark.parametrize(
    ("room", "hostile", "good", "says", "line"), [pytest.param(*c, id=c[0]) for c in _hostile_cases()]
)
def test_a_number_of_thousands_of_digits_is_that_hands_error_and_the_next_file_is_replayed(
    tmp_path: Path, room: str, hostile: str, good: str, says: str, line: int
) -> None:
    status, report = _replay(tmp_path, {f"a_{room}.txt": hostile, f"b_{room}.txt": good})
    assert status == 1
    [error] = [r for r in report if r["source"].endswith(f"a_{room}.txt") and r["status"] == "error"]
    assert says in error["reason"], error
    assert error["line"] == line
    assert f"a_{room}.txt:{line}: " in error["reason"]
    after = [r for r in report if r["source"].endswith(f"b_{room}.txt")]
    assert after, "the file after the hostile one was replayed"
    assert all(r["status"] != "error" for r in after), after


def test_an_amount_beyond_the_contracts_bound_is_refused_where_it_is_written(tmp_path: Path) -> None:
    stars = _fixture("pokerstars/heads_up_match.txt").replace("Ben (1500 in chips)", f"Ben ({2**53} in chips)", 1)
    status, report = _replay(tmp_path, {"stars.txt": stars})
    assert status == 1
    [error] = [r for r in report if r["status"] == "error"]
    assert error["line"] == 4
    assert f"'{2**53}' is more than the largest amount the contract carries (2^53-1)" in error["reason"]


def test_ohh_amounts_and_ids_written_with_a_huge_exponent_are_refused_never_expanded(tmp_path: Path) -> None:
    ohh = _fixture("ohh/two_hands.ohh")
    stack = ohh.replace('"starting_stack": 100}', '"starting_stack": 1e999999999}', 1)
    seat = ohh.replace('"seat": 1,', '"seat": 1e999999999,', 1)
    status, report = _replay(tmp_path, {"a_stack.ohh": stack, "b_seat.ohh": seat})
    assert status == 1
    errors = {Path(r["source"]).name: r for r in report if r["status"] == "error"}
    assert "starting_stack: Decimal('1E+999999999') is more than the largest amount" in errors["a_stack.ohh"]["reason"]
    assert "seat: Decimal('1E+999999999') is more than the largest amount" in errors["b_seat.ohh"]["reason"]
    assert sum(r["status"] == "match" for r in report) == 2  # each file's other hand


def test_a_summary_numbered_beyond_reading_is_an_unreadable_summary_and_the_audit_goes_on(tmp_path: Path) -> None:
    summary = _fixture("tournament/summary.txt")
    prize = summary.replace("$10.40 (65%)", f"${HUGE} (65%)")
    count = summary.replace("4 players", f"{HUGE} players")
    for text, line in ((prize, 7), (count, 3)):
        read = read_summary(text, "summary.txt")
        assert isinstance(read, ReplayError)
        assert read.line == line
    status, _, lines = audit_tournaments(
        tmp_path, {"a_summary.txt": prize, "hands.txt": _fixture("tournament/hands.txt")}
    )
    assert status == 1
    unreadable = [d for line in lines for d in line["differences"] if d["kind"] == "summary unreadable"]
    assert len(unreadable) == 1
    assert "a_summary.txt:7" in unreadable[0]["detail"]
    assert any(line["tournament_id"] == "80000001" and line["hands"] == 3 for line in lines)  # its hands still audited


def test_a_pot_numbered_fifty_million_is_refused_never_a_list_of_fifty_million_pots(tmp_path: Path) -> None:
    stars = _fixture("pokerstars/heads_up_match.txt").replace("from pot", "from side pot-50000000", 1)
    status, report = _replay(tmp_path, {"stars.txt": stars})
    assert status == 1
    [error] = report
    assert error["status"] == "error"
    assert error["line"] == 19  # the summary's 'Total pot' line
    assert "pot 50000000: a hand of at most 10 seats has no pot numbered so" in error["reason"]


# -- item 7: documents nested 100,000 deep --------------------------------------------------------------------


def test_documents_nested_a_hundred_thousand_deep_are_errors_and_the_next_file_is_replayed(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    phh = _fixture("phh/heads_up.phh")
    files = {
        "a_deep.ohh": '{"ohh": {"game_number": "1", "rounds": ' + deep + "}}\n",
        "b_deep.phh": phh.replace("antes = [0, 0]", f"antes = {deep}"),
        "c_good.phh": phh,
    }
    status, report = _replay(tmp_path, files)
    assert status == 1
    by_file = {Path(r["source"]).name: r for r in report}
    assert by_file["a_deep.ohh"]["status"] == "error"
    assert "a_deep.ohh:1: nested too deeply to read" in by_file["a_deep.ohh"]["reason"]
    assert by_file["b_deep.phh"]["status"] == "error"
    assert "nested too deeply to read" in by_file["b_deep.phh"]["reason"]
    assert by_file["c_good.phh"]["status"] == "match"


def test_an_open_tournament_summary_nested_a_hundred_thousand_deep_is_an_unreadable_summary() -> None:
    ots = _fixture("ohh/knockout_777.ots").replace('"flags": ["Bounty"]', '"flags": ' + "[" * 100_000 + "]" * 100_000)
    read = read_summary(ots, "deep.ots")
    assert isinstance(read, ReplayError)
    assert str(read) == "deep.ots:1: nested too deeply to read"


# -- item 7: a place of fifty million ---------------------------------------------------------------------------


def test_a_place_of_fifty_million_is_a_difference_never_a_payout_table_of_fifty_million(tmp_path: Path) -> None:
    fourth, far = "Dee finished the tournament in 4th place", "Dee finished the tournament in 50000000th place"
    hands = _fixture("tournament/hands.txt").replace(fourth, f"{far} and received $1.00.")
    status, _, [line] = audit_tournaments(tmp_path, {"hands.txt": hands})
    assert status == 1
    assert [d for d in line["differences"] if d["hand_id"] == "pokerstars:300000000002"] == [
        {"kind": "place", "hand_id": "pokerstars:300000000002",
         "detail": "the history places Dee 50000000; the rules give 4"},
        {"kind": "prize", "hand_id": "pokerstars:300000000002",
         "detail": "the history pays Dee 100; the payouts give 0"},
    ]  # fmt: skip
    assert [(p["player"], p["place"], p["prize"]) for p in line["places"]] == [
        ("Ada", 1, 1040),
        ("Ben", 2, 560),
        ("Cal", 3, 0),
        ("Dee", 4, 0),
    ]  # the payouts the other places print; none for a place past the contract's 100,000


def test_a_place_past_64_bits_is_that_hands_error_never_a_report_that_cannot_be_written(tmp_path: Path) -> None:
    far = "Dee finished the tournament in 99999999999999999999999th place"
    hands = _fixture("tournament/hands.txt").replace("Dee finished the tournament in 4th place", far)
    status, report = _replay(tmp_path, {"hands.txt": hands})
    assert status == 1
    [error] = [r for r in report if r["status"] == "error"]
    assert (error["hand_id"], error["line"]) == ("pokerstars:300000000002", 53)
    assert f"a place beyond any field (2^53-1): '{far}'" in error["reason"]
    assert sum(r["status"] == "match" for r in report) == 2


# -- item 7: line numbers by a running count ----------------------------------------------------------------------


@pytest.fixture
def scanned(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The characters every :class:`~showdown_service.histories.reading.LineCount` reads, counted as they are read."""
    read: list[int] = []
    scan = reading.LineCount._scan

    def counting(self: reading.LineCount, start: int, end: int) -> int:
        read.append(max(0, end - start))
        return scan(self, start, end)

    monkeypatch.setattr(reading.LineCount, "_scan", counting)
    return read


def test_a_hundred_thousand_open_hand_histories_are_numbered_by_one_pass_over_the_file(scanned: list[int]) -> None:
    text = "".join(f'{{"ohh": {{"game_number": "{n}"}}}}\n' for n in range(HANDS))
    errors = list(read_ohh(text, "many.ohh"))
    assert len(errors) == HANDS
    assert all(isinstance(e, ReplayError) and (e.hand, e.line) == (f"ohh:{n}", n + 1) for n, e in enumerate(errors))
    assert sum(scanned) <= len(text)  # each character read once (from the start for every hand: 5 * 10^11)


def test_a_hundred_thousand_ipoker_games_are_numbered_by_one_pass_over_the_file(scanned: list[int]) -> None:
    sessions, games = 100, HANDS // 100
    game = '  <game gamecode="{}">\n  </game>\n'
    text = "".join(
        _ipoker(*(game.format(s * games + g) for g in range(games)), gametype="Nothing") for s in range(sessions)
    )
    errors = list(read_ipoker(text, "many.xml"))
    assert len(errors) == HANDS
    lines_per_session = 4 + 2 * games
    expected = [
        (f"ipoker:{s * games + g}", s * lines_per_session + 4 + 2 * g) for s in range(sessions) for g in range(games)
    ]
    assert [(e.hand, e.line) for e in errors if isinstance(e, ReplayError)] == expected
    assert sum(scanned) <= len(text)


# -- item 8: no silently wrong match ---------------------------------------------------------------------------


def _summary_without_pool(*rows: str) -> str:
    """The tournament's summary without its prize pool line (nothing to add the prizes up to), and ``rows`` added."""
    text = _fixture("tournament/summary.txt").replace("Total Prize Pool: $16.00 USD\n", "")
    return text.replace("  4: Dee (Spain),\n", "  4: Dee (Spain),\n" + "".join(f"  {row}\n" for row in rows))


def test_a_summary_row_placed_beyond_five_digits_is_read_and_a_difference(tmp_path: Path) -> None:
    summary = _summary_without_pool("123456: Zed (Spain), $5.00")
    read = read_summary(summary, "summary.txt")
    assert isinstance(read, Summary)
    assert [(r.place, r.player, r.prize) for r in read.rows][-1] == (123456, "Zed", 500)
    status, _, [line] = audit_tournaments(tmp_path, {"hands.txt": _fixture("tournament/hands.txt"), "s.txt": summary})
    assert status == 1
    assert line["status"] == "mismatch"
    details = [d["detail"] for d in line["differences"] if d["kind"] == "summary place"]
    assert "line 10: the summary places Zed 123456, outside a field of 4 entries" in details
    assert "line 10: the summary places Zed 123456; the hands leave them never finishing" in details


def test_full_tilt_and_ggpoker_rows_of_any_place_are_read_or_refused_naming_the_line() -> None:
    tilt = _fixture("fulltilt/sit_and_go_summary.txt")
    read = read_summary(tilt.replace("3: Cid", "3000000: Cid"), "tilt.txt")
    assert isinstance(read, Summary)
    assert [(r.place, r.player) for r in read.rows] == [(1, "Ann"), (2, "Bob"), (3000000, "Cid")]
    for text, line in (
        (tilt.replace("3: Cid", f"{HUGE}: Cid"), 10),
        (_fixture("ggpoker/bounty_tournament_summary.txt").replace("1st : Hero", f"{HUGE}th : Hero"), 6),
    ):
        error = read_summary(text, "summary.txt")
        assert isinstance(error, ReplayError)
        assert str(error) == f"summary.txt:{line}: place {'9' * 24}... (5000 digits) is more than any field (2^53-1)"


def test_a_second_summary_row_of_one_entry_is_a_difference(tmp_path: Path) -> None:
    summary = _summary_without_pool("2: Ben (Germany), $5.60 (35%)")
    status, _, [line] = audit_tournaments(tmp_path, {"hands.txt": _fixture("tournament/hands.txt"), "s.txt": summary})
    assert status == 1
    assert line["differences"] == [
        {"kind": "summary row", "hand_id": None, "detail": "line 10: a second row of Ben (the first at line 7)"}
    ]


def test_an_ipoker_game_with_a_negative_stack_is_malformed(tmp_path: Path) -> None:
    status, report = _replay(tmp_path, {"negative.xml": _ipoker(_ipoker_game(7, "-$100"), _ipoker_game(8))})
    assert status == 1
    assert [(r["hand_id"], r["status"]) for r in report] == [("ipoker:7", "error"), ("ipoker:8", "match")]
    assert "'-$100' is negative" in report[0]["reason"]
    assert "negative.xml:4: " in report[0]["reason"]
