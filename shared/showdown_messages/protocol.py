"""The stream protocol, spelled once: key names, entry fields, what kind an entry is, entry-id order, WAIT per node.

Producers, workers, the command line and every replay read and write Redis
through these names; nothing here imports redis-py or pydantic (a pipeline is
passed in, duck-typed), so a producer in any language can be checked against
this one page.

Keys: ``<prefix>:{<shard>}:<name>``; the braces are the Redis Cluster hash
tag, so every key of a shard lives in one slot and one Lua script may touch
them all.

Entries of the events stream hold ``event`` (a ShowdownEvent) or
``tournament`` (a tournament message), and ``requeued_from`` when
``showdown dead-letters --requeue`` sent them back. A results entry holds
``result`` and the ``entry_id`` of the event it settles (so an event, its
result and its audit record join directly); a dead letter the fields of
:data:`DEAD_LETTER_FIELDS`; an audit entry ``audit``; a standings entry
``placement``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal

EVENT_FIELD: Final = "event"
"""An events-stream entry's ShowdownEvent JSON."""
TOURNAMENT_FIELD: Final = "tournament"
"""A tournament message's JSON, in an entry of the same events stream."""
REQUEUED_FROM_FIELD: Final = "requeued_from"
"""The dead letter's id an entry was requeued from (``showdown dead-letters --requeue``)."""
BODY_CHANGED_FIELD: Final = "body_changed"
"""``1`` beside ``requeued_from`` when the operator requeued an edited body (``--event FILE``)."""
RESULT_FIELD: Final = "result"
"""A results entry's ShowdownResult JSON."""
ENTRY_ID_FIELD: Final = "entry_id"
"""The events-stream entry a result, a dead letter (and an audit record, in its JSON) was made from."""
AUDIT_FIELD: Final = "audit"
"""An audit entry's record JSON."""
PLACEMENT_FIELD: Final = "placement"
"""A standings entry's placement JSON."""
CODE_FIELD: Final = "code"
"""A dead letter's rejection code."""
MESSAGE_FIELD: Final = "message"
"""A dead letter's reason, in words."""
RAW_FIELD: Final = "raw"
"""A dead letter's entry as it arrived (bounded; ``raw_bytes`` says how long it was)."""
RAW_BYTES_FIELD: Final = "raw_bytes"
"""The length of the entry a dead letter's ``raw`` was cut from."""
HAND_ID_FIELD: Final = "hand_id"
"""The hand a dead letter is about, when its entry names one."""
WORKER_FIELD: Final = "worker"
"""The worker (consumer name) that refused the entry."""
AT_FIELD: Final = "at"
"""When the entry was refused (UTC, ISO 8601)."""
DEAD_LETTER_FIELDS: Final = (
    CODE_FIELD, MESSAGE_FIELD, ENTRY_ID_FIELD, RAW_FIELD, RAW_BYTES_FIELD, HAND_ID_FIELD, WORKER_FIELD, AT_FIELD,
)  # fmt: skip
"""A dead letter's fields, in the order they are written."""

EVENT_FIELD_B: Final = EVENT_FIELD.encode()
TOURNAMENT_FIELD_B: Final = TOURNAMENT_FIELD.encode()
REQUEUED_FROM_FIELD_B: Final = REQUEUED_FROM_FIELD.encode()
RESULT_FIELD_B: Final = RESULT_FIELD.encode()
ENTRY_ID_FIELD_B: Final = ENTRY_ID_FIELD.encode()
AUDIT_FIELD_B: Final = AUDIT_FIELD.encode()
PLACEMENT_FIELD_B: Final = PLACEMENT_FIELD.encode()
CODE_FIELD_B: Final = CODE_FIELD.encode()
MESSAGE_FIELD_B: Final = MESSAGE_FIELD.encode()
RAW_FIELD_B: Final = RAW_FIELD.encode()
RAW_BYTES_FIELD_B: Final = RAW_BYTES_FIELD.encode()
HAND_ID_FIELD_B: Final = HAND_ID_FIELD.encode()
WORKER_FIELD_B: Final = WORKER_FIELD.encode()
AT_FIELD_B: Final = AT_FIELD.encode()
"""The field names as redis-py returns them (bytes): what a reader of the streams looks up, spelled here only."""

EVENTS: Final = "events"
RESULTS: Final = "results"
AUDIT: Final = "audit"
DEAD: Final = "dead"
STANDINGS: Final = "standings"
"""The default names of a shard's streams (``SHOWDOWN_*_NAME`` may rename the first four)."""
OPEN_TOURNAMENTS: Final = "tournaments:open"
"""A shard's set of the tournaments open now (opened, winner not yet placed), kept by the commit script beside each
ledger; its SCARD is the ``showdown_tournaments_open`` gauge."""
INBOX: Final = "inbox"
"""The default name of a shard's inbox: the list producers RPUSH to (one element per message, ``event <JSON>`` or
``tournament <JSON>``), which the workers move into the events stream (``SHOWDOWN_INBOX_NAME`` may rename it)."""

