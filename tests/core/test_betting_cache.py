"""showdown_core.betting's readings kept by action text (``_STEPS``, ``_HOLE_DEALS``, ``_DECLARED``): a hand plays
the same whether its actions were read before or not, and a deal read for a larger hand is judged for this one."""

from __future__ import annotations

import tomllib

import pytest

from showdown_core import betting
from showdown_core.betting import BettingError, Hand, play
from tests.helpers import SHARED_DATA


def _emptied() -> None:
    for kept in (betting._STEPS, betting._HOLE_DEALS, betting._DECLARED):
        kept.clear()


def _pluribus_hands() -> list[Hand]:
    paths = sorted((SHARED_DATA / "phh" / "pluribus").rglob("*.phh"))[::200]
    hands = []
    for path in paths:
        fields = tomllib.loads(path.read_text(encoding="utf-8"))
        hands.append(
            Hand(fields["variant"], tuple(fields["starting_stacks"]), tuple(fields["actions"]), tuple(fields["antes"]),
                 tuple(fields["blinds_or_straddles"]), min_bet=fields["min_bet"], ante_trimming_status=True)
        )  # fmt: skip
    return hands


def test_real_hands_play_the_same_with_the_readings_kept_and_emptied() -> None:
    hands = _pluribus_hands()
    assert len(hands) >= 30
    cold = []
    for hand in hands:
        _emptied()  # every action read afresh
        cold.append(play(hand))
    warm = [play(hand) for hand in hands]  # every action read before, by an earlier hand or this one
    assert warm == cold
    assert all(len(p.hole_cards) == 6 and p.hole_cards[0] is not None for p in warm)  # the deals' cards kept


def test_a_deal_read_for_a_larger_hand_is_refused_to_a_player_this_hand_lacks() -> None:
    _emptied()
    three = Hand("NT", (200, 200, 200), ("d dh p1 2c3c", "d dh p2 4c5c", "d dh p3 AhKd", "p3 f", "p1 f"),
                 blinds_or_straddles=(1, 2, 0), min_bet=2)  # fmt: skip
    assert play(three).hole_cards[2] == ("Ah", "Kd")
    two = Hand("NT", (200, 200), ("d dh p3 AhKd",), blinds_or_straddles=(1, 2), min_bet=2)
    with pytest.raises(BettingError) as caught:
        play(two)
    assert (caught.value.rule, caught.value.index) == ("bad_action", 0)
    assert "'p3' is not a player (p1 to p2)" in caught.value.reason
