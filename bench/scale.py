"""Audit replay on a distributed engine (issue 41): ``--engine dask`` against ``--jobs`` multiprocessing.

An archive of ``HANDS`` real showdowns (the bundled examples, each its own hand id) settled by a real worker on
fakeredis and archived by the real archiver, on two shards, in files of ``FILE_ROWS`` rows: what the archive's
own tests and benchmark build. Then, in interleaved rounds, :func:`~showdown_service.archive.replay.replay` of it:

* one process (the CPU an entry costs, here);
* ``--jobs 2``: multiprocessing, a process per shard (the default way past one core);
* ``--engine dask``: a local Dask cluster of two worker processes on 127.0.0.1 (started once, its start-up timed
  apart), one task per file, the driver proving in chain order.

Each run's differences are checked empty (the archive is intact). The figure: the engine's speed against
multiprocessing's (``--jobs 2`` seconds / ``--engine dask`` seconds). Target: within 10% (0.9x).

``python -m bench.scale --shards``: a driver a shard (``audit replay --shard``, docs/scale.md): in interleaved
rounds, the whole one-process replay against each shard's alone: wall time and CPU (the fastest round), and the
driver's share of each run's CPU (its CPU less its tasks' alone, the median of the rounds).

``python -m bench.scale --ray`` also runs Ray (``pip install ray``: not in any extra) the same way, one task per
file, for the engine choice written down in docs/scale.md.
"""

from __future__ import annotations

import importlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import fakeredis

from bench import Figure, Section
from showdown_service.archive import scale
from showdown_service.archive.archiver import Archiver
from showdown_service.archive.replay import Totals, replay
from showdown_service.archive.scale import DaskEngine, Engine, Job, Part, prepare_part
from showdown_service.infra.config import Settings
from showdown_service.storage.layout import open_store, shards
from showdown_service.worker.loop import Worker

HANDS = 6000
FILE_ROWS = 250
ROUNDS = 3
EXAMPLES = Path(__file__).resolve().parents[1] / "worker" / "showdown_service" / "data" / "showdowns.jsonl"


