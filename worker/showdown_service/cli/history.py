"""Archived hands written as hand histories: ``showdown archive export --format phh|ohh`` and ``showdown hand
HAND_ID --history [phh|ohh]`` (the writers are :mod:`showdown_service.histories.export`).

A hand that cannot be written (a v1 event without ``play``, a refused entry, a game the format cannot hold) is
left out and named on stderr with why; the count written and left out ends the export.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, Any, Final

import duckdb
import orjson

from showdown_service.histories.export import NotAHistory, ohh_json, phh_text

HISTORY_FORMATS: Final = ("phh", "ohh")
NAMED_AT_MOST: Final = 20
"""Hands left out that the export names one by one on stderr (the rest are counted)."""


def history_text(fmt: str, event: Any, result: Any, number: int | None = None) -> str:
    """One settled hand in ``fmt``: a PHH hand (under ``[number]`` when given: a ``.phhs`` section) or one Open
    Hand History object on its own lines; :class:`NotAHistory` when it cannot be written."""
    if fmt == "ohh":
        return ohh_json(event, result, indent=True) + "\n"
    text = phh_text(event, result)
    return text if number is None else f"[{number}]\n{text}"


def export_histories(con: duckdb.DuckDBPyConnection, sql: str, fmt: str, out_path: Path | None) -> int:
    """Write every settled hand ``sql`` selects as ``fmt`` to ``out_path`` (stdout when None): PHH as one
    ``.phhs`` (a ``[k]`` section per hand), Open Hand History as one object after another."""
    relation = con.execute(sql)
    columns = [d[0] for d in relation.description or []]
    out: IO[str] = out_path.open("w", encoding="utf-8") if out_path else sys.stdout
    written = left_out = 0
    try:
        while batch := relation.fetchmany(10_000):
            for values in batch:
                row = dict(zip(columns, values, strict=True))
                if row.get("outcome") != "settled":
                    continue
                try:
                    text = history_text(fmt, _parsed(row.get("event")), _parsed(row.get("result")), written + 1)
                except NotAHistory as exc:
                    left_out += 1
                    if left_out <= NAMED_AT_MOST:
                        print(f"left out: {exc}", file=sys.stderr)
                    continue
                out.write(("\n" if written else "") + text)
                written += 1
    finally:
        if out_path:
            out.close()
    more = f" ({left_out - NAMED_AT_MOST} more not named above)" if left_out > NAMED_AT_MOST else ""
    print(f"{written} hands written as {fmt.upper()}; {left_out} settled hands left out{more}", file=sys.stderr)
    return 0


def print_history(fmt: str, event: Any, result: Any) -> int:
    """``showdown hand HAND_ID --history FMT``: the hand on stdout (exit 0), or why it cannot be (exit 2)."""
    try:
        sys.stdout.write(history_text(fmt, event, result))
    except NotAHistory as exc:
        print(f"showdown hand --history {fmt}: {exc}", file=sys.stderr)
        return 2
    return 0


def _parsed(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
