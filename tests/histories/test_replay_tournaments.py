"""Whole tournaments (issue 27, item 2): summaries paired by room and tournament id, a knockout rebuy's bounty,
and the bounty checks that run when a history gives no bounty on the heads.

Fixtures: ``tests/fixtures/replay/tournament/`` (PokerStars, written from the format), the Full Tilt sit & go
(``tests/fixtures/replay/fulltilt/``), and ``tests/fixtures/replay/tournament/pko_rebuy.txt`` (a progressive
knockout with a rebuy, written from PokerStars' format for this file).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from showdown_service.histories.compare import Verdict, judge
from showdown_service.histories.errors import ReplayError
from showdown_service.histories.hands import HandRecord, Purchase
from showdown_service.histories.run import read_file
from tests.helpers import FIXTURES, audit_tournaments

FIXTURES = FIXTURES / "replay"
STARS = FIXTURES / "tournament"
TILT = FIXTURES / "fulltilt"


def _report(tmp_path: Path, files: dict[str, str]) -> tuple[int, dict[tuple[str, str], dict[str, Any]]]:
    """Write ``files`` into a folder, audit them, and return the exit status and the report's lines by (room, id)."""
    status, _, lines = audit_tournaments(tmp_path, files)
    return status, {(line["room"], line["tournament_id"]): line for line in lines}


def _tilt(name: str) -> str:
    """A Full Tilt fixture renumbered to PokerStars' tournament id 80000001."""
    return (TILT / name).read_text(encoding="utf-8").replace("600000001", "80000001")


def _stars(name: str) -> str:
    return (STARS / name).read_text(encoding="utf-8")


# -- summaries are paired by room and tournament id ---------------------------------------------------


def test_two_rooms_tournaments_with_the_same_id_each_audited_against_its_own_summary(tmp_path: Path) -> None:
    status, audits = _report(tmp_path, {
        "stars_hands.txt": _stars("hands.txt"), "stars_summary.txt": _stars("summary.txt"),
        "tilt_hands.txt": _tilt("sit_and_go.txt"), "tilt_summary.txt": _tilt("sit_and_go_summary.txt"),
    })  # fmt: skip
    assert status == 0
    assert set(audits) == {("fulltilt", "80000001"), ("pokerstars", "80000001")}
    stars, tilt = audits["pokerstars", "80000001"], audits["fulltilt", "80000001"]
    assert (stars["status"], stars["differences"]) == ("match", [])
    assert [(p["player"], p["place"], p["prize"]) for p in stars["places"]] == [
        ("Ada", 1, 1040), ("Ben", 2, 560), ("Cal", 3, 0), ("Dee", 4, 0)
    ]  # fmt: skip
    assert (tilt["status"], tilt["differences"]) == ("match", [])
    assert [(p["player"], p["place"], p["prize"]) for p in tilt["places"]] == [
        ("Ann", 1, 1050), ("Bob", 2, 450), ("Cid", 3, 0)
    ]  # fmt: skip
    assert "the summary's payout table and prize pool" in stars["checked"]
    assert "the summary's payout table and prize pool" in tilt["checked"]


def test_a_pokerstars_summary_is_never_paired_with_full_tilt_hands_of_the_same_id(tmp_path: Path) -> None:
    # by the id alone, PokerStars' summary (Ada, Ben, Cal, Dee; 4 players) would audit Full Tilt's Ann, Bob and Cid
    status, audits = _report(tmp_path, {"stars_summary.txt": _stars("summary.txt"),
                                        "tilt_hands.txt": _tilt("sit_and_go.txt")})  # fmt: skip
    assert status == 0
    tilt, stars = audits["fulltilt", "80000001"], audits["pokerstars", "80000001"]
    assert (tilt["status"], tilt["differences"]) == ("match", [])  # placed from its hands, no prize known
    assert [(p["player"], p["place"], p["prize"]) for p in tilt["places"]] == [
        ("Ann", 1, None), ("Bob", 2, None), ("Cid", 3, None)
    ]  # fmt: skip
    assert "the summary's payout table and prize pool" not in tilt["checked"]
    # the summary is not lost: its own line, its own checks, and the other room's hands named
    assert (stars["hands"], stars["status"], stars["places"], stars["differences"]) == (0, "incomplete", [], [])
    assert stars["checked"] == [
        "no hands of this tournament among the paths (the hands of fulltilt tournament 80000001 are another "
        "room's): the summary alone",
        "the summary's payout table and prize pool",
    ]
    # the other way round: Full Tilt's summary and PokerStars' hands
    status, audits = _report(tmp_path, {"stars_hands.txt": _stars("hands.txt"),
                                        "tilt_summary.txt": _tilt("sit_and_go_summary.txt")})  # fmt: skip
    assert status == 0
    stars, tilt = audits["pokerstars", "80000001"], audits["fulltilt", "80000001"]
    assert (stars["status"], stars["differences"]) == ("match", [])
    assert [p["prize"] for p in stars["places"]] == [1040, 560, 0, 0]  # the prizes the hands print
    assert (tilt["hands"], tilt["status"]) == (0, "incomplete")


