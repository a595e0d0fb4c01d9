"""Whole tournaments (issue 27): re-entries in the hands and rebuys after a bust, through the ledger.

Fixtures, written from PokerStars' format for these tests: ``tests/fixtures/replay/tournament/reentry.txt`` (Ben
busts in hand 1, the bare ``finished the tournament`` PokerStars writes while late registration is open, and
re-enters at seat 4 with a fresh 1500 for hand 2; his summary rows ``Ben`` and ``Ben [2]``), and
``reentry_two_tables.txt`` (Ben out at table 1, re-entering in table 2's first hand), and ``rebuy_after_a_bust.txt``
(Ben busts in hand 1 and re-buys 1500 chips above hand 2's seats: the same player, the same entry).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from showdown_service.cli.commands import main
from showdown_service.histories.entries import LateBust, late_places
from tests.helpers import FIXTURES

STARS = FIXTURES / "replay" / "tournament"


def _stars(name: str) -> str:
    return (STARS / name).read_text(encoding="utf-8")


def _audit(tmp_path: Path, hands: str, summary: str | None) -> tuple[int, dict[str, Any]]:
    """Audit ``hands`` (and ``summary``) as files; the exit status and the tournament's report line."""
    paths = []
    for name, text in (("hands.txt", hands), ("summary.txt", summary)):
        if text is not None:
            (tmp_path / name).write_text(text, encoding="utf-8")
            paths.append(str(tmp_path / name))
    report = tmp_path / "tournaments.jsonl"
    status = main(["replay", "--tournaments", *paths, "--tournament-report", str(report)])
    [line] = report.read_text(encoding="utf-8").splitlines()
    return status, json.loads(line)


def _reentry(tmp_path: Path, hands: str | None = None, summary: str | None = None) -> tuple[int, dict[str, Any]]:
    return _audit(tmp_path, _stars("reentry.txt") if hands is None else hands,
                  _stars("reentry_summary.txt") if summary is None else summary)  # fmt: skip


def _places(audit: dict[str, Any]) -> list[tuple[str, int, int | None]]:
    return [(p["player"], p["place"], p["prize"]) for p in audit["places"]]


# -- re-entries -------------------------------------------------------------------------------------------


def test_a_reentry_tournament_from_hands_and_summary_reproduces_every_place_and_prize(tmp_path: Path) -> None:
    status, audit = _reentry(tmp_path)
    assert status == 0
    assert (audit["status"], audit["differences"]) == ("match", [])
    # 4 entries (Ada, Ben, Cal, Ben's re-entry): Ben's first entry went out first, 4th; his re-entry 2nd
    assert _places(audit) == [("Ada", 1, 1040), ("Ben [2]", 2, 560), ("Cal", 3, 0), ("Ben", 4, 0)]
    assert "places, prizes and bounties through the tournament ledger" in audit["checked"]
    assert any(c.startswith("the re-entries as the ledger's entries") for c in audit["checked"])
    # the prize pool is the entries' (4 x $4.00), not the players' (3): nothing noted as an overlay
    assert not any("overlay" in c for c in audit["checked"])


def test_a_reentry_without_the_summary_is_placed_from_the_hands(tmp_path: Path) -> None:
    status, audit = _audit(tmp_path, _stars("reentry.txt"), None)
    assert (status, audit["status"], audit["differences"]) == (0, "match", [])
    # the prizes the hands print (1st and 2nd) are the payouts
    assert _places(audit) == [("Ada", 1, 1040), ("Ben [2]", 2, 560), ("Cal", 3, 0), ("Ben", 4, 0)]


def test_a_reentry_at_another_table_is_followed_across_tables(tmp_path: Path) -> None:
    # Ben goes out at table 1 and re-enters in table 2's first hand (a table opened for the late field): he is not
    # one of the four entries the tournament started with, but their fifth
    status, audit = _audit(tmp_path, _stars("reentry_two_tables.txt"), _stars("reentry_two_tables_summary.txt"))
    assert (status, audit["status"], audit["differences"]) == (0, "match", [])
    assert _places(audit) == [("Cal", 1, 1300), ("Ada", 2, 700), ("Ben [2]", 3, 0), ("Dee", 4, 0), ("Ben", 5, 0)]
    # a re-entry with 100 chips too many: the starting stack is a difference, and so is the hand after, where the
    # history has him back at 1500
    more = _stars("reentry_two_tables.txt").replace(
        "Seat 3: Ben (1500 in chips)\nCal: posts small blind 10\nDee",
        "Seat 3: Ben (1600 in chips)\nCal: posts small blind 10\nDee",
    )
    status, audit = _audit(tmp_path, more, _stars("reentry_two_tables_summary.txt"))
    assert status == 1
    assert [(d["kind"], d["hand_id"]) for d in audit["differences"]] == [
        ("chips", "pokerstars:720000000002"), ("chips", "pokerstars:720000000003"),
        ("ledger", "pokerstars:720000000003"),
    ]  # fmt: skip
    assert audit["differences"][0]["detail"] == (
        "Ben went out in hand pokerstars:720000000001 and sits down again in hand pokerstars:720000000002 with 1600 "
        "chips: a re-entry starts with the starting stack, 1500"
    )


