"""``showdown audit replay ARCHIVE``: prove every archived entry, in chain order, with this code.

For each shard, file by file in seq order, row by row, it proves:

* the file: readable, its name, metadata and rows agree (first/last seq), and
  it follows the previous file (seq and hash): a deleted file is a gap;
* each row: its audit record hashes to its ``hash`` and follows its
  predecessor (``prev_hash``, ``seq``): an edited record, a deleted row or two
  rows swapped break it; no seq and no entry id appears twice;
* its texts: the event re-prepared by the worker's own code digests to the
  record's ``event_sha256``; the result and standings hash to
  ``result_sha256`` and ``standings_sha256``; the dead letter's code is the
  record's;
* its decision: re-settled through :mod:`.resettle` (the worker's preparation
  and decision), the record, the result (byte for byte: ``settled_at`` is fed
  back in), the placements and the dead letter's code and message are the
  archived ones. A result written by another version of the evaluator that
  re-settles differently is reported as ``other_version``;
* the live chain in Redis, when reachable: the archive's last record is Redis's
  record of that seq (or the one Redis's first record follows), and the archive
  reaches the archiver's recorded progress;
* with ``--checkpoints``, every signed checkpoint: its signature, and that its
  file exists with that sha256, seq and hash.

Every difference is a :class:`Difference` (one JSON line of ``--report``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

import orjson

from showdown_service import EVALUATOR
from showdown_service.archive.checkpoints import load_public_key, read_checkpoints, signature_holds
from showdown_service.archive.layout import ArchiveError, Store, open_store, read_meta, read_rows, shard_files, shards
from showdown_service.archive.resettle import Resettler, prepare_row
from showdown_service.audit import GENESIS, Head, read_stream, record_hash, sha256_hex
from showdown_service.config import Settings
from showdown_service.connection import REDIS_ERRORS, Client
from showdown_service.settling import Prepared


@dataclass(frozen=True, slots=True)
class Difference:
    """One thing that does not hold."""

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


@dataclass(slots=True)
class Totals:
    files: int = 0
    entries: int = 0
    resettled: int = 0
    live_unchecked: str = ""
    """Why the live chain in Redis was not compared (Redis not reachable), or ""."""


Sink = Callable[[Difference], None]


def replay(
    store: Store,
    settings: Settings,
    report: Sink,
    *,
    jobs: int = 1,
    client: Client | None = None,
    checkpoints: Path | None = None,
    public_key: Path | None = None,
) -> Totals:
    """Prove the archive at ``store``; each difference goes to ``report``; returns what was walked."""
    totals = Totals()
    ends: dict[str, tuple[int, str]] = {}
    names = shards(store)
    if jobs > 1 and len(names) > 1:  # shards are independent chains: one process each, reported in shard order
        with ProcessPoolExecutor(max_workers=min(jobs, len(names))) as pool:
            for shard, (found, walked, end) in zip(
                names, pool.map(_shard_job, [(store.url, settings, shard) for shard in names]), strict=True
            ):
                for difference in found:
                    report(difference)
                totals.files += walked.files
                totals.entries += walked.entries
                totals.resettled += walked.resettled
                ends[shard] = end
    else:
        with ProcessPoolExecutor(max_workers=jobs) if jobs > 1 else _Inline() as pool:
            for shard in names:
                ends[shard] = _replay_shard(store, settings, shard, report, totals, pool)
    if client is not None:
        try:
            for shard, end in ends.items():
                _live(client, settings, shard, end, report)
        except REDIS_ERRORS as exc:  # not reachable: the archive is proven on its own
            totals.live_unchecked = f"{type(exc).__name__}: {exc}"
    if checkpoints is not None and public_key is not None:
        _checkpoints(store, checkpoints, public_key, report)
    return totals


def _shard_job(job: tuple[str, Settings, str]) -> tuple[list[Difference], Totals, tuple[int, str]]:
    """One shard's whole replay, in a ``--jobs`` process: its differences, what it walked, where it ends."""
    url, settings, shard = job
    found: list[Difference] = []
    totals = Totals()
    end = _replay_shard(open_store(url, settings), settings, shard, found.append, totals, _Inline())
    return found, totals, end


class _Inline:
    """A stand-in for a process pool: maps in this process."""

    def __enter__(self) -> _Inline:
        return self

    def __exit__(self, *_: object) -> None:
        return None

    def map(self, fn: Callable[..., Any], *iterables: Any) -> Iterator[Any]:
        return map(fn, *iterables)


def _prepare_file(job: tuple[str, str, Settings]) -> tuple[list[dict[str, Any]], list[Prepared | None]] | str:
    """Read one file and prepare each row (the CPU-heavy half)."""
    url, path, settings = job
    try:
        rows = read_rows(open_store(url, settings), path).to_pylist()
    except ArchiveError as exc:
        return str(exc)
    prepared: list[Prepared | None] = []
    for row in rows:
        try:
            record = orjson.loads(row["audit"] or "null")
        except orjson.JSONDecodeError:
            record = None
        prepared.append(prepare_row(row, record, settings) if isinstance(record, dict) else None)
    return rows, prepared