def test_a_summary_alone_still_has_its_payout_table_checked(tmp_path: Path) -> None:
    off = _stars("summary.txt").replace("$5.60 (35%)", "$5.00 (35%)")
    status, audits = _report(tmp_path, {"summary.txt": off})
    assert status == 1
    [alone] = audits.values()
    assert (alone["room"], alone["hands"], alone["status"]) == ("pokerstars", 0, "mismatch")
    assert {d["kind"] for d in alone["differences"]} == {"payout table", "prize pool"}


def test_two_summaries_of_one_room_and_id_that_disagree_are_a_difference_naming_both_files(tmp_path: Path) -> None:
    swapped = (
        _stars("summary.txt")
        .replace("3: Cal (France),", "3: Dee (Spain),X")
        .replace("4: Dee (Spain),", "4: Cal (France),")
    )
    status, audits = _report(tmp_path, {"hands.txt": _stars("hands.txt"), "a_summary.txt": _stars("summary.txt"),
                                        "b_summary.txt": swapped.replace("X", "")})  # fmt: skip
    assert status == 1
    [audit] = audits.values()
    folder = tmp_path / "paths"
    assert audit["status"] == "mismatch"
    assert audit["differences"] == [{
        "kind": "summary conflict", "hand_id": None,
        "detail": f"two summaries of pokerstars tournament 80000001 disagree: {folder / 'a_summary.txt'} (line 1) "
        f"and {folder / 'b_summary.txt'} (line 1); neither is used",
    }]  # fmt: skip
    assert [p["prize"] for p in audit["places"]] == [1040, 560, 0, 0]  # the hands' printed prizes, no summary
    # the same summary in two files is one summary
    status, audits = _report(tmp_path, {"hands.txt": _stars("hands.txt"), "a_summary.txt": _stars("summary.txt"),
                                        "b_summary.txt": _stars("summary.txt")})  # fmt: skip
    assert status == 0
    [audit] = audits.values()
    assert (audit["status"], audit["differences"]) == ("match", [])
    assert "the summary's payout table and prize pool" in audit["checked"]
    # two disagreeing summaries without hands: still a difference, on the summaries' own line
    status, audits = _report(tmp_path, {"a_summary.txt": _stars("summary.txt"),
                                        "b_summary.txt": swapped.replace("X", "")})  # fmt: skip
    assert status == 1
    [audit] = audits.values()
    assert [d["kind"] for d in audit["differences"]] == ["summary conflict"]


# -- a progressive knockout's rebuy buys a bounty -------------------------------------------------------


def _pko(tmp_path: Path, hands: str | None = None) -> tuple[int, dict[str, Any]]:
    status, audits = _report(tmp_path, {
        "hands.txt": hands if hands is not None else _stars("pko_rebuy.txt"),
        "summary.txt": _stars("pko_rebuy_summary.txt"),
    })  # fmt: skip
    return status, audits["pokerstars", "80000002"]


def test_pko_rebuy_buys_a_fresh_bounty_and_the_awards_after_it_are_checked(tmp_path: Path) -> None:
    [rebought] = [r for r in read_file(str(STARS / "pko_rebuy.txt"))[1] if isinstance(r, HandRecord) and r.purchases]
    # $2.00+$2.00+$0.40: a rebuy for $4.00 is the prize and the bounty: a fresh $2 bounty on Ben's head
    assert rebought.purchases == (Purchase("Ben", "rebuy", 1500, "$4.00", 36, True, 200),)
    status, audit = _pko(tmp_path)
    assert status == 0
    assert (audit["status"], audit["differences"]) == ("match", [])
    assert "places, prizes and bounties through the tournament ledger" in audit["checked"]
    assert audit["places"] == [
        # Ben's $4 head (his $2 and the rebuy's $2): $2 cash; Cal's $2: $1 cash; then her own $5 head
        {"player": "Ada", "place": 1, "prize": 520, "bounty": 800},
        {"player": "Cal", "place": 2, "prize": 280, "bounty": 0},
        {"player": "Ben", "place": 3, "prize": 0, "bounty": 0},
    ]  # the bounty money put up (3 x $2 + the rebuy's $2) is the bounty money paid


