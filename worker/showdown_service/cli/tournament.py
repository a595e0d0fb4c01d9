"""``showdown tournament standings ID`` and ``showdown tournament replay FILE...``.

Standings: finished entries by place (those eliminated while registration was
open last, without a place), then the entries still playing by chips.
``--json`` prints exactly the placement objects (the standings stream's
records) of the finished entries, in that order.

A finished tournament whose ledger expired (docs/archive.md) is answered from
the archive at ``SHOWDOWN_ARCHIVE_URL`` (its placement records), exactly as
the full ledger answered; one whose ledger Redis lost altogether (it came back
without its data) from its ledger rebuilt from the archive, in process; a
running one whose ledger Redis lost is refused ``ledger_lost`` until
``showdown tournament restore``. The one standings lookup, the read API's too:
:mod:`showdown_service.read.standings`.

Restore (``tournament restore ID``): after a Redis loss, the ledger of a
tournament the workers refuse as ``ledger_lost`` is rebuilt from the archive
and written back (:mod:`showdown_service.archive.ledger_restore`); its dead
letters are then requeued in order.

Exit status: 0 done; 1 the tournament is on no configured shard, its ledger
expired and the archive cannot answer (named on stderr: ``archive_unavailable``
or ``archive_incomplete``), its ledger was lost while it runs (``ledger_lost``),
or (replay) some line was refused; 2 a file cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from showdown_core.tournament import Book, Deal, Entry
from showdown_service.archive.ledger_restore import RestoreError, rebuild, restore
from showdown_service.decision.render import escaped
from showdown_service.decision.tournament_replay import TournamentReplay
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import connect
from showdown_service.infra.examples import file_lines
from showdown_service.read.standings import StandingsReader, StandingsRefused
from showdown_service.worker.restore import lost_tournaments


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``tournament standings`` and ``tournament replay`` to the ``showdown`` command line."""
    tournament = commands.add_parser(
        "tournament", help="a tournament's standings (places, prizes, bounties), from Redis or replayed from a file"
    )
    verbs = tournament.add_subparsers(dest="verb", required=True, metavar="{standings,replay,restore}")
    standings = verbs.add_parser("standings", help="the standings of a tournament on the configured shards")
    standings.add_argument("tournament_id", metavar="ID")
    standings.add_argument("--json", action="store_true", help="print the placement objects as one JSON list")
    standings.set_defaults(run=run_standings, finishes_on_stop=False)
    replay = verbs.add_parser(
        "replay",
        help='settle a whole tournament in process from JSON lines of {"tournament": ...} / {"event": ...}',
    )
    replay.add_argument("files", nargs="+", metavar="FILE", help="JSON lines, in stream order ('-': standard input)")
    replay.add_argument("--json", action="store_true", help="print the placement objects as one JSON list")
    replay.set_defaults(run=run_replay, finishes_on_stop=False)
    restore = verbs.add_parser(
        "restore", help="rebuild a tournament's ledger Redis lost (ledger_lost) from the archive, and write it back"
    )
    restore.add_argument("tournament_id", metavar="ID", nargs="?")
    restore.add_argument("--all", action="store_true", help="every tournament lost on the configured shards")
    restore.set_defaults(run=run_restore, finishes_on_stop=False)


def run_standings(args: argparse.Namespace) -> int:
    settings = Settings()
    client = connect(settings)  # no CLIENT SETNAME: the reader ACL user may not
    try:
        found = StandingsReader(settings, client).read(args.tournament_id, search=True)
    except StandingsRefused as exc:
        shards = ", ".join(settings.shards)
        unknown = f"no tournament {args.tournament_id!r} on shards {shards}"
        why = unknown if exc.code == "unknown_tournament" else f"{exc.code}: {exc.message}"
        sys.stderr.write(f"showdown tournament standings: {why}\n")
        return 1
    _print(found.book, args.tournament_id, as_json=args.json, finished=found.finished if found.archived else None)
    return 0


def run_restore(args: argparse.Namespace) -> int:
    """Rebuild and write each lost ledger asked for: ``ID`` (on every shard where it is lost) or ``--all``; 1 at
    the first that cannot be restored (those before it are), 2 for neither or both."""
    if (args.tournament_id is None) == (not args.all):
        sys.stderr.write("showdown tournament restore: give a tournament ID, or --all\n")
        return 2
    settings = Settings()
    client = connect(settings)
    wanted = [
        (shard, tid)
        for shard in settings.shards
        for tid in lost_tournaments(client, settings.keys(shard))
        if args.all or tid == args.tournament_id
    ]
    if not wanted and not args.all:
        shards = ", ".join(settings.shards)
        sys.stderr.write(f"showdown tournament restore: tournament {args.tournament_id!r} is not lost on shards "
                         f"{shards} (its ledger is in Redis, or the archive never knew it)\n")  # fmt: skip
        return 1
    for shard, tid in wanted:
        try:
            rebuilt = rebuild(settings, shard, tid)
        except RestoreError as exc:
            sys.stderr.write(f"showdown tournament restore: tournament {tid!r} not restored: {exc}\n")
            return 1
        if not restore(client, settings.keys(shard), rebuilt, tid):
            sys.stderr.write(f"showdown tournament restore: tournament {tid!r} has a ledger on shard {shard!r} now: "
                             "nothing written\n")  # fmt: skip
            return 1
        sys.stdout.write(
            f"restored tournament {tid} on shard {shard} from {rebuilt.entries} archived entries (to seq "
            f"{rebuilt.last_seq}); now requeue its refused entries, in order: showdown dead-letters --code "
            f"ledger_lost --tournament {tid} --requeue\n"
        )
    if args.all:
        sys.stdout.write(f"{len(wanted)} tournaments restored\n")
    return 0


