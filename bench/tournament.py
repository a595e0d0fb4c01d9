"""Tournament benchmark: what keeping a tournament's ledger costs the worker per hand.

Two generated multi-table PKO tournaments (``showdown_service.testing.simulate``:
re-entries, hand-for-hand on the bubble, most hands the usual small pots; see
:data:`SHAPES`: a deep one, and a fast one with a bust every 7 hands) are each
settled three ways at once, each way by its own ``showdown worker`` process on
its own Redis server (:data:`MODES`):

* **tour**: its messages and hands, so every hand is checked against the
  ledger and moves it in the same commit (and busts are placed);
* **plain**: the same hands without ``tournament_id`` and without the
  messages (bounties still settled from the events);
* **messages**: the same hands without ``tournament_id``, among the
  tournament's messages: the messages' cost, apart from the hands' own.

The figure is the CPU time (worker process, every thread, plus its Redis
server) per hand of tour over plain: target at most 1.10, "costs at most 10%
more per hand". The tournament's messages are charged to its hands.

Why side by side, over the same hands: this machine is shared, and its
neighbours move the CPU time the same work takes by 20-50% from one run to
the next (two runs of the same worker, one after the other, differ by that
much). Run at the same time, every side sees the same neighbours. The
workers are started, then let at their entries together (published
beforehand behind a consumer group set past them, then set back to the
start); the round ends when the first finishes, and each side's CPU is read
for the same hands: the first N, N what the slowest had settled then (the
others' CPU at N read between the polls around it). The same hands because
a tournament's hands are not alike: its first ones, at full tables and among
the entry messages, cost more than a final table's. Rounds take turns at
which worker is started first; the median of the rounds' ratios is the
figure. Run: ``python -m bench.tournament``.
"""

from __future__ import annotations

import statistics
import subprocess
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from itertools import accumulate, pairwise
from pathlib import Path

import orjson
import redis

from bench import Figure, Section
from bench.cluster import _cpu_seconds, _process_cpu_seconds
from bench.worker import TIMEOUT_S, _launch, _stop, _wait_until_up, _worker_env
from showdown_service.testing.localredis import LocalRedis
from showdown_service.testing.simulate import simulate

ROUNDS = 7
TARGET = 1.10
PLAYERS = 1500
POLL_S = 0.01
GROUP = "bench"
BLOCK_MS = 2
"""Idle workers read again every 2 ms: both start within that of the go (their idle reads before it are in the
window's first mark, not in it)."""
MODES = ("plain", "messages", "tour")
"""``tour``: the tournament as sent. ``plain``: its hands alone, without their tournament. ``messages``: its hands
without their tournament, among the tournament's messages (which keep its ledger): how the cost splits between the
messages and the hands' own ledger work."""


def _entries(lines: list[bytes], mode: str) -> list[tuple[str, bytes]]:
    """(field, payload) of each stream entry of ``mode`` (see :data:`MODES`)."""
    out: list[tuple[str, bytes]] = []
    for line in lines:
        ((kind, body),) = orjson.loads(line).items()
        if kind == "event" and mode != "tour":
            out.append(("event", orjson.dumps({k: v for k, v in body.items() if k != "tournament_id"})))
        elif kind == "event" or mode != "plain":
            out.append((kind, orjson.dumps(body)))
    return out


@dataclass(frozen=True)
class _Side:
    """One mode's server, client, stream entries and, per count of entries settled, the hands among them."""

    server: LocalRedis
    client: redis.Redis
    entries: list[tuple[str, bytes]]
    hands_in: list[int]
    """``hands_in[n]``: hands among the first ``n`` entries (one worker settles them in stream order)."""


@dataclass(frozen=True)
class _Mark:
    cpu: float
    """Worker process (every thread) plus its Redis server, seconds."""
    settled: int
    """Entries with an audit record."""


def _mark(side: _Side, pid: int, shard: str) -> _Mark:
    cpu = _process_cpu_seconds(pid) + _cpu_seconds([side.client])
    return _Mark(cpu, int(side.client.xlen(f"showdown:{{{shard}}}:audit")))


