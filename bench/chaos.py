"""Chaos run: settle a stream of real showdowns while workers, Redis and the network fail, then prove the books.

Setup, all on 127.0.0.1 and stopped at the end:

* redis-server with AOF (``appendfsync everysec``) in a directory of its own;
* a TCP proxy between the workers and Redis that the run can cut;
* three ``showdown worker`` processes in one consumer group (short claim
  idle, so a dead worker's batch is taken over within seconds);
* a producer that XADDs with explicit entry ids, so its retries after a
  Redis crash never publish an entry twice: a published entry is exactly
  one stream entry.

Events are real showdowns with known payouts, each under a new hand_id and
with its suits permuted at random (a suit permutation never changes a
payout), plus refused entries (malformed, invalid), exact re-sends and
re-sends with different content; and, spread among them, a whole generated
PKO tournament (its messages and hands, re-entries, hand-for-hand on the
bubble, a mystery-bounty stage, a deal at the final table), which the producer sends in order (each tournament line once
published before the next is sent) and whose standings must come out exactly
as the in-process replay places them, each entry placed once.

While publishing, the run kills a random worker with SIGKILL K times and
restarts it (half the time under its old consumer name, which recovers its
own pending entries, half under a new one, so another worker must claim
them), kills Redis once with SIGKILL and starts it again on the same data,
cuts the network for about a second, and stops a worker with SIGTERM in the
middle of its work. And Redis refuses writes four times, about 1.5 s each:
memory full under ``noeviction`` (OOM, maxmemory below any use; the workers are paused for 0.3 s
first, so that a backlog waits to be read while the commits are refused, and the producer is held until memory is
full, so that it meets the refusal too; held until both have), a replica of an unreachable primary
(READONLY), ``min-replicas-to-write 1`` without a replica (NOREPLICAS), and a
long script (BUSY; the workers are paused for 0.3 s first too, and resumed while it runs: a worker blocked in
XREADGROUP when it starts would otherwise send nothing during it; the script runs on past its 1.5 s until a
worker's command has met BUSY, up to a minute, so that a loaded machine cannot close the window first). The
producer rides those out as a game server would, re-sending what was refused; the workers wait and must
dead-letter nothing.
They run with ``SHOWDOWN_MAX_DELIVERIES=1``: every re-delivery (a kill, a
claim, a refused commit re-read) would be poison if deliveries counted; only
a raise of settling may.

At the end it proves: every published entry has exactly one outcome (an
audit record: settled, duplicate or rejected with its reason); no hand has
two results; every settlement pays the expected award; exactly one entry of
each re-sent hand settles; the pending list is empty; the audit chain
verifies; no entry is poison. It also counts the commits that found their
entries already settled: redis-py re-sends a pipeline whose reply was lost,
and those re-sends must (and do) change nothing.

The cluster case (``run_cluster``, ``python -m bench.chaos --cluster``): the
same events over six shards of a Redis Cluster (three masters, a replica
each), three workers on the cluster client and a producer, both WAITing for
a replica after each write; halfway, the master of a shard is SIGKILLed,
its replica promoted, and it rejoins as a replica; workers are killed too.
The same books are proven over every shard.

Full form: ``python -m bench.chaos`` (100,000 events, 20 kills, a few
minutes). CI runs a reduced form of both as tests (``tests/worker/test_chaos.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import orjson
import redis
from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException

from bench.proxy import FlakyProxy
from showdown_messages.protocol import entry_order
from showdown_messages.publish import refusal, shard_for
from showdown_service.decision import audit
from showdown_service.decision.tournament_replay import TournamentReplay
from showdown_service.infra.config import Settings, ShardKeys
from showdown_service.infra.connection import Client, connect_cluster
from showdown_service.infra.streams import read_range
from showdown_service.testing.localredis import LocalCluster, LocalRedis, free_port
from showdown_service.testing.simulate import Simulation, simulate
from showdown_service.worker.ledger import read_book
from tests.helpers import REAL_SHOWDOWNS, read_cases

WORKERS = 3
BLIPS = 6
LOST_REPLIES = 5
GROUP = "adjudicators"
BACKLOG_S = 0.3
"""How long the workers are paused before memory fills: the entries that arrive meanwhile are read, and
re-delivered, while Redis refuses the commits."""
MAX_DELIVERIES = 1
"""The workers' SHOWDOWN_MAX_DELIVERIES: so low that counting deliveries would turn every re-delivery into poison."""
REFUSALS = {"oom": 0.25, "readonly": 0.42, "noreplicas": 0.58, "busy": 0.9}
"""Each way Redis refuses writes, and when (the share of events published). Memory fills as the network cut
at 0.25 ends, with the backlog it built waiting to be settled."""
REFUSAL_S = 1.5
"""How long (s) each refusal of writes lasts: several of the workers' retries (backoff up to 0.5 s)."""
BUSY_RESUME_S = 0.3
"""The workers paused before the long script (BUSY) are resumed this long after it starts, well inside it."""
BUSY_MAX_S = 60.0
"""The longest the script (BUSY) runs: past REFUSAL_S it goes on until a worker's command has met BUSY, or this."""
OOM_MAXMEMORY = 1
"""The maxmemory that makes memory full: below any server's use, so every write that may grow memory is refused for
the whole window. (It was the memory in use plus 64 KiB: the workers trim what they settled as fast as they add,
so the use hovered under that line and a worker or the producer met OOM only by chance: the run failed about half
the time on a loaded machine, no worker's refusal logged in a minute, or no producer re-send.)"""
BUSY_SCRIPT = """
local t0 = redis.call('TIME')
local start = t0[1] * 1000000 + t0[2]
while true do
  local t = redis.call('TIME')
  if t[1] * 1000000 + t[2] - start > tonumber(ARGV[1]) then return 1 end
end
"""
"""Keeps the server busy for ARGV[1] microseconds, reading the clock only: every other client gets BUSY."""


@dataclass
class Expectation:
    """What must become of one published entry."""

    hand_id: str | None
    outcome: str
    """settled, rejected; or 'either' for the entries of a re-sent hand (exactly one of them settles)."""
    code: str | None = None
    award: dict[str, int] | None = None
    conflict: bool = False
    """A re-send with different content: the entry that does not settle is rejected as conflicting_duplicate."""


