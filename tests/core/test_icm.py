"""ICM, deal amounts and mystery-bounty envelopes in the pure core (showdown_core.icm, .deals, .mystery).

Reference values: the issue's (another implementation's tests, re-derived independently); the independent
implementation below enumerates every finishing order (Malmuth-Harville by definition), with no memoisation.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from math import floor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from showdown_core import InvalidEvent, Settlement, settle
from showdown_core.deals import deal_amounts, deal_values, round_amounts
from showdown_core.icm import EXACT_MAX_SETS, icm, icm_exact, icm_monte_carlo, is_exact, sets_visited
from showdown_core.mystery import award, draw, pool_of, pool_value
from showdown_service.cli.commands import main
from showdown_service.decision.intake import parse_event, to_showdown
from tests.helpers import event, seat


def by_every_order(stacks: list[int], prizes: list[int]) -> list[Fraction]:
    """Malmuth-Harville by definition: every finishing order's probability (each place taken with the share of
    the chips left), times the prizes it pays."""
    values = [Fraction(0)] * len(stacks)
    for order in itertools.permutations(range(len(stacks))):
        chance, left = Fraction(1), sum(stacks)
        for i in order:
            chance *= Fraction(stacks[i], left)
            left -= stacks[i]
        for place, i in enumerate(order[: len(prizes)]):
            values[i] += chance * prizes[place]
    return values


def cents(values: tuple[Fraction, ...] | list[Fraction]) -> list[float]:
    return [round(float(v), 2) for v in values]


def test_icm_equals_the_reference_values_three_stacks_two_prizes() -> None:
    assert cents(icm([1500, 1200, 975], [100, 76])) == [67.06, 58.73, 50.21]


def test_icm_equals_the_reference_values_four_stacks_four_prizes() -> None:
    values = icm([150000, 98750, 45500, 13250], [425, 280, 130, 75])
    assert cents(values) == [323.20, 278.12, 195.79, 112.89]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(1, 10**6), min_size=1, max_size=6).flatmap(
        lambda stacks: st.tuples(
            st.just(stacks),
            st.lists(st.integers(0, 10**5), min_size=0, max_size=len(stacks)).map(lambda p: sorted(p, reverse=True)),
        )
    )
)
def test_icm_equals_an_independent_implementation_on_random_fields(field: tuple[list[int], list[int]]) -> None:
    stacks, prizes = field
    assert icm_exact(stacks, prizes) == tuple(by_every_order(stacks, prizes))  # exactly, so to the cent too
    assert sum(icm_exact(stacks, prizes)) == sum(prizes)


def test_icm_is_exact_up_to_ten_players_and_beyond_when_few_places_are_paid() -> None:
    assert sets_visited(10, 10) == EXACT_MAX_SETS - 1
    assert is_exact(10, 10)
    assert is_exact(40, 2)  # 1 + 40 sets
    assert not is_exact(11, 11)
    stacks = [1000 * (i + 3) for i in range(11)]
    assert icm(stacks, [500, 300, 200]) == icm_exact(stacks, [500, 300, 200])


def test_icm_beyond_the_exact_bound_is_a_seeded_monte_carlo_within_a_third_of_a_percent_of_the_pool() -> None:
    stacks = [700, 1500, 2300, 3100, 4000, 5200, 6100, 7000, 8800, 9900]
    prizes = [3000, 2000, 1500, 1200, 1000, 800, 700, 600, 500, 400]
    exact = icm_exact(stacks, prizes)
    estimate = icm_monte_carlo(stacks, prizes)
    assert sum(estimate) == sum(prizes)  # each trial pays every prize once
    assert max(abs(a - b) for a, b in zip(exact, estimate, strict=True)) < sum(prizes) * Fraction(3, 1000)
    assert icm_monte_carlo(stacks, prizes) == estimate  # the fixed seed: one field, one answer
    eleven = [*stacks, 1234]
    assert icm(eleven, [*prizes, 300]) == icm_monte_carlo(eleven, [*prizes, 300])


def test_icm_refuses_more_prizes_than_stacks_and_a_stack_of_nothing() -> None:
    with pytest.raises(InvalidEvent, match="3 prizes for 2 stacks"):
        icm([100, 200], [50, 30, 20])
    with pytest.raises(InvalidEvent, match=r"stacks\[1\]"):
        icm([100, 0], [50])
    with pytest.raises(InvalidEvent, match="more than place 1"):
        icm([100, 200], [30, 50])


# --- deals -------------------------------------------------------------------------------


def test_a_deal_rounds_down_and_gives_the_units_left_by_largest_fraction() -> None:
    # 1/3 each of 100: 33.33 each, one unit left; equal fractions: the bigger stack, then entry order
    assert round_amounts([Fraction(100, 3)] * 3, [10, 30, 20]) == (33, 34, 33)
    assert round_amounts([Fraction(100, 3)] * 3, [10, 10, 10]) == (34, 33, 33)
    assert round_amounts([Fraction(201, 2), Fraction(199, 2)], [1, 2]) == (100, 100)  # .5 each: the bigger stack
    assert round_amounts([Fraction(201, 2), Fraction(199, 2)], [2, 1]) == (101, 99)
    assert round_amounts([Fraction(1003, 10), Fraction(997, 10)], [1, 2]) == (100, 100)  # .3 < .7


def test_an_icm_deal_takes_left_to_play_for_off_first_prize() -> None:
    stacks, unpaid = [1500, 1200, 975], [10000, 7600, 5000]
    assert deal_values("icm", stacks, unpaid, 1000) == icm_exact(stacks, [9000, 7600, 5000])
    amounts = deal_amounts("icm", stacks, unpaid, 1000)
    assert sum(amounts) == 21600


def test_left_to_play_for_may_not_exceed_first_prize_minus_second() -> None:
    with pytest.raises(InvalidEvent, match="more than first prize minus second") as caught:
        deal_amounts("icm", [100, 200], [1000, 700], 301)
    assert caught.value.code == "deal_amounts"
    assert sum(deal_amounts("icm", [100, 200], [1000, 700], 300)) == 1400


def test_a_chip_chop_is_proportional_to_chips() -> None:
    assert deal_amounts("chip_chop", [6000, 3000, 1000], [500, 300, 200], 0) == (600, 300, 100)
    # a chip chop can pay the chip leader more than first prize: why ICM is used
    assert deal_amounts("chip_chop", [9000, 500, 500], [500, 300, 200])[0] > 500


def test_an_equal_split_divides_what_is_shared_by_the_entries() -> None:
    assert deal_amounts("equal", [5, 50, 500], [500, 300, 201], 1) == (333, 333, 334)


def test_custom_amounts_must_add_up_to_the_unpaid_prizes_less_left_to_play_for() -> None:
    assert deal_amounts("custom", [1, 2], [700, 300], 100, [450, 450]) == (450, 450)
    with pytest.raises(InvalidEvent, match="add up to 901") as caught:
        deal_amounts("custom", [1, 2], [700, 300], 100, [451, 450])
    assert caught.value.code == "deal_amounts"
    with pytest.raises(InvalidEvent, match="only with method 'custom'"):
        deal_amounts("equal", [1, 2], [700, 300], 0, [500, 500])


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(1, 10**7), min_size=2, max_size=7),
    st.lists(st.integers(1, 10**6), min_size=7, max_size=7),
    st.sampled_from(["icm", "chip_chop", "equal"]),
    st.integers(0, 100),
)
def test_deal_amounts_conserve_money_and_each_is_within_one_unit(
    stacks: list[int], prizes: list[int], method: str, kept_percent: int
) -> None:
    unpaid = sorted(prizes, reverse=True)[: len(stacks)]
    kept = (unpaid[0] - unpaid[1]) * kept_percent // 100
    values = deal_values(method, stacks, unpaid, kept)
    amounts = deal_amounts(method, stacks, unpaid, kept)
    assert sum(amounts) == sum(unpaid) - kept
    for value, amount in zip(values, amounts, strict=True):
        assert floor(value) <= amount <= floor(value) + 1
        assert abs(amount - value) < 1


# --- mystery bounties -----------------------------------------------------------------------


def three_way_bust() -> Settlement:
    """Seats 1 and 2 all in and eliminated; seat 3 (kings) wins both pots."""
    doc = event(
        seat(1, "Qc Qd", 100, stack=100),
        seat(2, "Jc Jd", 300, stack=300),
        seat(3, "Kc Kd", 300, stack=5000),
        board="2c 7d 9h 4s 3s",
    )
    return settle(to_showdown(parse_event(json.dumps(doc))))


def test_an_envelope_is_paid_to_the_winner_of_the_relevant_pot_as_cash() -> None:
    settled = three_way_bust()
    drawn, left = draw(settled, [(1, 5000), (2, 100)], pool_of([(5000, 1), (100, 3)]))
    assert drawn == {1: 5000, 2: 100}
    assert left == {5000: 0, 100: 2}
    awards = award(settled, drawn)
    assert {(a.seat, w.seat, w.cash, w.added) for a in awards for w in a.winners} == {(1, 3, 5000, 0), (2, 3, 100, 0)}


def test_an_envelope_of_a_chopped_relevant_pot_is_divided_as_a_bounty_is() -> None:
    doc = event(
        seat(1, "Qc Qd", 100, stack=100),
        seat(2, "As Kd", 100, stack=900),
        seat(3, "Ah Kc", 100, stack=900),
        board="Ac Kh 9h 4s 3s",
        button_seat=1,
    )
    settled = settle(to_showdown(parse_event(json.dumps(doc))))
    drawn, _ = draw(settled, [(1, 101)], {101: 1})
    (one,) = award(settled, drawn)
    assert [(w.seat, w.cash) for w in one.winners] == [(2, 51), (3, 50)]  # the odd unit: first left of the button


def test_an_envelope_not_in_the_pool_is_refused() -> None:
    with pytest.raises(InvalidEvent, match="not an envelope of the pool") as caught:
        draw(three_way_bust(), [(1, 7), (2, 100)], {100: 3})
    assert (caught.value.code, caught.value.field) == ("mystery_bounty_envelope", "mystery_bounties[0].amount")


def test_an_envelope_used_up_is_refused() -> None:
    with pytest.raises(InvalidEvent, match="every 100 envelope of the pool is drawn already"):
        draw(three_way_bust(), [(1, 100), (2, 100)], {100: 1})


def test_every_eliminated_seat_has_one_envelope_and_no_other_seat_has_any() -> None:
    settled = three_way_bust()
    with pytest.raises(InvalidEvent, match=r"seat 2 was eliminated .* has no envelope"):
        draw(settled, [(1, 100)], {100: 3})
    with pytest.raises(InvalidEvent, match="seat 3 was not eliminated"):
        draw(settled, [(3, 100)], {100: 3})
    with pytest.raises(InvalidEvent, match="seat 1 has an envelope already"):
        draw(settled, [(1, 100), (1, 100)], {100: 3})


def test_the_pool_merges_amounts_listed_twice_and_knows_its_value() -> None:
    pool = pool_of([(100, 2), (5000, 1), (100, 1)])
    assert pool == {100: 3, 5000: 1}
    assert pool_value(pool) == 5300


# --- showdown icm ----------------------------------------------------------------------------


def test_showdown_icm_json_prints_the_rounded_amounts_adding_up_to_the_prizes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["icm", "--stacks", "1500,1200,975", "--prizes", "10000,7600", "--json"]) == 0
    amounts = json.loads(capsys.readouterr().out)
    assert amounts == [6706, 5873, 5021]  # the reference 67.06, 58.73, 50.21 in cents
    assert sum(amounts) == 17600


def test_showdown_icm_prints_each_stacks_value_and_the_method(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["icm", "--stacks", "150000,98750,45500,13250", "--prizes", "42500,28000,13000,7500"]) == 0
    out = capsys.readouterr().out
    assert "exact" in out
    assert out.splitlines()[2].split() == ["150000", "48.78%", "32320.18", "32320"]
    eleven = ",".join(str(1000 + 10 * i) for i in range(11))
    assert main(["icm", "--stacks", eleven, "--prizes", ",".join(["100"] * 11)]) == 0
    assert "Monte Carlo" in capsys.readouterr().out


def test_showdown_icm_refuses_a_stack_it_cannot_read(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["icm", "--stacks", "1500,x", "--prizes", "100"]) == 2
    assert "stacks[1]: 'x' is not a whole number" in capsys.readouterr().err
    assert main(["icm", "--stacks", "1500", "--prizes", "100,50"]) == 2
    assert "2 prizes for 1 stacks" in capsys.readouterr().err
