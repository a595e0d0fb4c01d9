"""showdown replay: the readers on small synthetic histories, the report, the exit status and the CLI."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from showdown_messages import ShowdownEvent
from showdown_service.cli.commands import main
from showdown_service.histories import (
    ChipsDoNotAddUp,
    HandRecord,
    HandSyntaxError,
    ImpossibleAction,
    ReplayError,
    judge,
    read_phh,
    read_pokerstars,
)
from showdown_service.histories.phh import _flat_fields, _number
from showdown_service.histories.run import detect
from tests.helpers import REPO

FIXTURES = REPO / "tests" / "fixtures" / "replay"
PHH = FIXTURES / "phh"
STARS = FIXTURES / "pokerstars"
MALFORMED = FIXTURES / "malformed"


def phh_hand(name: str) -> HandRecord:
    (hand,) = read_phh((PHH / name).read_text(encoding="utf-8"), str(PHH / name))
    assert isinstance(hand, HandRecord), hand
    return hand


def stars_hands(path: Path) -> list[HandRecord | ReplayError]:
    return list(read_pokerstars(path.read_bytes().decode("utf-8-sig"), str(path)))


def players(hand: HandRecord) -> dict[int, dict[str, Any]]:
    assert hand.event is not None
    return {p.seat: p.model_dump() for p in hand.event.players}


def collected(hand: HandRecord) -> dict[str, Any]:
    verdict = judge(hand)
    assert verdict.status == "match", verdict.reason
    return dict(verdict.computed)


# -- PHH ------------------------------------------------------------------------------


def test_heads_up_player_1_posts_the_big_blind_and_player_2_is_the_button() -> None:
    hand = phh_hand("heads_up.phh")
    assert hand.event is not None
    assert hand.event.button_seat == 2
    assert {seat: p["contributed"] for seat, p in players(hand).items()} == {1: 300, 2: 300}
    assert collected(hand)["finishing_stacks"] == {"1": 1300, "2": 700}


def test_uniform_antes_with_trimming_on_count_toward_each_seats_level() -> None:
    hand = phh_hand("antes.phh")
    assert [(p["contributed"], p["dead_money"]) for p in players(hand).values()] == [(60, 0), (110, 0), (110, 0)]
    assert collected(hand)["finishing_stacks"] == {"1": 940, "2": 1170, "3": 890}


def test_a_big_blind_ante_with_trimming_off_is_dead_money() -> None:
    hand = phh_hand("big_blind_ante.phh")
    assert players(hand)[2]["dead_money"] == 100
    assert players(hand)[2]["contributed"] == 300
    assert collected(hand)["finishing_stacks"] == {"1": 950, "2": 600, "3": 1450}


def test_a_seat_all_in_for_less_than_the_big_blind_wins_only_what_it_covers() -> None:
    hand = phh_hand("short_blind.phh")
    assert players(hand)[2]["contributed"] == 60
    assert collected(hand)["finishing_stacks"] == {"1": 940, "2": 180, "3": 940}


def test_an_uncalled_raise_is_returned_before_the_pot_is_won() -> None:
    hand = phh_hand("uncalled.phh")
    assert players(hand)[3]["contributed"] == 100  # raised to 300; 200 came back
    assert players(hand)[3]["hole_cards"] is None  # dealt as ????
    assert collected(hand)["winnings"] == {"1": 0, "2": 0, "3": 250}


def test_three_all_ins_make_a_main_pot_a_side_pot_and_a_returned_bet() -> None:
    hand = phh_hand("side_pots.phh")
    assert {seat: p["contributed"] for seat, p in players(hand).items()} == {1: 200, 2: 500, 3: 500, 4: 0}
    assert collected(hand)["finishing_stacks"] == {"1": 600, "2": 600, "3": 500, "4": 1000}
    assert hand.contested


def test_a_source_that_splits_an_odd_chip_into_halves_matches_with_a_note() -> None:
    verdict = judge(phh_hand("odd_chip.phh"))
    assert verdict.status == "match"
    assert "fractions" in verdict.reason
    assert verdict.expected["finishing_stacks"] == {"1": 975, "2": 1012.5, "3": 1012.5}
    assert verdict.computed["finishing_stacks"] == {"1": 975, "2": 1013, "3": 1012}  # odd chip left of the button


def test_a_muck_at_showdown_forfeits_the_pot() -> None:
    hand = phh_hand("muck.phh")
    assert players(hand)[1]["folded"] is True
    assert collected(hand)["finishing_stacks"] == {"1": 900, "2": 1100}


def test_a_history_that_pays_the_wrong_player_is_a_mismatch() -> None:
    verdict = judge(phh_hand("wrong_payout.phh"))
    assert verdict.status == "mismatch"
    assert verdict.kind == "finishing stacks differ"
    assert "seat 1 (p1): recorded 900, rules give 1100; seat 2 (p2): recorded 1100" in verdict.reason


def test_a_hand_run_twice_sends_both_boards_and_each_run_wins_half_the_pot() -> None:
    phh = phh_hand("run_twice.phh")
    assert phh.event is not None
    assert phh.event.boards == (("2c", "7d", "9h", "Js", "3s"), ("Kh", "5h", "6h", "8c", "Tc"))
    assert collected(phh)["finishing_stacks"] == {"1": 1000, "2": 1000}  # aces hold on board 1, kings trip on 2
    (stars,) = stars_hands(STARS / "run_twice.txt")
    assert isinstance(stars, HandRecord)
    verdict = judge(stars)
    assert verdict.status == "match", verdict.reason
    (pot,) = verdict.computed["pots"]
    assert [(part["run"], part["collected"]) for part in pot["parts"]] == [(1, {"1": 975}), (2, {"2": 975})]
    assert verdict.expected["runs"] == [
        [{"index": 0, "collected": {"1": 975}}],
        [{"index": 0, "collected": {"2": 975}}],
    ]


def test_unknown_cards_at_a_contested_showdown_are_unverifiable() -> None:
    verdict = judge(phh_hand("unknown_cards.phh"))
    assert verdict.status == "unverifiable"
    assert verdict.reason == "unknown cards at a contested showdown (seat 2)"


def test_a_hand_without_a_recorded_outcome_is_unverifiable_but_still_settled() -> None:
    verdict = judge(phh_hand("no_outcome.phh"))
    assert (verdict.status, verdict.reason) == ("unverifiable", "no recorded outcome")
    assert verdict.computed["collected"] == {"1": 100, "2": 0}  # the blinds; the other 50 of its 100 came back


@pytest.mark.parametrize(
    ("name", "error", "line", "words"),
    [
        ("bad_syntax.phh", HandSyntaxError, 6, "not valid TOML"),
        ("out_of_turn.phh", ImpossibleAction, 9, "p3 is to act, not p1"),
        ("bad_card.phh", HandSyntaxError, 5, "'Xd' is not a card"),
        ("chips.phh", ChipsDoNotAddUp, 6, "finishing stacks total 1950 chips but the starting stacks 2000"),
        ("over_stack.phh", ImpossibleAction, 5, "needs 4950 chips; p2 has 950 behind"),
    ],
)
def test_each_malformed_hand_names_its_file_hand_and_line(name: str, error: type, line: int, words: str) -> None:
    path = MALFORMED / name
    (found,) = read_phh(path.read_text(encoding="utf-8"), str(path))
    assert isinstance(found, error)
    assert isinstance(found, ReplayError)
    assert (found.source, found.hand, found.line) == (str(path), f"phh:{name}", line)
    assert words in str(found)
    assert str(found).startswith(f"{path}:{line}: hand phh:{name}: ")


@pytest.mark.parametrize(("first", "again"), [("AsAd", "QsQd"), ("????", "QsQd"), ("AsAd", "????")])
def test_hole_cards_dealt_twice_to_one_seat_are_an_impossible_action(first: str, again: str) -> None:
    text = (PHH / "heads_up.phh").read_text(encoding="utf-8")
    text = text.replace("'d dh p1 AsAd', ", f"'d dh p1 {first}', 'd dh p1 {again}', ")
    (found,) = read_phh(text, "redeal.phh")
    assert isinstance(found, ImpossibleAction), found
    assert f"action 2 'd dh p1 {again}': p1 was already dealt hole cards (action 1)" in str(found)


def test_a_phhs_file_reads_each_hand_and_goes_on_after_a_bad_one() -> None:
    path = MALFORMED / "two_hands.phhs"
    first, second = read_phh(path.read_text(encoding="utf-8"), str(path))
    assert isinstance(first, HandRecord)
    assert first.hand_id == "phh:two_hands.phhs#1"
    assert isinstance(second, ImpossibleAction)
    assert (second.hand, second.line) == ("phh:two_hands.phhs#2", 14)


def test_pluribus_files_get_the_hand_ids_of_the_real_showdown_cases() -> None:
    text = (PHH / "heads_up.phh").read_text(encoding="utf-8")
    for path in ("../shared/data/phh/pluribus/30/12.phh", "/x/data/pluribus/30/12.phh", "pluribus/30/12.phh"):
        (hand,) = read_phh(text, path if "phh/" in path or "data/" in path else "phh/" + path)
        assert isinstance(hand, HandRecord)
        assert hand.hand_id == "pluribus:data/pluribus/30/12.phh"
        assert hand.event is not None
        assert hand.event.table_id == "pluribus"


def test_the_fast_field_parser_reads_what_tomllib_reads() -> None:
    for path in [*PHH.glob("*.phh"), MALFORMED / "chips.phh"]:
        text = path.read_text(encoding="utf-8")
        assert _flat_fields(text) == tomllib.loads(text, parse_float=_number), path


# -- PokerStars -----------------------------------------------------------------------


def test_a_tournament_hand_settles_in_chips_with_side_pot_and_bust() -> None:
    raw = (STARS / "tournament.txt").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    assert b"\r\n" in raw
    first, second = stars_hands(STARS / "tournament.txt")
    assert isinstance(first, HandRecord)
    assert isinstance(second, HandRecord)
    assert first.event is not None
    assert first.event.tournament_id == "3000000001"
    assert {p.seat: p.contributed for p in first.event.players} == {1: 500, 2: 300, 3: 500}
    verdict = judge(first)
    assert verdict.status == "match", verdict.reason
    assert verdict.computed["pots"][0]["collected"] == {"2": 900}
    assert verdict.computed["returned"] == {"3": 400}
    split = judge(second)
    assert split.status == "match", split.reason
    assert split.computed["collected"] == {"1": 32, "3": 33}


def test_malformed_pokerstars_hands_are_reported_and_the_file_goes_on() -> None:
    path = STARS / "malformed.txt"
    after_fold, good, bad_total = stars_hands(path)
    assert isinstance(after_fold, ImpossibleAction)
    assert (after_fold.hand, after_fold.line) == ("pokerstars:300000000001", 11)
    assert "Eve acts after folding: 'Eve: calls $2.50'" in str(after_fold)
    assert isinstance(good, HandRecord)
    assert judge(good).status == "match"
    assert isinstance(bad_total, ChipsDoNotAddUp)
    assert (bad_total.hand, bad_total.line) == ("pokerstars:300000000003", 70)


def good_stars_hand() -> str:
    """The one well-formed hand of ``malformed.txt`` (no BOM), uncontested after the flop."""
    text = (STARS / "malformed.txt").read_text(encoding="utf-8-sig")
    return next(hand for hand in text.split("\n\n\n") if "#300000000002" in hand)


@pytest.mark.parametrize(
    ("old", "new", "error", "line", "words"),
    [
        (
            "*** HOLE CARDS ***",
            "*** HOLE CARDS ***\nDealt to Dan [As Kd",
            HandSyntaxError,
            9,
            "expected 'Dealt to NAME [CARDS]'",
        ),
        ("*** FLOP *** [2c 7d 9h]", "*** FLOP *** [2c 7d]", ImpossibleAction, 12, "the flop is 3 onto 0"),
        (
            "*** FLOP *** [2c 7d 9h]",
            "*** FLOP *** [2c 7d 9h]\n*** TURN *** [2c 7d 9h] [Js]\n*** TURN *** [2c 7d 9h Js] [Ts]",
            ImpossibleAction,
            14,
            "1 card(s) dealt onto 4 board card(s); the turn is 1 onto 3",
        ),
    ],
)
def test_a_malformed_pokerstars_line_is_an_error_at_that_line(
    old: str, new: str, error: type, line: int, words: str
) -> None:
    text = good_stars_hand()
    assert old in text
    (found,) = read_pokerstars(text.replace(old, new), "hand.txt")
    assert isinstance(found, error), found
    assert isinstance(found, ReplayError)
    assert (found.hand, found.line) == ("pokerstars:300000000002", line)
    assert words in str(found)


def test_a_pokerstars_hand_with_one_seat_dealt_in_is_an_error() -> None:
    text = (
        "PokerStars Hand #1:  Hold'em No Limit ($0.50/$1.00 USD) - 2024/01/01 12:00:00 ET\n"
        "Table 'Fixture' 6-max Seat #1 is the button\n"
        "Seat 1: Dan ($100 in chips)\n"
        "Seat 2: Eve ($100 in chips) is sitting out\n"
        "Dan: posts small blind $0.50\n"
        "*** HOLE CARDS ***\n"
        "Uncalled bet ($0.50) returned to Dan\n"
        "*** SUMMARY ***\n"
        "Total pot $0 | Rake $0\n"
    )
    (found,) = read_pokerstars(text, "hand.txt")
    assert isinstance(found, ImpossibleAction), found
    assert (found.hand, found.line) == ("pokerstars:1", 1)
    assert "1 seat(s) in the hand; the others sit out" in str(found)


def test_a_hand_history_that_is_not_utf8_is_an_error_at_its_line_not_skipped(tmp_path: Path) -> None:
    histories = tmp_path / "histories"
    histories.mkdir()
    (histories / "latin1.phh").write_bytes("variant = 'NT'\nplayers = ['Ren\u00e9', 'Zo\u00eb']\n".encode("latin-1"))
    (histories / "image.bin").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")  # no hand history: skipped
    code, lines, _ = run_replay(tmp_path, str(histories))
    assert code == 1
    (line,) = lines
    assert (line["status"], line["line"]) == ("error", 2)
    assert line["reason"].startswith(f"{histories / 'latin1.phh'}:2: not UTF-8 text")


def test_formats_are_told_apart_by_content() -> None:
    assert detect("\ufeffPokerStars Hand #1: ...") == "pokerstars"
    assert detect("# a comment\n\nvariant = 'NT'\n") == "phh"
    assert detect("[1]\nvariant = 'NT'\n") == "phh"
    assert detect("# PokerStars-format sample hand histories\n\nCopied verbatim\n") is None
    assert detect("MIT License\n") is None


# -- the command ----------------------------------------------------------------------


def run_replay(tmp_path: Path, *args: str) -> tuple[int, list[dict[str, Any]], str]:
    report = tmp_path / "report.jsonl"
    code = main(["replay", *args, "--report", str(report)])
    lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    return code, lines, ""


def test_every_report_line_has_the_documented_fields(tmp_path: Path) -> None:
    code, lines, _ = run_replay(tmp_path, str(FIXTURES))
    assert code == 1  # the fixtures hold a mismatch and malformed hands
    fields = {"source", "hand_id", "game", "variant", "status", "reason", "expected", "computed", "line", "bounties"}
    fields.add("currency")  # issue 36: the code its chips are in, null when the history writes none
    for line in lines:  # issue 36: a hand with an event says how its betting was played, or why it was not
        assert set(line) == fields | ({"betting"} if line["variant"] else set())
        assert line["status"] in {"match", "mismatch", "unverifiable", "error"}
        assert isinstance(line["expected"], dict)
        assert isinstance(line["computed"], dict)
        assert isinstance(line["bounties"], list)
        if line["status"] != "match" or line["reason"]:
            assert line["reason"]
        if line["status"] != "error":
            assert line["game"], line  # every hand read says its game
    statuses = {line["status"] for line in lines}
    assert statuses == {"match", "mismatch", "unverifiable", "error"}


def test_the_exit_status_is_0_only_without_mismatches_or_malformed_hands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = [str(PHH / name) for name in ("heads_up.phh", "odd_chip.phh", "run_twice.phh")]
    assert main(["replay", *good]) == 0
    assert main(["replay", str(PHH / "wrong_payout.phh")]) == 1
    assert main(["replay", str(MALFORMED / "chips.phh")]) == 1
    assert main(["replay", str(tmp_path / "missing")]) == 2
    out = capsys.readouterr().out
    assert "mismatches" in out
    assert "finishing stacks differ" in out


def test_without_a_report_the_summary_lists_each_mismatch_by_file_line_hand_and_player_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = tmp_path / "named.phh"
    text = (PHH / "wrong_payout.phh").read_text(encoding="utf-8")
    history.write_text(f"{text}players = ['Alice', 'Bob']\n", encoding="utf-8")
    assert main(["replay", str(history)]) == 1
    out = capsys.readouterr().out
    listed = out.split("mismatches (file:line, hand", 1)[1].splitlines()[1:]
    assert listed == [
        f"  {history}:1  hand phh:named.phh: finishing stacks differ (seat 1 (Alice): recorded 900, rules give "
        "1100; seat 2 (Bob): recorded 1100, rules give 900)"
    ]
    assert "{'" not in out, "no Python dict in what people read"


def test_a_summary_lists_the_first_mismatches_and_counts_the_rest(capsys: pytest.CaptureFixture[str]) -> None:
    from showdown_service.histories import report

    wrong = judge(phh_hand("wrong_payout.phh"))
    summary = report.Summary()
    for _ in range(report.MISMATCHES_LISTED + 3):
        summary.add(wrong)
    summary.write(sys.stdout)
    out = capsys.readouterr().out
    assert out.count("hand phh:wrong_payout.phh: finishing stacks differ") == report.MISMATCHES_LISTED
    assert "... and 3 more: --report FILE lists every hand" in out


def test_a_file_named_directly_that_is_no_hand_history_is_an_error(tmp_path: Path) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("hello\n", encoding="utf-8")
    code, lines, _ = run_replay(tmp_path, str(other))
    assert code == 1
    assert lines[0]["status"] == "error"
    assert "not a hand history of a format read here (phh, pokerstars" in lines[0]["reason"]


def test_two_processes_write_the_same_report_as_one(tmp_path: Path) -> None:
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    assert main(["replay", str(FIXTURES), "--report", str(one), "--jobs", "1"]) == 1
    assert main(["replay", str(FIXTURES), "--report", str(two), "--jobs", "2"]) == 1
    assert one.read_bytes() == two.read_bytes()


def test_emitted_events_validate_as_showdown_events_one_per_hand_that_could_be_settled(tmp_path: Path) -> None:
    events, report = tmp_path / "events.jsonl", tmp_path / "report.jsonl"
    main(["replay", str(FIXTURES), "--emit-events", str(events), "--report", str(report)])
    lines = events.read_text(encoding="utf-8").splitlines()
    ids = [ShowdownEvent.model_validate_json(line).hand_id for line in lines]
    verdicts = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    settled = [
        v["hand_id"]
        for v in verdicts
        if v["status"] in ("match", "mismatch")
        or v["reason"] == "no recorded outcome"
        or v["reason"].startswith(("the service refuses to settle it", "settling it failed"))
    ]
    assert ids == settled
    assert "pokerstars:200000000001" in ids
    assert "phh:odd_chip.phh" in ids


def test_the_summary_counts_hands_by_status_and_reason(capsys: pytest.CaptureFixture[str]) -> None:
    main(["replay", str(FIXTURES)])
    out = capsys.readouterr().out
    assert "hands read" in out
    assert "Hold'em" in out
    assert "unknown cards at a contested showdown" in out
    assert "rake total" in out
