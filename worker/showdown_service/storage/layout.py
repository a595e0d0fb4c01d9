"""Where the archive's files are and what they hold: the row schema, file names, reading and writing.

An archive is a directory tree (local, or under an ``s3://bucket/prefix``)::

    shard=<shard>/day=<YYYY-MM-DD>/<shard>-<epoch16>-<first seq:012>-<last seq:012>.parquet
    checkpoints/<shard>/<epoch16>-<last seq:012>.json   (signed checkpoints, see checkpoints.py)

Each file holds a contiguous run of one shard's audit chain, one row per
entry, in chain order (zstd). Its key-value metadata names the run
(``first_seq``, ``last_seq``, ``first_prev_hash``, ``last_hash``), the chain's
``epoch`` (the hash of its record at seq 1: a Redis that lost its data starts
another chain, whose files sit beside the old ones under other names) and
where the archiver's cursors stood after it (``audit_id``, ``results_id``,
``dead_id``, ``standings_id``): a missing file is a visible gap, and a
restarted archiver resumes from the newest file of its chain alone, the one
with the highest seq whatever its day. The file's day is the UTC day of its
first record. Names written before epochs (``<shard>-<first>-<last>.parquet``,
``checkpoints/<shard>/<last>.json``) still read: their epoch is their chain's
seq-1 hash.

Nothing is ever written over: a local file is linked into place (which fails
if the name exists), an S3 object is put with ``If-None-Match: *`` (and
checked after); a name that exists raises :class:`NameTaken`.
"""

from __future__ import annotations

import io
import os
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
from pyarrow.lib import ArrowException

from showdown_service.infra.config import Settings

# The errors and the retention are the layout's names too (re-exported in mypy's explicit form):
from showdown_service.storage.errors import ArchiveError as ArchiveError  # noqa: PLC0414
from showdown_service.storage.errors import ArchiveRefused as ArchiveRefused  # noqa: PLC0414
from showdown_service.storage.errors import NameTaken as NameTaken  # noqa: PLC0414
from showdown_service.storage.s3write import Retention as Retention  # noqa: PLC0414
from showdown_service.storage.s3write import S3Writer, s3_login

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
        ("currency", pa.string()),
    ]
)
"""One row per entry. ``event``: the entry's text exactly as received (``event_bytes`` instead, and ``event``
null, when it is not UTF-8); ``event_field``: the stream field it came in (``event`` or ``tournament``);
``entry_fields``: every field of the stream entry as JSON when it held more than its payload; ``result``: the
published ShowdownResult text; ``dead_letter``: the dead letter's fields as JSON, less ``raw`` (the event column
holds the whole payload); ``standings``: the placement records written with the entry, as the JSON array whose
sha256 is the record's ``standings_sha256``; ``audit``: the audit record's text as stored; ``audit_id``: its audit
stream id; ``currency``: the event's ``currency`` (ISO 4217, amounts in its minor unit) as it states it, null without
one (a tournament's chips, a table without a currency) and in files written before the column (added last: a reader
of older files gets it null, :func:`showdown_service.storage.recall.connect`)."""

COLUMNS = tuple(SCHEMA.names)
ROW_GROUP_ROWS = 10_000
"""Rows per Parquet row group: a hand looked up by id decompresses its row group's texts, not the file's."""
FILE_NAME = re.compile(r"^(?P<shard>[^/]+?)-(?:(?P<epoch>[0-9a-f]{16})-)?(?P<first>\d{12})-(?P<last>\d{12})\.parquet$")
"""A file's name: ``epoch`` (the first 16 hex digits of its chain's epoch id) is absent from names written before
epochs."""
RUN_NAME = re.compile(r"^(?:(?P<epoch>[0-9a-f]{16})-)?(?P<first>\d{12})-(?P<last>\d{12})\.parquet$")
"""A file's name after ``<shard>-``."""
EPOCH = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True, slots=True)
class Store:
    """An archive's filesystem and its root path within it."""

    fs: pafs.FileSystem
    root: str
    url: str
    writer: S3Writer | None = field(default=None, compare=False)
    """An s3:// archive's write-once writer (made on the first write)."""

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
            options |= s3_login(settings, ("region", "access_key", "secret_key"))
        retention = None
        if settings is not None and settings.archive_retention_days:
            retention = Retention(settings.archive_retention_days, settings.archive_retention_mode.upper())
        writer = S3Writer(settings, retention)
        return Store(pafs.S3FileSystem(**options), url.removeprefix("s3://").rstrip("/"), url, writer)
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
    epoch: str = ""
    """The chain's epoch id (64 hex), or "" in a file written before epochs."""
    written_at: str = ""


