"""showdown replay on every PHH variant code: stud streets and bring-ins, draws, multiple runouts, and their errors."""

from __future__ import annotations

import tomllib

import pytest

from showdown_core.betting import BettingError, Hand, play
from showdown_service.histories import HandRecord, ImpossibleAction, ReplayError, UnsupportedHand, judge, read_phh
from showdown_service.histories.games import phh_game
from showdown_service.histories.phh import _flat_fields, _NotFlat, _number
from tests.helpers import REPO

GAMES = REPO / "tests" / "fixtures" / "replay" / "phh" / "games"


def text(name: str) -> str:
    return (GAMES / name).read_text(encoding="utf-8")


def hand(name: str, source: str | None = None, replaced: tuple[str, str] | None = None) -> HandRecord | ReplayError:
    body = text(name)
    if replaced is not None:
        assert replaced[0] in body, replaced
        body = body.replace(*replaced)
    (found,) = read_phh(body, source or name)
    return found


def read(name: str) -> HandRecord:
    found = hand(name)
    assert isinstance(found, HandRecord), found
    return found


def refused(name: str, old: str, new: str) -> ReplayError:
    found = hand(name, replaced=(old, new))
    assert isinstance(found, ReplayError), found
    return found


@pytest.mark.parametrize(
    ("code", "variant"),
    [
        ("NT", "holdem"), ("FT", "holdem"), ("NS", "short_deck"), ("PO", "omaha"), ("FO/8", "omaha_hilo"),
        ("F7S", "stud"), ("F7S/8", "stud_hilo"), ("FR", "razz"), ("N2L1D", "deuce_to_seven"),
        ("F2L3D", "deuce_to_seven"), ("FB", "badugi"), ("N5CD", "five_card_draw"), ("PO/8", "omaha_hilo"),
    ],
)  # fmt: skip
def test_each_variant_code_is_settled_by_its_contract_variant(code: str, variant: str) -> None:
    game = phh_game(code)
    assert game is not None
    assert game.variant == variant


@pytest.mark.parametrize(
    ("name", "variant", "finishing"),
    [
        ("fixed_limit.phh", "holdem", {"1": 40, "2": 70, "3": 40}),
        ("omaha.phh", "omaha", {"1": 136, "2": 64, "3": 100}),
        ("omaha_hilo.phh", "omaha_hilo", {"1": 99, "2": 94, "3": 107}),
        ("short_deck.phh", "short_deck", {"1": 134, "2": 68, "3": 98}),
        ("stud.phh", "stud", {"1": 130, "2": 75, "3": 95}),
        ("stud_hilo.phh", "stud_hilo", {"1": 102, "2": 103, "3": 95}),
        ("razz.phh", "razz", {"1": 144, "2": 59, "3": 97}),
        ("triple_draw.phh", "deuce_to_seven", {"1": 116, "2": 98, "3": 86}),
        ("single_draw.phh", "deuce_to_seven", {"1": 99, "2": 84, "3": 117}),
        ("badugi.phh", "badugi", {"1": 114, "2": 88, "3": 98}),
        ("five_card_draw.phh", "five_card_draw", {"1": 116, "2": 84}),
        ("run_three_times.phh", "holdem", {"1": 66, "2": 134}),
    ],
)
def test_every_variant_fixture_settles_to_its_recorded_finishing_stacks(
    name: str, variant: str, finishing: dict[str, int]
) -> None:
    found = read(name)
    assert found.event is not None
    assert found.event.variant == variant
    verdict = judge(found)
    assert verdict.status == "match", verdict.reason
    assert verdict.computed["finishing_stacks"] == finishing


def test_the_fast_field_parser_reads_every_variant_fixture_as_tomllib_does() -> None:
    for path in sorted(GAMES.glob("*.phh")):
        body = path.read_text(encoding="utf-8")
        assert _flat_fields(body) == tomllib.loads(body, parse_float=_number), path


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ("# a = b\nvariant = 'NT'\n", {"variant": "NT"}),  # a comment, even with '=', is skipped
        ("  # x\n\n\t\n variant  =  'NT'  \nhand = 3", {"variant": "NT", "hand": 3}),  # blanks, spaces, tabs
        ("min_bet = 1.50\nactions = ['p1 f', \"p2 cc\"]", {"min_bet": _number("1.5"), "actions": ["p1 f", "p2 cc"]}),
        ("antes = [0, 0, 0,]\nante_trimming_status = false", {"antes": [0, 0, 0], "ante_trimming_status": False}),
    ],
)
def test_the_line_parser_reads_flat_lines_as_tomllib_does(body: str, fields: dict[str, object]) -> None:
    assert _flat_fields(body) == fields == tomllib.loads(body, parse_float=_number)


