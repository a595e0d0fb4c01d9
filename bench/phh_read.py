"""The PHH reader's time a hand, and the share of it the betting machine takes: CPU time, not wall time.

Every 10th Pluribus hand of ``../shared/data/phh/pluribus`` (685 hands, no-limit hold'em, six players), its text in
memory, read by ``read_phh`` (parse, the betting played by :class:`showdown_core.betting.Machine`, the event built
and validated); beside it the machine alone on the same hands' phh-std fields (:func:`showdown_core.betting.play`).
CPU seconds (``time.process_time``) a hand, best of ``--rounds`` interleaved rounds.

``--against DIR``: the same two figures from another checkout of the project (``git worktree add DIR main``): each
checkout in a child process of its own, rounds interleaved, so that the before/after ratio comes from one run.

Run: ``python -m bench.phh_read [--rounds 7] [--against /tmp/old]``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable
from pathlib import Path

from bench.timing import fmt_time
from tests.helpers import SHARED_DATA

PLURIBUS = SHARED_DATA / "phh" / "pluribus"


def contenders() -> dict[str, tuple[Callable[[], object], int]]:
    """``read_phh`` and the machine alone over every 10th Pluribus hand."""
    from showdown_core.betting import Hand, play  # the checkout on sys.path (see --against)
    from showdown_service.histories.phh import read_phh

    texts = [(str(path), path.read_text(encoding="utf-8")) for path in sorted(PLURIBUS.rglob("*.phh"))[::10]]
    hands = []
    for _, text in texts:
        fields = tomllib.loads(text)
        hands.append(
            Hand(
                fields["variant"],
                tuple(fields["starting_stacks"]),
                tuple(fields["actions"]),
                tuple(fields["antes"]),
                tuple(fields["blinds_or_straddles"]),
                min_bet=fields["min_bet"],
                ante_trimming_status=True,
            )
        )

    def read() -> None:
        for source, text in texts:
            for _ in read_phh(text, source):
                pass

    def machine() -> None:
        for hand in hands:
            play(hand)

    return {"read_phh": (read, len(texts)), "machine": (machine, len(hands))}


def one_round(runs: dict[str, tuple[Callable[[], object], int]]) -> dict[str, float]:
    """CPU seconds a hand of each contender, once."""
    out = {}
    for name, (fn, count) in runs.items():
        start = time.process_time()
        fn()
        out[name] = (time.process_time() - start) / count
    return out


def child(module: str) -> None:
    """Serve rounds of ``module.contenders()`` on stdin/stdout (one line each) for ``--against``."""
    runs = importlib.import_module(module).contenders()
    for _ in sys.stdin:
        print(json.dumps(one_round(runs)), flush=True)


def cpu_race(
    module: str, runs: dict[str, tuple[Callable[[], object], int]], rounds: int, against: Path | None
) -> dict[str, float]:
    """Best CPU seconds an operation of each of ``runs`` (``this NAME``) over interleaved rounds. With ``against``,
    both sides run alike, each in a child process (``module.contenders()`` from this checkout, and from that one as
    ``other NAME``), which goes first alternating round by round: a parent timed against a child read the same code
    10-19% apart."""
    if against is None:
        best: dict[str, float] = {}
        for _ in range(rounds):
            for name, seconds in one_round(runs).items():
                best[f"this {name}"] = min(best.get(f"this {name}", seconds), seconds)
        return best
    here = Path(__file__).resolve().parents[1]
    sides = {"this": _spawn(module, here, here), "other": _spawn(module, against.resolve(), here)}
    best = {}
    try:
        for r in range(rounds):
            for side in ("this", "other") if r % 2 == 0 else ("other", "this"):
                child_process = sides[side]
                assert child_process.stdin is not None
                assert child_process.stdout is not None
                child_process.stdin.write("\n")
                child_process.stdin.flush()
                for name, seconds in json.loads(child_process.stdout.readline()).items():
                    best[f"{side} {name}"] = min(best.get(f"{side} {name}", seconds), seconds)
    finally:
        for child_process in sides.values():
            child_process.communicate()  # its stdin closed: it ends; its pipes closed
    return best


def _spawn(module: str, root: Path, bench: Path) -> subprocess.Popen[str]:
    """A child serving rounds of ``module`` with ``root``'s code (its worker/ and shared/) and this bench."""
    env = os.environ | {
        "PYTHONHASHSEED": "0",
        "PYTHONPATH": os.pathsep.join([str(root / "worker"), str(root / "shared"), str(bench)]),
    }
    return subprocess.Popen(
        [sys.executable, "-c", f"from bench.phh_read import child; child({module!r})"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--against", type=Path, help="another checkout to race (its worker/ and shared/ are used)")
    args = parser.parse_args()
    runs = contenders()
    best = cpu_race("bench.phh_read", runs, args.rounds, args.against)
    hands = runs["read_phh"][1]
    print(f"{hands} Pluribus hands (every 10th), CPU time a hand, best of {args.rounds} interleaved rounds:")
    for name, seconds in best.items():
        print(f"  {name:<16} {fmt_time(seconds)}")
    for what in ("read_phh", "machine"):
        if f"other {what}" in best:
            print(f"  {what}: other / this = {best[f'other {what}'] / best[f'this {what}']:.2f}x")
    print(f"  the machine's share of read_phh (this): {best['this machine'] / best['this read_phh']:.0%}")


if __name__ == "__main__":
    main()
