"""All-in cash-outs (issue 39 item 2; docs/cashout.md): the offer checked against the exact equity, paid in place
of the run-out, the house taking the seat's share; every refusal its own code. Rules and sources in
showdown_core/cashout.py."""

from __future__ import annotations

import io
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
from showdown_service.cli.commands import adjudicate_lines
from showdown_service.decision.render import describe_result
from showdown_service.decision.wire import result_document
from showdown_service.infra.streams import read_range
from showdown_service.worker.loop import Worker
from tests.helpers import event, seat, settle_doc

PPM = 1_000_000


def refused(doc: dict[str, Any]) -> InvalidEvent:
    """The InvalidEvent a worker raises for ``doc``: the contract's refusal, or settlement's (the equity checks)."""
    with pytest.raises(InvalidEvent) as caught:
        settle_doc(doc)
    assert caught.value.code in CODES
    return caught.value


def offer(value: Fraction, fee_ppm: int) -> int:
    """The rooms' rule: value less fee_ppm of it, rounded half to even (Python's round of a Fraction)."""
    return round(value * (PPM - fee_ppm) / PPM)


def ggpoker_kings(cashout_seat: int = 3, amount: int = 22118) -> dict[str, Any]:
    """../shared/data/rooms-more/GGPoker/ItalyToast-PokerHandHistoryParser/CashGame/HandActionTests/
    PaysCashoutFee.txt (HD149101, $1/$2): KdKc covers 3d3h's all-in preflop and chooses EV Cashout on the flop
    8d 9h 2c; total pot $251.86, rake $6 and jackpot $2 (both the house's: `rake` 800 cents here); KK wins on
    Ts Qh and "Pays Cashout Risk ($22.68)": it keeps $221.18 of the $243.86 it won."""
    return event(
        seat(1, None, 0, folded=True, stack=51243, player_id="vda35fd1"),
        seat(2, None, 440, folded=True, stack=5219, player_id="fma3fca1"),
        seat(3, "Kd Kc", 12273, stack=14639, player_id="oiesfcv1"),
        seat(4, None, 0, folded=True, stack=10300, player_id="Hero"),
        seat(5, "3d 3h", 12273, stack=12273, player_id="tyx36123"),
        seat(6, None, 200, folded=True, stack=10081, player_id="b6887901"),
        board="8d 9h 2c Ts Qh",
        button=4,
        rake=800,
        hand_id="HD149101",
        cashouts=[{"seat": cashout_seat, "street": "flop", "amount": amount, "fee_ppm": 10000}],
    )


def test_a_real_ggpoker_ev_cashout_is_the_rooms_formula_to_the_cent() -> None:
    """PokerStars: "Hand value = (pot size - rake) x probability of winning", "a 1% cash out fee on value of
    your hand (not the entire pot)": (25186 - 800) x 907/990 = 22341.52, less 1% = 22118.10 -> 22118; the
    house's side is what KK won less the offer: 24386 - 22118 = 2268, the room's "Cashout Risk ($22.68)"."""
    settlement = settle_doc(ggpoker_kings())
    assert settlement.collected_by_seat()[3] == 22118
    (taken,) = settlement.cashouts
    assert (taken.seat, taken.street, taken.equity, taken.amount) == (3, "flop", Fraction(907, 990), 22118)
    assert (taken.runout, taken.house) == (24386, 2268)
    put_in = sum(s.put_in for s in settlement.showdown.seats)
    assert sum(settlement.collected) + settlement.showdown.rake + taken.house == put_in  # chips out == in


def test_the_cashed_out_seat_receives_the_offer_whatever_the_run_out() -> None:
    """The losing side cashes out: it is paid its offer though its hand lost; the house paid it (house < 0)."""
    value = Fraction(24386 * 83, 990)  # 3d3h's equity on 8d 9h 2c against KdKc: 83/990
    amount = offer(value, 10000)
    settlement = settle_doc(ggpoker_kings(cashout_seat=5, amount=amount))
    collected = settlement.collected_by_seat()
    assert collected[5] == amount
    assert collected[3] == 24386  # the winner is paid as ever
    (taken,) = settlement.cashouts
    assert (taken.runout, taken.house) == (0, -amount)
    assert sum(settlement.collected) + 800 + taken.house == 25186


def tied_on_the_turn(pot_dead: int, amount: int, **fields: Any) -> dict[str, Any]:
    """AsKc against AdKh on 2c 7d 9h Js: every river ties (no flush can come), equity exactly 1/2 each."""
    return event(
        seat(1, "As Kc", 12, dead=pot_dead, stack=12 + pot_dead),
        seat(2, "Ad Kh", 12, stack=12),
        board="2c 7d 9h Js 3s",
        cashouts=[{"seat": 2, "street": "turn", "amount": amount, "fee_ppm": 0}],
        **fields,
    )


