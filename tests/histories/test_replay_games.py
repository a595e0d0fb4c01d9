"""showdown replay on every PokerStars game: how each is dealt, read into its contract variant, settled as recorded."""

from __future__ import annotations

import pytest

from showdown_rules import VARIANT_SHAPES
from showdown_service.histories import HandRecord, ReplayError, UnsupportedHand, judge, read_pokerstars
from showdown_service.histories.compare import Verdict
from showdown_service.histories.games import GAMES, Game, pokerstars_game
from showdown_service.histories.run import read_file
from tests.helpers import REPO

GAMES_DIR = REPO / "tests" / "fixtures" / "replay" / "pokerstars" / "games"


def read(name: str) -> list[HandRecord]:
    _, found, _ = read_file(str(GAMES_DIR / name))
    hands = list(found)
    assert all(isinstance(hand, HandRecord) for hand in hands), hands
    return [hand for hand in hands if isinstance(hand, HandRecord)]


def cards(hand: HandRecord) -> dict[int, tuple[str, ...] | None]:
    assert hand.event is not None
    return {p.seat: p.hole_cards for p in hand.event.players}


def matched(hand: HandRecord) -> Verdict:
    verdict = judge(hand)
    assert verdict.status == "match", verdict.reason
    return verdict


# -- the table of games ------------------------------------------------------------------


def test_every_game_is_settled_by_a_contract_variant_that_takes_its_number_of_own_cards() -> None:
    for game in GAMES:
        shape = VARIANT_SHAPES[game.variant]
        assert game.cards in shape.hole_cards, game
        assert game.board == bool(shape.board_cards), game


@pytest.mark.parametrize(
    ("header", "name", "variant", "mix"),
    [
        ("Omaha Pot Limit ($0.50/$1 USD)", "Omaha", "omaha", ""),
        ("5 Card Omaha Pot Limit ($0.05/$0.10 USD)", "5 Card Omaha", "omaha", ""),
        ("Tournament #1, $5+$0.50 USD 6 Card Omaha Pot Limit - Level II (15/30)", "6 Card Omaha", "omaha", ""),
        ("Omaha Hi/Lo Limit ($1/$2 USD)", "Omaha Hi/Lo", "omaha_hilo", ""),
        ("5 Card Omaha Hi/Lo Pot Limit ($1/$2 USD)", "5 Card Omaha Hi/Lo", "omaha_hilo", ""),
        ("Courchevel Pot Limit ($0.10/$0.25 USD)", "Courchevel", "omaha", ""),
        ("Courchevel Hi/Lo Pot Limit ($1/$2 USD)", "Courchevel Hi/Lo", "omaha_hilo", ""),
        ("6+ Hold'em No Limit (Button Blind $0.25 - Ante $0.25  USD)", "6+ Hold'em", "short_deck", ""),
        ("7 Card Stud Limit ($0.04/$0.08)", "7 Card Stud", "stud", ""),
        (
            "TOURNAMENT #169962475, $10+$1 7 CARD STUD HI/LO LIMIT - LEVEL I (25/50)",
            "7 Card Stud Hi/Lo",
            "stud_hilo",
            "",
        ),
        ("Razz Limit - Level IV (50/100)", "Razz", "razz", ""),
        ("5 Card Draw Limit ($0.10/$0.20 USD)", "5 Card Draw", "five_card_draw", ""),
        ("Triple Draw 2-7 Lowball Limit ($1/$2 USD)", "Triple Draw 2-7 Lowball", "deuce_to_seven", ""),
        ("Single Draw 2-7 Lowball No Limit ($0.25/$0.50 USD)", "Single Draw 2-7 Lowball", "deuce_to_seven", ""),
        ("Badugi Limit ($0.25/$0.50 USD)", "Badugi", "badugi", ""),
        ("HORSE (Razz Limit, $0.10/$0.20 USD)", "Razz", "razz", "HORSE"),
        (
            "8-Game (Triple Draw 2-7 Lowball Limit, $0.10/$0.20 USD)",
            "Triple Draw 2-7 Lowball",
            "deuce_to_seven",
            "8-Game",
        ),
        ("Mixed NLH/PLO (Omaha Pot Limit, $0.10/$0.25 USD)", "Omaha", "omaha", "Mixed NLH/PLO"),
        ("Mixed Omaha H/L (Omaha Hi/Lo Limit, $1/$2)", "Omaha Hi/Lo", "omaha_hilo", "Mixed Omaha H/L"),
    ],
)
def test_a_header_names_the_game_of_its_hand(header: str, name: str, variant: str, mix: str) -> None:
    named = pokerstars_game(header)
    assert isinstance(named.game, Game)
    assert (named.game.name, named.game.variant, named.mix) == (name, variant, mix)