def test_pko_rebuy_a_doctored_award_after_the_rebuy_is_a_difference(tmp_path: Path) -> None:
    # paid as if the rebuy had bought no bounty: half of $2, not half of $4
    doctored = _stars("pko_rebuy.txt").replace(
        "Ada wins $2 for eliminating Ben and their own bounty increases by $2 to $4",
        "Ada wins $1 for eliminating Ben and their own bounty increases by $1 to $3",
    )
    status, audit = _pko(tmp_path, doctored)
    assert status == 1
    assert audit["status"] == "mismatch"
    [hand] = [d for d in audit["differences"] if d["kind"] == "hand"]
    assert hand["hand_id"] == "pokerstars:400000000002"
    assert "bounty for eliminating Ben" in hand["detail"]
    assert {"kind": "bounty", "hand_id": None,
            "detail": "Ada's bounty lines add up to 200; the rules pay 300 for knockouts (800 in all, their own "
            "bounty included when they win)"} in audit["differences"]  # fmt: skip
    # a head that did not grow by the rebuy's bounty: the ledger, which added it, refuses the hand
    unchanged = _stars("pko_rebuy.txt").replace("Ben (2000 in chips, $4 bounty)", "Ben (2000 in chips, $2 bounty)")
    status, audit = _pko(tmp_path, unchanged)
    assert status == 1
    [ledger] = [d for d in audit["differences"] if d["kind"] == "ledger"]
    assert ledger["hand_id"] == "pokerstars:400000000002"
    assert "bounty" in ledger["detail"]


def test_pko_rebuy_whose_cost_does_not_tell_its_bounty_is_followed_without_the_ledger(tmp_path: Path) -> None:
    coins = _stars("pko_rebuy.txt").replace("for $4.00", "for 400 StarsCoin")
    status, audit = _pko(tmp_path, coins)
    assert status == 0
    assert (audit["status"], audit["differences"]) == ("incomplete", [])
    assert (
        "not the places and bounties through the ledger: the bounty Ben's purchase for 400 StarsCoin buys cannot be "
        "told from the buy-in (line 36 of hand pokerstars:400000000002)"
    ) in audit["checked"]
    prize_only = _stars("pko_rebuy.txt").replace("for $4.00", "for $2.40")  # the prize and the fee: no bounty
    [rebought] = [r for r in _records(prize_only, tmp_path) if r.purchases]
    assert rebought.purchases[0].bounty == 0


def _records(text: str, tmp_path: Path) -> list[HandRecord]:
    path = tmp_path / "records.txt"
    path.write_text(text, encoding="utf-8")
    return [r for r in read_file(str(path))[1] if isinstance(r, HandRecord)]


# -- knockout lines without the bounties on the heads -----------------------------------------------------

HEADLESS = """\
PokerStars Hand #400000000101: Tournament #80000003, $2.00+$2.00+$0.40 USD Hold'em No Limit - Level V (50/100) - \
2026/11/25 14:00:00 ET
Table '80000003 1' 9-max Seat #4 is the button
Seat 1: Ada (1000 in chips)
Seat 2: Ben (3000 in chips)
Seat 3: Cal (5000 in chips)
Seat 4: Dee (5000 in chips)
Ada: posts small blind 50
Ben: posts big blind 100
*** HOLE CARDS ***
Cal: raises 200 to 300
Dee: folds
Ada: raises 700 to 1000 and is all-in
Ben: raises 2000 to 3000 and is all-in
Cal: calls 2700
*** FLOP *** [2c 7d 9s]
*** TURN *** [2c 7d 9s] [3h]
*** RIVER *** [2c 7d 9s 3h] [4c]
*** SHOW DOWN ***
Ada: shows [Ah Ad] (a pair of Aces)
Ben: shows [Qs Qh] (a pair of Queens)
Cal: shows [Kc Kd] (a pair of Kings)
Cal collected 4000 from side pot
Ada collected 3000 from main pot
Cal wins $1.26 for eliminating Ben and their own bounty increases by $1.25 to $3.25
Ben finished the tournament in 12th place
*** SUMMARY ***
Total pot 7000 Main pot 3000. Side pot 4000. | Rake 0
Board [2c 7d 9s 3h 4c]
Seat 1: Ada (small blind) showed [Ah Ad] and won (3000) with a pair of Aces
Seat 2: Ben (big blind) showed [Qs Qh] and lost with a pair of Queens
Seat 3: Cal showed [Kc Kd] and won (4000) with a pair of Kings
Seat 4: Dee (button) folded before Flop (didn't bet)
"""
"""A progressive knockout written as PokerStars writes one without seat bounties (the Wikipedia article "Hand
history" shows one of 2016: ``$2.00+$2.00+$0.40``, ``wins $1 for eliminating Hero and their own bounty increases by
$1 to $6``); Ada wins the main pot, Cal the side pot that held Ben's last chips."""

