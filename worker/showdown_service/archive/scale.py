"""``showdown audit replay ARCHIVE --engine dask``: the replay's files read and prepared on a Dask cluster.

The one-machine replay (:mod:`.replay`) reads each archive file and prepares each row (the worker's own
validation and settlement of the archived entry: :func:`.resettle.prepare_rows`, the CPU-heavy half), then
proves the rows in chain order. Here each file is one task on a Dask distributed cluster (each row group one
task, for a file of several): the Dask worker reads it, from its own disk or from S3 (the archive's pyarrow
filesystem, opened on the worker with the same settings by
:func:`showdown_service.storage.layout.open_store`), prepares its rows and sends back the table and the
preparations. This process (the driver) stitches them in chain order and proves them exactly as the
one-machine run does (the same :func:`.replay._replay_chain`): the same differences in the same order, the same
totals, so the same report and exit status.

Every shard's chains are listed first (what :func:`.chains.chains` reports is held and given to the report
where the one-machine run gives it); then the files' tasks are submitted in chain order, at most
:attr:`DaskEngine.ahead` ahead of the file the driver proves, so the cluster works ahead of the driver and the
results it holds stay bounded. A file any of whose parts could not be read is read again by the driver as a
whole, so its ``unreadable_file`` names the error the one-machine run names.

Dask distributed is an optional extra (``pip install 'showdown-service[scale]'``), imported only here and only
when ``--engine dask`` is asked for. The choice of Dask over Ray, with the figures: docs/scale.md.
"""

from __future__ import annotations

import importlib
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.parquet as pq
from pyarrow.lib import ArrowException

from showdown_service.archive.chains import Chain, ChainFile, Difference, chains
from showdown_service.archive.resettle import prepare_rows
from showdown_service.decision.settling import Prepared
from showdown_service.infra.config import Settings
from showdown_service.storage.layout import ArchiveError, Store, open_store, read_rows

Part = tuple[pa.Table, list[Prepared | None]] | str
"""One task's answer: the rows it read and their preparations, or why the file could not be read."""
Loaded = tuple[list[dict[str, Any]], list[Prepared | None]] | str
"""One file as :func:`.replay._replay_chain` proves it: its rows and their preparations, or why not."""


@dataclass(frozen=True, slots=True)
class Job:
    """One task: a file of the archive at ``url``, or one row group of it (``group``, of ``groups``)."""

    url: str
    path: str
    settings: Settings
    group: int | None = None
    groups: int = 1


class Engine(Protocol):
    """What the replay asks of a distributed engine: each task's answer, in the order the tasks are given."""

    def run(self, tasks: Iterable[Job]) -> Iterator[tuple[Job, Part]]: ...


class EngineMissing(Exception):
    """``--engine dask`` without Dask distributed installed."""


def prepare_part(job: Job) -> Part:
    """The task run on a Dask worker: read the file (or row group) and prepare each of its rows."""
    try:
        store = open_store(job.url, job.settings)
        table = read_rows(store, job.path) if job.group is None else _read_group(store, job.path, job.group)
    except ArchiveError as exc:
        return str(exc)
    return table, prepare_rows(table.to_pylist(), job.settings)


def _read_group(store: Store, path: str, group: int) -> pa.Table:
    try:
        with store.fs.open_input_file(path) as handle:
            return pq.ParquetFile(handle).read_row_group(group)
    except (ArrowException, OSError) as exc:
        raise ArchiveError(f"archive file {path}: cannot be read: {exc}") from exc


def _row_groups(store: Store, path: str) -> int:
    """How many row groups the file has (1 when its footer cannot be read: the whole file is then one task, which
    names the error)."""
    try:
        with store.fs.open_input_file(path) as handle:
            return max(1, int(pq.read_metadata(handle).num_row_groups))
    except (ArrowException, OSError):
        return 1


@dataclass(slots=True)
class Planned:
    """One shard's chains as :func:`.chains.chains` lists them, what it reported doing so, and the error it
    raised (then given where the one-machine run raises it: after that shard's reports)."""

    shard: str
    chains: list[Chain] = field(default_factory=list)
    reports: list[Difference] = field(default_factory=list)
    error: ArchiveError | None = None


