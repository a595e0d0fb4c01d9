"""showdown replay on PokerStars hold'em as real exports write it: old formats, knockouts, caps, encodings."""

from __future__ import annotations

from pathlib import Path

import pytest

from showdown_service.cli import main
from showdown_service.replay import HandRecord, ReplayError, UnsupportedHand, judge, read_pokerstars
from showdown_service.replay.compare import Verdict
from showdown_service.replay.run import decode, detect, read_file, replay_file
from tests.helpers import REPO

STARS = REPO / "tests" / "fixtures" / "replay" / "pokerstars"


def hands(name: str) -> list[HandRecord | ReplayError]:
    kind, found, _ = read_file(str(STARS / name))
    assert kind == "pokerstars"
    return list(found)


def read(name: str) -> list[HandRecord]:
    found = hands(name)
    assert all(isinstance(hand, HandRecord) for hand in found), found
    return [hand for hand in found if isinstance(hand, HandRecord)]


def matched(hand: HandRecord) -> Verdict:
    verdict = judge(hand)
    assert verdict.status == "match", verdict.reason
    return verdict


def contributions(hand: HandRecord) -> dict[int, tuple[int, int]]:
    assert hand.event is not None
    return {p.seat: (p.contributed, p.dead_money) for p in hand.event.players}


# -- the 2005-2008 formats -------------------------------------------------------------


def test_a_2007_tournament_hand_without_an_uncalled_bet_line_gets_the_bet_back_that_total_pot_leaves_out() -> None:
    side_pots, folded_to = read("old_format_2007.txt")
    assert contributions(side_pots) == {1: (25, 0), 2: (1200, 0), 3: (3000, 0), 4: (3000, 0)}  # Dirk's 5000 came back
    verdict = matched(side_pots)
    assert verdict.kind == "uncalled bet not written"
    assert verdict.expected["returned"] == {"4": 5000}
    assert [pot["collected"] for pot in verdict.computed["pots"]] == [{"2": 3625}, {"3": 3600}]
    assert matched(folded_to).computed["collected"] == {"2": 975}


def test_a_2005_header_with_the_time_zone_in_brackets_and_no_table_size_reads() -> None:
    _, folded_to = read("old_format_2007.txt")
    assert folded_to.hand_id == "pokerstars:3000000002"
    assert folded_to.event is not None
    assert (folded_to.event.tournament_id, folded_to.event.button_seat) == ("16000002", 2)


# -- knockouts -------------------------------------------------------------------------


def test_knockout_bounties_are_reported_per_hand_with_winner_and_amount_and_never_settled() -> None:
    knockout, progressive, split = read("knockouts.txt")
    for hand in (knockout, progressive, split):
        matched(hand)
    (won,) = knockout.bounties
    assert (won.kind, won.winners, won.seats, won.eliminated, won.amount) == (
        "knockout",
        ("Ben",),
        (2,),
        "Cal",
        "$0.50",
    )
    (grew,) = progressive.bounties
    assert (grew.kind, grew.winners, grew.amount, grew.increase, grew.bounty_now) == (
        "progressive", ("Ada",), "$0.31", "$0.30", "$4",
    )  # fmt: skip
    assert grew.document()["bounty_now"] == "$4"
    (shared,) = split.bounties
    assert (shared.kind, shared.winners, shared.seats, shared.amount) == (
        "split knockout",
        ("Ada", "Cal"),
        (1, 3),
        "$50",
    )
    assert judge(split).computed["collected"] == {"1": 1500, "3": 1500}  # chips only: the bounty is not paid


def test_a_seat_line_with_a_bounty_reads_the_chips_not_the_bounty() -> None:
    _, progressive, _ = read("knockouts.txt")
    assert progressive.event is not None
    assert {p.seat: p.stack for p in progressive.event.players} == {1: 4000, 2: 600, 3: 5200}


# -- caps, amounts, dead blinds, raises ---------------------------------------------------