@pytest.mark.parametrize(
    "body",
    [
        "variant = 'NT' # a comment after the value",
        "table = 'a#b'",
        "a.b = 1",
        "'quoted' = 1",
        "[1]\nvariant = 'NT'",
        "antes = [1,\n2]",
        "hand = 1\nhand = 2",
        "hand =",
    ],
)
def test_the_line_parser_leaves_any_other_toml_to_tomllib(body: str) -> None:
    with pytest.raises(_NotFlat):
        _flat_fields(body)


# -- stud ------------------------------------------------------------------------------


def test_stud_deals_each_seat_seven_cards_street_by_street_and_has_no_button() -> None:
    found = read("stud.phh")
    assert found.event is not None
    assert found.event.button_seat is None
    assert [p.hole_cards for p in found.event.players] == [
        ("As", "Ah", "7c", "7d", "9s", "2c", "3h"),
        ("Kd", "Ks", "2h", "Qs", "Jc", "8d", "4s"),
        None,  # folded on 4th street with its down cards unknown
    ]
    assert [(p.contributed, p.dead_money) for p in found.event.players] == [(24, 1), (24, 1), (4, 1)]


def test_the_bring_in_posts_the_bring_in_amount_and_others_complete_or_call_it() -> None:
    found = read("razz.phh")
    assert found.event is not None
    assert found.event.players[2].contributed == 2  # p3 brought it in for 2 and folded to the completion


def test_a_raise_to_a_superscript_digit_is_a_syntax_error_naming_the_action_not_a_crash() -> None:
    error = refused("stud.phh", "'p1 cbr 4', 'p2 cc', 'p3 f'", "'p1 cbr \u00b2', 'p2 cc', 'p3 f'")
    assert isinstance(error, ReplayError)
    assert "'²' is not a whole number of chips" in str(error)


def test_a_bring_in_anywhere_but_the_first_stud_street_is_an_impossible_action() -> None:
    error = refused("stud.phh", "'p1 cbr 4', 'p2 cc', 'p3 f'", "'p1 pb', 'p2 cc', 'p3 f'")
    assert isinstance(error, ImpossibleAction)
    assert "a bring-in (pb) opens a stud hand's third street only" in str(error)


def test_a_stud_street_dealt_while_the_betting_is_open_is_an_impossible_action() -> None:
    error = refused("stud.phh", "'p2 cc', 'p3 cc', 'd dh p1 7d'", "'p2 cc', 'd dh p1 7d'")
    assert isinstance(error, ImpossibleAction)
    assert "action 8 'd dh p1 7d': the next street is dealt while p3 is still to act" in str(error)


def test_a_stud_hand_that_opens_with_a_call_is_an_impossible_action() -> None:
    error = refused("stud.phh", "'p2 pb', 'p3 cc'", "'p3 cc', 'p2 pb'")
    assert isinstance(error, ImpossibleAction)
    assert "action 4 'p3 cc': third street opens with the bring-in (pb) or a completion" in str(error)


# -- draws -----------------------------------------------------------------------------


def test_a_draw_games_hand_is_what_remains_after_the_discards_and_the_cards_dealt_for_them() -> None:
    found = read("triple_draw.phh")
    assert found.event is not None
    assert found.event.players[0].hole_cards == ("7c", "5d", "3s", "2h", "4c")
    assert found.event.players[2].hole_cards == ("8s", "6c", "5h", "3d", "2c")
    assert found.event.button_seat == 3


def test_unknown_cards_may_be_discarded_and_replaced_unknown() -> None:
    found = read("badugi.phh")
    assert found.event is not None
    assert found.event.players[2].hole_cards is None


def test_betting_before_every_seat_has_drawn_is_an_impossible_action() -> None:
    error = refused("triple_draw.phh", "'p1 sd Kh', 'p3 sd Qc'", "'p1 sd Kh', 'p1 cc', 'p3 sd Qc'")
    assert isinstance(error, ImpossibleAction)
    assert "action 8 'p1 cc': p3 is to draw (sd) first" in str(error)


def test_discarding_a_card_not_held_or_being_dealt_more_than_discarded_is_an_impossible_action() -> None:
    assert "p1 discards 9h, which it does not hold" in str(refused("triple_draw.phh", "'p1 sd Kh'", "'p1 sd 9h'"))
    assert "deals 2 cards to p1, who discarded 1" in str(refused("triple_draw.phh", "'d dh p1 Jd'", "'d dh p1 JdJs'"))


