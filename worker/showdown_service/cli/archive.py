"""CLI commands of the archive: ``archiver``, ``hand``, ``archive query|export|keygen|verifier-key|cosign`` and ``audit
replay``.

Why over 400 lines: the archive's eight verbs, argparse and printing only (their work is in ``archive/``, ``storage/``).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import signal
import sys
from datetime import date
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, TypeAlias

import orjson

from showdown_service.cli.proof import register_log_verbs
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import connect
from showdown_service.infra.stops import STOP_REQUESTED

if TYPE_CHECKING:
    from showdown_service.archive.replay import Difference
    from showdown_service.storage.recall import HandFound

EXPORT_FORMATS = ("jsonl", "csv", "parquet", "phh", "ohh")
"""(pyarrow, DuckDB and the archive's modules are imported by the commands that need them: every other
``showdown`` command starts as fast as before.)"""

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
ARCHIVER_HELP = """\
Run the archiver: move every settled entry of each shard (its event, result or dead letter, audit
record and placements) into write-once Parquet files, in the audit chain's order, record how far it
has archived in Redis, and trim the streams to about SHOWDOWN_ARCHIVE_KEEP entries once archived.
One archiver holds each shard at a time (a lease; a killed one's shards are taken over after
SHOWDOWN_ARCHIVE_LOCK_TTL_S). Runs until SIGTERM or Ctrl-C, then writes what it holds and exits 0.

