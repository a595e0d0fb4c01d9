"""The whole pipeline by core count (issue 41): N shards, N worker processes and the archivers against a Redis
Cluster, entries/s by N, and the efficiency per core.

For each N in 1, 2, 4, ... up to the cores given (``--cores``, default: this machine's), on a cluster of
``--masters`` masters (default: one per four cores, at least three; AOF everysec, no replicas: in production
those are other machines'), started once for the whole run:

* ``N * PER_SHARD`` real showdowns (each its own hand and table, routed over N shards as producers route them)
  are published beforehand;
* ``N`` ``showdown worker`` processes, one per shard, and ``ceil(N / 4)`` ``showdown archiver`` processes (each
  holds a lease per shard: they share the shards) start together; the clock runs from the first worker's
  heartbeat to the moment every shard's archive progress (its ``archive`` hash's ``seq``) reaches its last entry:
  every hand settled, its audit record chained and written to a Parquet file.

The figures: settled-and-archived entries/s by N, and the per-core efficiency ``rate(N) / (N * rate(1))`` (1.0:
each added shard and its worker bring a whole core's rate). On the 2-core development machine only N = 1 and 2 run
(and N = 2 shares the cores with the cluster and the archiver): the point of ``--cores`` is a bigger machine,
``python -m bench.pipeline --cores 32``.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import orjson
from redis.cluster import RedisCluster

from bench import Figure, Section
from bench.worker import _launch, _stop, _wait_until_up, _worker_env
from showdown_messages.publish import shard_for
from showdown_service.infra.connection import Client, connect_cluster
from showdown_service.testing.localredis import LocalCluster
from tests.helpers import REAL_SHOWDOWNS, read_cases

PER_SHARD = 2_000
"""Entries per shard per run: the work grows with N, so each process has as much to do at every N."""
ROUNDS = 2
TIMEOUT_S = 600.0
TARGET_EFFICIENCY = 0.7
"""At the largest N measured, each core brings at least this share of one core's rate (a many-core goal)."""


@dataclass(frozen=True)
class Run:
    shards: int
    entries: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.entries / self.seconds


def ladder(cores: int) -> list[int]:
    """1, 2, 4, ... up to ``cores``, and ``cores`` itself."""
    out = [1]
    while out[-1] * 2 <= cores:
        out.append(out[-1] * 2)
    if out[-1] != cores:
        out.append(cores)
    return out


def shard_names(n: int) -> list[str]:
    return [f"s{i}" for i in range(n)]


def _publish(client: Client, prefix: str, shards: list[str], tag: str) -> dict[str, int]:
    """``len(shards) * PER_SHARD`` real showdowns as producers route them (each to its table's shard); how many each
    shard got."""
    cases = [case["event"] for case in read_cases(REAL_SHOWDOWNS)]
    per_shard = dict.fromkeys(shards, 0)
    pending: dict[str, list[bytes]] = {shard: [] for shard in shards}
    for i in range(len(shards) * PER_SHARD):
        event = {**cases[i % len(cases)], "hand_id": f"{tag}-{i}", "table_id": f"T-{i}"}
        shard = shard_for(event["table_id"], shards)
        pending[shard].append(orjson.dumps(event))
        per_shard[shard] += 1
    for shard, payloads in pending.items():
        for start in range(0, len(payloads), 2000):
            pipe = client.pipeline(transaction=False)
            for payload in payloads[start : start + 2000]:
                pipe.xadd(f"{prefix}:{{{shard}}}:events", {"event": payload})
            pipe.execute()
    return per_shard


def _archived(client: Client, prefix: str, shard: str) -> int:
    seq = client.hget(f"{prefix}:{{{shard}}}:archive", "seq")
    return int(seq) if seq else 0