def _round(sides: dict[str, _Side], first: str, shard: str, workdir: Path) -> dict[str, tuple[float, int, float]]:
    """Every mode at once, each on its server, from the start (every worker up, then every group let at its entries
    together) to the first finishing: per mode (CPU seconds, hands, wall seconds) for the same hands, the first
    ``hands`` the slowest had settled by then (the others' CPU at that count read between the polls around it)."""
    events = f"showdown:{{{shard}}}:events"
    for side in sides.values():  # published beforehand, behind a group whose workers see none of it yet
        for at in range(0, len(side.entries), 2000):
            pipe = side.client.pipeline(transaction=False)
            for field, payload in side.entries[at : at + 2000]:
                pipe.xadd(events, {field: payload})
            pipe.execute()
        side.client.xgroup_create(events, GROUP, id="$")
        side.client.xgroup_create(events, "unread", id="0")  # a group that reads nothing: no trim takes the backlog
    procs: dict[str, tuple[subprocess.Popen[bytes], list[Path]]] = {}
    try:
        for mode in [first, *(m for m in MODES if m != first)]:  # launched in turn: each round starts another first
            (workdir / mode).mkdir(exist_ok=True)
            env = _worker_env(sides[mode].server.url, shard, workdir / mode)
            env.update(SHOWDOWN_GROUP=GROUP, SHOWDOWN_BLOCK_MS=str(BLOCK_MS))
            procs[mode] = _launch(env, 1)
        for proc, beats in procs.values():
            _wait_until_up([proc], beats)
        start = {mode: _mark(sides[mode], procs[mode][0].pid, shard) for mode in MODES}
        for side in sides.values():  # go: the whole stream is new to the group (idle workers poll every BLOCK_MS)
            side.client.xgroup_setid(events, GROUP, id="0")
        begun = time.perf_counter()
        deadline = time.monotonic() + TIMEOUT_S
        series: dict[str, list[tuple[int, float]]] = {m: [(0, 0.0)] for m in MODES}
        while True:
            marks = {mode: _mark(sides[mode], procs[mode][0].pid, shard) for mode in MODES}
            for m in MODES:
                series[m].append((sides[m].hands_in[marks[m].settled], marks[m].cpu - start[m].cpu))
            if any(marks[m].settled >= len(sides[m].entries) for m in MODES):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"neither worker finished within {TIMEOUT_S}s")
            time.sleep(POLL_S)
        wall = time.perf_counter() - begun
        hands = min(series[m][-1][0] for m in MODES)  # the hands both have settled: the same work on both sides
        return {m: (_cpu_at(series[m], hands), hands, wall) for m in MODES}
    finally:
        for proc, _ in procs.values():
            _stop(proc)
        for side in sides.values():
            side.client.flushall()


def _cpu_at(series: list[tuple[int, float]], hands: int) -> float:
    """CPU seconds spent by the time ``hands`` hands were settled, between the two polls around it (linear)."""
    for (h0, c0), (h1, c1) in pairwise(series):
        if h0 <= hands <= h1:
            return c1 if h1 == h0 else c0 + (c1 - c0) * (hands - h0) / (h1 - h0)
    raise ValueError(f"{hands} hands were never reached")


@dataclass(frozen=True)
class _Shape:
    """A tournament to measure: its name in the report and the generator's settings."""

    name: str
    players: int
    quiet_hands: int
    """Hands without an all-in between two confrontations at a table: what sets how many hands an entry lasts."""


SHAPES = (
    _Shape("multi-table (deep)", 800, 20),
    _Shape("fast (a bust every few hands)", PLAYERS, 6),
)
"""An online multi-table tournament lasts some 20-30 hands per entry (a field of 1,000 at 60-80 hands an hour a
table over 6 hours, the tables emptying as it goes): the first. The second is a turbo's pace, a bust every 7
hands, as a sit-and-go's: there the messages and the busts (each placed, written whole, put on the standings
stream) weigh most on every hand."""


