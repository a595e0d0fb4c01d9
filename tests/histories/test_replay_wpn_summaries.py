"""The Winning Poker Network's (ACR's) tournament summaries: the real ``.ots`` form paired with ACR's text hands.

The real ACR export (seen in public repositories' tests and parsers) is one line of JSON with no ``{"ots": ...}``
wrapper, ``"tournament_number": "T#36074377"``, ``"network_name": "WinningPokerNetwork"``, ``"site_name":
"AmericasCardroom"`` and rows with ``prize`` and ``ticket_value``; its hands are WPN's own text (``Game Hand #N -
Tournament #36074377 - ...``), read by the ``acr`` reader. Fixtures (``tests/fixtures/replay/acr/sit_and_go.txt`` and
``sit_and_go.ots``) written for this file from those formats: Ann, Bob and Cid, Cid out first, Ann wins.
"""

from __future__ import annotations

import json
from pathlib import Path

from showdown_service.histories.summaries import Summary, read_summary
from tests.helpers import FIXTURES, audit_tournaments

FIXTURES = FIXTURES / "replay"
ACR = FIXTURES / "acr"
OHH = FIXTURES / "ohh"
HANDS = (ACR / "sit_and_go.txt").read_text(encoding="utf-8")
OTS = (ACR / "sit_and_go.ots").read_text(encoding="utf-8")


def _rows(summary: Summary | object) -> Summary:
    assert isinstance(summary, Summary)
    return summary


def test_an_acr_tournament_is_audited_against_its_real_form_ots_places_and_prizes(tmp_path: Path) -> None:
    status, _, audits = audit_tournaments(tmp_path, {"hands.txt": HANDS, "summary.ots": OTS})
    assert status == 0  # the .ots given by name is a summary, not a file of unknown format
    [audit] = audits  # one line: the summary is the ACR tournament's, not a line of its own
    assert (audit["room"], audit["tournament_id"], audit["hands"], audit["status"]) == ("acr", "36000001", 3, "match")
    assert audit["differences"] == []
    assert [(p["player"], p["place"], p["prize"]) for p in audit["places"]] == [
        ("Ann", 1, 1050), ("Bob", 2, 450), ("Cid", 3, 0)
    ]  # fmt: skip
    assert "places, prizes and bounties through the tournament ledger" in audit["checked"]
    assert "the summary's payout table and prize pool" in audit["checked"]


def test_an_acr_ots_with_a_doctored_place_or_prize_is_a_difference(tmp_path: Path) -> None:
    swapped = OTS.replace('"Bob","finish_position":2', '"Bob","finish_position":3').replace(
        '"Cid","finish_position":3', '"Cid","finish_position":2'
    )
    status, _, audits = audit_tournaments(tmp_path, {"hands.txt": HANDS, "summary.ots": swapped})
    assert status == 1
    [audit] = audits
    assert audit["status"] == "mismatch"
    details = [(d["kind"], d["detail"]) for d in audit["differences"]]
    assert ("summary place", "line 1: the summary places Bob 3; the hands give 2") in details
    assert ("summary place", "line 1: the summary places Cid 2; the hands give 3") in details
    # the prizes of 1st and 2nd swapped: they still add up to the pool, but a lower place is paid more, and each
    # row's prize is not what the places the hands give pay
    moved = OTS.replace('"prize":10.50', '"prize":4.50').replace('"Bob","finish_position":2,"prize":4.50',
                                                                 '"Bob","finish_position":2,"prize":10.50')  # fmt: skip
    status, _, audits = audit_tournaments(tmp_path, {"hands.txt": HANDS, "summary.ots": moved})
    assert status == 1
    assert [(d["kind"], d["detail"]) for d in audits[0]["differences"]] == [
        ("payout table", "the prizes by place [450, 1050, 0] pay a lower place more"),
        ("summary prize", "line 1: the summary pays Ann 450; the rules give 1050"),
        ("summary prize", "line 1: the summary pays Bob 1050; the rules give 450"),
    ]