CURSORS = ("audit_id", "results_id", "dead_id", "standings_id")


def file_name(shard: str, first_seq: int, last_seq: int, epoch: str = "") -> str:
    """A file's name; ``epoch`` (the chain's epoch id) is in every name written now (its first 16 hex digits)."""
    middle = f"{epoch[:16]}-" if epoch else ""
    return f"{shard}-{middle}{first_seq:012d}-{last_seq:012d}.parquet"


def checkpoint_path(shard: str, last_seq: int, epoch: str = "") -> tuple[str, str, str]:
    """The parts of a checkpoint's path under the archive's root."""
    middle = f"{epoch[:16]}-" if epoch else ""
    return "checkpoints", shard, f"{middle}{last_seq:012d}.json"


@dataclass(frozen=True, slots=True)
class Run:
    """One file of a shard, as its name says."""

    first_seq: int
    last_seq: int
    path: str
    epoch16: str
    """The first 16 hex digits of its chain's epoch id; "" in a name written before epochs."""
    day: str


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
    for info in store.fs.get_file_info(selector):  # the shard's own prefix first: a shard's name may hold dashes
        if not info.base_name.startswith(f"{shard}-"):
            continue
        match = RUN_NAME.match(info.base_name[len(shard) + 1 :])
        if info.type == pafs.FileType.File and match:
            found.append((int(match["first"]), int(match["last"]), info.path))
    return sorted(found)


def shard_files(store: Store, shard: str) -> list[tuple[int, int, str]]:
    """Every file of ``shard``, in seq order."""
    return sorted(f for day in shard_days(store, shard) for f in day_files(store, shard, day))


def all_files(store: Store) -> list[tuple[int, int, str]]:
    return [f for shard in shards(store) for f in shard_files(store, shard)]


def shard_runs(store: Store, shard: str) -> list[Run]:
    """Every file of ``shard`` (all days, all epochs): one listing of its directory."""
    base = store.path(f"shard={shard}")
    selector = pafs.FileSelector(base, allow_not_found=True, recursive=True)
    found = []
    for info in store.fs.get_file_info(selector):
        if info.type != pafs.FileType.File or not info.base_name.startswith(f"{shard}-"):
            continue
        day = info.path[len(base) :].strip("/").split("/")[0]
        match = RUN_NAME.match(info.base_name[len(shard) + 1 :])
        if match and day.startswith("day=") and info.path.count("/") == base.count("/") + 2:
            epoch16 = match["epoch"] or ""
            found.append(Run(int(match["first"]), int(match["last"]), info.path, epoch16, day.removeprefix("day=")))
    return sorted(found, key=lambda r: (r.epoch16, r.first_seq, r.last_seq, r.path))


def epoch_runs(store: Store, shard: str) -> dict[str, list[Run]]:
    """``shard``'s files by chain, each in seq order: keyed by the first 16 hex digits of the epoch id. Files named
    before epochs join the chain whose record at seq 1 their own file of seq 1 holds (key "" if none does)."""
    groups: dict[str, list[Run]] = {}
    for run in shard_runs(store, shard):
        groups.setdefault(run.epoch16, []).append(run)
    legacy = groups.pop("", [])
    if legacy:
        epoch = legacy_epoch(store, legacy)
        key = epoch[:16] if epoch else ""
        groups[key] = sorted([*groups.get(key, []), *legacy], key=lambda r: (r.first_seq, r.last_seq, r.path))
    return groups


