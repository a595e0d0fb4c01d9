"""The read API's latency under load: ``GET /v1/hands/{id}`` at 500 requests a second (``python -m bench.api``).

A real server holds 5,000 settled hands (a worker committed them); ``showdown api`` runs in a process of its
own; an open-loop client sends each request at its scheduled time (500 a second, for ``SECONDS``) whatever
the replies do, and a request's latency runs from its scheduled time to its reply: a slow reply delays the
measurement of those queued behind it (no coordinated omission). Side by side in the same run, interleaved:
the floor page (static HTML, no Redis: the framework's own floor) and an unknown hand (a 404 after a read of
the streams' news). Target: p99 under 20 ms for a settled hand.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from bench import Figure, Section
from showdown_service.api.auth import token_digest
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import connect
from showdown_service.testing.localredis import LocalRedis, free_port
from showdown_service.worker.loop import Worker

RATE = 500
SECONDS = 10.0
HANDS = 5_000
TARGET_P99_S = 0.020
TOKEN = "bench-token"
DRAIN_S = 60.0
"""Longest wait (s) for the replies after the last request was sent; beyond it the run fails (bounded)."""


def _hand(i: int) -> str:
    return json.dumps({
        "schema_version": 1, "hand_id": f"bench-{i}", "table_id": f"table-{i % 50}", "variant": "holdem",
        "board": ["2c", "7d", "9h", "Js", "3s"], "button_seat": 1,
        "players": [{"seat": 1, "player_id": f"p{i % 97}", "hole_cards": ["As", "Ad"], "contributed": 100},
                    {"seat": 2, "player_id": f"q{i % 89}", "hole_cards": ["Kc", "Kd"], "contributed": 100}],
    })  # fmt: skip


def _settle(url: str) -> None:
    settings = Settings(redis_url=url, consumer="bench", metrics_port=0, batch_size=500, block_ms=10)
    client = connect(settings)
    pipe = client.pipeline(transaction=False)
    for i in range(HANDS):
        pipe.xadd(settings.keys("default").events, {"event": _hand(i)})
    pipe.execute()
    worker = Worker(settings, client)
    worker.prepare_groups()
    deadline = time.monotonic() + 120
    while client.xlen(settings.keys("default").results) < HANDS and time.monotonic() < deadline:
        worker.step()
    worker.flush()


@contextmanager
def _api(url: str) -> Iterator[str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOWDOWN_")}
    env.update(
        SHOWDOWN_REDIS_URL=url,
        SHOWDOWN_LOG_LEVEL="warning",
        SHOWDOWN_API_RATE_PER_S="100000",
        SHOWDOWN_API_BURST="100000",
        SHOWDOWN_API_TOKENS=json.dumps([{"name": "bench", "sha256": token_digest(TOKEN), "scopes": ["hands:read"]}]),
    )
    process = subprocess.Popen([sys.executable, "-m", "showdown_service", "api", "--port", str(port)], env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/metrics", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("showdown api did not start") from None
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(30)


_LENGTH = re.compile(rb"(?i)\r\ncontent-length: *(\d+)")


async def _send(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: bytes) -> int:
    """One HTTP/1.1 request on a kept-alive connection; the reply's status (its body read whole)."""
    writer.write(raw)
    head = await reader.readuntil(b"\r\n\r\n")
    length = _LENGTH.search(head)
    await reader.readexactly(int(length[1]) if length else 0)
    return int(head[9:12])


async def _load(base: str, paths: list[str], seconds: float) -> dict[str, list[float]]:
    """Send ``paths`` in turn, ``RATE`` a second for ``seconds`` (open loop); latencies (s) by path kind.

    A lean client (raw HTTP/1.1 on kept-alive connections, a new one whenever none is free): on a shared
    machine the client's own CPU would otherwise be most of what is measured.
    """
    host, port = base.removeprefix("http://").split(":")
    idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    opened: list[asyncio.StreamWriter] = []
    latencies: dict[str, list[float]] = {}

    async def one(path: str, kind: str, at: float) -> None:
        if idle:
            reader, writer = idle.pop()
        else:
            reader, writer = await asyncio.open_connection(host, int(port))
            opened.append(writer)
        raw = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {TOKEN}\r\n\r\n".encode()
        status = await _send(reader, writer, raw)
        latencies.setdefault(kind, []).append(time.perf_counter() - at)
        idle.append((reader, writer))
        if status not in (200, 404):
            raise RuntimeError(f"{path}: HTTP {status}")

    start = time.perf_counter() + 0.1
    tasks = []
    for i in range(int(RATE * seconds)):
        at = start + i / RATE
        delay = at - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        path = paths[i % len(paths)]
        kind = "unknown" if path.startswith("/v1/hands/none") else path.split("/")[1]
        tasks.append(asyncio.create_task(one(path, kind, at)))
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=seconds + DRAIN_S)
    finally:
        for writer in opened:
            writer.close()
    return latencies


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure() -> dict[str, dict[str, float]]:
    """p50, p99 and max (ms) of each kind of request at ``RATE`` a second."""
    rng = random.Random(7)
    with LocalRedis(appendfsync=None) as server:
        _settle(server.url)
        with _api(server.url) as base:
            paths = []
            for i in range(int(RATE * SECONDS)):
                kind = i % 10
                if kind == 8:
                    paths.append(f"/v1/hands/none-{i}")
                elif kind == 9:
                    paths.append("/floor/T")
                else:
                    paths.append(f"/v1/hands/bench-{rng.randrange(HANDS)}")
            asyncio.run(_load(base, paths[: RATE * 2], 2.0))  # warm up: connections, the index
            found = asyncio.run(_load(base, paths, SECONDS))
    names = {"v1": "settled hand", "unknown": "unknown hand (404)", "floor": "floor page (no Redis)"}
    return {
        names[kind]: {"count": len(v), "p50": _quantile(v, 0.5) * 1000, "p99": _quantile(v, 0.99) * 1000,
                      "max": max(v) * 1000}
        for kind, v in found.items()
    }  # fmt: skip


def section() -> Section:
    rows = measure()
    settled = rows["settled hand"]["p99"] / 1000
    lines = [
        "## The read API under load",
        "",
        f"`GET /v1/hands/{{id}}` at {RATE} requests a second for {SECONDS:.0f} s, open loop (latency from each "
        "request's scheduled time), against `showdown api` in its own process on a real server holding "
        f"{HANDS:,} settled hands; one request in ten an unknown hand, one in ten the floor page (static, "
        f"no Redis), interleaved. Target: p99 under {TARGET_P99_S * 1000:.0f} ms for a settled hand.",
        "",
        "| request | requests | p50 (ms) | p99 (ms) | max (ms) |",
        "|---|---:|---:|---:|---:|",
    ]
    lines += [f"| {name} | {r['count']:,.0f} | {r['p50']:.2f} | {r['p99']:.2f} | {r['max']:.2f} |"
              for name, r in rows.items()]  # fmt: skip
    lines += ["", f"p99 of a settled hand: {settled * 1000:.2f} ms, "
              f"{'within' if settled < TARGET_P99_S else 'OVER'} the {TARGET_P99_S * 1000:.0f} ms target."]  # fmt: skip
    return Section("\n".join(lines), [Figure("API p99 at 500 req/s: 20 ms / p99", TARGET_P99_S / settled, 1.0)])


def main() -> None:
    print(section().markdown)


if __name__ == "__main__":
    main()
