"""Exact equity (showdown_core.equity) against an independent enumerator: pokerkit's hand classes (dev only)
valuing every remaining board, on random hold'em, short deck, Omaha and Omaha Hi/Lo spots; the numpy path
against the board-by-board one; bad input named."""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations
from math import comb
from typing import Any

import pytest
from pokerkit import OmahaEightOrBetterLowHand, OmahaHoldemHand, ShortDeckHoldemHand, StandardHighHand

from showdown_core import DECK, Card, InvalidEvent, parse_cards
from showdown_core.equity import _by_board, _holdem, _short_deck, equity
from showdown_core.variants import VARIANTS

HIGH_CLASS: dict[str, Any] = {
    "holdem": StandardHighHand,
    "short_deck_straight_over_trips": ShortDeckHoldemHand,  # pokerkit's order: the WSOP's (test_differential)
    "omaha": OmahaHoldemHand,
    "omaha_hilo": OmahaHoldemHand,
}


def text(cards: Sequence[Card]) -> str:
    return "".join(c.text for c in cards)


def pokerkit_equity(variant: str, holes: list[list[Card]], board: list[Card]) -> list[Fraction]:
    """Each hand's share of the pot over every remaining board, from pokerkit's hands: the rule stated in the
    issue (ties split; hi-lo halves when a low qualifies, else the high hand scoops)."""
    used = {c for hole in holes for c in hole} | set(board)
    lowest = VARIANTS[variant].shape.lowest_rank
    deck = [c for c in DECK if c not in used and c.rank >= lowest]
    shares = [Fraction(0)] * len(holes)
    boards = 0
    for extra in combinations(deck, 5 - len(board)):
        boards += 1
        full = text([*board, *extra])
        highs = [HIGH_CLASS[variant].from_game(text(hole), full) for hole in holes]
        halves = [(highs, Fraction(1))]
        if variant == "omaha_hilo":
            lows: list[Any] = []
            for hole in holes:
                try:
                    lows.append(OmahaEightOrBetterLowHand.from_game(text(hole), full))
                except ValueError:  # no qualifying low
                    lows.append(None)
            qualified = [low for low in lows if low is not None]
            if qualified:
                halves = [(highs, Fraction(1, 2)), (lows, Fraction(1, 2))]
        for hands, part in halves:
            best = max(h for h in hands if h is not None)
            winners = [i for i, h in enumerate(hands) if h is not None and h == best]
            for i in winners:
                shares[i] += part / len(winners)
    return [share / boards for share in shares]


def deal(rng: random.Random, variant: str, hands: int, board: int) -> tuple[list[list[Card]], list[Card]]:
    shape = VARIANTS[variant].shape
    deck = [c for c in DECK if c.rank >= shape.lowest_rank]
    size = rng.choice(shape.hole_cards)
    cards = rng.sample(deck, hands * size + board)
    return [cards[i * size : (i + 1) * size] for i in range(hands)], cards[hands * size :]


SPOTS = [
    # (variant, hands, board cards known, spots): bounded, pokerkit values about 20,000 hands a second
    ("holdem", 2, 3, 4),
    ("holdem", 3, 3, 3),
    ("holdem", 4, 4, 4),
    ("short_deck_straight_over_trips", 2, 3, 3),
    ("omaha", 2, 4, 4),
    ("omaha", 3, 3, 1),
    ("omaha_hilo", 2, 4, 6),
    ("omaha_hilo", 3, 4, 3),
    ("omaha_hilo", 2, 3, 1),
]


@pytest.mark.parametrize(("variant", "hands", "known", "spots"), SPOTS)
def test_random_spots_match_pokerkit_enumerating_every_board(variant: str, hands: int, known: int, spots: int) -> None:
    rng = random.Random(f"{variant}-{hands}-{known}")
    for _ in range(spots):
        holes, board = deal(rng, variant, hands, known)
        ours = equity(VARIANTS[variant], holes, board)
        assert list(ours.shares) == pokerkit_equity(variant, holes, board), (holes, board)
        assert sum(ours.shares) == 1


