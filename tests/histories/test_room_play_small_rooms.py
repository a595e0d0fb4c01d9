"""The smaller rooms' readers build each hand's ``play`` (issue 36): Microgaming, OnGame, Boss Media, Entraction,
Ignition/Bovada, Merge, IGT and PKR log the betting as they read it (:class:`~showdown_service.histories.room_play.
PlayBuilder`), so that a no-limit or pot-limit hold'em or Omaha hand settles with its betting played by the state
machine; on every real hand of theirs in ``../shared/data/rooms-more``. A hand phh-std cannot express here is left
without play, its reason named from a known list; a doctored copy of a real hand (a raise below the minimum, an
action out of turn) is refused by the state machine: no play. Upoker's one hand is PokerStars' format, read by that
reader (tests/histories/test_room_play.py)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from showdown_service.histories import room_play
from showdown_service.histories.compare import judge
from showdown_service.histories.export import ohh_json, phh_text
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.microgaming import read_microgaming
from showdown_service.histories.ongame import read_ongame
from showdown_service.histories.room_play import PlayLog, limit_named
from showdown_service.histories.run import find_files, read_file
from tests.helpers import SHARED_DATA
from tests.histories.test_history_export import read_back, same_settlement, settled

ROOMS = SHARED_DATA / "rooms-more"
REFUSED = "the betting as written is refused by the state machine "
MIN_RAISE, OUT_OF_TURN = "(raise_below_minimum): ", "(out_of_turn): "
FIXED = "fixed limit without its small bet and big bet"
UNNAMED = "an unnamed betting: play is written for no limit, pot limit and fixed limit"
HEADS_UP_ONE_SIZE = "heads-up blinds of one size: phh-std's blinds cannot say which seat acts first"
HEADS_UP_OUT = "heads-up blinds posted out of position"
EXPECTED: dict[str, tuple[str, int, dict[str, int]]] = {
    "MicroGaming": ("microgaming", 41, {  # SBisAllin.txt's small blind, written as an AllIn, is a blind
        FIXED: 1,
        # the table's stakes say $3/$6, the blinds posted are $1/$2: a raise to $6 is below the stakes' minimum
        REFUSED
        + MIN_RAISE
        + "play.actions[1] 'p4 cbr 600': p4 (seat 6): the least raise is to 800 (TDA 2024 Rule 43)": 1,
    }),
    "OnGame": ("ongame", 38, {HEADS_UP_ONE_SIZE: 5, HEADS_UP_OUT: 1, FIXED: 1}),
    "BossMedia": ("bossmedia", 33, {FIXED: 1}),
    "Entraction": ("entraction", 22, {FIXED: 8, HEADS_UP_OUT: 5}),  # heads-up, the 'Dealer' posts the big blind
    "Ignition": ("bovada", 17, {
        UNNAMED: 14,  # a tournament's first line names no betting
        "blinds posted out of position": 1,  # no small blind: the big blind is first after the button
        "a live post of a player new to the table (Posts chip)": 1,
    }),
    "Merge": ("merge", 21, {FIXED: 5, "heads-up, the button is not a player of the hand": 2}),
    "IGT": ("igt", 7, {FIXED: 2, "a dead blind": 1, "a second blind (posted out of position)": 1}),
    "PKR": ("pkr", 5, {}),
}  # fmt: skip
"""Each room's directory: its reader's name, how many real hands carry play, and why the others with an event have
none (each reason, how many hands)."""


def read_room(room: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[HandRecord], Counter[str], set[str]]:
    """Every hand of ``room`` read (the errors left out), why each hand with an event but no play has none, and the
    formats the files were read as."""
    why: Counter[str] = Counter()
    original = room_play.with_play

    def spy(event: Any, log: PlayLog, *args: Any) -> Any:
        built = original(event, log, *args)
        if built is None:
            why[log.why_not + (": " + log.detail if log.detail else "")] += 1
        return built

    monkeypatch.setattr(room_play, "with_play", spy)
    hands, kinds = [], set()
    for source in find_files([str(ROOMS / room)])[0]:
        kind, read, _ = read_file(source)
        if kind is None:
            continue
        kinds.add(kind)
        hands += [hand for hand in read if isinstance(hand, HandRecord)]
    return hands, why, kinds


@pytest.mark.parametrize("room", sorted(EXPECTED))
def test_every_real_hand_of_the_smaller_rooms_settles_with_its_play_played_or_names_why_not(
    room: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    reader, count, reasons = EXPECTED[room]
    hands, why, kinds = read_room(room, monkeypatch)
    assert kinds == {reader}
    with_play = [h for h in hands if h.event is not None and h.event.play is not None]
    assert len(with_play) == count
    assert why == reasons
    assert len(with_play) + why.total() == sum(h.event is not None for h in hands)
    for hand in with_play:
        assert hand.event is not None
        assert hand.event.play is not None
        assert judge(hand).status == "match", hand.hand_id
        players = hand.event.players
        assert players[-1].seat == hand.event.button_seat, hand.hand_id  # the order the hand was played
        assert list(hand.event.play.starting_stacks) == [p.stack for p in players], hand.hand_id
        result = settled(hand.event.model_dump(mode="json", exclude_none=True))  # played: the play is checked
        assert all("end_stack" in a and "folded_on" in a for a in result["awards"]), hand.hand_id
        assert result["saw_flop"] == any(a.startswith("d db") for a in hand.event.play.actions), hand.hand_id


def test_every_real_hand_with_play_of_the_smaller_rooms_round_trips_through_ohh_and_phh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Event -> settlement -> Open Hand History (and PHH) -> replay: the same settlement, for every hand with play.
    PHH is read back for the unraked hands (a PHH file has no rake field the replay reads) that end without a
    contested showdown: the play's actions show no cards (a seat that mucked is ``pN sm``; the cards shown are the
    event's), so a PHH file of a contested showdown has none to rank (Open Hand History writes them)."""
    trips: Counter[str] = Counter()
    for room in EXPECTED:
        for hand in read_room(room, monkeypatch)[0]:
            if hand.event is None or hand.event.play is None:
                continue
            doc = hand.event.model_dump(mode="json", exclude_none=True)
            result = settled(doc)
            same_settlement(read_back(ohh_json(doc, result), "ohh"), result)
            trips["ohh"] += 1
            contested = sum(not p.folded for p in hand.event.players) > 1
            if not contested and not any(pot["rake"] for pot in result["pots"]):
                again = read_back(phh_text(doc, result), "phh")
                assert judge(again).status == "match", hand.hand_id
                assert again.event is not None
                back = settled(again.event.model_dump(mode="json", exclude_none=True))
                assert [a["amount"] for a in back["awards"]] == [a["amount"] for a in result["awards"]], hand.hand_id
                trips["phh"] += 1
    assert trips == {"ohh": 184, "phh": 80}


