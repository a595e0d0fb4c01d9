"""What a Redis crash loses, by persistence setting: measured, not assumed.

For each setting (no AOF, ``appendfsync everysec``, ``appendfsync always``)
a client XADDs entries as fast as it can, counting only those Redis
acknowledged; Redis is then killed with SIGKILL in the middle of the
stream of writes, started again on the same data directory, and the
surviving entries are counted. Also measured: acknowledged writes per
second under each setting.

A SIGKILL is a crash of the Redis *process*: what Redis had written to the
kernel survives it. A crash of the *host* (power, kernel) also loses what
the kernel had not flushed to disk: up to about one second of writes with
``everysec``, none with ``always``. That case cannot be produced here and is
stated, not measured.

Run: ``python -m bench.aof``.
"""

from __future__ import annotations

import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import redis

from bench import Section
from showdown_service.testing.localredis import LocalRedis

SETTINGS: dict[str, str | None] = {"no AOF": None, "AOF everysec": "everysec", "AOF always": "always"}
WRITE_SECONDS = 2.0
PAYLOAD = b"x" * 1000


@dataclass(frozen=True)
class Loss:
    setting: str
    acknowledged: int
    survived: int
    writes_per_second: float

    @property
    def lost(self) -> int:
        """Acknowledged writes that did not survive.

        ``survived`` may exceed ``acknowledged`` by the write in flight at the
        kill: Redis had applied (and logged) it, but its reply never arrived.
        That write is not lost, and no acknowledged write is missing.
        """
        return max(0, self.acknowledged - self.survived)


def measure(setting: str, appendfsync: str | None, workdir: Path) -> Loss:
    server = LocalRedis(data_dir=workdir / setting.replace(" ", "-"), appendfsync=appendfsync)
    server.start()
    try:
        client = redis.Redis.from_url(server.url, protocol=2, socket_timeout=2)
        acknowledged = 0
        killer = threading.Timer(WRITE_SECONDS, server.kill)
        killer.start()
        started = time.perf_counter()
        deadline = started + WRITE_SECONDS + 30  # the kill ends the writes; this only stops a run it never reached
        try:
            while time.perf_counter() < deadline:
                client.xadd("crash:test", {"p": PAYLOAD})
                acknowledged += 1
            raise RuntimeError(f"redis-server still answered {WRITE_SECONDS + 30:.0f} s in: the kill never came")
        except (redis.ConnectionError, redis.TimeoutError):
            pass
        elapsed = time.perf_counter() - started
        killer.join()
        server.restart()
        survived = redis.Redis.from_url(server.url).xlen("crash:test")
        return Loss(setting, acknowledged, int(survived), acknowledged / elapsed)
    finally:
        server.close()


def report() -> str:
    return section().markdown


def section() -> Section:
    """Measure each persistence setting: markdown (no chart figures: the point is lost writes)."""
    with tempfile.TemporaryDirectory(prefix="showdown-aof-") as tmp:
        rows = [measure(name, fsync, Path(tmp)) for name, fsync in SETTINGS.items()]
    lines = [
        "## What a Redis crash loses",
        "",
        f"XADDs of 1 KB for {WRITE_SECONDS:.0f} s, then SIGKILL of redis-server mid-stream, restart on the same data:",
        "",
        "| persistence | acknowledged | survived | lost | acknowledged writes/s |",
        "|---|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {r.setting} | {r.acknowledged:,} | {r.survived:,} | {r.lost:,} | {r.writes_per_second:,.0f} |" for r in rows
    ]
    lines += [
        "",
        "A host crash (power, kernel) would also lose the writes the kernel had not flushed: up to about "
        "one second with everysec, none with always (not measurable here). A row may show one more write "
        "surviving than was acknowledged: the write in flight at the kill, applied but never answered; "
        "a client that retries it must not count it twice (the worker's dedupe keys see to that).",
    ]
    return Section("\n".join(lines))


def main() -> None:
    print(report())


if __name__ == "__main__":
    main()