def run_once(client: Client, url: str, n: int, tag: str, workdir: Path) -> Run:
    """One run at N shards: publish, start the workers and archivers, wait until the archive holds every entry."""
    prefix = f"pipe-{tag}"
    shards = shard_names(n)
    expected = _publish(client, prefix, shards, tag)
    archive = workdir / f"archive-{tag}"
    procs: list[subprocess.Popen[bytes]] = []
    heartbeats: list[Path] = []
    try:
        for shard in shards:
            env = _worker_env(url, shard, workdir)
            env.update(SHOWDOWN_KEY_PREFIX=prefix, SHOWDOWN_REDIS_CLUSTER="true", SHOWDOWN_ARCHIVE_URL=str(archive))
            proc, beats = _launch(env, 1)
            procs.append(proc)
            heartbeats += beats
        for i in range(math.ceil(n / 4)):
            env = _worker_env(url, ",".join(shards), workdir)
            env.update(SHOWDOWN_KEY_PREFIX=prefix, SHOWDOWN_REDIS_CLUSTER="true", SHOWDOWN_ARCHIVE_URL=str(archive),
                       SHOWDOWN_CONSUMER=f"archiver-{i}", SHOWDOWN_ARCHIVE_INTERVAL_S="0.2",
                       SHOWDOWN_ARCHIVE_FILE_ROWS=str(PER_SHARD // 4))  # fmt: skip
            procs.append(subprocess.Popen([sys.executable, "-m", "showdown_service", "archiver"], env=env,
                                          stdout=subprocess.DEVNULL))  # fmt: skip
        start = _wait_until_up(procs[:n], heartbeats)
        deadline = time.monotonic() + TIMEOUT_S
        while any(_archived(client, prefix, shard) < count for shard, count in expected.items()):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the pipeline did not archive {sum(expected.values())} entries in {TIMEOUT_S}s")
            if any(proc.poll() is not None for proc in procs):
                raise RuntimeError("a worker or archiver process ended during the run")
            time.sleep(0.02)
        elapsed = time.perf_counter() - start
    finally:
        for proc in procs:
            _stop(proc)
    return Run(n, sum(expected.values()), elapsed)


def measure(cores: int, masters: int, rounds: int = ROUNDS) -> dict[int, list[Run]]:
    """Interleaved rounds over the ladder (the order reversed every other round), on one cluster."""
    steps = ladder(cores)
    runs: dict[int, list[Run]] = {n: [] for n in steps}
    with (
        tempfile.TemporaryDirectory(prefix="showdown-bench-pipeline-") as tmp,
        LocalCluster(masters=masters, replicas=0, appendfsync="everysec") as cluster,
    ):
        client: RedisCluster = connect_cluster(cluster.url, protocol=2, driver_info=None)
        try:
            for r in range(rounds):
                for n in steps if r % 2 == 0 else steps[::-1]:
                    runs[n].append(run_once(client, cluster.url, n, f"r{r}n{n}", Path(tmp)))
        finally:
            client.close()
    return runs


def section(cores: int | None = None, masters: int | None = None, rounds: int = ROUNDS) -> Section:
    cores = cores or os.cpu_count() or 1
    masters = masters or max(3, cores // 4)
    runs = measure(cores, masters, rounds)
    rate = {n: statistics.median([r.per_second for r in rs]) for n, rs in runs.items()}
    efficiency = {n: rate[n] / (n * rate[1]) for n in rate}
    top = max(rate)
    lines = [
        "## The pipeline by core count",
        "",
        f"N shards, N `showdown worker` processes (one per shard) and ceil(N/4) `showdown archiver` processes "
        f"against a Redis Cluster of {masters} masters (AOF everysec) on this machine ({os.cpu_count()} cores; "
        f"`--cores {cores}`); {PER_SHARD:,} real showdowns per shard published beforehand; the clock from the first "
        f"worker's heartbeat until every shard's archive holds its last entry. Median of {rounds} interleaved "
        f"rounds (`python -m bench.pipeline --cores N` on a bigger machine):",
        "",
        "| N (shards = workers) | settled and archived entries/s | per-core efficiency |",
        "|---:|---:|---:|",
        *(f"| {n} | {rate[n]:,.0f} | {efficiency[n]:.2f} |" for n in rate),
        "",
        f"- efficiency at N = {top}: {efficiency[top]:.2f} (a many-core target of >= {TARGET_EFFICIENCY:g}; on a "
        f"machine with fewer cores than processes it measures the sharing, not the design)",
    ]
    figure = Figure(f"pipeline per-core efficiency at N={top} / {TARGET_EFFICIENCY:g}",
                    efficiency[top] / TARGET_EFFICIENCY, 1.0)  # fmt: skip
    return Section("\n".join(lines), [figure])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.pipeline", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cores", type=int, default=None, help="the largest N (default: this machine's cores)")
    parser.add_argument("--masters", type=int, default=None, help="cluster masters (default: max(3, cores / 4))")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args(argv)
    print(section(args.cores, args.masters, args.rounds).markdown)


if __name__ == "__main__":
    main()
