"""Knockout bounties (showdown_core.bounties): every rule of the README's bounty table, one hand each, cent for cent.

Rules: PokerStars help, "Winning tournament bounties" (the relevant pot; PKO halves, odd cent to cash);
GGPoker/Natural8 knockout rules (earliest position takes the odd cent of a chopped bounty).
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from showdown_core import DECK, settle
from showdown_core.model import BountyAward
from showdown_service.decision.intake import parse_event, to_showdown
from showdown_service.decision.wire import result_document
from tests.helpers import event, refusal, seat, settle_doc

BOARD = "2c 7d 9h Js 3s"


def ko(*players: dict[str, Any], bounties: dict[int, int], cash_ppm: int = 1_000_000, **fields: Any) -> dict[str, Any]:
    """An event with a bounty on every seat's head (``bounties`` by seat; 0 where not given)."""
    for p in players:
        p["bounty"] = bounties.get(p["seat"], 0)
    return event(*players, bounty_cash_ppm=cash_ppm, **fields)


def awards(doc: dict[str, Any]) -> tuple[BountyAward, ...]:
    return settle_doc(doc).bounties


def paid(doc: dict[str, Any]) -> dict[str, dict[int, tuple[int, int]]]:
    """``{eliminated player_id: {winning seat: (cash, added)}}``."""
    return {a.player_id: {w.seat: (w.cash, w.added) for w in a.winners} for a in awards(doc)}


def test_a_fixed_knockout_pays_the_whole_bounty_as_cash_to_the_winner_of_the_pot() -> None:
    doc = ko(
        seat(1, "Kc Kd", 500, stack=500), seat(2, "As Ad", 500, stack=2000), board=BOARD, bounties={1: 250, 2: 250}
    )
    (award,) = awards(doc)
    assert (award.seat, award.bounty, award.pot) == (1, 250, 0)
    assert [(w.seat, w.amount, w.cash, w.added) for w in award.winners] == [(2, 250, 250, 0)]


def test_the_bounty_goes_to_the_winner_of_the_relevant_pot_not_to_the_best_hand() -> None:
    # seat 1 (short, aces) wins the main pot; seat 2 is eliminated in the side pot, which seat 3 wins
    doc = ko(
        seat(1, "As Ad", 100, stack=100),
        seat(2, "Qc Qd", 500, stack=500),
        seat(3, "Kc Kd", 500, stack=3000),
        board=BOARD,
        bounties={1: 1000, 2: 1000, 3: 1000},
    )
    settled = settle_doc(doc)
    assert settled.collected_by_seat() == {1: 300, 2: 0, 3: 800}
    (award,) = settled.bounties
    assert (award.player_id, award.pot) == ("p2", 1)
    assert [(w.seat, w.cash) for w in award.winners] == [(3, 1000)]


def test_a_chopped_relevant_pot_divides_the_bounty_equally_with_the_odd_cent_left_of_the_button() -> None:
    doc = ko(
        seat(1, "2c 3c", 300, stack=300),
        seat(2, "Tc 4d", 300, stack=900),
        seat(3, "Td 5s", 300, stack=900),
        board="Ah Kh Qh Jh 9c",  # seats 2 and 3 chop with Broadway straights; seat 1 has ace high
        button=2,
        bounties={1: 1001, 2: 500, 3: 500},
    )
    assert paid(doc) == {"p1": {2: (500, 0), 3: (501, 0)}}  # button 2: seat 3 is the first winner on its left


def test_a_progressive_knockout_pays_half_and_adds_half_with_the_odd_cent_on_the_cash_side() -> None:
    doc = ko(
        seat(1, "Kc Kd", 500, stack=500),
        seat(2, "As Ad", 500, stack=2000),
        board=BOARD,
        bounties={1: 3979, 2: 1000},
        cash_ppm=500_000,
    )
    (award,) = awards(doc)
    assert [(w.amount, w.cash, w.added) for w in award.winners] == [(3979, 1990, 1989)]  # PokerStars: $19.90/$19.89


