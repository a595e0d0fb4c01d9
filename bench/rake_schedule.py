"""What a rake schedule costs a hand: ``prepare()`` of one hold'em event with a stated rake against the same event
naming its table's schedule and stakes (issue 38: at most 10% more, :data:`TARGET`).

Run: ``.venv/bin/python -m bench.rake_schedule [ROUNDS]`` (or ``make bench``). Three figures, each the schedule's
over the stated rake's:

* **instructions** (the verdict's figure when valgrind is installed): each side in a child process of its own under
  callgrind, counting only the measured events (inside one ``functools.reduce`` call, callgrind's
  ``--toggle-collect``), after 200 of warm-up and a ``gc.freeze()``: the same on any load, so a few percent can be
  judged on a shared machine;
* **CPU, median of the rounds' ratios**: both sides in this process, rounds interleaved (which side goes first taking
  turns), each round's ratio of the process's CPU time, the median of them;
* **CPU, least of the rounds**: each side's least CPU time a round, their ratio.

The line ends ``PASS`` or ``FAIL`` against :data:`TARGET` (by instructions, else by the CPU median); the exit status
is 1 on FAIL. On this 2-core machine shared by several sessions (load 10-16) the wall clock swung 0.97-1.45 between
runs of the same code; the CPU figures less, the instructions not at all.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from bench import Figure, Section
from bench.timing import Ratios
from showdown_core.rake import Schedule
from showdown_service.decision.rake_schedules import schedules_in
from showdown_service.decision.settling import prepare

TARGET = 1.10
"""Settling with a schedule costs at most 10% over settling with a stated rake (issue 38's done-when)."""
ROUNDS = 40
PER_ROUND = 500
COUNTED = 300
"""Events each side runs under callgrind after its warm-up."""
WARM_UP = 200

_PLAYERS = [
    {"seat": 2, "player_id": "p2", "contributed": 2, "folded": True},
    {"seat": 3, "player_id": "p3", "hole_cards": ["8h", "8c"], "contributed": 1226},
    {"seat": 4, "player_id": "p4", "hole_cards": ["Ah", "Ks"], "contributed": 1226},
    {"seat": 5, "player_id": "p5", "contributed": 12, "folded": True},
    {"seat": 6, "player_id": "p6", "contributed": 2, "folded": True},
]
_BASE = {"schema_version": 1, "hand_id": "H-1", "table_id": "T-1", "board": ["5c", "4c", "4h", "Qs", "Kc"],
         "button_seat": 3, "occurred_at": "2026-11-29T02:00:00Z", "players": _PLAYERS}  # fmt: skip
STATED = json.dumps({**_BASE, "rake": 111}).encode()
SCHEDULED = json.dumps(
    {**_BASE, "rake_schedule": "pokerstars-usd-nl-pl", "stakes": {"small_blind": 5, "big_blind": 10}}
).encode()
SIDES: Mapping[str, bytes] = {"stated": STATED, "scheduled": SCHEDULED}


def _settler(raw: bytes, schedules: Mapping[str, Schedule]) -> Callable[[], object]:
    now = datetime.now(UTC)
    fields = {b"event": raw}
    return lambda: prepare("1-0", fields, failures=0, max_deliveries=5, max_payload_bytes=65536, now=now,
                           started=0.0, schedules=schedules)  # fmt: skip


def per_event_us(raw: bytes, count: int = 20_000, clock: Callable[[], float] = time.perf_counter) -> float:
    """Microseconds a ``prepare()`` of ``raw``, over ``count`` calls, by ``clock``."""
    settle_one = _settler(raw, schedules_in(None))
    start = clock()
    for _ in range(count):
        settle_one()
    return (clock() - start) / count * 1e6


def cpu_rounds(rounds: int = ROUNDS, count: int = PER_ROUND) -> list[tuple[float, float]]:
    """``(stated, scheduled)`` CPU microseconds an event, a round each, interleaved (which goes first alternating)."""
    schedules = schedules_in(None)
    sides = [_settler(STATED, schedules), _settler(SCHEDULED, schedules)]
    for side in sides:  # warm: the schedule's row found, the interpreter's caches specialised
        for _ in range(WARM_UP):
            side()
    gc.collect()
    gc.freeze()  # what the warm-up made is never scanned again: both sides' collections are their own objects'
    pairs = []
    for r in range(rounds):
        spent = [0.0, 0.0]
        for i in (0, 1) if r % 2 == 0 else (1, 0):
            side = sides[i]
            start = time.process_time()
            for _ in range(count):
                side()
            spent[i] = (time.process_time() - start) / count * 1e6
        pairs.append((spent[0], spent[1]))
    gc.unfreeze()
    return pairs


_COLLECTED = re.compile(rb"^==\d+== Collected : (\d+)$", re.MULTILINE)


def collected(stderr: bytes) -> int:
    """The instructions callgrind's summary (its ``Collected :`` line) says it counted."""
    found = _COLLECTED.search(stderr)
    if found is None:
        raise RuntimeError(f"callgrind said no 'Collected' figure: {stderr[-500:].decode(errors='replace')}")
    return int(found.group(1))


def instructions(count: int = COUNTED) -> dict[str, float] | None:
    """Instructions an event of each side (callgrind, each in a child process, both at once); None without
    valgrind."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    command = [valgrind, "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=functools_reduce",
               "--callgrind-out-file=/dev/null", sys.executable, "-m", "bench.rake_schedule", "--child"]  # fmt: skip
    children = {
        side: subprocess.Popen([*command, side, str(count)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        for side in SIDES
    }
    counted = {}
    for side, child in children.items():
        _, stderr = child.communicate()
        if child.returncode:
            raise RuntimeError(f"the {side} child failed: {stderr[-500:].decode(errors='replace')}")
        counted[side] = collected(stderr) / count
    return counted


def child(side: str, count: int) -> None:
    """The counted side: warm up, freeze the heap, then ``count`` events inside one ``functools.reduce`` (what
    callgrind's ``--toggle-collect=functools_reduce`` counts, and nothing else)."""
    settle_one = _settler(SIDES[side], schedules_in(None))
    for _ in range(WARM_UP):
        settle_one()
    gc.collect()
    gc.freeze()
    functools.reduce(lambda _, __: settle_one(), range(count), None)


@dataclass(frozen=True)
class Measured(Ratios):
    """The three ratios (schedule over stated rake: A stated, B scheduled) and what they were measured on."""

    @property
    def judged(self) -> float:
        """The verdict's figure: instructions when counted, else the CPU median."""
        ratio = self.instruction_ratio
        return self.median_ratio if ratio is None else ratio

    @property
    def verdict(self) -> str:
        return "PASS" if self.judged <= TARGET else "FAIL"

    def line(self) -> str:
        """One line: every figure and the verdict."""
        counted = (
            "instructions not counted (no valgrind)"
            if self.instructions is None
            else f"instructions {self.instructions[1] / 1e3:.1f} k / {self.instructions[0] / 1e3:.1f} k = "
            f"{self.instruction_ratio:.3f}"
        )
        by = "CPU median" if self.instructions is None else "instructions"
        return (
            f"rake schedule / stated rake: {counted}; CPU median of {len(self.rounds)} rounds' ratios "
            f"{self.median_ratio:.3f}, least of {len(self.rounds)} {self.least_ratio:.3f}: {self.verdict} "
            f"({by} {self.judged:.3f} against {TARGET:.2f})"
        )


def measure(rounds: int = ROUNDS) -> Measured:
    counted = instructions()
    return Measured(
        None if counted is None else (counted["stated"], counted["scheduled"]), cpu_rounds(rounds, PER_ROUND)
    )


def section() -> Section:
    """``make bench``'s rake row."""
    m = measure()
    load = os.getloadavg()[0]
    lines = [
        "## Rake schedule",
        "",
        "`prepare()` of a hold'em event naming its table's rake schedule and stakes (the worker computes the rake "
        "and who paid it) against the same event with its rake stated (`python -m bench.rake_schedule`): "
        f"instructions by callgrind ({COUNTED} events a side after {WARM_UP} of warm-up, each in a child process), "
        f"CPU time in this process over {len(m.rounds)} interleaved rounds of {PER_ROUND} events, load average "
        f"{load:.1f}.",
        "",
        "| figure | stated rake | by schedule | ratio |",
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
        f"Target: at most {TARGET:.2f}x (issue 38): {m.verdict} ({m.judged:.3f}).",
    ]
    return Section("\n".join(lines), [Figure("rake schedule cost: 1.10 / ratio", TARGET / m.judged, 1.0)])


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        child(argv[1], int(argv[2]))
        return 0
    m = measure(int(argv[0]) if argv else ROUNDS)
    print(f"{m.line()} (load average {os.getloadavg()[0]:.1f})")
    return 0 if m.verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