def test_a_complete_board_is_one_board_and_a_split_pot_is_exact_halves() -> None:
    holes = [list(parse_cards(["As", "Kc"])), list(parse_cards(["Ad", "Kh"]))]
    result = equity(VARIANTS["holdem"], holes, parse_cards(["2c", "7d", "9h", "Js", "3c"]))
    assert result.boards == 1
    assert result.shares == (Fraction(1, 2), Fraction(1, 2))


def test_heads_up_preflop_holdem_enumerates_all_1712304_boards() -> None:
    result = equity(VARIANTS["holdem"], [parse_cards(["As", "Kc"]), parse_cards(["7h", "7c"])])
    assert result.boards == 1_712_304 == comb(48, 5)
    assert sum(result.shares) == 1
    assert Fraction(45, 100) < result.shares[0] < Fraction(46, 100)  # AKo against 77: about 45% (PokerStove)


def test_the_numpy_path_with_five_cards_to_deal_agrees_with_pokerkit() -> None:
    """Five cards to deal (the preflop case) on a deck thinned by dead cards, so pokerkit can value it all."""
    rng = random.Random(5)
    cards = rng.sample(DECK, 4 + 30)
    holes = [cards[0:2], cards[2:4]]
    dead = cards[4:]
    ours = equity(VARIANTS["holdem"], holes, (), dead)
    assert ours.boards == comb(18, 5)
    assert list(ours.shares) == pokerkit_with_dead(holes, dead)


def pokerkit_with_dead(holes: list[list[Card]], dead: list[Card]) -> list[Fraction]:
    used = {c for hole in holes for c in hole} | set(dead)
    deck = [c for c in DECK if c not in used]
    shares = [Fraction(0)] * len(holes)
    boards = list(combinations(deck, 5))
    for extra in boards:
        hands = [StandardHighHand.from_game(text(hole), text(extra)) for hole in holes]
        best = max(hands)
        winners = [i for i, h in enumerate(hands) if h == best]
        for i in winners:
            shares[i] += Fraction(1, len(winners))
    return [share / len(boards) for share in shares]


@pytest.mark.parametrize(
    ("variant", "hands", "known"),
    [
        ("holdem", 2, 0),
        ("holdem", 3, 0),
        ("holdem", 6, 3),
        ("holdem", 9, 4),
        ("holdem", 2, 5),
        ("short_deck", 2, 0),
        ("short_deck", 4, 3),
        ("short_deck_straight_over_trips", 3, 0),
    ],
)
def test_the_numpy_path_agrees_with_the_board_by_board_one(variant: str, hands: int, known: int) -> None:
    rng = random.Random(f"{variant}{hands}{known}")
    game = VARIANTS[variant]
    for _ in range(3):
        holes, board = deal(rng, variant, hands, known)
        used = {c for hole in holes for c in hole} | set(board)
        deck = [c for c in DECK if c not in used and c.rank >= game.shape.lowest_rank]
        deck = deck[: 20 if known == 0 else None]  # fewer boards preflop
        to_deal = 5 - known
        fast_units, fast_whole = _holdem(holes, board, deck, to_deal, _short_deck(game.high))
        slow_units, slow_whole = _by_board(game, holes, board, deck, to_deal)
        fast = [Fraction(u, fast_whole) for u in fast_units]
        assert fast == [Fraction(u, slow_whole) for u in slow_units], (holes, board)


def test_hi_lo_halves_are_exact_fractions_with_no_odd_chip() -> None:
    """A2 against A3 with a low board: both make a low on every board that gives one; shares are thirds and
    quarters of halves, never rounded to a chip."""
    holes = [list(parse_cards(["Ah", "2h", "Kc", "Qd"])), list(parse_cards(["Ad", "3s", "Kd", "Qc"]))]
    board = list(parse_cards(["4c", "5d", "9s", "Th"]))
    ours = equity(VARIANTS["omaha_hilo"], holes, board)
    assert list(ours.shares) == pokerkit_equity("omaha_hilo", holes, board)
    assert ours.boards == 52 - 12
    assert all(s.denominator > 1 for s in ours.shares)


