"""A stream entry's fields as Redis holds them: a field given twice stays visible.

``XADD s * tournament A tournament B`` stores both pairs; redis-py reads an
entry's pairs into a dict, which keeps the last value silently (and a reader in
another language may keep the first). The clients this service connects read
stream replies here instead: an entry whose pairs repeat a field comes back as
:class:`RepeatedFields` (still the dict redis-py gives, plus every pair), and
the worker refuses it (``ambiguous_entry``). An entry with distinct fields is a
plain dict, at the cost of one length comparison.

No redis-py here (the decision step imports :class:`RepeatedFields`): the callbacks are installed by
:func:`showdown_service.infra.connection.keep_repeated_fields`.

And which hand an entry names (:func:`result_hand`, :func:`hand_of`), the one rule of every reader of the
output streams: the read side (:mod:`showdown_service.read.hands`) and ``showdown audit verify``.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

from showdown_messages.protocol import HAND_ID_FIELD_B, RESULT_FIELD_B


class RepeatedFields(dict[bytes, bytes]):
    """An entry's fields, one of them given more than once: the dict keeps each field's last value, ``pairs``
    every ``(field, value)`` in the order Redis holds them."""

    __slots__ = ("pairs",)

    def __init__(self, fields: dict[bytes, bytes], pairs: list[tuple[bytes, bytes]]) -> None:
        super().__init__(fields)
        self.pairs = pairs

    def repeated(self) -> list[bytes]:
        """The fields given more than once, in the order first given."""
        counts: dict[bytes, int] = {}
        for name, _ in self.pairs:
            counts[name] = counts.get(name, 0) + 1
        return [name for name, count in counts.items() if count > 1]

    def raw(self) -> bytes:
        """Every pair, for a dead letter: ``[["tournament", "{...}"], ["tournament", "{...}"]]`` (bytes that are
        not UTF-8 shown with replacement characters)."""
        return orjson.dumps([[n.decode(errors="replace"), v.decode(errors="replace")] for n, v in self.pairs])


def hand_of(payload: bytes | None) -> str | None:
    """The ``hand_id`` a JSON payload (an event, a result, a dead letter's raw) names, or None."""
    if not payload:
        return None
    try:
        doc = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None
    hand_id = doc.get("hand_id") if isinstance(doc, dict) else None
    return hand_id if isinstance(hand_id, str) else None


def result_hand(fields: dict[bytes, bytes]) -> str | None:
    """The hand a results entry settles: its ``hand_id`` field (the commit writes it beside the result), else
    (an entry an older worker wrote) the result's JSON."""
    named = fields.get(HAND_ID_FIELD_B)
    return named.decode(errors="replace") if named else hand_of(fields.get(RESULT_FIELD_B))


def entry_fields(pairs: list[bytes] | None) -> dict[bytes, bytes] | None:
    """One entry's flat ``[field, value, field, value, ...]`` as a dict; a :class:`RepeatedFields` when a field
    repeats; ``None`` for an entry deleted while pending."""
    if pairs is None:
        return None
    it = iter(pairs)
    fields = dict(zip(it, it, strict=False))
    if 2 * len(fields) == len(pairs):
        return fields
    it = iter(pairs)
    return RepeatedFields(fields, list(zip(it, it, strict=False)))


def _entries(rows: list[Any] | None) -> list[Any] | None:
    if rows is None:
        return None
    return [(row[0], entry_fields(row[1]), *row[2:]) if row is not None else (None, None) for row in rows]


def _read(reply: Any, **options: Any) -> Any:  # XREAD, XREADGROUP: [[stream, entries], ...]
    if reply is None:
        return []
    return [[stream, _entries(rows)] for stream, rows in reply]


def _claimed(reply: Any, **options: Any) -> Any:  # XAUTOCLAIM: [next id, entries, deleted ids]
    if options.get("parse_justid", False):
        return reply[1]
    reply[1] = _entries(reply[1])
    return reply


def _ranged(reply: Any, **options: Any) -> Any:  # XRANGE, XREVRANGE, XCLAIM: entries
    if options.get("parse_justid", False):
        return reply
    return _entries(reply)


CALLBACKS: Final = {
    "XREAD": _read,
    "XREADGROUP": _read,
    "XAUTOCLAIM": _claimed,
    "XCLAIM": _ranged,
    "XRANGE": _ranged,
    "XREVRANGE": _ranged,
}
"""The RESP2 stream replies read here (the clients are pinned to RESP2: :func:`~.connection.connect`)."""
