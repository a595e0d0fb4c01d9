"""Which of an archive's files hold which chain of a shard (its epochs), and where the archive stands against Redis.

A shard's chain is identified by its first record's hash, its *epoch*: when Redis lost its data (restarted
without it) the chain begins again at seq 1 and the archive holds two chains of the shard side by side. New files
carry their epoch in their metadata (``epoch``) and name (``<shard>-<epoch16>-<first>-<last>.parquet``); files
written before epochs carry none, and their chain is the one they follow by hash. Used by ``audit replay``
(:mod:`.replay`) and ``audit verify`` (:mod:`.verify`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field
from typing import Any, cast

import orjson
import pyarrow.parquet as pq
import redis
from pyarrow.lib import ArrowException

from showdown_messages.protocol import AUDIT_FIELD_B
from showdown_service.decision.audit import GENESIS, Head
from showdown_service.infra.config import ShardKeys
from showdown_service.infra.connection import Client
from showdown_service.storage.layout import CURSORS, ArchiveError, Store, shard_files, shards

NOTICES = frozenset({"reset"})
"""Kinds reported that are not differences: the archive holds (``audit replay`` exits 0 on them alone)."""
_EPOCH_NAME = re.compile(r"^(?P<epoch>[0-9a-f]{16})-\d{12}-\d{12}\.parquet$")


@dataclass(frozen=True, slots=True)
class Difference:
    """One thing that does not hold (or, of a kind in :data:`NOTICES`, a notice)."""

    shard: str
    kind: str
    detail: str
    hand_id: str | None = None
    entry_id: str | None = None
    seq: int | None = None
    file: str | None = None
    row: int | None = None

    def line(self) -> bytes:
        return orjson.dumps(asdict(self))


@dataclass(frozen=True, slots=True)
class ChainEnd:
    """Where one epoch of a shard's chain ends in the archive."""

    epoch: str
    """Its seq-1 record's hash (64 hex); the epoch its files claim when seq 1 is not archived; else ""."""
    seq: int
    hash: str
    began: str
    """Its seq-1 record's ``at`` ("" when not archived)."""
    file: str
    """Its newest file ("" for none)."""
    cursors: dict[str, str] = field(default_factory=dict)
    """The cursor metadata of that file."""
    files: tuple[tuple[int, int, str], ...] = ()
    """The chain's files: ``(first seq, last seq, path)``, in seq order (what :func:`archived_ends` does not list)."""


Sink = Callable[[Difference], None]


@dataclass(slots=True)
class ChainFile:
    first: int
    last: int
    path: str
    meta: dict[str, str] | None
    """The file's key-value metadata; None when it cannot be read (``why``)."""
    why: str
    claimed: str
    """The epoch its metadata (else its name: 16 hex) claims; "" for a file written before epochs."""


@dataclass(slots=True)
class Chain:
    epoch: str
    began: str
    files: list[ChainFile] = field(default_factory=list)
    end: int = 0


def raw_meta(store: Store, path: str) -> dict[str, str]:
    try:
        with store.fs.open_input_file(path) as handle:
            meta = pq.read_metadata(handle).metadata or {}
    except (ArrowException, OSError) as exc:
        raise ArchiveError(f"archive file {path}: cannot read its metadata: {exc}") from exc
    return {k.decode(errors="replace"): v.decode(errors="replace") for k, v in meta.items()}


def first_record(store: Store, path: str) -> dict[str, Any] | None:
    """The audit record of a file's first row (None when it cannot be read)."""
    try:
        with store.fs.open_input_file(path) as handle:
            parquet = pq.ParquetFile(handle)
            if parquet.metadata.num_rows == 0:
                return None
            text = parquet.read_row_group(0, columns=["audit"]).column("audit")[0].as_py()
        record = orjson.loads(text or "null")
    except (ArrowException, OSError, KeyError, IndexError, orjson.JSONDecodeError):
        return None
    return record if isinstance(record, dict) else None