def test_a_fourth_draw_in_triple_draw_or_a_draw_in_hold_em_is_an_impossible_action() -> None:
    error = refused("triple_draw.phh", "'p3 sm -'", "'p1 sd', 'p3 sm -'")
    assert "deuce_to_seven has 3 draw(s)" in str(error)
    assert "omaha has no draw" in str(refused("omaha.phh", "'p3 f'", "'p3 sd'"))


# -- runouts ---------------------------------------------------------------------------


def test_runouts_after_the_last_bet_share_the_cards_dealt_before_it() -> None:
    found = read("run_three_times.phh")
    assert found.event is not None
    assert found.event.boards == (
        ("Kh", "7c", "2d", "9c", "3h"),
        ("Kh", "7c", "2d", "4s", "Jd"),
        ("Kh", "7c", "2d", "Ah", "5s"),
    )
    verdict = judge(found)
    assert verdict.computed["collected"] == {"1": 66, "2": 134}  # 200 in three runs: 67, 67, 66, earliest first


def test_a_fourth_runout_is_refused_the_contract_takes_two_or_three() -> None:
    error = refused("run_three_times.phh", "'d db 5s'", "'d db 5s', 'd db 6d', 'd db 8h'")
    assert isinstance(error, UnsupportedHand)
    assert "a board run more than 3 times" in str(error)


def test_a_runout_dealt_the_wrong_size_is_an_impossible_action() -> None:
    error = refused("run_three_times.phh", "'d db 4s'", "'d db 4s6d'")
    assert "deals 2 board card(s); the turn is 1" in str(error)


# -- codes and decks -------------------------------------------------------------------


def test_an_unknown_variant_code_is_refused_naming_the_codes_read() -> None:
    error = refused("omaha.phh", "variant = 'PO'", "variant = 'FX'")
    assert isinstance(error, UnsupportedHand)
    assert "variant 'FX' is not a game this reader settles (NT, FT, NS, PO, FO/8, F7S" in str(error)


def test_a_card_below_six_in_short_deck_is_an_impossible_action_at_its_deal() -> None:
    error = refused("short_deck.phh", "'d dh p2 QhKd'", "'d dh p2 Qh5d'")
    assert isinstance(error, ImpossibleAction)
    assert "action 2 'd dh p2 Qh5d': 5d is not in the 6+ Hold'em deck" in str(error)
    assert error.game == "6+ Hold'em"


# -- one betting machine ---------------------------------------------------------------

HOLDEM_HAND = """variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [10000, 10000, 10000]
actions = ['d dh p1 Ks7d', 'd dh p2 8sQh', 'd dh p3 2sKh', 'p3 cbr 300', 'p1 f', 'p2 cc', 'd db 3dQc2c', 'p2 cc', \
'p3 cc', 'd db 9s', 'p2 cc', 'p3 cc', 'd db 5s', 'p2 cc', 'p3 cc', 'p2 sm 8sQh', 'p3 sm 2sKh']
"""


@pytest.mark.parametrize(
    ("old", "new", "rule"),
    [
        ("'p3 cbr 300'", "'p3 cbr 150'", "raise_below_minimum"),  # TDA 2024 Rule 43: the least raise is to 200
        ("'p3 cbr 300'", "'p1 cbr 300'", "out_of_turn"),
        ("'p3 cbr 300'", "'p3 cbr 20000'", "bet_beyond_stack"),
        ("'p2 sm 8sQh'", "'p1 cc'", "acted_after_fold"),
    ],
)
def test_the_phh_reader_refuses_the_betting_the_core_machine_refuses_naming_the_same_action(
    old: str, new: str, rule: str
) -> None:
    # the replay and the worker judge betting with one state machine (showdown_core.betting), not two
    text = HOLDEM_HAND.replace(old, new)
    (found,) = read_phh(text, "/x/phh/one/1.phh")
    fields = tomllib.loads(text)
    with pytest.raises(BettingError) as caught:
        play(Hand(fields["variant"], tuple(fields["starting_stacks"]), tuple(fields["actions"]), tuple(
            fields["antes"]), tuple(fields["blinds_or_straddles"]), min_bet=fields["min_bet"]))  # fmt: skip
    error = caught.value
    assert error.code == rule
    assert isinstance(found, ImpossibleAction), found
    assert error.index is not None
    assert f"action {error.index + 1} {fields['actions'][error.index]!r}: {error.reason}" in str(found)


def test_draws_are_made_in_turn_p1_first_as_the_core_machine_has_them() -> None:
    error = refused("triple_draw.phh", "'p1 sd Kh', 'p3 sd Qc'", "'p3 sd Qc', 'p1 sd Kh'")
    assert isinstance(error, ImpossibleAction)
    assert "'p3 sd Qc': p1 draws first" in str(error)