def _measure(shape: _Shape) -> tuple[str, list[float], list[float], list[str]]:
    """One tournament, :data:`ROUNDS` side-by-side rounds: its description, the rounds' tournament / plain and
    tournament / messages ratios, and the table rows."""
    sim = simulate(5, players=shape.players, reentries=shape.players // 15, quiet_hands=shape.quiet_hands,
                   stack=20_000)  # fmt: skip
    ratios: list[float] = []
    hands_only: list[float] = []
    rows: list[str] = []
    with tempfile.TemporaryDirectory(prefix="showdown-bench-") as tmp, ExitStack() as stack:
        sides: dict[str, _Side] = {}
        for mode in MODES:
            server = stack.enter_context(LocalRedis(appendfsync="everysec"))
            entries = _entries(sim.lines, mode)
            hands_in = [0, *accumulate(field == "event" for field, _ in entries)]
            sides[mode] = _Side(server, redis.Redis.from_url(server.url, protocol=2), entries, hands_in)
        for r in range(ROUNDS):
            first = MODES[r % len(MODES)]
            got = _round(sides, first, f"bench-{r}", Path(tmp))
            per = {m: got[m][0] / got[m][1] for m in MODES}
            ratios.append(per["tour"] / per["plain"])
            hands_only.append(per["tour"] / per["messages"])
            rows.append(
                f"| {shape.name} | {r + 1} | {first} | {got['tour'][1]:,} | "
                + " | ".join(f"{1e6 * per[m]:.1f}" for m in MODES)
                + f" | {per['tour'] / per['plain']:.3f} | {per['tour'] / per['messages']:.3f} |"
            )
    about = (
        f"**{shape.name}**: {sim.entries:,} entries, {sim.hands:,} hands ({sim.hands / sim.entries:.1f} per "
        f"entry), {sim.rounds} hand-for-hand rounds, {len(sim.lines) - sim.hands:,} tournament messages"
    )
    return about, ratios, hands_only, rows


def section() -> Section:
    measured = [(shape, *_measure(shape)) for shape in SHAPES]
    results = [
        f"{shape.name}: median {statistics.median(ratios):.3f} -> "
        f"{'met' if statistics.median(ratios) <= TARGET else 'MISSED'} (the hands' own work: "
        f"{statistics.median(hands_only):.3f})"
        for shape, _, ratios, hands_only, _ in measured
    ]
    lines = [
        "## Tournaments",
        "",
        "Two generated PKO tournaments (re-entries, hand-for-hand on the bubble), each settled at the same time "
        "three ways, each way by its own worker process on its own Redis server: **tournament** (its messages and "
        "hands: every hand checked against the ledger and moving it in its commit), **plain** (the same hands "
        "without their tournament), **messages** (the same hands without their tournament, among the tournament's "
        "messages). CPU per hand over the same hands on every side (the first N, N what the slowest had settled "
        f"when the first finished); {ROUNDS} rounds each, which starts first taking turns.",
        "",
        *[f"* {about}" for _, about, *_ in measured],
        "",
        "| tournament | round | first | hands | plain CPU us/hand | messages CPU us/hand | tournament CPU us/hand | "
        "tournament / plain | tournament / messages |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|",
        *[row for *_, rows in measured for row in rows],
        "",
        "CPU is each worker process's (every thread) plus its Redis server's. Side by side because the machine's "
        "neighbours move CPU time per hand by 20-50% between runs made one after the other. Tournament / messages "
        "is what the hands' own ledger work costs (checks, moves, places: the messages on both sides); tournament / "
        "plain adds the messages, charged to the hands.",
        "",
        f"Target: a tournament hand costs at most {TARGET:.2f}x a plain one, messages included (CPU per hand, median "
        f"of {ROUNDS}): " + "; ".join(results) + ".",
    ]
    figures = [
        Figure(f"tournament hand cost, {shape.name}: 1.10 / median ratio", TARGET / statistics.median(ratios), 1.0)
        for shape, _, ratios, _, _ in measured
    ]
    return Section("\n".join(lines), figures)


def main() -> None:
    print(section().markdown)


if __name__ == "__main__":
    main()
