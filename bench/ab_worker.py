"""Two versions of the worker side by side: ``python -m bench.ab_worker BASE_PYTHON [ROUNDS] [HANDS]``.

``BASE_PYTHON`` is the interpreter of another checkout's virtual environment
(for example a ``git worktree`` of the commit before a change, with ``make
.venv/.installed`` run in it); this interpreter runs this checkout. Rounds are
interleaved (which goes first takes turns) against one redis-server (AOF
everysec), each round on an emptied server. Per run, as :mod:`bench.worker`
measures it: the one-process worker's entries/s from its loop starting to its
last audit record, the same round's bare redis-py loop, the worker process's
CPU per entry and redis-server's (from /proc: user + system, steadier than wall
time on a shared machine). Printed: the median worker/bare-loop ratio of each,
and this/base for the ratio and for CPU per entry (the figure "within 5%" is
judged on).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import redis

from bench import worker as bw
from showdown_service.testing.localredis import LocalRedis

TICK = os.sysconf("SC_CLK_TCK")
FINISH_S = 300.0
"""Longest wait (s) for one run's last audit record (bounded)."""


def cpu_s(pid: int) -> float:
    """A process's CPU time so far (user + system, s)."""
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def run_worker(
    client: redis.Redis, url: str, n: int, workdir: Path, *, python: str, tag: str
) -> tuple[float, float, float]:
    """One worker run under ``python``: (entries/s, worker CPU us/entry, redis-server CPU us/entry)."""
    bw._publish(client, f"showdown:{{{tag}}}:events", bw._events(n, tag))
    mine = sys.executable
    sys.executable = python  # bench.worker launches `sys.executable -m showdown_service worker`
    try:
        proc, beats = bw._launch(bw._worker_env(url, tag, workdir), 1)
    finally:
        sys.executable = mine
    try:
        start = bw._wait_until_up([proc], beats)
        server = int(client.info("server")["process_id"])
        cpu0, srv0 = cpu_s(proc.pid), cpu_s(server)
        deadline = time.monotonic() + FINISH_S
        while client.xlen(f"showdown:{{{tag}}}:audit") < n:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{python}: the worker did not settle {n} entries in {FINISH_S:.0f} s")
            time.sleep(0.002)
        elapsed = time.perf_counter() - start
        cpu, srv = cpu_s(proc.pid) - cpu0, cpu_s(server) - srv0
    finally:
        bw._stop(proc)
    return n / elapsed, cpu / n * 1e6, srv / n * 1e6


def main(argv: list[str]) -> None:
    base = argv[0]
    rounds = int(argv[1]) if len(argv) > 1 else 5
    n = int(argv[2]) if len(argv) > 2 else 20_000
    runs: dict[str, list[tuple[float, float, float]]] = {"base": [], "this": []}
    with tempfile.TemporaryDirectory(prefix="showdown-ab-") as tmp, LocalRedis(appendfsync="everysec") as server:
        client = redis.Redis.from_url(server.url, protocol=2)
        for r in range(rounds):
            order = [("base", base), ("this", sys.executable)]
            for name, python in order if r % 2 == 0 else order[::-1]:
                bare = bw.bare_loop(client, n).per_second
                client.flushall()
                rate, cpu, srv = run_worker(client, server.url, n, Path(tmp), python=python, tag=f"{name}{r}")
                client.flushall()
                runs[name].append((rate / bare, cpu, srv))
                print(f"round {r} {name}: worker {rate:,.0f}/s, bare loop {bare:,.0f}/s, ratio {rate / bare:.3f}, "
                      f"worker CPU {cpu:.1f} us/entry, redis-server {srv:.1f} us/entry", flush=True)  # fmt: skip
    medians = {name: [statistics.median(run[i] for run in rows) for i in range(3)] for name, rows in runs.items()}
    for name, (ratio, cpu, srv) in medians.items():
        print(f"{name}: median ratio {ratio:.3f}, worker CPU {cpu:.1f} us/entry, redis-server {srv:.1f} us/entry")
    (b_ratio, b_cpu, _), (t_ratio, t_cpu, _) = medians["base"], medians["this"]
    print(f"this/base: worker/bare-loop ratio {t_ratio / b_ratio:.3f}, worker CPU per entry {t_cpu / b_cpu:.3f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
