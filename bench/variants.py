"""Every game's showdown: showdown vs phevaluator (Omaha, a C extension) and pokerkit, in one run.

Measures, per the variants issue's targets:

* a six-player Omaha (four cards) showdown, board done once, against six calls of phevaluator's
  ``evaluate_omaha_cards`` from card ids (target: less time) and against pokerkit's ``OmahaHoldemHand``
  (target: at least 100x faster);
* an Omaha Hi/Lo showdown against an Omaha high one (target: no more than 2x the time);
* a six-player showdown of every game through the ``Variant`` seam (high and low hands of every seat), beside
  pokerkit valuing the same hands with its hand classes.

Run: ``python -m bench.variants`` (or ``make bench`` for every benchmark).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from phevaluator import evaluate_omaha_cards
from pokerkit import (
    BadugiHand,
    EightOrBetterLowHand,
    OmahaEightOrBetterLowHand,
    OmahaHoldemHand,
    RegularLowHand,
    ShortDeckHoldemHand,
    StandardHighHand,
    StandardLowHand,
)

from bench import Figure, Section
from bench.timing import fmt_time, race
from showdown_core import DECK, Card
from showdown_core.omaha import evaluate_omaha
from showdown_core.variants import VARIANTS
from showdown_rules import VARIANT_SHAPES

SHOWDOWNS = 3_000
PLAYERS = 6
POKERKIT_SHOWDOWNS = 60
"""pokerkit takes about half a millisecond a hand: fewer showdowns keep the run short."""

PokerkitHand = Any
POKERKIT: dict[str, tuple[PokerkitHand, ...]] = {
    "holdem": (StandardHighHand,),
    "short_deck": (ShortDeckHoldemHand,),
    "short_deck_straight_over_trips": (ShortDeckHoldemHand,),
    "omaha": (OmahaHoldemHand,),
    "omaha_hilo": (OmahaHoldemHand, OmahaEightOrBetterLowHand),
    "stud": (StandardHighHand,),
    "stud_hilo": (StandardHighHand, EightOrBetterLowHand),
    "razz": (RegularLowHand,),
    "deuce_to_seven": (StandardLowHand,),
    "five_card_draw": (StandardHighHand,),
    "badugi": (BadugiHand,),
}
"""The pokerkit hand classes that value each game's hands (high, then low)."""

Deal = tuple[list[Card], list[list[Card]]]


def deal(rng: random.Random, variant: str, players: int = PLAYERS) -> Deal:
    """A board (empty in stud and draw games) and ``players`` hands of ``variant``'s size."""
    shape = VARIANT_SHAPES[variant]
    deck = [c for c in DECK if c.rank >= shape.lowest_rank]
    own = shape.hole_cards[0]
    dealt = rng.sample(deck, shape.board_cards + own * players)
    board = dealt[: shape.board_cards]
    return board, [dealt[shape.board_cards + own * i : shape.board_cards + own * (i + 1)] for i in range(players)]


def _text(cards: Sequence[Card]) -> str:
    return "".join(c.text for c in cards)


def omaha(rng: random.Random) -> dict[str, float]:
    """Seconds per six-player Omaha showdown, each way."""
    deals = [deal(rng, "omaha") for _ in range(SHOWDOWNS)]
    ids = [([c.index for c in board], [[c.index for c in h] for h in holes]) for board, holes in deals]
    texts = [([c.text for c in board], [[c.text for c in h] for h in holes]) for board, holes in deals]
    few = [(_text(board), [_text(h) for h in holes]) for board, holes in deals[:POKERKIT_SHOWDOWNS]]
    omaha_variant, hilo_variant = VARIANTS["omaha"], VARIANTS["omaha_hilo"]

    def ours() -> None:
        for board, holes in deals:
            omaha_variant.hands(board, holes)

    def ours_direct() -> None:
        for board, holes in deals:
            evaluate_omaha(board, holes)

    def ours_hilo() -> None:
        for board, holes in deals:
            hilo_variant.hands(board, holes)

    def phe_ids() -> None:
        for board, holes in ids:
            for h in holes:
                evaluate_omaha_cards(*board, *h)

    def phe_texts() -> None:
        for board, holes in texts:
            for h in holes:
                evaluate_omaha_cards(*board, *h)

    def pokerkit() -> None:
        for board, holes in few:
            for h in holes:
                OmahaHoldemHand.from_game(h, board)

    def pokerkit_hilo() -> None:
        for board, holes in few:
            for h in holes:
                OmahaHoldemHand.from_game(h, board)
                OmahaEightOrBetterLowHand.from_game_or_none(h, board)

    ours()  # the Omaha table is built on the first hand: not timed
    return race(
        {
            "showdown, Omaha (Variant.hands)": (ours, SHOWDOWNS),
            "showdown, Omaha (evaluate_omaha)": (ours_direct, SHOWDOWNS),
            "showdown, Omaha Hi/Lo (Variant.hands)": (ours_hilo, SHOWDOWNS),
            "phevaluator x6, card ids": (phe_ids, SHOWDOWNS),
            "phevaluator x6, card texts": (phe_texts, SHOWDOWNS),
            "pokerkit OmahaHoldemHand x6": (pokerkit, POKERKIT_SHOWDOWNS),
            "pokerkit Omaha high + 8-or-better low x6": (pokerkit_hilo, POKERKIT_SHOWDOWNS),
        },
        rounds=5,
    )


