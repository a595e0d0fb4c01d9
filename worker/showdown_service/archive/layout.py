"""Where the archive's files are and what they hold: the row schema, file names, reading and writing.

An archive is a directory tree (local, or under an ``s3://bucket/prefix``)::

    shard=<shard>/day=<YYYY-MM-DD>/<shard>-<first seq:012>-<last seq:012>.parquet
    checkpoints/<shard>/<last seq:012>.json           (signed checkpoints, see checkpoints.py)

Each file holds a contiguous run of one shard's audit chain, one row per
entry, in chain order (zstd). Its key-value metadata names the run
(``first_seq``, ``last_seq``, ``first_prev_hash``, ``last_hash``) and where
the archiver's cursors stood after it (``audit_id``, ``results_id``,
``dead_id``, ``standings_id``): a missing file is a visible gap, and a
restarted archiver resumes from the newest file alone. The file's day is the
UTC day of its first record (a file never spans two days' first records).
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
from pyarrow.lib import ArrowException

from showdown_core.errors import ShowdownError
from showdown_service.config import Settings

SCHEMA = pa.schema(
    [
        ("shard", pa.string()),
        ("seq", pa.int64()),
        ("entry_id", pa.string()),
        ("outcome", pa.string()),
        ("code", pa.string()),
        ("hand_id", pa.string()),
        ("tournament_id", pa.string()),
        ("table_id", pa.string()),
        ("settled_at", pa.string()),
        ("event", pa.string()),
        ("event_bytes", pa.binary()),
        ("event_field", pa.string()),
        ("entry_fields", pa.string()),
        ("result", pa.string()),
        ("dead_letter", pa.string()),
        ("standings", pa.string()),
        ("audit", pa.string()),
        ("audit_id", pa.string()),
    ]
)
"""One row per entry. ``event``: the entry's text exactly as received (``event_bytes`` instead, and ``event``
null, when it is not UTF-8); ``event_field``: the stream field it came in (``event`` or ``tournament``);
``entry_fields``: every field of the stream entry as JSON when it held more than its payload; ``result``: the
published ShowdownResult text; ``dead_letter``: the dead letter's fields as JSON, less ``raw`` (the event column
holds the whole payload); ``standings``: the placement records written with the entry, as the JSON array whose
sha256 is the record's ``standings_sha256``; ``audit``: the audit record's text as stored; ``audit_id``: its audit
stream id."""

COLUMNS = tuple(SCHEMA.names)
ROW_GROUP_ROWS = 10_000
"""Rows per Parquet row group: a hand looked up by id decompresses its row group's texts, not the file's."""
FILE_NAME = re.compile(r"^(?P<shard>[^/]+)-(?P<first>\d{12})-(?P<last>\d{12})\.parquet$")


class ArchiveError(ShowdownError):
    """An archive that cannot be opened, listed or read: the message names the file (and row) and why."""


@dataclass(frozen=True, slots=True)
class Store:
    """An archive's filesystem and its root path within it."""

    fs: pafs.FileSystem
    root: str
    url: str

    def path(self, *parts: str) -> str:
        return "/".join([self.root.rstrip("/"), *parts]) if self.root else "/".join(parts)


def open_store(url: str, settings: Settings | None = None) -> Store:
    """The archive at ``url``: a local directory (created if missing) or ``s3://bucket/prefix``."""
    if url.startswith("s3://"):
        options: dict[str, Any] = {}
        if settings is not None:
            if settings.archive_s3_endpoint:
                scheme, _, host = settings.archive_s3_endpoint.partition("://")
                options.update(endpoint_override=host or scheme, scheme=scheme if host else "https")
            if settings.archive_s3_region:
                options["region"] = settings.archive_s3_region
            if settings.archive_s3_access_key and settings.archive_s3_secret_key:
                options.update(
                    access_key=settings.archive_s3_access_key,
                    secret_key=settings.archive_s3_secret_key.get_secret_value(),
                )
        return Store(pafs.S3FileSystem(**options), url.removeprefix("s3://").rstrip("/"), url)
    local = pafs.LocalFileSystem()
    root = os.path.abspath(url.removeprefix("file://") or ".")
    local.create_dir(root, recursive=True)
    return Store(local, root, url)


@dataclass(frozen=True, slots=True)
class FileMeta:
    """What a file's metadata says about the run it holds."""

    path: str
    shard: str
    first_seq: int
    last_seq: int
    first_prev_hash: str
    last_hash: str
    cursors: dict[str, str]
    """Stream ids the archiver had read up to after this file: audit_id, results_id, dead_id, standings_id."""


CURSORS = ("audit_id", "results_id", "dead_id", "standings_id")


