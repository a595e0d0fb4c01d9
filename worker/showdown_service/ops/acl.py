"""Exact per-shard key grants for the users a worker must not trust: ``showdown acl``.

A grant on a glob such as ``%W~showdown:{*}:events`` stretches: ``*``
matches any text, braces and colons too, so it also matches
``showdown:{default}:seen:W}:events`` (the dedupe key of hand ``W}:events``)
and the ledger of a tournament named ``T}:events``. A producer that may write
there can plant a key of the wrong type where a worker will write, and wedge
its shard (WRONGTYPE on every commit). So the ``producer``, ``operator`` and
``api`` lines of deploy/redis/users.acl name each shard's keys exactly, one pattern
per configured shard; :func:`exact_grants` writes them from any users.acl
(its own output included) for a list of shards:

    showdown acl --shards t0,t1,t2 deploy/redis/users.acl > users.acl

The worker, reader, auditor and scaler keep their ``{*}`` globs: the worker
owns every key of its shards, and the others only read. The API (the read
API's user: ``showdown api``) only reads too, but by exact names. A pattern
whose hash tag names no shard (``{registry}``) is kept as it is.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from showdown_service.infra.config import Settings

EXACT_USERS = ("producer", "operator", "api")
"""Users whose key patterns name each shard exactly."""
WRITERS = ("producer", "operator")
"""Of those, the users that write (``wait_aof`` grants them WAITAOF)."""
NOT_SHARDS = frozenset({"registry"})
"""Hash tags that name no shard: a key pattern with one of them is kept as it is (the tournament registry,
``showdown:{registry}:tournaments``, of :mod:`showdown_service.decision.routing`)."""
_KEY_PATTERN = re.compile(r"^(%[RW]{1,2}~|~)([^{}\s]*)\{([^{}\s]*)\}([^{}\s]*)$")
_TOKEN = re.compile(r"\([^)]*\)|[^\s()]+")
_GLOB = frozenset("*?[]\\")


class AclError(ValueError):
    """A shard name an exact grant cannot hold (empty, or a glob character)."""


def exact_grants(text: str, shards: Sequence[str], *, wait_aof: bool = False) -> str:
    """``text`` (an ACL file) with every ``{...}`` key pattern of the :data:`EXACT_USERS` lines written once per
    shard of ``shards`` (in order); ``wait_aof`` also grants them ``WAITAOF`` (Redis 7.2+ and Valkey only: a
    Redis 7.0 refuses to load a file that names it)."""
    for shard in shards:
        if shard in NOT_SHARDS:
            raise AclError(f"shard {shard!r} cannot be granted exactly: the name of a key that is no shard's")
        if not shard or _GLOB & set(shard) or any(c in shard for c in "{}: \t\n"):
            raise AclError(f"shard {shard!r} cannot be granted exactly: a plain name, no glob characters (*?[]\\)")
    if not shards:
        raise AclError("at least one shard is needed")
    lines = []
    for line in text.splitlines():
        words = line.split()
        if len(words) > 1 and words[0] == "user" and words[1] in EXACT_USERS:
            waits = wait_aof and words[1] in WRITERS  # the API writes nothing: it never waits for an fsync
            line = _exact_line(line, shards, wait_aof=waits)  # noqa: PLW2901 - the rewritten line
        lines.append(line)
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")


def _exact_line(line: str, shards: Sequence[str], *, wait_aof: bool) -> str:
    tokens = _TOKEN.findall(line)
    root = _expanded(" ".join(token for token in tokens if not token.startswith("(")), shards)
    if wait_aof and "+waitaof" not in root.split():
        root = root.replace(" -@all ", " -@all +waitaof ", 1)
    selectors = [f"({_expanded(token[1:-1], shards)})" for token in tokens if token.startswith("(")]
    return " ".join([root, *selectors])


def _expanded(rules: str, shards: Sequence[str]) -> str:
    """``rules`` (space-separated) with each shard key pattern written once per shard, duplicates dropped."""
    out: list[str] = []
    for rule in rules.split():
        found = _KEY_PATTERN.match(rule)
        if found is None or found[3] in NOT_SHARDS:
            written = [rule]
        else:
            written = [f"{found[1]}{found[2]}{{{shard}}}{found[4]}" for shard in shards]
        out += [w for w in written if w not in out]
    return " ".join(out)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``showdown acl`` to the ``showdown`` parser."""
    a = commands.add_parser(
        "acl",
        help="print an ACL file (deploy/redis/users.acl) with the producer's and operator's keys granted exactly, "
        "per shard",
    )
    a.add_argument("file", type=Path, help="the ACL file to start from (deploy/redis/users.acl, or yours)")
    a.add_argument("--shards", help="comma-separated shards (default: SHOWDOWN_SHARDS)")
    a.add_argument("--wait-aof", action="store_true", help="grant WAITAOF too (Redis 7.2+, Valkey; SHOWDOWN_WAIT_AOF)")
    a.set_defaults(run=_acl)


def _acl(args: argparse.Namespace) -> int:
    shards = [s.strip() for s in args.shards.split(",") if s.strip()] if args.shards else list(Settings().shards)
    try:
        sys.stdout.write(exact_grants(args.file.read_text(encoding="utf-8"), shards, wait_aof=args.wait_aof))
    except AclError as exc:
        sys.stderr.write(f"showdown acl: {exc}\n")
        return 2
    return 0