def plan(store: Store, names: list[str]) -> list[Planned]:
    """Every shard's chains, listed before any file is proven: the tasks of all of them can then be submitted."""
    planned: list[Planned] = []
    for shard in names:
        one = Planned(shard)
        try:
            one.chains = chains(store, shard, one.reports.append)
        except ArchiveError as exc:
            one.error = exc
            planned.append(one)
            break  # the one-machine run stops here too
        planned.append(one)
    return planned


def jobs(store: Store, settings: Settings, planned: list[Planned]) -> Iterator[Job]:
    """The tasks in chain order: shard by shard, chain by chain, file by file, row group by row group (each file's
    footer is read as its tasks are submitted, not all first)."""
    for one in planned:
        for chain in one.chains:
            for file in chain.files:
                groups = _row_groups(store, file.path)
                if groups == 1:
                    yield Job(store.url, file.path, settings)
                    continue
                for group in range(groups):
                    yield Job(store.url, file.path, settings, group, groups)


class Gathered:
    """The tasks' answers, taken in chain order by :func:`.replay._replay_chain` a file at a time."""

    def __init__(self, answers: Iterator[tuple[Job, Part]]) -> None:
        self._answers = answers

    def files(self, files: list[ChainFile]) -> Iterator[Loaded]:
        for file in files:
            job, part = next(self._answers)
            assert job.path == file.path, f"answers out of chain order: {job.path} for {file.path}"
            parts = [part]
            parts += [next(self._answers)[1] for _ in range(job.groups - 1)]
            if any(isinstance(p, str) for p in parts) and job.groups > 1:
                parts = [prepare_part(Job(job.url, job.path, job.settings))]  # the whole file's own error
            yield _stitched(parts)


def _stitched(parts: list[Part]) -> Loaded:
    rows: list[dict[str, Any]] = []
    prepared: list[Prepared | None] = []
    for part in parts:
        if isinstance(part, str):
            return part
        table, ready = part
        rows += table.to_pylist()
        prepared += ready
    return rows, prepared


class DaskEngine:
    """A Dask distributed client: of the scheduler at ``address``, else of a cluster of ``workers`` processes
    started here on 127.0.0.1 (closed with the engine). ``timeout_s``: longest wait for one task's answer (None:
    as long as it takes)."""

    def __init__(
        self,
        address: str | None = None,
        *,
        workers: int = 2,
        ahead: int | None = None,
        timeout_s: float | None = None,
    ) -> None:
        try:  # the optional extra, imported only when asked for (its Client and LocalCluster carry no types)
            distributed: Any = importlib.import_module("distributed")
        except ImportError as exc:
            raise EngineMissing("--engine dask needs Dask distributed: pip install 'showdown-service[scale]'") from exc
        self.cluster: Any = None
        if address:
            self.client: Any = distributed.Client(address, timeout="30s")
        else:
            self.cluster = distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                scheduler_port=0,
                dashboard_address="127.0.0.1:0",  # a free port: never 8787, which another cluster may hold
            )
            self.client = distributed.Client(self.cluster)
        self.timeout_s = timeout_s
        threads = sum(self.client.nthreads().values()) or 1
        self.ahead = ahead if ahead is not None else 4 * threads
        """Tasks submitted ahead of the file being proven: the cluster's threads kept busy, its memory bounded."""

    def __enter__(self) -> DaskEngine:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def run(self, tasks: Iterable[Job]) -> Iterator[tuple[Job, Part]]:
        """Each task's answer, in the order given; at most :attr:`ahead` submitted and not yet taken."""
        pending: deque[tuple[Job, Any]] = deque()
        waiting = iter(tasks)
        for job in waiting:
            pending.append((job, self.client.submit(prepare_part, job, pure=False)))
            if len(pending) >= self.ahead:
                break
        while pending:
            job, future = pending.popleft()
            following = next(waiting, None)
            if following is not None:
                pending.append((following, self.client.submit(prepare_part, following, pure=False)))
            part: Part = future.result(timeout=self.timeout_s)
            future.release()
            yield job, part
