"""The mechanisms the text room readers share (worker/showdown_service/histories/reading.py): each room gives its words,
the error names the room, the file and the line (docs/replay.md, The other rooms)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from showdown_service.histories.acr import read_acr
from showdown_service.histories.errors import ChipsDoNotAddUp, HandSyntaxError, ImpossibleAction, ReplayError
from showdown_service.histories.fulltilt import read_fulltilt
from showdown_service.histories.ggpoker import read_ggpoker
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.pacific import read_pacific
from showdown_service.histories.partypoker import read_partypoker
from showdown_service.histories.winamax import read_winamax
from showdown_service.histories.wpn import read_wpn
from tests.helpers import REPO, SHARED_DATA

Reader = Callable[[str, str], Iterator[HandRecord | ReplayError]]
FIXTURES = REPO / "tests" / "fixtures" / "replay"
ROOMS = SHARED_DATA / "rooms"
GGPOKER = FIXTURES / "ggpoker" / "three_hands.txt"
WINAMAX = ROOMS / "Winamax" / "CashGame" / "GeneralHands" / "GeneralHand.txt"
ACR = FIXTURES / "acr" / "tournament.txt"


def _read(reader: Reader, text: str) -> list[HandRecord | ReplayError]:
    return list(reader(text, "sample.txt"))


def _errors(results: list[HandRecord | ReplayError]) -> list[ReplayError]:
    return [r for r in results if isinstance(r, ReplayError)]


@pytest.mark.parametrize(
    ("reader", "path", "first"),
    [
        (read_ggpoker, GGPOKER, "Poker Hand #"),
        (read_winamax, WINAMAX, "Winamax Poker - "),
        (read_acr, ACR, "Game Hand #"),
        (read_fulltilt, FIXTURES / "fulltilt" / "sit_and_go.txt", "Full Tilt Poker Game #"),
        (read_pacific, ROOMS / "Pacific" / "CashGame" / "Tables" / "Table1.txt", "#Game No :"),
        (read_partypoker, ROOMS / "PartyPoker" / "CashGame" / "Tables" / "Table1.txt", "***** Hand History for Game"),
        (read_wpn, ROOMS / "WinningPoker" / "CashGame" / "Tables" / "Table1.txt", "Game started at:"),
    ],
)
def test_split_hands_text_before_the_first_hand_is_an_error_naming_the_rooms_first_line_and_the_hands_still_read(
    reader: Reader, path: Path, first: str
) -> None:
    text = path.read_text(encoding="utf-8")
    plain = _read(reader, text)
    assert plain
    assert not any(isinstance(r, HandSyntaxError) and r.hand is None for r in plain)
    junk = _read(reader, "\n\nnot a hand\n" + text)
    assert isinstance(junk[0], HandSyntaxError)
    assert (junk[0].source, junk[0].hand, junk[0].line) == ("sample.txt", None, 3)
    assert str(junk[0]).endswith(f"text before the first '{first}' line")
    assert [type(r) for r in junk[1:]] == [type(r) for r in plain]
    assert [r.line for r in junk[1:] if isinstance(r, HandRecord)] == [
        r.line + 3 for r in plain if isinstance(r, HandRecord)
    ]


@pytest.mark.parametrize(
    ("reader", "path", "after", "line", "reason"),
    [
        (read_ggpoker, GGPOKER, "Hero: posts small blind $0.02", "Hero: flips a coin", "not a GGPoker action"),
        (read_winamax, WINAMAX, "titi63000 posts small blind 0.50€", "titi63000 flips a coin", "not a Winamax action"),
        (read_acr, ACR, "Ann posts ante 5.00", "Ann flips a coin", "not a WPN action"),
        (read_ggpoker, GGPOKER, "Hero: posts small blind $0.02", "Somebody else flips", "not a line of a GGPoker hand"),
        (read_winamax, WINAMAX, "titi63000 posts small blind 0.50€", "Somebody flips", "not a line of a Winamax hand"),
        (read_acr, ACR, "Ann posts ante 5.00", "Somebody flips a coin", "not a line of a WPN hand"),
    ],
)
def test_act_and_actor_a_line_the_room_does_not_write_is_an_error_naming_the_room_and_quoting_the_line(
    reader: Reader, path: Path, after: str, line: str, reason: str
) -> None:
    text = path.read_text(encoding="utf-8")
    assert after in text
    errors = _errors(_read(reader, text.replace(after, f"{after}\n{line}", 1)))
    assert isinstance(errors[0], HandSyntaxError)
    assert str(errors[0]).endswith(f"{reason}: {line!r}")


@pytest.mark.parametrize(
    ("reader", "path", "after"),
    [
        (read_winamax, WINAMAX, "titi63000 posts small blind 0.50€"),
        (read_acr, ACR, "Ann posts ante 5.00"),
        (read_pacific, ROOMS / "Pacific" / "CashGame" / "Tables" / "Table1.txt", "Raiseman13 posts big blind [$0.10]"),
        (read_partypoker, ROOMS / "PartyPoker" / "CashGame" / "Tables" / "Table1.txt", "posts big blind [$0.10 USD]."),
    ],
)
def test_dealt_cards_to_a_name_with_no_seat_is_an_impossible_action(reader: Reader, path: Path, after: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert after in text
    errors = _errors(_read(reader, text.replace(after, f"{after}\nDealt to Ghost [Ah Kd]", 1)))
    assert isinstance(errors[0], ImpossibleAction)
    assert str(errors[0]).endswith("cards dealt to a player with no seat: 'Dealt to Ghost [Ah Kd]'")


def test_check_total_a_total_pot_the_actions_do_not_make_is_chips_that_do_not_add_up() -> None:
    text = GGPOKER.read_text(encoding="utf-8")
    assert "Total pot $10.05 |" in text
    errors = _errors(_read(read_ggpoker, text.replace("Total pot $10.05 |", "Total pot $10.06 |", 1)))
    assert isinstance(errors[0], ChipsDoNotAddUp)
    assert str(errors[0]).endswith("the pots hold 1005 by the actions but 'Total pot' says 1006")


def test_seats_one_seat_is_not_a_hand() -> None:
    text = WINAMAX.read_text(encoding="utf-8")
    errors = _errors(_read(read_winamax, text.replace("Seat 2: titi63000 (116.40€)\n", "", 1)))
    assert isinstance(errors[0], HandSyntaxError)
    assert "a hand needs two seats; seat lines expected" in str(errors[0])