def _prepared_only(job: tuple[str, str, Settings]) -> list[Prepared | None] | str:
    """:func:`_prepare_file` in a ``--jobs`` process: only the preparations travel back (the rows are read again
    by the caller, in C, rather than pickled)."""
    loaded = _prepare_file(job)
    return loaded if isinstance(loaded, str) else loaded[1]


def _loaded(
    store: Store, path: str, done: list[Prepared | None] | str
) -> tuple[list[dict[str, Any]], list[Prepared | None]] | str:
    if isinstance(done, str):
        return done
    try:
        return read_rows(store, path).to_pylist(), done
    except ArchiveError as exc:
        return str(exc)


def _replay_shard(  # noqa: PLR0917
    store: Store, settings: Settings, shard: str, report: Sink, totals: Totals, pool: Any
) -> tuple[int, str]:
    """Walk one shard's files; returns the (seq, hash) the archive ends at."""
    resettler = Resettler(settings, shard)
    previous = Head(0, GENESIS)
    seen_entries: set[str] = set()
    files = shard_files(store, shard)
    jobs = [(store.url, path, settings) for _, _, path in files]  # pickled whole: secrets included
    if isinstance(pool, _Inline):
        results: Iterator[Any] = map(_prepare_file, jobs)
    else:
        results = (
            _loaded(store, path, done) for (_, _, path), done in zip(files, pool.map(_prepared_only, jobs), strict=True)
        )
    for (first, last, path), loaded in zip(files, results, strict=True):
        totals.files += 1
        if isinstance(loaded, str):
            report(Difference(shard, "unreadable_file", loaded, file=path))
            continue
        rows, prepared = loaded
        try:
            meta = read_meta(store, path)
            if (meta.first_seq, meta.last_seq) != (first, last) or meta.shard != shard:
                detail = f"its name says seq {first}-{last}, its metadata {meta.first_seq}-{meta.last_seq}"
                report(Difference(shard, "file_metadata", detail, file=path))
        except ArchiveError as exc:
            report(Difference(shard, "file_metadata", str(exc), file=path))
        if rows and (rows[0]["seq"], rows[-1]["seq"]) != (first, last):
            detail = f"its name says seq {first}-{last}, its rows hold {rows[0]['seq']}-{rows[-1]['seq']}"
            report(Difference(shard, "file_rows", detail, file=path))
        for number, (row, ready) in enumerate(zip(rows, prepared, strict=True)):
            totals.entries += 1
            previous = _prove_row(row, ready, previous, resettler, seen_entries, report, path, number)
            totals.resettled += ready is not None
    if resettler.skipped:
        detail = (f"{resettler.skipped} tournament entries after the gap at seq {resettler.gap_at} were not "
                  "re-settled: their ledgers need the missing entries")  # fmt: skip
        report(Difference(shard, "not_resettled", detail, seq=resettler.gap_at))
        totals.resettled -= resettler.skipped
    return previous.seq, previous.hash


def _prove_row(  # noqa: PLR0917 - one check after another, each reported
    row: dict[str, Any],
    prepared: Prepared | None,
    previous: Head,
    resettler: Resettler,
    seen_entries: set[str],
    report: Sink,
    path: str,
    number: int,
) -> Head:
    shard = resettler.keys.shard

    def diff(kind: str, detail: str) -> None:
        report(Difference(shard, kind, detail, row.get("hand_id"), row.get("entry_id"), row.get("seq"), path, number))

    try:
        record = orjson.loads(row["audit"] or "null")
        seq, claimed = int(record["seq"]), str(record["hash"])
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        diff("unreadable_row", f"its audit record cannot be read: {exc}")
        return previous
    if record_hash(record) != claimed:
        diff("edited_audit", "the audit record does not match its own hash")
    if seq != row["seq"] or record.get("entry_id") != row["entry_id"]:
        diff(
            "row_mismatch",
            f"the row says seq {row['seq']} entry {row['entry_id']}, its record {seq} {record.get('entry_id')}",
        )
    if seq <= previous.seq:
        diff("repeated", f"seq {seq} comes after seq {previous.seq}: archived twice, or rows out of order")
        return previous
    if seq > previous.seq + 1:
        diff("missing", f"seqs {previous.seq + 1}..{seq - 1} are not in the archive")
        if resettler.gap_at is None:
            resettler.gap_at = previous.seq + 1
    elif record.get("prev_hash") != previous.hash:
        diff("chain_break", f"seq {seq} does not follow the hash of seq {previous.seq}")
    entry_id = str(record.get("entry_id"))
    if entry_id in seen_entries:
        diff("repeated", f"entry {entry_id} was archived before")
    seen_entries.add(entry_id)
    _digests(row, record, diff)
    if prepared is None:
        diff("unreadable_row", "the entry could not be prepared again")
        return Head(seq, claimed)
    if prepared.event_sha256 != record.get("event_sha256") and row.get("event_field") is not None:
        diff("event_digest", "the archived event does not hash to the record's event_sha256")
    if prepared.tournament_id is not None and resettler.gap_at is not None:
        resettler.skipped += 1  # its ledger needs the missing entries: digests and chain proven, not re-settled
        return Head(seq, claimed)
    decided = resettler.decide(prepared, record)
    if decided.record != record:
        changed = sorted(k for k in decided.record.keys() | record.keys() if decided.record.get(k) != record.get(k))
        kind = "other_version" if _other_version(row) else "resettled_differs"
        diff(kind, f"re-settled, the audit record differs in: {', '.join(changed)}")
    elif row.get("result") is not None and decided.result is not None and decided.result != row["result"].encode():
        diff("resettled_result", "re-settled, the result differs from the archived one")
    if (
        decided.standings is not None
        and row.get("standings") is not None
        and decided.standings != row["standings"].encode()
    ):
        diff("resettled_standings", "re-settled, the placements differ from the archived ones")
    if row.get("dead_letter") is not None and decided.message is not None:
        message = orjson.loads(row["dead_letter"]).get("message")
        if message != decided.message and decided.code != "poison":
            diff("dead_letter", f"the dead letter says {message!r}; re-settled: {decided.message!r}")
    return Head(seq, claimed)


