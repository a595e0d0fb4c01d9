"""A tournament hand that could not be read is a gap its tournament shows (issue 27, whole tournaments).

The per-hand report names such a hand (file, line, hand); the tournament audit used to leave it out of its
tournament's group and audit the rest as if it had never been dealt. Now, when the hand's header still tells the
tournament, the tournament has an ``unread hand`` difference naming file, line and hand, is never ``match``, is taken
through no ledger and compares no chips across the gap. Fixtures: ``tests/fixtures/replay/acr/sit_and_go.txt`` (ACR,
written from the format), ``tests/fixtures/replay/tournament/`` (PokerStars, written from the format).
"""

from __future__ import annotations

from pathlib import Path

from showdown_service.histories.errors import HandSyntaxError
from showdown_service.histories.unread import unread
from tests.helpers import FIXTURES, audit_tournaments

FIXTURES = FIXTURES / "replay"
ACR_HANDS = (FIXTURES / "acr" / "sit_and_go.txt").read_text(encoding="utf-8")
ACR_OTS = (FIXTURES / "acr" / "sit_and_go.ots").read_text(encoding="utf-8")
STARS_HANDS = (FIXTURES / "tournament" / "hands.txt").read_text(encoding="utf-8")
STARS_SUMMARY = (FIXTURES / "tournament" / "summary.txt").read_text(encoding="utf-8")


def _line(text: str, needle: str, nth: int = 1) -> int:
    """The 1-based number of the ``nth`` line of ``text`` holding ``needle``."""
    return [n for n, line in enumerate(text.splitlines(), 1) if needle in line][nth - 1]


def test_an_acr_hand_that_cannot_be_read_is_an_unread_hand_difference_of_its_tournament(tmp_path: Path) -> None:
    status, _, audits = audit_tournaments(tmp_path, {"hands.txt": ACR_HANDS, "summary.ots": ACR_OTS})
    assert (status, [a["status"] for a in audits]) == (0, ["match"])  # the fixture whole: a match
    broken = ACR_HANDS.replace("Ann calls 1480.00 and is all-in", "Ann calls lots and is all-in")
    status, folder, audits = audit_tournaments(tmp_path, {"hands.txt": broken, "summary.ots": ACR_OTS})
    assert status == 1
    [audit] = audits
    assert (audit["room"], audit["tournament_id"], audit["hands"], audit["status"]) == (
        "acr",
        "36000001",
        2,
        "mismatch",
    )
    line = _line(broken, "Ann calls lots")
    assert audit["differences"] == [{
        "kind": "unread hand", "hand_id": "acr:910000002",
        "detail": f"{folder / 'hands.txt'}:{line}: not read ('lots' is not an amount: 'Ann calls lots and is all-in'): "
        "a gap in the tournament, taken through no ledger",
    }]  # fmt: skip  # no chips difference across the gap (hand 3 starts where hand 2, unread, left them)
    assert audit["places"] == []
    assert "not through the ledger: 1 hand(s) of the tournament not replayed (the chips between hands not compared " \
        "across them)" in audit["checked"]  # fmt: skip


def test_a_pokerstars_tournament_with_an_unread_hand_cannot_match(tmp_path: Path) -> None:
    status, _, audits = audit_tournaments(tmp_path, {"hands.txt": STARS_HANDS, "summary.txt": STARS_SUMMARY})
    assert (status, [a["status"] for a in audits]) == (0, ["match"])
    broken = STARS_HANDS.replace("Dee: raises 1400 to 1500 and is all-in", "Dee: raises to the moon")
    status, folder, audits = audit_tournaments(tmp_path, {"hands.txt": broken, "summary.txt": STARS_SUMMARY})
    assert status == 1
    [audit] = audits
    assert audit["status"] == "mismatch"
    [gap] = [d for d in audit["differences"] if d["kind"] == "unread hand"]
    assert gap["hand_id"] == "pokerstars:300000000002"
    assert gap["detail"].startswith(f"{folder / 'hands.txt'}:{_line(broken, 'Dee: raises to the moon')}: not read (")
    assert not [d for d in audit["differences"] if d["kind"] == "chips"]


