"""showdown replay on PokerStars hold'em as real exports write it: old formats, knockouts, caps, encodings."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from showdown_service.cli.commands import main
from showdown_service.histories import HandRecord, ReplayError, UnsupportedHand, judge, read_pokerstars
from showdown_service.histories.compare import Verdict
from showdown_service.histories.run import decode, detect, read_file, replay_file
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

KNOCKOUTS = (STARS / "knockouts.txt").read_text(encoding="utf-8")


def knockout(number: int, text: str = KNOCKOUTS) -> HandRecord:
    """Hand ``#2000000001NN`` of knockouts.txt (``text``: the file, perhaps edited)."""
    wanted = f"pokerstars:{200000000100 + number}"
    found = [r for r in read_pokerstars(text, "knockouts.txt") if isinstance(r, HandRecord) and r.hand_id == wanted]
    assert len(found) == 1, found
    return found[0]


def heads(hand: HandRecord) -> tuple[dict[int, int | None], int | None]:
    """Each seat's bounty (cents) and the event's ``bounty_cash_ppm``."""
    assert hand.event is not None
    return {p.seat: p.bounty for p in hand.event.players}, hand.event.bounty_cash_ppm


def awards(verdict: Verdict, side: str) -> dict[str, dict[str, tuple[int | None, int, int | None]]]:
    """``{eliminated: {winner: (cash, added, bounty now)}}`` of the report's ``expected`` or ``computed``."""
    return {
        award["eliminated"]: {w["player"]: (w.get("cash"), w["added"], w.get("bounty_now")) for w in award["winners"]}
        for award in getattr(verdict, side)["bounty_awards"]
    }


def test_every_knockout_hand_of_the_fixture_replays_with_its_bounties_and_places_matching_the_rules() -> None:
    found = read("knockouts.txt")
    assert len(found) == 7
    for hand in found:
        verdict = matched(hand)
        assert verdict.computed["bounty_awards"], hand.hand_id
        assert verdict.computed["places"], hand.hand_id


def test_a_fixed_knockout_without_seat_bounties_puts_the_buy_ins_middle_amount_on_every_head_paid_in_cash() -> None:
    hand = knockout(1)  # $2.00+$0.50+$0.20: 'Ben wins the $0.50 bounty for eliminating Cal'
    assert heads(hand) == ({1: 50, 2: 50, 3: 50}, 1_000_000)
    verdict = matched(hand)
    assert awards(verdict, "expected") == {"Cal": {"Ben": (50, 0, None)}}
    assert awards(verdict, "computed") == {"Cal": {"Ben": (50, 0, 50)}}
    (won,) = hand.bounties
    assert (won.kind, won.winners, won.seats, won.eliminated, won.amount, won.cents) == (
        "knockout", ("Ben",), (2,), "Cal", "$0.50", 50,
    )  # fmt: skip


def test_a_bounty_written_without_cents_reads_in_cents_and_three_busts_are_awarded_shortest_stack_first() -> None:
    hand = knockout(7)  # $1050+$665+$85: 'Ada wins the $665 bounty for eliminating Ben' (and Cal, and Dan)
    assert heads(hand) == ({1: 66500, 2: 66500, 3: 66500, 4: 66500}, 1_000_000)
    verdict = matched(hand)
    assert [award["eliminated"] for award in verdict.computed["bounty_awards"]] == ["Ben", "Cal", "Dan"]
    assert [award["pot"] for award in verdict.computed["bounty_awards"]] == [0, 1, 1]  # Cal and Dan: the side pot
    assert awards(verdict, "computed") == {name: {"Ada": (66500, 0, 66500)} for name in ("Ben", "Cal", "Dan")}


def test_a_split_knockout_line_gives_the_whole_bounty_and_its_winners_and_the_rules_divide_it_by_the_chop() -> None:
    hand = knockout(3)  # 'Ada, Cal split the $50 bounty for eliminating Ben'
    verdict = matched(hand)
    (recorded,) = verdict.expected["bounty_awards"]
    assert (recorded["bounty"], [w["player"] for w in recorded["winners"]]) == (5000, ["Ada", "Cal"])
    assert awards(verdict, "computed") == {"Ben": {"Ada": (2500, 0, 5000), "Cal": (2500, 0, 5000)}}
    assert verdict.computed["collected"] == {"1": 1500, "3": 1500}


def test_seat_line_bounties_make_a_progressive_knockout_paying_half_in_cash_and_read_with_or_without_cents() -> None:
    hand = knockout(5)  # 'Seat 3: Cal (6000 in chips, $20 bounty)', 'Seat 4: Dan (1500 in chips, $0.91 bounty)'
    assert heads(hand) == ({1: 3673, 2: 1838, 3: 2000, 4: 91}, 500_000)
    assert hand.event is not None
    assert {p.seat: p.stack for p in hand.event.players} == {1: 6000, 2: 1000, 3: 6000, 4: 1500}  # the chips


