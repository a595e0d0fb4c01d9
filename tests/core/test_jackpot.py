"""Bad-beat jackpots' rules (showdown_core.jackpot; issue 39 item 1), each with its source.

GGPoker's Bad Beat Jackpot: "AAATT or better loses", PLO "2222", both hole cards play (a pocket pair for quads),
first run-out only, 1 big blind from every pot of 30 big blinds or more, 10% of the fund to the losing hand, 3% to
the winner, 0.8% to each other seat dealt in. The drop is checked on every real GGPoker cash hand we have.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from showdown_core import InvalidEvent, InvariantViolation, parse_cards
from showdown_core.jackpot import (
    BadBeat,
    JackpotProgram,
    Payout,
    bad_beat,
    check_drop,
    expected_drop,
    fold,
    hand_named,
    payout,
)
from tests.helpers import SHARED_DATA

GGPOKER = SHARED_DATA / "rooms-more" / "GGPoker"


def gg(**changes: object) -> JackpotProgram:
    fields: dict[str, object] = {
        "program_id": "ggpoker-bad-beat",
        "drop_big_blinds": 1,
        "minimum_pot_big_blinds": 30,
        "minimum": hand_named("AAATT"),
        "loser_ppm": 100_000,
        "winner_ppm": 30_000,
        "other_ppm": 8_000,
    }
    fields.update(changes)
    return JackpotProgram(**fields)  # type: ignore[arg-type]


def _cents(text: str) -> int:
    whole, _, part = text.lstrip("$").replace(",", "").partition(".")
    return int(whole) * 100 + int((part + "00")[:2])


def _gg_hands() -> list[tuple[str, int, int, int, int]]:
    """(hand, big blind, total pot, rake, jackpot) of every GGPoker cash hand in the shared data."""
    out = []
    for path in sorted(Path(GGPOKER).rglob("*.txt")):
        text = path.read_text(encoding="utf-8-sig")
        for header, total in zip(
            re.findall(r"Poker Hand #(\w+):.*?\(\$[\d.]+/\$([\d.]+)\)", text),
            re.findall(r"Total pot (\S+) \| Rake (\S+) \| Jackpot (\S+)", text),
            strict=True,
        ):
            out.append((header[0], _cents(header[1]), _cents(total[0]), _cents(total[1]), _cents(total[2])))
    return out


def test_the_drop_is_one_big_blind_from_pots_of_30_big_blinds_on_every_real_ggpoker_hand() -> None:
    hands = _gg_hands()
    assert len(hands) >= 12
    assert {h[4] for h in hands} >= {0, 50, 100, 200}  # both sides of the threshold are in the data
    for hand, big_blind, total, rake, jackpot in hands:
        assert expected_drop(gg(), total, rake, big_blind) == jackpot, hand
        assert check_drop(gg(), jackpot, total, rake, big_blind) == jackpot


def test_a_drop_from_a_pot_under_the_threshold_is_refused_jackpot_pot_under_minimum() -> None:
    # HD582731: $28.90 at $0.50/$1 is 28.9 big blinds: no drop; a stated $1 is refused with its own code (issue 39's
    # "Bad input": a drop from a pot under the threshold), naming both figures
    with pytest.raises(InvalidEvent) as caught:
        check_drop(gg(), 100, 2890, 144, 100)
    assert caught.value.code == "jackpot_pot_under_minimum"
    assert caught.value.field == "jackpot.drop"
    assert "drops nothing from a pot of 2890, under its minimum of 3000" in str(caught.value)
    assert "stated 100" in str(caught.value)
    with pytest.raises(InvalidEvent, match=r"drops 100 .* stated 0"):
        check_drop(gg(), 0, 3000, 150, 100)


def test_the_drop_is_taken_after_the_rake_never_more_than_the_pot_less_its_rake() -> None:
    # N.J.A.C. 13:69F-14.19(c): the drop after the dealer has extracted the rake
    program = gg(drop_big_blinds=5, minimum_pot_big_blinds=1)
    assert expected_drop(program, 300, 250, 100) == 50
    assert expected_drop(program, 300, 300, 100) == 0


def test_a_losing_full_house_aces_full_of_tens_qualifies_against_quads() -> None:
    board = parse_cards(["Ac", "Td", "Ts", "4h", "2c"])
    loser, winner, third = parse_cards(["Ad", "Ah"]), parse_cards(["Tc", "Th"]), parse_cards(["Kc", "Qd"])
    beat = bad_beat(gg(), board, [(3, loser), (5, winner), (7, third)])
    assert beat == BadBeat((3,), (5,), hand_named("AAATT"), hand_named("TTTTA"))


def test_a_losing_hand_under_the_minimum_does_not_qualify() -> None:
    board = parse_cards(["Kc", "9c", "9s", "4h", "2c"])
    live = [(1, parse_cards(["Kd", "Ks"])), (2, parse_cards(["9d", "9h"]))]  # KKK99 loses to 9999K
    assert bad_beat(gg(), board, live) is None  # under AAATT
    assert bad_beat(gg(minimum=hand_named("KKK99")), board, live) == BadBeat(
        (1,), (2,), hand_named("KKK99"), hand_named("9999K")
    )


def test_both_hole_cards_must_play_and_quads_need_a_pocket_pair() -> None:
    # the board makes the losing hand's aces full with one hole card only: no bad beat
    board = parse_cards(["Ac", "Ad", "Tc", "Td", "8s"])
    one_card = [(1, parse_cards(["Ah", "2c"])), (2, parse_cards(["Th", "Ts"]))]  # AAATT (one card) loses to TTTTA
    assert bad_beat(gg(), board, one_card) is None
    assert bad_beat(gg(both_hole_cards=False), board, one_card) is not None
    # quads made with one hole card and a kicker: not a pocket pair
    board = parse_cards(["5c", "5d", "5h", "3h", "4h"])
    kicker = [(1, parse_cards(["5s", "Kd"])), (2, parse_cards(["6h", "7h"]))]  # 5555K loses to a straight flush
    assert bad_beat(gg(minimum=hand_named("22223")), board, kicker) is None
    assert bad_beat(gg(minimum=hand_named("22223"), both_hole_cards=False), board, kicker) is not None
    board = parse_cards(["5d", "5h", "Kh", "3h", "4h"])
    pocket = [(1, parse_cards(["5s", "5c"])), (2, parse_cards(["6h", "7h"]))]  # 5555K from a pocket pair: qualifies
    beat = bad_beat(gg(minimum=hand_named("22223")), board, pocket)
    assert beat is not None
    assert beat.losers == (1,)
    assert beat.losing_hand is hand_named("5555K")


def test_plo_qualifies_from_quad_deuces_with_two_hole_cards() -> None:
    # GGPoker PLO: "2222" or better loses
    program = gg(minimum=hand_named("2222"), omaha=True)
    board = parse_cards(["2c", "2d", "9h", "9s", "Kc"])
    quads = parse_cards(["2h", "2s", "3c", "4d"])
    broadway = parse_cards(["Tc", "Jc", "Qc", "Ac"])  # two pair: Omaha plays exactly two of its own
    nines = parse_cards(["9c", "9d", "5s", "6s"])
    beat = bad_beat(program, board, [(1, quads), (2, nines), (3, broadway)])
    assert beat is not None
    assert beat.losers == (1,)
    assert beat.winners == (2,)


def test_ggpoker_shares_ten_three_and_point_eight_percent_rounded_down_the_remainder_stays() -> None:
    beat = BadBeat((2,), (4,), hand_named("AAATT"), hand_named("TTTTA"))
    paid = payout(gg(), 1_000_007, beat, dealt=[1, 2, 3, 4, 5, 6])
    assert [(s.seat, s.role, s.amount) for s in paid.shares] == [
        (1, "other", 8000), (2, "loser", 100_000), (3, "other", 8000), (4, "winner", 30_000),
        (5, "other", 8000), (6, "other", 8000),
    ]  # fmt: skip
    assert paid.before == 1_000_007
    assert paid.after == 1_000_007 - 162_000
    assert paid.paid == 162_000


def test_seats_sharing_a_role_split_it_rounded_down() -> None:
    beat = BadBeat((2, 3), (4,), hand_named("AAATT"), hand_named("TTTTA"))
    paid = payout(gg(), 1001, beat, dealt=[2, 3, 4])
    assert [s.amount for s in paid.shares] == [50, 50, 30]  # 100 of 1001 split; 30 to the winner
    assert paid.after == 1001 - 130


def test_a_program_whose_shares_could_pay_more_than_the_fund_is_refused() -> None:
    with pytest.raises(InvalidEvent, match="more than the fund") as caught:
        gg(loser_ppm=500_000, winner_ppm=300_000, other_ppm=30_000)
    assert caught.value.code == "bad_jackpot_program"


@pytest.mark.parametrize("spelled", ["AAX", "AAATTT", ""])  # AAAAA: test_jackpot_qualifier.py
def test_a_qualifier_that_names_no_hand_is_refused(spelled: str) -> None:
    with pytest.raises(InvalidEvent) as caught:
        hand_named(spelled)
    assert caught.value.code == "bad_jackpot_program"


def test_a_payout_decided_on_another_balance_is_refused_by_the_fold() -> None:
    beat = BadBeat((1,), (2,), hand_named("AAATT"), hand_named("TTTTA"))
    with pytest.raises(InvariantViolation):
        fold(0, [(100, payout(gg(), 50, beat, dealt=[1, 2]))])


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    hands=st.lists(
        st.tuples(st.integers(1, 10**6), st.integers(1, 200), st.booleans(), st.integers(2, 10)), max_size=60
    ),
)
def test_money_in_equals_money_out_across_drops_and_payouts(seed: int, hands: list[tuple[int, int, bool, int]]) -> None:
    program = gg()
    balance, dropped, paid_out = seed, 0, 0
    moves: list[tuple[int, Payout | None]] = []
    for pot, big_blind, qualifies, seats in hands:
        drop = expected_drop(program, pot, 0, big_blind)
        balance += drop
        dropped += drop
        paid = None
        if qualifies:
            beat = BadBeat((1,), (2,), hand_named("AAATT"), hand_named("TTTTA"))
            paid = payout(program, balance, beat, dealt=range(1, seats + 1))
            assert paid.after >= 0
            assert paid.paid + paid.after == balance
            balance = paid.after
            paid_out += paid.paid
        moves.append((drop, paid))
    assert fold(seed, moves) == balance == seed + dropped - paid_out