CAL_LINE = "Cal wins $1.26 for eliminating Ben and their own bounty increases by $1.25 to $3.25"


def _judged(tmp_path: Path, text: str) -> Verdict:
    [record] = _records(text, tmp_path)
    assert record.event is not None
    assert record.event.players[0].bounty is None  # no bounty on the heads
    return judge(record)


def test_knockout_lines_without_heads_are_checked_against_the_relevant_pot_and_the_halves(tmp_path: Path) -> None:
    verdict = _judged(tmp_path, HEADLESS)
    assert (verdict.status, verdict.kind) == ("match", "bounties without heads")
    assert verdict.reason == (
        "knockout lines checked without the bounties on the heads (the history gives none): the winners are the "
        "relevant pot's, the division and the cash and added parts the rules' for the bounty the lines add up to, "
        "no head below the buy-in's $2.00"
    )


def test_knockout_lines_without_heads_a_bounty_to_a_player_who_won_another_pot_or_folded(tmp_path: Path) -> None:
    for winner in ("Ada", "Dee"):  # Ada won the main pot only; Dee folded
        verdict = _judged(tmp_path, HEADLESS.replace(CAL_LINE, CAL_LINE.replace("Cal wins", f"{winner} wins")))
        assert (verdict.status, verdict.kind) == ("mismatch", "bounty award")
        assert verdict.reason == (
            f"bounty for eliminating Ben: the history pays {winner}; {winner} won no part of the pot that held "
            "Ben's last chips (the rules' winners of that pot: Cal)"
        )
    verdict = _judged(tmp_path, HEADLESS.replace(CAL_LINE, CAL_LINE.replace("eliminating Ben", "eliminating Ada")))
    assert verdict.status == "mismatch"
    assert verdict.reason == "the history pays a bounty for eliminating Ada; the rules do not eliminate Ada"


def test_knockout_lines_without_heads_the_odd_cent_and_the_buy_in_floor(tmp_path: Path) -> None:
    odd_cent = "Cal wins $1.25 for eliminating Ben and their own bounty increases by $1.26 to $3.26"
    verdict = _judged(tmp_path, HEADLESS.replace(CAL_LINE, odd_cent))
    assert (verdict.status, verdict.kind) == ("mismatch", "bounty award")
    assert verdict.reason == (
        "bounty for eliminating Ben: recorded Cal $1.25 cash + $1.26 added; of the $2.51 the lines add up to, the "
        "rules give $1.26 cash + $1.25 added"
    )  # PokerStars' odd cent is on the cash side
    below = "Cal wins $0.76 for eliminating Ben and their own bounty increases by $0.75 to $2.75"
    verdict = _judged(tmp_path, HEADLESS.replace(CAL_LINE, below))
    assert verdict.reason == (
        "the bounty for eliminating Ben adds up to $1.51 in the history's lines, below the buy-in's $2.00 (a head "
        "starts with it and only grows)"
    )
    poor = "Cal wins $1.26 for eliminating Ben and their own bounty increases by $1.25 to $2.75"
    verdict = _judged(tmp_path, HEADLESS.replace(CAL_LINE, poor))
    assert verdict.reason == "Cal's own bounty before eliminating Ben was $1.50 by line 24, below the buy-in's $2.00"
    # a buy-in of two amounts states no bounty: the floor is not checked, the rest is
    two = HEADLESS.replace("$2.00+$2.00+$0.40 USD", "$4.00+$0.40 USD").replace(CAL_LINE, below)
    verdict = _judged(tmp_path, two)
    assert verdict.status == "match", verdict.reason
    assert "no head below" not in verdict.reason