Reads: SHOWDOWN_ARCHIVE_URL (a directory, or s3://bucket/prefix with the S3 endpoint, region and keys:
`showdown settings | grep S3`), SHOWDOWN_ARCHIVE_FILE_ROWS, SHOWDOWN_ARCHIVE_INTERVAL_S (longest
wait for a file), SHOWDOWN_ARCHIVE_SIGNING_KEY and SHOWDOWN_ARCHIVE_CHECKPOINTS_COPY (signed checkpoints),
SHOWDOWN_REDIS_URL and its credentials, SHOWDOWN_SHARDS, SHOWDOWN_METRICS_PORT (Prometheus /metrics;
0: off), SHOWDOWN_HEARTBEAT_FILE, and the rest that `showdown settings` lists."""
ARCHIVER_EXAMPLE = """\
example:
  SHOWDOWN_ARCHIVE_URL=/var/lib/showdown/archive SHOWDOWN_HEARTBEAT_FILE=/tmp/archiver.hb showdown archiver"""
HAND_HELP = """\
Find a hand by its hand_id: first in Redis (each shard's audit stream, newest first, joined to the
entry's event, result and dead letter), then in the archive; print where it was found and its event,
result, dead letter and audit record. An event Redis has trimmed already is read from the archive.
With --history, print the hand as a hand history instead (PHH or Open Hand History, from the event's
play and the result; exit 2 naming why when it cannot be). Exit 1 if neither holds the hand.

Reads: SHOWDOWN_REDIS_URL and its credentials, SHOWDOWN_SHARDS, SHOWDOWN_KEY_PREFIX,
SHOWDOWN_ARCHIVE_URL (and the S3 endpoint, region and keys for an s3:// archive)."""
HAND_EXAMPLE = """\
example:
  SHOWDOWN_ARCHIVE_URL=/var/lib/showdown/archive showdown hand T-0042 --json"""


def register(commands: Commands) -> None:
    """Add ``archiver``, ``hand`` and ``archive`` to the ``showdown`` parser."""
    a = commands.add_parser(
        "archiver",
        help="move every settled entry into Parquet files until SIGTERM/SIGINT",
        description=ARCHIVER_HELP,
        epilog=ARCHIVER_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    a.set_defaults(run=_archiver, finishes_on_stop=True)

    h = commands.add_parser(
        "hand",
        help="find a hand in Redis or the archive: its event, result, audit record",
        description=HAND_HELP,
        epilog=HAND_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    h.add_argument("hand_id", metavar="HAND_ID", help="the hand's hand_id, as its event gave it")
    h.add_argument("--json", action="store_true", help="one JSON object")
    h.add_argument("--history", nargs="?", const="phh", choices=("phh", "ohh"), help="print the hand as a hand "
                   "history instead: PHH (the default) or Open Hand History; needs the event's play")  # fmt: skip
    h.set_defaults(run=_hand)

    ar = commands.add_parser("archive", help="query or export the archive (SHOWDOWN_ARCHIVE_URL)")
    verbs = ar.add_subparsers(required=True, metavar="VERB")
    q = verbs.add_parser("query", help="DuckDB SQL over the views entries and placements")
    q.add_argument("sql", metavar="SQL")
    shape = q.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="one JSON object a row")
    shape.add_argument("--csv", action="store_true", help="CSV with a header")
    q.set_defaults(run=_query)
    e = verbs.add_parser("export", help="every entry settled between two UTC days, for a regulator")
    e.add_argument("--from", dest="day_from", type=_day, required=True, metavar="DATE", help="first day (YYYY-MM-DD)")
    e.add_argument("--to", dest="day_to", type=_day, required=True, metavar="DATE", help="last day, included")
    e.add_argument("--format", choices=EXPORT_FORMATS, default="jsonl", help="jsonl, csv, parquet: the entries; "
                   "phh (one .phhs), ohh (Open Hand History): each settled hand with its play")  # fmt: skip
    e.add_argument("--out", type=Path, help="file to write (stdout for jsonl and csv when absent)")
    e.set_defaults(run=_export)
    k = verbs.add_parser("keygen", help="write a new Ed25519 key pair for signed checkpoints")
    k.add_argument("private", type=Path, metavar="PRIVATE_PEM")
    k.add_argument("public", type=Path, metavar="PUBLIC_PEM")
    k.set_defaults(run=_keygen)
    register_log_verbs(verbs)  # verifier-key, cosign: the Merkle log's keys (cli/proof.py)


def _log_place(found: HandFound, settings: Settings) -> str:
    """Where the hand's entry sits in its shard's Merkle log (:func:`.proof.log_place`)."""
    from showdown_service.cli.proof import log_place  # noqa: PLC0415

    return log_place(settings, found.shard, found.seq, found.entry_id, found.hand_id)


def register_audit(verbs: Commands) -> None:
    """Add ``audit replay`` beside ``audit verify``."""
    r = verbs.add_parser("replay", help="re-settle and prove every archived entry; exit 0 only if all holds")
    r.add_argument("archive", metavar="ARCHIVE", help="the archive: a directory or s3://bucket/prefix")
    r.add_argument("--report", type=Path, help="write each difference as one JSON line here")
    r.add_argument("--jobs", type=int, default=1, help="processes preparing entries (default 1)")
    r.add_argument("--engine", choices=("dask",), help="read and prepare each file on a Dask cluster (the [scale] "
                   "extra): one of --jobs processes on 127.0.0.1, or --scheduler's")  # fmt: skip
    r.add_argument("--scheduler", metavar="ADDRESS", help="with --engine: an existing cluster (tcp://host:8786)")
    r.add_argument("--checkpoints", type=Path, help="signed checkpoints (JSON lines) to prove the archive against")
    r.add_argument("--public-key", type=Path, help="the archiver's Ed25519 public key (PEM), with --checkpoints")
    r.add_argument("--offline", action="store_true", help="do not compare with Redis's live chain")
    r.add_argument("--shard", action="append", type=_shard_names, metavar="NAME", help="prove this shard only "
                   "(repeat, or NAME,NAME): its part of the whole run; a driver a shard (docs/scale.md)")  # fmt: skip
    r.set_defaults(run=_replay)


def _shard_names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"{text!r}: a shard's name, or names separated by commas, none empty")
    return names


def _day(text: str) -> str:
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a day such as 2026-11-25") from None


def _archiver(_args: argparse.Namespace) -> int:
    from showdown_service.archive.archiver import Archiver  # noqa: PLC0415
    from showdown_service.archive.metrics import ArchiveMetrics, serve_metrics  # noqa: PLC0415
    from showdown_service.infra import logs  # noqa: PLC0415
    from showdown_service.ops import heartbeat  # noqa: PLC0415
    from showdown_service.storage.layout import open_store  # noqa: PLC0415

    settings = Settings()
    logs.configure(settings.log_level)
    beating = heartbeat.claim(settings.archiver_heartbeat, heartbeat.ARCHIVER)  # its own file, held until it ends
    metrics = ArchiveMetrics()
    if settings.archiver_metrics_port:  # its own port: never the workers'
        serve_metrics(metrics, settings.archiver_metrics_port)
    archiver = Archiver(settings, connect(settings, name=f"{settings.consumer}-archiver"), open_store(
        settings.archive_url, settings), metrics=metrics)  # fmt: skip

    def stop(_signum: int, _frame: FrameType | None) -> None:
        archiver.stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if STOP_REQUESTED.is_set():
        archiver.stop()
    archiver.run()
    beating.close()
    return 0


def _hand(args: argparse.Namespace) -> int:
    from showdown_service.read.hands import find  # noqa: PLC0415

    settings = Settings()
    found = find(settings, args.hand_id, lambda: connect(settings), lambda line: print(line, file=sys.stderr))
    if found is None:
        print(f"hand {args.hand_id} is neither in Redis nor in the archive ({settings.archive_url})", file=sys.stderr)
        return 1
    if args.history:
        from showdown_service.cli.history import print_history  # noqa: PLC0415

        return print_history(args.history, found.event, found.result)
    if args.json:
        print(orjson.dumps(found.document()).decode())
        return 0
    print(
        f"hand {found.hand_id}: found in {found.where} (shard {found.shard}, entry {found.entry_id}, seq {found.seq})"
    )
    if found.result is not None and isinstance(currency := found.result.get("currency"), str):
        print(f"  currency: {currency} (every amount in its minor unit)")
    for name in ("event", "result", "dead_letter", "audit"):
        value = getattr(found, name)
        print(f"  {name}: {orjson.dumps(value).decode() if value is not None else '(none)'}")
    print(f"  log: {_log_place(found, settings)}")
    return 0


def _query(args: argparse.Namespace) -> int:
    import duckdb  # noqa: PLC0415

    from showdown_service.storage.layout import open_store  # noqa: PLC0415
    from showdown_service.storage.recall import query as run_query  # noqa: PLC0415

    settings = Settings()
    try:
        columns, rows = run_query(open_store(settings.archive_url, settings), args.sql)
    except duckdb.Error as exc:
        print(f"showdown archive query: {exc}", file=sys.stderr)
        return 2
    if args.csv:
        writer = csv.writer(sys.stdout)
        writer.writerow(columns)
        writer.writerows(rows)
    elif args.json:
        for row in rows:
            print(orjson.dumps(dict(zip(columns, row, strict=True)), default=str).decode())
    else:
        print("\t".join(columns))
        for row in rows:
            print("\t".join("" if v is None else str(v) for v in row))
    return 0


def _export(args: argparse.Namespace) -> int:
    if args.day_from > args.day_to:
        print(f"--from {args.day_from} is after --to {args.day_to}", file=sys.stderr)
        return 2
    if args.format == "parquet" and args.out is None:
        print("--format parquet needs --out FILE", file=sys.stderr)
        return 2
    from showdown_service.storage.layout import open_store  # noqa: PLC0415
    from showdown_service.storage.recall import connect as connect_archive  # noqa: PLC0415
    from showdown_service.storage.recall import export_sql  # noqa: PLC0415

    settings = Settings()
    con = connect_archive(open_store(settings.archive_url, settings))
    sql = export_sql(args.day_from, args.day_to)
    try:
        if args.format in ("phh", "ohh"):
            from showdown_service.cli.history import export_histories  # noqa: PLC0415

            return export_histories(con, sql, args.format, args.out)
        if args.format == "parquet":
            con.sql(sql).write_parquet(str(args.out), compression="zstd")
            return 0
        relation = con.execute(sql)
        columns = [d[0] for d in relation.description or []]
        out = args.out.open("w", encoding="utf-8", newline="") if args.out else sys.stdout
        try:
            writer = csv.writer(out) if args.format == "csv" else None
            if writer is not None:
                writer.writerow(columns)
            while batch := relation.fetchmany(10_000):
                for row in batch:
                    if writer is not None:
                        writer.writerow(row)
                    else:
                        out.write(orjson.dumps(dict(zip(columns, row, strict=True))).decode() + "\n")
        finally:
            if args.out:
                out.close()
    finally:
        con.close()
    return 0


def _keygen(args: argparse.Namespace) -> int:
    from showdown_service.archive.checkpoints import new_key_pair  # noqa: PLC0415

    for path in (args.private, args.public):
        if path.exists():
            print(f"{path} exists: not overwritten", file=sys.stderr)
            return 2
    new_key_pair(args.private, args.public)
    print(
        f"private key {args.private} (mode 0600: the archiver's SHOWDOWN_ARCHIVE_SIGNING_KEY); public key {args.public}"
    )
    return 0


def _replay(args: argparse.Namespace) -> int:
    from showdown_service.archive.chains import chosen_shards  # noqa: PLC0415
    from showdown_service.archive.replay import NOTICES, replay  # noqa: PLC0415
    from showdown_service.archive.scale import EngineMissing  # noqa: PLC0415
    from showdown_service.storage.layout import ArchiveError, open_store  # noqa: PLC0415

    if (args.checkpoints is None) != (args.public_key is None):
        print("--checkpoints and --public-key go together", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print("--jobs: give 1 or more", file=sys.stderr)
        return 2
    if args.scheduler and not args.engine:
        print("--scheduler goes with --engine dask", file=sys.stderr)
        return 2
    settings = Settings()
    only = None if args.shard is None else {name for names in args.shard for name in names}
    try:
        store = open_store(args.archive, settings)
        chosen_shards(store, only)  # an unknown shard is refused before a cluster is started or a report written
    except ArchiveError as exc:
        print(f"showdown audit replay: {exc}", file=sys.stderr)
        return 2
    client = None if args.offline else connect(settings)  # connects lazily: Redis is asked only at the end
    found: list[Difference] = []
    resets: list[Difference] = []
    report = args.report.open("wb") if args.report else None

    def sink(difference: Difference) -> None:
        if report is not None:
            report.write(difference.line() + b"\n")
        if difference.kind in NOTICES:  # a chain restart: each epoch is proven on its own
            resets.append(difference)
            print(f"RESET shard {difference.shard}: {difference.detail}")
            return
        found.append(difference)
        where = (
            f" {difference.file}" + (f" row {difference.row}" if difference.row is not None else "")
            if difference.file
            else ""
        )
        print(f"DIFFERENCE shard {difference.shard} seq {difference.seq} hand {difference.hand_id}{where}: "
              f"{difference.kind}: {difference.detail}")  # fmt: skip

    try:
        with contextlib.ExitStack() as stack:
            engine = None
            if args.engine:
                from showdown_service.archive.scale import DaskEngine  # noqa: PLC0415

                engine = stack.enter_context(DaskEngine(args.scheduler, workers=args.jobs))
            totals = replay(
                store,
                settings,
                sink,
                jobs=args.jobs,
                engine=engine,
                client=client,
                checkpoints=args.checkpoints,
                public_key=args.public_key,
                only=only,
            )
    except (ArchiveError, EngineMissing) as exc:
        print(f"showdown audit replay: {exc}", file=sys.stderr)
        return 2
    finally:
        if report is not None:
            report.close()
    if totals.live_unchecked:
        print(f"Redis not reachable, the live chain was not compared: {totals.live_unchecked}", file=sys.stderr)
    if totals.tree_heads:
        print(f"{totals.tree_heads} signed tree heads checked against the Merkle tree of the files")
    if only is not None:
        others = f"; not proven: {', '.join(totals.unproven)}" if totals.unproven else "; no other shard"
        print(f"shards proven: {', '.join(totals.shards)}{others}")
    verdict = "every entry holds" if not found else f"{len(found)} difference{'s' if len(found) != 1 else ''}"
    if resets:
        verdict += f"; the chain restarted {len(resets)} time{'s' if len(resets) != 1 else ''} (RESET above)"
    print(f"{totals.files} files, {totals.entries} entries, {totals.resettled} re-settled: {verdict}")
    return 1 if found else 0
