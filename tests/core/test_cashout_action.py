"""A cash-out's point by the play's action index (issue 39 item 2: "at which point (the street, or the action index
when the whole-hand `play` section is there)"): the street follows from the actions; an index out of range, before
the seat was all-in and called, or on another street than the stated one is refused with its own code.
Rules in showdown_core/cashout.py (street_at); docs/cashout.md."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

import fakeredis
import pytest

from showdown_core import InvalidEvent, parse_cards
from showdown_core.equity import equity
from showdown_core.variants import VARIANTS
from showdown_messages import ShowdownResult
from showdown_rules import CODES
from showdown_service.decision.intake import parse_event
from showdown_service.decision.settling import event_digest
from showdown_service.decision.wire import result_document
from showdown_service.infra.streams import read_range
from showdown_service.worker.loop import Worker
from tests.core.test_cashout import ggpoker_kings
from tests.helpers import event, seat, settle_doc

PPM = 1_000_000
ACTIONS = (
    "d dh p1 3d3h", "d dh p2 ????", "d dh p3 ????", "d dh p4 ????", "d dh p5 KdKc", "d dh p6 Qs6h",
    "p3 f", "p4 cbr 440", "p5 cc", "p6 f", "p1 cbr 12273", "p2 f", "p4 f", "p5 cc",
    "d db 8d9h2c", "d db Ts", "d db Qh", "p1 sm 3d3h", "p5 sm KdKc",
)  # fmt: skip
"""HD149101 as phh-std writes it, the button (seat 4, Hero) last: p1 is seat 5 (small blind, 3d3h), p2 seat 6, p3
seat 1, p4 seat 2, p5 seat 3 (KdKc), p6 seat 4. Action 10 is the treys' all-in, 13 KK's call, 14 the flop's deal."""
FLOP_DEALT, CALLED, ALL_IN, RIVER_DEALT = 14, 13, 10, 16


def kings_played(**cashout: Any) -> dict[str, Any]:
    """../shared/data/rooms-more/GGPoker/ItalyToast-PokerHandHistoryParser/CashGame/HandActionTests/
    PaysCashoutFee.txt (HD149101, $1/$2) with its whole-hand play: KdKc (seat 3) covers 3d3h's all-in preflop and
    "Chooses to EV Cashout" after the flop 8d 9h 2c is dealt, for $221.18 (1% fee): tests/core/test_cashout.py's
    hand, the point named by the action."""
    return event(
        seat(5, "3d 3h", 12273, stack=12273, player_id="tyx36123"),
        seat(6, None, 200, folded=True, stack=10081, player_id="b6887901"),
        seat(1, None, 0, folded=True, stack=51243, player_id="vda35fd1"),
        seat(2, None, 440, folded=True, stack=5219, player_id="fma3fca1"),
        seat(3, "Kd Kc", 12273, stack=14639, player_id="oiesfcv1"),
        seat(4, None, 0, folded=True, stack=10300, player_id="Hero"),
        board="8d 9h 2c Ts Qh",
        button=4,
        rake=800,
        hand_id="HD149101",
        play={
            "variant": "NT",
            "starting_stacks": [12273, 10081, 51243, 5219, 14639, 10300],
            "blinds_or_straddles": [100, 200, 0, 0, 0, 0],
            "min_bet": 200,
            "actions": list(ACTIONS),
        },
        cashouts=[{"seat": 3, "amount": 22118, "fee_ppm": 10000} | cashout],
    )


def refused(doc: dict[str, Any]) -> InvalidEvent:
    with pytest.raises(InvalidEvent) as caught:
        settle_doc(doc)
    assert caught.value.code in CODES
    return caught.value


def test_the_codes_are_listed() -> None:
    assert {"cashout_action_out_of_range", "cashout_before_all_in", "cashout_street_mismatch"} <= CODES.keys()


def test_a_cash_out_by_street_keeps_its_digest_and_one_by_action_has_no_street_in_its_canonical_json() -> None:
    """The field is additive: tests/core/test_cashout.py's GGPoker hand (by street) has main's digest."""
    by_street = parse_event(json.dumps(ggpoker_kings()))
    assert event_digest(by_street) == "e5ef83c0fdf02489db769d3d2830a01766f90c93737b85b9abeac0e689aa1fdc"
    by_action = parse_event(json.dumps(kings_played(action=FLOP_DEALT)))
    assert b'"cashouts":[{"seat":3,"action":14,"amount":22118,"fee_ppm":10000}]' in by_action.model_dump_json().encode()


def test_cashing_out_after_the_flops_deal_is_the_flop_and_settles_as_the_room_paid() -> None:
    settlement = settle_doc(kings_played(action=FLOP_DEALT))
    (taken,) = settlement.cashouts
    assert (taken.seat, taken.street, taken.action) == (3, "flop", FLOP_DEALT)
    assert (taken.equity, taken.amount, taken.house) == (Fraction(907, 990), 22118, 2268)
    assert settlement.collected_by_seat()[3] == 22118
    result = result_document(settlement, datetime(2026, 11, 29, tzinfo=UTC))
    assert result["cashouts"][0]["action"] == FLOP_DEALT
    assert result["cashouts"][0]["street"] == "flop"
    ShowdownResult.model_validate(result)


def test_a_stated_street_that_agrees_with_the_action_is_taken() -> None:
    (taken,) = settle_doc(kings_played(action=FLOP_DEALT, street="flop")).cashouts
    assert taken.street == "flop"