def test_the_wrapped_and_unwrapped_ots_read_alike(tmp_path: Path) -> None:
    bare = _rows(read_summary(OTS, "bare.ots"))
    wrapped = _rows(read_summary('{"ots": ' + OTS.strip() + "}\n", "wrapped.ots"))
    spaced = _rows(read_summary(json.dumps({"ots": json.loads(OTS)}, indent=2), "spaced.ots"))
    assert bare.tournament_id == "36000001"  # "T#36000001": the hands' 'Tournament #36000001'
    assert bare._replace(source="") == wrapped._replace(source="") == spaced._replace(source="")
    assert (bare.room, bare.site, bare.network, bare.players, bare.pool, bare.buy_in) == (
        "ots", "AmericasCardroom", "WinningPokerNetwork", 3, 1500, 500
    )  # fmt: skip
    assert [(r.place, r.player, r.prize, r.award) for r in bare.rows] == [
        (1, "Ann", 1050, ""), (2, "Bob", 450, ""), (3, "Cid", 0, "")
    ]  # fmt: skip
    # the spec's own number (no "T#") is the same tournament
    assert _rows(read_summary(OTS.replace('"T#36000001"', '"36000001"'), "plain.ots")).tournament_id == "36000001"
    status, _, audits = audit_tournaments(tmp_path, {"hands.txt": HANDS, "summary.ots": '{"ots": ' + OTS.strip() + "}"})
    assert (status, [(a["room"], a["status"]) for a in audits]) == (0, [("acr", "match")])
    # a ticket is a prize that is no money: the row says so, and the pool is not added up
    ticket = _rows(read_summary(OTS.replace('"prize":0,"ticket_value":0', '"prize":0,"ticket_value":2.20'), "t"))
    assert ticket.rows[2].award == "a ticket worth 220"


def test_an_ots_of_another_room_or_site_is_never_paired_with_acr_hands(tmp_path: Path) -> None:
    other = OTS.replace('"network_name":"WinningPokerNetwork"', '"network_name":"Example Network"').replace(
        '"site_name":"AmericasCardroom"', '"site_name":"Example Room"'
    )
    nameless = OTS.replace('"network_name":"WinningPokerNetwork",', "").replace(',"site_name":"AmericasCardroom"', "")
    for summary, site in ((other, "Example Room"), (nameless, None)):
        status, _, audits = audit_tournaments(tmp_path, {"hands.txt": HANDS, "summary.ots": summary})
        assert status == 0
        hands_line, summary_line = sorted(audits, key=lambda a: a["room"])
        assert (hands_line["room"], hands_line["status"]) == ("acr", "match")
        assert [p["prize"] for p in hands_line["places"]] == [None, None, None]  # no summary's payouts
        assert "the summary's payout table and prize pool" not in hands_line["checked"]
        assert (summary_line["room"], summary_line.get("site"), summary_line["hands"]) == ("ohh", site, 0)
        assert any("the hands of acr tournament 36000001 are another room's" in c for c in summary_line["checked"])


def test_a_wpn_ots_without_acr_hands_goes_with_the_open_hand_histories_of_its_site(tmp_path: Path) -> None:
    hands = (OHH / "two_hands.ohh").read_text(encoding="utf-8")
    summary = (OHH / "knockout_777.ots").read_text(encoding="utf-8")
    wpn = '"site_name": "AmericasCardroom", "network_name": "WinningPokerNetwork"'
    status, _, audits = audit_tournaments(tmp_path, {
        "a.ohh": hands.replace('"site_name": "Example Room", "network_name": "Example Network"', wpn),
        "a.ots": summary.replace('"site_name": "Example Room", "network_name": "Example Network"', wpn),
    })  # fmt: skip
    assert status == 0
    [audit] = audits
    assert (audit["room"], audit.get("site"), audit["status"]) == ("ohh", "AmericasCardroom", "match")
    assert "the summary's payout table and prize pool" in audit["checked"]


def test_an_ots_listing_fewer_rows_than_its_player_count_gives_no_payout_table(tmp_path: Path) -> None:
    # the specification (1.1.3) lists every entrant; an export of its player's row alone cannot be the payouts
    only_ann = OTS.replace(',{"player_name":"Bob","finish_position":2,"prize":4.50,"ticket_value":0}', "").replace(
        ',{"player_name":"Cid","finish_position":3,"prize":0,"ticket_value":0}', ""
    )
    summary = _rows(read_summary(only_ann, "ann.ots"))
    assert (len(summary.rows), summary.players, summary.partial) == (1, 3, True)
    assert not _rows(read_summary(OTS, "all.ots")).partial
    status, _, audits = audit_tournaments(tmp_path, {"hands.txt": HANDS, "summary.ots": only_ann})
    assert (status, audits[0]["status"], audits[0]["differences"]) == (0, "match", [])
    assert "not the prizes against the prize pool: the summary lists its own player's rows only" in audits[0]["checked"]
    status, _, audits = audit_tournaments(tmp_path, {"hands.txt": HANDS, "summary.ots": only_ann.replace(
        '"finish_position":1', '"finish_position":2')})  # fmt: skip
    assert status == 1
    assert [d["detail"] for d in audits[0]["differences"]] == ["line 1: the summary places Ann 2; the hands give 1"]
