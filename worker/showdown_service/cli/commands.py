"""The ``showdown`` command line.

Exit status: 0 success, 1 some input was rejected or Redis failed (details
on stderr), 2 the command itself was misused or cannot run as set up (a bad
setting, a file it cannot open), 130 stopped by Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, TextIO, TypeAlias

import redis
from pydantic import ValidationError
from redis.exceptions import RedisClusterException

from showdown_core import InvalidEvent, InvariantViolation, best_five, evaluate, parse_cards, settle
from showdown_messages import __version__ as contract_version
from showdown_messages.schema import asyncapi_document, json_schemas
from showdown_service import __version__
from showdown_service.cli.api import register as register_api
from showdown_service.cli.archive import register as register_archive
from showdown_service.cli.dead_letters import register as register_dead_letters
from showdown_service.cli.equity import register as register_equity
from showdown_service.cli.icm import register as register_icm
from showdown_service.cli.jackpot import register as register_jackpot
from showdown_service.cli.proof import register as register_proof
from showdown_service.cli.rake import register as register_rake
from showdown_service.cli.replay import register as register_replay
from showdown_service.cli.results import register as register_results
from showdown_service.cli.stream import register as register_streams
from showdown_service.cli.tournament import register as register_tournament
from showdown_service.decision.intake import parse_event, to_showdown, unwrap_event
from showdown_service.decision.rake_schedules import ScheduleFileError
from showdown_service.decision.render import describe_result
from showdown_service.decision.wire import encode_result, result_document
from showdown_service.infra.config import Settings, settings_problems
from showdown_service.infra.examples import UNDECODED, documents, example_lines, file_lines
from showdown_service.infra.stops import interrupt_on_stop
from showdown_service.ops.acl import register as register_acl


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``showdown`` console script."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if not args.finishes_on_stop:
            interrupt_on_stop()
        code: int = args.run(args)
    except BrokenPipeError:  # `showdown ... | head`: the reader left; stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM (see showdown_service.cli.launch)
        return 130
    except ValidationError as exc:
        if exc.title != Settings.__name__:
            raise
        print(f"{parser.prog}: bad settings:", *settings_problems(exc), sep="\n  ", file=sys.stderr)
        return 2
    except (OSError, ScheduleFileError) as exc:  # a file it cannot open or write, a port taken, a bad rake schedule
        print(f"{parser.prog}: {exc}", file=sys.stderr)
        return 2
    except (
        redis.ConnectionError,
        redis.TimeoutError,
        redis.exceptions.NoPermissionError,
        RedisClusterException,
    ) as exc:
        print(f"{parser.prog}: Redis: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return code


ASYNCAPI_FILE = "asyncapi.json"

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

REGISTRARS: tuple[Callable[[Commands], None], ...] = (
    register_streams,
    register_replay,
    register_tournament,
    register_icm,
    register_acl,
    register_archive,
    register_proof,
    register_api,
    register_dead_letters,
    register_results,
    register_rake,
    register_equity,
    register_jackpot,
)
"""Functions adding the subcommands of other areas (worker, replay, ...) to the parser.

Each area keeps its commands in its own module and appends its ``register``
here, so this file does not grow with every feature.
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="showdown", description="Settle poker showdowns, chip for chip.")
    parser.add_argument("--version", action="version", version=f"showdown {__version__}")
    parser.set_defaults(finishes_on_stop=False)  # only the worker: Ctrl-C and SIGTERM interrupt everything else
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    _register_core(commands)
    for register in REGISTRARS:
        register(commands)
    return parser


