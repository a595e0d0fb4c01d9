"""Whole tournaments from a player's partial view (issue 40, item 2): what the hands cannot show is never a difference,
what they can show still is.

Fixtures: ``tests/fixtures/replay/tournament/`` (PokerStars, written from the format) and MIT excerpts of
``../shared/data/rooms-more`` in ``tests/fixtures/replay/rooms/`` (its README names each source and licence):
``888poker_2016_rebuys.txt`` and ``summaries/888poker_2016_summary.txt`` (888poker's rebuy tournament 78669312, its
first six hands and its summary), ``888poker_2016_other_table.txt`` (tournament 78670600: a player out at table 9
and seated at table 1), ``bovada_anonymous_sng.txt`` (an Ignition sit & go's first two hands), ``bovada_places.txt``
(a satellite's and a sit & go's last hands).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers import FIXTURES, SHARED_DATA, audit_tournaments

REPLAY = FIXTURES / "replay"
ROOMS = REPLAY / "rooms"
STARS = REPLAY / "tournament"


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _audits(tmp_path: Path, files: dict[str, str]) -> tuple[int, dict[tuple[str, str], dict[str, Any]]]:
    status, _, lines = audit_tournaments(tmp_path, files)
    return status, {(line["room"], line["tournament_id"]): line for line in lines}


# -- the same hand twice -----------------------------------------------------------------------------------------


def test_the_same_hand_in_two_files_is_one_hand(tmp_path: Path) -> None:
    # rooms-more's partypoker tournament 125049467 and Microgaming's 'Christmas Day 26' are each in two files
    hands = _text(STARS / "hands.txt")
    status, audits = _audits(tmp_path, {"a.txt": hands, "b.txt": hands, "summary.txt": _text(STARS / "summary.txt")})
    [audit] = audits.values()
    assert (status, audit["status"], audit["differences"], audit["hands"]) == (0, "match", [], 3)
    assert [(p["player"], p["place"], p["prize"]) for p in audit["places"]] == [
        ("Ada", 1, 1040), ("Ben", 2, 560), ("Cal", 3, 0), ("Dee", 4, 0)
    ]  # fmt: skip


def test_two_copies_of_a_hand_that_differ_are_a_hand_copies_difference_naming_both_files(tmp_path: Path) -> None:
    hands = _text(STARS / "hands.txt")
    first = hands.split("\n\n\n")[0]
    doctored = first.replace("Seat 3: Cal (1500 in chips)", "Seat 3: Cal (1600 in chips)")
    assert doctored != first
    status, audits = _audits(tmp_path, {"a.txt": hands, "b.txt": doctored})
    [audit] = audits.values()
    assert (status, audit["status"]) == (1, "mismatch")
    [copies] = [d for d in audit["differences"] if d["kind"] == "hand copies"]
    assert copies["hand_id"] == "pokerstars:300000000001"
    folder = tmp_path / "paths"
    assert f"{folder / 'a.txt'} (line 1) and {folder / 'b.txt'} (line 1)" in copies["detail"]


# -- rebuys a room does not write --------------------------------------------------------------------------------


def test_888poker_rebuys_the_history_does_not_write_are_taken_from_the_chips(tmp_path: Path) -> None:
    # noblufj1 ends hand 775396418 with 940 and starts 775396534 with 1,940: a rebuy of the starting 1,000
    status, audits = _audits(tmp_path, {"hands.txt": _text(ROOMS / "888poker_2016_rebuys.txt")})
    audit = audits["888poker", "78669312"]
    assert (status, audit["status"], audit["differences"]) == (0, "incomplete", [])
    [rebuys] = [c for c in audit["checked"] if "rebuy(s) the room writes no line for" in c]
    assert rebuys.startswith("5 rebuy(s)")
    # what is not one or two starting stacks is still a difference
    off = _text(ROOMS / "888poker_2016_rebuys.txt").replace("noblufj1 ( $1,940 )", "noblufj1 ( $1,840 )")
    status, audits = _audits(tmp_path, {"hands.txt": off})
    audit = audits["888poker", "78669312"]
    assert (status, audit["status"]) == (1, "mismatch")
    assert [(d["kind"], d["hand_id"]) for d in audit["differences"]] == [("chips", "888poker:775396534")]
    assert "noblufj1 starts hand 888poker:775396534 with 1840 chips" in audit["differences"][0]["detail"]


def test_888poker_player_out_at_one_table_and_seated_at_another_rebought_and_played_there(tmp_path: Path) -> None:
    # barrozoo goes out at table 9 (hand 778807183) and sits at table 1 with 12,665 (hand 778807702)
    status, audits = _audits(tmp_path, {"hands.txt": _text(ROOMS / "888poker_2016_other_table.txt")})
    audit = audits["888poker", "78670600"]
    assert (status, audit["status"], audit["differences"]) == (0, "incomplete", [])
    assert any(c.startswith("1 rebuy(s) the room writes no line for") for c in audit["checked"])


# -- 888poker's summary ------------------------------------------------------------------------------------------


def test_888poker_summary_is_the_exporting_players_place_of_the_field(tmp_path: Path) -> None:
    files = {"hands.txt": _text(ROOMS / "888poker_2016_rebuys.txt"),
             "summary.txt": _text(ROOMS / "summaries" / "888poker_2016_summary.txt")}  # fmt: skip
    status, audits = _audits(tmp_path, files)
    assert set(audits) == {("888poker", "78669312")}  # paired with its room's hands: no line of its own
    audit = audits["888poker", "78669312"]
    assert (status, audit["status"], audit["differences"]) == (0, "incomplete", [])
    assert (
        "line 4: the summary's place 59 for jpprewitt (a field of 76) is beyond the hands: one player's tables, up "
        "to their bust; the busts at other tables are not in them"
    ) in audit["checked"]
    # a place outside the field it states is a difference at its line
    files["summary.txt"] = files["summary.txt"].replace("finished 59/76", "finished 77/76")
    status, audits = _audits(tmp_path, files)
    audit = audits["888poker", "78669312"]
    assert (status, audit["status"]) == (1, "mismatch")
    assert audit["differences"] == [{
        "kind": "summary place", "hand_id": None,
        "detail": "line 4: the summary places jpprewitt 77, outside a field of 76 entries",
    }]  # fmt: skip


def test_888poker_summary_with_a_line_it_cannot_read_is_unreadable_naming_it(tmp_path: Path) -> None:
    summary = _text(ROOMS / "summaries" / "888poker_2016_summary.txt").replace("finished 59/76", "finished fifty-ninth")
    status, audits = _audits(tmp_path, {"summary.txt": summary})
    [audit] = audits.values()
    assert (status, audit["room"], audit["status"]) == (1, "888poker", "mismatch")
    [difference] = audit["differences"]
    assert difference["kind"] == "summary unreadable"
    unread = "summary.txt:4: not a line of 888poker's summary: 'jpprewitt finished fifty-ninth'"
    assert difference["detail"].endswith(unread)


# -- anonymous tables --------------------------------------------------------------------------------------------


def test_anonymous_tables_players_are_not_followed_between_hands(tmp_path: Path) -> None:
    # Ignition names each player by their position: seat 7 is 'Big Blind [ME]', then 'Small Blind [ME]'
    status, audits = _audits(tmp_path, {"hands.txt": _text(ROOMS / "bovada_anonymous_sng.txt")})
    audit = audits["bovada", "18509313"]
    assert (status, audit["status"], audit["differences"], audit["hands"]) == (0, "incomplete", [], 2)
    assert audit["checked"][0].startswith("not the chips between hands nor the ledger: the room names each player")


# -- one table without a summary, joined after its start ---------------------------------------------------------


def test_one_table_without_a_summary_whose_first_hand_is_not_its_start_takes_no_newcomer_into_a_ledger(
    tmp_path: Path,
) -> None:
    # rooms-more's ACR tournament 24139358: table 2 from level 8, 'joeyv will be allowed to play after the button'
    hands = (SHARED_DATA / "rooms-more" / "WinningPoker" / "michaelcukier-Poker-Hand-Tracker"
             / "test_position_info.fake_data.hands.txt").read_text(encoding="utf-8")  # fmt: skip
    status, audits = _audits(tmp_path, {"hands.txt": hands})
    audit = audits["acr", "24139358"]
    assert (status, audit["status"], audit["differences"]) == (0, "incomplete", [])


# -- a bust's place, from a partial view -------------------------------------------------------------------------


def test_a_player_out_in_a_hand_finished_no_better_than_one_below_the_players_left_at_the_table(
    tmp_path: Path,
) -> None:
    # the fixture's hands 2 and 3 alone, no summary, Dee's place printed 40th: the last four of a field the hands do
    # not seat (other tables), so no ledger; the places they print are still held to what each hand shows
    partial = "\n\n\n\n".join(_text(STARS / "hands.txt").split("\n\n\n\n")[1:]).replace("in 4th place", "in 40th place")
    status, audits = _audits(tmp_path, {"hands.txt": partial})
    [audit] = audits.values()
    assert (status, audit["status"], audit["differences"]) == (0, "incomplete", [])
    assert "a place 40 printed: a field beyond the 4 entries the hands seat" in " ".join(audit["checked"])
    # Ben goes out in hand 3 with Ada left with chips: 2nd at best, never 1st
    status, audits = _audits(tmp_path, {"hands.txt": partial.replace("in 2nd place", "in 1st place")})
    [audit] = audits.values()
    assert (status, audit["status"]) == (1, "mismatch")
    assert [d for d in audit["differences"] if d["kind"] == "place"] == [{
        "kind": "place", "hand_id": "pokerstars:300000000003",
        "detail": "the history places Ben 1; out in this hand with 1 player(s) left with chips at the table, they "
        "finished no better than 2",
    }]  # fmt: skip


# -- Ignition's places -------------------------------------------------------------------------------------------


def test_ignition_ranking_and_prize_lines_are_the_hands_places(tmp_path: Path) -> None:
    # a satellite's last hand: Big Blind out 3rd, Dealer and Small Blind [ME] 'Ranking 1' with a ticket each (a tie
    # for 1st); a sit & go's last hand: Big Blind 'Ranking 2' with $10.50, Dealer [ME] 'Ranking 1' with $19.50
    text = _text(ROOMS / "bovada_places.txt")
    status, audits = _audits(tmp_path, {"hands.txt": text})
    ticket, final = audits["bovada", "46767990"], audits["bovada", "18530943"]
    assert (status, ticket["status"], ticket["differences"]) == (0, "incomplete", [])
    assert [(p["player"], p["place"], p["prize"]) for p in ticket["places"]] == [("Big Blind", 3, None)]
    assert (final["status"], final["differences"]) == ("match", [])
    assert [(p["player"], p["place"], p["prize"]) for p in final["places"]] == [
        ("Dealer", 1, 1950), ("Big Blind", 2, 1050)
    ]  # fmt: skip
    # the satellite's Big Blind placed 1st though out with two players left: no better than 3rd
    status, audits = _audits(tmp_path, {"hands.txt": text.replace("Big Blind : Ranking 3", "Big Blind : Ranking 1")})
    ticket = audits["bovada", "46767990"]
    assert (status, ticket["status"]) == (1, "mismatch")
    [place] = [d for d in ticket["differences"] if d["kind"] == "place"]
    assert place["hand_id"] == "bovada:4561450085"
    assert place["detail"] == "the history places Big Blind 1; the rules give 3"  # the ledger's: 3 seated, no 40th