def test_a_capped_game_reads_the_cap_suffixes_and_the_betting_is_capped_line() -> None:
    (hand,) = read("capped.txt")
    assert contributions(hand) == {1: (8000, 0), 2: (8000, 0), 3: (400, 0)}
    assert matched(hand).computed["collected"] == {"1": 16120}


@pytest.mark.parametrize(("written", "cents"), [("$1419.92", 141992), ("$1,419.92", 141992), ("€1,000,000", 100000000)])
def test_amounts_with_and_without_thousands_separators_read_in_cents(written: str, cents: int) -> None:
    text = (STARS / "capped.txt").read_text(encoding="utf-8").replace("$1,419.92 in chips", f"{written} in chips")
    (hand,) = read_pokerstars(text, "capped.txt")
    assert isinstance(hand, HandRecord)
    assert hand.event is not None
    assert hand.event.players[1].stack == cents


def test_posts_small_and_big_blinds_in_a_limit_game_keeps_the_big_blind_live_and_the_small_blind_dead() -> None:
    (hand,) = read("limit_dead_blind.txt")
    assert contributions(hand) == {1: (25, 0), 2: (25, 0), 4: (150, 0), 6: (150, 10)}
    assert matched(hand).computed["collected"] == {"4": 342}


def test_seats_sitting_out_or_out_of_hand_are_not_dealt_in_and_table_deposit_lines_are_information() -> None:
    (hand,) = read("limit_dead_blind.txt")
    assert hand.event is not None
    assert [p.seat for p in hand.event.players] == [1, 2, 4, 6]  # Cal sits out, Eli is out of hand


def test_a_heads_up_match_raise_written_as_the_chips_the_raiser_adds_reads() -> None:
    (hand,) = read("heads_up_match.txt")  # 'raises 50 to 60' over a big blind of 20, from a small blind of 10
    assert contributions(hand) == {1: (60, 0), 2: (60, 0)}
    assert matched(hand).computed["collected"] == {"2": 120}


def test_a_raise_that_matches_neither_writing_is_an_error_at_its_line() -> None:
    text = (STARS / "heads_up_match.txt").read_text(encoding="utf-8").replace("raises 50 to 60", "raises 45 to 60")
    (found,) = read_pokerstars(text, "hu.txt")
    assert isinstance(found, ReplayError)
    assert (found.line, found.kind) == (10, "chips do not add up")
    assert "a raise to 60 over a bet of 20 is 40" in str(found)


# -- headers ---------------------------------------------------------------------------


def test_a_mixed_game_takes_each_hands_game_from_its_own_header() -> None:
    holdem, omaha = read("mixed_nlh_plo.txt")
    assert (holdem.game, omaha.game) == ("Hold'em", "Omaha")
    assert omaha.event is not None
    assert omaha.event.variant == "omaha"
    assert matched(omaha).computed["collected"] == {"5": 816}
    assert matched(holdem).computed["collected"] == {"5": 143}


def test_play_money_and_home_game_headers_read_in_chips_and_a_club_name_is_no_game() -> None:
    play, home = read("play_money_home_game.txt")
    assert matched(play).computed["collected"] == {"3": 6150}  # '12,500 in chips', no cents
    assert home.hand_id == "pokerstars:74600000001"
    assert home.game == "Hold'em"  # the club is called {Omaha Friends}
    assert matched(home).computed["collected"] == {"5": 68}


def test_an_archive_export_reads_and_cashed_out_or_cancelled_hands_are_unverifiable() -> None:
    plain, cashed, cancelled = read("archive_cashout_cancelled.txt")
    assert matched(plain).computed["collected"] == {"1": 13}
    assert (judge(cashed).status, judge(cashed).kind) == ("unverifiable", "All-in Cash Out")
    assert "Ben cashed out the hand for $15.20" in judge(cashed).reason
    assert (judge(cancelled).status, judge(cancelled).kind) == ("unverifiable", "cancelled hand")
    assert cancelled.game == "Triple Draw 2-7 Lowball"


