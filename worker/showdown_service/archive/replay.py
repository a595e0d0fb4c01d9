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
  file exists with that sha256, seq and hash; and every file is some
  checkpoint's (the last included): a file no checkpoint signs is
  ``uncheckpointed``;
* every column the recall, the read API and the requeue guard read, against
  the record and event it copies (``edited_column``, naming the column), and
  every key of the file's metadata against its rows (``file_metadata``);
* the Merkle log (:mod:`.tlog_audit`): every chain's root recomputed at each
  signed tree head's size and each kept tree's, every head's signature (with
  ``--public-key``), and a fork (two signed heads of one size, different
  roots) reported, in the archive's ``checkpoints/`` and the copy alike;
* online, that the archive goes no further than Redis's head
  (``beyond_head``) nor the archiver's recorded progress
  (``beyond_progress``).

Epochs: a shard's chain is identified by its first record's hash (its
*epoch*). When Redis lost its data the chain begins again at seq 1: the
archive then holds two chains of the shard side by side. Each is proven on
its own (files grouped by the epoch their metadata or name claims, else by
the hash each follows) and the restart is reported as a ``reset``, a notice,
not a difference; a file whose claimed epoch is not its chain's is an
``epoch_mismatch``.

Every difference is a :class:`Difference` (one JSON line of ``--report``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from cryptography.hazmat.primitives import serialization

from showdown_service import EVALUATOR
from showdown_service.archive import scale
from showdown_service.archive.chains import (
    NOTICES,
    Chain,
    ChainEnd,
    ChainFile,
    Difference,
    Sink,
    chains,
    chosen_shards,
    name_epoch,
    raw_meta,
)
from showdown_service.archive.checkpoints import load_public_key, read_checkpoints, signature_holds
from showdown_service.archive.columns import Walk, columns, dead_letter_fields, digests, file_meta
from showdown_service.archive.live import prove_live
from showdown_service.archive.note import Verifier
from showdown_service.archive.resettle import Resettler, prepare_rows
from showdown_service.archive.tlog_audit import check_log, copied_heads
from showdown_service.decision.audit import GENESIS, Head, as_written, record_hash
from showdown_service.decision.settling import Prepared
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import REDIS_ERRORS, Client
from showdown_service.storage.layout import CURSORS, ArchiveError, Store, open_store, read_rows, shard_files, shards

__all__ = ["NOTICES", "ChainEnd", "Difference", "Totals", "name_epoch", "replay"]


@dataclass(slots=True)
class Totals:
    files: int = 0
    entries: int = 0
    resettled: int = 0
    live_unchecked: str = ""
    """Why the live chain in Redis was not compared (Redis not reachable), or ""."""
    tree_heads: int = 0
    """Signed tree heads checked against the files' Merkle tree."""
    shards: tuple[str, ...] = ()
    """The shards proven; ``unproven``: the archive's others (with ``only``)."""
    unproven: tuple[str, ...] = ()


def replay(
    store: Store,
    settings: Settings,
    report: Sink,
    *,
    jobs: int = 1,
    engine: scale.Engine | None = None,
    client: Client | None = None,
    checkpoints: Path | None = None,
    public_key: Path | None = None,
    only: Collection[str] | None = None,
) -> Totals:
    """Prove the archive at ``store``; each difference goes to ``report``; returns what was walked. ``engine``:
    each file read and prepared on its cluster (:mod:`.scale`), proven here in chain order alike. ``only``: these
    shards alone (:func:`.chains.chosen_shards`), their part of the whole run (a driver a shard: docs/scale.md)."""
    names = chosen_shards(store, only)
    totals = Totals(shards=tuple(names), unproven=tuple(sorted(set(shards(store)) - set(names))))
    ends: dict[str, list[ChainEnd]] = {}
    if engine is not None:
        planned = scale.plan(store, names)
        gathered = scale.Gathered(engine.run(scale.jobs(store, settings, planned)))
        for one in planned:
            for difference in one.reports:
                report(difference)
            if one.error is not None:
                raise one.error
            ends[one.shard] = _replay_shard(store, settings, one.shard, report, totals, gathered, one.chains)
    elif jobs > 1 and len(names) > 1:  # shards are independent chains: one process each, reported in shard order
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
            for shard, chain_ends in ends.items():
                prove_live(client, store, settings.keys(shard), chain_ends, report)
        except REDIS_ERRORS as exc:  # not reachable: the archive is proven on its own
            totals.live_unchecked = f"{type(exc).__name__}: {exc}"
    if checkpoints is not None and public_key is not None:
        _checkpoints(store, checkpoints, public_key, report, names)
    verifier = None
    if public_key is not None:
        raw = load_public_key(public_key).public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        verifier = Verifier(settings.archive_log_name, raw)
    totals.tree_heads = check_log(
        store, settings.archive_log_name, report, verifier=verifier, copied=copied_heads(checkpoints),
        tsa_ca=settings.archive_tsa_ca, names=names,
    )  # fmt: skip
    return totals


def _shard_job(job: tuple[str, Settings, str]) -> tuple[list[Difference], Totals, list[ChainEnd]]:
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
    return rows, prepare_rows(rows, settings)


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


# --- one shard ---------------------------------------------------------------------------------------------


def _replay_shard(  # noqa: PLR0917
    store: Store,
    settings: Settings,
    shard: str,
    report: Sink,
    totals: Totals,
    pool: Any,
    listed: list[Chain] | None = None,
) -> list[ChainEnd]:
    """Walk one shard's chains (``listed``: as listed already), each on its own, in the order they began; returns
    where each ends."""
    ends: list[ChainEnd] = []
    previous: Resettler | None = None
    for chain in chains(store, shard, report) if listed is None else listed:
        if ends:
            last = ends[-1]
            detail = (
                f"the chain restarted: epoch {last.epoch[:16] or '?'} archived to seq {last.seq}, epoch "
                f"{chain.epoch[:16] or '?'} began at {chain.began or '?'}; each is proven on its own"
            )
            report(Difference(shard, "reset", detail, seq=1, file=chain.files[0].path))
        resettler = Resettler(settings, shard)
        if previous is not None:  # what the archive knew when the new chain began: its dedupe and ledgers
            resettler.twin.seen, resettler.twin.book = previous.twin.seen, previous.twin.book
        ends.append(_replay_chain(store, settings, chain, resettler, report, totals, pool))
        previous = resettler
    return ends


def _replay_chain(  # noqa: PLR0917
    store: Store, settings: Settings, chain: Chain, resettler: Resettler, report: Sink, totals: Totals, pool: Any
) -> ChainEnd:
    """Walk one chain's files in seq order, row by row; returns where it ends."""
    shard = resettler.keys.shard
    walk = Walk(Head(0, GENESIS))
    jobs = [(store.url, file.path, settings) for file in chain.files]  # pickled whole: secrets included
    if isinstance(pool, scale.Gathered):  # --engine: read and prepared on the cluster, already submitted
        results: Iterator[Any] = pool.files(chain.files)
    elif isinstance(pool, _Inline):
        results = map(_prepare_file, jobs)
    else:
        results = (
            _loaded(store, file.path, done)
            for file, done in zip(chain.files, pool.map(_prepared_only, jobs), strict=True)
        )
    newest: ChainFile | None = None
    for file, loaded in zip(chain.files, results, strict=True):
        totals.files += 1
        if isinstance(loaded, str):
            report(Difference(shard, "unreadable_file", loaded, file=file.path))
            continue
        rows, prepared = loaded
        file_meta(shard, file, rows, walk, report)
        for number, (row, ready) in enumerate(zip(rows, prepared, strict=True)):
            totals.entries += 1
            walk.previous = _prove_row(row, ready, walk, resettler, report, file.path, number)
            totals.resettled += ready is not None
        newest = file
    if resettler.skipped:
        detail = (f"{resettler.skipped} tournament entries after the gap at seq {resettler.gap_at} were not "
                  "re-settled: their ledgers need the missing entries")  # fmt: skip
        report(Difference(shard, "not_resettled", detail, seq=resettler.gap_at))
        totals.resettled -= resettler.skipped
    meta = (newest.meta if newest is not None else None) or {}
    return ChainEnd(chain.epoch, walk.previous.seq, walk.previous.hash, chain.began, newest.path if newest else "",
                    {name: meta.get(name, "") for name in CURSORS},
                    tuple((f.first, f.last, f.path) for f in chain.files))  # fmt: skip


def _prove_row(  # noqa: PLR0917 - one check after another, each reported
    row: dict[str, Any],
    prepared: Prepared | None,
    walk: Walk,
    resettler: Resettler,
    report: Sink,
    path: str,
    number: int,
) -> Head:
    shard = resettler.keys.shard
    previous = walk.previous

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
    if entry_id in walk.seen_entries:
        diff("repeated", f"entry {entry_id} was archived before")
    walk.seen_entries.add(entry_id)
    columns(shard, row, record, walk, diff)
    digests(row, record, diff)
    if prepared is None:
        diff("unreadable_row", "the entry could not be prepared again")
        return Head(seq, claimed)
    dead_letter_fields(row, record, prepared, diff)
    if prepared.event_sha256 != record.get("event_sha256") and row.get("event_field") is not None:
        diff("event_digest", "the archived event does not hash to the record's event_sha256")
    if prepared.tournament_id is not None and resettler.gap_at is not None:
        resettler.skipped += 1  # its ledger needs the missing entries: digests and chain proven, not re-settled
        return Head(seq, claimed)
    decided = resettler.decide(prepared, record)
    again = as_written(decided.record, record)  # a record written before the table and tournament ids: without
    if again != record:
        changed = sorted(k for k in again.keys() | record.keys() if again.get(k) != record.get(k))
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


def _other_version(row: dict[str, Any]) -> bool:
    try:
        return bool(row.get("result")) and orjson.loads(row["result"]).get("evaluator") != EVALUATOR
    except orjson.JSONDecodeError:
        return False


def _checkpoints(store: Store, path: Path, public_key: Path, report: Sink, names: list[str]) -> None:
    """The checkpoints of the shards ``names`` and of no shard of the archive proven; each file of ``names`` signed."""
    key, every = load_public_key(public_key), shards(store)
    signed: set[str] = set()
    for number, checkpoint, why in read_checkpoints(path):
        where = f"{path}:{number}"
        if checkpoint is None:
            report(Difference("", "checkpoint_unreadable", f"{where}: {why}"))
            continue
        shard = str(checkpoint.get("shard", ""))
        if shard not in names and shard in every:  # another shard's: its own run proves it
            continue
        if not signature_holds(key, checkpoint):
            report(Difference(shard, "checkpoint_signature", f"{where}: the signature does not hold"))
            continue
        file = store.path(str(checkpoint.get("file", "")))
        signed.add(file)  # signed: a file that is not what was signed is reported below, as such
        try:
            with store.fs.open_input_file(file) as handle:
                digest = hashlib.sha256(handle.read()).hexdigest()
            meta = raw_meta(store, file)
        except (OSError, ArchiveError) as exc:
            report(Difference(shard, "checkpoint_file", f"{where}: its file {file} cannot be read: {exc}", file=file))
            continue
        if digest != checkpoint.get("sha256"):
            report(Difference(shard, "checkpoint_file", f"{where}: {file} is not the file signed", file=file))
            continue
        if (meta.get("last_seq"), meta.get("last_hash")) != (str(checkpoint.get("last_seq")), checkpoint.get(
                "last_hash")):  # fmt: skip
            report(Difference(shard, "checkpoint_file", f"{where}: {file} ends elsewhere in the chain", file=file))
    for shard in names:
        for first, last, file in shard_files(store, shard):
            if file not in signed:
                detail = f"no checkpoint of {path} signs {file} (seq {first}-{last}): a file appended, or a lost one"
                report(Difference(shard, "uncheckpointed", detail, seq=last, file=file))
