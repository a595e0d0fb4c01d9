"""Cluster benchmark: one worker process against a Redis Cluster vs the same worker against one node.

The same events (real showdowns, each with its own hand_id and table, routed
over six shards as producers route them) are published beforehand, then one
``showdown worker`` process serving the six shards settles them, the clock
running from its first heartbeat to the last audit record:

* against one node (``LocalRedis``, AOF everysec);
* against a cluster of three masters (``LocalCluster``, AOF everysec), two
  shards per master, ``SHOWDOWN_REDIS_CLUSTER=true``: what the cluster
  client and the per-node reads and commits cost the worker;
* against a cluster of three masters with a replica each: the same, plus six
  server processes replicating and appending on this same host (in
  production the replicas' CPU and disk are other machines').

Rounds rotate through the three (and which goes first), on servers that run
for the whole benchmark. Besides settled entries per second, each run reads
the worker process's CPU time (user + system, its I/O thread included) and
the Redis CPU time (``INFO cpu`` of every master) per settled entry: the
worker's tells what the cluster client costs whatever else the shared
machine runs; Redis's says how many entries per second one node's core
takes before it is the limit.

Run: ``python -m bench.cluster`` (``make bench`` runs every benchmark).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson
import redis
from redis.cluster import RedisCluster

from bench import Figure, Section
from bench.worker import TIMEOUT_S, _launch, _stop, _wait_until_up, _worker_env
from showdown_messages.publish import shard_for
from showdown_service.infra.connection import Client, connect_cluster
from showdown_service.testing.localredis import LocalCluster, LocalRedis
from tests.helpers import REAL_SHOWDOWNS, read_cases

EVENTS = 10_000
ROUNDS = 5
SHARDS = ("table0", "table1", "table2", "table3", "table5", "table6")
"""Two per master of a three-master cluster (tests/worker/test_cluster.py checks the spread)."""
TARGET_RATIO = 0.9
"""One worker on a cluster settles at least this share of what it settles on one node."""


@dataclass(frozen=True)
class Run:
    per_second: float
    worker_cpu_us_per_entry: float
    """The worker process's CPU (user + system, every thread) per settled entry, in microseconds."""
    redis_cpu_us_per_entry: float
    """Redis CPU (every master, user + system) per settled entry, in microseconds."""


