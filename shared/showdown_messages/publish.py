"""Producer side: validate an event, then XADD it to its shard's events stream.

Needs redis-py (``pip install './shared[publish]'``); the models alone do not.

Routing: a deployment may run several shards. Producers send each event to
``shard_for(table_id, shards)``, a stable hash, so one table's hands stay in
one stream and are settled in order.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from showdown_messages.events import ShowdownEvent

if TYPE_CHECKING:  # pragma: no cover
    import redis

EVENT_FIELD = "event"
"""The one field of an events-stream entry: the ShowdownEvent JSON."""


def events_stream(shard: str = "default", *, prefix: str = "showdown", name: str = "events") -> str:
    """The events stream of a shard: ``showdown:{default}:events`` (the braces are the hash tag)."""
    return f"{prefix}:{{{shard}}}:{name}"


def shard_for(table_id: str, shards: Sequence[str]) -> str:
    """The shard a table's events go to: stable across processes and restarts (CRC-32 of the table id)."""
    if not shards:
        raise ValueError("at least one shard is needed")
    return shards[zlib.crc32(table_id.encode()) % len(shards)]


def publish(
    client: redis.Redis,
    event: ShowdownEvent | Mapping[str, Any] | str | bytes,
    *,
    shards: Sequence[str] = ("default",),
    prefix: str = "showdown",
    name: str = "events",
) -> bytes:
    """Validate ``event`` exactly as a worker would, then XADD it; returns the new entry id.

    Raises ``pydantic.ValidationError`` (see :func:`showdown_messages.rejections`)
    for an event a worker would dead-letter; nothing is sent then.
    """
    if isinstance(event, ShowdownEvent):
        model = event
    elif isinstance(event, str | bytes):
        model = ShowdownEvent.model_validate_json(event)
    else:
        model = ShowdownEvent.model_validate(dict(event))
    stream = events_stream(shard_for(model.table_id, shards), prefix=prefix, name=name)
    entry_id = client.xadd(stream, {EVENT_FIELD: model.model_dump_json(exclude_none=True)})
    return entry_id if isinstance(entry_id, bytes) else str(entry_id).encode()