# -- GGPoker: no bounty on the heads, no knockout lines ---------------------------------------------------

GG_BOUNTY = FIXTURES / "ggpoker" / "bounty_tournament.txt"


def test_ggpoker_bounty_tournament_prints_no_bounty_and_is_audited_from_its_chips(tmp_path: Path) -> None:
    records = _records(GG_BOUNTY.read_text(encoding="utf-8"), tmp_path)
    assert [r.hand_id for r in records] == ["ggpoker:TM2003", "ggpoker:TM2002", "ggpoker:TM2001"]  # newest first
    for record in records:
        assert record.event is not None
        assert (record.bounties, record.event.bounty_cash_ppm, record.event.players[0].bounty) == ((), None, None)
        verdict = judge(record)
        assert verdict.status == "match", verdict.reason
        assert "bounty_awards" not in verdict.expected  # nothing written to check ...
    assert [b["player"] for r in records for b in judge(r).computed["places"]] == ["7a13c8e8", "626f7725"]
    status, audits = _report(tmp_path, {"gg.txt": GG_BOUNTY.read_text(encoding="utf-8")})
    assert status == 0
    audit = audits["ggpoker", "900001"]
    assert (audit["hands"], audit["status"], audit["differences"]) == (3, "match", [])
    assert audit["places"] == [  # ... but the eliminations and places are the rules', from the stacks
        {"player": "Hero", "place": 1, "prize": None, "bounty": None},
        {"player": "7a13c8e8", "place": 2, "prize": None, "bounty": None},
        {"player": "626f7725", "place": 3, "prize": None, "bounty": None},
    ]
    assert "no bounties: the hands give no bounty on the heads and write no knockout line" in audit["checked"]
    # a chip that appears between two GGPoker hands is still a difference
    doctored = GG_BOUNTY.read_text(encoding="utf-8").replace("Hero (4,030 in chips)", "Hero (4,130 in chips)")
    status, audits = _report(tmp_path, {"gg.txt": doctored})
    assert status == 1
    chips = [d["detail"] for d in audits["ggpoker", "900001"]["differences"] if d["kind"] == "chips"]
    assert chips[0] == (
        "Hero starts hand ggpoker:TM2003 with 4130 chips but ended hand ggpoker:TM2002 at this table with 4030"
    )


KNOCKOUT_LINE = "Hero wins $2 for eliminating 626f7725 and their own bounty increases by $2 to $4"


def test_ggpoker_a_knockout_line_ggpoker_does_not_write_is_refused_naming_the_line(tmp_path: Path) -> None:
    text = GG_BOUNTY.read_text(encoding="utf-8").replace(
        "Hero collected 2,990 from pot\n",
        "Hero collected 2,990 from pot\n" + KNOCKOUT_LINE + "\n",
    )
    path = tmp_path / "gg.txt"
    path.write_text(text, encoding="utf-8")
    [refused] = [r for r in read_file(str(path))[1] if isinstance(r, ReplayError)]
    assert str(refused) == (
        f"{path}:46: hand ggpoker:TM2002: not a line of a GGPoker hand: 'Hero wins $2 for eliminating 626f7725 and "
        "their own bounty increases by $2 to $4'"
    )


# -- the field against the prize pool -------------------------------------------------------------------


