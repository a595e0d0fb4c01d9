"""The PHH reader's fast paths (lines and actions read before, fields as usually written) read and refuse exactly
what the general reading does: every unusual field or action is read, or refused naming its line, the same on a
first read and on a second one that meets the caches."""

from __future__ import annotations

import pytest

from showdown_service.histories import (
    ChipsDoNotAddUp,
    HandRecord,
    HandSyntaxError,
    ImpossibleAction,
    PhhOutcome,
    ReplayError,
    UnsupportedHand,
    judge,
    phh,
    read_phh,
)
from showdown_service.histories.phh import _flat_fields, _NotFlat
from tests.helpers import REPO

HAND = """variant = 'NT'
ante_trimming_status = true
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [10000, 10000, 10000]
actions = ['d dh p1 Ks7d', 'd dh p2 8sQh', 'd dh p3 2sKh', 'p3 cbr 300', 'p1 f', 'p2 cc', 'd db 3dQc2c', 'p2 cc', \
'p3 cc', 'd db 9s', 'p2 cc', 'p3 cc', 'd db 5s', 'p2 cc', 'p3 cc', 'p2 sm 8sQh', 'p3 sm 2sKh']
players = ['A', 'B', 'C']
finishing_stacks = [9950, 10350, 9700]
"""
SOURCE = "/x/phh/fast/1.phh"
GAMES = REPO / "tests" / "fixtures" / "replay" / "phh" / "games"


def twice(body: str) -> HandRecord | ReplayError:
    """The hand read twice (the second read meets every cache the first filled): both readings alike."""
    (first,) = read_phh(body, SOURCE)
    (second,) = read_phh(body, SOURCE)
    if isinstance(first, HandRecord):
        assert isinstance(second, HandRecord), second
        assert first.event == second.event
        assert first.outcome == second.outcome
    else:
        assert (type(second), str(second), second.line) == (type(first), str(first), first.line)
    return first


def changed(old: str, new: str) -> str:
    assert old in HAND, old
    return HAND.replace(old, new)