@pytest.mark.parametrize(("dead", "amount"), [(1, 12), (3, 14)])
def test_the_offer_is_rounded_half_to_even_and_the_house_takes_a_split_pots_half(dead: int, amount: int) -> None:
    """Pot 25 x 1/2 = 12.5 -> 12; pot 27 x 1/2 = 13.5 -> 14 (half to even, the issue's rounding)."""
    settlement = settle_doc(tied_on_the_turn(dead, amount))
    (taken,) = settlement.cashouts
    assert taken.equity == Fraction(1, 2)
    assert taken.runout == (25 + dead) // 2  # its share of the split pot, the odd chip its (seat 2: left of 1)
    assert settlement.collected_by_seat()[2] == amount
    assert refused(tied_on_the_turn(dead, amount + 1)).code == "cashout_mismatch"


def test_multiway_the_short_all_in_is_valued_on_the_main_pot_only() -> None:
    """Three all-in at different sizes: seat 1 (shortest) contests only the main pot; its value is that pot
    less its rake times its three-way equity there (preflop, no board known)."""
    doc = event(
        seat(1, "Qs Qh", 1000, stack=1000),
        seat(2, "Ac Kc", 3000, stack=3000),
        seat(3, "7d 7s", 3000, stack=5000),
        board="2h 8c Td 4s 9c",
        button=3,
        rake=300,
        rake_ppm=50000,
    )
    holes = [parse_cards(["Qs", "Qh"]), parse_cards(["Ac", "Kc"]), parse_cards(["7d", "7s"])]
    share = equity(VARIANTS["holdem"], holes).shares[0]
    main, main_rake = 3000, 150  # 5% of the 3000 main pot; the side pot 4000 gives the other 150 (capped at 300)
    amount = offer((main - main_rake) * share, 20000)  # a 2% fee (PokerStars' 2024-25 hands)
    doc["cashouts"] = [{"seat": 1, "street": "preflop", "amount": amount, "fee_ppm": 20000}]
    settlement = settle_doc(doc)
    (taken,) = settlement.cashouts
    assert taken.equity == share
    assert taken.runout == 2850  # QQ holds on the board dealt: the main pot less its rake, to the house
    assert settlement.collected_by_seat()[1] == amount
    assert sum(settlement.collected) + 300 + taken.house == 7000


def test_a_pot_the_seat_alone_contests_is_valued_whole() -> None:
    """Seat 2 folded after putting 1000 in: the side pot above seat 1's all-in is seat 3's alone (equity 1),
    and seat 3, covering the only other live seat's all-in, may cash out."""
    doc = event(
        seat(1, "Qs Qh", 300, stack=300),
        seat(2, None, 1000, folded=True, stack=5000),
        seat(3, "Ac Kc", 1000, stack=4000),
        board="2h 8c Td 4s 9c",
    )
    holes = [parse_cards(["Qs", "Qh"]), parse_cards(["Ac", "Kc"])]
    share = equity(VARIANTS["holdem"], holes, parse_cards(["2h", "8c", "Td"])).shares[1]
    amount = offer(900 * share + 1400, 10000)
    doc["cashouts"] = [{"seat": 3, "street": "flop", "amount": amount, "fee_ppm": 10000}]
    settlement = settle_doc(doc)
    (taken,) = settlement.cashouts
    assert taken.value == 900 * share + 1400
    assert taken.runout == 1400  # QQ holds the main pot; the side pot was seat 3's anyway
    assert settlement.collected_by_seat() == {1: 900, 2: 0, 3: amount}


def test_omaha_hi_lo_is_valued_by_halves() -> None:
    holes = ["Ah 2h Kc Qd", "Ad 3s Kd Qc"]
    doc = event(
        seat(1, holes[0], 500, stack=500),
        seat(2, holes[1], 500, stack=800),
        board="4c 5d 9s Th 6h",
        variant="omaha_hilo",
    )
    share = equity(VARIANTS["omaha_hilo"], [parse_cards(h.split()) for h in holes], parse_cards(["4c", "5d", "9s"]))
    amount = offer(1000 * share.shares[0], 10000)
    doc["cashouts"] = [{"seat": 1, "street": "flop", "amount": amount, "fee_ppm": 10000}]
    settlement = settle_doc(doc)
    assert settlement.cashouts[0].equity == share.shares[0]
    assert settlement.collected_by_seat()[1] == amount
    assert sum(settlement.collected) + settlement.cashouts[0].house == 1000


def test_the_result_carries_equity_offer_and_house_side_and_validates() -> None:
    document = result_document(settle_doc(ggpoker_kings()), datetime(2026, 11, 29, tzinfo=UTC))
    assert document["cashouts"] == [
        {
            "seat": 3,
            "player_id": "oiesfcv1",
            "street": "flop",
            "equity": "907/990",
            "value": "11059051/495",
            "fee_ppm": 10000,
            "amount": 22118,
            "runout": 24386,
            "house": 2268,
        }
    ]
    ShowdownResult.model_validate(document)
    assert describe_result(document) == (
        "HD149101: main pot 25186, rake 800: oiesfcv1 24386 (Pair of Kings); "
        "oiesfcv1 cashed out on the flop for 22118 (equity 907/990), the house takes its 24386"
    )
    plain = result_document(settle_doc(tied_on_the_turn(1, 12) | {"cashouts": None}), datetime.now(UTC))
    assert "cashouts" not in plain