def _process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process (Linux /proc; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _events(n: int, tag: str) -> list[tuple[str, bytes]]:
    """``n`` real showdowns, each with a hand_id and one of 600 tables; (shard, payload) as a producer routes."""
    cases = [case["event"] for case in read_cases(REAL_SHOWDOWNS)]
    out = []
    for i in range(n):
        event = {**cases[i % len(cases)], "hand_id": f"{tag}-{i}", "table_id": f"T-{i % 600}"}
        out.append((shard_for(event["table_id"], SHARDS), orjson.dumps(event)))
    return out


def _publish(client: Client, prefix: str, events: list[tuple[str, bytes]], chunk: int = 2000) -> None:
    for start in range(0, len(events), chunk):
        pipe = client.pipeline(transaction=False)
        for shard, payload in events[start : start + chunk]:
            pipe.xadd(f"{prefix}:{{{shard}}}:events", {"event": payload})
        pipe.execute()


def _cpu_seconds(nodes: Sequence[redis.Redis]) -> float:
    total = 0.0
    for node in nodes:
        info = node.info("cpu")
        total += float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    return total


def settle(client: Client, masters: Sequence[redis.Redis], url: str, *, cluster: bool, prefix: str,
           events: list[tuple[str, bytes]], workdir: Path) -> Run:  # fmt: skip
    """One ``showdown worker`` process settles ``events`` (published first under ``prefix``)."""
    _publish(client, prefix, events)
    env = _worker_env(url, ",".join(SHARDS), workdir)
    env.update(SHOWDOWN_KEY_PREFIX=prefix, SHOWDOWN_CONSUMER=f"bench-{prefix}", SHOWDOWN_REDIS_CLUSTER=str(cluster))
    audits = [f"{prefix}:{{{shard}}}:audit" for shard in SHARDS]
    proc, heartbeats = _launch(env, 1)
    try:
        start = _wait_until_up([proc], heartbeats)
        worker_before = _process_cpu_seconds(proc.pid)  # its loop has started: imports and connecting left out
        cpu_before = _cpu_seconds(masters)
        deadline = time.monotonic() + TIMEOUT_S
        while sum(int(client.xlen(key)) for key in audits) < len(events):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the worker did not settle {len(events)} entries within {TIMEOUT_S}s")
            time.sleep(0.005)
        elapsed = time.perf_counter() - start
        cpu = _cpu_seconds(masters) - cpu_before
        worker_cpu = _process_cpu_seconds(proc.pid) - worker_before
    finally:
        _stop(proc)
    return Run(len(events) / elapsed, worker_cpu / len(events) * 1e6, cpu / len(events) * 1e6)


def _masters(cluster: LocalCluster) -> list[redis.Redis]:
    out = []
    for node in cluster.running():
        c = cluster.client(node)
        if c.info("replication")["role"] == "master":
            out.append(c)
        else:
            c.close()
    return out


ONE_NODE = "one node"
MASTERS_ONLY = "cluster, 3 masters"
WITH_REPLICAS = "cluster, 3 masters + 3 replicas"


def measure(n: int = EVENTS, rounds: int = ROUNDS) -> dict[str, list[Run]]:
    """Interleaved rounds: each runs the worker against one node and against both clusters (order rotating)."""
    names = [ONE_NODE, MASTERS_ONLY, WITH_REPLICAS]
    runs: dict[str, list[Run]] = {name: [] for name in names}
    with (
        tempfile.TemporaryDirectory(prefix="showdown-bench-cluster-") as tmp,
        LocalRedis(appendfsync="everysec") as server,
        LocalCluster(masters=3, replicas=0, appendfsync="everysec") as bare,
        LocalCluster(masters=3, replicas=1, appendfsync="everysec") as replicated,
    ):
        workdir = Path(tmp)
        single = redis.Redis.from_url(server.url, protocol=2)
        targets: dict[str, tuple[Client, list[redis.Redis], str, bool]] = {
            ONE_NODE: (single, [single], server.url, False),
        }
        for name, cluster in ((MASTERS_ONLY, bare), (WITH_REPLICAS, replicated)):
            clustered: RedisCluster = connect_cluster(cluster.url, protocol=2, driver_info=None)
            targets[name] = (clustered, _masters(cluster), cluster.url, True)
        try:
            for r in range(rounds):
                for name in names[r % len(names) :] + names[: r % len(names)]:
                    client, nodes, url, is_cluster = targets[name]
                    events = _events(n, f"r{r}")  # the same events on each (each on servers of its own)
                    runs[name].append(settle(client, nodes, url, cluster=is_cluster, prefix=f"bench{r}",
                                             events=events, workdir=workdir))  # fmt: skip
        finally:
            for client, nodes, _, _ in targets.values():
                for node in nodes:
                    node.close()
                client.close()
    return runs


def _row(name: str, values: list[float], fmt: str) -> str:
    ordered = sorted(values)
    return f"{format(ordered[0], fmt)} / {format(statistics.median(ordered), fmt)} / {format(ordered[-1], fmt)}"


def section(n: int = EVENTS, rounds: int = ROUNDS) -> Section:
    runs = measure(n, rounds)

    def ratios(name: str) -> list[float]:
        return sorted(c.per_second / s.per_second for c, s in zip(runs[name], runs[ONE_NODE], strict=True))

    bare, replicated = ratios(MASTERS_ONLY), ratios(WITH_REPLICAS)
    median_ratio = statistics.median(bare)
    lines = [
        "## Redis Cluster",
        "",
        f"{n:,} real showdowns per run over six shards (600 tables, routed as producers route them), published "
        f"beforehand; one `showdown worker` process serving the six shards, against one node and against clusters "
        f"of three masters (two shards each, `SHOWDOWN_REDIS_CLUSTER=true`), without and with a replica per "
        f"master on this same host; AOF everysec everywhere, no WAIT; {rounds} interleaved rounds (rotating which "
        f"goes first). Min / median / max:",
        "",
        "| Redis | settled entries/s | worker CPU per entry (µs) | Redis CPU per entry (all masters, µs) |",
        "|---|---:|---:|---:|",
        *(
            f"| {name} | {_row(name, [r.per_second for r in rs], ',.0f')} | "
            f"{_row(name, [r.worker_cpu_us_per_entry for r in rs], '.1f')} | "
            f"{_row(name, [r.redis_cpu_us_per_entry for r in rs], '.1f')} |"
            for name, rs in runs.items()
        ),
        "",
        f"- one worker on three masters / on one node, per round: {', '.join(f'{x:.2f}' for x in bare)}; median "
        f"{median_ratio:.2f} (target >= {TARGET_RATIO:g}) -> {'met' if median_ratio >= TARGET_RATIO else 'MISSED'}",
        f"- with a replica per master on the same host (six servers and the worker sharing this machine's cores): "
        f"{', '.join(f'{x:.2f}' for x in replicated)}; median {statistics.median(replicated):.2f}",
    ]
    figure = Figure("one worker on a cluster / on one node / 0.9", median_ratio / TARGET_RATIO, 1.0)
    return Section("\n".join(lines), [figure])


def main() -> None:
    print(section().markdown)


if __name__ == "__main__":
    main()
