"""GGPoker's EV Cashout lines read into the event's cashouts and checked by the replay (issue 39 item 3).

``NAME: Chooses to EV Cashout`` tells the street (the board then dealt), ``NAME: Pays Cashout Risk ($X)`` what the
seat gave the house of its run-out (it won), ``NAME: Receives Cashout ($X)`` what the house paid it beyond its run-out
(it lost). The offer is what the seat ended with; the settlement checks it against (pot - rake) x the exact equity
less GGPoker's 1% fee, and the comparison checks the house's side. The real hands are in ../shared/data (MIT).
"""

from __future__ import annotations

from pathlib import Path

from showdown_service.histories.compare import Verdict
from showdown_service.histories.ggpoker import read_ggpoker
from showdown_service.histories.hands import HandRecord, StarsOutcome
from showdown_service.histories.run import replay_file
from tests.helpers import SHARED_DATA

ACTIONS = SHARED_DATA / "rooms-more" / "GGPoker" / "ItalyToast-PokerHandHistoryParser" / "CashGame" / "HandActionTests"


def _verdict(path: Path) -> Verdict:
    [verdict] = replay_file(str(path)).verdicts
    return verdict


def _record(text: str) -> HandRecord:
    [record] = read_ggpoker(text, "hand.txt")
    assert isinstance(record, HandRecord)
    return record