@pytest.mark.parametrize(
    ("variant", "holes", "board", "code", "field", "says"),
    [
        ("holdem", ["AsKc", "AsQd"], "", "duplicate_card", "hands[1][0]", "As is also at hands[0][0]"),
        ("holdem", ["AsKc", "7h7c"], "Ah7d7h", "duplicate_card", "hands[1][0]", "7h is also at board[2]"),
        ("holdem", ["AsKcQd", "7h7c"], "", "bad_hole_cards", "hands[0]", "AsKcQd has 3 cards"),
        ("omaha", ["AsKcQdJd", "7h7c6h"], "", "bad_hole_cards", "hands[1]", "Omaha hands have 4, 5 or 6"),
        ("omaha", ["AsKcQdJd", "7h7c6h6c5d"], "", "unequal_hole_cards", "hands[1]", "has 5 cards but hands[0]"),
        ("holdem", ["AsKc"], "", "bad_hole_cards", "hands", "1 given"),
        ("holdem", ["AsKc", "7h7c"], "2c3c4c5c6c7c", "bad_board_size", "board", "has 6 cards"),
        ("short_deck", ["AsKc", "7h2c"], "", "card_not_in_deck", "hands[1][1]", "2c is not in the"),
        ("stud", ["AsKc2d3d4d5d6d", "7h7c8h8c9h9cTs"], "", "bad_board_size", "variant", "has no board"),
    ],
)
def test_bad_input_names_the_card_and_why(
    variant: str, holes: list[str], board: str, code: str, field: str, says: str
) -> None:
    def cards(written: str) -> tuple[Card, ...]:
        return parse_cards([written[i : i + 2] for i in range(0, len(written), 2)])

    with pytest.raises(InvalidEvent) as raised:
        equity(VARIANTS[variant], [cards(h) for h in holes], cards(board))
    assert raised.value.code == code
    assert raised.value.field == field
    assert says in raised.value.message


@pytest.mark.parametrize(("variant", "size", "hands"), [("omaha", 4, 2), ("omaha", 5, 3), ("omaha", 6, 2),
                                                        ("omaha_hilo", 4, 3), ("omaha_hilo", 5, 2)])  # fmt: skip
def test_omaha_preflop_with_numpy_agrees_with_the_board_by_board_path(variant: str, size: int, hands: int) -> None:
    """No board card known: showdown_core.equity_omaha, on a deck thinned by dead cards to 16 cards (4,368
    boards), against the Variant's own valuation of each board (itself checked against pokerkit above)."""
    rng = random.Random(f"{variant}{size}{hands}")
    for _ in range(2):
        cards = rng.sample(DECK, 52)
        holes = [cards[i * size : (i + 1) * size] for i in range(hands)]
        deck = cards[hands * size : hands * size + 16]
        dead = cards[hands * size + 16 :]
        fast = equity(VARIANTS[variant], holes, (), dead)
        units, whole = _by_board(VARIANTS[variant], holes, (), sorted(deck, key=lambda c: c.index), 5)
        assert list(fast.shares) == [Fraction(u, whole) for u in units], (holes, dead)
        assert fast.boards == comb(16, 5)


def test_omaha_hi_lo_preflop_splits_halves_on_the_full_deck() -> None:
    """A2-suited-double against KQJT: the whole deck (1,086,008 boards); the low half goes to A2 on every board
    that gives a low, so A2's share is more than half of the boards with a low."""
    holes = [parse_cards(["Ah", "2h", "3d", "Kd"]), parse_cards(["Ks", "Qs", "Jc", "Tc"])]
    result = equity(VARIANTS["omaha_hilo"], holes)
    assert result.boards == comb(44, 5)
    assert sum(result.shares) == 1
    assert result.shares[0] > Fraction(1, 2)
