"""Rake: how the house's chips come out of the main and side pots, chip for chip.

The PokerStars samples in ``../shared/data/pokerstars`` are the reference:
each hand below is a sample's contributions, and every ``collected`` line of
the sample must come out of the settlement to the cent.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from typing import Any

import pytest

from showdown_core import InvalidEvent
from showdown_core.settlement import rake_by_pot
from showdown_messages import ShowdownResult
from showdown_service.decision.intake import parse_event
from showdown_service.decision.wire import result_document
from tests.helpers import event, seat, settle_doc

# side_pot_3pots_eur.txt: 4-way showdown, three pots, rake EUR 0.89 (cents)
THREE_POTS = event(
    seat(1, "As Kd", 718, stack=718, player_id="mofdis"),
    seat(2, None, 10, folded=True, stack=845, player_id="metra1977"),
    seat(3, "Jh Ad", 138, stack=138, player_id="CrSilva.11"),
    seat(4, None, 0, folded=True, stack=1230, player_id="danystorm"),
    seat(5, "Qc Qd", 400, stack=400, player_id="Lenorina"),
    seat(7, None, 0, folded=True, stack=2085, player_id="soplak"),
    seat(8, None, 0, folded=True, stack=410, player_id="VodkinFirst"),
    seat(9, "9d Jd", 718 + 969, stack=3894, player_id="templargio"),
    board="8s Qh Ks 9s Tc",
    button=9,
    rake=89,
    rake_ppm=45_000,
)
# side_pot_ante_rake.txt: antes, a mucked all-in, main + side pot, rake USD 1.50 (the room's cap)
ANTE_TWO_POTS = event(
    seat(1, None, 1058, folded=True, stack=1058, player_id="Shupstix"),
    seat(2, None, 2, folded=True, stack=1112, player_id="lold.lold"),
    seat(3, "Kc Ks", 1457, stack=2596, player_id="T_Leroy"),
    seat(4, None, 2, folded=True, stack=1580, player_id="SW_KaiZR"),
    seat(5, None, 2, folded=True, stack=2560, player_id="pak87"),
    seat(6, "Qd Qc", 1457, stack=1457, player_id="ilya44rus"),
    board="8c 6c 9s 7h 3c",
    button=5,
    rake=150,
    rake_ppm=45_000,
)
# allin_showdown_rake.txt, allin_preflop_muck_after_runout.txt, showdown_full_house.txt: one pot each
ONE_POT_SAMPLES = [
    (
        event(
            seat(2, None, 2, folded=True),
            seat(3, "8h 8c", 1226),
            seat(4, "Ah Ks", 1226),
            seat(5, None, 12, folded=True),
            seat(6, None, 2, folded=True),
            board="5c 4c 4h Qs Kc",
            button=3,
            rake=111,
        ),
        {4: 2357},
    ),
    (
        event(
            seat(3, None, 0, folded=True),
            seat(4, "Qd As", 4_000_000),
            seat(5, None, 4_000_000, folded=True),  # 1111.00 uncalled was returned before the muck
            seat(6, None, 0, folded=True),
            board="Jc Qs Ac 5d 8h",
            button=3,
            rake=500,
        ),
        {4: 7_999_500},
    ),
    (
        event(
            seat(5, None, 500, folded=True),
            seat(6, "7h 6h", 28_000),
            seat(7, None, 28_000, folded=True),
            board="5c 7c 7d Jd Jc",
            button=4,
            rake=300,
        ),
        {6: 56_200},
    ),
]


def pots_of(doc: dict[str, Any]) -> list[tuple[int, int, dict[int, int]]]:
    """``[(amount, rake, {seat: share})]`` per pot, main pot first."""
    return [(p.amount, p.rake, {w.seat: w.amount for w in p.winners}) for p in settle_doc(doc).pots]


def test_three_pots_raked_at_the_rooms_rate_pay_every_collected_line_of_the_sample() -> None:
    # "CrSilva.11 collected 5.37 from main pot", "templargio collected 7.50 from side pot-1", "... 6.08 from side pot-2"
    assert pots_of(THREE_POTS) == [(562, 25, {3: 537}), (786, 36, {9: 750}), (636, 28, {9: 608})]
    result = settle_doc(THREE_POTS)
    assert [(r.seat, r.amount) for r in result.returned] == [(9, 969)]  # "Uncalled bet (9.69) returned"
    assert result.collected_by_seat()[9] == 969 + 750 + 608


def test_a_capped_rake_falls_short_on_the_last_pot_as_in_the_ante_sample() -> None:
    # PokerStars: main pot 31.80 - 1.43 (4.5%) = 30.37, side pot 7.98 - 0.07 (what the 1.50 cap leaves) = 7.91
    assert rake_by_pot([3180, 798], 150, 45_000) == (143, 7)
    # Shupstix mucked, so both pots are open to the same two seats: settled as one pot, which T_Leroy takes
    assert pots_of(ANTE_TWO_POTS) == [(3978, 150, {3: 3037 + 791})]


@pytest.mark.parametrize(("doc", "expected"), ONE_POT_SAMPLES)
def test_a_single_pot_gives_the_whole_rake(doc: dict[str, Any], expected: dict[int, int]) -> None:
    won = settle_doc(doc).collected_by_seat()
    assert {seat: won[seat] for seat in expected} == expected
    assert sum(won.values()) + doc["rake"] == sum(p["contributed"] for p in doc["players"])


def test_without_a_stated_rate_the_rake_falls_on_every_pot_in_proportion() -> None:
    # 89 over 562 / 786 / 636 at 89/1984: cumulative 25.21 -> 25, 60.47 -> 60, 89
    doc = {**THREE_POTS, "rake_ppm": None}
    assert [rake for _, rake, _ in pots_of(doc)] == [25, 35, 29]


def test_rounding_is_cumulative_and_halves_go_to_even() -> None:
    # 10% of 5 is 0.5 -> 0 (even); of 5 + 10 it is 1.5 -> 2, so the second pot gives 2
    assert rake_by_pot([5, 10], 2, 100_000) == (0, 2)
    # 10% of 15 is 1.5 -> 2; of 15 + 10 it is 2.5 -> 2: the second pot gives nothing
    assert rake_by_pot([15, 10], 2, 100_000) == (2, 0)


def test_no_rake_changes_nothing() -> None:
    plain = {**THREE_POTS, "rake": 0, "rake_ppm": None}
    assert [rake for _, rake, _ in pots_of(plain)] == [0, 0, 0]
    assert sum(settle_doc(plain).collected) == sum(p["contributed"] for p in plain["players"])


def test_every_pot_gives_between_nothing_and_its_chips_and_the_pots_give_the_whole_rake() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        amounts = [rng.randint(0, 5000) for _ in range(rng.randint(1, 6))]
        total = sum(amounts)
        ppm = rng.choice([None, rng.randint(1, 1_000_000)])
        most = total if ppm is None else (ppm * total * 2 + 1_000_000) // 2_000_000 - 1
        rake = rng.randint(0, max(0, min(total, most)))
        raked = rake_by_pot(amounts, rake, ppm)
        assert sum(raked) == rake, (amounts, rake, ppm)
        assert all(0 <= r <= a for r, a in zip(raked, amounts, strict=True)), (amounts, rake, ppm, raked)
        if ppm is None and total:
            shares = [rake * a / total for a in amounts]
            assert all(abs(r - s) <= 1 for r, s in zip(raked, shares, strict=True)), (amounts, rake, raked)


def test_a_rake_larger_than_the_pots_is_refused_as_bad_rake() -> None:
    doc = event(seat(1, "As Ad", 50), seat(2, "Kc Kd", 50), board="2c 7d 9h Js 3s", rake=101)
    with pytest.raises(InvalidEvent) as caught:
        parse_event(json.dumps(doc))
    assert caught.value.code == "bad_rake"
    assert caught.value.field == "rake"


def test_an_uncalled_bet_is_never_raked() -> None:
    # 100 in the pot, 400 returned: a rake of 101 would have to come out of the returned bet
    doc = event(seat(1, None, 450), seat(2, None, 50, folded=True), rake=101)
    with pytest.raises(InvalidEvent, match="uncalled bet, 400 here, is never raked") as caught:
        parse_event(json.dumps(doc))
    assert caught.value.code == "bad_rake"
    ok = settle_doc({**doc, "rake": 5})
    assert ok.collected_by_seat() == {1: 400 + 95, 2: 0}
    assert [(r.seat, r.amount) for r in ok.returned] == [(1, 400)]


def test_a_rake_beyond_what_the_stated_rate_gives_is_refused() -> None:
    doc = {**THREE_POTS, "rake": 90}  # 4.5% of 19.84 is 0.89
    with pytest.raises(InvalidEvent, match="rake_ppm 45000 allows: 89") as caught:
        parse_event(json.dumps(doc))
    assert caught.value.code == "bad_rake"


@pytest.mark.parametrize("ppm", [-1, 1_000_001, 4.5])
def test_a_rate_outside_parts_per_million_is_refused(ppm: float) -> None:
    with pytest.raises(InvalidEvent) as caught:
        parse_event(json.dumps({**THREE_POTS, "rake_ppm": ppm}))
    assert caught.value.code == "bad_rake"
    assert caught.value.field == "rake_ppm"


def test_the_result_reports_each_pots_rake_and_awards_net_of_it() -> None:
    doc = result_document(settle_doc(THREE_POTS), datetime(2026, 1, 1, tzinfo=UTC))
    ShowdownResult.model_validate(doc)
    assert [(p["amount"], p["rake"]) for p in doc["pots"]] == [(562, 25), (786, 36), (636, 28)]
    awards = {a["seat"]: (a["amount"], a["net"]) for a in doc["awards"]}
    assert awards[3] == (537, 537 - 138)
    assert sum(amount for amount, _ in awards.values()) + 89 == sum(p["contributed"] for p in THREE_POTS["players"])


def test_a_bust_is_judged_after_the_rake() -> None:
    result = settle_doc(ANTE_TWO_POTS)
    assert {b.player_id for b in result.busts} == {"Shupstix", "ilya44rus"}