def test_a_progressive_knockout_line_gives_the_cash_the_increase_and_the_winners_bounty_after_it() -> None:
    hand = knockout(4)  # 'Ada wins $18.75 for eliminating Ben and their own bounty increases by $18.75 to $56.25'
    verdict = matched(hand)
    assert awards(verdict, "expected") == {"Ben": {"Ada": (1875, 1875, 5625)}}
    assert awards(verdict, "computed") == awards(verdict, "expected")
    assert knockout(2).bounties[0].now_cents == 400  # '... increases by $0.30 to $4'


def test_splitting_the_elimination_gives_each_winner_half_with_the_odd_cent_on_the_cash_side() -> None:
    hand = knockout(5)  # 'Ada wins $4.60 for splitting the elimination of Ben and ... increases by $4.59 to $41.32'
    verdict = matched(hand)
    assert awards(verdict, "expected") == {"Ben": {"Ada": (460, 459, 4132), "Cal": (460, 459, 2459)}}
    assert awards(verdict, "computed") == awards(verdict, "expected")


def test_a_progressive_share_of_an_odd_number_of_cents_pays_the_odd_cent_in_cash() -> None:
    hand = knockout(6)  # a $39.79 bounty: 'Ada wins $19.90 ... increases by $19.89 to $155.32'
    assert awards(matched(hand), "computed") == {"Ben": {"Ada": (1990, 1989, 15532)}}


def test_finished_the_tournament_lines_give_the_place_and_the_prize_with_or_without_cents() -> None:
    assert [(p.player, p.place, p.received) for p in knockout(4).places] == [("Ben", 6, 472)]  # 'and received $4.72.'
    assert [(p.player, p.place, p.received) for p in knockout(5).places] == [("Ben", 9, None)]
    assert [(p.player, p.place, p.received) for p in knockout(7).places] == [
        ("Ben", 12, 110000), ("Cal", 10, 145000), ("Dan", 10, 145000),  # 'and received $1,100.'
    ]  # fmt: skip


def test_the_tournament_winner_line_is_read_with_its_prize_and_is_not_a_bust() -> None:
    hand = knockout(6)  # 'Ada wins the tournament and receives $230.36 - congratulations!'
    verdict = matched(hand)
    assert verdict.expected["tournament_winner"] == {"player": "Ada", "seat": 1, "received": 23036, "line": 186}
    assert [place["player"] for place in verdict.computed["places"]] == ["Ben"]


def test_the_places_of_a_hands_busts_are_compared_by_relative_order_and_ties_not_by_number() -> None:
    verdict = matched(knockout(7))  # Ben (3000 chips) 12th; Cal and Dan (5000 each) both 10th
    assert {p["player"]: p["finish"] for p in verdict.expected["places"]} == {"Ben": 1, "Cal": 2, "Dan": 2}
    assert {p["player"]: p["finish"] for p in verdict.computed["places"]} == {"Ben": 1, "Cal": 2, "Dan": 2}


@pytest.mark.parametrize(
    ("number", "written", "wrong", "kind", "named"),
    [
        (
            1,
            "Ben wins the $0.50 bounty",
            "Ada wins the $0.50 bounty",
            "bounty award",
            "recorded Ada $0.50; the rules give Ben $0.50",
        ),
        (1, "Ben wins the $0.50 bounty", "Ben wins the $0.40 bounty", "bounty award", "recorded Ben $0.40"),
        (1, "Ben wins the $0.50 bounty for eliminating Cal\n", "", "bounty award", "writes no bounty line for Cal"),
        (3, "Ada, Cal split the $50", "Ada, Ben split the $50", "bounty award", "recorded Ada, Ben split $50.00"),
        (4, "Ada wins $18.75 for", "Ada wins $18.76 for", "bounty award", "recorded Ada $18.76 cash + $18.75 added"),
        (5, "$4.59 to $41.32", "$4.59 to $41.33", "bounty award", "Ada $4.60 cash + $4.59 added (bounty now $41.33)"),
        (6, "Ada wins $19.90", "Ada wins $19.89", "bounty award", "the rules give Ada $19.90 cash + $19.89 added"),
        (7, "Ben finished the tournament in 12th", "Ben finished the tournament in 9th", "places", "then Ben (9th)"),
        (7, "Dan finished the tournament in 10th", "Dan finished the tournament in 11th", "places", "Cal and Dan tied"),
        (
            6,
            "Ada wins the tournament",
            "Ben wins the tournament",
            "places",
            "Ben wins the tournament; the rules leave Ben no chips",
        ),
        (1, "Cal finished the tournament", "Ada finished the tournament", "places", "the rules leave Ada 1500 chips"),
    ],
)
def test_a_wrong_recorded_bounty_or_place_is_a_mismatch_that_names_the_players(
    number: int, written: str, wrong: str, kind: str, named: str
) -> None:
    assert written in KNOCKOUTS
    verdict = judge(knockout(number, KNOCKOUTS.replace(written, wrong)))
    assert (verdict.status, verdict.kind) == ("mismatch", kind)
    assert named in verdict.reason