@pytest.mark.parametrize(
    ("old", "new", "kind", "line", "words"),
    [
        ("[10000, 10000, 10000]", "[-1, 10000, 10000]", HandSyntaxError, 6, "starting_stacks[0] = -1 is not a whole"),
        ("[10000, 10000, 10000]", "[]", UnsupportedHand, 6, "0 players; a hand has 2 to 10"),
        ("[10000, 10000, 10000]", "'10000'", HandSyntaxError, 6, "starting_stacks = '10000' is not a list"),
        ("antes = [0, 0, 0]", "antes = [0, 0]", HandSyntaxError, 3, "antes has 2 entries for 3 players"),
        ("antes = [0, 0, 0]", "antes = [false, 0, 0]", HandSyntaxError, 3, "antes[0] = False is not a whole"),
        ("[50, 100, 0]", "[50, -100, 0]", HandSyntaxError, 4, "blinds_or_straddles[1] = -100 is not a whole"),
        ("blinds_or_straddles = [50, 100, 0]\n", "", HandSyntaxError, 1, "'blinds_or_straddles' is missing"),
        ("variant = 'NT'", "variant = 3", HandSyntaxError, 1, "variant = 3 is not a str"),
        ("actions = [", "actions = 'x' #[", HandSyntaxError, 7, "actions = 'x' is not a list"),
        ("ante_trimming_status = true", "ante_trimming_status = 1", HandSyntaxError, 2, "= 1 is not a bool"),
        ("['A', 'B', 'C']", "['A', 'B']", HandSyntaxError, 8, "players must name each of the 3 players"),
        ("['A', 'B', 'C']", "['A', 'B', 3]", HandSyntaxError, 8, "players must name each of the 3 players"),
        ("['A', 'B', 'C']", "'A'", HandSyntaxError, 8, "players = 'A' is not a list"),
        ("[9950, 10350, 9700]", "[9950, 10650]", HandSyntaxError, 9, "finishing_stacks has 2 entries for 3"),
        ("[9950, 10350, 9700]", "[9950, 10650, true]", HandSyntaxError, 9, "finishing_stacks[2] = True is not a"),
        ("finishing_stacks = [9950, 10350, 9700]", "winnings = [0, 1300, 0]", ChipsDoNotAddUp, 9, "total 1300"),
        ("'p1 f'", "'p4 f'", HandSyntaxError, 7, "'p4' is not a player (p1 to p3)"),
        ("'d dh p2 8sQh'", "'d dh p1 8sQh'", ImpossibleAction, 7, "p1 was already dealt hole cards (action 1)"),
        ("'d dh p2 8sQh'", "'d dh p2 Ks8s'", ImpossibleAction, 7, "Ks was already dealt (action 1)"),
        ("'d dh p1 Ks7d'", "'d dh p1 KsKs'", ImpossibleAction, 7, "Ks is also at players[0].hole_cards[0]"),
        ("'p3 cbr 300'", "'p3 cbr 100'", ImpossibleAction, 7, "a raise to 100 does not raise the bet of 100"),
        ("'p3 cbr 300'", "'p2 cbr 300'", ImpossibleAction, 7, "'p2 cbr 300': p3 is to act, not p2"),
        (
            "'d db 3dQc2c', 'p2 cc'",
            "'p2 cc', 'd db 3dQc2c'",
            ImpossibleAction,
            7,
            "the flop is to be dealt (d db) before",
        ),
        ("'d db 3dQc2c'", "'d db KsQc2c'", ImpossibleAction, 7, "Ks was already dealt (action 1)"),
        ("'d db 3dQc2c'", "'d db 3d3d2c'", ImpossibleAction, 7, "3d is also at board[0]"),
        ("'d db 3dQc2c'", "'d db 3dQc2c4h'", ImpossibleAction, 7, "deals 4 board card(s); the flop is 3"),
        ("'d db 3dQc2c'", "'d db 3dQc'", ImpossibleAction, 7, "deals 2 board card(s); the flop is 3"),
        ("'d db 3dQc2c'", "'d db 3d??2c'", HandSyntaxError, 7, "board cards are dealt face up"),
        ("'p2 sm 8sQh'", "'p2 f'", ImpossibleAction, 7, "action 16 'p2 f': the river's betting is over"),
        ("min_bet = 100", "min_bet = 100\nmin_bet = 100", HandSyntaxError, 6, "not valid TOML"),
        ("'p2 sm 8sQh'", "'p2 sm 8sQd'", ImpossibleAction, 7, "p2 shows 8sQd but was dealt 8sQh"),
        ("'p2 sm 8sQh'", "'p2 sm 2sKh'", ImpossibleAction, 7, "p2 shows 2sKh but was dealt 8sQh"),
        ("'p2 sm 8sQh'", "'p1 sm Ks7d'", ImpossibleAction, 7, "p1 folded and has nothing to show"),
        ("'p2 sm 8sQh'", "'p1 sm'", ImpossibleAction, 7, "p1 folded and has nothing to show"),
        ("'p3 cc', 'p2 sm 8sQh'", "'p2 sm 8sQh', 'p3 cc'", ImpossibleAction, 7, "'p2 sm 8sQh': p3 is still to act"),
        ("'p2 sm 8sQh'", "'p4 sm 8sQh'", HandSyntaxError, 7, "'p4' is not a player (p1 to p3)"),
    ],
)
def test_a_field_or_action_written_unusually_is_refused_naming_its_line_on_every_read(
    old: str, new: str, kind: type[ReplayError], line: int, words: str
) -> None:
    found = twice(changed(old, new))
    assert isinstance(found, kind), found
    assert found.line == line
    assert words in str(found)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("starting_stacks = [10000,", "starting_stacks = [10000.0,"),  # a whole float is a number of chips
        ("ante_trimming_status = true\n", ""),  # optional: no trimming
        ("'d dh p1 Ks7d'", "'d dh p1 ks7D'"),  # any spelling of a card
        ("'d db 3dQc2c'", "'d db 3dqc2C'"),
        ("'p3 cbr 300'", "'p3 cbr 0300'"),
        ("'p1 f'", "'p1 f # a comment'"),
        ("'p1 f'", "'p1  f'"),
        ("min_bet = 100", "# a comment\nmin_bet = 100\n\n"),
        ("'p2 sm 8sQh'", "'p2 sm 8sqh'"),
        ("'p2 sm 8sQh'", "'p2 sm -'"),  # shows the cards dealt
        ("'p2 sm 8sQh'", "'p2 sm ????'"),  # a partial show reveals nothing
        ("'p2 sm 8sQh'", "'p2 sm 8sQh', 'p2 sm 8sQh'"),
    ],
)
def test_a_field_or_action_written_unusually_reads_as_the_usual_one(old: str, new: str) -> None:
    usual, unusual = twice(HAND), twice(changed(old, new))
    assert isinstance(usual, HandRecord), usual
    assert isinstance(unusual, HandRecord), unusual
    assert unusual.event == usual.event
    assert unusual.outcome == usual.outcome
    assert judge(unusual).status == "match"


