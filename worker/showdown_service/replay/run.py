"""Replay files: find them, tell their format by content, read every hand, settle it and compare.

The work unit is a file; :func:`replay_files` spreads files over processes
(``jobs``) and returns results in the order of the files given, so the
report does not depend on the number of processes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import NamedTuple

from showdown_service.replay.compare import Verdict, error_verdict, judge
from showdown_service.replay.errors import HandSyntaxError, ReplayError, UnknownFormat
from showdown_service.replay.hands import HandRecord
from showdown_service.replay.phh import read_phh
from showdown_service.replay.pokerstars import read_pokerstars

PHH, POKERSTARS = "phh", "pokerstars"


class FileResult(NamedTuple):
    """Everything replaying one file produced."""

    source: str
    format: str | None
    """``phh``, ``pokerstars``, or ``None`` when the file is not a hand history (skipped)."""
    verdicts: list[Verdict]
    events: list[bytes]
    """The ShowdownEvent JSON of each hand that could be settled, in order (only when asked for)."""


def find_files(paths: Iterable[str]) -> tuple[list[str], list[str]]:
    """``(files, named)``: every file under ``paths`` (directories walked recursively, sorted); those given by name."""
    files: list[str] = []
    named: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(str(p) for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
            files += found
        else:
            files.append(raw)
            named.append(raw)
    return files, named


def detect(text: str) -> str | None:
    """``phh``, ``pokerstars`` or ``None``, by the first line that is not blank or a ``#`` comment."""
    for line in text.lstrip("\ufeff").splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("PokerStars "):
            return POKERSTARS
        if stripped.startswith("[") and stripped.endswith("]") and "=" not in stripped:
            return PHH
        key, equals, _ = stripped.partition("=")
        if equals and key.strip().replace("_", "").replace("-", "").isalnum():
            return PHH
        return None
    return None


def read_file(source: str, named: bool = False) -> tuple[str | None, Iterator[HandRecord | ReplayError]]:
    """The format of ``source`` and its hands; a file given by name that is no hand history is an error.

    A hand history that is not UTF-8 is an error at the line of its first bad byte, found by name or not.
    """
    try:
        raw = Path(source).read_bytes()
    except OSError as exc:
        return None, iter([UnknownFormat(source, None, None, f"cannot read it: {exc.strerror}")])
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        kind = detect(raw.decode("utf-8-sig", errors="replace"))
        if kind is not None:
            line = raw.count(b"\n", 0, exc.start) + 1
            return kind, iter([HandSyntaxError(source, None, line, f"not UTF-8 text ({exc.reason})")])
        if not named:
            return None, iter(())
        return None, iter([UnknownFormat(source, None, None, f"not UTF-8 text ({exc.reason})")])
    kind = detect(text)
    if kind == PHH:
        return kind, read_phh(text, source)
    if kind == POKERSTARS:
        return kind, read_pokerstars(text, source)
    if named:
        return None, iter([UnknownFormat(source, None, None, "neither a PHH nor a PokerStars hand history")])
    return None, iter(())


def replay_file(source: str, named: bool = False, emit: bool = False) -> FileResult:
    """Read, settle and compare every hand of one file."""
    kind, hands = read_file(source, named)
    verdicts: list[Verdict] = []
    events: list[bytes] = []
    for hand in hands:
        if isinstance(hand, ReplayError):
            verdicts.append(error_verdict(hand))
            continue
        verdicts.append(judge(hand))
        if emit and hand.event is not None:
            events.append(hand.event.model_dump_json(exclude_none=True).encode())  # as publish() sends it
    return FileResult(source, kind, verdicts, events)


def _replay_batch(batch: Sequence[tuple[str, bool]], emit: bool) -> list[FileResult]:
    return [replay_file(source, named, emit) for source, named in batch]


def replay_files(
    files: Sequence[str],
    named: Iterable[str] = (),
    *,
    jobs: int = 1,
    emit: bool = False,
    progress: Callable[[FileResult], None] | None = None,
) -> Iterator[FileResult]:
    """Each file's result, in the order of ``files``, computed by ``jobs`` processes."""
    given = set(named)
    work = [(source, source in given) for source in files]
    if jobs <= 1 or len(work) < 2:
        for source, is_named in work:
            result = replay_file(source, is_named, emit)
            if progress:
                progress(result)
            yield result
        return
    size = min(64, len(work) // (jobs * 8)) or 1
    batches = [work[k : k + size] for k in range(0, len(work), size)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for results in pool.map(_replay_batch, batches, [emit] * len(batches)):
            for result in results:
                if progress:
                    progress(result)
                yield result


def cpu_count() -> int:
    """Processes available to this one."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
