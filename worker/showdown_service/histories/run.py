"""Replay files: find them, tell their format by content, read every hand, settle it and compare.

The work unit is a file; :func:`replay_files` spreads files over processes
(``jobs``) and returns results in the order of the files given, so the
report does not depend on the number of processes.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Final, NamedTuple

from showdown_core.rake import Schedule
from showdown_service.histories import (
    acr,
    bossmedia,
    bovada,
    entraction,
    fulltilt,
    ggpoker,
    igt,
    ipoker,
    merge,
    microgaming,
    ohh,
    ongame,
    pacific,
    partypoker,
    phh,
    pkr,
    pokerstars,
    winamax,
    wpn,
)
from showdown_service.histories.compare import Verdict, error_verdict, judge
from showdown_service.histories.errors import HandSyntaxError, ReplayError, UnknownFormat, unreadable
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.rake_audit import check_rake
from showdown_service.histories.reader import Head, Reader

REGISTERED: Final[tuple[Reader, ...]] = (
    pokerstars.READER,
    fulltilt.READER,
    ggpoker.READER,
    acr.READER,
    bovada.READER,
    igt.READER,
    ohh.READER,
    ipoker.READER,
    microgaming.READER,
    bossmedia.READER,
    merge.READER,
    wpn.READER,
    winamax.READER,
    ongame.READER,
    entraction.READER,
    pkr.READER,
    pacific.READER,
    partypoker.READER,
    phh.READER,
)
"""The readers in the order :func:`detect` asks them, most specific first: the rooms told by their own first line;
among the XML rooms iPoker first (a ``<session`` anywhere in the opening wins), then Microgaming, Boss Media and
Merge; OnGame's ``***** History for hand`` before the banner 888poker and partypoker share; PHH last, whose
``key = value`` line is the loosest opening."""

PHH, POKERSTARS, PACIFIC, WINAMAX, PARTYPOKER, FULLTILT, WPN, IPOKER, OHH, GGPOKER, ACR, BOVADA = (
    phh.READER.name, pokerstars.READER.name, pacific.READER.name, winamax.READER.name, partypoker.READER.name,
    fulltilt.READER.name, wpn.READER.name, ipoker.READER.name, ohh.READER.name, ggpoker.READER.name,
    acr.READER.name, bovada.READER.name,
)  # fmt: skip
MICROGAMING: Final = microgaming.READER.name
ONGAME: Final = ongame.READER.name
BOSSMEDIA: Final = bossmedia.READER.name
ENTRACTION: Final = entraction.READER.name
MERGE: Final = merge.READER.name
IGT: Final = igt.READER.name
PKR: Final = pkr.READER.name

_LISTED: Final = (
    PHH, POKERSTARS, PACIFIC, WINAMAX, PARTYPOKER, FULLTILT, WPN, IPOKER, OHH, GGPOKER, ACR, BOVADA, MICROGAMING,
    ONGAME, BOSSMEDIA, ENTRACTION, MERGE, IGT, PKR,
)  # fmt: skip
"""The formats in the order an unknown file's error lists them (the order they were added)."""

READERS: Final[dict[str, Callable[[str, str], Iterator[HandRecord | ReplayError]]]] = {
    name: reader.read for name in _LISTED for reader in REGISTERED if reader.name == name
}
"""Each format's reader: ``reader(text, source)`` yields every hand of the file, read, or the error that stopped it."""


class FileResult(NamedTuple):
    """Everything replaying one file produced."""

    source: str
    format: str | None
    """``phh``, ``pokerstars``, or ``None`` when the file is not a hand history (skipped)."""
    verdicts: list[Verdict]
    events: list[bytes]
    """The ShowdownEvent JSON of each hand that could be settled, in order (only when asked for)."""
    encoding: str = "UTF-8"
    """The text encoding the file was read in (see :func:`decode`)."""


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
    """The format of ``text``: the first of the :data:`REGISTERED` readers whose own predicate accepts the file's
    :class:`~.reader.Head` (its first line that is not blank, a ``#`` comment or an archive export's ``*** # 1 ***``
    separator, and its opening), or ``None`` (no hand history: a PokerStars tournament summary, ``PokerStars
    Tournament #``, is none)."""
    head = Head.of(text)
    if head is None:
        return None
    return next((reader.name for reader in REGISTERED if reader.detect(head)), None)


def decode(raw: bytes) -> tuple[str, str, UnicodeDecodeError | None]:
    """``(text, encoding, error)``: ``raw`` as text, the encoding it was read in, and the UTF-8 error if it is not
    UTF-8.

    A byte order mark decides (UTF-8, UTF-16 LE or BE); UTF-16 without one is
    told by its zero bytes; otherwise UTF-8, and text that is not UTF-8 is
    read as Windows-1252 (the Windows exports), whose five unassigned bytes
    read as Latin-1. Decoding never fails.
    """
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16", errors="replace"), "UTF-16", None
    sample = raw[:400]
    if len(sample) >= 4 and sample.count(0) * 3 >= len(sample):
        odd = sample[1::2].count(0) > sample[0::2].count(0)
        encoding = "utf-16-le" if odd else "utf-16-be"
        return raw.decode(encoding, errors="replace"), "UTF-16", None
    try:
        return raw.decode("utf-8-sig"), "UTF-8", None
    except UnicodeDecodeError as exc:
        return raw.decode("cp1252", errors=_LATIN1), "Windows-1252", exc