def test_a_refused_game_and_an_unknown_action_name_the_file_the_line_and_why() -> None:
    refused, unknown = hands("refused_games.txt")
    assert isinstance(refused, UnsupportedHand)
    assert (refused.line, refused.game) == (1, "6 Card Omaha Hi/Lo")
    assert "the contract settles Omaha Hi/Lo with 4 or 5 own cards, not 6" in str(refused)
    assert isinstance(unknown, ReplayError)
    assert unknown.line == 28
    assert str(unknown).endswith("not a PokerStars action: 'Ada: flips a coin'")


# -- encodings -------------------------------------------------------------------------


def test_windows_1252_and_utf16_exports_read_as_the_same_hand_with_no_break_spaces_as_spaces() -> None:
    assert (STARS / "windows1252.txt").read_bytes().count(b"\x80") == 18  # the euro sign in Windows-1252
    results = {name: replay_file(str(STARS / name)) for name in ("windows1252.txt", "utf16.txt")}
    assert {name: result.encoding for name, result in results.items()} == {
        "windows1252.txt": "Windows-1252", "utf16.txt": "UTF-16",
    }  # fmt: skip
    for result in results.values():
        (verdict,) = result.verdicts
        assert verdict.status == "match", verdict.reason
        assert verdict.computed["collected"] == {"1": 10850}
    (one,) = read("windows1252.txt")
    assert one.event is not None
    assert [p.player_id for p in one.event.players] == ["José", "Zoë", "Chat Noir"]


@pytest.mark.parametrize(
    ("raw", "encoding"),
    [
        ("PokerStars Hand #1: é".encode(), "UTF-8"),
        (b"\xef\xbb\xbfPokerStars Hand #1: \xc3\xa9", "UTF-8"),
        ("PokerStars Hand #1: é".encode("utf-16"), "UTF-16"),
        ("PokerStars Hand #1: é".encode("utf-16-le"), "UTF-16"),
        ("PokerStars Hand #1: é".encode("utf-16-be"), "UTF-16"),
        (b"PokerStars Hand #1: \xe9 \x81", "Windows-1252"),
    ],
)
def test_every_encoding_a_real_export_uses_decodes_without_failing(raw: bytes, encoding: str) -> None:
    text, found, _ = decode(raw)
    assert found == encoding
    assert text.lstrip("\ufeff").startswith("PokerStars Hand #1: ")
    assert "é" in text or "\x81" in text


def test_tournament_summaries_and_archive_separators_are_told_apart_from_hands() -> None:
    assert detect("PokerStars Tournament #734695129, No Limit Hold'em\nBuy-In: $2.50/$0.20 USD\n") is None
    assert detect("*********** # 1 **************\n PokerStars Hand #1: Hold'em\n") == "pokerstars"


def test_a_pokerstars_file_that_is_not_utf8_is_read_not_refused(tmp_path: Path) -> None:
    path = tmp_path / "export.txt"
    path.write_bytes((STARS / "windows1252.txt").read_bytes())
    kind, found, encoding = read_file(str(path), named=True)
    assert (kind, encoding) == ("pokerstars", "Windows-1252")
    assert all(isinstance(hand, HandRecord) for hand in found)


def test_the_summary_counts_hands_per_game_files_per_encoding_and_bounties(
    capsys: pytest.CaptureFixture[str],
) -> None:
    names = ("knockouts.txt", "windows1252.txt", "utf16.txt", "mixed_nlh_plo.txt", "refused_games.txt")
    main(["replay", *(str(STARS / name) for name in names)])
    out = capsys.readouterr().out
    assert "read as UTF-16" in out
    assert "read as Windows-1252" in out
    assert "    Hold'em   " in out
    assert "    Omaha   " in out
    assert "6 Card Omaha Hi/Lo" in out
    assert "knockout bounties read" in out
