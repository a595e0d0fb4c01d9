"""The iPoker reader builds each hand's ``play`` (issue 36, the round trip on the rooms' hands), as the PokerStars
reader does (tests/histories/test_room_play.py): its blinds, antes, actions (played in ``no`` order) and board as
phh-std's, so that the replay settles the hand with its betting played by the state machine; on every real iPoker
hand of ``../shared/data``. A hand phh-std cannot express here is left without play, and why is named; a doctored
copy of a real hand whose betting breaks a rule is refused by the state machine and gets none."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from showdown_service.histories import ipoker, room_play
from showdown_service.histories.compare import judge
from showdown_service.histories.errors import ReplayError
from showdown_service.histories.export import ohh_json, phh_text
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.room_play import PlayLog
from tests.helpers import SHARED_DATA
from tests.histories.test_history_export import read_back, same_settlement, settled

Read = Callable[[str, str], Iterator[HandRecord | ReplayError]]


def room_files(room: str) -> list[Path]:
    """Every file of ``room``'s real hand histories in ../shared/data (rooms and rooms-more)."""
    return sorted(p for top in ("rooms", "rooms-more") for p in (SHARED_DATA / top / room).rglob("*") if p.is_file())


def read_room(
    monkeypatch: pytest.MonkeyPatch, module: ModuleType, read: Read, files: list[Path]
) -> tuple[list[HandRecord], list[tuple[str, str]], int]:
    """Every hand of ``files`` read by ``module``'s reader, why each hand without play has none (``(hand id,
    why)``, as read: a hand in two files counts twice), and how many hands the reader refused (malformed: no event
    to give a play)."""
    texts = [(path.read_text(encoding="utf-8-sig"), str(path)) for path in files]
    return read_texts(monkeypatch, module, read, texts)


def read_texts(
    monkeypatch: pytest.MonkeyPatch, module: ModuleType, read: Read, texts: list[tuple[str, str]]
) -> tuple[list[HandRecord], list[tuple[str, str]], int]:
    """:func:`read_room` of ``(text, source)`` pairs."""
    why: list[tuple[str, str]] = []
    original = room_play.with_play

    def spy(event: Any, log: PlayLog, *args: Any) -> Any:
        built = original(event, log, *args)
        if built is None:
            why.append((event.hand_id, log.why_not + (": " + log.detail if log.detail else "")))
        return built

    monkeypatch.setattr(module, "with_play", spy)
    hands, errors = [], 0
    for text, source in texts:
        for hand in read(text, source):
            if isinstance(hand, HandRecord):
                hands.append(hand)
            else:
                errors += 1
    return hands, why, errors


def check_every_hand(hands: list[HandRecord], why: list[tuple[str, str]], known_mismatch: dict[str, str]) -> int:
    """Each hand with play matches (those of ``known_mismatch``: with the reason they have without play, too),
    settles with every seat's end stack and street and saw a flop as its play says; each settleable hand without
    play is named in ``why``. The number with play."""
    with_play = [h for h in hands if h.event is not None and h.event.play is not None]
    for hand in with_play:
        assert hand.event is not None
        assert hand.event.play is not None
        verdict = judge(hand)
        if hand.hand_id in known_mismatch:
            unplayed = judge(hand._replace(event=hand.event.model_copy(update={"play": None})))
            assert verdict.reason == unplayed.reason == known_mismatch[hand.hand_id]
        else:
            assert verdict.status == "match", (hand.hand_id, verdict.reason)
        result = settled(hand.event.model_dump(mode="json", exclude_none=True))  # played: play checked
        assert all("end_stack" in a and "folded_on" in a for a in result["awards"]), hand.hand_id
        assert result["saw_flop"] == any(a.startswith("d db") for a in hand.event.play.actions), hand.hand_id
        players = hand.event.players
        assert players[-1].seat == hand.event.button_seat, hand.hand_id
        assert list(hand.event.play.starting_stacks) == [p.stack for p in players]
    assert Counter(h.hand_id for h in hands if h.event is not None and h.event.play is None) == Counter(
        hand_id for hand_id, _ in why
    )
    return len(with_play)


def round_trips(hands: list[HandRecord]) -> Counter[str]:
    """Event -> settlement -> Open Hand History (and, unraked, PHH) -> replay: the same settlement, for each hand
    with play (see the PokerStars round-trip test for why a raked hand's PHH is not read back).

    A PHH export writes the cards the play's actions show and no others (:func:`~.export.phh_text`): a room's
    play shows none (the room's event holds them), so a contested showdown's PHH reads back without the cards
    (``phh_no_cards``, unverifiable: never a wrong settlement); Open Hand History writes them."""
    trips: Counter[str] = Counter()
    for hand in hands:
        if hand.event is None or hand.event.play is None:
            continue
        doc = hand.event.model_dump(mode="json", exclude_none=True)
        result = settled(doc)
        same_settlement(read_back(ohh_json(doc, result), "ohh"), result)
        trips["ohh"] += 1
        if not any(pot["rake"] for pot in result["pots"]):
            again = read_back(phh_text(doc, result), "phh")
            if hand.contested and again.unverifiable.startswith("unknown cards at a contested showdown"):
                trips["phh_no_cards"] += 1
                continue
            assert judge(again).status == "match", hand.hand_id
            assert again.event is not None
            amounts = [a["amount"] for a in settled(again.event.model_dump(mode="json", exclude_none=True))["awards"]]
            assert amounts == [a["amount"] for a in result["awards"]], hand.hand_id
            trips["phh"] += 1
    return trips


