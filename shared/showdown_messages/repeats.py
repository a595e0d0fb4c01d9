"""Keys given twice in one JSON object: refused, never settled with the last value.

JSON parsers (pydantic's included) keep the last of two equal keys, so an
event holding ``"contributed": 500`` and ``"contributed": 800`` for one seat
(two producers disagreeing, a merge gone wrong) would be settled on 800 and
nobody told. :func:`refuse_repeated_keys` finds such a key and raises the
``duplicate_key`` rejection naming where it is and both values.

The check is cheap for the usual event: every key of a JSON object is
followed by a colon, so a payload holding no more colons than the validated
model has fields given cannot give a key twice; nor can a compact one (no
blank between a quote and what follows it) holding no more ``":``. Only otherwise (a repeat, a string value
holding ``":``, a pretty-printed document) is the payload read again, key
by key.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from pydantic import ValidationError
from pydantic_core import InitErrorDetails

from showdown_messages.rejections import field_path, quote, reject

_BLANK_AFTER_QUOTE: Final = re.compile('"[ \t\r\n]')
"""A quote then JSON whitespace: where a key may end without ``":`` right after it (``"seat" : 3``)."""
_BLANK_AFTER_QUOTE_BYTES: Final = re.compile(b'"[ \t\r\n]')


class _Object(dict[str, Any]):
    """A decoded JSON object that remembers its first key given twice, and every value given for it."""

    repeated: tuple[str, list[Any]] | None = None


def _object(pairs: list[tuple[str, Any]]) -> _Object:
    obj = _Object(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        obj.repeated = (key, [v for k, v in pairs if k == key])
    return obj


def _first_repeat(doc: Any) -> tuple[tuple[int | str, ...], list[Any]] | None:
    """Where a key given twice is, and its values: an object's own repeat before those inside it, then depth
    first in document order. A loop over a stack, not recursion: a payload nested as deep as the parser allows
    visits each node once and raises nothing."""
    stack: list[tuple[tuple[int | str, ...], Any]] = [((), doc)]
    while stack:
        loc, node = stack.pop()
        if isinstance(node, _Object):
            if node.repeated is not None:
                key, values = node.repeated
                return (*loc, key), values
            stack += [((*loc, key), child) for key, child in reversed(node.items())]
        elif isinstance(node, list):
            stack += [((*loc, i), child) for i, child in reversed(list(enumerate(node)))]
    return None


def repeated_key(payload: str | bytes | bytearray) -> tuple[tuple[int | str, ...], list[Any]] | None:
    """The location of the first key ``payload`` gives twice in one object, and the values given; None when
    every key is given once or ``payload`` is not JSON at all (the validator says why)."""
    try:
        doc = json.loads(payload, object_pairs_hook=_object)
    except (ValueError, RecursionError):  # not JSON (or not UTF-8), or nested beyond any event: not our finding
        return None
    return _first_repeat(doc)


def could_repeat(payload: str | bytes | bytearray, keys_given: int) -> bool:
    """False when ``payload`` cannot give any key twice, ``keys_given`` being the number of keys its validated
    objects hold (each distinct key once): every key is followed by a colon, so no more colons than that (an
    event without a time of day) settles it at once; else a compact payload with no more key ends (``":``)."""
    if isinstance(payload, str):
        if payload.count(":") <= keys_given:
            return False
        return payload.count('":') > keys_given or _BLANK_AFTER_QUOTE.search(payload) is not None
    if payload.count(b":") <= keys_given:
        return False
    return payload.count(b'":') > keys_given or _BLANK_AFTER_QUOTE_BYTES.search(payload) is not None


def refuse_repeated_keys(payload: str | bytes | bytearray, title: str) -> None:
    """Raise the ``duplicate_key`` ValidationError (titled ``title``) if ``payload`` gives a key twice."""
    found = repeated_key(payload)
    if found is None:
        return
    loc, values = found
    field = field_path(loc)
    shown = " and ".join(quote(v) for v in values[:3]) + (f" and {len(values) - 3} more" if len(values) > 3 else "")
    error = reject(
        "duplicate_key",
        field,
        f"is given {len(values)} times in one object ({shown}); a parser would keep the last silently. "
        "Give each field once",
    )
    details: list[InitErrorDetails] = [{"type": error, "loc": loc, "input": values[-1]}]
    raise ValidationError.from_exception_data(title, details)
