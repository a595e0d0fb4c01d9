"""``showdown replay PATH... [--report FILE] [--emit-events FILE] [--jobs N] [--tournaments PATH...
[--tournament-report FILE]] [--rake-schedule FILE|ID]``.

Exit status: 0 when every hand read matched the rules or could not be
decided by its history (unverifiable); 1 when any recorded payout differs
from the rules (a mismatch), a hand could not be read (malformed), a hand's
chips out are not its chips in (unbalanced) or, with ``--rake-schedule``, a
hand was raked otherwise than the schedule posts (``rake_mismatch``); 2 for
a misused command (or a schedule that cannot be read). With
``--tournaments``, a tournament whose hands, ledger and summary disagree is
a mismatch too (exit status 1).
"""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import IO

from rich.console import Console
from rich.progress import Progress, TaskID

from showdown_core.rake import Schedule
from showdown_service.decision.rake_schedules import read_schedule, schedules_in
from showdown_service.histories.compare import MISMATCH
from showdown_service.histories.ohh import starts_ohh
from showdown_service.histories.report import Summary, report_line, write_tournaments
from showdown_service.histories.run import FileResult, cpu_count, decode, find_files, replay_files
from showdown_service.histories.summaries import is_ots
from showdown_service.histories.tournaments import audit_paths
from showdown_service.infra.config import Settings


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``replay`` to the ``showdown`` command line."""
    rep = commands.add_parser(
        "replay",
        help="re-settle exported hand histories (PHH, PokerStars, GGPoker, 888poker, partypoker, Winamax, WPN/ACR, "
        "iPoker, Full Tilt, Open Hand History, Bovada/Ignition) and report every payout that differs from the rules",
        description="Re-settle hand histories with the service's own settlement and compare with what they recorded.",
    )
    rep.add_argument("paths", nargs="*", metavar="PATH", help="hand history files or directories (walked recursively)")
    rep.add_argument("--report", type=Path, metavar="FILE", help="write one JSON line per hand to FILE")
    rep.add_argument(
        "--emit-events", type=Path, metavar="FILE", help="write each settleable hand's ShowdownEvent as a JSON line"
    )
    rep.add_argument("--jobs", type=_jobs, default=1, metavar="N", help="processes to use (default 1)")
    rep.add_argument(
        "--tournaments",
        nargs="+",
        default=[],
        metavar="PATH",
        help="hand histories and tournament summaries whose tournaments are audited whole (replayed per hand too)",
    )
    rep.add_argument(
        "--tournament-report", type=Path, metavar="FILE", help="write one JSON line per tournament to FILE"
    )
    rep.add_argument(
        "--rake-schedule",
        metavar="FILE|ID",
        help="check each hand's rake against a posted rake schedule: a schedule file, or the id of a shipped or "
        "configured one (showdown rake --list); each hand raked otherwise is a rake_mismatch",
    )
    rep.set_defaults(run=run)


def schedule_of(given: str) -> Schedule:
    """The schedule ``--rake-schedule`` names: a file (read and checked), else an id of the shipped schedules and
    ``SHOWDOWN_RAKE_SCHEDULES_DIR``'s. Raises :class:`ValueError` saying why there is none."""
    path = Path(given)
    if path.is_file():
        return read_schedule(path.read_text(encoding="utf-8"), given)
    known = schedules_in(Settings().rake_schedules_dir)
    if given not in known:
        raise ValueError(f"{given!r} is no schedule file nor a schedule id known ({', '.join(sorted(known))})")
    return known[given]


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of processes") from None
    if not 1 <= jobs <= 4 * cpu_count():
        raise argparse.ArgumentTypeError(f"{jobs} processes: give 1 to {4 * cpu_count()}")
    return jobs


def run(args: argparse.Namespace) -> int:
    """Replay ``args.paths``; the summary goes to standard output, the exit status says whether all matched."""
    paths = [*args.paths, *args.tournaments]
    if not paths:
        sys.stderr.write("showdown replay: give PATH... or --tournaments PATH...\n")
        return 2
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        sys.stderr.write(f"showdown replay: no such file or directory: {', '.join(missing)}\n")
        return 2
    schedule = None
    if args.rake_schedule is not None:
        try:
            schedule = schedule_of(args.rake_schedule)
        except (ValueError, OSError) as exc:  # a ScheduleFileError names the file, the line and the field
            sys.stderr.write(f"showdown replay: --rake-schedule: {exc}\n")
            return 2
    files, named = find_files(paths)
    summaries = set(find_files(args.tournaments)[0]) if args.tournaments else set()
    files = [f for f in files if f not in summaries or not _is_summary(f)]
    summary = Summary()
    with ExitStack() as stack:
        report: IO[bytes] | None = stack.enter_context(args.report.open("wb")) if args.report else None
        events: IO[bytes] | None = stack.enter_context(args.emit_events.open("wb")) if args.emit_events else None
        advance = stack.enter_context(_Bar(len(files)))
        for result in replay_files(
            files, named, jobs=args.jobs, emit=events is not None, progress=advance, schedule=schedule
        ):
            summary.add_file(result.encoding)
            summary.skipped += result.format is None and not result.verdicts
            for verdict in result.verdicts:
                summary.add(verdict)
                if report is not None:
                    report.write(report_line(verdict))
            if events is not None:
                events.writelines(line + b"\n" for line in result.events)
    summary.write(sys.stdout)
    status = summary.exit_status
    if args.tournaments:
        audits = audit_paths(args.tournaments)
        with ExitStack() as stack:
            out: IO[bytes] | None = (
                stack.enter_context(args.tournament_report.open("wb")) if args.tournament_report else None
            )
            for audit in audits:
                if out is not None:
                    out.write(audit.line())
        write_tournaments(audits, sys.stdout)
        status = max(status, 1 if any(a.status == MISMATCH for a in audits) else 0)
    return status


def _is_summary(source: str) -> bool:
    """A tournament summary (read by the tournament audit, not replayed as hands)."""
    try:
        head = Path(source).read_bytes()[:400]
    except OSError:
        return False
    text = decode(head)[0].lstrip("\ufeff \t\r\n")
    if text.startswith("{") and not starts_ohh(text) and not is_ots(text):  # WPN's bare .ots: its finishes may
        # come after the first 400 bytes
        text = decode(Path(source).read_bytes())[0].lstrip("\ufeff \t\r\n")
    heads = ("PokerStars Tournament #", "Full Tilt Poker Tournament Summary", "Tournament #", "***** Cassava ")
    return text.startswith(heads) or (text.startswith("{") and is_ots(text))


class _Bar:
    """A progress bar over files on a terminal (standard error); nothing when it is not a terminal."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.progress: Progress | None = None
        self.task = TaskID(0)

    def __enter__(self) -> _Bar:
        if sys.stderr.isatty() and self.total > 1:
            self.progress = Progress(console=Console(stderr=True), transient=True)
            self.progress.start()
            self.task = self.progress.add_task("replaying", total=self.total)
        return self

    def __call__(self, result: FileResult) -> None:
        if self.progress is not None:
            self.progress.advance(self.task)

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()
