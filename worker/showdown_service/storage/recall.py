"""Recall from the archive: SQL over its files (DuckDB), one hand by id, an export for a regulator.

DuckDB reads a local archive's files itself; an ``s3://`` archive is read
through pyarrow's S3 filesystem (a pyarrow dataset registered with DuckDB),
since DuckDB's own S3 support is an extension it would download.

Views: ``entries`` (one row per archived entry: the archive's columns) and
``placements`` (one row per placement record: the entry's ``shard``, ``seq``,
``entry_id``, ``tournament_id``, ``settled_at``, and ``placement``, the
record's JSON text).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import duckdb
import orjson
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from showdown_service.infra.config import Settings
from showdown_service.storage.idfilter import HandFilters
from showdown_service.storage.layout import SCHEMA, Store, all_files, open_store

ENTRY_COLUMNS = (
    "shard, entry_id, seq, outcome, code, hand_id, tournament_id, table_id, settled_at, currency, event, result, "
    "dead_letter, standings, audit"
)
ADDED_COLUMNS = {"currency": "VARCHAR"}
"""Columns added to the archive's schema after files were written without them (their DuckDB type): such a file
reads with the column null, and an archive of such files alone has it null in every row."""
PLACEMENTS_SQL = """
CREATE VIEW placements AS
SELECT shard, seq, entry_id, tournament_id, settled_at, unnest(from_json(standings, '["json"]')) AS placement
FROM entries WHERE standings IS NOT NULL
"""


def connect(store: Store, paths: list[str] | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with the archive's views ``entries`` and ``placements`` (over ``paths`` alone when
    given: some of the archive's files)."""
    con = duckdb.connect()
    if paths is None:
        paths = [path for _, _, path in all_files(store)]
    if not paths:
        con.register("archive_rows", pa.Table.from_pylist([], schema=SCHEMA))
    elif isinstance(store.fs, pafs.LocalFileSystem):
        listed = ", ".join("'" + p.replace("'", "''") + "'" for p in paths)
        # union_by_name: files written before a column was added lack it (null in their rows)
        con.execute(f"CREATE VIEW archive_rows AS SELECT * FROM read_parquet([{listed}], union_by_name = true)")  # noqa: S608 - our paths
    else:
        con.register("archive_rows", pads.dataset(paths, schema=SCHEMA, filesystem=store.fs, format="parquet"))
    present = {d[0] for d in con.execute("SELECT * FROM archive_rows LIMIT 0").description or []}
    missing = [f"CAST(NULL AS {kind}) AS {name}" for name, kind in ADDED_COLUMNS.items() if name not in present]
    source = f"(SELECT *, {', '.join(missing)} FROM archive_rows)" if missing else "archive_rows"  # noqa: S608
    con.execute(f"CREATE VIEW entries AS SELECT {ENTRY_COLUMNS} FROM {source}")  # noqa: S608 - constants
    con.execute(PLACEMENTS_SQL)
    return con


def query(store: Store, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Run ``sql`` over the archive's views: (column names, rows)."""
    con = connect(store)
    try:
        relation = con.sql(sql)
        if relation is None:
            return [], []
        return list(relation.columns), relation.fetchall()
    finally:
        con.close()


@dataclass(frozen=True, slots=True)
class HandFound:
    """A hand as kept: where it was found and its texts, parsed (None when absent)."""

    hand_id: str
    where: str
    """``redis`` or ``archive``."""
    shard: str
    entry_id: str
    seq: int | None
    outcome: str | None
    event: Any
    result: Any
    dead_letter: Any
    audit: Any

    def document(self) -> dict[str, Any]:
        """``showdown hand --json``'s object."""
        return {
            "hand_id": self.hand_id,
            "where": self.where,
            "shard": self.shard,
            "entry_id": self.entry_id,
            "event": self.event,
            "result": self.result,
            "dead_letter": self.dead_letter,
            "audit": self.audit,
        }


def _parsed(text: str | bytes | None) -> Any:
    if text is None:
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return text if isinstance(text, str) else text.decode(errors="replace")


def best(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Of a hand's entries (a re-send is an entry too), the one that settled it, else the newest."""
    if not rows:
        return None
    settled = [r for r in rows if r.get("outcome") == "settled"]
    if settled:
        return min(settled, key=lambda r: r.get("seq") or 0)
    return max(rows, key=lambda r: (str(r.get("shard")), r.get("seq") or 0))


def found_from_row(row: dict[str, Any], where: str) -> HandFound:
    return HandFound(
        hand_id=str(row.get("hand_id")),
        where=where,
        shard=str(row.get("shard")),
        entry_id=str(row.get("entry_id")),
        seq=row.get("seq"),
        outcome=row.get("outcome"),
        event=_parsed(row.get("event") if row.get("event") is not None else row.get("event_bytes")),
        result=_parsed(row.get("result")),
        dead_letter=_parsed(row.get("dead_letter")),
        audit=_parsed(row.get("audit")),
    )


def hand_ids(store: Store, path: str) -> list[str]:
    """The hand ids of one archive file (its ``hand_id`` column, nulls left out)."""
    column = pq.read_table(path, columns=["hand_id"], filesystem=store.fs).column("hand_id")
    return [hand_id for hand_id in column.to_pylist() if hand_id is not None]


def find_hand(
    archive_url: str, hand_id: str, *, settings: Settings | None = None, filters: HandFilters | None = None
) -> HandFound | None:
    """The archived entry of ``hand_id`` (the one that settled it, else the newest), or None. With ``filters``
    (a long-lived process's, :mod:`.idfilter`), only the files whose filter may hold the hand are read: none, and
    nothing is read, for most hands no file holds."""
    store = open_store(archive_url, settings)
    paths = None
    if filters is not None:
        paths = filters.files_for(hand_id, [path for _, _, path in all_files(store)], partial(hand_ids, store))
        if not paths:
            return None
    con = connect(store, paths)
    try:
        relation = con.execute(
            "SELECT shard, seq, entry_id, outcome, hand_id, event, result, dead_letter, audit "
            "FROM entries WHERE hand_id = ?",
            [hand_id],
        )
        names = [d[0] for d in relation.description or []]
        rows = [dict(zip(names, values, strict=True)) for values in relation.fetchall()]
    finally:
        con.close()
    chosen = best(rows)
    return None if chosen is None else found_from_row(chosen, "archive")


def export_sql(day_from: str, day_to: str) -> str:
    """The entries settled from ``day_from`` to ``day_to`` (UTC days, both included), in chain order."""
    return (
        f"SELECT {ENTRY_COLUMNS} FROM entries "  # noqa: S608 - the days are checked dates
        f"WHERE substr(settled_at, 1, 10) BETWEEN '{day_from}' AND '{day_to}' ORDER BY shard, seq"
    )
