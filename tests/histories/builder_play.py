"""What the tests of the rooms whose readers build on :class:`~showdown_service.histories.builder.HandBuilder` share
for the hand's ``play`` (issue 36, the round trip on every real hand): every real hand of a room read with why a
hand has no play, the checks that a hand with play settles with its betting played and matches its history, the
round trip through the Open Hand History and PHH exports, and a real hand doctored line by line."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

import pytest

from showdown_service.histories import room_play
from showdown_service.histories.compare import judge
from showdown_service.histories.errors import ReplayError
from showdown_service.histories.export import ohh_json, phh_text
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.room_play import PlayLog
from showdown_service.histories.run import find_files, read_file
from tests.helpers import SHARED_DATA
from tests.histories.test_history_export import read_back, same_settlement, settled

STATE_MACHINE = "the betting as written is refused by the state machine"
"""How :func:`~showdown_service.histories.room_play.with_play` begins a refusal of the state machine."""
DETAIL = "detail"
"""The :class:`PlayLog` field that holds the state machine's message apart from the reason, where it has one."""


def room_files(room: str) -> list[str]:
    """Every file of ``room`` in ../shared/data's rooms and rooms-more (rooms/Pacific, rooms-more/Pacific)."""
    files, _ = find_files(str(SHARED_DATA / top / room) for top in ("rooms", "rooms-more"))
    assert files, room
    return files


def spy_on_play(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, PlayLog]]:
    """From now on, the log of each hand the builder tries to give a play, with the hand's id: its ``why_not`` says
    why the hand has none, once read (the builder may refuse after the try: a play that is no valid event)."""
    logs: list[tuple[str, PlayLog]] = []
    original = room_play.with_play

    def spy(event: Any, log: PlayLog, *args: Any) -> Any:
        logs.append((event.hand_id, log))
        return original(event, log, *args)

    monkeypatch.setattr(room_play, "with_play", spy)  # what the builder calls (imported when it plays a hand)
    return logs


def why_not(logs: list[tuple[str, PlayLog]]) -> dict[str, str]:
    """Why each hand of ``logs`` without play has none (by hand id: two hands of one id, in two files, may differ)."""
    return {hand: log.why_not for hand, log in logs if log.why_not}


def read_room(
    monkeypatch: pytest.MonkeyPatch, room: str, formats: Iterable[str]
) -> tuple[list[HandRecord], dict[str, str]]:
    """Every real hand of ``room``'s folders in the ``formats`` named (``888poker``; ``acr``, ``wpn``), read, and why
    each hand without play has none (by hand id); a hand the reader refuses is left out (the replay's tests name
    those)."""
    logs = spy_on_play(monkeypatch)
    hands = []
    wanted = set(formats)
    for path in room_files(room):
        kind, found, _ = read_file(path)
        if kind in wanted:
            hands += [hand for hand in found if not isinstance(hand, ReplayError)]
    return hands, why_not(logs)


def with_play(hands: list[HandRecord]) -> list[HandRecord]:
    return [hand for hand in hands if hand.event is not None and hand.event.play is not None]


def reasons(hands: list[HandRecord], why: dict[str, str]) -> Counter[str]:
    """Why the hands settled without play have none, counted by hand (a hand in two files twice); the reasons whose
    words room_play changes as it learns more (fixed limit, issue 36's h36-games) by what they say (:data:`SAYS`)."""
    said = (why[hand.hand_id] for hand in hands if hand.event is not None and hand.event.play is None)
    return Counter(next((short for start, short in SAYS if reason.startswith(start)), reason) for reason in said)


SAYS: Final = (
    ("fixed_limit betting: ", FIXED_LIMIT := "fixed limit"),  # before room_play wrote fixed limit
    ("fixed limit without its small bet and big bet", FIXED_LIMIT),  # since: the builder rooms pass no bets yet
    ("an unnamed betting: ", UNNAMED := "a betting the header does not name"),
)
"""A reason's beginning in room_play's words, and what the tests call it."""


def assert_played_and_matching(hands: list[HandRecord]) -> None:
    """Each hand with play matches its history, its settlement (played: the play checked) giving every seat its end
    stack and the street it folded on, and saw_flop when the play deals a flop."""
    for hand in with_play(hands):
        assert hand.event is not None
        assert hand.event.play is not None
        verdict = judge(hand)
        assert verdict.status == "match", (hand.hand_id, verdict.reason)
        result = settled(hand.event.model_dump(mode="json", exclude_none=True))
        assert all("end_stack" in a and "folded_on" in a for a in result["awards"]), hand.hand_id
        assert result["saw_flop"] == any(a.startswith("d db") for a in hand.event.play.actions), hand.hand_id
        assert hand.event.players[-1].seat == hand.event.button_seat, hand.hand_id
        assert list(hand.event.play.starting_stacks) == [p.stack for p in hand.event.players], hand.hand_id


def round_trips(hands: list[HandRecord]) -> Counter[str]:
    """Event -> settlement -> Open Hand History (and, unraked, PHH) -> replay: the same settlement, for each hand
    with play; how many round-tripped through each format. PHH has no rake field the replay reads: a raked hand's PHH
    is not read back to its settlement (see tests/histories/test_room_play.py)."""
    trips: Counter[str] = Counter()
    for hand in with_play(hands):
        assert hand.event is not None
        doc = hand.event.model_dump(mode="json", exclude_none=True)
        result = settled(doc)
        same_settlement(read_back(ohh_json(doc, result), "ohh"), result)
        trips["ohh"] += 1
        if not any(pot["rake"] for pot in result["pots"]):  # PHH names players, not seats: compared in order
            again = read_back(phh_text(doc, result), "phh")
            assert judge(again).status == "match", hand.hand_id
            assert again.event is not None
            amounts = [a["amount"] for a in settled(again.event.model_dump(mode="json", exclude_none=True))["awards"]]
            assert amounts == [a["amount"] for a in result["awards"]], hand.hand_id
            trips["phh"] += 1
    return trips


def doctored(
    monkeypatch: pytest.MonkeyPatch, path: Path, replace: dict[str, str], tmp_path: Path
) -> tuple[HandRecord, str]:
    """The one hand of the real file ``path`` with each text of ``replace`` (found once) written as its value, read
    again: the hand, settled without play, and why it has none (with the state machine's message, where a log keeps
    it apart from the reason)."""
    kind, found, _ = read_file(str(path))
    [real] = [hand for hand in found if isinstance(hand, HandRecord)]
    assert real.event is not None
    assert real.event.play is not None, "the real hand has its play"
    text = path.read_bytes().decode("utf-8-sig")
    for old, new in replace.items():
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    copy = tmp_path / path.name
    copy.write_text(text, encoding="utf-8")
    logs = spy_on_play(monkeypatch)
    again, found, _ = read_file(str(copy))
    assert again == kind
    [hand] = list(found)
    assert isinstance(hand, HandRecord), hand
    assert hand.event is not None, "the doctored hand is still read and settled, without its play"
    assert hand.event.play is None
    [log] = [log for hand_id, log in logs if hand_id == hand.hand_id]
    detail = str(getattr(log, DETAIL, ""))  # a log that keeps the state machine's message apart (h36-games)
    return hand, log.why_not + (f": {detail}" if detail else "")