# -- Omaha -------------------------------------------------------------------------------


def test_omaha_with_four_five_and_six_cards_sends_every_card_and_settles_two_own_and_three_board() -> None:
    four, five, six = read("omaha_4_5_6.txt")
    assert [len(cards(hand)[1] or ()) for hand in (four, five, six)] == [4, 5, 6]
    assert matched(four).computed["collected"] == {"1": 3950}  # quads: Kd Kc with the board's two kings
    assert matched(five).computed["collected"] == {"1": 29, "2": 28}  # the odd cent left of the button
    assert matched(six).computed["collected"] == {"3": 1500}


def test_omaha_hi_lo_splits_each_pot_and_quarters_a_tied_low() -> None:
    quartered, no_low = read("omaha_hilo.txt")
    verdict = matched(quartered)
    assert verdict.computed["collected"] == {"1": 857, "2": 286}  # high 572; low 571 split 286 / 285
    assert [(p["half"], p["collected"]) for p in verdict.computed["pots"][0]["parts"]] == [
        ("high", {"1": 572}),
        ("low", {"1": 285, "2": 286}),
    ]
    assert matched(no_low).computed["collected"] == {"2": 1520}  # no low qualified: the high hand scoops


def test_courchevel_reads_the_flop_card_dealt_before_the_first_betting_round() -> None:
    high, hilo = read("courchevel.txt")
    assert high.event is not None
    assert high.event.board == ("8s", "2c", "9h", "6s", "Jh")  # PRE-FLOP [8s], then FLOP [8s] [2c 9h]
    assert (high.game, high.event.variant) == ("Courchevel", "omaha")
    assert matched(high).computed["collected"] == {"3": 817}
    assert hilo.event is not None
    assert hilo.event.boards == (("7h", "5d", "3s", "Kc", "Tc"), ("7h", "5d", "3s", "2s", "4h"))


def test_courchevel_hi_lo_run_twice_is_compared_run_by_run() -> None:
    (_, hilo) = read("courchevel.txt")
    verdict = matched(hilo)
    assert verdict.computed["collected"] == {"3": 5980, "4": 9970}
    assert verdict.expected["runs"] == [
        [{"index": 0, "collected": {"3": 3987, "4": 3988}}],
        [{"index": 0, "collected": {"3": 1993, "4": 5982}}],
    ]


def test_six_plus_holdem_posts_a_live_button_blind_and_settles_trips_over_a_straight() -> None:
    (hand,) = read("six_plus.txt")
    assert hand.event is not None
    assert hand.event.variant == "short_deck"
    assert {p.seat: p.contributed for p in hand.event.players} == {1: 800, 2: 800, 3: 50}
    assert matched(hand).computed["collected"] == {"1": 1568}


# -- stud --------------------------------------------------------------------------------


def test_seven_card_stud_reads_the_bring_in_the_streets_and_seven_cards_each() -> None:
    (hand,) = read("stud.txt")
    assert hand.event is not None
    assert (hand.event.variant, hand.event.button_seat) == ("stud", None)  # stud tables have no button
    assert cards(hand) == {
        1: ("Ac", "Kc", "8c", "9c", "9d", "Th", "4c"),
        2: None,
        3: ("5s", "5h", "2d", "2h", "6s", "Qh", "3d"),
    }
    assert {p.seat: p.contributed for p in hand.event.players} == {1: 25, 2: 9, 3: 25}
    assert matched(hand).computed["collected"] == {"1": 57}


def test_stud_hi_lo_gives_the_odd_chip_to_the_high_half() -> None:
    (hand,) = read("stud_hilo.txt")
    assert matched(hand).computed["collected"] == {"1": 107, "2": 108}


def test_razz_takes_the_lowest_hand_and_a_name_may_hold_brackets() -> None:
    (hand,) = read("razz.txt")
    assert hand.event is not None
    assert [p.player_id for p in hand.event.players] == ["Ada", "Bo [NL]", "Cal"]
    assert matched(hand).computed["collected"] == {"1": 1045}


