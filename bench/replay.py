"""Replay benchmark: our PHH reader and settlement vs pokerkit's PHH loader and state machine, in one run.

Per hand, from the file's text already in memory (no disk I/O on either side):

* ``showdown, read``: ``read_phh`` -- parse, play the actions, build and
  validate the ShowdownEvent;
* ``showdown, replay``: the above plus ``judge`` -- settle with the worker's
  settlement and compare with the recorded finishing stacks (what
  ``showdown replay`` does per hand);
* ``pokerkit``: ``HandHistory.loads`` and iterating the hand's states to the
  end (its state machine computes the payoffs), on a seeded random subset
  (pokerkit is slow), extrapolated per hand.

Target: ours at least 20x faster per hand. Run: ``python -m bench.replay``.
"""

from __future__ import annotations

import random
from pathlib import Path

from pokerkit import HandHistory

from bench import Figure, Section
from bench.timing import fmt_time, race
from showdown_service.replay import HandRecord, judge, read_phh

PLURIBUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "phh" / "pluribus"
POKERKIT_SAMPLE = 300


def report(seed: int = 2026) -> str:
    """Run the replay benchmark and render a markdown report."""
    return section(seed).markdown


def section(seed: int = 2026) -> Section:
    """Run the replay benchmark: markdown, and the ratio for the summary chart."""
    files = sorted(PLURIBUS.rglob("*.phh"))
    texts = [(str(path), path.read_text(encoding="utf-8")) for path in files]
    sample = random.Random(seed).sample(texts, min(POKERKIT_SAMPLE, len(texts)))

    def ours_read() -> None:
        for source, text in texts:
            for _ in read_phh(text, source):
                pass

    def ours_replay() -> None:
        for source, text in texts:
            for hand in read_phh(text, source):
                assert isinstance(hand, HandRecord)
                judge(hand)

    def theirs() -> None:
        for _, text in sample:
            for _ in HandHistory.loads(text):
                pass

    best = race(
        {
            "showdown, read": (ours_read, len(texts)),
            "showdown, replay": (ours_replay, len(texts)),
            "pokerkit": (theirs, len(sample)),
        },
        rounds=3,
    )
    pokerkit = best["pokerkit"]
    lines = [
        "## Replay",
        "",
        f"{len(texts)} Pluribus hands (PHH); pokerkit on a seeded random {len(sample)} of them, per hand. "
        "Best of 3 interleaved rounds.",
        "",
        "| how | per hand | hands/s | pokerkit's time / ours |",
        "|---|---:|---:|---:|",
    ]
    for name, seconds in best.items():
        lines.append(f"| {name} | {fmt_time(seconds)} | {1 / seconds:,.0f} | {pokerkit / seconds:.1f}x |")
    replay = best["showdown, replay"]
    lines += [
        "",
        f"Target: showdown's replay at least 20x faster than pokerkit per hand: {pokerkit / replay:.1f}x -> "
        f"{'met' if pokerkit >= 20 * replay else 'MISSED'}",
    ]
    return Section("\n".join(lines), [Figure("replay vs pokerkit (per hand)", pokerkit / replay, 20.0)])


def main() -> None:
    print(report())


if __name__ == "__main__":
    main()