def test_a_reentry_without_a_bust_before_it_is_a_chips_difference(tmp_path: Path) -> None:
    # Cal did not bust in hand 1 (he ended it with 1480) and sits down in hand 2 with a fresh 1500: chips appearing
    doctored = (
        _stars("reentry.txt")
        .replace("Seat 3: Cal (1480 in chips)", "Seat 3: Cal (1500 in chips)")
        .replace("Cal: raises 1460 to 1480 and is all-in\nBen: folds\nAda: calls 1460",
                 "Cal: raises 1480 to 1500 and is all-in\nBen: folds\nAda: calls 1480")
        .replace("Ada collected 2970 from pot", "Ada collected 3010 from pot")
        .replace("Total pot 2970", "Total pot 3010")
        .replace("won (2970)", "won (3010)")
        .replace("Seat 1: Ada (4510 in chips)", "Seat 1: Ada (4530 in chips)")
    )  # fmt: skip
    status, audit = _reentry(tmp_path, hands=doctored)
    assert status == 1
    assert audit["status"] == "mismatch"
    chips = [(d["hand_id"], d["detail"]) for d in audit["differences"] if d["kind"] == "chips"]
    assert chips[0] == ("pokerstars:700000000002", "Cal starts hand pokerstars:700000000002 with 1500 chips but ended "
                        "hand pokerstars:700000000001 at this table with 1480")  # fmt: skip
    # through the ledger, the seat's chips are not the entry's: refused, naming the hand
    assert any(d["kind"] == "ledger" and d["hand_id"] == "pokerstars:700000000002" for d in audit["differences"])


def test_a_reentry_that_does_not_bring_the_starting_stack_is_a_chips_difference(tmp_path: Path) -> None:
    doctored = (
        _stars("reentry.txt")
        .replace("Seat 4: Ben (1500 in chips)", "Seat 4: Ben (2500 in chips)")
        .replace("Seat 4: Ben (1490 in chips)", "Seat 4: Ben (2490 in chips)")
        .replace("Seat 1: Ada (4510 in chips)", "Seat 1: Ada (3510 in chips)")
    )
    status, audit = _reentry(tmp_path, hands=doctored)
    assert status == 1
    assert {"kind": "chips", "hand_id": "pokerstars:700000000002",
            "detail": "Ben went out in hand pokerstars:700000000001 and sits down again in hand "
            "pokerstars:700000000002 with 2500 chips: a re-entry starts with the starting stack, 1500"} in (
        audit["differences"]
    )  # fmt: skip


def test_a_doctored_reentry_place_in_the_summary_is_a_difference(tmp_path: Path) -> None:
    swapped = (
        _stars("reentry_summary.txt")
        .replace("  2: Ben [2] (Germany), $5.60 (35%)", "  2: Ben (Germany), $5.60 (35%)")
        .replace("  4: Ben (Germany),", "  4: Ben [2] (Germany),")
    )
    status, audit = _reentry(tmp_path, summary=swapped)
    assert status == 1
    assert audit["status"] == "mismatch"
    assert [(d["kind"], d["detail"]) for d in audit["differences"]] == [
        ("summary place", "line 8: the summary places Ben 2; the hands give 4"),
        ("summary prize", "line 8: the summary pays Ben 560; the rules give 0"),
        ("summary place", "line 10: the summary places Ben [2] 4; the hands give 2"),
        ("summary prize", "line 10: the summary pays Ben [2] 0; the rules give 560"),
    ]
    # the places the rules give are the hands', whatever the summary says
    assert _places(audit) == [("Ada", 1, 1040), ("Ben [2]", 2, 560), ("Cal", 3, 0), ("Ben", 4, 0)]


def test_a_reentry_bust_the_hands_place_is_compared_entry_by_entry(tmp_path: Path) -> None:
    bare = "Ben finished the tournament\n"
    placed = _stars("reentry.txt").replace(bare, "Ben finished the tournament in 4th place\n")
    status, audit = _reentry(tmp_path, hands=placed)
    assert (status, audit["status"], audit["differences"]) == (0, "match", [])
    wrong = _stars("reentry.txt").replace(bare, "Ben finished the tournament in 3rd place\n")
    status, audit = _reentry(tmp_path, hands=wrong)
    assert status == 1
    assert [(d["kind"], d["hand_id"], d["detail"]) for d in audit["differences"]] == [
        ("place", "pokerstars:700000000001", "the history places Ben 3; the rules give 4")
    ]  # his first entry's bust; his re-entry's printed 2nd place is his re-entry's


