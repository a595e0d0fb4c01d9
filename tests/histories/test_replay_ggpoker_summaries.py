"""GGPoker's tournament summaries (``Tournament #N, NAME, GAME`` ... ``1st : Hero, $7.50``): one player's rows.

The format as public parsers' tests show it: the head line, ``Buy-in: $2.50+$0.25+$2.50`` (the prize part first),
``3 Players``, ``Total Prize Pool: $7.50``, the player's own row ``1st : Hero, $7.50`` (a ticket ``5th : Hero, $50
Entry``), ``You finished the tournament in 1st place.``, ``You received a total of $7.50.``. Fixture
``tests/fixtures/replay/ggpoker/bounty_tournament_summary.txt``, written for this file from that format, of the
tournament in ``bounty_tournament.txt`` (Hero wins a three-player sit & go).
"""

from __future__ import annotations

from pathlib import Path

from showdown_service.histories.summaries import PLACE_ONLY, Summary, read_summary
from tests.helpers import FIXTURES, audit_tournaments

GG = FIXTURES / "replay" / "ggpoker"
HANDS = (GG / "bounty_tournament.txt").read_text(encoding="utf-8")
SUMMARY = (GG / "bounty_tournament_summary.txt").read_text(encoding="utf-8")


def test_a_ggpoker_summary_is_read_as_one_players_rows() -> None:
    summary = read_summary(SUMMARY, "s.txt")
    assert isinstance(summary, Summary)
    assert (summary.room, summary.tournament_id, summary.players, summary.pool, summary.buy_in, summary.partial) == (
        "ggpoker", "900001", 3, 750, 250, True
    )  # fmt: skip
    assert [(r.place, r.player, r.prize, r.award, r.line) for r in summary.rows] == [(1, "Hero", 750, "", 6)]
    assert [(f.place, f.player, f.award, f.line) for f in summary.finishes] == [(1, "Hero", PLACE_ONLY, 7)]
    ticket = read_summary(SUMMARY.replace("1st : Hero, $7.50", "5th : Hero, $50 Entry"), "t.txt")
    assert isinstance(ticket, Summary)
    assert [(r.place, r.prize, r.award) for r in ticket.rows] == [(5, None, "$50 Entry")]
    bad = read_summary(SUMMARY.replace("1st : Hero, $7.50", "1st : Hero, $7.5x"), "b.txt")
    assert not isinstance(bad, Summary)
    assert str(bad) == "b.txt:6: '$7.5x' is not an amount (row '1st : Hero, $7.5x')"


def test_a_ggpoker_tournament_is_audited_against_its_summary(tmp_path: Path) -> None:
    status, _, audits = audit_tournaments(tmp_path, {"hands.txt": HANDS, "summary.txt": SUMMARY})
    assert status == 0  # the summary given by name is no file of unknown format
    [audit] = audits
    assert (audit["room"], audit["tournament_id"], audit["status"], audit["differences"]) == (
        "ggpoker", "900001", "match", []
    )  # fmt: skip
    assert "not the prizes against the prize pool: the summary lists its own player's rows only" in audit["checked"]
    # one player's row is no payout table: the places are the ledger's, the prizes unknown
    assert [(p["player"], p["place"], p["prize"]) for p in audit["places"]] == [
        ("Hero", 1, None), ("7a13c8e8", 2, None), ("626f7725", 3, None)
    ]  # fmt: skip


def test_a_ggpoker_summary_with_a_doctored_place_or_pool_is_a_difference(tmp_path: Path) -> None:
    status, _, audits = audit_tournaments(
        tmp_path, {"hands.txt": HANDS, "summary.txt": SUMMARY.replace("1st : Hero", "2nd : Hero")}
    )
    assert status == 1
    assert [(d["kind"], d["detail"]) for d in audits[0]["differences"]] == [
        ("summary place", "line 6: the summary places Hero 2; the hands give 1"),
        ("summary place", "line 7: the summary says Hero finished 1; it gives them row 2 at line 6"),
    ]
    short = SUMMARY.replace("Total Prize Pool: $7.50", "Total Prize Pool: $7.00")
    status, _, audits = audit_tournaments(tmp_path, {"hands.txt": HANDS, "summary.txt": short})
    assert status == 1
    field = "3 entries at 250 prize each put 750 in; the prize pool is 700"
    assert {"kind": "prize pool", "hand_id": None, "detail": field} in audits[0]["differences"]


def test_a_ggpoker_summary_is_never_paired_with_another_rooms_hands_of_its_number(tmp_path: Path) -> None:
    stars = (GG.parent / "tournament" / "hands.txt").read_text(encoding="utf-8").replace("80000001", "900001")
    status, _, audits = audit_tournaments(tmp_path, {"stars.txt": stars, "summary.txt": SUMMARY})
    assert status == 0
    assert [(a["room"], a["hands"], a["status"]) for a in audits] == [
        ("ggpoker", 0, "incomplete"), ("pokerstars", 3, "match")
    ]  # fmt: skip
    assert "the hands of pokerstars tournament 900001 are another room's" in audits[0]["checked"][0]
    assert not [c for c in audits[1]["checked"] if "summary" in c]  # the PokerStars tournament has no summary here