_LEGACY_EPOCHS: dict[tuple[str, str], str] = {}
"""(archive URL, path) -> the epoch its file of seq 1 holds: files are never rewritten, so it is read once."""


def legacy_epoch(store: Store, runs: list[Run]) -> str:
    """The epoch id of files named before epochs: the hash of the record at seq 1, in their file of seq 1."""
    first = [r for r in runs if r.first_seq == 1]
    if not first:
        return ""
    cached = _LEGACY_EPOCHS.get((store.url, first[0].path))
    if cached is None:
        cached = _LEGACY_EPOCHS[store.url, first[0].path] = _seq_one_hash(store, first[0].path)
    return cached


def _seq_one_hash(store: Store, path: str) -> str:
    table = read_rows(store, path, columns=["audit"])
    text = table.column("audit")[0].as_py() if table.num_rows else None
    try:
        record = orjson.loads(text or "null")
        found = str(record["hash"]) if int(record["seq"]) == 1 else ""
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return ""
    return found if EPOCH.match(found) else ""


def newest_run(runs: list[Run]) -> Run | None:
    """The newest of one chain's files: the highest seq, whatever its day folder."""
    return max(runs, key=lambda r: (r.last_seq, r.first_seq, r.path), default=None)


def newest_file(store: Store, shard: str, epoch: str | None = None) -> FileMeta | None:
    """The metadata of the newest file (the highest seq, whatever its day) of ``shard``'s chain ``epoch`` (64 or
    16 hex digits), or None if the archive holds none of it. Without ``epoch``: of the chain written last."""
    groups = epoch_runs(store, shard)
    if epoch is not None:
        newest = newest_run(groups.get(epoch[:16], []))
        return read_meta(store, newest.path) if newest else None
    metas = [read_meta(store, run.path) for run in (newest_run(g) for g in groups.values()) if run is not None]
    return max(metas, key=lambda m: (m.written_at, m.last_seq), default=None)


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
            epoch=text.get("epoch", ""),
            written_at=text.get("written_at", ""),
        )
    except (KeyError, ValueError) as exc:
        raise ArchiveError(f"archive file {path}: its metadata lacks the chain's run ({exc})") from exc


def encode_file(table: pa.Table, meta: dict[str, str]) -> bytes:
    """``table`` as Parquet (zstd), with ``meta`` in its key-value metadata."""
    sink = io.BytesIO()
    pq.write_table(table.replace_schema_metadata(meta), sink, compression="zstd", row_group_size=ROW_GROUP_ROWS)
    return sink.getvalue()


def put_file(store: Store, path: str, data: bytes) -> None:
    """Write ``data`` at ``path`` whole or not at all, and never over anything: locally a temporary file (fsynced)
    hard-linked to ``path``, which fails if the name exists; on S3 one conditional PUT (an object appears only
    once its upload completes). A name that exists raises :class:`NameTaken`; nothing is replaced."""
    parent, name = path.rsplit("/", 1)
    if store.writer is not None:
        store.writer.put(path, data)
        return
    store.fs.create_dir(parent, recursive=True)
    if not isinstance(store.fs, pafs.LocalFileSystem):
        raise ArchiveError(f"{store.url}: this store has no write-once writer")
    temporary = f"{parent}/.writing-{uuid.uuid4().hex[:12]}-{name}"
    with open(temporary, "xb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    try:
        os.link(temporary, path)
    except FileExistsError:
        raise NameTaken(f"{path} exists already: the archive never writes over a name") from None
    finally:
        os.unlink(temporary)
    directory = os.open(parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


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
