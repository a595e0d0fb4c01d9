"""``showdown dead-letters``: list refused entries (filtered), and send fixed ones back, in stream order, once.

Listing: each letter with its shard, id, code, and what it names: the hand,
or a tournament message's tournament and type (read from its payload), and
``requeued as <id>`` once it was sent back. ``--code``, ``--tournament`` and
``--hand`` keep the letters matching all of them.

Requeue: ``--requeue ID [ID ...]`` sends those letters back; ``--requeue``
with no id sends back every letter the filters keep (a filter is required
then). Letters go in stream order (a tournament's messages and hands keep
their order); a letter requeued once is refused a
second time, naming the entry it became. Each letter goes through
:func:`showdown_service.read.requeue.attempt`, the one requeue there is (it also
refuses a hand already settled, and marks the letter in the shard's
``<dead>:resolved`` hash with the entry it became); a refused letter does not
stop the others, and the exit status is the first refusal's.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import cast

from showdown_service.cli.help import positive_int
from showdown_service.decision.render import escaped
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import Client, connect
from showdown_service.infra.streams import read_range
from showdown_service.read.dead_letters import Letter, letter, resolved_key
from showdown_service.read.requeue import attempt

SCAN_CHUNK = 1000


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``dead-letters`` to the ``showdown`` parser."""
    d = commands.add_parser("dead-letters", help="list refused entries (filtered), or send fixed ones back")
    d.add_argument(
        "--count", type=positive_int, default=50, help="how many recent matching letters to list (default 50)"
    )
    d.add_argument("--code", help="only letters with this code (wrong_shard, stack_mismatch, ...)")
    d.add_argument("--tournament", metavar="ID", help="only letters of this tournament (hands and messages)")
    d.add_argument("--hand", metavar="ID", help="only letters of this hand_id")
    d.add_argument(
        "--requeue",
        nargs="*",
        type=_entry_id,
        metavar="ID",
        help="send these dead letters back to the events stream, in stream order; with no ID, every letter the "
        "filters keep",
    )
    d.add_argument(
        "--event", type=Path, help="with one --requeue ID: the corrected event (or tournament message) JSON to send"
    )
    d.add_argument("--shard", help="with --requeue: the shard of the dead letters (default: every configured shard)")
    d.set_defaults(run=run)


def _entry_id(text: str) -> str:
    if not re.fullmatch(r"\d+-\d+", text):  # a bare "<ms>" would match every entry of that millisecond
        raise argparse.ArgumentTypeError(f"{text!r} is not a stream entry id such as 1718000000000-0")
    return text


def run(args: argparse.Namespace) -> int:
    if args.requeue is None and (args.event or args.shard):
        print("--event and --shard go with --requeue", file=sys.stderr)
        return 2
    settings = Settings()
    client = connect(settings)
    filters = {"code": args.code, "tournament_id": args.tournament, "hand_id": args.hand}
    if args.requeue is not None:
        return _requeue(client, settings, args, filters)
    shown = _newest(client, settings, settings.shards, filters, args.count)
    for found in shown:
        _print(found)
    return 0


def letters(client: Client, settings: Settings, shard: str, *, newest_first: bool = False) -> Iterator[Letter]:
    """Every dead letter of ``shard``, read in chunks (oldest first, or newest first)."""
    key = settings.keys(shard).dead
    bound = "+" if newest_first else "-"
    while True:
        if newest_first:
            rows = read_range(client, key, high=bound, count=SCAN_CHUNK, newest_first=True)
        else:
            rows = read_range(client, key, low=bound, count=SCAN_CHUNK)
        marks = cast(list[bytes | None], client.hmget(resolved_key(key), [e for e, _ in rows])) if rows else []
        for (entry_id, fields), mark in zip(rows, marks, strict=True):
            yield letter(shard, entry_id, fields, mark)
        if len(rows) < SCAN_CHUNK:
            return
        bound = f"({rows[-1][0].decode()}"


def _newest(
    client: Client, settings: Settings, shards: tuple[str, ...], filters: dict[str, str | None], count: int
) -> list[Letter]:
    """The newest ``count`` matching letters of each shard, oldest first, shard after shard."""
    out: list[Letter] = []
    for shard in shards:
        found: list[Letter] = []
        for each in letters(client, settings, shard, newest_first=True):
            if each.matches(**filters):
                found.append(each)
                if len(found) == count:
                    break
        out += reversed(found)
    return out


def _print(found: Letter) -> None:
    tournament = escaped(found.tournament_id) if found.tournament_id else None
    if found.type is not None:
        what = f"tournament={tournament or '?'} type={escaped(found.type)}"
    else:
        what = f"hand={escaped(found.hand_id) if found.hand_id else '?'}" + (
            f" tournament={tournament}" if tournament else ""
        )
    requeued = f" [requeued as {found.requeued_as}]" if found.requeued_as else ""
    print(f"{found.shard} {found.id} {found.code} {what}{requeued}: {_shown(found.message)}")
    print(f"    raw ({found.raw_bytes} bytes): {_shown(found.raw[:160])}")


def _shown(text: str) -> str:
    """Text safe for a terminal: control characters (an escape sequence, a newline) written as escapes."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _requeue(client: Client, settings: Settings, args: argparse.Namespace, filters: dict[str, str | None]) -> int:
    ids: list[str] = args.requeue
    if not ids and not any(filters.values()):
        print("--requeue with no ID needs a filter (--code, --tournament or --hand)", file=sys.stderr)
        return 2
    if args.event and len(ids) != 1:
        print("--event goes with exactly one --requeue ID", file=sys.stderr)
        return 2
    shards = (args.shard,) if args.shard else settings.shards
    if args.shard and args.shard not in settings.shards:
        print(f"shard {args.shard!r} is not one of SHOWDOWN_SHARDS ({', '.join(settings.shards)})", file=sys.stderr)
        return 2
    chosen: list[Letter] = []
    wanted = set(ids)
    for shard in shards:
        chosen += [each for each in letters(client, settings, shard)
                   if ((each.id in wanted) if ids else each.matches(**filters))]  # fmt: skip
    missing = wanted - {each.id for each in chosen}
    if missing:
        print(f"no dead letter {', '.join(sorted(missing))} in shard(s) {', '.join(shards)}", file=sys.stderr)
        return 2
    if not chosen:
        print("no dead letter matches", file=sys.stderr)
        return 1
    status = 0
    edited = args.event.read_bytes() if args.event else None
    for each in chosen:  # stream order within a shard (letters() reads oldest first); one requeue each
        code, said = attempt(client, settings, each.id, each.shard, edited)
        print(said, file=sys.stdout if code == 0 else sys.stderr)
        status = status or code
    return status