def _doctored(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = (ACTIONS / name).read_text(encoding="utf-8-sig")
    assert text.count(old) == 1
    copy = tmp_path / name
    copy.write_text(text.replace(old, new), encoding="utf-8")
    return copy


def test_pays_cashout_risk_is_read_as_the_offer_and_matches_the_exact_equity() -> None:
    # HD149101: KdKc (seat 3) covers 3d3h's all-in, chooses EV Cashout on the flop [8d 9h 2c], wins $243.86 and
    # 'Pays Cashout Risk ($22.68)': it ended with 221.18, (251.86 - 6 - 2) x 907/990 less 1%, to the cent
    record = _record((ACTIONS / "PaysCashoutFee.txt").read_text(encoding="utf-8-sig"))
    assert record.event is not None
    assert record.event.cashouts is not None
    [taken] = record.event.cashouts
    assert (taken.seat, taken.street, taken.amount, taken.fee_ppm) == (3, "flop", 22118, 10_000)
    assert isinstance(record.outcome, StarsOutcome)
    assert record.outcome.cashouts == ((3, 2268),)  # the house kept $22.68 of the run-out
    verdict = _verdict(ACTIONS / "PaysCashoutFee.txt")
    assert verdict.status == "match", verdict.reason
    assert "seat 3 (oiesfcv1) cashed out on the flop for 22118" in verdict.reason


def test_a_cashout_risk_a_cent_off_the_rule_is_a_mismatch_naming_both_amounts(tmp_path: Path) -> None:
    copy = _doctored(tmp_path, "PaysCashoutFee.txt", "Pays Cashout Risk ($22.68)", "Pays Cashout Risk ($22.69)")
    verdict = _verdict(copy)
    assert verdict.status == "mismatch"
    assert verdict.kind == "cash-out"
    assert "expected 22118" in verdict.reason
    assert "stated 22117" in verdict.reason


def test_the_uncalled_bet_hand_does_not_fit_its_written_turn_and_says_so() -> None:
    # HD434130: KsKd chooses EV Cashout on the turn [4d Ts 5h 6s] against AhKc: exact equity 41/44 (three aces),
    # (216.06 - 5 - 1) x 41/44 less 1% = 193.78; the history pays 210.06 - 35.19 = 174.87, which is 37/44 less 1%
    # to the cent (a turn on which AK had seven outs, not this one): a mismatch, never settled as written
    verdict = _verdict(ACTIONS / "UncalledBetAndPaysCashoutFee.txt")
    assert verdict.status == "mismatch"
    assert verdict.kind == "cash-out"
    assert "seat 4 on the turn: expected 19378" in verdict.reason
    assert "stated 17487" in verdict.reason


def test_receives_cashout_without_its_street_is_unverifiable_with_the_reason() -> None:
    verdict = _verdict(ACTIONS / "ReceivesCashout.txt")
    assert verdict.status == "unverifiable"
    assert "88989dfa's EV Cashout is paid" in verdict.reason
    assert "'Chooses to EV Cashout' is missing" in verdict.reason


def test_receives_cashout_is_what_the_house_paid_beyond_the_run_out(tmp_path: Path) -> None:
    # with its street written (the flop), 66 (seat 3, losing the run-out) ended with the $9.98 the house paid
    copy = _doctored(
        tmp_path, "ReceivesCashout.txt", "*** TURN *** [Ts Qc 4d] [9h]", "88989dfa: Chooses to EV Cashout\n"
        "*** TURN *** [Ts Qc 4d] [9h]"
    )  # fmt: skip
    record = _record(copy.read_text(encoding="utf-8"))
    assert record.event is not None
    assert record.event.cashouts is not None
    [taken] = record.event.cashouts
    assert (taken.seat, taken.street, taken.amount) == (3, "flop", 998)
    assert isinstance(record.outcome, StarsOutcome)
    assert record.outcome.cashouts == ((3, -998),)
    verdict = _verdict(copy)
    # 66 against Ah5h on [Ts Qc 4d]: 823/990; (16.07 - 0.77 - 0.50) x 823/990 less 1% = 12.18
    assert verdict.status == "mismatch"
    assert "expected 1218" in verdict.reason
    assert "stated 998" in verdict.reason


def test_an_ev_cashout_without_its_amount_stays_unverifiable(tmp_path: Path) -> None:
    copy = _doctored(tmp_path, "PaysCashoutFee.txt", "oiesfcv1: Pays Cashout Risk ($22.68)\n", "")
    verdict = _verdict(copy)
    assert verdict.status == "unverifiable"
    assert "oiesfcv1's EV Cashout amount is not written" in verdict.reason


# -- the Jackpot figure: GGPoker's Bad Beat Jackpot drop, checked against its program ---------------------------


def test_a_ggpoker_cash_hands_jackpot_drop_is_in_its_event_and_checked() -> None:
    # 1 big blind from pots of 30 big blinds or more; 'Jackpot $0' is not checked (the table may run no jackpot)
    general = ACTIONS.parent / "GeneralHands"
    hands = {"HD149101": (ACTIONS / "PaysCashoutFee.txt", 200, (100, 200)), "HD1587634": (general / "RunTwice.txt",
             100, (50, 100))}  # fmt: skip
    for hand_id, (path, drop, blinds) in hands.items():
        record = _record(path.read_text(encoding="utf-8-sig"))
        assert record.event is not None
        assert record.event.jackpot is not None, hand_id
        assert (record.event.jackpot.program, record.event.jackpot.drop) == ("ggpoker-bad-beat-holdem", drop)
        assert record.event.jackpot.jackpot_id == "ggpoker-bad-beat-USD"
        assert record.event.stakes is not None
        assert (record.event.stakes.small_blind, record.event.stakes.big_blind) == blinds
        assert _verdict(path).status == "match"
    no_drop = _record((ACTIONS / "PostingDead.txt").read_text(encoding="utf-8-sig"))
    assert no_drop.event is not None
    assert no_drop.event.jackpot is None


def test_a_jackpot_drop_other_than_the_programs_is_a_mismatch(tmp_path: Path) -> None:
    # $1 of HD149101's $2 drop moved to the rake: the pot adds up, but 125 big blinds drop 1 big blind ($2)
    copy = _doctored(tmp_path, "PaysCashoutFee.txt", "Rake $6 | Jackpot $2", "Rake $7 | Jackpot $1")
    verdict = _verdict(copy)
    assert verdict.status == "mismatch"
    assert verdict.kind == "jackpot drop"
    assert "drops 200 from a pot of 25186" in verdict.reason
    assert "stated 100" in verdict.reason