def test_the_action_decides_the_board_known_preflop_after_the_call() -> None:
    """After KK's call (action 13) nothing is dealt: the offer is KK's preflop equity, and the flop's offer is then
    a mismatch that names the preflop."""
    kings, treys = parse_cards(["Kd", "Kc"]), parse_cards(["3d", "3h"])
    share = equity(VARIANTS["holdem"], [kings, treys], ()).shares[0]
    amount = round((25186 - 800) * share * (PPM - 10000) / PPM)
    (taken,) = settle_doc(kings_played(action=CALLED, amount=amount)).cashouts
    assert (taken.street, taken.amount, taken.action) == ("preflop", amount, CALLED)
    refusal = refused(kings_played(action=CALLED))
    assert (refusal.code, refusal.field) == ("cashout_mismatch", "cashouts[0].amount")
    assert "on the preflop" in refusal.message


def test_a_stated_street_other_than_the_actions_is_refused_naming_both() -> None:
    refusal = refused(kings_played(action=FLOP_DEALT, street="turn"))
    assert (refusal.code, refusal.field) == ("cashout_street_mismatch", "cashouts[0].street")
    assert "is turn, but play.actions[14] is on the flop (the board then: 8d9h2c)" in refusal.message


def test_a_cash_out_before_the_seat_was_all_in_is_refused() -> None:
    """After the treys' all-in (action 10) KK has 14,199 chips behind and has not called."""
    refusal = refused(kings_played(action=ALL_IN))
    assert (refusal.code, refusal.field) == ("cashout_before_all_in", "cashouts[0].action")
    assert "p5 (seat 3) still had 14199 chips behind" in refusal.message


def test_an_all_in_seat_cashing_out_while_others_are_still_to_act_is_refused() -> None:
    """The treys are all-in at action 10, but p2, p4 and p5 are still to act: the pots, and who contests them, could
    still change."""
    doc = kings_played(action=ALL_IN)
    doc["cashouts"] = [{"seat": 5, "action": ALL_IN, "amount": 1, "fee_ppm": 10000}]
    refusal = refused(doc)
    assert refusal.code == "cashout_before_all_in"
    assert "the betting was not over (p2, p4, p5 still to act)" in refusal.message


@pytest.mark.parametrize(
    ("action", "says"),
    [
        (RIVER_DEALT, "the river is dealt"),
        (len(ACTIONS) - 1, "the river is dealt"),
        (len(ACTIONS), f"play.actions holds {len(ACTIONS)} actions"),
        (999, f"play.actions holds {len(ACTIONS)} actions"),
    ],
)
def test_an_action_past_the_last_or_after_the_river_is_out_of_range(action: int, says: str) -> None:
    refusal = refused(kings_played(action=action))
    assert (refusal.code, refusal.field) == ("cashout_action_out_of_range", "cashouts[0].action")
    assert says in refusal.message


def test_an_action_without_play_or_no_point_at_all_is_a_bad_cash_out() -> None:
    without = {k: v for k, v in kings_played(action=FLOP_DEALT).items() if k != "play"}
    refusal = refused(without)
    assert (refusal.code, refusal.field) == ("bad_cashout", "cashouts[0].action")
    assert "the event has no `play`" in refusal.message
    refusal = refused(kings_played())
    assert (refusal.code, refusal.field) == ("bad_cashout", "cashouts[0]")
    assert "names no point" in refusal.message


def test_through_a_worker_a_cash_out_by_action_settles_and_one_before_the_all_in_is_a_dead_letter(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    early = kings_played(action=ALL_IN) | {"hand_id": "HD149101-early"}
    fake.xadd(keys.events, {"event": json.dumps(kings_played(action=FLOP_DEALT))})
    fake.xadd(keys.events, {"event": json.dumps(early)})
    Worker(settings, fake).run(until_idle=True)
    ((_, settled),) = read_range(fake, keys.results)
    result = json.loads(settled[b"result"])
    assert result["hand_id"] == "HD149101"
    assert [(c["seat"], c["street"], c["action"], c["amount"], c["house"]) for c in result["cashouts"]] == [
        (3, "flop", FLOP_DEALT, 22118, 2268)
    ]
    ((_, letter),) = read_range(fake, keys.dead)
    assert letter[b"code"] == b"cashout_before_all_in"
    assert b"still had 14199 chips behind" in letter[b"message"]


def test_the_plays_starting_stacks_show_who_was_all_in_when_the_seats_give_none() -> None:
    """Without the players' `stack`, a cash-out needs the play's starting stacks to show the seat all-in (the
    contract said "without starting stacks nobody is shown all-in" even with them there)."""
    doc = kings_played(street="flop")
    doc["players"] = [{k: v for k, v in p.items() if k != "stack"} for p in doc["players"]]
    (taken,) = settle_doc(doc).cashouts
    assert (taken.street, taken.amount, taken.action) == ("flop", 22118, None)
    doc["cashouts"] = [{"seat": 2, "street": "flop", "amount": 1, "fee_ppm": 10000}]
    doc["players"][3] |= {"folded": False, "hole_cards": ["Ah", "Ac"]}  # seat 2 kept in, 440 of its 5219 put in
    refusal = refused(doc)
    assert (refusal.code, refusal.field) == ("cashout_not_all_in", "cashouts[0].seat")
    assert "seat 2 put in 440 of its 5219 chips" in refusal.message
