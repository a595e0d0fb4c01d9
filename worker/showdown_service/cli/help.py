"""The longer help of the commands a newcomer starts with (``showdown worker --help``, ...): what each does, the
settings it reads, an example; and the argument types the commands share. Kept here so the modules that register
the commands stay short."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def whole_number(least: int, *, not_whole: str, below: str) -> Callable[[str], int]:
    """An argparse type: a whole number of ``least`` or more, refused saying why: ``not_whole`` formatted with the
    ``text`` given, ``below`` with its ``value``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(not_whole.format(text=text)) from None
        if value < least:
            raise argparse.ArgumentTypeError(below.format(value=value))
        return value

    return parse


positive_int = whole_number(1, not_whole="{text!r} is not a whole number", below="{value}: give 1 or more")
"""An argparse type: a whole number of 1 or more (``--processes``, ``--count``), refused saying why."""


WORKER_HELP = """\
Run a worker: read each shard's events stream as one consumer of the group, settle every entry
(a hand's pots, a tournament message in its ledger), and commit each batch atomically: results,
dead letters with the reason, audit records, acks. Runs until SIGTERM or Ctrl-C, then finishes and
commits the batch in hand and exits 0. Redis outages are waited out, never a crash.

Reads: SHOWDOWN_REDIS_URL (and _USERNAME, _PASSWORD, _CA_FILE, _CLUSTER), SHOWDOWN_SHARDS,
SHOWDOWN_GROUP, SHOWDOWN_CONSUMER, SHOWDOWN_BATCH_SIZE, SHOWDOWN_METRICS_PORT (Prometheus /metrics;
0: off), SHOWDOWN_HEARTBEAT_FILE (for `showdown health`; one per worker process), and the rest
that `showdown settings` lists.
Two workers on one host: give the second its own SHOWDOWN_HEARTBEAT_FILE, or run one worker with
--processes N (worker i beats in <file>.i and serves /metrics on SHOWDOWN_METRICS_PORT + i)."""
WORKER_EXAMPLE = """\
example:
  SHOWDOWN_REDIS_URL=redis://127.0.0.1:6379/0 showdown worker --processes 2"""
SETTINGS_HELP = """\
Print every SHOWDOWN_* setting as NAME=VALUE with the value in effect here: the environment
applied (`set`) or the default (`default`), and what it sets. Passwords print as ********.
A value that does not parse is reported, naming the variable (exit 2)."""
SETTINGS_EXAMPLE = """\
example:
  SHOWDOWN_REDIS_URL=redis://10.0.0.5:6379/0 showdown settings | grep REDIS_URL
  showdown settings --defaults        # the reference table (docs/operations.md#settings)"""
HEALTH_HELP = """\
Exit 0 if the worker (or every process of a --processes group) whose heartbeat file is
SHOWDOWN_HEARTBEAT_FILE has beaten within SHOWDOWN_HEALTH_MAX_AGE_S, has not stopped, does not wait
for Redis, and Redis answers PING; else exit 1 with one `unhealthy:` line per fault on stderr.
The archiver and the read API on this host are checked too, each by its own heartbeat file
(SHOWDOWN_ARCHIVER_HEARTBEAT_FILE, SHOWDOWN_API_HEARTBEAT_FILE; by default the worker's with
.archiver and .api added) and named in its lines; one stopped on purpose beside running workers is
a `note:` line, not a fault. An archive ahead of Redis's chain (Redis lost its data) is a fault.
The container HEALTHCHECK and the Kubernetes probes run it.

Reads: SHOWDOWN_HEARTBEAT_FILE and SHOWDOWN_HEALTH_MAX_AGE_S (the worker's own values: run it with
the worker's environment), SHOWDOWN_REDIS_URL and its credentials."""
HEALTH_EXAMPLE = """\
example:
  SHOWDOWN_HEARTBEAT_FILE=/tmp/showdown-worker.heartbeat showdown health && echo up"""
DEMO_HELP = """\
Real hands through real workers, end to end, in seconds: start a throwaway Valkey (the one the
virtual environment ships) on a free port, run two `showdown worker` processes on it, publish the
bundled real showdowns (and bad events and re-sends), show what happened (pots, winners, dead
letters and why, the audit chain), and check every hand paid as recorded; exit 0 only if all held.

Reads: SHOWDOWN_REDIS_URL only if set (then it uses that Redis, in a shard of its own, `demo`);
nothing else."""
DEMO_EXAMPLE = """\
example:
  showdown demo        # or: make demo"""
VERIFY_HELP = """\
Walk each shard's audit stream from its first record, recomputing the sha256 hash chain, up to the
stored head; print one line per shard, and for a broken chain the first record that breaks it
(seq, stream id, what is wrong). Exit 0 only if every chain holds.

Reads: SHOWDOWN_REDIS_URL (and its credentials: the auditor user may), SHOWDOWN_SHARDS,
SHOWDOWN_KEY_PREFIX, SHOWDOWN_AUDIT_NAME."""
VERIFY_EXAMPLE = """\
example:
  SHOWDOWN_SHARDS=default,t1 showdown audit verify --metrics-file /var/lib/node_exporter/showdown_audit.prom"""