def test_a_reentry_tournament_prize_pool_counts_entries_not_players(tmp_path: Path) -> None:
    three = _stars("reentry_summary.txt").replace("4 players", "3 players")
    status, audit = _reentry(tmp_path, summary=three)
    # three entries would not seat Ada, Ben, Cal and Ben's re-entry: the hands do not cover that field (no ledger);
    # and the summary's own row 4 is outside its field of three (issue 34: a row never passed over)
    assert (status, audit["status"]) == (1, "mismatch")
    assert audit["differences"] == [
        {
            "kind": "summary place",
            "hand_id": None,
            "detail": "line 10: the summary places Ben 4, outside a field of 3 entries",
        }
    ]
    assert not any("through the tournament ledger" in line for line in audit["checked"])
    short = _stars("reentry_summary.txt").replace("Total Prize Pool: $16.00 USD", "Total Prize Pool: $12.00 USD")
    status, audit = _reentry(tmp_path, summary=short)
    assert status == 1
    field = "4 entries at 400 prize each put 1600 in; the prize pool is 1200"
    assert {"kind": "prize pool", "hand_id": None, "detail": field} in audit["differences"]


def test_late_places_first_out_last_same_hand_by_stack_equal_stacks_tied() -> None:
    busts = [
        LateBust(0, ("Ben", 1), 1500, 2),
        LateBust(3, ("Cal", 1), 900, 3),
        LateBust(3, ("Dee", 1), 1200, 4),
        LateBust(5, ("Eve", 1), 700, 5),
        LateBust(5, ("Fay", 1), 700, 6),
    ]
    # 9 entries: Ben first out is 9th; Dee (the bigger stack) 7th over Cal 8th; Eve and Fay tied 5th, sharing the
    # 5th and 6th prizes (301 + 100), the odd cent to the first registered
    assert late_places(busts, 9, (1000, 600, 400, 300, 301, 100)) == {
        ("Ben", 1): (9, 1, 0), ("Dee", 1): (7, 1, 0), ("Cal", 1): (8, 1, 0),
        ("Eve", 1): (5, 2, 201), ("Fay", 1): (5, 2, 200),
    }  # fmt: skip


# -- a rebuy after a bust ---------------------------------------------------------------------------------


def _rebuy(tmp_path: Path, hands: str | None = None) -> tuple[int, dict[str, Any]]:
    return _audit(tmp_path, _stars("rebuy_after_a_bust.txt") if hands is None else hands,
                  _stars("rebuy_after_a_bust_summary.txt"))  # fmt: skip


def test_a_rebuy_after_a_bust_keeps_the_player_in_with_no_place(tmp_path: Path) -> None:
    status, audit = _rebuy(tmp_path)
    assert (status, audit["status"], audit["differences"]) == (0, "match", [])
    # Ben lost every chip in hand 1 and re-bought: not out, no place for the bust; 2nd with the rebought chips
    assert _places(audit) == [("Ada", 1, 1040), ("Ben", 2, 560), ("Cal", 3, 0)]
    assert any(c.startswith("the rebuys after a bust as the ledger's entries") for c in audit["checked"])


def test_a_rebuy_after_a_bust_written_below_the_hand_is_the_same(tmp_path: Path) -> None:
    text = _stars("rebuy_after_a_bust.txt")
    below = text.replace("Ben re-buys and receives 1500 chips for $4.00\n", "").replace(
        "Ada collected 3020 from pot\n", "Ada collected 3020 from pot\nBen re-buys and receives 1500 chips for $4.00\n"
    )
    assert below != text
    status, audit = _rebuy(tmp_path, below)
    assert (status, audit["status"], audit["differences"]) == (0, "match", [])
    assert _places(audit) == [("Ada", 1, 1040), ("Ben", 2, 560), ("Cal", 3, 0)]


def test_a_rebuy_after_a_bust_buying_fewer_chips_than_the_seat_shows_is_a_chips_difference(tmp_path: Path) -> None:
    fewer = _stars("rebuy_after_a_bust.txt").replace("receives 1500 chips for $4.00", "receives 1000 chips for $4.00")
    status, audit = _rebuy(tmp_path, fewer)
    assert status == 1
    assert {"kind": "chips", "hand_id": "pokerstars:600000000002",
            "detail": "Ben starts hand pokerstars:600000000002 with 1500 chips but ended hand pokerstars:600000000001 "
            "at this table with 0 and bought 1000 since"} in audit["differences"]  # fmt: skip


