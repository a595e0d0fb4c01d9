"""The room's rake rules (showdown_core.rake), each test named for the rule and its source (docs/rake.md)."""

from __future__ import annotations

import random
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from showdown_core import SeatHand, build_pots
from showdown_core.rake import (
    Cap,
    Hand,
    RakeError,
    Schedule,
    Tier,
    Version,
    attribute,
    ended_in_first_round,
    rake_hand,
    round_div,
    split,
    uncapped,
)
from tests.helpers import event, seat, settle_doc

DAY = date(2020, 1, 1)
STARS_CAPS = (Cap(2, 2, 50), Cap(3, 4, 100), Cap(5, None, 150))
STARS = Version(
    DAY,
    None,
    "percentage",
    (Tier(5, 2, 41_500, caps=(Cap(2, 2, 50), Cap(3, 4, 50), Cap(5, None, 100))), Tier(10, 5, 45_000, caps=STARS_CAPS)),
    cap_split="main_pot_first",
)


def rake_of(version: Version, *pots: int, dealt_in: int = 6, big_blind: int | None = 10, **facts: object) -> int:
    return rake_hand(version, Hand(tuple(pots), dealt_in, big_blind, **facts)).rake  # type: ignore[arg-type]


def test_pokerstars_usd_nl_5_10_cents_is_4_5_percent_capped_50_100_150_by_players_dealt_in() -> None:
    # PokerStars: $0.05/$0.10 4.50%, caps $0.50 / $1.00 / $1.50 for 2 / 3-4 / 5+ players "dealt into that hand"
    assert rake_of(STARS, 2468, dealt_in=5) == 111  # allin_showdown_rake.txt: 24.68 at 4.5% = 1.1106 -> 1.11
    assert rake_of(STARS, 5000, dealt_in=2) == 50
    assert rake_of(STARS, 5000, dealt_in=3) == 100
    assert rake_of(STARS, 5000, dealt_in=4) == 100
    assert rake_of(STARS, 5000, dealt_in=5) == 150
    assert rake_of(STARS, 5000, dealt_in=9) == 150


def test_pokerstars_usd_nl_2_5_cents_is_4_15_percent_capped_50_50_100() -> None:
    assert rake_of(STARS, 1000, big_blind=5) == 42  # 41.5 -> 42 (half to even)
    assert rake_of(STARS, 1100, big_blind=5) == 46  # 45.65 -> 46
    assert [rake_of(STARS, 9000, dealt_in=n, big_blind=5) for n in (2, 3, 4, 5)] == [50, 50, 50, 100]


def test_pokerstars_rounds_a_true_percentage_half_to_even() -> None:
    # PokerStars: "a true percentage using the 'round half to even' method of rounding"
    ten = Version(DAY, None, "percentage", (Tier(None, rate_ppm=100_000),))
    assert [rake_of(ten, pot) for pot in (5, 15, 25, 35, 14, 16)] == [0, 2, 2, 4, 1, 2]


def test_rounding_down_and_up_as_a_schedule_says() -> None:
    ten = Version(DAY, None, "percentage", (Tier(None, rate_ppm=100_000),), rounding="down")
    assert [rake_of(ten, pot) for pot in (5, 19, 20)] == [0, 1, 2]
    up = Version(DAY, None, "percentage", (Tier(None, rate_ppm=100_000),), rounding="up")
    assert [rake_of(up, pot) for pot in (1, 11, 20)] == [1, 2, 2]
    assert round_div(7, 2, "half_even") == 4
    assert round_div(5, 2, "half_even") == 2


def test_pokerstars_germany_rounds_then_multiplies_by_1_25_and_rounds_again() -> None:
    # issue 38: "$0.90 pot at 3.5%: $0.03, then $0.04" (0.0315 -> 0.03; x 1.25 = 0.0375 -> 0.04)
    germany = Version(DAY, None, "percentage", (Tier(None, rate_ppm=35_000),), multiplier_ppm=1_250_000)
    assert rake_of(germany, 90) == 4
    once = Version(DAY, None, "percentage", (Tier(None, rate_ppm=35_000),))
    assert rake_of(once, 90) == 3
    assert rake_of(Version(DAY, None, "percentage", (Tier(None, rate_ppm=43_750),)), 90) == 4  # 3.9375 at once