def name_epoch(shard: str, path: str) -> str:
    """The 16 hex digits of the epoch a file's name carries (``<shard>-<epoch16>-<first>-<last>.parquet``), or ""
    for a name written before epochs."""
    match = _EPOCH_NAME.match(path.rsplit("/", 1)[-1].removeprefix(f"{shard}-"))
    return match["epoch"] if match else ""


def chains(store: Store, shard: str, report: Sink) -> list[Chain]:
    """``shard``'s files grouped by the chain (epoch) they hold, the chains in the order they began.

    A file that begins a chain (seq 1 after the genesis hash) starts its epoch; any other file joins the chain
    whose file ends with the hash it follows, else the epoch it claims, else the chain it would extend (a file
    deleted before it is then reported as missing seqs). A claimed epoch that is not the chain's is reported.
    """
    files: list[ChainFile] = []
    for first, last, path in shard_files(store, shard):
        try:
            meta: dict[str, str] | None = raw_meta(store, path)
            why = ""
        except ArchiveError as exc:
            meta, why = None, str(exc)
        named, stated = name_epoch(shard, path), (meta or {}).get("epoch", "")
        if named and stated and not stated.startswith(named):
            detail = f"its name says epoch {named}, its metadata {stated}"
            report(Difference(shard, "epoch_mismatch", detail, file=path))
        files.append(ChainFile(first, last, path, meta, why, stated or named))
    found: list[Chain] = []
    ending: dict[str, Chain] = {}
    for file in files:
        chain = None
        if file.first == 1:
            record = first_record(store, file.path)
            if record is not None and record.get("prev_hash") == GENESIS and record.get("seq") == 1:
                epoch = str(record.get("hash", ""))
                chain = next((c for c in found if c.epoch == epoch), None)
                if chain is None:
                    chain = Chain(epoch, str(record.get("at") or ""))
                    found.append(chain)
        follows = (file.meta or {}).get("first_prev_hash", "")
        if chain is None and follows in ending:
            chain = ending[follows]
        if chain is None and file.claimed:
            chain = next((c for c in found if _same(c.epoch, file.claimed)), None)
            if chain is None:
                chain = Chain(file.claimed, "")
                found.append(chain)
        if chain is None:
            below = [c for c in found if c.end < file.first]
            chain = max(below, key=lambda c: c.end) if below else (found[0] if found else None)
            if chain is None:
                chain = Chain("", "")
                found.append(chain)
        chain.files.append(file)
        chain.end = max(chain.end, file.last)
        if file.meta is not None and file.meta.get("last_hash"):
            ending[file.meta["last_hash"]] = chain
    for chain in found:
        for file in chain.files:
            if file.claimed and chain.epoch and not _same(chain.epoch, file.claimed):
                detail = f"it claims epoch {file.claimed}, the chain it holds is epoch {chain.epoch}"
                report(Difference(shard, "epoch_mismatch", detail, file=file.path))
    order = {id(chain): n for n, chain in enumerate(found)}
    return sorted(found, key=lambda c: (c.began or "\uffff", order[id(c)]))


def _same(epoch: str, claimed: str) -> bool:
    """Whether two epochs agree, either given whole (64 hex) or by its first 16 hex digits (a file's name)."""
    return bool(epoch) and bool(claimed) and (epoch.startswith(claimed) or claimed.startswith(epoch))


def archived_ends(store: Store, shard: str) -> list[ChainEnd]:
    """Where each of ``shard``'s chains ends in the archive, from the files' names and metadata alone (rows
    unread): for ``audit verify``."""
    ends = []
    for chain in chains(store, shard, lambda _: None):
        newest = max(chain.files, key=lambda f: (f.last, f.first))
        meta = newest.meta or {}
        ends.append(ChainEnd(chain.epoch, newest.last, meta.get("last_hash", ""), chain.began, newest.path,
                             {name: meta.get(name, "") for name in CURSORS}))  # fmt: skip
    return ends