def test_a_line_read_before_gives_each_hand_its_own_values() -> None:
    first = _flat_fields(HAND)
    first["starting_stacks"][0] = 1
    first["players"].append("D")
    again = _flat_fields(HAND)
    assert again["starting_stacks"] == [10000, 10000, 10000]
    assert again["players"] == ["A", "B", "C"]


def test_a_key_repeated_on_lines_read_before_is_still_left_to_tomllib() -> None:
    _flat_fields("hand = 1\n")
    with pytest.raises(_NotFlat):
        _flat_fields("hand = 1\nhand = 1\n")


def test_a_hand_with_stacks_unknown_is_read_with_its_stacks_unknown() -> None:
    found = twice(changed("[10000, 10000, 10000]", "[inf, 10000, 10000]"))
    assert isinstance(found, HandRecord), found
    assert found.event is not None
    assert [p.stack for p in found.event.players] == [None, None, None]


def test_a_hand_record_built_without_keywords_holds_each_field_under_its_name() -> None:
    found = twice(HAND)
    assert isinstance(found, HandRecord), found
    by_name = HandRecord(
        source=SOURCE,
        hand_id="fast:data/fast/1.phh",
        line=1,
        event=found.event,
        outcome=PhhOutcome(finishing={1: 9950, 2: 10350, 3: 9700}, winnings=None),
        unverifiable="",
        contested=True,
        game="Hold'em",
        played_by_reader=True,  # the PHH reader plays the hand's betting through the state machine
    )
    assert found == by_name
    assert found._asdict() == by_name._asdict()


def test_cards_shown_in_another_order_are_the_seats_cards_in_that_order() -> None:
    found = twice(changed("'p2 sm 8sQh'", "'p2 sm Qh8s'"))
    assert isinstance(found, HandRecord), found
    assert found.event is not None
    assert found.event.players[1].hole_cards == ("Qh", "8s")


def test_a_muck_at_the_showdown_forfeits_on_every_read() -> None:
    found = twice(changed("'p2 sm 8sQh'", "'p2 sm'"))
    assert isinstance(found, HandRecord), found
    assert found.event is not None
    assert found.event.players[1].folded
    assert judge(found).status == "mismatch"  # the history pays p2, who mucked


def _reading(body: str, source: str) -> list[object]:
    out: list[object] = []
    for found in read_phh(body, source):
        if isinstance(found, HandRecord):
            verdict = judge(found)
            out.append((found.event, found.outcome, found.unverifiable, verdict.status, verdict.reason))
        else:
            out.append((type(found), found.line, str(found)))
    return out


@pytest.mark.parametrize("name", sorted(path.name for path in GAMES.glob("*.phh")))
def test_every_action_dropped_repeated_or_swapped_reads_alike_with_empty_and_full_caches(name: str) -> None:
    # a cache that read a line or an action otherwise than the general reading would tell the two reads apart
    body = (GAMES / name).read_text(encoding="utf-8")
    written = next(line for line in body.split("\n") if line.startswith("actions = ["))
    actions = written.removeprefix("actions = [").removesuffix("]").split(", ")
    variants = []
    for k in range(len(actions)):
        variants += [actions[:k] + actions[k + 1 :], actions[: k + 1] + actions[k:]]
        if k + 1 < len(actions):
            variants.append([*actions[:k], actions[k + 1], actions[k], *actions[k + 2 :]])
    for changed_actions in variants:
        changed_body = body.replace(written, f"actions = [{', '.join(changed_actions)}]")
        for cache in (phh._LINES, phh._STEPS, phh._FOLDERS):
            cache.clear()
        assert _reading(changed_body, name) == _reading(changed_body, name), changed_actions
