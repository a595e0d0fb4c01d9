"""Where a worker's time goes: microseconds per entry by stage, in the real worker process.

``showdown worker`` (one process, as deployed) settles real showdowns published
beforehand while py-spy samples it from outside (``--nonblocking``: the
worker is never paused; 1,000 samples a second; idle stacks included). Each
sample of the worker's main thread is charged to the innermost stage on its
stack:

* validate: the contract's model (``parse_event``: pydantic and its cross-field check);
* settle: the core's view of the event and the settlement (``to_showdown``, ``settle``);
* encode: the ShowdownResult JSON (``encode_result``);
* digest: every sha256 (the canonical event, the result, each audit record);
* commit: planning each commit (dedupe outcomes, audit records, the script's arguments);
* log: the batch's log lines and metrics (``Planning.report``);
* waiting: waiting for the I/O thread's round trip (the commit and the next read);
* other: the rest (the loop, entry ids, the ``Prepared`` records, the collector).

A stage's time per entry is its share of the main thread's samples times the
run's time per entry. The process's CPU time per entry (both threads; from
``/proc``) is given beside it, and how often the I/O thread was in a round
trip (packing each commit, sending it, reading the next batch, waiting for
Redis), which overlaps the main thread's work.

Run: ``python -m bench.stages`` (``make bench`` runs every benchmark).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import redis

from bench.timing import fmt_time
from showdown_service.testing.localredis import LocalRedis

STAGES = ("validate", "settle", "encode", "digest", "commit", "log", "waiting", "other")
MARKERS: tuple[tuple[str, str], ...] = (
    ("sha256_hex ", "digest"),
    ("event_digest ", "digest"),
    ("parse_event ", "validate"),
    ("to_showdown ", "settle"),
    ("settle ", "settle"),
    ("encode_result ", "encode"),
    ("Planning.plan_at ", "commit"),  # the worker's planning part (worker/planning.py): decide and pack
    ("Planning.report ", "log"),
)
"""(frame name as py-spy writes it, stage): the innermost frame naming a stage decides."""
RATE = 500


class Profile(NamedTuple):
    """One sampled run."""

    per_entry: dict[str, float]
    """Microseconds of the main thread per entry, by stage."""
    cpu_us: float
    """The process's CPU microseconds per entry (both threads)."""
    io_busy: float
    """The I/O thread's samples in a round trip (waiting for Redis's answer included), over the main thread's."""
    rate: float
    """Entries per second of the sampled run."""


def _stage(frames: list[str]) -> str:
    for frame in reversed(frames):
        for marker, stage in MARKERS:
            if frame.startswith(marker):
                return stage
    if any(frame.startswith("Future.result ") for frame in frames):
        return "waiting"
    return "other"


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def profile(url: str, payloads: list[bytes], workdir: Path, shard: str = "stages") -> Profile:
    """Sample one ``showdown worker`` settling ``payloads`` (published first)."""
    from bench.worker import _launch, _publish, _stop, _wait_until_up, _worker_env

    py_spy = str(Path(sys.executable).parent / "py-spy")  # the development install's, beside this Python
    if not Path(py_spy).exists():
        py_spy = shutil.which("py-spy") or "py-spy"
    client = redis.Redis.from_url(url, protocol=2)
    _publish(client, f"showdown:{{{shard}}}:events", payloads)
    proc, heartbeats = _launch(_worker_env(url, shard, workdir), 1)
    raw = workdir / "stages.txt"
    spy: subprocess.Popen[bytes] | None = None
    try:
        spy = subprocess.Popen(
            [py_spy, "record", "--pid", str(proc.pid), "--idle", "--threads", "--rate", str(RATE),
             "--format", "raw", "--output", str(raw)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        start = _wait_until_up([proc], heartbeats)
        cpu_start = _cpu_seconds(proc.pid)
        deadline = time.monotonic() + 120
        while client.xlen(f"showdown:{{{shard}}}:audit") < len(payloads):
            if time.monotonic() > deadline:
                raise RuntimeError("the sampled worker did not finish within 120 s")
            time.sleep(0.002)
        wall = time.perf_counter() - start
        cpu = _cpu_seconds(proc.pid) - cpu_start
    finally:
        if spy is not None:
            spy.send_signal(signal.SIGINT)  # py-spy writes its file on the way out
            try:
                spy.wait(30)
            except subprocess.TimeoutExpired:
                spy.kill()
                spy.wait()
        _stop(proc)
    main: Counter[str] = Counter()
    io_busy = 0
    lines = raw.read_text(encoding="utf-8").splitlines() if raw.exists() else []  # none: py-spy could not attach
    for line in lines:
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if any(f.startswith("Worker.step ") for f in frames):
            main[_stage(frames)] += int(count)
        elif any(f.startswith("IOPipeline.round_trip ") for f in frames):
            io_busy += int(count)
    n = len(payloads)
    total = sum(main.values()) or 1
    per_entry = {stage: main[stage] / total * wall / n * 1e6 for stage in STAGES}
    return Profile(per_entry, cpu / n * 1e6, io_busy / total, n / wall)


def table(run: Profile, us_per_entry: float | None = None) -> list[str]:
    """Markdown rows: each stage's share of the main thread and its microseconds per entry (scaled to
    ``us_per_entry``, the unsampled worker's time per entry, when given), and the process's CPU."""
    total = sum(run.per_entry.values())
    if not total:
        return [
            "(no samples: py-spy could not attach to the worker; it needs ptrace, e.g. CAP_SYS_PTRACE in a container)"
        ]
    scale = (us_per_entry or total) / total
    lines = ["| stage | per entry | share of the main thread |", "|---|---:|---:|"]
    lines += [f"| {stage} | {fmt_time(us * scale / 1e6)} | {us / total:.0%} |" for stage, us in run.per_entry.items()]
    lines += [
        f"| main thread, in all | {fmt_time(total * scale / 1e6)} | 100% |",
        f"| process CPU while sampled (both threads; the I/O thread in a round trip, waiting for Redis included, in "
        f"{run.io_busy:.0%} of the main thread's samples) | {fmt_time(run.cpu_us / 1e6)} | |",
    ]
    return lines


def main() -> None:
    from bench.worker import EVENTS, _events

    with tempfile.TemporaryDirectory(prefix="showdown-stages-") as tmp, LocalRedis(appendfsync="everysec") as server:
        run = profile(server.url, _events(EVENTS, "stages"), Path(tmp))
    print(f"{run.rate:,.0f} entries/s while sampled")
    print("\n".join(table(run)))


if __name__ == "__main__":
    main()
