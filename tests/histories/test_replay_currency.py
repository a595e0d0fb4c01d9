"""Issue 36 item 4, the replay's side: each hand's currency as its history writes it, and no figure of a replay
adding two currencies (the rake total per currency, a run over mixed files saying so)."""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from showdown_service.cli.commands import main
from showdown_service.histories.compare import judge
from showdown_service.histories.currency import CHIPS, currency_code
from showdown_service.histories.report import Summary
from showdown_service.histories.run import read_file
from tests.helpers import REPO, SHARED_DATA

IPOKER = SHARED_DATA / "rooms" / "IPoker"
FIXTURES = REPO / "tests" / "fixtures" / "replay"
_TABLE_CURRENCY = re.compile(r"<tablecurrency>(\w+)</tablecurrency>")
_CURRENCY = re.compile(r"<currency>(\w+)</currency>")


def _replay(paths: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, list[dict[str, Any]]]:
    report = tmp_path / "report.jsonl"
    main(["replay", *map(str, paths), "--report", str(report)])
    lines = report.read_text(encoding="utf-8").splitlines()
    return capsys.readouterr().out, [json.loads(line) for line in lines]


@pytest.fixture(scope="module")
def ipoker(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[dict[str, Any]]]:
    """The summary and the report lines of one replay of the real iPoker files (EUR, GBP and USD tables)."""
    report = tmp_path_factory.mktemp("ipoker") / "report.jsonl"
    out = io.StringIO()
    with redirect_stdout(out):
        main(["replay", str(IPOKER), "--report", str(report)])
    return out.getvalue(), [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]


def _rake_lines(out: str) -> list[str]:
    """The summary's ``rake total`` line and the per-currency lines under it, spaces squeezed."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("rake total"))
    rows = [lines[start]]
    for line in lines[start + 1 :]:
        if not line.startswith("    "):
            break
        rows.append(line)
    return [" ".join(row.split()) for row in rows]


def test_the_ipoker_files_mixed_currencies_give_the_rake_per_currency_never_one_sum(
    ipoker: tuple[str, list[dict[str, Any]]],
) -> None:
    out, _ = ipoker
    rake = _rake_lines(out)
    assert rake[0] == "rake total 3 currencies, each on its own line (mixed files: never added together)"
    assert [line.split()[0] for line in rake[1:]] == ["EUR", "GBP", "USD"]
    assert [line.split(maxsplit=2)[2] for line in rake[1:]] == ["EUR (cents)", "GBP (pence)", "USD (cents)"]
    assert all(int(line.split()[1]) > 0 for line in rake[1:])


def test_each_ipoker_hand_reports_its_sessions_currency_code(ipoker: tuple[str, list[dict[str, Any]]]) -> None:
    _, verdicts = ipoker
    read = [v for v in verdicts if v["status"] != "error"]
    assert len(read) > 60
    for verdict in read:
        text = Path(verdict["source"]).read_text(encoding="utf-8-sig")
        code = verdict["hand_id"].removeprefix("ipoker:")
        session = text[: text.index(f'gamecode="{code}"')].rsplit("<session", 1)[1]  # a file may hold several
        written = _TABLE_CURRENCY.search(session) or _CURRENCY.search(session)
        assert written is not None
        assert verdict["currency"] == written.group(1), verdict["hand_id"]
    assert {v["currency"] for v in read} == {"EUR", "GBP", "USD"}


def test_the_rake_per_currency_is_the_sum_of_that_currencys_hands_only() -> None:
    summary = Summary()
    for source in sorted(IPOKER.rglob("*.txt")):
        for hand in read_file(str(source))[1]:
            if not isinstance(hand, Exception):
                summary.add(judge(hand))
    expected: Counter[str] = Counter()
    for source in sorted(IPOKER.rglob("*.txt")):
        for hand in read_file(str(source))[1]:
            if not isinstance(hand, Exception) and hand.event is not None:
                expected[hand.currency_code] += hand.event.rake
    assert dict(summary.rake) == dict(expected)
    assert len(expected) == 3


def test_a_run_in_one_currency_gives_one_rake_line_with_its_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = IPOKER / "CashGame" / "Seats" / "6 Max.txt"
    out, verdicts = _replay([one], tmp_path, capsys)
    assert {v["currency"] for v in verdicts} == {"EUR"}
    (line,) = [row for row in out.splitlines() if "rake total" in row]
    assert re.fullmatch(r"\s+rake total\s+\d+ EUR \(cents\)", line)
    assert "currencies" not in out


def test_tournament_hands_are_in_chips_and_cash_hands_in_their_symbols_currency(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, verdicts = _replay(
        [FIXTURES / "pokerstars" / "tournament.txt", FIXTURES / "pokerstars" / "capped.txt"], tmp_path, capsys
    )
    by_file = {Path(v["source"]).name: v["currency"] for v in verdicts}
    assert by_file == {"tournament.txt": CHIPS, "capped.txt": "USD"}


def test_play_money_is_named_as_the_room_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, verdicts = _replay([FIXTURES / "pokerstars" / "play_money_home_game.txt"], tmp_path, capsys)
    assert {v["currency"] for v in verdicts} == {"Play Money"}
    assert "rake total" in out
    assert "0 Play Money" in out


def test_an_open_hand_history_hand_keeps_the_code_it_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (FIXTURES / "ohh" / "two_hands.ohh").read_text(encoding="utf-8").replace('"USD"', '"EUR"')
    euro = tmp_path / "euro.ohh"
    euro.write_text(text, encoding="utf-8")
    _, verdicts = _replay([euro], tmp_path, capsys)
    assert "EUR" in {v["currency"] for v in verdicts}


@pytest.mark.parametrize(
    ("written", "tournament", "code"),
    [("$", False, "USD"), ("€", False, "EUR"), ("£", False, "GBP"), ("₹", False, "INR"), ("¥", False, "¥"),
     ("EUR", False, "EUR"), ("$", True, CHIPS), ("Play Money", False, "Play Money"), ("", False, "")],
)  # fmt: skip
def test_currency_code_is_iso_4217_where_the_symbol_names_one_currency(
    written: str, tournament: bool, code: str
) -> None:
    assert currency_code(written, tournament=tournament) == code


def test_a_phh_hand_carries_the_currency_its_file_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (FIXTURES / "phh" / "heads_up.phh").read_text(encoding="utf-8")
    (tmp_path / "usd.phh").write_text(f"{text}currency = 'USD'\n", encoding="utf-8")
    (tmp_path / "chips.phh").write_text(text, encoding="utf-8")
    out, verdicts = _replay([tmp_path / "usd.phh", tmp_path / "chips.phh"], tmp_path, capsys)
    assert [(Path(v["source"]).name, v["status"], v["currency"]) for v in verdicts] == [
        ("usd.phh", "match", "USD"),
        ("chips.phh", "match", None),
    ]
    assert [line.split()[0] for line in _rake_lines(out)[1:]] == ["currency", "USD"]  # 'currency not written'