def doctored(
    monkeypatch: pytest.MonkeyPatch, module: ModuleType, read: Read, text: str, source: str
) -> tuple[HandRecord, str]:
    """The one hand of ``text`` read (it must still read: the chips add up), and why it got no play."""
    [hand], [(hand_id, why)], errors = read_texts(monkeypatch, module, read, [(text, source)])
    assert errors == 0
    assert hand.event is not None
    assert hand.event.play is None
    assert hand_id == hand.hand_id
    return hand, why


# --- iPoker -------------------------------------------------------------------------------------------------

FILES = room_files("IPoker")
IPOKER_MISMATCH = {
    "ipoker:7973334568": "collected (all pots): recorded seat 5 (AmberSym69) 4074, seat 8 (fackse44) 4945, "
    "rules give seat 5 (AmberSym69) 4035, seat 8 (fackse44) 4984",
}
"""A 2018 hand whose room pays the main and side pot in other shares than the rules' rake split gives (the
replay's report calls it a mismatch with or without play: the play changes nothing in it)."""
IPOKER_WHY_NOT = {  # by hand as read (a hand in two of the files counts twice, as in the replay's report)
    "fixed limit without its small bet and big bet": 5,
    "a second blind (posted out of position)": 3,  # a new player's big blind
    "no big blind or no button": 1,  # a shoot-out hand of antes only, all in
}


def test_every_real_ipoker_hand_settles_with_its_play_played_or_names_why_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hands, why, errors = read_room(monkeypatch, ipoker, ipoker.read_ipoker, FILES)
    assert (len(hands), errors) == (681, 6)
    assert check_every_hand(hands, why, IPOKER_MISMATCH) == 607
    assert Counter(reason for _, reason in why) == IPOKER_WHY_NOT
    assert not any("state machine" in reason for _, reason in why), "no real hand's betting is refused"


def test_every_real_ipoker_hand_with_play_round_trips_through_ohh_and_the_unraked_through_phh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hands, _, _ = read_room(monkeypatch, ipoker, ipoker.read_ipoker, FILES)
    assert round_trips(hands) == {"ohh": 607, "phh": 366, "phh_no_cards": 1}


BASIC = SHARED_DATA / "rooms" / "IPoker" / "CashGame" / "HandActionTests" / "3BetHand.txt"
"""Heads-up, €0.05/€0.10 with antes: the button's small blind raises to 0.40 (no 5), the big blind re-raises to
1.20 (no 6), the button to 12.10 (no 7) and the big blind calls all in (no 8, type 7)."""


def test_a_real_ipoker_hand_gets_its_play() -> None:
    [hand] = ipoker.read_ipoker(BASIC.read_text(encoding="utf-8-sig"), str(BASIC))
    assert isinstance(hand, HandRecord)
    assert hand.event is not None
    assert hand.event.play is not None
    play = hand.event.play
    assert (play.variant, play.min_bet, list(play.blinds_or_straddles), list(play.antes)) == ("NT", 10, [5, 10], [2, 2])
    betting = ["p2 cbr 40", "p1 cbr 120", "p2 cbr 1210", "p1 cc"]
    assert list(play.actions) == [*betting, "d db 5d3s2c", "d db 9s", "d db Qd"]


def test_ipoker_a_raise_below_the_minimum_gets_no_play(monkeypatch: pytest.MonkeyPatch) -> None:
    """TDA 2024 Rule 43: the big blind's re-raise to 0.60 over a raise to 0.40 (a raise of 0.30 is the least) is
    refused by the state machine; the chips still add up (the bets written follow), so the hand reads."""
    text = BASIC.read_text(encoding="utf-8-sig")
    text = text.replace('type="23" sum="€1.20"', 'type="23" sum="€0.60"').replace('sum="€5.88"', 'sum="€6.48"')
    _, why = doctored(monkeypatch, ipoker, ipoker.read_ipoker, text, "min-raise.xml")
    assert why == (
        "the betting as written is refused by the state machine (raise_below_minimum): "
        "play.actions[1] 'p1 cbr 60': p1 (seat 8): the least"
        " raise is to 70 (TDA 2024 Rule 43)"
    )


def test_ipoker_an_action_out_of_turn_gets_no_play(monkeypatch: pytest.MonkeyPatch) -> None:
    """The small blind calling before the button folds (actions 3 and 4 swapped: the chips are the same): the
    state machine refuses an action out of turn (the button acts first before the flop, three-handed)."""
    path = SHARED_DATA / "rooms" / "IPoker" / "CashGame" / "HandActionTests" / "BasicHand.txt"
    text = path.read_text(encoding="utf-8-sig")
    text = text.replace('no="3" player="Frozean"', 'no="4" player="Frozean"').replace(
        'no="4" player="joemags"', 'no="3" player="joemags"'
    )
    [real] = ipoker.read_ipoker(path.read_text(encoding="utf-8-sig"), str(path))
    assert isinstance(real, HandRecord)
    assert real.event is not None
    assert real.event.play is not None  # as written: played
    _, why = doctored(monkeypatch, ipoker, ipoker.read_ipoker, text, "out-of-turn.xml")
    assert why == (
        "the betting as written is refused by the state machine (out_of_turn): "
        "play.actions[0] 'p1 cc': p1 (seat 6): p3 is to act,"
        " not p1"
    )