def _digests(row: dict[str, Any], record: dict[str, Any], diff: Callable[[str, str], None]) -> None:
    """The archived texts against the record's digests."""
    if record.get("result_sha256"):
        if row.get("result") is None:
            diff("result_missing", "the record has a result_sha256 but the archive no result")
        elif sha256_hex(row["result"].encode()) != record["result_sha256"]:
            diff("result_digest", "the archived result does not hash to the record's result_sha256")
    elif row.get("result") is not None:
        diff("result_digest", "the archive has a result the record does not name")
    if record.get("standings_sha256"):
        if row.get("standings") is None:
            diff("standings_missing", "the record has a standings_sha256 but the archive no placements")
        elif sha256_hex(row["standings"].encode()) != record["standings_sha256"]:
            diff("standings_digest", "the archived placements do not hash to the record's standings_sha256")
    if record.get("code"):
        if row.get("dead_letter") is None:
            diff("dead_letter_missing", f"the record names code {record['code']} but the archive has no dead letter")
        elif orjson.loads(row["dead_letter"]).get("code") != record["code"]:
            diff("dead_letter", f"the dead letter's code is not the record's ({record['code']})")
    if row.get("event") is None and row.get("event_bytes") is None:
        diff("event_missing", "the entry's event was gone from Redis when it was archived")


def _other_version(row: dict[str, Any]) -> bool:
    try:
        return bool(row.get("result")) and orjson.loads(row["result"]).get("evaluator") != EVALUATOR
    except orjson.JSONDecodeError:
        return False


def _live(client: Client, settings: Settings, shard: str, end: tuple[int, str], report: Sink) -> None:
    """The archive's end against Redis's live chain and the archiver's recorded progress."""
    keys = settings.keys(shard)
    seq, last_hash = end
    recorded = int(cast(bytes | None, client.hget(keys.archive, "seq")) or 0)
    if recorded > seq:
        detail = f"the archiver recorded seq {recorded} archived, the archive ends at seq {seq}"
        report(Difference(shard, "missing", detail, seq=seq + 1))
    for stream_id, raw in read_stream(client, keys.audit):
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        live_seq = int(body.get("seq", 0))
        if live_seq == seq and body.get("hash") != last_hash:
            report(
                Difference(shard, "live_chain", f"Redis's record seq {seq} ({stream_id}) is not the archive's", seq=seq)
            )
        if live_seq == seq + 1 and body.get("prev_hash") != last_hash:
            detail = f"Redis's record seq {seq + 1} ({stream_id}) does not follow the archive's last hash"
            report(Difference(shard, "live_chain", detail, seq=seq + 1))
        if live_seq > seq:
            return


def _checkpoints(store: Store, path: Path, public_key: Path, report: Sink) -> None:
    key = load_public_key(public_key)
    for number, checkpoint, why in read_checkpoints(path):
        where = f"{path}:{number}"
        if checkpoint is None:
            report(Difference("", "checkpoint_unreadable", f"{where}: {why}"))
            continue
        shard = str(checkpoint.get("shard", ""))
        if not signature_holds(key, checkpoint):
            report(Difference(shard, "checkpoint_signature", f"{where}: the signature does not hold"))
            continue
        file = store.path(str(checkpoint.get("file", "")))
        try:
            with store.fs.open_input_file(file) as handle:
                digest = hashlib.sha256(handle.read()).hexdigest()
            meta = read_meta(store, file)
        except (OSError, ArchiveError) as exc:
            report(Difference(shard, "checkpoint_file", f"{where}: its file {file} cannot be read: {exc}", file=file))
            continue
        if digest != checkpoint.get("sha256"):
            report(Difference(shard, "checkpoint_file", f"{where}: {file} is not the file signed", file=file))
        if (meta.last_seq, meta.last_hash) != (checkpoint.get("last_seq"), checkpoint.get("last_hash")):
            report(Difference(shard, "checkpoint_file", f"{where}: {file} ends elsewhere in the chain", file=file))