def _pokerkit_game(variant: str, deals: list[Deal]) -> Callable[[], None]:
    classes = POKERKIT[variant]
    prepared = [(_text(board), [_text(h) for h in holes]) for board, holes in deals]

    def run() -> None:
        for board, holes in prepared:
            for h in holes:
                for hand in classes:
                    hand.from_game_or_none(h, board)

    return run


def every_game(rng: random.Random) -> dict[str, tuple[float, float]]:
    """Seconds per six-player showdown of each game: (ours through the Variant seam, pokerkit's classes)."""
    out: dict[str, tuple[float, float]] = {}
    for name in VARIANT_SHAPES:
        deals = [deal(rng, name) for _ in range(SHOWDOWNS)]
        variant = VARIANTS[name]

        def ours(variant: Any = variant, deals: list[Deal] = deals) -> None:
            for board, holes in deals:
                variant.hands(board, holes)

        ours()  # tables built on first use: not timed
        best = race(
            {
                "ours": (ours, SHOWDOWNS),
                "pokerkit": (_pokerkit_game(name, deals[:POKERKIT_SHOWDOWNS]), POKERKIT_SHOWDOWNS),
            },
            rounds=3,
        )
        out[name] = (best["ours"], best["pokerkit"])
    return out


def section(seed: int = 2026) -> Section:
    """Run the variant benchmarks: markdown, and the ratios for the summary chart."""
    rng = random.Random(seed)
    six = omaha(rng)
    games = every_game(rng)
    ours = six["showdown, Omaha (Variant.hands)"]
    hilo = six["showdown, Omaha Hi/Lo (Variant.hands)"]
    phe = six["phevaluator x6, card ids"]
    pokerkit = six["pokerkit OmahaHoldemHand x6"]
    lines = [
        "## Every game",
        "",
        "A six-player Omaha showdown (four cards each, board done once), each way:",
        "",
        "| how | per showdown | time vs showdown's Omaha |",
        "|---|---:|---:|",
        *(f"| {name} | {fmt_time(t)} | {t / ours:.2f}x |" for name, t in sorted(six.items(), key=lambda kv: kv[1])),
        "",
        "A six-player showdown of every game through the `Variant` seam (every seat's high and low hand), "
        "beside pokerkit's hand classes valuing the same hands:",
        "",
        "| game | showdown | pokerkit | pokerkit's time vs ours | ours vs hold'em |",
        "|---|---:|---:|---:|---:|",
    ]
    holdem = games["holdem"][0]
    for name, (mine, theirs) in games.items():
        lines.append(
            f"| {name} | {fmt_time(mine)} | {fmt_time(theirs)} | {theirs / mine:.0f}x | {mine / holdem:.2f}x |"
        )
    lines += [
        "",
        "Targets:",
        f"- six-player Omaha in less time than six phevaluator calls from card ids: {fmt_time(ours)} vs "
        f"{fmt_time(phe)} ({phe / ours:.2f}x its speed) -> {'met' if ours < phe else 'MISSED'}",
        f"- six-player Omaha >= 100x pokerkit's OmahaHoldemHand: {pokerkit / ours:.0f}x -> "
        f"{'met' if pokerkit >= 100 * ours else 'MISSED'}",
        f"- Omaha Hi/Lo no more than 2x Omaha high: {hilo / ours:.2f}x -> {'met' if hilo <= 2 * ours else 'MISSED'}",
    ]
    figures = [
        Figure("6-player Omaha vs 6 phevaluator calls (ids)", phe / ours, 1.0),
        Figure("6-player Omaha vs pokerkit OmahaHoldemHand", pokerkit / ours, 100.0),
        Figure("Omaha high time / Omaha Hi/Lo time (x2 allowed)", 2 * ours / hilo, 1.0),
    ]
    return Section("\n".join(lines), figures)


def main() -> None:
    print(section().markdown)


if __name__ == "__main__":
    main()
