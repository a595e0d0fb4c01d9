"""Evaluator benchmark: showdown vs eval7, pkrbot, treys and pokerkit, in one run.

Measures, per the core issue's targets:

* a single 7-card evaluation from typed cards (target: no slower than eval7);
* a six-player showdown on one board (target: at least 2x six eval7 calls);
* batch evaluation, hands per second (target: >= 30 M/s and >= 5x the
  fastest peer's per-call rate).

Run: ``python -m bench.evaluator`` (or ``make bench`` for every benchmark).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import eval7
import numpy as np
import pkrbot
import treys
from pokerkit import StandardHighHand

from bench import Figure, Section
from bench.timing import fmt_time, race
from showdown_core import DECK, Card, evaluate, evaluate_showdown
from showdown_core.batch import evaluate_batch

HANDS = 20_000
SHOWDOWNS = 5_000
BATCH = 2_000_000


@dataclass(frozen=True)
class Row:
    """One line of a benchmark table."""

    name: str
    seconds_per_op: float
    note: str = ""

    @property
    def rate(self) -> float:
        return 1.0 / self.seconds_per_op


def _deals(rng: random.Random, n: int, size: int) -> list[list[Card]]:
    return [rng.sample(DECK, size) for _ in range(n)]


def single_hand(rng: random.Random) -> list[Row]:
    """One 7-card evaluation from each library's own typed cards."""
    hands = [tuple(h) for h in _deals(rng, HANDS, 7)]
    e7 = [[eval7.Card(c.text) for c in h] for h in hands]
    pk = [[pkrbot.Card(c.text) for c in h] for h in hands]
    tr = [[treys.Card.new(c.text) for c in h] for h in hands]
    tr_eval = treys.Evaluator()
    pokerkit_hands = [("".join(c.text for c in h[:2]), "".join(c.text for c in h[2:])) for h in hands[:300]]

    def ours() -> None:
        for h in hands:
            evaluate(h)

    def ev7() -> None:
        for h in e7:
            eval7.evaluate(h)

    def pkr() -> None:
        for h in pk:
            pkrbot.evaluate(h)

    def trs() -> None:
        for h in tr:
            tr_eval.evaluate(h[:2], h[2:])

    def pkit() -> None:
        for hole, board in pokerkit_hands:
            StandardHighHand.from_game(hole, board)

    def empty() -> None:
        for _ in hands:
            pass

    best = race(
        {
            "showdown": (ours, HANDS),
            "eval7": (ev7, HANDS),
            "pkrbot": (pkr, HANDS),
            "treys": (trs, HANDS),
            "pokerkit": (pkit, len(pokerkit_hands)),
            "loop": (empty, HANDS),
        },
        rounds=7,
    )
    loop_cost = best.pop("loop")
    return [Row(name, max(t - loop_cost, 1e-12)) for name, t in best.items()]


def showdown_six(rng: random.Random) -> list[Row]:
    """Six players on one board: our showdown API vs six separate eval7 calls."""
    deals = _deals(rng, SHOWDOWNS, 17)
    ours_args = [(d[:5], [d[5 + 2 * i : 7 + 2 * i] for i in range(6)]) for d in deals]
    e7_hands = [[[eval7.Card(c.text) for c in board + hole] for hole in holes] for board, holes in ours_args]
    e7_parts = [
        ([eval7.Card(c.text) for c in board], [[eval7.Card(c.text) for c in h] for h in holes])
        for board, holes in ours_args
    ]

    def ours() -> None:
        for board, holes in ours_args:
            evaluate_showdown(board, holes)

    def ours_trusted() -> None:
        for board, holes in ours_args:
            evaluate_showdown(board, holes, assume_distinct=True)

    def ev7() -> None:
        for six in e7_hands:
            for h in six:
                eval7.evaluate(h)

    def ev7_joined() -> None:
        for board, holes in e7_parts:
            for h in holes:
                eval7.evaluate(board + h)

    best = race(
        {
            "showdown": (ours, SHOWDOWNS),
            "showdown, assume_distinct": (ours_trusted, SHOWDOWNS),
            "eval7 x6": (ev7, SHOWDOWNS),
            "eval7 x6, board + hole": (ev7_joined, SHOWDOWNS),
        },
        rounds=7,
    )
    return [Row(name, t) for name, t in best.items()]


def batch(rng: random.Random) -> list[Row]:
    """Hands per second through the numpy batch path (per-hand time)."""
    gen = np.random.default_rng(rng.randrange(2**32))
    hands = np.argsort(gen.random((BATCH, 52)), axis=1)[:, :7].astype(np.uint8)
    evaluate_batch(hands[:1000])  # build tables outside the timing
    best = race(
        {
            "batch, checked": (lambda: evaluate_batch(hands), BATCH),
            "batch, unchecked": (lambda: evaluate_batch(hands, check=False), BATCH),
            "batch, checked, 1 thread": (lambda: evaluate_batch(hands, threads=1), BATCH),
        },
        rounds=3,
    )
    return [Row(name, t) for name, t in best.items()]


