"""Tournament benchmark: what keeping a tournament's ledger costs the worker per hand.

One generated multi-table PKO tournament (``showdown_service.tournament.simulate``:
re-entries, hand-for-hand on the bubble, most hands the usual small pots) is
settled by one ``showdown worker`` process twice per round, interleaved:

* **as a tournament**: its messages and hands, so every hand is checked
  against the ledger and moves it in the same commit (and busts are placed);
* **as plain hands**: the same hands without ``tournament_id`` and without
  the messages (bounties still settled from the events).

The figure is the time per hand of the first over the second (target: at most
1.10, "costs at most 10% more per hand"). Run: ``python -m bench.tournament``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import orjson
import redis

from bench import Figure, Section
from bench.cluster import _cpu_seconds, _process_cpu_seconds
from bench.worker import TIMEOUT_S, _launch, _stop, _wait_until_up, _worker_env
from showdown_service.localredis import LocalRedis
from showdown_service.tournament.simulate import simulate

ROUNDS = 7
TARGET = 1.10
PLAYERS = 1500


def _entries(lines: list[bytes], *, as_tournament: bool) -> list[tuple[str, bytes]]:
    """(field, payload) of each stream entry: the tournament as sent, or its hands alone without their tournament."""
    out: list[tuple[str, bytes]] = []
    for line in lines:
        ((kind, body),) = orjson.loads(line).items()
        if as_tournament:
            out.append((kind, orjson.dumps(body)))
        elif kind == "event":
            out.append(("event", orjson.dumps({k: v for k, v in body.items() if k != "tournament_id"})))
    return out


def _run(
    client: redis.Redis, url: str, shard: str, entries: list[tuple[str, bytes]], workdir: Path
) -> tuple[float, float]:
    """Seconds for one worker process to commit ``entries`` (published beforehand), from its first heartbeat, and
    the CPU seconds that took (the worker process, every thread, plus Redis): the CPU is what the machine's noise
    disturbs least."""
    stream = f"showdown:{{{shard}}}:events"
    for start in range(0, len(entries), 2000):
        pipe = client.pipeline(transaction=False)
        for field, payload in entries[start : start + 2000]:
            pipe.xadd(stream, {field: payload})
        pipe.execute()
    proc, beats = _launch(_worker_env(url, shard, workdir), 1)
    try:
        begun = _wait_until_up([proc], beats)
        cpu_before = _process_cpu_seconds(proc.pid) + _cpu_seconds([client])
        deadline = time.monotonic() + TIMEOUT_S
        while client.xlen(f"showdown:{{{shard}}}:audit") < len(entries):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the worker did not finish {shard} within {TIMEOUT_S}s")
            time.sleep(0.002)
        elapsed = time.perf_counter() - begun
        return elapsed, _process_cpu_seconds(proc.pid) + _cpu_seconds([client]) - cpu_before
    finally:
        _stop(proc)


def section(players: int = PLAYERS) -> Section:
    sim = simulate(5, players=players, reentries=players // 15, quiet_hands=6, stack=20_000)
    as_tournament = _entries(sim.lines, as_tournament=True)
    plain = _entries(sim.lines, as_tournament=False)
    ratios: list[float] = []
    wall: list[float] = []
    rows: list[str] = []
    with tempfile.TemporaryDirectory(prefix="showdown-bench-") as tmp, LocalRedis(appendfsync="everysec") as server:
        client = redis.Redis.from_url(server.url, protocol=2)
        for r in range(ROUNDS):  # each run on an emptied server; which goes first alternates between rounds
            runs: dict[str, tuple[float, float]] = {}
            for name in ("plain", "tour") if r % 2 == 0 else ("tour", "plain"):
                runs[name] = _run(client, server.url, f"{name}-{r}", plain if name == "plain" else as_tournament,
                                  Path(tmp))  # fmt: skip
                client.flushall()
            (t_plain, cpu_plain), (t_tour, cpu_tour) = runs["plain"], runs["tour"]
            ratio = cpu_tour / cpu_plain
            ratios.append(ratio)
            wall.append(t_tour / t_plain)
            rows.append(
                f"| {r + 1} | {sim.hands / t_plain:,.0f} | {sim.hands / t_tour:,.0f} | "
                f"{1e6 * cpu_plain / sim.hands:.1f} | {1e6 * cpu_tour / sim.hands:.1f} | {t_tour / t_plain:.3f} | "
                f"{ratio:.3f} |"
            )
            client.flushall()
    median = statistics.median(ratios)
    met = "met" if median <= TARGET else "MISSED"
    lines = [
        "## Tournaments",
        "",
        f"One generated PKO tournament ({sim.entries:,} entries, {sim.hands:,} hands, {sim.rounds} hand-for-hand "
        f"rounds, {len(sim.lines) - sim.hands:,} tournament messages), settled by one worker process as a "
        "tournament (every hand checked against the ledger and moving it in its commit) and as the same hands "
        f"without their tournament; {ROUNDS} interleaved rounds:",
        "",
        "| round | plain hands/s | tournament hands/s | plain CPU us/hand | tournament CPU us/hand | wall ratio | "
        "CPU ratio |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        "CPU is the worker process's (every thread) plus the Redis server's, per hand, messages' cost included: the "
        "machine's noise moves wall time far more than it moves CPU time.",
        "",
        f"Target: a tournament hand costs at most {TARGET:.2f}x a plain one (CPU per hand, median of {ROUNDS}): "
        f"{median:.3f} -> {met} (wall time: median {statistics.median(wall):.3f})",
    ]
    return Section("\n".join(lines), [Figure("tournament hand cost: 1.10 / median ratio", TARGET / median, 1.0)])


def main() -> None:
    print(section().markdown)


if __name__ == "__main__":
    main()
