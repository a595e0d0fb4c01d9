"""``showdown health``'s judgement, shared by the command and the read API's ``/healthz``.

Moved out of the stream commands (:mod:`showdown_service.cli.stream`) so that the read API loads neither the
worker loop nor the commit: it reads heartbeats, pings Redis, and reads each shard's chain head, archive progress
and reset marks.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from showdown_service.decision import audit
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import REDIS_ERRORS, Client, connect
from showdown_service.ops import heartbeat
from showdown_service.worker.restore import lost_tournaments, read_reset


def health(settings: Settings, client: Client | None = None, *, growth: bool = True) -> tuple[bool, list[str]]:
    """``showdown health``'s judgement (the read API's ``/healthz`` too): healthy or not, and the lines saying
    why (``unhealthy: <fault>`` each, or ``alert: <past fault>`` and ``note: ...`` lines and the one
    ``healthy: ...`` line, then, with ``growth``, what grows in Redis: each shard's archive lag, or that it has no
    archiver; an archive ahead of Redis's chain is a fault). With ``growth``, a chain restarted after a Redis loss
    and the ledgers it lost come first as ``degraded: ...`` lines, which never fail it (:func:`_resets`).

    Every process that beats on this host is checked, each named: the worker (or each of a group) at
    ``SHOWDOWN_HEARTBEAT_FILE``, the archiver and the read API at their own files (see :mod:`.heartbeat`). A
    process with no heartbeat file is not on this host; none at all is a fault. The archiver or the API stopped
    on purpose (SIGTERM) is a note beside a running worker, not a fault of it; stuck, gone or waiting is one."""
    beats = [(heartbeat.WORKER, settings.heartbeat_file), (heartbeat.ARCHIVER, settings.archiver_heartbeat),
             (heartbeat.API, settings.api_heartbeat)]  # fmt: skip
    present = [(kind, path) for kind, path in beats if path.exists()]
    if not present:  # the worker's own message: what to start, with which setting
        return False, [f"unhealthy: {fault}" for fault in heartbeat.problems(settings.heartbeat_file, 1.0)]
    worker_runs = settings.heartbeat_file.exists() and not heartbeat.has_stopped(settings.heartbeat_file)
    faults: list[str] = []
    notes: list[str] = []
    for kind, path in present:
        found = heartbeat.problems(path, settings.health_max_age_s, kind=kind)
        if found and kind is not heartbeat.WORKER and worker_runs and heartbeat.has_stopped(path):
            notes += [f"note: {line} (stopped on purpose: the workers go on)" for line in found]
        else:
            faults += found
    if faults:
        return False, [f"unhealthy: {fault}" for fault in faults]
    try:
        (client or connect(settings)).ping()
    except REDIS_ERRORS as exc:
        return False, [f"unhealthy: Redis does not answer: {type(exc).__name__}: {exc}"]
    lines = [f"alert: {alert}" for _, path in present for alert in heartbeat.alerts(path)]  # shown, not failed
    running = [_who(kind, path) for kind, path in present if not heartbeat.has_stopped(path)]
    if not settings.heartbeat_file.exists():
        notes.append(f"note: no worker beats on this host (no heartbeat at {settings.heartbeat_file})")
    lines += [*notes, f"healthy: {', '.join(running)}, every heartbeat fresh, Redis answers"]
    if not growth:
        return True, lines
    client = client or connect(settings)
    degraded = _resets(client, settings)  # the data's state, not the processes': shown, never failed (a probe that
    # restarted the workers for it would stop the settling the new chain needs); /healthz leaves it out
    grows, behind = _archive_state(client, settings)  # an archive ahead of Redis's chain: a fault, never a lag
    if behind:
        return False, [f"unhealthy: {fault}" for fault in behind] + degraded + lines[:-1]
    if degraded:
        lines[-1] = lines[-1].replace("healthy: ", "the processes are healthy: ", 1)
    return True, degraded + lines + grows


def _resets(client: Client, settings: Settings) -> list[str]:
    """Per shard: a chain that restarted after Redis lost its data (until acknowledged), and the tournaments whose
    ledgers it lost (until restored): ``degraded: ...`` lines (``worker.restore``), shown first and on
    stderr, as alerts are; the exit status stays the processes' (the gauges and alerts page)."""
    lines: list[str] = []
    for shard in settings.shards:
        keys = settings.keys(shard)
        try:
            reset = read_reset(client, keys)
            lost = lost_tournaments(client, keys)
        except REDIS_ERRORS:  # a user that may not read them: health is about the process, say nothing more
            return lines
        if reset is not None and reset.acknowledged_at is None:
            lines.append(f"degraded: shard {shard}: {reset.text()}; {reset.hands} dedupe keys restored from the "
                         "archive; what the old epoch settled after its archived seq is lost (acknowledge: "
                         "`showdown audit verify --acknowledge-reset`)")  # fmt: skip
        if lost:
            named = ", ".join(lost[:5]) + (f" and {len(lost) - 5} more" if len(lost) > 5 else "")
            lines.append(f"degraded: shard {shard}: {len(lost)} tournaments lost their ledgers with Redis's data "
                         f"and are refused (ledger_lost) until restored: {named} (`showdown tournament restore "
                         "ID`)")  # fmt: skip
    return lines


def _who(kind: heartbeat.Kind, path: Path) -> str:
    """How ``healthy: ...`` names a running process: ``2 workers``, ``the archiver``, ``the read API``."""
    if kind is not heartbeat.WORKER:
        return kind.name
    workers = heartbeat.processes(path)
    return f"{workers} worker{'s' if workers > 1 else ''}"


def _what_grows(client: Client, settings: Settings) -> list[str]:
    """Per shard: how far the archive is behind the chain, or that nothing archives it (Redis grows), or that the
    archive goes past Redis's chain (a fault: see :func:`_archive_state`)."""
    grows, behind = _archive_state(client, settings)
    return grows + behind


def _archive_state(client: Client, settings: Settings) -> tuple[list[str], list[str]]:
    """Per shard: how far the archive is behind the chain, or that nothing archives it (Redis grows); and, apart,
    each shard whose archive goes past Redis's chain (Redis lost what it had archived: a fault, never a lag)."""
    lines: list[str] = []
    behind: list[str] = []
    for shard in settings.shards:
        keys = settings.keys(shard)
        try:
            head = audit.Head.decode(cast(bytes | None, client.get(keys.audit_head)))
            archived = cast(bytes | None, client.hget(keys.archive, "seq"))
        except REDIS_ERRORS:  # a user that may not read them: health is about the process, say nothing more
            return lines, behind
        if archived is None:
            lines.append(f"shard {shard}: no archiver: {head.seq} audit records so far; the audit, results, "
                         "dead-letter and standings streams grow in Redis (run `showdown archiver`)")  # fmt: skip
        elif int(archived) > head.seq:
            behind.append(f"shard {shard}: the archive holds the chain to seq {int(archived)} but Redis's chain is "
                          f"at seq {head.seq}: Redis lost what it held (restarted without its data, or restored "
                          "from an older copy); see Restore in docs/archive.md")  # fmt: skip
        else:
            lines.append(f"shard {shard}: archive lag {head.seq - int(archived)} entries "
                         f"(archived to seq {int(archived)} of {head.seq})")  # fmt: skip
    return lines, behind
