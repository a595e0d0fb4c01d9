"""PokerStars' All-in Cash Out lines read into the event's cashouts and checked by the replay (issue 39 item 3).

``NAME cashed out the hand for $X | Cash Out Fee $Y`` (after the show down; the seat's summary line ends ``(cashed
out)``): the offer is X, the fee rule Y / (X + Y) to the nearest half percent, the street the one the last bet was
made on (PokerStars offers the cash-out once the betting is over). The settlement checks X against (pot - rake) x
the exact equity less the fee; the comparison checks Y against the fee on the exact value. The format is read from
fpdb's public parser (jejellyroll-fr/fpdb-3); the fixture hands are written here, their amounts computed to fit
the rule: nothing in ../shared/data has these lines.
"""

from __future__ import annotations

from pathlib import Path

from showdown_service.histories.compare import Verdict
from showdown_service.histories.hands import HandRecord, StarsOutcome
from showdown_service.histories.pokerstars import read_pokerstars
from showdown_service.histories.run import replay_file
from showdown_service.histories.stated import fee_ppm_of
from tests.helpers import FIXTURES

CASHOUT = FIXTURES / "replay" / "pokerstars" / "cashout.txt"


def _verdicts(path: Path) -> list[Verdict]:
    return list(replay_file(str(path)).verdicts)


def _records() -> list[HandRecord]:
    records = list(read_pokerstars(CASHOUT.read_text(encoding="utf-8"), "cashout.txt"))
    assert all(isinstance(r, HandRecord) for r in records)
    return [r for r in records if isinstance(r, HandRecord)]


def _doctored(tmp_path: Path, old: str, new: str) -> Path:
    text = CASHOUT.read_text(encoding="utf-8")
    assert text.count(old) == 1
    copy = tmp_path / "cashout.txt"
    copy.write_text(text.replace(old, new), encoding="utf-8")
    return copy


def test_a_flop_and_a_turn_cash_out_are_read_with_their_street_amount_and_fee() -> None:
    # hand 1: three all-in on the flop [Kh 9s 4h], Ben (9c9d, 571/903) cashes out: $148 x 571/903 = $93.5858,
    # less 2% = $91.71, the fee $1.87; hand 2: Eve (8h8s) all-in on the turn [8c 7d 2s Jh] against JdTc, 10/11:
    # $78 x 10/11 = $70.909, less 2% = $69.49, the fee $1.42; both lose the run-out, which the winner collects
    flop, turn = _records()
    expected = [(flop, (2, "flop", 9171, 20_000, 187)), (turn, (2, "turn", 6949, 20_000, 142))]
    for record, (seat, street, amount, fee_ppm, fee) in expected:
        assert record.event is not None
        assert record.event.cashouts is not None
        [taken] = record.event.cashouts
        assert (taken.seat, taken.street, taken.amount, taken.fee_ppm) == (seat, street, amount, fee_ppm)
        assert isinstance(record.outcome, StarsOutcome)
        assert record.outcome.cashouts == ((seat, -amount),)  # the house paid the offer and kept nothing
        assert record.outcome.cashout_fees == ((seat, fee),)


def test_cash_outs_that_fit_the_rule_match() -> None:
    flop, turn = _verdicts(CASHOUT)
    assert (flop.status, turn.status) == ("match", "match"), (flop.reason, turn.reason)
    assert "seat 2 (Ben) cashed out on the flop for 9171" in flop.reason
    assert "seat 2 (Eve) cashed out on the turn for 6949" in turn.reason


def test_a_cash_out_amount_a_cent_off_the_rule_is_a_mismatch_naming_both(tmp_path: Path) -> None:
    copy = _doctored(tmp_path, "for $91.71 | Cash Out Fee $1.87", "for $91.72 | Cash Out Fee $1.87")
    flop, turn = _verdicts(copy)
    assert (flop.status, flop.kind) == ("mismatch", "cash-out")
    assert "seat 2 on the flop: expected 9171" in flop.reason
    assert "stated 9172" in flop.reason
    assert turn.status == "match"


def test_a_cash_out_fee_other_than_the_rules_is_a_mismatch(tmp_path: Path) -> None:
    # $1.97 is still 2% to the half percent (the amount checks), but 2% of $93.5858 is $1.87
    copy = _doctored(tmp_path, "Cash Out Fee $1.87", "Cash Out Fee $1.97")
    flop, _ = _verdicts(copy)
    assert (flop.status, flop.kind) == ("mismatch", "cash-out")
    assert "cash-out fee: recorded {2: 197}, rules give {2: 187}" in flop.reason


def test_a_turn_cash_out_priced_as_the_flops_is_a_mismatch(tmp_path: Path) -> None:
    # the street is the last bet's: Eve's $69.49 is the turn's 10/11, not the flop's (no bet on the turn)
    copy = _doctored(
        tmp_path, "Fay: bets $5\nEve: raises $31.50 to $36.50 and is all-in\nFay: calls $31.50\n", ""
    ).read_text(encoding="utf-8")
    copy = copy.replace("Eve: bets $2\nFay: calls $2\n", "Eve: bets $38.50 and is all-in\nFay: calls $38.50\n")
    path = tmp_path / "flop.txt"
    path.write_text(copy, encoding="utf-8")
    _, turn = _verdicts(path)
    assert (turn.status, turn.kind) == ("mismatch", "cash-out")
    assert "seat 2 on the flop: expected" in turn.reason


def test_a_pot_not_awarded_because_the_winner_cashed_out_is_unverifiable_with_the_reason(tmp_path: Path) -> None:
    copy = _doctored(
        tmp_path, "won ($78) with a straight, Seven to Jack", "won ($78) with a straight, Seven to Jack (pot not "
        "awarded as player cashed out)"
    )  # fmt: skip
    _, turn = _verdicts(copy)
    assert turn.status == "unverifiable"
    assert "'pot not awarded as player cashed out'" in turn.reason


def test_the_fee_rule_is_the_printed_fee_over_the_value_to_the_half_percent() -> None:
    assert fee_ppm_of(6949, 142) == 20_000
    assert fee_ppm_of(219, 2) == 10_000  # $2.19 | Cash Out Fee $0.02: 0.9%, 1% to the half percent
    assert fee_ppm_of(24, 0) == 0  # a fee that rounds to nothing is not printed
