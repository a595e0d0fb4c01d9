"""Typed wrappers for the stream commands the worker uses.

redis-py types replies as unions of every protocol's shape; our clients
are pinned to RESP2 (``protocol=2``), so the shapes are known and the
casts live here, once.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, cast

from redis.cluster import RedisCluster

from showdown_service.infra.connection import Client

Fields = dict[bytes, bytes]
Row = tuple[bytes, Fields | None]
"""(entry id, fields); fields is None for an entry deleted while pending."""


def read_group(
    client: Client | Any,
    group: str,
    consumer: str,
    streams: Mapping[str, bytes | str],
    *,
    count: int,
    block: int | None = None,
) -> list[tuple[bytes, list[Row]]]:
    """XREADGROUP: ``[(stream, rows), ...]``; empty when nothing arrived within ``block`` ms."""
    wanted: dict[Any, Any] = dict(streams)
    reply = client.xreadgroup(group, consumer, wanted, count=count, block=block)
    return cast(list[tuple[bytes, list[Row]]], reply or [])


def auto_claim(
    client: Client, stream: str, *, group: str, consumer: str, min_idle_ms: int, start: bytes | str, count: int
) -> tuple[bytes, list[Row]]:
    """XAUTOCLAIM: ``(next start id, claimed rows)``; deleted ids are already dropped from the PEL by Redis."""
    reply: list[Any] = client.xautoclaim(stream, group, consumer, min_idle_ms, start_id=start, count=count)
    return cast(bytes, reply[0]), cast(list[Row], reply[1])


def read_range(
    client: Client,
    stream: str,
    *,
    low: str = "-",
    high: str = "+",
    count: int | None = None,
    newest_first: bool = False,
) -> list[tuple[bytes, Fields]]:
    """XRANGE (or XREVRANGE with ``newest_first``): ``[(entry id, fields), ...]``."""
    if newest_first:
        return cast(list[tuple[bytes, Fields]], client.xrevrange(stream, max=high, min=low, count=count))
    return cast(list[tuple[bytes, Fields]], client.xrange(stream, min=low, max=high, count=count))


CLUSTER_POLL_MS = 100
"""On a cluster, how long (ms) :func:`read_new` sleeps when no stream had anything new."""


def read_new(client: Client, after: Mapping[str, bytes | str], *, block: int) -> list[tuple[bytes, list[Row]]]:
    """XREAD (no group): entries newer than ``after[stream]``, waiting up to ``block`` ms.

    On a cluster each stream is read with an XREAD of its own (they are in
    different slots, often on different nodes), all in one pipeline without
    blocking; when none had anything new, it sleeps ``min(block,
    CLUSTER_POLL_MS)`` ms and returns nothing (the caller asks again).
    """
    if not isinstance(client, RedisCluster):
        wanted: dict[Any, Any] = dict(after)
        return cast(list[tuple[bytes, list[Row]]], client.xread(wanted, block=block) or [])
    pipe = client.pipeline(transaction=False)  # type: ignore[no-untyped-call]
    for stream, entry_id in after.items():
        pipe.xread({stream: entry_id})
    replies = [reply for reply in pipe.execute() if reply]
    if not replies:
        time.sleep(min(block, CLUSTER_POLL_MS) / 1000)
    return [pair for reply in replies for pair in cast(list[tuple[bytes, list[Row]]], reply)]