def doctored(path: Path, old: str, new: str, read: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """Why the real hand of ``path`` with ``old`` written ``new`` gets no play (and, before, that it got one)."""
    why: list[str] = []
    original = room_play.with_play

    def spy(event: Any, log: PlayLog, *args: Any) -> Any:
        built = original(event, log, *args)
        why.append(log.why_not + (": " + log.detail if log.detail else ""))
        return built

    monkeypatch.setattr(room_play, "with_play", spy)
    text = path.read_text(encoding="utf-8-sig")
    assert text.count(old) == 1
    [real] = list(read(text, str(path)))
    [hand] = list(read(text.replace(old, new), str(path)))
    assert isinstance(real, HandRecord)
    assert real.event is not None
    assert real.event.play is not None
    assert isinstance(hand, HandRecord)
    assert hand.event is not None  # read and settled as before: only the play is refused
    assert hand.event.play is None
    return why[-1], judge(hand).status


def test_a_raise_below_the_minimum_in_a_real_ongame_hand_is_refused_by_the_state_machine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """TDA 2024 Rule 43: a re-raise is at least the last raise (the small blind raised $1 to $2: $3 at least)."""
    path = ROOMS / "OnGame" / "ItalyToast-PokerHandHistoryParser" / "CashGame" / "HandActionTests" / "3BetHand.txt"
    why, status = doctored(path, "raises $5.00 to $6.00", "raises $0.50 to $2.50", read_ongame, monkeypatch)
    assert (
        why
        == REFUSED
        + MIN_RAISE
        + "play.actions[5] 'p2 cbr 250': p2 (seat 8): the least raise is to 300 (TDA 2024 Rule 43)"
    )
    assert status == "match"  # the pot is the same: the raise's uncalled part came back


def test_an_action_out_of_turn_in_a_real_ongame_hand_is_refused_by_the_state_machine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = ROOMS / "OnGame" / "ItalyToast-PokerHandHistoryParser" / "CashGame" / "HandActionTests" / "3BetHand.txt"
    old = "kliketiklok folds\nDbcee89 folds"
    why, _ = doctored(path, old, "Dbcee89 folds\nkliketiklok folds", read_ongame, monkeypatch)
    assert why == REFUSED + OUT_OF_TURN + "play.actions[0] 'p4 f': p4 (seat 10): p3 is to act, not p4"


def test_an_action_out_of_turn_in_a_real_microgaming_hand_is_refused_by_the_state_machine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = ROOMS / "MicroGaming" / "ItalyToast-PokerHandHistoryParser" / "CashGame" / "HandActionTests" / "3BetHand.txt"
    old = '<Action seq="3" type="Fold" seat="3"/>\n      <Action seq="4" type="Fold" seat="4"/>'
    new = '<Action seq="3" type="Fold" seat="4"/>\n      <Action seq="4" type="Fold" seat="3"/>'
    why, status = doctored(path, old, new, read_microgaming, monkeypatch)
    assert why == REFUSED + OUT_OF_TURN + "play.actions[0] 'p4 f': p4 (seat 4): p3 is to act, not p4"
    assert status == "match"


@pytest.mark.parametrize(
    ("words", "limit"),
    [
        ("NL", "no_limit"), ("PL", "pot_limit"), ("FL", "fixed_limit"), ("NO_LIMIT", "no_limit"),
        ("POT_LIMIT", "pot_limit"), ("LIMIT", "fixed_limit"), ("POT LIMIT", "pot_limit"),
        ("No Limit ($1/$2)", "no_limit"), ("Limit $10/$20", "fixed_limit"), ("Omaha Hi/Lo Fixed Limit", "fixed_limit"),
        ("HOLDEMZonePoker No Limit", "no_limit"), ("HOLDEM Tournament #18094253 TBL#34, Normal- Level 7 (100/200)", ""),
    ],
)  # fmt: skip
def test_the_rooms_limit_words_are_read_as_the_betting_they_name(words: str, limit: str) -> None:
    assert limit_named(words) == limit