@dataclass
class ChaosReport:
    """What the run did and what it found."""

    events: int = 0
    kills: int = 0
    sigterms: int = 0
    worker_restarts: int = 0
    redis_restarts: int = 0
    network_cuts: int = 0
    connection_resets: int = 0
    replies_lost: int = 0
    refusals: Counter[str] = field(default_factory=Counter)
    """Windows in which Redis refused writes, by kind (oom, readonly, noreplicas, busy)."""
    waits: Counter[str] = field(default_factory=Counter)
    """Lines the workers logged on starting to wait (redis_unavailable), by reason."""
    most_deliveries: int = 0
    """The highest delivery count of a pending entry seen during the run (sampled every 0.1 s)."""
    producer_retries: int = 0
    """Writes the producer re-sent because Redis refused them."""
    lost: list[str] = field(default_factory=list)
    """Published entries with no audit record that a worker was handed (or that were trimmed): settled by nobody."""
    unread: list[str] = field(default_factory=list)
    """Published entries with no audit record still in the events stream above the group's last-delivered-id: no
    worker had read them yet when the run ended (the drain timed out), which is slowness, not a loss."""
    vanished: list[str] = field(default_factory=list)
    """Published entries with no audit record missing from the events stream though no trim reached them: Redis no
    longer has an XADD it acknowledged (a SIGKILL before its AOF write: ``appendfsync everysec`` postpones the write
    while an fsync is still running), so no worker could settle them."""
    xadds_missing: int = 0
    """XADDs the producer was told succeeded that Redis does not count (the streams' ``entries-added`` fall short of
    them): Redis lost acknowledged writes, whether or not a trim has since removed where they were."""
    drained: bool = False
    kept: str = ""
    """Where a failed run's work directory (the workers' logs, Redis's data and log) was copied, for a look."""
    """Every entry audited and none pending before the run's timeout (False: the books were read mid-work)."""
    duplicated: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    poison: int = 0
    pending: int = 0
    chain_holds: bool = False
    """Every shard's audit chain verifies (each record chained on the one before, up to the stored head)."""
    chain_records: int = 0
    """Records in the chains: one per published entry when nothing is missing."""
    audit_records: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    harmless_resends: int = 0
    """Entries a commit found already settled (``entries_gone``): re-sent commits, or overtaken ones."""
    resent_after_lost_reply: int = 0
    """Commits redis-py sent again, byte for byte, after their reply was lost (counted by the proxy)."""
    redis_errors: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    seconds: float = 0.0
    tournament_lines: int = 0
    """Messages and hands of the generated tournament among the events."""
    tournament_placements: int = 0
    tournament_exact: bool = False
    tournament_deals: int = 0
    """Final-table deals in the tournament (one), and the mystery-bounty envelopes its hands drew."""
    tournament_envelopes: int = 0

    @property
    def passed(self) -> bool:
        return (
            not (self.lost or self.unread or self.vanished or self.duplicated or self.wrong)
            and not (self.pending or self.poison)
            and self.chain_holds
            and self.chain_records == self.events
            and self.tournament_exact
        )

    def table(self) -> str:
        lat = sorted(self.latencies_ms) or [0.0]
        p99 = lat[max(0, int(len(lat) * 0.99) - 1)]
        rows = [
            ("events published", f"{self.events:,}"),
            (
                "of which a PKO tournament's messages and hands",
                f"{self.tournament_lines:,}: {self.tournament_placements} placements, "
                f"{'exactly the replay' if self.tournament_exact else 'NOT the replay'}",
            ),
            ("outcomes", ", ".join(f"{k} {v:,}" for k, v in sorted(self.outcomes.items()))),
            ("workers killed (SIGKILL)", str(self.kills)),
            ("workers stopped (SIGTERM)", str(self.sigterms)),
            ("worker restarts", str(self.worker_restarts)),
            ("Redis restarts (SIGKILL, same data)", str(self.redis_restarts)),
            ("network cuts (about 1 s)", str(self.network_cuts)),
            ("connection resets", str(self.connection_resets)),
            ("commit replies lost after Redis ran the commit", str(self.replies_lost)),
            (
                f"writes refused for {REFUSAL_S:g} s each",
                ", ".join(f"{k} {v}" for k, v in sorted(self.refusals.items())),
            ),
            (
                "worker waits logged (one line each), by reason",
                ", ".join(f"{k} {v}" for k, v in sorted(self.waits.items())),
            ),
            (f"most deliveries of one entry (the workers' limit: {MAX_DELIVERIES})", str(self.most_deliveries)),
            ("writes the producer re-sent after a refusal", f"{self.producer_retries:,}"),
            ("lost (handed to a worker, or trimmed, and never audited)", str(len(self.lost))),
            ("unread when the run ended (not lost: the workers had not read them yet)", str(len(self.unread))),
            ("vanished from the events stream (Redis lost an XADD it had acknowledged)", str(len(self.vanished))),
            ("acknowledged XADDs Redis no longer counts (entries-added)", str(self.xadds_missing)),
            ("drained before the timeout", "yes" if self.drained else "NO: the books were read mid-work"),
            ("duplicated", str(len(self.duplicated))),
            ("wrong", str(len(self.wrong))),
            ("poison", str(self.poison)),
            ("left pending", str(self.pending)),
            (
                "audit chain",
                f"{self.audit_records:,} records, {'holds' if self.chain_holds else 'BROKEN'}"
                + (
                    f", {self.events - self.chain_records:,} short of the entries"
                    if self.chain_records < self.events
                    else ""
                ),
            ),
            ("commits re-sent after their reply was lost", str(self.resent_after_lost_reply)),
            (
                "entries a commit found already settled (re-sent or overtaken), changing nothing",
                str(self.harmless_resends),
            ),
            ("latency XADD->commit p50 / p99", f"{statistics.median(lat):.1f} ms / {p99:.1f} ms"),
            ("wall time", f"{self.seconds:.1f} s"),
            *([("kept for a look (workers' logs, Redis's data and log)", self.kept)] if self.kept else []),
        ]
        width = max(len(k) for k, _ in rows)
        lines = [f"| {'what':{width}} | value |", f"|{'-' * (width + 2)}|---|"]
        lines += [f"| {k:{width}} | {v} |" for k, v in rows]
        return "\n".join(lines)