@pytest.mark.parametrize(
    ("change", "code", "field", "says"),
    [
        ({"amount": 22119}, "cashout_mismatch", "cashouts[0].amount", "seat 3 on the flop: expected 22118"),
        ({"amount": 24387}, "cashout_above_pot", "cashouts[0].amount", "more than the 24386 chips"),
        ({"seat": 4}, "bad_cashout", "cashouts[0].seat", "seat 4 is folded"),
        ({"seat": 7}, "bad_cashout", "cashouts[0].seat", "seat 7 is not in the hand"),
        ({"street": "river"}, "wrong_type", "cashouts[0].street", "should be 'preflop', 'flop' or 'turn'"),
    ],
)
def test_each_bad_offer_is_refused_with_its_own_code(change: dict[str, Any], code: str, field: str, says: str) -> None:
    doc = ggpoker_kings()
    doc["cashouts"] = [doc["cashouts"][0] | change]
    refusal = refused(doc)
    assert (refusal.code, refusal.field) == (code, field)
    assert says in refusal.message


def test_a_seat_not_all_in_is_refused() -> None:
    doc = ggpoker_kings()
    doc["players"][4]["stack"] = 20000  # 3d3h was not all-in: KK could still be bet into
    refusal = refused(doc)
    assert (refusal.code, refusal.field) == ("cashout_not_all_in", "cashouts[0].seat")
    assert "seat 3 put in 12273 of its 14639 chips" in refusal.message


def test_a_cash_out_without_stacks_is_refused_as_not_shown_all_in() -> None:
    doc = ggpoker_kings()
    for player in doc["players"]:
        del player["stack"]
    assert refused(doc).code == "cashout_not_all_in"


def test_two_cash_outs_of_one_seat_are_refused() -> None:
    doc = ggpoker_kings()
    doc["cashouts"] = doc["cashouts"] * 2
    refusal = refused(doc)
    assert (refusal.code, refusal.field) == ("cashout_repeated", "cashouts[1].seat")
    assert "seat 3 cashed out at cashouts[0] already" in refusal.message


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"tournament_id": "T1"}, "a tournament's"),
        ({"board": None, "boards": [["8d", "9h", "2c", "Ts", "Qh"], ["8d", "9h", "2c", "As", "Ah"]]}, "run more than"),
    ],
)
def test_a_cash_out_outside_a_contested_cash_hand_run_once_is_refused(fields: dict[str, Any], says: str) -> None:
    doc = ggpoker_kings() | fields
    refusal = refused({k: v for k, v in doc.items() if v is not None})
    assert refusal.code == "bad_cashout"
    assert says in refusal.message


def test_a_refused_cash_out_is_a_rejection_with_its_reason_code_and_nothing_is_paid() -> None:
    doc = ggpoker_kings(amount=22119)
    out, err = io.StringIO(), io.StringIO()
    assert adjudicate_lines(iter([json.dumps(doc) + "\n"]), out, err) == 1
    assert out.getvalue() == ""
    rejected = json.loads(err.getvalue())
    assert (rejected["code"], rejected["field"]) == ("cashout_mismatch", "cashouts[0].amount")
    assert "expected 22118" in rejected["message"]
    assert "stated 22119" in rejected["message"]


def test_through_a_worker_a_cash_out_settles_and_a_bad_offer_is_a_dead_letter(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    """The worker's own path: the good offer's result carries the cash-out; the bad one (a cent over the
    rooms' figure) is dead-lettered cashout_mismatch and nothing of it is settled."""
    settings = make_settings()
    keys = settings.keys("default")
    bad = ggpoker_kings(amount=22119) | {"hand_id": "HD149101-bad"}
    fake.xadd(keys.events, {"event": json.dumps(ggpoker_kings())})
    fake.xadd(keys.events, {"event": json.dumps(bad)})
    worker = Worker(settings, fake)
    worker.run(until_idle=True)
    ((_, settled),) = read_range(fake, keys.results)
    result = json.loads(settled[b"result"])
    assert result["hand_id"] == "HD149101"
    assert [(c["seat"], c["amount"], c["house"]) for c in result["cashouts"]] == [(3, 22118, 2268)]
    assert {a["seat"]: a["amount"] for a in result["awards"]}[3] == 22118
    ((_, letter),) = read_range(fake, keys.dead)
    assert letter[b"code"] == b"cashout_mismatch"
    assert b"expected 22118" in letter[b"message"]