def test_a_field_that_does_not_add_up_to_the_prize_pool_is_a_difference(tmp_path: Path) -> None:
    # 4 entries at a $4.00 prize part put $16.00 in: a $15.00 pool lost a dollar of the field's money
    short = _stars("summary.txt").replace("Total Prize Pool: $16.00 USD", "Total Prize Pool: $15.00 USD")
    status, audits = _report(tmp_path, {"hands.txt": _stars("hands.txt"), "summary.txt": short})
    assert status == 1
    audit = audits["pokerstars", "80000001"]
    short_pool = "4 entries at 400 prize each put 1600 in; the prize pool is 1500"
    assert {"kind": "prize pool", "hand_id": None, "detail": short_pool} in audit["differences"]
    # Full Tilt's 'Buy-In: $5 + $0.50' and '3 Entries': the same check
    tilt = _tilt("sit_and_go_summary.txt").replace("3 Entries", "4 Entries")
    status, audits = _report(tmp_path, {"hands.txt": _tilt("sit_and_go.txt"), "summary.txt": tilt})
    tilt_pool = "4 entries at 500 prize each put 2000 in; the prize pool is 1500"
    assert {"kind": "prize pool", "hand_id": None, "detail": tilt_pool} in audits["fulltilt", "80000001"]["differences"]
    # more in the pool than the field put in (a rebuy's prize part here): noted, not a difference
    status, audits = _report(tmp_path, {"hands.txt": _stars("pko_rebuy.txt"),
                                        "summary.txt": _stars("pko_rebuy_summary.txt")})  # fmt: skip
    assert status == 0
    assert (
        "the prize pool (800) is 200 more than the 3 entries' prize money (600): a guarantee's overlay, or rebuys "
        "and add-ons"
    ) in audits["pokerstars", "80000002"]["checked"]


def test_an_open_tournament_summary_buy_in_is_checked_against_its_prize_pool(tmp_path: Path) -> None:
    hands, summary = (OHH / "two_hands.ohh").read_text(encoding="utf-8"), (OHH / "knockout_777.ots").read_text("utf-8")
    # "buyin_amount": 10 (the prize part; "fee_amount" and "bounty_fee_amount" apart), "player_count": 2, pool 20
    status, audits = _open_audits(tmp_path, {"a.ohh": hands, "a.ots": summary})
    assert (status, audits[0]["status"], audits[0]["differences"]) == (0, "match", [])
    short = summary.replace('"buyin_amount": 10,', '"buyin_amount": 12,')
    status, audits = _open_audits(tmp_path, {"a.ohh": hands, "a.ots": short})
    assert status == 1
    field = "2 entries at 1200 prize each put 2400 in; the prize pool is 2000"
    assert {"kind": "prize pool", "hand_id": None, "detail": field} in audits[0]["differences"]
    over = summary.replace('"buyin_amount": 10,', '"buyin_amount": 8,')
    status, audits = _open_audits(tmp_path, {"a.ohh": hands, "a.ots": over})
    assert (status, audits[0]["status"]) == (0, "match")
    assert any(c.startswith("the prize pool (2000) is 400 more than the 2 entries' prize money (1600)")
               for c in audits[0]["checked"])  # fmt: skip
    bad = summary.replace('"buyin_amount": 10,', '"buyin_amount": "ten",')
    status, audits = _open_audits(tmp_path, {"a.ohh": hands, "a.ots": bad})
    assert status == 1
    [unreadable] = [d for a in audits for d in a["differences"] if d["kind"] == "summary unreadable"]
    assert "buyin_amount: 'ten' is not an amount" in unreadable["detail"]


# -- a tournament over several tables ---------------------------------------------------------------------


def _two_tables(tmp_path: Path, hands: str | None = None) -> dict[str, Any]:
    _, audits = _report(tmp_path, {
        "hands.txt": hands if hands is not None else _stars("two_tables.txt"),
        "summary.txt": _stars("two_tables_summary.txt"),
    })  # fmt: skip
    return audits["pokerstars", "80000004"]


def test_a_tournament_over_two_tables_goes_through_the_ledger_across_tables(tmp_path: Path) -> None:
    audit = _two_tables(tmp_path)  # Ben busts at table 1, Dee at table 2, Cal moves to table 1 for the final
    assert (audit["status"], audit["differences"]) == ("match", [])
    assert "places, prizes and bounties through the tournament ledger" in audit["checked"]
    assert [(p["player"], p["place"], p["prize"]) for p in audit["places"]] == [
        ("Ada", 1, 1040), ("Cal", 2, 560), ("Dee", 3, 0), ("Ben", 4, 0)
    ]  # fmt: skip
    # a chip that appears as Cal moves tables: no table sees it (Cal is new at table 1), the ledger does
    moved = _stars("two_tables.txt").replace("Seat 3: Cal (3000 in chips)", "Seat 3: Cal (3100 in chips)")
    moved = moved.replace("Cal: raises 2970 to 3000 and is all-in", "Cal: raises 3070 to 3100 and is all-in")
    moved = moved.replace("Ada: calls 2970", "Ada: calls 2970 and is all-in")
    moved = moved.replace("*** FLOP *** [2c", "Uncalled bet (100) returned to Cal\n*** FLOP *** [2c")
    audit = _two_tables(tmp_path, moved)
    assert audit["status"] == "mismatch"
    assert {
        "kind": "ledger",
        "hand_id": "pokerstars:500000000003",
        "detail": "players[1] (seat 3): 'Cal' (entry 1) starts the hand with 3100 chips here but the ledger has 3000 "
        "after their previous hand",
    } in audit["differences"]
    assert not [d for d in audit["differences"] if d["kind"] == "chips"]


