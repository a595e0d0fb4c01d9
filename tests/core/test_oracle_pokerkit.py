"""Differential test against pokerkit, an independent evaluator (a test dependency only)."""

from __future__ import annotations

import random

import pytest
from pokerkit import Hand, StandardHighHand

from showdown_core import DECK, Card, evaluate, evaluate_showdown


def pokerkit_hand(cards: list[Card]) -> Hand:
    text = "".join(c.text for c in cards)
    return StandardHighHand.from_game(text[:4], text[4:])


@pytest.mark.parametrize("size", [5, 6, 7])
def test_every_random_hand_gets_pokerkits_class_and_category(size: int) -> None:
    rng = random.Random(1000 + size)
    for _ in range(3000 if size == 7 else 1000):
        hand = rng.sample(DECK, size)
        ours = evaluate(hand)
        theirs = pokerkit_hand(hand)
        assert ours.strength == theirs.entry.index + 1, hand
        assert ours.category.wire == theirs.entry.label.value.lower().replace(" ", "_"), hand


def test_random_six_player_showdowns_pick_the_same_winners_as_pokerkit() -> None:
    rng = random.Random(99)
    for _ in range(500):
        deal = rng.sample(DECK, 5 + 12)
        board, holes = deal[:5], [deal[5 + 2 * i : 7 + 2 * i] for i in range(6)]
        ours = evaluate_showdown(board, holes)
        theirs = [pokerkit_hand(h + board) for h in holes]
        best_ours = max(ours)
        best_theirs = max(theirs)
        assert [v == best_ours for v in ours] == [h == best_theirs for h in theirs], (board, holes)
