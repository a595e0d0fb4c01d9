"""Open Hand History's ``cashout_amount`` and ``cashout_fee`` read into the event's cashouts and checked (issue 39
item 3).

hh-specs 1.4's ``player_wins`` entry: ``cashout_amount`` "the amount paid out to a player if they chose to cash out
of a hand instead of playing to showdown", ``cashout_fee`` its fee, ``win_amount`` still the run-out's. The standard
names no street: the reader takes the one the last bet, call, check or fold was made on. The hand is written here
(the heads-up turn hand of tests/fixtures/replay/pokerstars/cashout.txt): 8h8s all-in on [8c 7d 2s Jh] against
JdTc, 10/11 of $78 less 2% = $69.49, the fee $1.42.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from showdown_service.histories.compare import Verdict
from showdown_service.histories.hands import HandRecord, StarsOutcome
from showdown_service.histories.ohh import read_ohh
from showdown_service.histories.run import replay_file


def _hand(cashout: dict[str, Any]) -> dict[str, Any]:
    def act(n: int, player: int, action: str, amount: float | None = None, **more: Any) -> dict[str, Any]:
        return (
            {"action_number": n, "player_id": player, "action": action}
            | ({"amount": amount} if amount is not None else {})
            | more
        )

    return {"ohh": {
        "spec_version": "1.4.6", "site_name": "Example Room", "game_number": "2001", "tournament": False,
        "table_name": "Cash 1", "game_type": "Holdem", "bet_limit": {"bet_type": "NL"}, "table_size": 6,
        "currency": "USD", "dealer_seat": 2, "small_blind_amount": 0.25, "big_blind_amount": 0.5,
        "players": [{"id": 0, "seat": 2, "name": "Eve", "starting_stack": 40},
                    {"id": 1, "seat": 5, "name": "Fay", "starting_stack": 60}],
        "rounds": [
            {"id": 0, "street": "Preflop", "actions": [
                act(1, 0, "Post SB", 0.25), act(2, 1, "Post BB", 0.5), act(3, 0, "Raise", 1.25), act(4, 1, "Call", 1)]},
            {"id": 1, "street": "Flop", "cards": ["8c", "7d", "2s"], "actions": [
                act(5, 1, "Check"), act(6, 0, "Bet", 2), act(7, 1, "Call", 2)]},
            {"id": 2, "street": "Turn", "cards": ["Jh"], "actions": [
                act(8, 1, "Bet", 5), act(9, 0, "Raise", 36.5, is_allin=True), act(10, 1, "Call", 31.5)]},
            {"id": 3, "street": "River", "cards": ["9c"], "actions": []},
            {"id": 4, "street": "Showdown", "actions": [
                act(11, 0, "Shows Cards", cards=["8h", "8s"]), act(12, 1, "Shows Cards", cards=["Jd", "Tc"])]},
        ],
        "pots": [{"number": 0, "amount": 80, "rake": 2, "jackpot": 0, "player_wins": [
            {"player_id": 1, "win_amount": 78}, {"player_id": 0, "win_amount": 0} | cashout]}],
    }}  # fmt: skip


def _write(tmp_path: Path, cashout: dict[str, Any]) -> Path:
    path = tmp_path / "cashout.ohh"
    path.write_text(json.dumps(_hand(cashout)), encoding="utf-8")
    return path


def _verdict(path: Path) -> Verdict:
    [verdict] = replay_file(str(path)).verdicts
    return verdict


def test_cashout_amount_and_fee_are_read_on_the_street_of_the_last_bet_and_match(tmp_path: Path) -> None:
    path = _write(tmp_path, {"cashout_amount": 69.49, "cashout_fee": 1.42})
    [record] = read_ohh(path.read_text(encoding="utf-8"), "cashout.ohh")
    assert isinstance(record, HandRecord)
    assert record.event is not None
    assert record.event.cashouts is not None
    [taken] = record.event.cashouts
    assert (taken.seat, taken.street, taken.amount, taken.fee_ppm) == (2, "turn", 6949, 20_000)
    assert isinstance(record.outcome, StarsOutcome)
    assert record.outcome.cashout_fees == ((2, 142),)
    verdict = _verdict(path)
    assert verdict.status == "match", verdict.reason
    assert "seat 2 (Eve) cashed out on the turn for 6949" in verdict.reason


def test_a_cashout_amount_or_fee_off_the_rule_is_a_mismatch(tmp_path: Path) -> None:
    amount = _verdict(_write(tmp_path, {"cashout_amount": 69.59, "cashout_fee": 1.42}))
    assert (amount.status, amount.kind) == ("mismatch", "cash-out")
    assert "seat 2 on the turn: expected 6949" in amount.reason
    assert "stated 6959" in amount.reason
    fee = _verdict(_write(tmp_path, {"cashout_amount": 69.49, "cashout_fee": 1.52}))
    assert (fee.status, fee.kind) == ("mismatch", "cash-out")
    assert "cash-out fee: recorded {2: 152}, rules give {2: 142}" in fee.reason