def test_a_tournament_none_of_whose_hands_could_be_read_still_has_its_line(tmp_path: Path) -> None:
    first = ACR_HANDS[: ACR_HANDS.index("Game Hand #910000002")].replace("Cid calls 1480.00", "Cid calls many")
    status, _, audits = audit_tournaments(tmp_path, {"hands.txt": first, "summary.ots": ACR_OTS})
    assert status == 1
    [audit] = audits  # the summary's tournament: its own checks, and the gap
    assert (audit["room"], audit["tournament_id"], audit["hands"], audit["status"]) == (
        "acr",
        "36000001",
        0,
        "mismatch",
    )
    assert [(d["kind"], d["hand_id"]) for d in audit["differences"]] == [("unread hand", "acr:910000001")]
    assert "the summary's payout table and prize pool" in audit["checked"]


def test_an_unread_hand_whose_header_names_no_tournament_is_in_no_tournament(tmp_path: Path) -> None:
    cash = (
        "Hand #920000001 - Holdem(No Limit) - $0.05/$0.10 - 2026/11/25 12:00:00 UTC\n"
        "Table 'Aurora' 6-max Seat #1 is the button\n"
        "Seat 1: Ann ($10.00)\nSeat 2: Bob ($10.00)\n"
        "Ann posts the small blind lots\n"
    )
    status, _, audits = audit_tournaments(tmp_path, {"cash.txt": cash})
    assert (status, audits) == (1, [])  # the hand is malformed in the per-hand report, and of no tournament
    # the tournament is the one the hand's own header names, never another hand's above it
    lines = ACR_HANDS.splitlines()
    error = HandSyntaxError("hands.txt", "acr:910000003", _line(ACR_HANDS, "Ann raises 3000.00"), "bad")
    gap = unread(error, lines)
    assert gap is not None
    assert (gap.key, gap.hand_id, gap.refused) == (("acr", "", "36000001"), "acr:910000003", True)
    tilt = [
        "Full Tilt Poker Game #30000000001: $5 + $0.50 Sit & Go (600000001), Table 1 - 10/20 - No Limit Hold'em - "
        "12:00:00 ET - 2026/11/25",
        "Seat 1: Ann (1,500)",
    ]
    gap = unread(HandSyntaxError("t.txt", "fulltilt:30000000001", 2, "bad"), tilt)
    assert gap is not None
    assert gap.key == ("fulltilt", "", "600000001")
    assert unread(HandSyntaxError("t.txt", "fulltilt:30000000002", 2, "bad"), tilt) is None  # no header of its own
    assert unread(HandSyntaxError("t.txt", None, 2, "text before the first hand"), tilt) is None


def test_an_open_hand_history_tournament_hand_that_cannot_be_read_is_told_by_its_tournament_info(
    tmp_path: Path,
) -> None:
    hands = (FIXTURES / "ohh" / "two_hands.ohh").read_text(encoding="utf-8")
    summary = (FIXTURES / "ohh" / "knockout_777.ots").read_text(encoding="utf-8")
    broken = hands.replace('"name": "Bob", "starting_stack": 700,', '"name": "Bob", "starting_stack": "lots",')
    status, folder, audits = audit_tournaments(tmp_path, {"a.ohh": broken, "a.ots": summary})
    assert status == 1
    [audit] = audits  # the tournament of the site and number its tournament_info names, with its summary
    assert (audit["room"], audit.get("site"), audit["tournament_id"], audit["hands"]) == (
        "ohh",
        "Example Room",
        "777",
        0,
    )
    [gap] = audit["differences"]
    assert (gap["kind"], gap["hand_id"]) == ("unread hand", "ohh:1002")
    start = _line(broken, '{"ohh": {', 2)  # the hand's document
    assert gap["detail"].startswith(f"{folder / 'a.ohh'}:{start}: not read (")