def _as_latin1(error: UnicodeError) -> tuple[str, int]:
    assert isinstance(error, UnicodeDecodeError)
    return error.object[error.start : error.end].decode("latin-1"), error.end


_LATIN1: Final = "showdown-replay-latin1"
"""Decoding errors handler: the five bytes Windows-1252 leaves unassigned read as Latin-1 (the same code point)."""
codecs.register_error(_LATIN1, _as_latin1)


def read_file(source: str, named: bool = False) -> tuple[str | None, Iterator[HandRecord | ReplayError], str]:
    """The format of ``source``, its hands and the encoding it was read in; a file given by name that is no hand
    history is an error.

    PokerStars exports in any encoding are read (see :func:`decode`). A PHH
    file is TOML, which is UTF-8: one that is not is an error at the line of
    its first bad byte.
    """
    try:
        raw = Path(source).read_bytes()
    except OSError as exc:
        return None, iter([UnknownFormat(source, None, None, f"cannot read it: {exc.strerror}")]), ""
    text, encoding, error = decode(raw)
    kind = detect(text)
    if error is not None and kind == PHH:
        line = raw.count(b"\n", 0, error.start) + 1
        reason = f"not UTF-8 text ({error.reason}); PHH is TOML, which is UTF-8"
        return kind, iter([HandSyntaxError(source, None, line, reason)]), encoding
    if error is not None and kind is None:
        if not named:
            return None, iter(()), encoding
        return None, iter([UnknownFormat(source, None, None, f"not UTF-8 text ({error.reason})")]), encoding
    if kind is not None:
        return kind, _guarded(READERS[kind](text, source), source), encoding
    if named:
        reason = f"not a hand history of a format read here ({', '.join(READERS)})"
        return None, iter([UnknownFormat(source, None, None, reason)]), encoding
    return None, iter(()), encoding


def _guarded(hands: Iterator[HandRecord | ReplayError], source: str) -> Iterator[HandRecord | ReplayError]:
    """``hands``, and when a reader fails in a way no hand of it caught, that failure as the file's last error (at
    the line of the last hand read, if any): the replay goes on with the next file."""
    line = None
    try:
        for hand in hands:
            line = hand.line
            yield hand
    except Exception as exc:  # hostile text no reader foresaw: an error of the file, never the run's
        yield unreadable(exc, source, None, line)


def replay_file(source: str, named: bool = False, emit: bool = False, schedule: Schedule | None = None) -> FileResult:
    """Read, settle and compare every hand of one file; with a ``schedule``, check each hand's rake against it."""
    kind, hands, encoding = read_file(source, named)
    verdicts: list[Verdict] = []
    events: list[bytes] = []
    for hand in hands:
        if isinstance(hand, ReplayError):
            verdicts.append(error_verdict(hand))
            continue
        verdict = judge(hand)
        if schedule is not None and (check := check_rake(hand, schedule)) is not None:
            verdict = verdict._replace(rake_check=check)
        verdicts.append(verdict)
        if emit and hand.event is not None:
            events.append(hand.event.model_dump_json(exclude_none=True).encode())  # as publish() sends it
    return FileResult(source, kind, verdicts, events, encoding)


def _replay_batch(batch: Sequence[tuple[str, bool]], emit: bool, schedule: Schedule | None) -> list[FileResult]:
    return [replay_file(source, named, emit, schedule) for source, named in batch]


def replay_files(
    files: Sequence[str],
    named: Iterable[str] = (),
    *,
    jobs: int = 1,
    emit: bool = False,
    progress: Callable[[FileResult], None] | None = None,
    schedule: Schedule | None = None,
) -> Iterator[FileResult]:
    """Each file's result, in the order of ``files``, computed by ``jobs`` processes; with a rake ``schedule``,
    each hand's rake checked against it."""
    given = set(named)
    work = [(source, source in given) for source in files]
    if jobs <= 1 or len(work) < 2:
        for source, is_named in work:
            result = replay_file(source, is_named, emit, schedule)
            if progress:
                progress(result)
            yield result
        return
    size = min(64, len(work) // (jobs * 8)) or 1
    batches = [work[k : k + size] for k in range(0, len(work), size)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for results in pool.map(_replay_batch, batches, [emit] * len(batches), [schedule] * len(batches)):
            for result in results:
                if progress:
                    progress(result)
                yield result


def cpu_count() -> int:
    """Processes available to this one."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