def _knockout(hands: str, knockouts: tuple[tuple[str, str, int], ...] = (("3020", "Ben", 3), ("2970", "Cal", 4),
                                                                        ("2980", "Ben", 5))) -> str:  # fmt: skip
    """A fixture's tournament as a progressive knockout ($2.00+$2.00+$0.40: a $2 head on every entry, a re-entry's or
    a rebuy's included; half of a head won in cash, half onto the winner's): ``knockouts``, Ada's, by the pot she
    collected, whom she knocked out and her head after it."""
    heads = iter(["$2", "$2", "$2", "$3", "$2", "$2", "$4", "$2"])  # the seat lines, in order
    lines = []
    for line in hands.replace("$4.00+$0.40 USD", "$2.00+$2.00+$0.40 USD").splitlines():
        seat = line.startswith("Seat ") and line.endswith(" in chips)")
        lines.append(f"{line[:-1]}, {next(heads)} bounty)" if seat else line)
        for collected, out, now in knockouts:
            if line == f"Ada collected {collected} from pot":
                lines.append(f"Ada wins $1 for eliminating {out} and their own bounty increases by $1 to ${now}")
    return "\n".join(lines).replace("$5.60", "$2.80").replace("$10.40", "$5.20") + "\n"


def _knockout_summary(text: str) -> str:
    return (
        text.replace("Buy-In: $4.00/$0.40 USD", "Buy-In: $2.00/$2.00/$0.40 USD")
        .replace("$16.00", "$8.00")
        .replace("$10.40", "$5.20")
        .replace("$5.60", "$2.80")
    )


def test_a_reentry_in_a_progressive_knockout_puts_up_a_fresh_bounty(tmp_path: Path) -> None:
    summary = _knockout_summary(_stars("reentry_summary.txt"))
    status, audit = _reentry(tmp_path, hands=_knockout(_stars("reentry.txt")), summary=summary)
    assert (status, audit["status"], audit["differences"]) == (0, "match", [])
    # Ada took three heads of $2 ($1 cash each) and her own grown $5 at the end: the 4 entries' $8 put up
    assert [(p["player"], p["place"], p["prize"], p["bounty"]) for p in audit["places"]] == [
        ("Ada", 1, 520, 800), ("Ben [2]", 2, 280, 0), ("Cal", 3, 0, 0), ("Ben", 4, 0, 0)
    ]  # fmt: skip
    # the knockout of Ben's re-entry left unwritten: Ada's lines fall short of what the rules paid her
    doctored = _knockout(_stars("reentry.txt")).replace("Ada wins $1 for eliminating Ben and their own bounty "
                                                        "increases by $1 to $5", "")  # fmt: skip
    status, audit = _reentry(tmp_path, hands=doctored, summary=summary)
    assert status == 1
    assert {"kind": "bounty", "hand_id": None, "detail": "Ada's bounty lines add up to 200; the rules pay 300 for "
            "knockouts (800 in all, their own bounty included when they win)"} in audit["differences"]  # fmt: skip


def test_a_rebuy_after_a_bust_in_a_progressive_knockout_buys_a_fresh_bounty(tmp_path: Path) -> None:
    # Ben's $2 head goes to Ada in hand 1; his rebuy for $4.00 (prize + bounty) puts a fresh $2 one on him
    hands = _knockout(_stars("rebuy_after_a_bust.txt"), (("3020", "Ben", 3), ("2980", "Cal", 4), ("2960", "Ben", 5)))
    summary = _knockout_summary(_stars("rebuy_after_a_bust_summary.txt"))
    status, audit = _audit(tmp_path, hands, summary)
    assert (status, audit["status"], audit["differences"]) == (0, "match", [])
    # Ada: three $1 cash halves and her own $5 head: the $6 three entries put up and the rebuy's $2
    assert [(p["player"], p["place"], p["prize"], p["bounty"]) for p in audit["places"]] == [
        ("Ada", 1, 520, 800), ("Ben", 2, 280, 0), ("Cal", 3, 0, 0)
    ]  # fmt: skip
    # a rebuy whose cost buys no bounty (the prize alone): Ben's next seat line's $2 head is none the ledger holds
    prize_only = hands.replace("re-buys and receives 1500 chips for $4.00", "re-buys and receives 1500 chips for $2.00")
    status, audit = _audit(tmp_path, prize_only, summary)
    assert status == 1
    [ledger] = [d for d in audit["differences"] if d["kind"] == "ledger"]
    assert (ledger["hand_id"], "bounty" in ledger["detail"]) == ("pokerstars:600000000002", True)
