"""The re-tree of issue 35: where each module of ``showdown_service`` moved, and a rewriter of old import paths.

``python scripts/retree.py --fix FILE ...`` rewrites every old dotted path (``showdown_service.worker_state``)
and source path (``worker/showdown_service/worker_state.py``) in the files named to the new one. It is
idempotent: a path already new is left alone. Kept so that a branch begun before the re-tree can be rebased on it
and fixed, and as the record of where each module went.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

MOVES: dict[str, str] = {
    # infra: configuration, the connection, stream plumbing, logs, stop signals, JSON lines
    "config": "infra.config",
    "connection": "infra.connection",
    "entry_fields": "infra.entry_fields",
    "streams": "infra.streams",
    "logs": "infra.logs",
    "stops": "infra.stops",
    "examples": "infra.examples",
    # ops: what operators watch
    "metrics": "ops.metrics",
    "sampling": "ops.sampling",
    "heartbeat": "ops.heartbeat",
    "alert_rules": "ops.alert_rules",
    "dashboard": "ops.dashboard",
    "acl": "ops.acl",
    # decision: the pure step every path shares
    "intake": "decision.intake",
    "settling": "decision.settling",
    "decide": "decision.decide",
    "wire": "decision.wire",
    "audit": "decision.audit",
    "render": "decision.render",
    "routing": "decision.routing",
    "tournament.replay": "decision.tournament_replay",
    # storage: the archive's files (layout, write-once puts, reading)
    "archive.layout": "storage.layout",
    "archive.s3write": "storage.s3write",
    "archive.errors": "storage.errors",
    "archive.recall": "storage.recall",
    "archive.lookup": "storage.lookup",
    # worker: the consumer loop and what it owns
    "worker": "worker.loop",
    "worker_state": "worker.state",
    "worker_groups": "worker.groups",
    "worker_io": "worker.io",
    "worker_planning": "worker.planning",
    "worker_housekeeping": "worker.housekeeping",
    "ingress": "worker.ingress",
    "commit": "worker.commit",
    "restore": "worker.restore",
    "tournament.store": "worker.ledger",
    # archive: the archiver, proofs, audit replay (its files stay), and the ledger restore
    "tournament.restore": "archive.ledger_restore",
    # read: answers from the output streams
    "dead_letters": "read.dead_letters",
    "requeue": "read.requeue",
    # histories: the room readers (was replay)
    "replay": "histories",
    # testing: servers and simulators for tests and the demo
    "localredis": "testing.localredis",
    "tournament.simulate": "testing.simulate",
    # cli: argparse and printing, a module per verb family
    "cli": "cli.commands",
    "cli_help": "cli.help",
    "launch": "cli.launch",
    "stream_cli": "cli.stream",
    "results_cli": "cli.results",
    "dead_letters_cli": "cli.dead_letters",
    "demo": "cli.demo",
    "tournament.cli": "cli.tournament",
    "tournament.icm_cli": "cli.icm",
    "archive.cli": "cli.archive",
    "archive.proof_cli": "cli.proof",
    "replay.cli": "cli.replay",
    "api.cli": "cli.api",
}
"""Old module (under ``showdown_service``) -> new module. ``replay`` is a package: its modules follow it."""

NEW_PACKAGES = (
    "infra",
    "ops",
    "decision",
    "storage",
    "worker",
    "archive",
    "read",
    "histories",
    "api",
    "testing",
    "cli",
)
ROOT = Path(__file__).resolve().parent.parent / "worker" / "showdown_service"


def _new_children(old: str) -> set[str]:
    """The names a new path may continue an old name with (so ``showdown_service.worker.loop`` is not re-moved)."""
    return {new.split(".")[1] for new in MOVES.values() if new.startswith(old + ".") and new.count(".") >= 1} | (
        {p.stem for p in (ROOT / old).glob("*.py")} if (ROOT / old).is_dir() else set()
    )


def _patterns() -> list[tuple[re.Pattern[str], str]]:
    out: list[tuple[re.Pattern[str], str]] = []
    for old in sorted(MOVES, key=lambda o: -len(o)):
        new = MOVES[old]
        keep = sorted(_new_children(old) | ({"cli", "histories"} if old == "replay" else set()))
        alts = "|".join(map(re.escape, keep))
        guard = rf"(?!\.(?:{alts})\b)(?![ \t]+import[ \t]+\(?[ \t]*(?:{alts})\b)" if keep else ""
        if old == "replay":  # a package renamed: replay.cli moves apart (matched first, being longer)
            out.append(
                (re.compile(r"\bshowdown_service\.replay(?=[.\s\"'`,)\]:]|$)", re.M), "showdown_service.histories")
            )
            out.append((re.compile(r"showdown_service/replay/"), "showdown_service/histories/"))
            continue
        dotted = re.compile(rf"\bshowdown_service\.{re.escape(old)}(?![\w]){guard}")
        out.append((dotted, f"showdown_service.{new}"))
        slashed = re.compile(rf"showdown_service/{re.escape(old.replace('.', '/'))}\.py\b")
        out.append((slashed, f"showdown_service/{new.replace('.', '/')}.py"))
    return out


_FROM = re.compile(
    r"^(?P<indent>[ \t]*)from showdown_service(?P<pkg>(?:\.[a-z_]+)?) import "
    r"(?P<names>[a-z_][\w ,]*?)(?P<tail>[ \t]*#.*)?$",
    re.M,
)


def _split_from(match: re.Match[str]) -> str:
    """``from showdown_service import audit, heartbeat`` -> one line per new parent (modules imported by name)."""
    pkg = match["pkg"].lstrip(".")
    parts = [n.strip() for n in match["names"].split(",") if n.strip()]
    moved: dict[str, list[str]] = {}
    for part in parts:
        name, _, alias = part.partition(" as ")
        old = f"{pkg}.{name.strip()}" if pkg else name.strip()
        new = MOVES.get(old)
        if new is None:
            if pkg == "replay":
                new = f"histories.{name.strip()}"
            else:
                return match[0]  # not a module moved: leave the line as it is
        parent, _, leaf = new.rpartition(".")
        spelled = leaf if leaf == name.strip() and not alias else f"{leaf} as {alias.strip() or name.strip()}"
        moved.setdefault(parent, []).append(spelled)
    tail = match["tail"] or ""
    lines = [
        f"{match['indent']}from showdown_service.{parent} import {', '.join(names)}" for parent, names in moved.items()
    ]
    lines[0] += tail
    return "\n".join(lines)


def fix_text(text: str) -> str:
    """Every old path in ``text`` rewritten to its new one."""
    text = _FROM.sub(_split_from, text)
    for pattern, new in _patterns():
        text = pattern.sub(new, text)
    return text


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fix", nargs="*", default=[], metavar="FILE", help="rewrite old paths in these files")
    args = parser.parse_args(argv)
    changed = 0
    for name in args.fix:
        path = Path(name)
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = fix_text(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += 1
    print(f"{changed} files rewritten", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