def test_a_seventy_percent_cash_progressive_knockout_adds_thirty_percent() -> None:
    doc = ko(
        seat(1, "Kc Kd", 500, stack=500),
        seat(2, "As Ad", 500, stack=2000),
        board=BOARD,
        bounties={1: 1001, 2: 1000},
        cash_ppm=700_000,
    )
    (award,) = awards(doc)
    assert [(w.cash, w.added) for w in award.winners] == [(701, 300)]


def test_several_eliminated_players_are_settled_shortest_stack_first_each_through_its_own_pot() -> None:
    doc = ko(
        seat(1, "Qc Qd", 100, stack=100),
        seat(2, "Tc Td", 400, stack=400),
        seat(3, "As Ad", 400, stack=5000),
        board=BOARD,
        bounties={1: 200, 2: 300, 3: 100},
        cash_ppm=500_000,
    )
    settled = settle_doc(doc)
    assert [(a.player_id, a.pot, a.bounty) for a in settled.bounties] == [("p1", 0, 200), ("p2", 1, 300)]
    assert [(w.seat, w.cash, w.added) for a in settled.bounties for w in a.winners] == [(3, 100, 100), (3, 150, 150)]


def test_a_quartered_omaha_hilo_pot_divides_the_bounty_one_half_one_quarter_one_quarter() -> None:
    doc = ko(
        seat(1, "Kc Kd 9c 9d", 100, stack=100),
        seat(2, "As 2s Tc Td", 100, stack=1000),
        seat(3, "Ah 2h Jc Jd", 100, stack=1000),
        seat(4, "Ks Kh 9s 9h", 100, stack=1000),
        board="3c 4d 8h Js Qs",
        button=1,
        variant="omaha_hilo",
        bounties={1: 400, 2: 1, 3: 1, 4: 1},
    )
    settled = settle_doc(doc)
    pot = settled.pots[0]
    assert [(p.half, [w.seat for w in p.winners]) for p in pot.parts] == [("high", [3]), ("low", [2, 3])]
    (award,) = settled.bounties
    assert {w.seat: w.amount for w in award.winners} == {2: 100, 3: 300}  # 1/4 and 1/2 + 1/4


def test_a_hand_run_twice_divides_the_bounty_by_runs() -> None:
    doc = ko(
        seat(1, "Kc Kd", 500, stack=500),
        seat(2, "As Ad", 500, stack=2000),
        boards=[["2c", "7d", "9h", "Js", "Ks"], ["2c", "7d", "9h", "Js", "3s"]],
        bounties={1: 1000, 2: 1000},
    )
    settled = settle_doc(doc)
    assert settled.collected_by_seat() == {1: 500, 2: 500}  # each wins a run: nobody is eliminated
    assert settled.bounties == ()
    doc["players"].append({"seat": 3, "player_id": "p3", "hole_cards": ["Qc", "Qd"], "contributed": 500,
                           "stack": 500, "bounty": 1001})  # fmt: skip
    settled = settle_doc(doc)
    (award,) = settled.bounties
    assert award.player_id == "p3"
    assert {w.seat: w.amount for w in award.winners} == {1: 500, 2: 501}  # button 1: seat 2 first on its left


def test_an_eliminated_seat_without_a_bounty_gets_no_award() -> None:
    doc = ko(seat(1, "Kc Kd", 500, stack=500), seat(2, "As Ad", 500, stack=2000), board=BOARD, bounties={2: 1000})
    assert awards(doc) == ()


def test_bounties_appear_in_the_result_with_cash_and_added_parts() -> None:
    doc = ko(
        seat(1, "Kc Kd", 500, stack=500),
        seat(2, "As Ad", 500, stack=2000),
        board=BOARD,
        bounties={1: 3979, 2: 1000},
        cash_ppm=500_000,
    )
    document = result_document(settle_doc(doc), settled_at=__import__("datetime").datetime(2026, 1, 1))
    assert document["bounties"] == [
        {
            "seat": 1,
            "player_id": "p1",
            "bounty": 3979,
            "pot": 0,
            "winners": [{"seat": 2, "player_id": "p2", "amount": 3979, "cash": 1990, "added": 1989}],
        }
    ]