def test_888poker_caps_by_two_and_three_or_more_players() -> None:
    # 888poker: $0.05/$0.10 5%, caps $1 (2 players) and $2 (3+), round half to even
    e888 = Version(DAY, None, "percentage", (Tier(10, 5, 50_000, caps=(Cap(2, 2, 100), Cap(3, None, 200))),))
    assert rake_of(e888, 1010, dealt_in=2) == 50  # 50.5 -> 50
    assert rake_of(e888, 9000, dealt_in=2) == 100
    assert rake_of(e888, 9000, dealt_in=3) == 200
    assert rake_of(e888, 9000, dealt_in=10) == 200


def test_an_incremental_room_takes_a_cent_for_each_20_cents_in_the_pot() -> None:
    # Bodog (as partypoker, WPN, FDJ): "$0.01 for each $0.20 in the pot", max $0.50 / $1.00 / $2.00 for 2 / 3-4 / 5+
    bodog = Version(
        DAY, None, "incremental", (Tier(25, per=20, take=1, caps=(Cap(2, 2, 50), Cap(3, 4, 100), Cap(5, None, 200))),),
        rounding="down",
    )  # fmt: skip
    assert [rake_of(bodog, pot, big_blind=25) for pot in (19, 20, 39, 40, 399)] == [0, 1, 1, 2, 19]
    assert rake_of(bodog, 100_000, dealt_in=2, big_blind=25) == 50
    assert rake_of(bodog, 100_000, dealt_in=4, big_blind=25) == 100
    assert rake_of(bodog, 100_000, dealt_in=5, big_blind=25) == 200


def test_a_live_fixed_drop_is_taken_whole_never_more_than_the_pot() -> None:
    drop = Version(DAY, None, "fixed_drop", (Tier(500, drop=500),))
    assert rake_of(drop, 30_000, big_blind=500) == 500
    assert rake_of(drop, 300, big_blind=500) == 300
    assert rake_of(drop, 2000, big_blind=500, first_round=True) == 0  # no flop, no drop


def test_time_collection_and_tournaments_take_nothing_per_hand() -> None:
    for mode in ("time_collection", "tournament"):
        version = Version(DAY, None, mode)
        assert rake_hand(version, Hand((5000, 300), 6, 10, tournament=mode == "tournament")).by_pot == (0, 0)


def test_a_tournament_hand_is_never_raked_per_hand() -> None:
    # tournaments: a fee in the buy-in, no rake per hand
    with pytest.raises(RakeError, match="tournament hand is never raked"):
        rake_hand(STARS, Hand((5000,), 6, 10, tournament=True))


def test_pokerstars_no_flop_no_drop_the_first_betting_round_is_never_raked() -> None:
    # PokerStars: "We do not charge rake if the hand ends on the first betting round"
    assert rake_of(STARS, 2500, first_round=True) == 0
    assert rake_of(STARS, 2500, first_round=False) == 112  # 112.5 -> 112 (half to even)
    raking = Version(DAY, None, "percentage", (Tier(None, rate_ppm=45_000),), no_flop_no_drop=False)
    assert rake_of(raking, 2500, first_round=True) == 112


def test_pokerstars_first_round_ends_before_the_flop_fourth_street_or_the_draw_per_game_family() -> None:
    # "before the flop in Hold'em or Omaha, before Fourth Street in Stud variants, or before the Draw"
    assert ended_in_first_round("board", contested=False, board_cards=0, most_cards=2) is True
    assert ended_in_first_round("board", contested=False, board_cards=3, most_cards=2) is False
    assert ended_in_first_round("board", contested=True, board_cards=5, most_cards=2) is False
    assert ended_in_first_round("stud", contested=False, board_cards=0, most_cards=3) is True
    assert ended_in_first_round("stud", contested=False, board_cards=0, most_cards=4) is False
    assert ended_in_first_round("stud", contested=False, board_cards=0, most_cards=0) is None
    assert ended_in_first_round("draw", contested=False, board_cards=0, most_cards=5) is None
    assert ended_in_first_round("draw", contested=True, board_cards=0, most_cards=5) is False


