"""Every game a card room deals: each rule of hi-lo halves, runs and odd chips, one hand each, chip for chip.

The rules are stated in docs/rules.md: TDA 2024 Rules 20-21 and WSOP 2023 Rule 73.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from showdown_messages import ShowdownResult
from showdown_service.decision.wire import encode_result
from tests.helpers import collected, event, refusal, seat, settle_doc

HILO_BOARD = "2c 4d 7h Kc Qs"
"""Three low cards (2, 4, 7): a low is possible for a player holding two other low ranks."""


def game(variant: str, *players: dict[str, Any], board: str = "", **fields: Any) -> dict[str, Any]:
    """An event of ``variant`` (button on seat 1 unless said otherwise)."""
    return event(*players, board=board, variant=variant, **fields)


def parts(doc: dict[str, Any]) -> list[tuple[int, str, str, int, dict[int, int]]]:
    """Each part of the main pot: (run, half, ranking, amount, {seat: chips})."""
    pot = settle_doc(doc).pots[0]
    return [(p.run, p.half, p.ranking, p.amount, {w.seat: w.amount for w in p.winners}) for p in pot.parts]


def result(doc: dict[str, Any]) -> dict[str, Any]:
    """The published result, checked against the contract."""
    from datetime import UTC, datetime

    raw = encode_result(settle_doc(doc), datetime(2026, 11, 22, tzinfo=UTC))
    ShowdownResult.model_validate_json(raw)
    parsed: dict[str, Any] = orjson.loads(raw)
    return parsed


# --- Omaha ------------------------------------------------------------------------------------------------


def test_an_omaha_hand_is_exactly_two_own_cards_and_three_of_the_board() -> None:
    # with any cards seat 1 would hold a royal flush (Ts and the board's four spades); in Omaha it is ace-high
    doc = game("omaha", seat(1, "Ts 3c 4c 5h", 100), seat(2, "2c 2h 7d 8d", 100), board="As Ks Qs Js 2d")
    assert collected(doc) == {1: 0, 2: 200}
    hands = {h["seat"]: h for h in result(doc)["hands"]}
    assert hands[2]["description"] == "Three of a kind, Twos"
    assert sorted(hands[2]["best_five"]) == sorted(["2c", "2h", "2d", "As", "Ks"])


@pytest.mark.parametrize("cards", [4, 5, 6])
def test_omaha_is_dealt_with_four_five_or_six_cards(cards: int) -> None:
    own = ["3c 4c 5h 6h 8c 9c", "2c 2h 7d 8d Tc Th"]
    doc = game(
        "omaha",
        seat(1, " ".join(own[0].split()[:cards]), 100),
        seat(2, " ".join(own[1].split()[:cards]), 100),
        board="As Ks Qs Js 2d",
    )
    assert collected(doc) == {1: 0, 2: 200}


def test_omaha_players_holding_different_numbers_of_cards_are_refused_naming_the_seat() -> None:
    err = refusal(game("omaha", seat(1, "3c 4c 5h 6h", 100), seat(2, "2s 2h 7d 8d Tc", 100), board=HILO_BOARD))
    assert (err.code, err.field) == ("unequal_hole_cards", "players[1].hole_cards")
    assert err.message.startswith("players[1].hole_cards (seat 2): has 5 cards but players[0] (seat 1) has 4")


def test_omaha_hi_lo_with_six_cards_is_refused() -> None:
    doc = game("omaha_hilo", seat(1, "3c 5c 5h 6h 8c 9c", 100), seat(2, "2s 2h 7d 8d Tc Th", 100), board=HILO_BOARD)
    err = refusal(doc)
    assert (err.code, err.field) == ("bad_hole_cards", "players[0].hole_cards")
    assert "4 or 5" in err.message


# --- hi-lo halves --------------------------------------------------------------------------------------


def hilo(*players: dict[str, Any], board: str = HILO_BOARD, **fields: Any) -> dict[str, Any]:
    return game("omaha_hilo", *players, board=board, **fields)


KINGS = "Ks Kd 9c 9d"
"""Three kings on HILO_BOARD, and no low (no two own cards of eight or lower)."""
WHEEL_DRAW = "Ac 3h Jd Td"
"""On HILO_BOARD: a 7-4-3-2-A low, and only king-high for high."""


def test_a_hi_lo_pot_splits_in_halves_and_the_odd_chip_goes_to_the_high_half() -> None:
    doc = hilo(seat(1, KINGS, 50), seat(2, WHEEL_DRAW, 50), seat(3, None, 3, folded=True))
    assert collected(doc) == {1: 52, 2: 51, 3: 0}
    assert parts(doc) == [
        (1, "high", "high", 52, {1: 52}),
        (1, "low", "eight_or_better", 51, {2: 51}),
    ]


def test_without_a_qualifying_low_the_best_high_hand_scoops_the_whole_pot() -> None:
    doc = hilo(seat(1, KINGS, 50), seat(2, "Jd Td 9h 9s", 50), seat(3, None, 3, folded=True))
    assert collected(doc) == {1: 103, 2: 0, 3: 0}
    assert parts(doc) == [(1, "whole", "high", 103, {1: 103})]


def test_a_shared_low_half_is_quartered_and_its_odd_chip_goes_clockwise_from_the_button() -> None:
    doc = hilo(
        seat(1, KINGS, 100),
        seat(2, WHEEL_DRAW, 100),
        seat(3, "As 3s Jh Th", 100),  # the same 7-4-3-2-A low
        seat(4, None, 3, folded=True),
        button=1,
    )
    assert collected(doc) == {1: 152, 2: 76, 3: 75, 4: 0}
    doc["button_seat"] = 2  # now seat 3 is the first tied winner left of the button
    assert collected(doc) == {1: 152, 2: 75, 3: 76, 4: 0}


@pytest.mark.parametrize(("pot", "shares"), [(66, {1: 33, 2: 33}), (67, {1: 33, 2: 34})])
def test_when_the_same_hands_win_both_halves_the_pot_is_divided_among_them_as_one(
    pot: int, shares: dict[int, int]
) -> None:
    # both make the wheel (5-4-3-2-A) for high and for low: halves divided separately would give 34/32 of 66
    doc = hilo(
        seat(1, "Ac 5c 9d 9h", 33),
        seat(2, "As 5s 9c 9s", 33),
        seat(3, None, pot - 66, folded=True),
        board="2c 3d 4h Kc Qs",
        button=1,
    )
    assert {k: v for k, v in collected(doc).items() if k != 3} == shares
    high, low = parts(doc)
    assert high[3] + low[3] == pot
    assert sum(high[4].values()) == high[3]
    assert sum(low[4].values()) == low[3]


def test_omaha_hi_lo_may_use_different_own_cards_for_the_low() -> None:
    # high: the two kings (three kings); low: the ace and the three (7-4-3-2-A) of the same seat
    doc = hilo(seat(1, "Ks Kd Ac 3h", 50), seat(2, "Jd Td 9h 9s", 50))
    assert collected(doc) == {1: 100, 2: 0}
    hands = result(doc)["hands"]
    mine = next(h for h in hands if h["seat"] == 1)
    assert mine["high"]["description"] == "Three of a kind, Kings"
    assert mine["low"]["description"].startswith("Seven")
    assert sorted(mine["low"]["cards"]) == sorted(["Ac", "3h", "2c", "4d", "7h"])
    theirs = next(h for h in hands if h["seat"] == 2)
    assert theirs["low"] is None


def test_a_hi_lo_result_says_why_each_player_got_their_chips() -> None:
    doc = hilo(seat(1, KINGS, 50), seat(2, WHEEL_DRAW, 50), seat(3, None, 3, folded=True))
    pot = result(doc)["pots"][0]
    assert pot["winners"] == [{"seat": 1, "amount": 52}, {"seat": 2, "amount": 51}]
    assert [(p["half"], p["amount"], p["hand"]) for p in pot["parts"]] == [
        ("high", 52, "Three of a kind, Kings"),
        ("low", 51, next(h["low"]["description"] for h in result(doc)["hands"] if h["seat"] == 2)),
    ]


# --- stud games ------------------------------------------------------------------------------------------


def test_in_stud_the_odd_chip_goes_by_the_highest_card_of_the_five_that_play_not_of_all_seven() -> None:
    # both play a nine-high straight; seat 1's ace does not play, and seat 2's nine of hearts beats the nine of clubs
    doc = game(
        "stud",
        seat(1, "9c 8d 7c 6d 5c As 2d", 50),
        seat(2, "9h 8c 7d 6c 5d Kd 3c", 50),
        seat(3, None, 1, folded=True),
        button=None,
    )
    assert collected(doc) == {1: 50, 2: 51, 3: 0}


def test_in_razz_the_lowest_hand_wins_and_pairs_count_against_it() -> None:
    doc = game(
        "razz",
        seat(1, "Ac Ad 2c 2d 3h 3s Kc", 50),  # four ranks only: its best five hold a pair
        seat(2, "9c Td Jh Qs Kd 8s 7s", 50),  # J-T-9-8-7: a jack-low, but no pair
        button=None,
    )
    assert collected(doc) == {1: 0, 2: 100}


def test_in_razz_an_odd_chip_goes_by_the_highest_card_with_the_ace_counting_low() -> None:
    # both hold 7-5-4-2-A; ace high, seat 1's ace of spades would win it; ace low, seat 2's seven of diamonds does
    doc = game(
        "razz",
        seat(1, "As 2c 4d 5h 7c Ks Qs", 50),
        seat(2, "Ah 2d 4c 5s 7d Kh Qh", 50),
        seat(3, None, 1, folded=True),
        button=None,
    )
    assert collected(doc) == {1: 50, 2: 51, 3: 0}


def test_stud_hi_lo_splits_the_pot_and_each_half_goes_to_its_own_best_hand() -> None:
    doc = game(
        "stud_hilo",
        seat(1, "Kc Kd Ks 9c 9d Jh Qh", 50),  # full house, no low
        seat(2, "Ac 2d 3h 4s 6c Td Jd", 50),  # 6-4-3-2-A low
        seat(3, None, 1, folded=True),
        button=None,
    )
    assert collected(doc) == {1: 51, 2: 50, 3: 0}


# --- draw games ---------------------------------------------------------------------------------------------


def test_in_deuce_to_seven_aces_are_high_and_a_wheel_is_no_straight() -> None:
    doc = game("deuce_to_seven", seat(1, "As 2c 3d 4h 5s", 50), seat(2, "Kd 9c 7d 5c 3h", 50))
    assert collected(doc) == {1: 0, 2: 100}  # king-high beats ace-high


def test_in_deuce_to_seven_a_flush_counts_against_the_hand() -> None:
    doc = game("deuce_to_seven", seat(1, "7h 5h 4h 3h 2h", 50), seat(2, "8c 6d 4c 3d 2s", 50))
    assert collected(doc) == {1: 0, 2: 100}


def test_in_badugi_any_four_card_hand_beats_any_three_card_hand() -> None:
    doc = game("badugi", seat(1, "Kc Qd Jh Ts", 50), seat(2, "Ac 2d 3h 3s", 50))
    assert collected(doc) == {1: 100, 2: 0}


def test_five_card_draw_is_won_by_the_best_five_card_hand() -> None:
    doc = game("five_card_draw", seat(1, "As Ad Kc Kd 2h", 50), seat(2, "Qc Qd Qh 3s 4s", 50))
    assert collected(doc) == {1: 0, 2: 100}


def test_a_draw_game_needs_the_button_for_its_odd_chips() -> None:
    doc = game("badugi", seat(1, "Kc Qd Jh Ts", 50), seat(2, "Ac 2d 3h 3s", 50), button=None)
    assert (refusal(doc).code, refusal(doc).field) == ("missing_button", "button_seat")


# --- short deck -----------------------------------------------------------------------------------------


def test_short_deck_has_no_card_below_six() -> None:
    err = refusal(game("short_deck", seat(1, "As 5c", 50), seat(2, "Kd Kh", 50), board="6c 7d 8h Qs Kc"))
    assert (err.code, err.field) == ("card_not_in_deck", "players[0].hole_cards[1]")
    assert "5c" in err.message


@pytest.mark.parametrize(("variant", "winner"), [("short_deck", 2), ("short_deck_straight_over_trips", 1)])
def test_in_short_deck_a_to_9_is_a_straight_and_trips_beat_it_unless_the_wsop_order_is_asked(
    variant: str, winner: int
) -> None:
    board = "6c 7d 8h Qs Kd"
    doc = game(variant, seat(1, "Ac 9s", 50), seat(2, "Qh Qc", 50), board=board)
    assert collected(doc)[winner] == 100
    # the A-6-7-8-9 straight beats ace-high either way
    assert collected(game(variant, seat(1, "Ac 9s", 50), seat(2, "Ah Jc", 50), board=board)) == {1: 100, 2: 0}


def test_in_short_deck_a_flush_beats_a_full_house() -> None:
    doc = game("short_deck", seat(1, "Ac Tc", 50), seat(2, "Kh 6d", 50), board="6c 7c 8c Kd Ks")
    assert collected(doc) == {1: 100, 2: 0}


# --- runs ---------------------------------------------------------------------------------------------------

RUNS = [["2c", "7d", "9h", "Js", "3s"], ["2c", "7d", "9h", "Kh", "4c"]]
"""Run twice after the flop: aces hold on the first board, kings make trips on the second."""


def test_a_pot_run_twice_is_divided_equally_and_the_leftover_chip_goes_to_the_first_run() -> None:
    doc = event(seat(1, "As Ad", 100), seat(2, "Kc Kd", 100), seat(3, None, 1, folded=True), boards=RUNS)
    assert collected(doc) == {1: 101, 2: 100, 3: 0}
    assert parts(doc) == [(1, "whole", "high", 101, {1: 101}), (2, "whole", "high", 100, {2: 100})]
    hands = result(doc)["hands"]
    assert [(h["run"], h["seat"], h["description"]) for h in hands] == [
        (1, 1, "Pair of Aces"),
        (1, 2, "Pair of Kings"),
        (2, 1, "Pair of Aces"),
        (2, 2, "Three of a kind, Kings"),
    ]


def test_a_pot_run_three_times_gives_its_leftover_chips_one_each_to_the_earliest_runs() -> None:
    boards = [*RUNS, ["2c", "7d", "9h", "Ah", "5c"]]
    doc = event(seat(1, "As Ad", 100), seat(2, "Kc Kd", 100), seat(3, None, 2, folded=True), boards=boards)
    assert [(p[0], p[3]) for p in parts(doc)] == [(1, 68), (2, 67), (3, 67)]
    assert collected(doc) == {1: 68 + 67, 2: 67, 3: 0}


def test_a_hi_lo_pot_run_twice_splits_each_runs_part_in_halves() -> None:
    boards = [HILO_BOARD.split(), ["2c", "4d", "7h", "8s", "9s"]]
    doc = game("omaha_hilo", seat(1, KINGS, 50), seat(2, WHEEL_DRAW, 50), seat(3, None, 3, folded=True), boards=boards)
    # 103 chips: run 1 has 52 (26 high, 26 low), run 2 has 51 (26 high, 25 low); seat 2 scoops run 2 (a J-high
    # straight and the low)
    assert parts(doc) == [
        (1, "high", "high", 26, {1: 26}),
        (1, "low", "eight_or_better", 26, {2: 26}),
        (2, "high", "high", 26, {2: 26}),
        (2, "low", "eight_or_better", 25, {2: 25}),
    ]
    assert collected(doc) == {1: 26, 2: 77, 3: 0}


@pytest.mark.parametrize(
    ("change", "code", "field"),
    [
        ({"variant": "stud", "button_seat": None}, "bad_boards", "boards"),
        ({"board": RUNS[0]}, "bad_boards", "boards"),
        ({"boards": [RUNS[0], RUNS[1][:4]]}, "bad_boards", "boards[1]"),
        ({"boards": [RUNS[0]]}, "bad_boards", "boards"),
        ({"boards": [RUNS[0], RUNS[1], RUNS[1], RUNS[1]]}, "bad_boards", "boards"),
        ({"boards": [RUNS[0], [*RUNS[1][:4], "3s"]]}, "duplicate_card", "boards[1][4]"),
        ({"boards": [RUNS[0], [*RUNS[1][:4], "As"]]}, "duplicate_card", "players[0].hole_cards[0]"),
    ],
)
def test_boards_that_are_not_two_or_three_complete_runs_are_refused_naming_the_board(
    change: dict[str, Any], code: str, field: str
) -> None:
    doc = event(seat(1, "As Ad", 100), seat(2, "Kc Kd", 100), boards=RUNS)
    doc.update(change)
    doc = {k: v for k, v in doc.items() if v is not None}
    err = refusal(doc)
    assert (err.code, err.field) == (code, field), err.message


def test_every_variant_pays_out_exactly_the_chips_put_in() -> None:
    docs = [
        game("omaha", seat(1, "Ts 3c 4c 5h", 100), seat(2, "2c 2h 7d 8d", 37), board="As Ks Qs Js 2d"),
        hilo(seat(1, KINGS, 77), seat(2, WHEEL_DRAW, 50), seat(3, "As 3s Jh Th", 13), rake=3),
        game("razz", seat(1, "As 2c 4d 5h 7c Ks Qs", 51), seat(2, "Ah 2d 4c 5s 7d Kh Qh", 29), button=None),
        game("badugi", seat(1, "Kc Qd Jh Ts", 40), seat(2, "Ac 2d 3h 3s", 41), seat(3, "4c 5d 6h 7s", 17)),
        event(seat(1, "As Ad", 100), seat(2, "Kc Kd", 61), seat(3, "Qc Qd", 99), boards=RUNS),
    ]
    for doc in docs:
        settled = settle_doc(doc)
        put_in = sum(p["contributed"] for p in doc["players"])
        assert sum(settled.collected) + doc.get("rake", 0) == put_in, doc["variant"]


# --- categories of the low hands ------------------------------------------------------------------------------


def test_a_razz_low_is_named_by_its_highest_card_and_a_pair_keeps_its_high_name() -> None:
    doc = game("razz", seat(1, "As 2c 4d 5h 7c Ks Qs", 50), seat(2, "Ah Ad 4c 4s Kd Kh Qh", 50), button=None)
    hands = {h["seat"]: h["category"] for h in result(doc)["hands"]}
    assert hands == {1: "seven_low", 2: "one_pair"}  # 2: A-A-4-4-K-K-Q plays A-4-K-Q and one pair, the lowest


def test_a_deuce_to_seven_low_is_named_by_its_highest_card_the_number_one_a_seven_low() -> None:
    doc = game("deuce_to_seven", seat(1, "7s 5c 4d 3h 2s", 50), seat(2, "As 5d 4c 3d 2c", 50))
    hands = {h["seat"]: h["category"] for h in result(doc)["hands"]}
    assert hands == {1: "seven_low", 2: "ace_low"}  # the wheel is ace-high here, no straight


def test_the_low_half_of_a_hi_lo_hand_is_named_by_its_highest_card_and_the_high_half_as_a_high_hand() -> None:
    doc = hilo(seat(1, "Ac 3d Ks Kd", 50), seat(2, "5c 6d Qh Qd", 50))
    hands = {h["seat"]: h for h in result(doc)["hands"]}
    assert hands[1]["low"]["category"] == "seven_low"  # 7-4-3-2-A
    assert hands[2]["low"]["category"] == "seven_low"  # 7-6-5-4-2
    assert hands[1]["high"]["category"] == "three_of_a_kind"
    assert hands[1]["category"] == "three_of_a_kind"


def test_a_badugi_hand_is_named_by_the_cards_that_play_never_high_card() -> None:
    doc = game("badugi", seat(1, "Kc Qd Jh Ts", 50), seat(2, "Ac 2d 3h 3s", 50))
    hands = {h["seat"]: h["category"] for h in result(doc)["hands"]}
    assert hands == {1: "badugi", 2: "three_card"}


def test_an_eight_or_better_low_of_the_wheel_is_a_five_low() -> None:
    doc = hilo(seat(1, "Ac 3d 9s 9d", 50), seat(2, "Kh Kd Qh Qc", 50), board="2c 4d 5h Kc Qs")
    lows = {h["seat"]: h["low"] and h["low"]["category"] for h in result(doc)["hands"]}
    assert lows == {1: "five_low", 2: None}  # 1: A-3 with 2-4-5; 2 holds no low card