EntryKind = Literal["event", "tournament", "ambiguous", "unknown", "deleted"]
"""What an events-stream entry is: an ``event``; a ``tournament`` message; ``ambiguous`` (both fields: refused);
``unknown`` (neither, or a tournament message beside fields it may not have: refused); ``deleted`` (XDEL'd
while pending: its fields are gone)."""

_EVENT_KEYS: Final = frozenset((EVENT_FIELD, EVENT_FIELD.encode()))
_TOURNAMENT_KEYS: Final = frozenset((TOURNAMENT_FIELD, TOURNAMENT_FIELD.encode()))
_TOURNAMENT_ENTRY: Final = frozenset((TOURNAMENT_FIELD, REQUEUED_FROM_FIELD, BODY_CHANGED_FIELD)) | frozenset(
    (TOURNAMENT_FIELD.encode(), REQUEUED_FROM_FIELD.encode(), BODY_CHANGED_FIELD.encode())
)
"""What a tournament message's entry may hold: the message, the dead letter it was requeued from, and whether the
operator edited it."""


def key(shard: str, name: str, *, prefix: str = "showdown") -> str:
    """A shard's key: ``showdown:{default}:events``."""
    return f"{prefix}:{{{shard}}}:{name}"


def entry_kind(fields: Mapping[bytes, Any] | Mapping[str, Any] | None) -> EntryKind:
    """What an entry is, from its field names (bytes as redis-py returns them, or text)."""
    if fields is None:
        return "deleted"
    has_event = EVENT_FIELD.encode() in fields or EVENT_FIELD in fields
    has_message = TOURNAMENT_FIELD.encode() in fields or TOURNAMENT_FIELD in fields
    if has_event:
        return "ambiguous" if has_message else "event"
    if has_message and fields.keys() <= _TOURNAMENT_ENTRY:
        return "tournament"
    return "unknown"


def entry_order(entry_id: bytes | str) -> tuple[int, int]:
    """A stream entry id as ``(milliseconds, sequence)``: ids compare in stream order this way, not as text."""
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    ms, _, seq = text.partition("-")
    return int(ms), int(seq or 0)


_ENTRY_ID = re.compile(r"([0-9]+)-([0-9]+)")
"""A stream entry id as text: ASCII digits only (``re``'s ``\\d`` also takes other scripts' digits, which Redis
refuses)."""
STREAM_ID_MAX = 2**64 - 1
"""Redis's largest millisecond and sequence number in a stream entry id."""


def parse_entry_id(text: str) -> tuple[int, int] | None:
    """``text`` as a Redis stream entry id ``(ms, seq)``, or None when it is not one Redis takes as a range's
    start (each part at most 2^64-1, and not the largest id of all, after which nothing can follow): for ids a
    client sends (a cursor, ``Last-Event-ID``), which must not be trusted."""
    match = _ENTRY_ID.fullmatch(text)
    if match is None:
        return None
    ms, seq = int(match[1]), int(match[2])
    if ms > STREAM_ID_MAX or seq > STREAM_ID_MAX or (ms, seq) == (STREAM_ID_MAX, STREAM_ID_MAX):
        return None
    return ms, seq


def entry_id_shaped(text: str) -> bool:
    """Whether ``text`` is written as an entry id (``<digits>-<digits>``), whether or not Redis would take it."""
    return _ENTRY_ID.fullmatch(text) is not None


def is_range_id(text: str) -> bool:
    """Whether XRANGE takes ``text`` as an id: ``<ms>-<seq>`` or ``<ms>`` alone (its sequence then 0 or the last)."""
    ms, _, seq = text.partition("-")
    return ms.isdigit() and (seq.isdigit() or not seq)


def entry_ms(entry_id: bytes | str) -> int:
    """The milliseconds of a stream entry id: when Redis added it (with ``*``)."""
    return entry_order(entry_id)[0]


def next_entry_id(entry_id: bytes | str) -> str:
    """The least id above ``entry_id`` (an XTRIM MINID that keeps nothing up to it)."""
    ms, seq = entry_order(entry_id)
    return f"{ms}-{seq + 1}"


def stored_entry_order(text: str) -> tuple[int, int] | None:
    """:func:`entry_order` of an id read back from a file (an archive's column), or ``None`` when it is not an id
    Redis writes (``<ms>-<seq>``, digits only): a reader that must not trust what it reads checks it here."""
    ms, _, seq = text.partition("-")
    return (int(ms), int(seq)) if ms.isdigit() and seq.isdigit() else None


def queue_waits(pipe: Any, replicas: int, timeout_ms: int, nodes: Iterable[Any] | None = None) -> int:
    """Add to ``pipe`` a ``WAIT replicas timeout_ms`` per node written to; returns how many were queued.

    WAIT covers the writes of its own connection, so it goes after them in
    the same pipeline. ``nodes``: on a cluster, the nodes the pipeline wrote
    to (each gets its WAIT, once); ``None`` on a single server (one WAIT).
    ``replicas`` 0 queues nothing.
    """
    if not replicas:
        return 0
    if nodes is None:
        pipe.execute_command("WAIT", replicas, timeout_ms)
        return 1
    unique = {node.name: node for node in nodes}
    for node in unique.values():
        pipe.execute_command("WAIT", replicas, timeout_ms, target_nodes=node)
    return len(unique)
