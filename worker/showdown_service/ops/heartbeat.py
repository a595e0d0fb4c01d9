"""The heartbeat file: how a worker, or a group of them, tells ``showdown health`` that it is alive.

A worker touches its file every loop (at least once a second while it
runs) and replaces it whole (write, then rename) when its state changes. The
file holds:

* nothing: the worker is working;
* ``{"waiting_for": "Redis refuses writes: OOM (...)", "reason": "OOM", "since": <unix s>}``:
  alive, waiting for Redis, and resuming by itself;
* the same with ``"fault": "<what an operator must do>"``: alive and retrying an error that does not go away by
  itself (WRONGTYPE, NOPERM, ...);
* ``"alerts": ["..."]`` beside any of these: what went wrong and is over (unread events deleted), for
  ``showdown health`` to show without failing;
* ``{"stopped_at": <unix s>}``: the worker stopped (SIGTERM, Ctrl-C) and settles nothing any more.

``showdown worker --processes N`` runs worker ``i`` with the file
``<file>.<i>`` and keeps ``<file>`` itself, for the group:
``{"processes": ["<file>.0", ...]}``, touched every second while it
supervises (and ``stopped_at`` added once it stopped them). ``showdown
health`` is healthy only if the file it reads, and every file it lists, is
fresh (no older than ``SHOWDOWN_HEALTH_MAX_AGE_S``), neither stopped nor
waiting.

The archiver and the read API beat in files of their own (by default beside
the worker's: ``<file>.archiver`` and ``<file>.api``), each held by its
lock as the worker's is, so that ``showdown health`` tells the three apart
and one never writes over another's state (:data:`WORKER`, :data:`ARCHIVER`,
:data:`API`).
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

BEAT_INTERVAL_S = 1.0
"""A running worker or supervisor touches its file at least this often (s), when its loop is not blocked."""


@dataclass(frozen=True, slots=True)
class Kind:
    """A kind of process that beats: how ``showdown health`` names it, the command that starts it, and the setting
    that names its heartbeat file."""

    name: str
    command: str
    setting: str


WORKER = Kind("the worker", "showdown worker", "SHOWDOWN_HEARTBEAT_FILE")
ARCHIVER = Kind("the archiver", "showdown archiver", "SHOWDOWN_ARCHIVER_HEARTBEAT_FILE")
API = Kind("the read API", "showdown api", "SHOWDOWN_API_HEARTBEAT_FILE")


def write(path: Path, state: Mapping[str, Any] | None = None) -> None:
    """Replace the heartbeat file at ``path`` whole (write, then rename): ``state`` as JSON, or empty (working),
    so that ``showdown health`` never reads half of it."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    partial.write_bytes(orjson.dumps(state) if state else b"")
    partial.replace(path)


class HeartbeatTaken(OSError):
    """Another live process on this host beats in the same file: the message says exactly what to set."""

    def __init__(self, path: Path, kind: Kind = WORKER) -> None:
        if kind is WORKER:
            super().__init__(
                f"{path} is the heartbeat file of another worker on this host (so `showdown health` could not tell "
                f"them apart): give this worker its own, e.g. SHOWDOWN_HEARTBEAT_FILE={path}.2 (and to its "
                "`showdown health`), or run one `showdown worker --processes N` instead"
            )
        else:
            super().__init__(
                f"{path} is the heartbeat file of {kind.name} already running on this host (`{kind.command}`): "
                f"stop that one, or give this one its own, e.g. {kind.setting}={path}.2"
            )


def claim(path: Path, kind: Kind = WORKER) -> IO[bytes]:
    """Hold ``<path>.lock`` (an exclusive ``flock``) for as long as the returned file stays open: one process beats
    in ``path`` at a time. Raises :class:`HeartbeatTaken` (naming ``kind``) while another live process holds it (a
    dead one's lock is released by the kernel with its files)."""
    lock = path.with_name(f"{path.name}.lock").open("ab")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise HeartbeatTaken(path, kind) from None
    return lock


def has_stopped(path: Path) -> bool:
    """Whether the process whose heartbeat is at ``path`` said it stopped (SIGTERM, Ctrl-C): not stuck, not gone."""
    try:
        return isinstance(_state(path.read_bytes()).get("stopped_at"), int | float)
    except FileNotFoundError:
        return False


def keep_beating(path: Path, stop: threading.Event) -> None:
    """Touch ``path`` every :data:`BEAT_INTERVAL_S` until ``stop`` (a thread of a process whose loop is not ours to
    touch it from: the read API's server)."""
    while not stop.wait(BEAT_INTERVAL_S):
        path.touch()


def problems(
    path: Path, max_age_s: float, *, now: float | None = None, group: bool = True, kind: Kind = WORKER
) -> list[str]:
    """Why the process of ``kind`` (the worker, or every worker of the group; the archiver; the read API) whose
    heartbeat is at ``path`` is not healthy: one line each, naming the file, the process and what to do; empty
    when it is. ``group``: follow a supervisor's list of files (one level: a worker's file lists none)."""
    now = time.time() if now is None else now
    try:
        age = now - path.stat().st_mtime
        state = _state(path.read_bytes())
    except FileNotFoundError:
        return [f"no heartbeat at {path}: start `{kind.command}` with this {kind.setting}"]
    out: list[str] = []
    processes = state.get("processes") if kind is WORKER else None
    who = "the group's supervisor (worker --processes)" if isinstance(processes, list) else kind.name
    stopped = state.get("stopped_at")
    if isinstance(stopped, int | float):
        out.append(f"{path}: {who} stopped {max(0.0, now - stopped):.0f}s ago; start `{kind.command}` again")
    elif age > max_age_s:
        out.append(
            f"{path}: the heartbeat is {age:.0f}s old (limit {max_age_s:g}s, SHOWDOWN_HEALTH_MAX_AGE_S): {who} "
            "is stuck or gone; restart it"
        )
    elif state.get("waiting_for"):
        since = state.get("since")
        waited = f" for {max(0.0, now - since):.0f}s" if isinstance(since, int | float) else ""
        fault = state.get("fault")
        then = f"it cannot resume by itself: {fault}" if fault else "it resumes by itself"
        out.append(f"{path}: {kind.name} is waiting: {state['waiting_for']}{waited}; {then}")
    if group and isinstance(processes, list):
        for child in processes:
            out += problems(Path(str(child)), max_age_s, now=now, group=False)
    return out


def alerts(path: Path) -> list[str]:
    """What the worker (or each worker of a group) at ``path`` reports as gone wrong and over: one line each."""
    try:
        state = _state(path.read_bytes())
    except FileNotFoundError:
        return []
    out = [f"{path}: {alert}" for alert in state.get("alerts") or [] if isinstance(alert, str)]
    for child in state.get("processes") or []:
        out += alerts(Path(str(child)))
    return out


def processes(path: Path) -> int:
    """How many workers the heartbeat at ``path`` stands for: those a supervisor lists, else 1."""
    try:
        listed = _state(path.read_bytes()).get("processes")
    except FileNotFoundError:
        return 1
    return len(listed) if isinstance(listed, list) else 1


def _state(raw: bytes) -> dict[str, Any]:
    """A heartbeat file's state; empty (working) when it is empty or not written by this version."""
    try:
        doc = orjson.loads(raw) if raw.strip() else {}
    except orjson.JSONDecodeError:
        return {}
    return doc if isinstance(doc, dict) else {}