def test_a_tournament_over_two_tables_missing_a_tables_first_hands_is_incomplete(tmp_path: Path) -> None:
    text = _stars("two_tables.txt")
    without_table_2 = (
        text[: text.index("PokerStars Hand #500000000002")] + text[text.index("PokerStars Hand #500000000003") :]
    )
    audit = _two_tables(tmp_path, without_table_2)  # Cal first seen at table 1's third hand, Dee never
    assert (audit["status"], audit["differences"]) == ("incomplete", [])


# -- the open formats: the room is the site they name ------------------------------------------------------

OHH = FIXTURES / "ohh"


def _open(site: str | None, text: str) -> str:
    """``text`` (an .ohh or .ots document) naming ``site`` as its site_name, or no site at all (``None``)."""
    if site is None:
        return text.replace('"site_name": "Example Room", "network_name": "Example Network", ', "")
    return text.replace('"site_name": "Example Room"', f'"site_name": "{site}"')


def _open_audits(tmp_path: Path, files: dict[str, str]) -> tuple[int, list[dict[str, Any]]]:
    status, _, lines = audit_tournaments(tmp_path, files)
    return status, lines


def test_open_hand_histories_of_two_sites_with_one_tournament_number_are_two_tournaments(tmp_path: Path) -> None:
    hands = (OHH / "two_hands.ohh").read_text(encoding="utf-8")
    summary = (OHH / "knockout_777.ots").read_text(encoding="utf-8")
    status, audits = _open_audits(tmp_path, {
        "a.ohh": hands, "a.ots": summary,
        "b.ohh": _open("Other Room", hands),  # tournament 777 of another site, and no summary of it
    })  # fmt: skip
    assert status == 0
    assert [(a["room"], a.get("site"), a["tournament_id"], a["status"]) for a in audits] == [
        ("ohh", "Example Room", "777", "match"),
        ("ohh", "Other Room", "777", "match"),
    ]
    assert "the summary's payout table and prize pool" in audits[0]["checked"]  # Example Room's summary ...
    assert [p["prize"] for p in audits[1]["places"]] == [None, None]  # ... is not Other Room's


def test_an_open_summary_whose_site_cannot_be_told_is_a_difference_naming_both_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hands = (OHH / "two_hands.ohh").read_text(encoding="utf-8")
    summary = (OHH / "knockout_777.ots").read_text(encoding="utf-8")
    status, audits = _open_audits(tmp_path, {"a.ohh": hands, "a.ots": _open(None, summary)})
    assert status == 1
    summary_line, hands_line = audits  # the key without a site sorts first
    out = capsys.readouterr().out
    assert "  ohh 777: mismatch (0 hands, 0 places)\n    summary room: " in out
    assert "  ohh (Example Room) 777: match (1 hands, 2 places)\n" in out
    assert (hands_line.get("site"), hands_line["status"]) == ("Example Room", "match")  # audited without it
    assert "the summary's payout table and prize pool" not in hands_line["checked"]
    assert (summary_line.get("site"), summary_line["hands"], summary_line["status"]) == (None, 0, "mismatch")
    folder = tmp_path / "paths"
    assert summary_line["differences"] == [{
        "kind": "summary room", "hand_id": None,
        "detail": f"{folder / 'a.ots'} (line 1) names no site; the ohh hands of tournament 777 in "
        f"{folder / 'a.ohh'} name site 'Example Room': whose tournament the summary is cannot be told, and it is "
        "paired with none",
    }]  # fmt: skip
    # neither names a site: nothing contradicts the pairing
    status, audits = _open_audits(tmp_path, {"a.ohh": _open(None, hands), "a.ots": _open(None, summary)})
    assert status == 0
    [audit] = audits
    assert (audit["status"], "site" in audit) == ("match", False)
    assert "the summary's payout table and prize pool" in audit["checked"]
