"""A jackpot qualifier that names a hand the game cannot make is refused with its own code (issue 39, bad input: "a
qualifier that names a hand the game cannot make ... each refused with its own code; nothing paid"), game by game
(showdown_core.jackpot_qualifier; the programs read by decision/jackpot_live.py)."""

from __future__ import annotations

import pytest

from showdown_core import InvalidEvent
from showdown_core.evaluator import Category
from showdown_core.jackpot_qualifier import hand_named, qualifier
from showdown_messages import CODES

IMPOSSIBLE = "jackpot_qualifier_impossible"


def refused(spelled: str, *variants: str) -> InvalidEvent:
    with pytest.raises(InvalidEvent) as caught:
        qualifier(spelled, variants)
    assert caught.value.code in CODES
    return caught.value


def test_the_code_is_listed() -> None:
    assert IMPOSSIBLE in CODES
    assert "short deck: 2222" in CODES[IMPOSSIBLE]


@pytest.mark.parametrize(
    ("spelled", "games", "category"),
    [
        ("AAATT", ("holdem",), Category.FULL_HOUSE),  # GGPoker hold'em
        ("2222", ("omaha",), Category.FOUR_OF_A_KIND),  # GGPoker PLO
        ("8888", ("holdem",), Category.FOUR_OF_A_KIND),  # PLO-5's quads are a hand hold'em makes too
        ("8888", ("omaha", "omaha_hilo"), Category.FOUR_OF_A_KIND),
        ("AKQJ9s", ("holdem",), Category.FLUSH),
        ("T9876s", ("omaha",), Category.STRAIGHT_FLUSH),
        ("AAATT", ("short_deck",), Category.FULL_HOUSE),
        ("6666", ("short_deck", "short_deck"), Category.FOUR_OF_A_KIND),
        ("A9876s", ("short_deck_straight_over_trips",), Category.STRAIGHT_FLUSH),  # 6+'s lowest straight flush
    ],
)
def test_a_hand_each_game_can_make_is_its_qualifier(spelled: str, games: tuple[str, ...], category: Category) -> None:
    judged = qualifier(spelled, games)
    assert judged.minimum.category is category
    assert judged.omaha == games[0].startswith("omaha")


def test_short_decks_quads_take_the_decks_weakest_kicker_and_its_flush_beats_its_full_house() -> None:
    sixes = qualifier("6666", ["short_deck"]).minimum
    assert sixes.ranks == (6, 6, 6, 6, 7)
    flush, boat = (qualifier(h, ["short_deck"]).minimum for h in ("KQJ98s", "AAATT"))
    assert flush.strength > boat.strength  # short deck: a flush beats a full house
    flush, boat = (qualifier(h, ["holdem"]).minimum for h in ("KQJ98s", "AAATT"))
    assert flush.strength < boat.strength


@pytest.mark.parametrize(
    ("spelled", "games", "why"),
    [
        ("AAAAA", ("holdem",), "five of a kind: a deck holds four As"),
        ("22222", ("omaha",), "five of a kind"),
        ("AAKQJs", ("holdem",), "suited with two As: a deck holds one A of each suit"),
        ("2222", ("short_deck",), "holds a 2: short_deck's deck is 6 to ace"),
        ("AAA55", ("short_deck_straight_over_trips",), "holds a 5"),
        ("5432As", ("short_deck",), "holds a 5"),  # the wheel: no 6+ deck has it
        ("2222", ("holdem", "short_deck"), "holds a 2"),  # one game of the program lacks it
        ("AKQJ9s", ("razz",), "razz ranks low hands only (ace_to_five)"),  # a flush in a game without flushes
        ("AAATT", ("deuce_to_seven",), "ranks low hands only"),
        ("2222", ("badugi",), "ranks low hands only (badugi)"),
    ],
)
def test_a_hand_the_game_cannot_make_is_refused_with_its_own_code(
    spelled: str, games: tuple[str, ...], why: str
) -> None:
    caught = refused(spelled, *games)
    assert (caught.code, caught.field) == (IMPOSSIBLE, "qualifier.minimum")
    assert why in caught.message
    assert repr(spelled) in caught.message


@pytest.mark.parametrize(
    ("spelled", "games", "why"),
    [
        ("AAX", ("holdem",), "names no poker hand"),
        ("AAATTT", ("holdem",), "names no poker hand"),
        ("", ("holdem",), "names no poker hand"),
        ("AAATT", ("stud",), "stud has no board"),
        ("AAATT", ("five_card_draw",), "has no board"),
        ("AAATT", ("holdem", "omaha"), "value hands differently"),
        ("AAATT", ("holdem", "short_deck"), "value hands differently"),
        ("AAATT", ("pineapple",), "'pineapple' is no game"),
        ("AAATT", (), "at least one game"),
    ],
)
def test_a_spelling_or_games_the_jackpot_cannot_judge_stay_bad_jackpot_program(
    spelled: str, games: tuple[str, ...], why: str
) -> None:
    caught = refused(spelled, *games)
    assert caught.code == "bad_jackpot_program"
    assert why in caught.message


def test_hand_named_keeps_the_standard_ranking_by_default() -> None:
    assert hand_named("AAATT") is qualifier("AAATT", ["holdem"]).minimum
    assert hand_named("2222").ranks == (2, 2, 2, 2, 3)