def _permute_suits(event: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    target = list("cdhs")
    rng.shuffle(target)
    perm = dict(zip("cdhs", target, strict=True))

    def card(text: str) -> str:
        return text[0] + perm[text[1]]

    players = [
        {**p, "hole_cards": [card(c) for c in p["hole_cards"]] if p["hole_cards"] else None} for p in event["players"]
    ]
    return {**event, "board": [card(c) for c in event["board"]], "players": players}


BAD = [
    (b'{"schema_version": 1, "hand_id": "cut-', "malformed_json"),
    (b'{"schema_version": 9, "hand_id": "x", "table_id": "t", "players": []}', "unsupported_schema_version"),
]


def build_events(n: int, rng: random.Random) -> tuple[list[bytes], list[Expectation]]:
    """``n`` payloads and what must become of each, in publishing order."""
    cases = list(read_cases(REAL_SHOWDOWNS))
    payloads: list[bytes] = []
    expected: list[Expectation] = []
    good: list[int] = []  # indexes of settled-once hands that may be re-sent
    for i in range(n):
        if i % 50 == 49:
            payload, code = BAD[(i // 50) % len(BAD)]
            invalid = {**rng.choice(cases)["event"], "hand_id": f"bad-{i}", "board": ["As", "As", "2c", "3c", "4c"]}
            if (i // 50) % 3 == 2:
                payload, code = orjson.dumps(invalid), "duplicate_card"
            payloads.append(payload)
            expected.append(Expectation(None, "rejected", code))
        elif i % 40 == 39 and good:
            j = good.pop(rng.randrange(len(good)))
            exp = expected[j]
            conflict = i % 3 == 0
            if conflict:  # same hand, different content (another table): one settles, the other is refused
                doc = orjson.loads(payloads[j])
                payloads.append(orjson.dumps({**doc, "table_id": doc["table_id"] + "-other"}))
            else:
                payloads.append(payloads[j])
            exp.outcome = "either"
            exp.conflict = conflict
            expected.append(Expectation(exp.hand_id, "either", award=exp.award, conflict=conflict))
        else:
            case = cases[i % len(cases)]
            event = _permute_suits({**case["event"], "hand_id": f"chaos-{i}"}, rng)
            payloads.append(orjson.dumps(event))
            expected.append(Expectation(event["hand_id"], "settled", award=case["expected_award"]))
            good.append(i)
    return payloads, expected


class Fleet:
    """The worker processes, their restarts and their logs."""

    def __init__(self, url: str, workdir: Path, report: ChaosReport, claim_idle_ms: int, **env: str) -> None:
        self.env = env
        """More settings for every worker (a cluster's)."""
        self.url = url
        self.workdir = workdir
        self.report = report
        self.claim_idle_ms = claim_idle_ms
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.names: dict[int, str] = {}
        self.generation = 0

    def wait_until_up(self, timeout_s: float = 300.0) -> None:
        """Until every running worker has written its first heartbeat (its tables built, its loop started): on a
        busy machine that takes seconds (over a minute for three at once on two shared cores under load), and chaos
        aimed at workers still starting would test nothing."""
        deadline = time.monotonic() + timeout_s
        while not all((self.workdir / f"heartbeat-{self.names[slot]}").exists() for slot in self.procs):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the workers did not start within {timeout_s:.0f}s")
            time.sleep(0.05)

    def start(self, slot: int, name: str | None = None) -> None:
        self.generation += 1
        consumer = name or f"w{slot}-g{self.generation}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("SHOWDOWN_")}
        env.update(
            SHOWDOWN_REDIS_URL=self.url,
            SHOWDOWN_CONSUMER=consumer,
            SHOWDOWN_CLAIM_IDLE_MS=str(self.claim_idle_ms),
            SHOWDOWN_BLOCK_MS="200",
            SHOWDOWN_BACKOFF_MAX_S="0.5",
            SHOWDOWN_MAX_DELIVERIES=str(MAX_DELIVERIES),
            SHOWDOWN_METRICS_PORT="0",
            SHOWDOWN_HEARTBEAT_FILE=str(self.workdir / f"heartbeat-{consumer}"),
            SHOWDOWN_LOG_LEVEL="info",
            **self.env,
        )
        # a worker restarted under its old name beats in its predecessor's file: gone, until the new one is up
        (self.workdir / f"heartbeat-{consumer}").unlink(missing_ok=True)
        with (self.workdir / f"{consumer}.jsonl").open("ab") as log:  # the child keeps its own handle
            self.procs[slot] = subprocess.Popen(
                [sys.executable, "-m", "showdown_service", "worker"], env=env, stdout=log, stderr=subprocess.STDOUT
            )
        self.names[slot] = consumer

    def kill(self, rng: random.Random) -> None:
        slot = rng.choice(sorted(self.procs))
        self.procs[slot].kill()
        self.procs[slot].wait()
        self.report.kills += 1
        time.sleep(rng.uniform(0.1, 0.6))
        self.start(slot, self.names[slot] if rng.random() < 0.5 else None)  # old name recovers its own pending
        self.report.worker_restarts += 1

    def sigterm(self, rng: random.Random) -> None:
        slot = rng.choice(sorted(self.procs))
        self.procs[slot].send_signal(signal.SIGTERM)
        status = self.procs[slot].wait(60)
        if status != 0:
            tail = (self.workdir / f"{self.names[slot]}.jsonl").read_bytes().splitlines()[-5:]
            self.report.wrong.append(
                f"worker {self.names[slot]} exited {status} on SIGTERM; its last lines: "
                + " | ".join(line.decode(errors="replace")[:300] for line in tail)
            )
        self.report.sigterms += 1
        self.start(slot)
        self.report.worker_restarts += 1

    def pause(self) -> None:
        """Freeze every worker (SIGSTOP): what arrives meanwhile waits, unread."""
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        self.resume()  # a paused worker would not hear SIGTERM until continued
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def count_in_logs(self, event: str) -> int:
        return sum(len(line.get("entry_ids", [None])) if event == "entries_gone" else 1 for line in self.lines(event))

    def lines(self, event: str) -> list[dict[str, Any]]:
        """Every worker's log lines of ``event``."""
        needle = f'"event":"{event}"'.encode()
        return [
            orjson.loads(line)
            for path in sorted(self.workdir.glob("*.jsonl"))
            for line in path.read_bytes().splitlines()
            if needle in line
        ]


class Refuser:
    """Makes the server refuse writes for a while, the ways one machine can, and then take them again."""

    def __init__(self, server: LocalRedis, report: ChaosReport) -> None:
        self.server = server
        self.report = report

    def refuse(
        self,
        kind: str,
        seconds: float,
        *,
        then: Callable[[], None] = lambda: None,
        until: Callable[[], bool] = lambda: True,
    ) -> None:
        """Refuse writes of ``kind`` for ``seconds``; ``then`` runs once writes are refused (OOM only); ``until``:
        the refusal goes on past ``seconds`` until it is true (up to :data:`BUSY_MAX_S`)."""
        admin = redis.Redis.from_url(self.server.url, protocol=2, socket_timeout=BUSY_MAX_S + 30)
        try:
            if kind == "oom":
                admin.config_set("maxmemory-policy", "noeviction")
                admin.config_set("maxmemory", OOM_MAXMEMORY)
                then()
                time.sleep(seconds)
                deadline = time.monotonic() + BUSY_MAX_S  # held until a worker met it, as BUSY is (see _busy)
                while not until() and time.monotonic() < deadline:
                    time.sleep(0.1)
                admin.config_set("maxmemory", 0)
            elif kind == "readonly":
                admin.execute_command("REPLICAOF", "127.0.0.1", str(free_port()))  # type: ignore[no-untyped-call]
                _held(seconds, until)
                admin.execute_command("REPLICAOF", "NO", "ONE")  # type: ignore[no-untyped-call]
            elif kind == "noreplicas":
                admin.config_set("min-replicas-to-write", 1)
                _held(seconds, until)
                admin.config_set("min-replicas-to-write", 0)
            else:  # busy: every other client gets BUSY while the script runs (see _busy)
                self._busy(admin, seconds, until)
        finally:
            admin.close()
        self.report.refusals[kind] += 1

    def _busy(self, admin: redis.Redis, seconds: float, until: Callable[[], bool]) -> None:
        """Run the long script for at least ``seconds`` and until ``until()`` says it was met (a worker's command
        refused with BUSY), then end it with SCRIPT KILL (it writes nothing, so it may be killed); it ends by itself
        after :data:`BUSY_MAX_S`. On a loaded machine a worker resumed inside a fixed window may not send a command
        before the window closes: held until one has met it, the refusal is certain, not a matter of timing."""
        admin.config_set("lua-time-limit", 50)
        running = threading.Thread(target=_run_busy_script, args=(admin,), daemon=True)
        started = time.monotonic()
        running.start()
        killer = redis.Redis.from_url(self.server.url, protocol=2, socket_timeout=30)
        try:
            while running.is_alive() and (time.monotonic() - started < seconds or not until()):
                time.sleep(0.1)
            # Once, and only while the script is surely still running: Redis runs one script at a time, so the one
            # killed is this one (a second SCRIPT KILL could meet a worker's commit running past the threshold).
            if running.is_alive() and time.monotonic() - started < BUSY_MAX_S - 5:
                with contextlib.suppress(redis.ResponseError):  # NOTBUSY: it ended by itself meanwhile
                    killer.script_kill()
            running.join()
        finally:
            killer.close()
        admin.config_set("lua-time-limit", 5000)


def _held(seconds: float, until: Callable[[], bool]) -> None:
    """Wait ``seconds``, then until ``until()`` (a worker met the refusal), up to :data:`BUSY_MAX_S` more."""
    time.sleep(seconds)
    deadline = time.monotonic() + BUSY_MAX_S
    while not until() and time.monotonic() < deadline:
        time.sleep(0.1)


def _met(fleet: Fleet, reason: str) -> int:
    """How many times the workers have logged a command refused with ``reason`` (``redis_unavailable``, one line a
    wait)."""
    return sum(line.get("reason") == reason for line in fleet.lines("redis_unavailable"))


def _met_since(fleet: Fleet, reason: str, before: int) -> bool:
    """Whether a worker has met ``reason`` since :func:`_met` said ``before``."""
    return _met(fleet, reason) > before


def _oom_met(fleet: Fleet, report: ChaosReport, workers_before: int, producer_before: int) -> bool:
    """Whether both a worker and the producer have met memory full (OOM) since the counts given."""
    return _met_since(fleet, "OOM", workers_before) and report.producer_retries > producer_before


def _resume_all(fleet: Fleet, publisher: Producer) -> None:
    """Memory is full: the workers resume, and the producer sends again."""
    fleet.resume()
    publisher.go()


def _run_busy_script(admin: redis.Redis) -> None:
    """The long script, for :data:`BUSY_MAX_S` at most; ended sooner by SCRIPT KILL (its error is the point)."""
    with contextlib.suppress(redis.ResponseError):  # killed by SCRIPT KILL, as meant
        admin.eval(BUSY_SCRIPT, 0, int(BUSY_MAX_S * 1_000_000))


def _watch_deliveries(url: str, events: str, report: ChaosReport, stop: threading.Event) -> None:
    """Until ``stop``: every 0.1 s, note the highest delivery count among pending entries (XPENDING, a read)."""
    client = redis.Redis.from_url(url, protocol=2, socket_timeout=5)
    while not stop.wait(0.1):
        try:
            pending = client.xpending_range(events, GROUP, "-", "+", 10_000)
        except redis.RedisError:  # NOGROUP before the first worker, BUSY, Redis restarting
            continue
        most = max((int(p["times_delivered"]) for p in pending), default=0)
        report.most_deliveries = max(report.most_deliveries, most)
    client.close()


REFUSED_WRITES = frozenset({"OOM", "READONLY", "NOREPLICAS", "BUSY", "LOADING", "MASTERDOWN", "MISCONF",
                            "CLUSTERDOWN", "TRYAGAIN", "MOVED", "ASK"})  # fmt: skip
"""Refusals a producer waits out, re-sending the refused writes."""
UNAVAILABLE = (redis.ConnectionError, redis.TimeoutError, redis.exceptions.ClusterError, RedisClusterException)
"""No answer: Redis restarting, or a cluster failing over (redis-py's cluster client raises the last two)."""


class Producer:
    """A game server: XADDs every payload once, with explicit increasing ids, riding out crashes and refusals.

    ``stream`` is every payload's stream, or a list naming each payload's
    (on a cluster, the shard its table routes to). With ``wait_replicas``,
    each chunk ends with a WAIT on every node it wrote to, and a payload
    counts as published only once a replica has it (a failover cannot lose
    it then); the payloads of a node whose WAIT fell short are re-sent under
    the same ids, to find out.
    """

    def __init__(self, url: str, stream: str | list[str], payloads: list[bytes], report: ChaosReport, *,
                 client: Client | None = None, wait_replicas: int = 0,
                 ordered: frozenset[int] = frozenset()) -> None:  # fmt: skip
        self.client: Client = client or redis.Redis.from_url(url, protocol=2, socket_timeout=5)
        self.streams = stream if isinstance(stream, list) else [stream] * len(payloads)
        self.wait_replicas = wait_replicas
        self.payloads = payloads
        self.ordered = ordered
        """Payloads of a tournament (field ``tournament`` or a tournament hand): each is published before the next
        is sent, so their stream order is their order here."""
        self.report = report
        self.published: dict[int, str] = {}
        """Payload index -> the entry id it was published under."""
        self._last_ms = 0
        self._stalled_s = 0.0
        """Time spent re-sending (or held): the schedule moves on by it, so the run's actions stay spread over the
        events."""
        self.going = threading.Event()
        """Set while the producer may send; cleared (:meth:`hold`) before memory fills, so that it still has payloads
        to send, and meets the refusal, once memory is full (on a loaded machine, waiting for the fleet to come up
        again after the network cut could otherwise take longer than the rest of the run takes to publish)."""
        self.going.set()

    def hold(self) -> None:
        """Send no further chunk until :meth:`go` (the chunk in hand is sent)."""
        self.going.clear()

    def go(self) -> None:
        self.going.set()

    def _new_ids(self, indexes: list[int]) -> dict[int, str]:
        """Ids above every id used so far (the clock's ms, never going back), increasing with the payload index."""
        self._last_ms = max(int(time.time() * 1000), self._last_ms + 1)
        return {k: f"{self._last_ms}-{k + 1}" for k in sorted(indexes)}

    def run(self, rate: float, *, deadline: float) -> None:
        """XADD every payload, ``rate`` per second, in chunks of 100; record each in ``published``.

        A re-send after a crash or a lost reply uses the same id: one that is
        already there is refused ("equal or smaller") and, found in the
        stream, counts as published. A write Redis refused is re-sent under
        a new, larger id (an entry after it in the pipeline may have got
        in). So no payload is ever published twice and none is skipped.
        Retries stop at ``deadline`` (``time.monotonic()``): the run then
        finds entries missing.
        """
        chunk = 100
        start = time.perf_counter()
        for i in range(0, len(self.payloads), chunk):
            if not self.going.is_set():
                held = time.perf_counter()
                self.going.wait()
                self._stalled_s += time.perf_counter() - held
            due = start + self._stalled_s + i / rate
            if (wait := due - time.perf_counter()) > 0:
                time.sleep(wait)
            indexes = range(i, min(i + chunk, len(self.payloads)))
            self._send([k for k in indexes if k not in self.ordered], deadline)
            for k in indexes:
                if k in self.ordered:
                    self._send([k], deadline)

    def _send(self, todo: list[int], deadline: float) -> None:
        if not todo:
            return
        ids = self._new_ids(todo)
        started = time.perf_counter()
        first_try = True
        while todo:
            if not first_try:
                self._stalled_s += time.perf_counter() - started
                started = time.perf_counter()
            first_try = False
            try:
                pipe = self.client.pipeline(transaction=False)
                for k in todo:
                    payload = self.payloads[k]
                    field, body = (
                        ("tournament", payload[len(TOURNAMENT_MARK) :])
                        if payload.startswith(TOURNAMENT_MARK)
                        else ("event", payload)
                    )
                    pipe.xadd(self.streams[k], {field: body}, id=ids[k])
                node_of = {k: self._node(k) for k in todo} if self.wait_replicas else {}
                nodes = self._queue_waits(pipe, node_of)
                replies = pipe.execute(raise_on_error=False)
            except UNAVAILABLE:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)  # Redis is restarting, or failing over; the same ids make the retry exact
                continue
            replies, waited = replies[: len(todo)], dict(zip(nodes, replies[len(todo) :], strict=True))
            refused: list[int] = []  # not in the stream: re-sent under a new id
            unsure: list[int] = []  # maybe in the stream: re-sent under the same id, to find out
            for k, reply in zip(todo, replies, strict=True):
                if nodes and not _enough(waited[node_of[k]], self.wait_replicas):
                    unsure.append(k)  # on the master, not yet on a replica: a failover could lose it
                elif not isinstance(reply, Exception):
                    self.published[k] = ids[k]
                elif "equal or smaller" in str(reply):
                    try:
                        there = bool(self.client.xrange(self.streams[k], ids[k], ids[k], count=1))
                    except (redis.RedisError, RedisClusterException):
                        unsure.append(k)
                        continue
                    if there:
                        self.published[k] = ids[k]  # a re-send of a write that got in
                    else:
                        refused.append(k)  # a later entry got in first
                elif refusal(reply).code in REFUSED_WRITES:
                    refused.append(k)
                else:
                    raise reply
            todo = sorted(refused + unsure)
            if todo:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Redis still refuses writes: {len(todo)} payloads not published")
                self.report.producer_retries += len(todo)
                time.sleep(0.05)
                ids.update(self._new_ids(refused))

    def _node(self, k: int) -> str:
        """The name of the node holding payload ``k``'s stream (on one node: the one)."""
        if isinstance(self.client, RedisCluster):
            return str(self.client.get_node_from_key(self.streams[k]).name)  # type: ignore[no-untyped-call]
        return "redis"

    def _queue_waits(self, pipe: Any, node_of: dict[int, str]) -> list[str]:
        """A WAIT on each node written to (``node_of``: each payload's), after the XADDs; the nodes, in order."""
        nodes = sorted(set(node_of.values()))
        for name in nodes:
            where: dict[str, Any] = {}
            if isinstance(self.client, RedisCluster):
                where["target_nodes"] = self.client.get_node(node_name=name)  # type: ignore[no-untyped-call]
            pipe.execute_command("WAIT", self.wait_replicas, 1000, **where)
        return nodes


def _enough(reply: Any, wanted: int) -> bool:
    return not isinstance(reply, Exception) and int(reply) >= wanted


def run(
    events: int = 5_000,
    kills: int = 3,
    *,
    rate: float = 1_500.0,
    seed: int = 7,
    claim_idle_ms: int = 2_000,
    timeout_s: float = 300.0,
    log: Callable[[str], None] = print,
) -> ChaosReport:
    """One chaos run; see the module docstring."""
    rng = random.Random(seed)
    report = ChaosReport(events=events)
    payloads, expected = build_events(events, rng)
    tournament = simulate(
        seed,
        tournament_id="CHAOS-MTT",
        players=TOURNAMENT_PLAYERS,
        reentries=8,
        stack=3000,
        rebuys=6,
        deal_at=4,
        mystery_from=9,
    )
    report.tournament_deals, report.tournament_envelopes = tournament.deals, tournament.envelopes_drawn
    ordered = _spread(tournament.lines, payloads, expected)
    report.tournament_lines = len(tournament.lines)
    events = report.events = len(payloads)
    started = time.monotonic()
    # every process started here is stopped on the way out, in reverse order, whatever fails
    with tempfile.TemporaryDirectory(prefix="showdown-chaos-") as tmp, contextlib.ExitStack() as stack:
        workdir = Path(tmp)
        stack.callback(_keep_if_failed, report, workdir)  # last, once every process has stopped
        server = stack.enter_context(LocalRedis(data_dir=workdir / "redis", appendfsync="everysec"))
        proxy = stack.enter_context(FlakyProxy(server.port))
        fleet = Fleet(proxy.url, workdir, report, claim_idle_ms)
        stack.callback(fleet.stop)
        keys = Settings(redis_url=server.url).keys("default")
        for slot in range(WORKERS):
            fleet.start(slot)
        fleet.wait_until_up()
        publisher = Producer(server.url, keys.events, payloads, report, ordered=ordered)
        published = publisher.published
        producer = threading.Thread(
            target=publisher.run,
            args=(rate,),
            kwargs={"deadline": time.monotonic() + events / rate + timeout_s},
            daemon=True,
        )
        producer.start()
        watching = threading.Event()
        watcher = threading.Thread(target=_watch_deliveries, args=(server.url, keys.events, report, watching))
        watcher.start()
        stack.callback(watcher.join, 10)  # after the next one: callbacks run last in, first out
        stack.callback(watching.set)
        refuser = Refuser(server, report)
        actions = sorted(
            [(0.25, "cut"), (0.5, "redis"), (0.7, "sigterm")]
            + [(0.1 + 0.8 * (k + 0.5) / max(kills, 1), "kill") for k in range(kills)]
            + [(0.05 + 0.9 * (k + 0.5) / BLIPS, "blip") for k in range(BLIPS)]
            + [(0.08 + 0.8 * (k + 0.5) / LOST_REPLIES, "lose-reply") for k in range(LOST_REPLIES)]
            + [(at, kind) for kind, at in REFUSALS.items()]
        )
        for at, action in actions:
            while len(published) < at * events and producer.is_alive():
                time.sleep(0.005)
            log(f"  {len(published):>7,} published: {action}")
            if action == "oom":
                # Workers that have caught up hold nothing for a refusal to re-deliver: pause them while a
                # backlog forms, so that they read it (Redis reads when memory is full) and their commits fail;
                # not while the network is cut (the cut is its own test), or they could not read at all.
                # An idle worker waits on a read, which Redis answers when memory is full: the refusal is held until a
                # worker's write has met it (its next inbox move or commit), as BUSY's is, so that a loaded machine
                # cannot close the window first.
                # The producer is held meanwhile and let go once memory is full, so that it is refused too (it
                # would otherwise have published the rest while a loaded machine brought the fleet back).
                publisher.hold()
                fleet.wait_until_up()
                proxy.wait_until_joined()
                fleet.pause()
                time.sleep(BACKLOG_S)
                met = functools.partial(_oom_met, fleet, report, _met(fleet, "OOM"), report.producer_retries)
                refuser.refuse(action, REFUSAL_S, then=functools.partial(_resume_all, fleet, publisher), until=met)
                publisher.go()  # in case the refusal ended before ``then`` ran
            elif action == "busy":
                # A worker blocked in XREADGROUP when the script starts sends nothing while it runs (and a caught-up
                # fleet is mostly blocked): pause them while a backlog forms, resume them once the script runs, so
                # that their reads are answered and their commits meet BUSY. Workers restarted just before (a kill,
                # the SIGTERM) are first let finish starting: on a loaded machine that takes longer than the script
                # may run, and a fleet still building its tables sends Redis nothing to refuse.
                fleet.wait_until_up()
                proxy.wait_until_joined()
                fleet.pause()
                time.sleep(BACKLOG_S)
                met = functools.partial(_met_since, fleet, "BUSY", _met(fleet, "BUSY"))
                resuming = threading.Timer(BUSY_RESUME_S, fleet.resume)
                resuming.start()
                refuser.refuse(action, REFUSAL_S, until=met)
                resuming.join()
            elif action in REFUSALS:
                # READONLY and NOREPLICAS as OOM and BUSY: held until a worker's write has met the refusal, so that
                # workers still restarting after a kill on a loaded machine cannot let the window pass unmet (CI at
                # stop 47 met every refusal but NOREPLICAS).
                fleet.wait_until_up()
                proxy.wait_until_joined()
                met = functools.partial(_met_since, fleet, action.upper(), _met(fleet, action.upper()))
                refuser.refuse(action, REFUSAL_S, until=met)
            elif action == "kill":
                fleet.kill(rng)
            elif action == "sigterm":
                fleet.sigterm(rng)
            elif action == "cut":
                proxy.cut(rng.uniform(0.8, 1.2))
                report.network_cuts += 1
            elif action == "blip":  # connections reset, reconnects welcome: replies in flight are lost
                proxy.cut(0.0)
                report.connection_resets += 1
            elif action == "lose-reply":  # the next commit runs in Redis but its reply never arrives
                proxy.lose_next_reply(b"EVALSHA")
            else:
                server.kill()
                time.sleep(0.5)
                server.restart()
                report.redis_restarts += 1
        producer.join(timeout_s)
        client = redis.Redis.from_url(server.url, protocol=2)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                done = client.xlen(keys.audit) >= events and client.xpending(keys.events, GROUP)["pending"] == 0
            except redis.ResponseError:
                done = False
            if done:
                report.drained = True
                break
            time.sleep(0.2)
        fleet.stop()
        _verify(client, [keys], [published.get(k, "") for k in range(events)], expected, report)
        _verify_tournament(client, keys, tournament, report)
        report.harmless_resends = fleet.count_in_logs("entries_gone")
        report.waits = Counter(line["reason"] for line in fleet.lines("redis_unavailable"))
        report.redis_errors = report.waits.total()
        report.replies_lost = proxy.replies_lost
        report.resent_after_lost_reply = proxy.resent
    report.seconds = time.monotonic() - started
    return report


TOURNAMENT_PLAYERS = 60
TOURNAMENT_MARK = b"T:"
"""A payload that starts so is a tournament message: the producer XADDs the rest in field ``tournament``."""


def _spread(lines: list[bytes], payloads: list[bytes], expected: list[Expectation]) -> frozenset[int]:
    """Insert a tournament's lines, in order, evenly among ``payloads`` (and what must become of each); the
    indexes they now have."""
    step = max(1, len(payloads) // (len(lines) + 1))
    merged: list[tuple[bytes, Expectation, bool]] = []
    pending = list(lines)
    for i, (payload, exp) in enumerate(zip(payloads, expected, strict=True)):
        merged.append((payload, exp, False))
        if pending and i % step == step - 1:
            merged.append(_tournament_entry(pending.pop(0)))
    merged += [_tournament_entry(line) for line in pending]
    payloads[:] = [m[0] for m in merged]
    expected[:] = [m[1] for m in merged]
    return frozenset(i for i, m in enumerate(merged) if m[2])


def _tournament_entry(line: bytes) -> tuple[bytes, Expectation, bool]:
    ((kind, body),) = orjson.loads(line).items()
    if kind == "tournament":
        return TOURNAMENT_MARK + orjson.dumps(body), Expectation(None, "settled"), True
    return orjson.dumps(body), Expectation(body["hand_id"], "settled"), True


def _verify_tournament(client: redis.Redis, keys: ShardKeys, tournament: Simulation, report: ChaosReport) -> None:
    """The tournament's standings, read from Redis, are the in-process replay's; each entry placed once."""
    replay = TournamentReplay()
    replay.feed([line.decode() for line in tournament.lines])
    expected = replay.book.standings(tournament.tournament_id)[0]
    book = read_book(client, keys, tournament.tournament_id)
    got = book.standings(tournament.tournament_id)[0] if book is not None else []
    written = [orjson.loads(f[b"placement"]) for _, f in read_range(client, keys.standings)]
    report.tournament_placements = len(written)
    report.tournament_exact = got == expected and sorted(map(orjson.dumps, written)) == sorted(
        map(orjson.dumps, expected)
    )
    if not report.tournament_exact:
        report.wrong.append(f"tournament standings differ from the replay's ({len(written)} placements written)")


CLUSTER_SHARDS = ("table0", "table1", "table2", "table3", "table5", "table6")
"""Two shards per master of a three-master cluster (tests/worker/test_cluster.py checks the spread)."""


def _routes(payloads: list[bytes], shards: Sequence[str]) -> list[str]:
    """The shard of each payload, as a game server routes: by its table, every copy of a hand where the hand's
    first copy went (dedupe is per shard: a re-send on another shard would be another shard's new hand); what
    cannot be parsed, round the shards."""
    first: dict[str, str] = {}
    routes = []
    for k, payload in enumerate(payloads):
        try:
            doc = orjson.loads(payload)
            hand, table = str(doc["hand_id"]), str(doc["table_id"])
        except (orjson.JSONDecodeError, KeyError, TypeError):
            routes.append(shards[k % len(shards)])
            continue
        routes.append(first.setdefault(hand, shard_for(table, shards)))
    return routes


def run_cluster(
    events: int = 2_000,
    kills: int = 1,
    *,
    rate: float = 500.0,
    seed: int = 7,
    claim_idle_ms: int = 2_000,
    timeout_s: float = 300.0,
    log: Callable[[str], None] = print,
) -> ChaosReport:
    """The chaos run's cluster case: a Redis Cluster of three masters with a replica each, six shards, three
    workers on the cluster client WAITing for a replica after each commit, a producer WAITing likewise; halfway
    through, the master of the first shard is SIGKILLed, its replica promoted, and it comes back as a replica;
    ``kills`` workers are SIGKILLed and restarted meanwhile. The same books are proven, over every shard."""
    rng = random.Random(seed)
    report = ChaosReport(events=events)
    payloads, expected = build_events(events, rng)
    started = time.monotonic()
    settings = Settings(shards=",".join(CLUSTER_SHARDS))
    shards = [settings.keys(shard) for shard in settings.shards]
    streams = [settings.keys(shard).events for shard in _routes(payloads, settings.shards)]
    with tempfile.TemporaryDirectory(prefix="showdown-chaos-cluster-") as tmp, contextlib.ExitStack() as stack:
        workdir = Path(tmp)
        stack.callback(_keep_if_failed, report, workdir)  # last, once every process has stopped
        cluster = stack.enter_context(LocalCluster(masters=3, replicas=1, appendfsync="everysec"))
        fleet = Fleet(cluster.url, workdir, report, claim_idle_ms,
                      SHOWDOWN_REDIS_CLUSTER="true", SHOWDOWN_SHARDS=",".join(CLUSTER_SHARDS),
                      SHOWDOWN_WAIT_REPLICAS="1")  # fmt: skip
        stack.callback(fleet.stop)
        for slot in range(WORKERS):
            fleet.start(slot)
        client = connect_cluster(cluster.url, protocol=2, driver_info=None, socket_timeout=5)
        stack.callback(client.close)
        producer_client = connect_cluster(cluster.url, protocol=2, driver_info=None, socket_timeout=5)
        stack.callback(producer_client.close)
        publisher = Producer(cluster.url, streams, payloads, report, client=producer_client, wait_replicas=1)
        published = publisher.published
        until = time.monotonic() + events / rate + timeout_s
        producer = threading.Thread(target=publisher.run, args=(rate,), kwargs={"deadline": until}, daemon=True)
        producer.start()
        actions = sorted([(0.5, "master")] + [(0.1 + 0.8 * (k + 0.5) / max(kills, 1), "kill") for k in range(kills)])
        for at, action in actions:
            while len(published) < at * events and producer.is_alive():
                time.sleep(0.005)
            log(f"  {len(published):>7,} published: {action}")
            if action == "kill":
                fleet.kill(rng)
                continue
            victim = cluster.master_of(shards[0].events)
            replica = cluster.replica_of(victim)
            victim.kill()  # SIGKILL: publishing and settling go on meanwhile
            cluster.wait_promoted(replica)
            victim.restart()  # back as the new master's replica
            cluster.wait_healthy()
            report.redis_restarts += 1
        producer.join(timeout_s)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                audited = sum(int(client.xlen(k.audit)) for k in shards if client.exists(k.audit))
                pending = sum(int(client.xpending(k.events, GROUP)["pending"]) for k in shards)
                if audited >= events and pending == 0:
                    report.drained = True
                    break
            except (redis.RedisError, RedisClusterException):
                pass
            time.sleep(0.2)
        fleet.stop()
        _verify(client, shards, [published.get(k, "") for k in range(events)], expected, report)
        report.harmless_resends = fleet.count_in_logs("entries_gone")
        report.waits = Counter(line["reason"] for line in fleet.lines("redis_unavailable"))
        report.redis_errors = report.waits.total()
    report.seconds = time.monotonic() - started
    return report


def _verify(
    client: Client, shards: list[ShardKeys], entry_ids: list[str], expected: list[Expectation], report: ChaosReport
) -> None:
    """The books of every shard in ``shards``: one outcome per published entry, as expected, the chains hold."""
    records = [orjson.loads(fields[b"audit"]) for keys in shards for _, fields in read_range(client, keys.audit)]
    report.audit_records = len(records)
    by_entry: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        by_entry[record["entry_id"]].append(record)
        report.outcomes[record["outcome"]] += 1
    if len(entry_ids) != len(expected) or not all(entry_ids):
        report.wrong.append(f"the producer recorded {sum(map(bool, entry_ids))} entries for {len(expected)} events")
    missing = [e for e in entry_ids if e and not by_entry.get(e)]
    report.lost, report.unread, report.vanished = _why_missing(client, [keys.events for keys in shards], missing)
    added = sum(int(client.xinfo_stream(keys.events)["entries-added"]) for keys in shards if client.exists(keys.events))
    report.xadds_missing = max(0, sum(map(bool, entry_ids)) - added)
    report.duplicated = [e for e, rs in by_entry.items() if len(rs) > 1]
    results: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for _, fields in (row for keys in shards for row in read_range(client, keys.results)):
        result = orjson.loads(fields[b"result"])
        results[result["hand_id"]].append(result)
    report.duplicated += [f"hand {h} has {len(rs)} results" for h, rs in results.items() if len(rs) > 1]
    resent: dict[str, list[str]] = defaultdict(list)
    for entry_id, exp in zip(entry_ids, expected, strict=False):
        if entry_id not in by_entry:  # named above: lost, unread or vanished (no outcome to be wrong)
            continue
        got = by_entry[entry_id][0]
        if exp.outcome == "either":
            resent[exp.hand_id or ""].append(got.get("outcome", "missing") + "/" + str(got.get("code")))
        elif got.get("outcome") != exp.outcome or (exp.code and got.get("code") != exp.code):
            report.wrong.append(f"entry {entry_id}: expected {exp.outcome} {exp.code}, got {got}")
        if exp.award is not None and exp.hand_id in results:
            awards = {str(a["seat"]): a["amount"] for a in results[exp.hand_id][0]["awards"]}
            if awards != exp.award:
                report.wrong.append(f"hand {exp.hand_id}: paid {awards}, expected {exp.award}")
        if got.get("outcome") == "settled" and exp.outcome != "rejected":
            at = datetime.fromisoformat(got["at"].replace("Z", "+00:00")).timestamp()
            report.latencies_ms.append((at - int(entry_id.split("-")[0]) / 1000) * 1000)
    for hand_id, outcomes in resent.items():
        settled = [o for o in outcomes if o.startswith("settled")]
        other = [o for o in outcomes if not o.startswith("settled")]
        allowed = {"duplicate/None", "rejected/conflicting_duplicate"}
        if len(settled) != 1 or not set(other) <= allowed:
            report.wrong.append(f"re-sent hand {hand_id}: outcomes {outcomes}")
    report.poison = report.outcomes["poison"]
    report.pending = sum(int(client.xpending(keys.events, GROUP)["pending"]) for keys in shards)
    chained = 0
    report.chain_holds = True
    for keys in shards:
        head = audit.Head.decode(client.get(keys.audit_head))
        verdict = audit.verify(audit.read_stream(client, keys.audit), head)
        report.chain_holds = report.chain_holds and verdict.holds
        chained += verdict.records
    report.chain_records = chained


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _keep_if_failed(report: ChaosReport, workdir: Path) -> None:
    """Copy a failed run's work directory (regular files only) to a directory of its own that outlives the run, and
    name it in the report: the run's own directory is removed on the way out, and a failure nobody can re-run under
    the same load is explained from its logs or not at all."""
    if report.passed:
        return
    kept = Path(tempfile.mkdtemp(prefix="showdown-chaos-failed-"))

    def not_files(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if not (Path(folder, n).is_file() or Path(folder, n).is_dir())]  # sockets, fifos

    shutil.copytree(workdir, kept, ignore=not_files, dirs_exist_ok=True)
    report.kept = str(kept)


def _why_missing(client: Client, streams: list[str], missing: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Published entries (of ``streams``) without an audit record, told apart: ``(lost, unread, vanished)``.

    Unread: still in its events stream, above the group's last-delivered-id: no worker had read it when the books
    were read (a drain that timed out); the workers would still settle it. Vanished: in no events stream, though at
    or above every stream's first entry, so no trim removed it: Redis no longer has the XADD the producer was told
    succeeded. Lost: the rest: handed to a worker (at or below the last-delivered-id) and acked without a record,
    or trimmed after being read: settled by nobody.
    """
    lost: list[str] = []
    unread: list[str] = []
    vanished: list[str] = []
    if not missing:
        return lost, unread, vanished
    delivered: dict[str, tuple[int, int]] = {}
    firsts: list[tuple[int, int]] = []
    for stream in streams:
        groups = {_text(g["name"]): g for g in client.xinfo_groups(stream)} if client.exists(stream) else {}
        delivered[stream] = entry_order(groups[GROUP]["last-delivered-id"]) if GROUP in groups else (0, 0)
        head = cast(list[tuple[bytes, Any]], client.xrange(stream, count=1))
        firsts += [entry_order(entry_id) for entry_id, _ in head]
    untrimmed = max(firsts, default=(0, 0))
    """Every id from here on was never trimmed from any stream (the workers trim below what the group has read)."""
    for entry_id in missing:
        order = entry_order(entry_id)
        found = [stream for stream in streams if client.xrange(stream, entry_id, entry_id, count=1)]
        if found:
            (unread if order > delivered[found[0]] else lost).append(entry_id)
        elif order >= untrimmed:
            vanished.append(entry_id)
        else:
            lost.append(entry_id)
    return lost, unread, vanished


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--rate", type=float, default=1_500.0, help="events published per second")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--cluster", action="store_true", help="the cluster case: a master killed mid-run")
    args = parser.parse_args()
    if args.cluster:
        report = run_cluster(args.events, args.kills, rate=args.rate, seed=args.seed, timeout_s=600)
    else:
        report = run(args.events, args.kills, rate=args.rate, seed=args.seed, timeout_s=600)
    print(report.table())
    for problem in (report.lost + report.unread + report.vanished + report.duplicated + report.wrong)[:20]:
        print("  PROBLEM:", problem)
    sys.exit(0 if report.passed else 1)


if __name__ == "__main__":
    main()