def file_name(shard: str, first_seq: int, last_seq: int) -> str:
    return f"{shard}-{first_seq:012d}-{last_seq:012d}.parquet"


def shard_days(store: Store, shard: str) -> list[str]:
    """The day directories of ``shard``, oldest first (``YYYY-MM-DD``)."""
    selector = pafs.FileSelector(store.path(f"shard={shard}"), allow_not_found=True)
    days = [
        info.base_name.removeprefix("day=")
        for info in store.fs.get_file_info(selector)
        if info.type == pafs.FileType.Directory and info.base_name.startswith("day=")
    ]
    return sorted(days)


def shards(store: Store) -> list[str]:
    """Every shard with a directory in the archive."""
    selector = pafs.FileSelector(store.root, allow_not_found=True)
    return sorted(
        info.base_name.removeprefix("shard=")
        for info in store.fs.get_file_info(selector)
        if info.type == pafs.FileType.Directory and info.base_name.startswith("shard=")
    )


def day_files(store: Store, shard: str, day: str) -> list[tuple[int, int, str]]:
    """``(first seq, last seq, path)`` of every file of one shard's day, in seq order."""
    selector = pafs.FileSelector(store.path(f"shard={shard}", f"day={day}"), allow_not_found=True)
    found = []
    for info in store.fs.get_file_info(selector):
        match = FILE_NAME.match(info.base_name)
        if info.type == pafs.FileType.File and match and match["shard"] == shard:
            found.append((int(match["first"]), int(match["last"]), info.path))
    return sorted(found)


def shard_files(store: Store, shard: str) -> list[tuple[int, int, str]]:
    """Every file of ``shard``, in seq order."""
    return sorted(f for day in shard_days(store, shard) for f in day_files(store, shard, day))


def all_files(store: Store) -> list[tuple[int, int, str]]:
    return [f for shard in shards(store) for f in shard_files(store, shard)]


def newest_file(store: Store, shard: str) -> FileMeta | None:
    """The metadata of ``shard``'s newest file (highest last seq of its newest day), or None for a new shard."""
    for day in reversed(shard_days(store, shard)):
        files = day_files(store, shard, day)
        if files:
            return read_meta(store, max(files)[2])
    return None


def read_meta(store: Store, path: str) -> FileMeta:
    try:
        with store.fs.open_input_file(path) as handle:
            meta = pq.read_metadata(handle).metadata or {}
    except (ArrowException, OSError) as exc:
        raise ArchiveError(f"archive file {path}: cannot read its metadata: {exc}") from exc
    text = {k.decode(): v.decode() for k, v in meta.items()}
    try:
        return FileMeta(
            path=path,
            shard=text["shard"],
            first_seq=int(text["first_seq"]),
            last_seq=int(text["last_seq"]),
            first_prev_hash=text["first_prev_hash"],
            last_hash=text["last_hash"],
            cursors={name: text.get(name, "") for name in CURSORS},
        )
    except (KeyError, ValueError) as exc:
        raise ArchiveError(f"archive file {path}: its metadata lacks the chain's run ({exc})") from exc


def encode_file(table: pa.Table, meta: dict[str, str]) -> bytes:
    """``table`` as Parquet (zstd), with ``meta`` in its key-value metadata."""
    sink = io.BytesIO()
    pq.write_table(table.replace_schema_metadata(meta), sink, compression="zstd", row_group_size=ROW_GROUP_ROWS)
    return sink.getvalue()


def put_file(store: Store, path: str, data: bytes) -> None:
    """Write ``data`` at ``path`` whole or not at all: locally a temporary name renamed into place; on S3 one PUT
    (an object appears only once its upload completes)."""
    parent = path.rsplit("/", 1)[0]
    store.fs.create_dir(parent, recursive=True)
    if isinstance(store.fs, pafs.LocalFileSystem):
        temporary = f"{parent}/.writing-{path.rsplit('/', 1)[1]}"
        with open(temporary, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        store.fs.move(temporary, path)
        return
    with store.fs.open_output_stream(path) as out:
        out.write(data)


def read_rows(store: Store, path: str, columns: list[str] | None = None) -> pa.Table:
    """The rows of one file (``columns``: only those); an unreadable one raises :class:`ArchiveError` naming it."""
    try:
        with store.fs.open_input_file(path) as handle:
            return pq.read_table(handle, columns=columns)
    except (ArrowException, OSError) as exc:
        raise ArchiveError(f"archive file {path}: cannot be read: {exc}") from exc


def iter_rows(table: pa.Table) -> Iterator[dict[str, Any]]:
    """Each row of ``table`` as a dict (the schema's columns)."""
    yield from table.to_pylist()