def report(seed: int = 2026) -> str:
    """Run every evaluator benchmark and render a markdown report."""
    return section(seed).markdown


def section(seed: int = 2026) -> Section:
    """Run every evaluator benchmark: markdown, and the ratios for the summary chart."""
    rng = random.Random(seed)
    single = single_hand(rng)
    six = showdown_six(rng)
    many = batch(rng)
    by_name = {r.name: r for r in single}
    eval7_t = by_name["eval7"].seconds_per_op
    fastest_peer = min((r for r in single if r.name != "showdown"), key=lambda r: r.seconds_per_op)
    lines = [
        "## Evaluator",
        "",
        "Single 7-card evaluation from each library's typed cards (loop overhead removed):",
        "",
    ]
    lines += ["| library | per hand | hands/s | time vs showdown |", "|---|---:|---:|---:|"]
    ours_t = by_name["showdown"].seconds_per_op
    for r in sorted(single, key=lambda r: r.seconds_per_op):
        lines.append(
            f"| {r.name} | {fmt_time(r.seconds_per_op)} | {r.rate / 1e6:.2f} M | {r.seconds_per_op / ours_t:.2f}x |"
        )
    lines += [
        "",
        "Six players on one board (eval7 x6: six calls on 7-card lists built beforehand; "
        "board + hole: each call's list built as a caller must):",
        "",
        "| how | per showdown | showdown's speed vs this |",
        "|---|---:|---:|",
    ]
    six_by = {r.name: r for r in six}
    for r in six:
        lines.append(
            f"| {r.name} | {fmt_time(r.seconds_per_op)} | {r.seconds_per_op / six_by['showdown'].seconds_per_op:.2f}x |"
        )
    lines += ["", "Batch (numpy), 2 M random 7-card hands:", "", "| mode | hands/s | vs fastest peer per call |"]
    lines += ["|---|---:|---:|"]
    for r in many:
        lines.append(f"| {r.name} | {r.rate / 1e6:.1f} M | {r.rate / fastest_peer.rate:.1f}x {fastest_peer.name} |")
    checked = next(r for r in many if r.name == "batch, checked")
    lines += [
        "",
        "Targets:",
        f"- single evaluation no slower than eval7: showdown {fmt_time(ours_t)} vs eval7 {fmt_time(eval7_t)} "
        f"({eval7_t / ours_t:.2f}x eval7's speed) -> {'met' if ours_t <= eval7_t else 'MISSED'}",
        *(
            f"- six-player showdown >= 2x six eval7 calls ({mode}): {ratio:.2f}x -> {'met' if ratio >= 2 else 'MISSED'}"
            for mode, ratio in (
                (
                    "checked, vs prebuilt lists",
                    six_by["eval7 x6"].seconds_per_op / six_by["showdown"].seconds_per_op,
                ),
                (
                    "assume_distinct like eval7, vs prebuilt lists",
                    six_by["eval7 x6"].seconds_per_op / six_by["showdown, assume_distinct"].seconds_per_op,
                ),
                (
                    "assume_distinct, vs board + hole per call",
                    six_by["eval7 x6, board + hole"].seconds_per_op
                    / six_by["showdown, assume_distinct"].seconds_per_op,
                ),
            )
        ),
        f"- batch >= 30 M hands/s (checked): {checked.rate / 1e6:.1f} M -> "
        f"{'met' if checked.rate >= 30e6 else 'MISSED'}",
        f"- batch >= 5x fastest peer ({fastest_peer.name}): {checked.rate / fastest_peer.rate:.1f}x -> "
        f"{'met' if checked.rate >= 5 * fastest_peer.rate else 'MISSED'}",
    ]
    six_speed = six_by["eval7 x6"].seconds_per_op
    figures = [
        Figure("single 7-card evaluation vs eval7", eval7_t / ours_t, 1.0),
        Figure("6-player showdown vs 6 eval7 calls", six_speed / six_by["showdown"].seconds_per_op, 2.0),
        Figure(
            "6-player showdown, assume_distinct, vs 6 eval7 calls",
            six_speed / six_by["showdown, assume_distinct"].seconds_per_op,
            2.0,
        ),
        Figure(f"batch vs fastest peer per call ({fastest_peer.name})", checked.rate / fastest_peer.rate, 5.0),
    ]
    return Section("\n".join(lines), figures)


def main() -> None:
    print(report())


if __name__ == "__main__":
    main()