def run_replay(args: argparse.Namespace) -> int:
    missing = [f for f in args.files if f != "-" and not Path(f).is_file()]
    if missing:
        sys.stderr.write(f"showdown tournament replay: no such file: {', '.join(missing)}\n")
        return 2
    run = TournamentReplay()
    for name in args.files:
        run.feed(file_lines(name), source=name)
    for refusal in run.refused:
        sys.stderr.write(f"{refusal.source}:{refusal.line}: {refusal.code}: {refusal.message}\n")
    ids = sorted({p["tournament_id"] for p in run.placements} | {t for t, led in run.book.ledgers.items() if led})
    for tournament_id in ids:
        _print(run.book, tournament_id, as_json=args.json, heading=len(ids) > 1 and not args.json)
    sys.stdout.flush()
    sys.stderr.write(f"{run.applied} lines applied, {len(run.refused)} refused, {len(run.results)} hands settled\n")
    return 1 if run.refused else 0


def _print(
    book: Book,
    tournament_id: str,
    *,
    as_json: bool,
    heading: bool = False,
    finished: list[dict[str, Any]] | None = None,
) -> None:
    """Print the standings; ``finished``: the placement objects read from the archive (an expired ledger: every
    entry finished, none playing), else the book's."""
    if finished is None:
        finished, playing = book.standings(tournament_id)
    else:
        playing = []
    if as_json:
        sys.stdout.write(json.dumps(finished) + "\n")
        return
    if heading:
        sys.stdout.write(f"tournament {escaped(tournament_id)}\n")
    ledger = book.ledgers.get(tournament_id)
    mystery = ledger is not None and ledger.rules.mystery_from is not None
    sys.stdout.write(standings_text(finished, playing, mystery=mystery))
    if ledger is not None and ledger.deal is not None:
        sys.stdout.write(deal_text(ledger.deal))
    if mystery:
        sys.stdout.write(envelopes_text(book.envelopes_left(tournament_id)))


def deal_text(deal: Deal) -> str:
    """The deal agreed: its method, what was kept back for the winner, and each entry's guaranteed amount."""
    amounts = ", ".join(f"{escaped(player)}#{entry} {amount}" for (player, entry), amount in deal.amounts)
    return f"deal ({deal.method}, {deal.left_to_play_for} left to play for): {amounts}\n"


def envelopes_text(left: dict[int, int]) -> str:
    """The mystery-bounty envelopes not drawn: reported, never paid."""
    value = sum(amount * count for amount, count in left.items())
    listed = ", ".join(f"{count} x {amount}" for amount, count in sorted(left.items(), reverse=True)) or "none"
    return f"mystery envelopes left: {listed} (value {value}, never paid)\n"


def standings_text(finished: Sequence[dict[str, Any]], playing: Sequence[Entry], *, mystery: bool = False) -> str:
    """The standings as a table: place (``T3`` when tied), player and entry, prize and bounty cash (and, with a
    mystery-bounty stage, envelope cash; in the currency's smallest unit); then the entries still playing."""
    extra = f" {'mystery cash':>12}" if mystery else ""
    rows = [f"{'place':>6}  {'player':<24} {'entry':>5} {'prize':>12} {'bounty cash':>12}{extra}"]
    for p in finished:
        place = "-" if p["place"] is None else (f"T{p['place']}" if p["tied"] > 1 else str(p["place"]))
        won = f" {p.get('mystery_bounty_cash', 0):>12}" if mystery else ""
        player = escaped(p["player_id"])
        rows.append(f"{place:>6}  {player:<24} {p['entry']:>5} {p['prize']:>12} {p['bounty_cash']:>12}{won}")
    if playing:
        rows.append(f"still playing ({len(playing)}):")
        rows += [
            f"{'':>6}  {escaped(e.player_id):<24} {e.entry:>5} {e.chips:>12} chips, bounty {e.bounty}, "
            f"cash {e.bounty_cash}" + (f", mystery cash {e.mystery_cash}" if mystery else "")
            for e in playing
        ]
    return "\n".join(rows) + "\n"