def test_bounties_for_some_seats_only_are_refused_naming_the_seat() -> None:
    doc = ko(seat(1, "Kc Kd", 500, stack=500), seat(2, "As Ad", 500, stack=2000), board=BOARD, bounties={})
    del doc["players"][1]["bounty"]
    assert refusal(doc).code == "partial_bounties"


def test_bounties_without_stacks_or_cash_fraction_are_refused() -> None:
    doc = ko(seat(1, "Kc Kd", 500), seat(2, "As Ad", 500), board=BOARD, bounties={1: 1, 2: 1})
    assert refusal(doc).code == "bounty_without_stack"
    doc = ko(seat(1, "Kc Kd", 500, stack=500), seat(2, "As Ad", 500, stack=900), board=BOARD, bounties={1: 1, 2: 1})
    del doc["bounty_cash_ppm"]
    assert refusal(doc).code == "missing_bounty_cash_ppm"


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cash_ppm=st.sampled_from([1_000_000, 500_000, 700_000, 0, 333_333]))
def test_bounty_money_is_conserved_in_any_hand(seed: int, cash_ppm: int) -> None:
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    count = rng.randint(2, 6)
    players = []
    for i in range(count):
        stack = rng.choice([100, 200, 200, 500, 1000])
        put = stack if rng.random() < 0.7 else rng.randint(0, stack)
        cards = f"{deck[5 + 2 * i].text} {deck[6 + 2 * i].text}"
        players.append(seat(i + 1, cards, put, stack=stack))
    top = max(p["contributed"] for p in players)
    players[0]["contributed"] = min(players[0]["stack"], top) if players[0]["stack"] >= top else players[0]["stack"]
    bounties = {i + 1: rng.randint(0, 5000) for i in range(count)}
    doc = ko(*players, board=" ".join(c.text for c in deck[:5]), button=rng.randint(1, 10), bounties=bounties,
             cash_ppm=cash_ppm)  # fmt: skip
    try:
        showdown = to_showdown(parse_event(json.dumps(doc)))
    except Exception:
        return
    settled = settle(showdown)
    heads = dict(bounties)
    cash = 0
    for award in settled.bounties:
        assert award.bounty == heads[award.seat]
        assert sum(w.amount for w in award.winners) == award.bounty
        heads[award.seat] = 0
        for w in award.winners:
            assert w.amount == w.cash + w.added
            assert w.cash >= w.amount * cash_ppm // 1_000_000
            heads[w.seat] += w.added
            cash += w.cash
    assert cash + sum(heads.values()) == sum(bounties.values())
    gone = {b.seat for b in settled.busts}
    assert {a.seat for a in settled.bounties} == {s for s in gone if bounties[s] or any(
        w.seat == s for a in settled.bounties for w in a.winners)}  # fmt: skip


def test_in_stud_the_left_over_cent_goes_by_the_highest_card_of_the_tied_hands_not_by_the_button() -> None:
    def split(first: str, second: str) -> dict[int, int]:
        doc = ko(
            seat(1, first, 300, stack=900),
            seat(2, second, 300, stack=900),
            seat(3, "Ac Ad Kc Qd Jh 4s 5s", 300, stack=300),
            button=None,
            variant="stud",
            bounties={1: 5, 2: 5, 3: 1001},
        )
        (award,) = awards(doc)
        return {w.seat: w.amount for w in award.winners}

    # two ten-high straights chop the pot that eliminates seat 3: the Ts outranks the Th (TDA Rule 20-B)
    assert split("Ts 9h 8d 7c 6s 2c 3c", "Th 9s 8h 7d 6d 2h 3h") == {1: 501, 2: 500}
    assert split("Th 9s 8h 7d 6d 2h 3h", "Ts 9h 8d 7c 6s 2c 3c") == {1: 500, 2: 501}
