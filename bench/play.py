"""A hand with ``play`` against the same hand without: what checking the betting costs a worker per entry.

Every 10th Pluribus hand of ``../shared/data`` (685 hands, no-limit hold'em, six players) as the replay reads it,
sent twice: as the event the replay makes, and with its betting in ``play`` (phh-std's fields, line for line). Each
is judged as the worker judges an entry (``settling.prepare``: the contract, the betting played and checked, the
settlement, the result's text and the digests). Three figures, each with play over without (issue 36's target:
within 2x, :data:`TARGET`), as :mod:`bench.rake_schedule` measures:

* **instructions** (the verdict's figure when valgrind is installed): each side in a child process of its own under
  callgrind, counting only the judged hands (inside one ``functools.reduce`` call, callgrind's
  ``--toggle-collect``), after a warm-up pass over them and a ``gc.freeze()``: the same on any load;
* **CPU, median of the rounds' ratios**: both sides in this process, every hand of each a round, rounds interleaved
  (which side goes first taking turns), the median of the rounds' ratios of CPU time;
* **CPU, least of the rounds**: each side's least CPU time a round, their ratio.

The line ends ``PASS`` or ``FAIL`` against :data:`TARGET`: by the larger of the instructions' ratio and the CPU
median (the CPU median alone without valgrind); the exit status is 1 on FAIL. Not by instructions alone, as
:mod:`bench.rake_schedule` judges: the two sides run different kinds of code (the contract is pydantic-core's Rust,
the betting is Python bytecode, fewer instructions a cycle), so the instructions read the play cheaper than the CPU
does (1.77 against 2.31 in one run of the same code). Wall time under a load of 4-7 gave 1.98x to 3.05x for the same
code; the CPU median wanders less, the instructions not at all.

Run: ``python -m bench.play [--rounds N] [--against DIR]``. ``--against DIR`` measures another checkout's code (its
``worker/`` and ``shared/``, ``git archive main | tar -x -C DIR``) beside this one in the same run: the same hands,
its instructions counted alike, its CPU rounds in a child process taking turns with one of this checkout's, so that
the before/after figures come from one run.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bench import Figure, Section
from bench.rake_schedule import collected
from bench.timing import Ratios
from showdown_service.decision.settling import prepare

PLAY_FIELDS = ("variant", "antes", "blinds_or_straddles", "min_bet", "starting_stacks", "actions")
TARGET = 2.0
"""A hand with ``play`` settles within 2x the time of the same hand without it (issue 36's done-when)."""
ROUNDS = 15
"""CPU rounds, each judging every sampled hand of both sides."""
SIDES = ("without", "with")
HERE = Path(__file__).resolve().parents[1]
PLURIBUS = HERE.parent / "shared" / "data" / "phh" / "pluribus"
"""Where ``tests.helpers.SHARED_DATA`` finds it (the repository's sibling), without importing the tests' helpers
into every child process."""


def entries() -> tuple[list[bytes], list[bytes]]:
    """The sampled hands' events without ``play`` and with it."""
    from showdown_service.histories.phh import read_phh  # the parent's alone: children read a file

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


_NOW = datetime(2026, 11, 29, tzinfo=UTC)


def judge(raw: bytes) -> None:
    """One event judged as the worker judges an entry; it must settle."""
    prepared = prepare(
        "1-0", {b"event": raw}, failures=0, max_deliveries=5, max_payload_bytes=1 << 20, now=_NOW, started=0.0
    )
    assert prepared.code is None, prepared.message


def judge_all(events: Sequence[bytes]) -> None:
    for raw in events:
        judge(raw)


def warm(sides: Sequence[Sequence[bytes]]) -> None:
    """One pass over every side's hands (the interpreter's caches specialised, the actions read), then a
    ``gc.freeze()``: what the warm-up made is never scanned again."""
    for events in sides:
        judge_all(events)
    gc.collect()
    gc.freeze()


def cpu_round(sides: Sequence[Sequence[bytes]], first: int) -> tuple[float, float]:
    """CPU microseconds an event of each side (``sides[0]``, ``sides[1]``), side ``first`` judged first."""
    spent = [0.0, 0.0]
    for i in (first, 1 - first):
        start = time.process_time()
        judge_all(sides[i])
        spent[i] = (time.process_time() - start) / len(sides[i]) * 1e6
    return spent[0], spent[1]


def cpu_rounds(plain: Sequence[bytes], played: Sequence[bytes], rounds: int = ROUNDS) -> list[tuple[float, float]]:
    """``(without, with)`` CPU microseconds an event, a round each, interleaved (which goes first alternating)."""
    warm((plain, played))
    try:
        return [cpu_round((plain, played), r % 2) for r in range(rounds)]
    finally:
        gc.unfreeze()


def _pythonpath(root: Path) -> dict[str, str]:
    """The environment of a child running ``root``'s code (its worker/ and shared/) with this bench."""
    paths = [str(root / "worker"), str(root / "shared"), str(HERE)]
    return {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": os.pathsep.join(paths)}


def instructions(events: Path, root: Path = HERE) -> dict[str, float] | None:
    """Instructions an event of each side with ``root``'s code (callgrind, each side in a child process, both at
    once); None without valgrind. ``events``: :func:`write_events`' file."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    command = [valgrind, "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=functools_reduce",
               "--callgrind-out-file=/dev/null", sys.executable, "-m", "bench.play", "--child"]  # fmt: skip
    env = _pythonpath(root)
    children = {
        side: subprocess.Popen([*command, side, str(events)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        for side in SIDES
    }
    counted = {}
    for side, child_process in children.items():
        out, stderr = child_process.communicate()
        if child_process.returncode:
            raise RuntimeError(f"the {side} child failed: {stderr[-500:].decode(errors='replace')}")
        counted[side] = collected(stderr) / int(out)
    return counted


def write_events(plain: Sequence[bytes], played: Sequence[bytes], path: Path) -> None:
    """Both sides' events, one JSON line each: ``{"without": [...], "with": [...]}`` (read by :func:`read_events`)."""
    path.write_text(json.dumps({"without": [e.decode() for e in plain], "with": [e.decode() for e in played]}))


def read_events(path: Path) -> dict[str, list[bytes]]:
    return {side: [e.encode() for e in events] for side, events in json.loads(path.read_text()).items()}


def child(side: str, events: Path) -> int:
    """The counted side: warm up, freeze the heap, then judge every hand once inside one ``functools.reduce`` (what
    callgrind's ``--toggle-collect=functools_reduce`` counts, and nothing else). Returns how many were judged."""
    hands = read_events(events)[side]
    warm((hands,))
    functools.reduce(lambda _, raw: judge(raw), hands, None)
    return len(hands)


def serve_rounds(events: Path) -> None:
    """``--against``'s other checkout: a CPU round (:func:`cpu_round`'s pair, as JSON) for each line of stdin that
    names which side goes first."""
    hands = read_events(events)
    sides = (hands["without"], hands["with"])
    warm(sides)
    for line in sys.stdin:
        print(json.dumps(cpu_round(sides, int(line))), flush=True)


def raced_rounds(events: Path, against: Path, rounds: int) -> tuple[list[tuple[float, float]], ...]:
    """CPU rounds of this checkout and of ``against``, each in a child process, taking turns (which checkout goes
    first alternating, and within a round which side): ``(this rounds, other rounds)``."""
    command = [sys.executable, "-m", "bench.play", "--serve", str(events)]
    servers = [
        subprocess.Popen(command, env=_pythonpath(root), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for root in (HERE, against.resolve())
    ]
    got: tuple[list[tuple[float, float]], ...] = ([], [])
    try:
        for r in range(rounds):
            for k in (0, 1) if r % 2 == 0 else (1, 0):
                server = servers[k]
                assert server.stdin is not None
                assert server.stdout is not None
                server.stdin.write(f"{(r // 2) % 2}\n")
                server.stdin.flush()
                without, with_play = json.loads(server.stdout.readline())
                got[k].append((without, with_play))
    finally:
        for server in servers:
            server.communicate()  # its stdin closed: it ends
    return got


@dataclass(frozen=True)
class Measured(Ratios):
    """The three ratios (with play over without: A without, B with) and what they were measured on."""

    @property
    def judged(self) -> float:
        """The verdict's figure: the larger of the instructions' ratio (when counted) and the CPU median."""
        ratio = self.instruction_ratio
        return self.median_ratio if ratio is None else max(ratio, self.median_ratio)

    @property
    def verdict(self) -> str:
        return "PASS" if self.judged <= TARGET else "FAIL"

    def line(self, who: str = "") -> str:
        """One line: every figure and the verdict."""
        counted = (
            "instructions not counted (no valgrind)"
            if self.instructions is None
            else f"instructions {self.instructions[1] / 1e3:.1f} k / {self.instructions[0] / 1e3:.1f} k = "
            f"{self.instruction_ratio:.3f}"
        )
        by = "CPU median" if self.instructions is None else "the larger"
        return (
            f"{who}with play / without: {counted}; CPU median of {len(self.rounds)} rounds' ratios "
            f"{self.median_ratio:.3f} ({statistics.median(b for _, b in self.rounds):.0f} us / "
            f"{statistics.median(a for a, _ in self.rounds):.0f} us), least of {len(self.rounds)} "
            f"{self.least_ratio:.3f}: {self.verdict} ({by} {self.judged:.3f} against {TARGET:.2f})"
        )


def measure(rounds: int = ROUNDS, against: Path | None = None) -> dict[str, Measured]:
    """This checkout's figures (``"this"``), and ``against``'s (``"other"``) when given."""
    plain, played = entries()
    with tempfile.TemporaryDirectory(prefix="bench-play-") as folder:
        events = Path(folder) / "events.json"
        write_events(plain, played, events)
        if against is None:
            counted = {"this": instructions(events)}
            cpu = {"this": cpu_rounds(plain, played, rounds)}
        else:
            counted = {"this": instructions(events), "other": instructions(events, against.resolve())}
            this, other = raced_rounds(events, against, rounds)
            cpu = {"this": this, "other": other}
    return {
        who: Measured(None if (c := counted[who]) is None else (c["without"], c["with"]), cpu[who]) for who in counted
    }


def section() -> Section:
    """``make bench``'s play row."""
    m = measure()["this"]
    load = os.getloadavg()[0]
    lines = [
        "## A hand with play",
        "",
        "`prepare()` of every 10th Pluribus hand with its betting in `play` (the worker plays and checks it) against "
        "the same hand without (`python -m bench.play`): instructions by callgrind (each side's hands once, after a "
        f"warm-up pass, each in a child process), CPU time in this process over {len(m.rounds)} interleaved rounds "
        f"of every hand, load average {load:.1f}.",
        "",
        "| figure | without play | with play | ratio |",
        "|---|---:|---:|---:|",
        *(
            [
                f"| instructions an event | {m.instructions[0] / 1e3:.1f} k | {m.instructions[1] / 1e3:.1f} k | "
                f"{m.instruction_ratio:.3f} |"
            ]
            if m.instructions is not None
            else []
        ),
        f"| CPU an event, median of the rounds' ratios | {statistics.median(a for a, _ in m.rounds):.1f} us | "
        f"{statistics.median(b for _, b in m.rounds):.1f} us | {m.median_ratio:.3f} |",
        f"| CPU an event, least of {len(m.rounds)} | {min(a for a, _ in m.rounds):.1f} us | "
        f"{min(b for _, b in m.rounds):.1f} us | {m.least_ratio:.3f} |",
        "",
        f"Target: within {TARGET:.1f}x (issue 36): {m.verdict} ({m.judged:.3f}).",
    ]
    return Section("\n".join(lines), [Figure("hand with play: 2.0 / ratio", TARGET / m.judged, 1.0)])


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        print(child(argv[1], Path(argv[2])))
        return 0
    if argv[:1] == ["--serve"]:
        serve_rounds(Path(argv[1]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="CPU rounds (every hand of both sides each)")
    parser.add_argument("--against", type=Path, help="another checkout measured beside this one, in the same run")
    args = parser.parse_args(argv)
    measured = measure(args.rounds, args.against)
    load = os.getloadavg()[0]
    for who, m in measured.items():
        print(f"{m.line(f'{who}: ' if args.against else '')} (load average {load:.1f})")
    if args.against:
        this, other = measured["this"], measured["other"]
        if this.instructions is not None and other.instructions is not None:
            print(f"with play, other / this: instructions {other.instructions[1] / this.instructions[1]:.3f}")
        print(
            "with play, other / this: CPU median of the rounds' ratios "
            f"{statistics.median(o[1] / t[1] for t, o in zip(this.rounds, other.rounds, strict=True)):.3f}"
        )
    return 0 if measured["this"].verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