def test_a_stud_hand_whose_deck_ran_out_is_refused_with_the_shared_card() -> None:
    _, found, _ = read_file(str(GAMES_DIR / "stud_deck_runs_out.txt"))
    (refused,) = found
    assert isinstance(refused, UnsupportedHand)
    assert refused.line == 107
    assert "6s was dealt face up to every player" in str(refused)


# -- draw games --------------------------------------------------------------------------


def test_five_card_draw_settles_the_hand_after_the_draw_and_recovers_the_rake_rate() -> None:
    (hand,) = read("five_card_draw.txt")
    assert cards(hand)[3] == ("6c", "6h", "6d", "2s", "2c")  # Qd 7h Th thrown, 6d 2s 2c drawn
    verdict = matched(hand)
    assert verdict.kind == "rake rate recovered"
    assert verdict.computed["collected"] == {"3": 93}


def test_triple_draw_reads_three_draws_of_discards_and_stands_pat() -> None:
    (hand,) = read("triple_draw.txt")
    assert cards(hand)[1] == ("7c", "5d", "4c", "3s", "2h")
    assert matched(hand).computed["collected"] == {"1": 1805}


def test_single_draw_reads_stands_pat_on_and_a_draw_without_a_section_line() -> None:
    (hand,) = read("single_draw.txt")
    assert hand.event is not None
    assert {p.seat: p.contributed for p in hand.event.players} == {1: 600, 4: 0, 5: 25, 6: 600}
    assert matched(hand).computed["collected"] == {"1": 1164}


def test_badugi_shows_the_final_four_cards() -> None:
    (hand,) = read("badugi.txt")
    assert cards(hand)[2] == ("3h", "5h", "2c", "Jh")
    assert matched(hand).computed["collected"] == {"1": 309}


# -- mixed games and runs ------------------------------------------------------------------


def test_a_horse_and_8_game_file_reads_each_hand_in_its_own_game() -> None:
    razz, triple, stud = read("mixed_horse_8game.txt")
    assert [(h.game, h.event.variant if h.event else None) for h in (razz, triple, stud)] == [
        ("Razz", "razz"),
        ("Triple Draw 2-7 Lowball", "deuce_to_seven"),
        ("7 Card Stud Hi/Lo", "stud_hilo"),
    ]
    assert stud.event is not None
    assert stud.event.tournament_id == "80000001"
    assert [matched(h).computed["collected"] for h in (razz, triple, stud)] == [{"1": 24}, {"1": 38}, {"1": 35}]


def test_a_hand_run_three_times_gives_each_run_a_third_and_the_chips_left_over_to_the_earliest_runs() -> None:
    (hand,) = read("run_three_times.txt")
    assert hand.event is not None
    assert hand.event.boards is not None
    assert [board[4] for board in hand.event.boards] == ["3d", "6h", "Ks"]
    verdict = matched(hand)
    (pot,) = verdict.computed["pots"]
    assert [(p["run"], p["amount"], p["collected"]) for p in pot["parts"]] == [
        (1, 9917, {"2": 9917}),
        (2, 9917, {"1": 9917}),
        (3, 9916, {"2": 9916}),
    ]


def test_a_run_whose_recorded_payout_differs_from_the_rules_is_a_run_mismatch() -> None:
    text = (GAMES_DIR / "run_three_times.txt").read_text(encoding="utf-8")
    text = text.replace("Eve collected $99.17", "Eve collected $THIRD").replace(
        "Eve collected $99.16", "Eve collected $99.17"
    )
    text = text.replace("$THIRD", "$99.16")  # the left-over cent given to the third run instead of the first
    (hand,) = read_pokerstars(text, "runs.txt")
    assert isinstance(hand, HandRecord), hand
    verdict = judge(hand)
    assert (verdict.status, verdict.kind) == ("mismatch", "run award")
    assert verdict.reason == "main pot, run 1: recorded seat 2 (Eve) 9916, rules give seat 2 (Eve) 9917"


def test_every_game_fixture_reads_without_an_error() -> None:
    for path in sorted(GAMES_DIR.glob("*.txt")):
        _, found, _ = read_file(str(path))
        for hand in found:
            if path.name == "stud_deck_runs_out.txt":
                assert isinstance(hand, UnsupportedHand)
            else:
                assert not isinstance(hand, ReplayError), hand
