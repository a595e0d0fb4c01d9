"""A hand with ``play`` against the same hand without: what checking the betting costs a worker per entry.

Every 10th Pluribus hand of ``../shared/data`` (685 hands, no-limit hold'em, six players) as the replay reads it,
sent twice: as the event the replay makes, and with its betting in ``play`` (phh-std's fields, line for line). Each
is judged as the worker judges an entry (``settling.prepare``: the contract, the betting played and checked, the
settlement, the result's text and the digests), rounds interleaved, best of five; the ratio is the figure (the issue's
target: within 2x).

Run: ``python -m bench.play``; ``--against DIR`` races another checkout's code in CPU time instead (as
``bench.phh_read`` does), so that its figures and ours come from one run.
"""

from __future__ import annotations

import argparse
import json
import tomllib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from bench.phh_read import cpu_race
from bench.timing import fmt_time, race
from showdown_service.decision.settling import prepare
from showdown_service.histories.phh import read_phh

PLURIBUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "phh" / "pluribus"
PLAY_FIELDS = ("variant", "antes", "blinds_or_straddles", "min_bet", "starting_stacks", "actions")


def entries() -> tuple[list[bytes], list[bytes]]:
    """The sampled hands' events without ``play`` and with it."""
    plain, played = [], []
    for path in sorted(PLURIBUS.rglob("*.phh"))[::10]:
        text = path.read_text()
        [hand] = list(read_phh(text, str(path)))
        if hand.event is None:  # type: ignore[union-attr]
            continue
        doc = hand.event.model_dump(mode="json", exclude_none=True)  # type: ignore[union-attr]
        plain.append(json.dumps(doc).encode())
        fields = tomllib.loads(text)
        doc["play"] = {key: fields[key] for key in PLAY_FIELDS} | {"ante_trimming_status": True}
        played.append(json.dumps(doc).encode())
    return plain, played


def judge_all(events: list[bytes]) -> None:
    now = datetime(2026, 11, 29, tzinfo=UTC)
    for k, raw in enumerate(events):
        prepared = prepare(
            f"1-{k}", {b"event": raw}, failures=0, max_deliveries=5, max_payload_bytes=1 << 20, now=now, started=0.0
        )
        assert prepared.code is None, prepared.message


def contenders() -> dict[str, tuple[Callable[[], object], int]]:
    """The sampled hands judged without ``play`` and with it."""
    plain, played = entries()
    return {"without": (lambda: judge_all(plain), len(plain)), "with": (lambda: judge_all(played), len(played))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--against", type=Path, help="another checkout to race, CPU time (bench.phh_read's way)")
    args = parser.parse_args()
    runs = contenders()
    if args.against is None:
        best = race(runs)
        print(f"{runs['with'][1]} Pluribus hands judged as a worker judges an entry (best of 5, interleaved):")
    else:
        best = cpu_race("bench.play", runs, 5, args.against)
        print(
            f"{runs['with'][1]} Pluribus hands judged as a worker judges an entry, CPU time (best of 5, interleaved):"
        )
    for side in ("this ", "other ") if args.against else ("",):
        ratio = best[f"{side}with"] / best[f"{side}without"]
        print(f"  {side}without play  {fmt_time(best[f'{side}without'])} a hand")
        print(f"  {side}with play     {fmt_time(best[f'{side}with'])} a hand")
        print(f"  {side}ratio         {ratio:.2f}x (target: within 2x)")
    if args.against:
        print(f"  with play, other / this: {best['other with'] / best['this with']:.2f}x")


if __name__ == "__main__":
    main()