def test_ggnetwork_flop_or_preflop_3bet_rakes_a_preflop_hand_only_after_a_third_bet() -> None:
    skin = Version(DAY, None, "percentage", (Tier(None, rate_ppm=50_000),), flop_or_preflop_3bet=True)
    assert rake_of(skin, 1000, first_round=True, preflop_3bet=True) == 50
    assert rake_of(skin, 1000, first_round=True, preflop_3bet=False) == 0
    assert rake_of(skin, 1000, first_round=False, preflop_3bet=False) == 50
    unknown = rake_hand(skin, Hand((1000,), 6, None, first_round=True, preflop_3bet=None))
    assert (unknown.rake, unknown.alternative) == (0, 50)  # never more than the schedule proves


def test_an_unknown_first_round_is_raked_nothing_with_the_alternative_named() -> None:
    raked = rake_hand(STARS, Hand((3000,), 3, 10, first_round=None))
    assert (raked.rake, raked.alternative) == (0, 100)


def test_ggpoker_uncalled_bets_are_never_raked_the_pots_hold_none() -> None:
    # GGPoker: "wagers placed but not called ... are not subject to rake": the pots a hand gives hold no
    # uncalled bet (showdown_core.pots returns it), so a bigger uncalled bet changes nothing
    def rake_with_uncalled(extra: int) -> int:
        seats = [SeatHand(1, "a", (), 1000 + extra), SeatHand(2, "b", (), 1000), SeatHand(3, "c", (), 10, folded=True)]
        pots, returned = build_pots(seats)
        assert sum(r.amount for r in returned) == extra
        return rake_of(STARS, *[p.amount for p in pots], dealt_in=3)

    assert rake_with_uncalled(0) == rake_with_uncalled(50_000) == 90  # 4.5% of 20.10 = 0.9045 -> 0.90


def test_pokerstars_run_it_twice_is_raked_once() -> None:
    # PokerStars: no extra rake for running it twice: the rake is the pot's, whatever the boards
    pots = (2000,)
    once = rake_hand(STARS, Hand(pots, 2, 10))
    assert once.rake == 50  # 90 at 4.5%, capped at 0.50 heads-up
    doc = event(seat(1, "Ah Kh", 1000), seat(2, "Qs Qd", 1000), button=1, rake=once.rake,
                boards=[["2c", "3d", "4h", "9s", "Tc"], ["2c", "3d", "4h", "Qh", "Jd"]])  # fmt: skip
    parts = settle_doc(doc).pots[0].parts
    assert [(p.run, p.amount) for p in parts] == [(1, 975), (2, 975)]  # raked once; the runs divide the rest


def test_pokerstars_caps_fall_main_pot_first_as_in_the_ante_sample() -> None:
    # side_pot_ante_rake.txt: main pot 31.80 raked 1.43 (4.5%), side pot 7.98 gives the 0.07 the 1.50 cap leaves
    raked = rake_hand(STARS, Hand((3180, 798), 6, 10))
    assert (raked.rake, raked.by_pot) == (150, (143, 7))


def test_a_cap_split_in_proportion_falls_on_every_pot_alike() -> None:
    proportional = Version(DAY, None, "percentage", (Tier(10, rate_ppm=45_000, caps=STARS_CAPS),))
    raked = rake_hand(proportional, Hand((3180, 798), 6, 10))
    assert (raked.rake, raked.by_pot) == (150, (120, 30))  # 150 x 3180/3978 = 119.9 -> 120