def redis_epoch(client: Client, keys: ShardKeys) -> str | None:
    """The epoch of Redis's live chain: the hash of its seq-1 record while the stream holds it, else the
    ``<audit>:epoch`` key the commit writes with the first record (None when neither says)."""
    first = client.xrange(keys.audit, min="-", max="+", count=1)
    if first:
        try:
            body = orjson.loads(cast(list[tuple[bytes, dict[bytes, bytes]]], first)[0][1].get(AUDIT_FIELD_B, b""))
        except orjson.JSONDecodeError:
            body = None
        if isinstance(body, dict) and body.get("seq") == 1:
            return str(body.get("hash", ""))
    try:
        stored = cast(bytes | None, client.get(str(getattr(keys, "audit_epoch", "") or f"{keys.audit}:epoch")))
    except redis.ResponseError:  # a user not granted the key (an older ACL): unknown
        return None
    return stored.decode() if stored else None


def beyond(client: Client, keys: ShardKeys, ends: list[ChainEnd]) -> tuple[ChainEnd | None, list[Difference]]:
    """Which of the archive's chains is Redis's live one, and what of the archive goes past Redis: past its head
    (``beyond_head``), past the archiver's recorded progress and the file it said it writes (``beyond_progress``);
    or, when Redis runs another chain than any archived (or none), a ``reset`` notice."""
    shard = keys.shard
    if not ends:
        return None, []
    head = Head.decode(cast(bytes | None, client.get(keys.audit_head)))
    epoch = redis_epoch(client, keys)
    newest = ends[-1]
    if epoch:  # its chain; else one whose seq 1 is not archived (its epoch unknown), the newest such
        end = next((e for e in ends if e.epoch == epoch), None) or next((e for e in ends[::-1] if not e.epoch), None)
    else:
        end = newest if head.seq else None
    if end is None:
        if head.seq == 0:
            detail = (f"Redis holds no chain of the shard (no head): the archive's epoch {newest.epoch[:16] or '?'} "
                      f"archived to seq {newest.seq} is not live")  # fmt: skip
        else:
            detail = (f"the chain restarted: epoch {newest.epoch[:16] or '?'} archived to seq {newest.seq}, Redis's "
                      f"epoch {(epoch or '?')[:16]} (head seq {head.seq}) has no archived file yet")  # fmt: skip
        return None, [Difference(shard, "reset", detail)]
    found = []
    if end.seq > head.seq:
        detail = f"the archive ends at seq {end.seq} ({end.file}), past Redis's head at seq {head.seq}"
        found.append(Difference(shard, "beyond_head", detail, seq=end.seq, file=end.file))
    recorded = cast(bytes | None, client.hget(keys.archive, "seq"))
    recorded_epoch = cast(bytes | None, client.hget(keys.archive, "epoch"))
    writing = cast(bytes | None, client.hget(keys.archive, "writing"))
    writing_epoch = cast(bytes | None, client.hget(keys.archive, "writing_epoch"))
    if recorded and (not recorded_epoch or recorded_epoch.decode() == end.epoch):
        allowed = int(recorded)
        if writing and (not writing_epoch or writing_epoch.decode() == end.epoch):
            allowed = max(allowed, int(writing))  # the file the archiver said it writes, its progress to follow
        if end.seq > allowed:
            detail = f"the archive ends at seq {end.seq} ({end.file}), past the archiver's recorded seq {allowed}"
            found.append(Difference(shard, "beyond_progress", detail, seq=end.seq, file=end.file))
    return end, found


def chosen_shards(store: Store, only: Collection[str] | None) -> list[str]:
    """The shards ``audit replay`` proves (``--shard``), in the archive's order: every one (``only`` None), or those
    named; raises :class:`ArchiveError` naming the shards the archive holds when one named is not among them.

    Each shard's chains, dedupe map and ledgers are its own: a replay of some shards (a driver a shard,
    docs/scale.md) reports exactly their part of the whole run's differences, in its order. What no shard of the
    archive owns (a checkpoint line that cannot be read, a checkpoint of a shard the archive does not hold) is
    reported by every such run: it may be any shard's, and no driver passes over it."""
    names = shards(store)
    if only is None:
        return names
    unknown = sorted(set(only) - set(names))
    if unknown:
        held = ", ".join(names) if names else "none"
        raise ArchiveError(f"{store.url} holds no shard {', '.join(unknown)}: its shards are {held}")
    return [name for name in names if name in only]