def _register_core(commands: Commands) -> None:

    ev = commands.add_parser("evaluate", help="value the best five of 5-7 cards")
    ev.add_argument("cards", nargs="+", metavar="CARD", help="cards such as As Kd 10c 7♠")
    ev.set_defaults(run=_evaluate)

    adj = commands.add_parser(
        "adjudicate", help="settle ShowdownEvents (JSON lines, or pretty-printed JSON) into ShowdownResult JSON lines"
    )
    adj.add_argument(
        "file", nargs="?", help="JSON lines or pretty-printed JSON documents; - for standard input (default)"
    )
    adj.add_argument(
        "--examples", action="store_true", help="settle the hands bundled with showdown (real showdowns, other games)"
    )
    adj.add_argument("--summary", action="store_true", help="print a readable line per hand instead of JSON")
    adj.set_defaults(run=_adjudicate)

    sch = commands.add_parser("schema", help="write the JSON Schema of every message (and the AsyncAPI document)")
    sch.add_argument("--out", type=Path, help="directory to write *.schema.json and asyncapi.json into")
    sch.add_argument("--asyncapi", action="store_true", help="only the AsyncAPI 3.0 document of the service")
    sch.set_defaults(run=_schema)


def _evaluate(args: argparse.Namespace) -> int:
    try:
        cards = parse_cards(args.cards)
        value = evaluate(cards)
    except InvalidEvent as exc:
        print(f"showdown evaluate: {exc}", file=sys.stderr)
        return 2
    print(value.description)
    print(f"  category   {value.category.wire}")
    print(f"  best five  {' '.join(c.text for c in best_five(cards, value))}")
    print(f"  strength   {value.strength} of 7462")
    return 0


def _adjudicate(args: argparse.Namespace) -> int:
    if args.examples and args.file:
        print("give a FILE (or -) or --examples, not both", file=sys.stderr)
        return 2
    lines = example_lines() if args.examples else file_lines(args.file or "-")
    return adjudicate_lines(lines, sys.stdout, sys.stderr, summary=args.summary)


def adjudicate_lines(lines: Iterator[str], out: TextIO, err: TextIO, *, summary: bool = False) -> int:
    """Settle each JSON document of ``lines`` (one a line, or pretty-printed over several: see
    :func:`~showdown_service.infra.examples.documents`); results to ``out`` in order, rejections (JSON) to ``err``,
    each with the line its document starts on.

    A document may be a ShowdownEvent, or an object with the event under
    ``"event"`` (the bundled examples' format). Returns 1 if any document
    was rejected, else 0.
    """
    rejected = 0
    for number, text in documents(lines):
        try:
            event = parse_event(unwrap_event(text).encode("utf-8", UNDECODED))  # bytes: a bad one is malformed_json
            settlement = settle(to_showdown(event))
        except InvalidEvent as exc:
            rejected += 1
            _report(err, number, exc.code, exc.field, exc.message)
            continue
        except InvariantViolation as exc:  # a bug: say so loudly, keep going
            rejected += 1
            _report(err, number, "invariant_violation", "", str(exc))
            continue
        if summary:
            out.write(describe_result(result_document(settlement, datetime.now(UTC))) + "\n")
        else:
            out.write(encode_result(settlement, datetime.now(UTC)).decode() + "\n")
    return 1 if rejected else 0


def _report(err: IO[str], line: int, code: str, field: str, message: str) -> None:
    err.write(json.dumps({"line": line, "code": code, "field": field, "message": message}) + "\n")


def schema_files() -> dict[str, dict[str, Any]]:
    """Every file ``showdown schema --out`` writes: one JSON Schema per message, and the AsyncAPI document (whose
    version is the contract's, showdown-messages: docs/release.md)."""
    return {**json_schemas(), ASYNCAPI_FILE: asyncapi_document(contract_version)}


def _schema(args: argparse.Namespace) -> int:
    files = schema_files()
    schemas = {ASYNCAPI_FILE: files[ASYNCAPI_FILE]} if args.asyncapi else files
    if args.out is None:
        print(json.dumps(files[ASYNCAPI_FILE] if args.asyncapi else files, indent=2))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, schema in schemas.items():
        (args.out / name).write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
        print(args.out / name)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