@pytest.mark.parametrize(
    ("written", "wrong", "line", "reason"),
    [
        ("Ben wins the $0.50 bounty", "Ben wins the $0.5O bounty", 19, "'$0.5O' is not an amount"),
        (
            "Ada: posts the ante 50\n",
            "Ada: posts the ante 50\nAda wins $1 for eliminating nobody at all\n",
            99,
            "not a knockout line",
        ),
        ("by $18.75 to $56.25", "by $18.75 to $56.2x5", 114, "'$56.2x5' is not an amount"),
        (
            "Ben finished the tournament in 397th place",
            "Ben finished the tournament in last place",
            83,
            "expected 'NAME finished the tournament in Nth place",
        ),
        (
            "Ben finished the tournament in 6th place",
            "Bob finished the tournament in 6th place",
            115,
            "'Bob' has no seat in this hand",
        ),
        ("(9000 in chips, $37.50 bounty)", "(9000 in chips, $37.5.0 bounty)", 95, "'$37.5.0' is not an amount"),
    ],
)
def test_an_unreadable_knockout_or_finish_line_names_the_file_the_line_and_the_reason(
    written: str, wrong: str, line: int, reason: str
) -> None:
    assert written in KNOCKOUTS
    text = KNOCKOUTS.replace(written, wrong, 1)
    (error,) = [r for r in read_pokerstars(text, "knockouts.txt") if isinstance(r, ReplayError)]
    assert str(error).startswith(f"knockouts.txt:{line}: hand pokerstars:")
    assert reason in str(error)


def test_a_progressive_knockout_without_seat_bounties_checks_its_lines_as_far_as_they_go() -> None:
    text = KNOCKOUTS
    for bounty in (", $3.70 bounty", ", $0.61 bounty", ", $2.26 bounty"):
        text = text.replace(bounty, "")
    hand = knockout(2, text)
    assert heads(hand) == ({1: None, 2: None, 3: None}, None)
    assert hand.buy_in_bounty == 460  # $4.60+$4.60+$0.80
    verdict = judge(hand)  # Ben's head by the lines ($0.31 + $0.30) is below the $4.60 every entry starts with
    assert (verdict.status, verdict.kind) == ("mismatch", "bounty award")
    assert verdict.reason == (
        "the bounty for eliminating Ben adds up to $0.61 in the history's lines, below the buy-in's $4.60 (a head "
        "starts with it and only grows)"
    )  # the lines' other checks: tests/histories/test_replay_tournaments.py


def test_a_tournament_whose_buy_in_has_no_bounty_is_no_knockout() -> None:
    for hand in read("tournament.txt"):  # $1.00+$0.10
        bounties, cash_ppm = heads(hand)
        assert (set(bounties.values()), cash_ppm) == ({None}, None)
        assert "bounty_awards" not in matched(hand).computed


def test_the_report_gives_the_recomputed_bounty_awards_and_places_beside_the_recorded_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.jsonl"
    assert main(["replay", str(STARS / "knockouts.txt"), "--report", str(report)]) == 0
    assert "knockout bounties read    10" in capsys.readouterr().out
    lines = [orjson.loads(line) for line in report.read_bytes().splitlines()]
    progressive = lines[3]
    assert progressive["expected"]["bounty_awards"] == [
        {"eliminated": "Ben", "seat": 2, "winners": [
            {"player": "Ada", "seat": 1, "amount": 3750, "cash": 1875, "added": 1875, "bounty_now": 5625}
        ], "lines": [114]}
    ]  # fmt: skip
    assert progressive["computed"]["bounty_awards"] == [
        {"eliminated": "Ben", "seat": 2, "bounty": 3750, "winners": [
            {"player": "Ada", "seat": 1, "amount": 3750, "cash": 1875, "added": 1875, "bounty_now": 5625}
        ], "pot": 0}
    ]  # fmt: skip
    assert progressive["expected"]["places"] == [
        {"player": "Ben", "seat": 2, "place": 6, "finish": 1, "received": 472, "line": 115}
    ]
    assert progressive["computed"]["places"] == [{"player": "Ben", "seat": 2, "finish": 1}]


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


def test_an_archive_export_reads_a_cash_out_is_checked_and_a_cancelled_hand_is_unverifiable() -> None:
    plain, cashed, cancelled = read("archive_cashout_cancelled.txt")
    assert matched(plain).computed["collected"] == {"1": 13}
    # all-in preflop: the cash-out is priced preflop (AsKc against 8h8s: 255917/570768 of $19.50, less 1%), and
    # $15.20 is no point's figure (tests/histories/test_replay_pokerstars_cashout.py reads cash-outs that fit)
    assert (judge(cashed).status, judge(cashed).kind) == ("mismatch", "cash-out")
    assert "seat 2 on the preflop: expected 866" in judge(cashed).reason
    assert "stated 1520" in judge(cashed).reason
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
    by_seat = sorted(one.event.players, key=lambda p: p.seat)  # listed in the order played (its play's)
    assert [p.player_id for p in by_seat] == ["José", "Zoë", "Chat Noir"]


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
