"""``showdown equity``: exact equities as support staff and auditors read them, and bad cards named."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest

from showdown_service.cli.commands import main


def test_the_issues_example_prints_each_hands_exact_equity_on_the_flop(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["equity", "--board", "Ah7d2c", "AsKc", "7h7c"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["AsKc", "1.6162%", "(8/495)"]  # two running cards: the case's 990 boards
    assert lines[1].split() == ["7h7c", "98.3838%", "(487/495)"]
    assert lines[2] == "over 990 boards (hold'em)"


def test_json_gives_decimals_of_six_places_or_more_in_the_order_given(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["equity", "--json", "7h7c", "AsKc"]) == 0
    out = capsys.readouterr().out
    assert re.fullmatch(r'\{"equities": \[0\.\d{6,}, 0\.\d{6,}\].*\}\n', out), out
    document = json.loads(out)
    assert document["boards"] == 1_712_304
    exact = [Fraction(text) for text in document["exact"]]
    assert sum(exact) == 1
    assert exact[0] > exact[1]  # 77 is ahead of AKo preflop: the order given is kept
    assert [round(float(share), 9) for share in exact] == document["equities"]


def test_a_real_ggpoker_ev_cashout_spot_kings_against_treys_on_the_flop(capsys: pytest.CaptureFixture[str]) -> None:
    """../shared/data/rooms-more/GGPoker/.../PaysCashoutFee.txt: KdKc cashes out against 3d3h on 8d 9h 2c."""
    assert main(["equity", "--json", "--board", "8d9h2c", "KdKc", "3d3h"]) == 0
    assert json.loads(capsys.readouterr().out)["exact"] == ["907/990", "83/990"]


def test_hi_lo_and_cards_written_the_other_accepted_ways(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["equity", "--variant", "omaha_hilo", "--board", "4♣5d9sTh", "ah2hKCQd", "Ad3s,Kd,Qc"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[2] for line in lines[:2]] == ["(23/40)", "(17/40)"]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["AsKc", "AsQd"], "hands[1][0]: As is also at hands[0][0]; each card exists once"),
        (["--board", "Ah7d7h", "AsKc", "7h7c"], "hands[1][0]: 7h is also at board[2]"),
        (["AsKc", "7hXc"], "hands[1]: '7hXc': 'X' at character 3 is not a rank"),
        (["AsKc", "7h7"], "hands[1]: '7h7': the card at character 3 has nothing for a suit"),
        (["AsKcQd", "7h7c"], "hands[0]: AsKcQd has 3 cards; hold'em hands have 2"),
        (["--variant", "omaha", "AsKcQdJd", "7h7c6h"], "hands[1]: 7h7c6h has 3 cards; Omaha hands have 4, 5 or 6"),
        (["--variant", "short_deck", "AsKc", "7h2c"], "hands[1][1]: 2c is not in the short-deck"),
        (["AsKc"], "hands: 1 given; equity is of 2 to 10 hands"),
    ],
)
def test_a_bad_card_is_named_with_why_and_exits_2(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["equity", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert says in captured.err


def test_a_game_without_a_board_is_not_offered(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["equity", "--variant", "stud", "AsKc2d3d4d5d6d", "7h7c8h8c9h9cTs"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "argument --variant: invalid choice: 'stud'" in err
    assert "'omaha_hilo'" in err  # the games with a board are offered