def test_stakes_the_schedule_does_not_post_are_refused_by_name() -> None:
    with pytest.raises(RakeError, match=r"no rake for big blind 1000 \(its stakes: big blinds 5, 10\)"):
        rake_of(STARS, 5000, big_blind=1000)
    with pytest.raises(RakeError, match="no stakes given"):
        rake_of(STARS, 5000, big_blind=None)


def test_a_schedule_picks_its_version_by_date() -> None:
    old = Version(date(2010, 1, 1), DAY, "incremental", (Tier(None, per=100, take=5),))
    schedule = Schedule("x", "Room", "USD", ("holdem",), (old, STARS))
    assert schedule.version_at(date(2011, 6, 1)) is old
    assert schedule.version_at(DAY) is STARS
    assert schedule.version_at(None) is STARS
    with pytest.raises(RakeError, match="no version of it is in effect on 2009-12-31"):
        schedule.version_at(date(2009, 12, 31))


def test_attribution_dealt_contributed_and_weighted_sum_to_the_rake_exactly() -> None:
    # PokerStars (weighted contributed since 2012), partypoker (since 2011): who "paid" the rake
    seats = [(1, 0), (2, 100), (3, 300), (4, 600)]
    assert attribute(10, seats, "dealt") == ((1, 3), (2, 3), (3, 2), (4, 2))
    assert attribute(10, seats, "contributed") == ((1, 0), (2, 4), (3, 3), (4, 3))
    assert attribute(10, seats, "weighted_contributed") == ((1, 0), (2, 1), (3, 3), (4, 6))
    assert attribute(7, [(2, 1), (5, 1)], "weighted_contributed") == ((2, 4), (5, 3))


@settings(max_examples=400, deadline=None)
@given(st.randoms(use_true_random=False))
def test_rake_never_exceeds_the_cap_or_the_rate_and_the_pots_give_it_exactly(rng: random.Random) -> None:
    pots = tuple(rng.randint(0, 100_000) for _ in range(rng.randint(1, 5)))
    mode = rng.choice(["percentage", "incremental", "fixed_drop"])
    caps = (Cap(2, 2, rng.randint(0, 300)), Cap(3, None, rng.randint(0, 600))) if rng.random() < 0.7 else ()
    tier = Tier(None, rate_ppm=rng.randint(0, 1_000_000), per=rng.randint(1, 500), drop=rng.randint(1, 900), caps=caps)
    tier = Tier(None, tier.small_blind, tier.rate_ppm, tier.per, rng.randint(1, tier.per), tier.drop, caps)
    version = Version(DAY, None, mode, (tier,), rounding=rng.choice(["half_even", "down", "up"]),  # type: ignore[arg-type]
                      cap_split=rng.choice(["proportional", "main_pot_first"]))  # fmt: skip
    first_round = rng.choice([True, False, None])
    dealt_in = rng.randint(2, 10)
    raked = rake_hand(version, Hand(pots, dealt_in, None, first_round=first_round))
    cap = tier.cap_for(dealt_in)
    assert raked.rake <= uncapped(version, tier)(sum(pots))
    assert cap is None or raked.rake <= cap
    assert first_round is not True or raked.rake == 0
    assert sum(raked.by_pot) == raked.rake
    assert all(0 <= r <= p for r, p in zip(raked.by_pot, pots, strict=True)), (pots, raked)


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False))
def test_a_split_and_an_attribution_always_sum_to_the_rake(rng: random.Random) -> None:
    pots = [rng.randint(0, 5000) for _ in range(rng.randint(1, 4))]
    rake = rng.randint(0, sum(pots))
    parts = split(pots, rake, "proportional", lambda chips: chips)
    assert sum(parts) == rake
    assert all(0 <= r <= p for r, p in zip(parts, pots, strict=True))
    seats = [(s, rng.randint(0, 3000)) for s in rng.sample(range(1, 11), rng.randint(1, 10))]
    for method in ("dealt", "contributed", "weighted_contributed"):
        shares = attribute(rake, seats, method)
        assert sum(a for _, a in shares) == rake
        assert all(a >= 0 for _, a in shares)