def build(tmp: Path, hands: int = HANDS) -> Settings:
    """The archive: ``hands`` real showdowns settled and archived, half on each of two shards."""
    lines = EXAMPLES.read_text(encoding="utf-8").splitlines()
    client = fakeredis.FakeRedis(protocol=2)
    settings = Settings(archive_url=str(tmp / "archive"), heartbeat_file=tmp / "hb", metrics_port=0, block_ms=1,
                        archive_file_rows=FILE_ROWS, batch_size=200, shards=("east", "west"))  # fmt: skip
    archiver = Archiver(settings, client, open_store(settings.archive_url))
    for shard in settings.shards:
        archiver.step(settings.keys(shard))
    pipe = client.pipeline(transaction=False)
    for i in range(hands):
        event = {**json.loads(lines[i % len(lines)])["event"], "hand_id": f"s-{i}"}
        pipe.xadd(settings.keys(settings.shards[i % 2]).events, {"event": json.dumps(event)})
    pipe.execute()
    worker = Worker(settings, client)
    worker.prepare_groups()
    for _ in range(hands // 100 + 3):
        worker.step()
    worker.flush()
    archiver.drain()
    return settings


def timed(settings: Settings, **options: Any) -> tuple[float, Totals]:
    found: list[object] = []
    started = time.perf_counter()
    totals = replay(open_store(settings.archive_url), settings, found.append, **options)
    took = time.perf_counter() - started
    assert not found, found[:3]
    return took, totals


def _same(value: int) -> int:
    return value


class RayEngine:
    """Ray, the same way (one task per file or row group, answers taken in order, a bounded window ahead): only
    for the measurement. Ray is imported by name (not an extra of the project)."""

    def __init__(self, workers: int, ahead: int = 8) -> None:
        self.ray: Any = importlib.import_module("ray")
        self.ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        self.task = self.ray.remote(prepare_part)
        self.ahead = ahead

    def run(self, tasks: Iterable[Job]) -> Iterator[tuple[Job, Part]]:
        pending: list[tuple[Job, Any]] = []
        waiting = iter(tasks)
        for job in waiting:
            pending.append((job, self.task.remote(job)))
            if len(pending) >= self.ahead:
                break
        while pending:
            job, ref = pending.pop(0)
            following = next(waiting, None)
            if following is not None:
                pending.append((following, self.task.remote(following)))
            yield job, self.ray.get(ref)

    def close(self) -> None:
        self.ray.shutdown()


def tasks_alone(settings: Settings, only: list[str] | None = None) -> float:
    """CPU seconds of the tasks' work alone (every file read and its rows prepared: :func:`prepare_part`), in this
    one process: the rest of a one-process replay's CPU is the driver's (proving in chain order). ``only``: these
    shards' files."""
    store = open_store(settings.archive_url)
    started = time.process_time()
    for job in scale.jobs(store, settings, scale.plan(store, only or shards(store))):
        assert not isinstance(prepare_part(job), str)
    return time.process_time() - started


def measure(settings: Settings, engines: dict[str, Engine], rounds: int = ROUNDS) -> dict[str, float]:
    """Seconds of a whole replay (the fastest of ``rounds``, interleaved): one process, ``--jobs 2``, each engine;
    and CPU seconds of the one-process replay (``cpu``) and of the tasks' work alone in one process (``tasks``)."""
    seconds: dict[str, list[float]] = {"one process": [], "--jobs 2": [], **{name: [] for name in engines}}
    alone: list[float] = []
    cpu: list[float] = []
    entries = 0
    for _ in range(rounds):
        started = time.process_time()
        took, totals = timed(settings)
        cpu.append(time.process_time() - started)
        seconds["one process"].append(took)
        alone.append(tasks_alone(settings))
        entries = totals.entries
        seconds["--jobs 2"].append(timed(settings, jobs=2)[0])
        for name, engine in engines.items():
            took, totals = timed(settings, engine=engine)
            assert totals.entries == entries
            seconds[name].append(took)
    best = {name: min(taken) for name, taken in seconds.items()}
    return best | {"entries": float(entries), "tasks": min(alone), "cpu": min(cpu)}


def split(rounds: int = ROUNDS) -> None:
    """``python -m bench.scale --shards``: the whole replay against each shard's (``only``), one process each,
    interleaved; the fastest round of each, and the driver's share of its CPU."""
    with tempfile.TemporaryDirectory(prefix="showdown-bench-scale-") as tmp:
        settings = build(Path(tmp))
        names = shards(open_store(settings.archive_url))
        runs = ["whole", *names]
        wall: dict[str, list[float]] = {run: [] for run in runs}
        cpu: dict[str, list[float]] = {run: [] for run in runs}
        driver: dict[str, list[float]] = {run: [] for run in runs}
        entries: dict[str, int] = {}
        for r in range(rounds):
            for run in runs if r % 2 == 0 else runs[::-1]:
                only = None if run == "whole" else [run]
                started = time.process_time()
                took, totals = timed(settings, only=only)
                used = time.process_time() - started
                wall[run].append(took)
                cpu[run].append(used)
                driver[run].append(used - tasks_alone(settings, only))
                entries[run] = totals.entries
    whole, whole_cpu = min(wall["whole"]), min(cpu["whole"])
    for run in runs:
        share = statistics.median(d / c for d, c in zip(driver[run], cpu[run], strict=True))
        print(
            f"{'whole replay' if run == 'whole' else f'--shard {run}'}, {entries[run]:,} entries: fastest "
            f"{min(wall[run]):.2f} s ({min(wall[run]) / whole:.2f} of the whole's), CPU {min(cpu[run]):.2f} s "
            f"({min(cpu[run]) / whole_cpu:.2f}); the driver's share of its CPU, median of the rounds: {share:.0%}"
        )
    print(f"the shards' runs together: {sum(min(wall[run]) for run in names) / whole:.2f} of the whole's time, "
          f"{sum(min(cpu[run]) for run in names) / whole_cpu:.2f} of its CPU")  # fmt: skip


def archive_bytes(settings: Settings) -> int:
    return sum(path.stat().st_size for path in Path(settings.archive_url).rglob("*.parquet"))


def section() -> Section:
    with tempfile.TemporaryDirectory(prefix="showdown-bench-scale-") as tmp:
        settings = build(Path(tmp))
        size = archive_bytes(settings)
        started = time.perf_counter()
        with DaskEngine(workers=2) as dask:
            dask.client.submit(int, 0).result()  # up to a first task's answer
            startup = time.perf_counter() - started
            best = measure(settings, {"--engine dask": dask})
    entries, tasks, cpu = best.pop("entries"), best.pop("tasks"), best.pop("cpu")
    driver = 1 - tasks / cpu
    ratio = best["--jobs 2"] / best["--engine dask"]
    rows = [f"| {name} | {taken:.2f} s | {taken / entries * 1e6:,.0f} us | {best['one process'] / taken:.2f}x |"
            for name, taken in best.items()]  # fmt: skip
    markdown = "\n".join([
        "## Audit replay on a distributed engine",
        "",
        f"`showdown audit replay` of {entries:,.0f} archived real showdowns (two shards, files of {FILE_ROWS} rows), "
        f"the fastest of {ROUNDS} interleaved rounds each; the Dask cluster (two worker processes on 127.0.0.1) "
        f"started once, in {startup:.1f} s (docs/scale.md).",
        "",
        "| run | whole replay | per entry | speed against one process |",
        "|---|---:|---:|---:|",
        *rows,
        "",
        f"`--engine dask` against `--jobs 2` (multiprocessing), the same archive: **{ratio:.2f}x** the speed "
        "(target within 10%: at least 0.9x).",
        "",
        f"CPU, one process: {cpu / entries * 1e6:,.0f} us an entry, of which the tasks' work (reading the files, "
        f"preparing each row) {tasks / entries * 1e6:,.0f} us; the driver's (proving in chain order) "
        f"{driver:.0%}: a cluster speeds one driver up at most {1 / driver:.1f}x. The archive: "
        f"{size / entries:,.0f} bytes an entry (zstd Parquet).",
    ])  # fmt: skip
    return Section(markdown, [Figure("audit replay: --engine dask vs --jobs 2 (speed)", ratio, 0.9)])


def engines() -> None:
    """``python -m bench.scale --ray``: Dask and Ray side by side (start-up, and a replay each), for docs/scale.md."""
    with tempfile.TemporaryDirectory(prefix="showdown-bench-scale-") as tmp:
        settings = build(Path(tmp))
        print(f"archive: {archive_bytes(settings) / HANDS:,.0f} bytes an entry")
        started = time.perf_counter()
        dask = DaskEngine(workers=2)
        dask.client.submit(int, 0).result()  # up to a first task's answer
        dask_startup = time.perf_counter() - started
        started = time.perf_counter()
        ray = RayEngine(workers=2)
        ray.ray.get(ray.ray.remote(_same).remote(0))  # Ray starts its workers on the first task: counted
        ray_startup = time.perf_counter() - started
        try:
            best = measure(settings, {"--engine dask": dask, "ray": ray})
        finally:
            dask.close()
            ray.close()
    entries, tasks, cpu = best.pop("entries"), best.pop("tasks"), best.pop("cpu")
    print(f"CPU, one process: {cpu / entries * 1e6:,.0f} us an entry; tasks alone {tasks / entries * 1e6:,.0f} us")
    print(f"start-up to a first task's answer: dask {dask_startup:.2f} s, ray {ray_startup:.2f} s")
    for name, taken in best.items():
        print(f"{name}: {taken:.2f} s, {taken / entries * 1e6:,.0f} us an entry, "
              f"{best['--jobs 2'] / taken:.2f}x the speed of --jobs 2")  # fmt: skip
    print(f"entries: {entries:,.0f}")


if __name__ == "__main__":
    if "--ray" in sys.argv[1:]:
        engines()
    elif "--shards" in sys.argv[1:]:
        split()
    else:
        print(section().markdown)
