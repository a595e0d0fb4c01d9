"""One decision, everywhere: the worker (on a real server) and the replay decide every entry alike, through the
same preparation and the same pure decision step (:mod:`showdown_service.decision.decide`)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from typing import Any

import orjson
import pytest
import redis

from showdown_core.tournament import Book
from showdown_messages.protocol import ENTRY_ID_FIELD, EVENT_FIELD, TOURNAMENT_FIELD
from showdown_service.decision import audit
from showdown_service.decision.decide import decide, utc_text
from showdown_service.decision.intake import tournament_body, unwrap_event
from showdown_service.decision.settling import prepare
from showdown_service.decision.tournament_replay import TournamentReplay
from showdown_service.infra.streams import read_range
from showdown_service.worker.commit import COMMIT_LUA, EntryArgs, Header, LedgerArgs, ScriptKeys, plan
from showdown_service.worker.loop import Worker
from tests.helpers import REAL_SHOWDOWNS, read_cases
from tests.tournament_builders import all_in, closed, entry, opened

SHOWDOWN = [sys.executable, "-m", "showdown_service"]
CASH = next(iter(read_cases(REAL_SHOWDOWNS)))["event"]
"""A real showdown of no tournament."""
EARLY = entry("early")
"""Sent before its tournament's `open`: dead-lettered, then requeued."""
FIRST = [
    EARLY,
    opened(payouts=[500, 300, 200]),
    entry("a"),
    entry("b"),
    entry("c"),
    entry("a"),  # the same message again: a duplicate
    entry("a", 999),  # the same entry with other figures: refused (entry_conflict)
    json.dumps({"event": {**CASH, "hand_id": "cash-1"}}),
    json.dumps({"event": {**CASH, "hand_id": "cash-1"}}),  # a hand sent twice: a duplicate
    json.dumps({"event": {**CASH, "hand_id": "cash-1", "table_id": "elsewhere"}}),  # re-sent changed: a conflict
    json.dumps({"event": {**CASH, "hand_id": "cash-2", "variant": "pineapple"}}),  # refused unread
]
SECOND = [
    closed(),
    all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)]),  # b out: 4th of 4
    all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)]),  # a tournament hand sent twice: a duplicate
    all_in("h2", [(1, "a", 1500, 1000), (3, "c", 1000, 1000)]),  # a's stack is 2000: refused (stack_mismatch)
    all_in("h3", [(1, "a", 2000, 1000), (3, "c", 1000, 1000)]),  # c out: 3rd
    all_in("h4", [(1, "a", 3000, 1000), (4, "early", 1000, 1000)]),  # early out: 2nd; a wins
]
EXPECTED = [
    ("rejected", "tournament_not_open"),
    ("settled", None),
    ("settled", None),
    ("settled", None),
    ("settled", None),
    ("duplicate", None),
    ("rejected", "entry_conflict"),
    ("settled", None),
    ("duplicate", None),
    ("rejected", "conflicting_duplicate"),
    ("rejected", "unknown_variant"),
    ("settled", None),  # EARLY, requeued from its dead letter: the tournament is open now
    ("settled", None),
    ("settled", None),
    ("duplicate", None),
    ("rejected", "stack_mismatch"),
    ("settled", None),
    ("settled", None),
]


def entry_fields(line: str) -> dict[str, str]:
    """The stream entry a producer sends for a replay line: the message or event as written, in its field."""
    body = tournament_body(line)
    if body is not None:
        return {TOURNAMENT_FIELD: body}
    return {EVENT_FIELD: unwrap_event(line)}


def drain(worker: Worker) -> None:
    worker.run(until_idle=True)


def without_clock(result: bytes | None) -> dict[str, Any] | None:
    """A result without ``settled_at`` (the worker's clock is its own; the replay's is given)."""
    if result is None:
        return None
    doc = orjson.loads(result)
    del doc["settled_at"]
    return dict(doc)


@pytest.mark.parametrize("batch_size", [1, 50])
def test_the_worker_on_a_real_server_and_the_replay_decide_every_entry_alike(
    client: redis.Redis, worker_env: dict[str, str], make_settings: Any, batch_size: int
) -> None:
    settings = make_settings(url=worker_env["SHOWDOWN_REDIS_URL"], batch_size=batch_size)
    keys = settings.keys("default")
    worker = Worker(settings, client)
    ids = [client.xadd(keys.events, entry_fields(line)).decode() for line in FIRST]  # type: ignore[arg-type, union-attr]
    drain(worker)
    ((dead_id, dead), *_) = read_range(client, keys.dead)
    assert dead[b"code"] == b"tournament_not_open"
    requeue = [*SHOWDOWN, "dead-letters", "--requeue", dead_id.decode()]
    done = subprocess.run(requeue, env=worker_env, capture_output=True, text=True, check=True, timeout=60)
    ids.append(done.stdout.split(" as ")[1].split()[0])
    ids += [client.xadd(keys.events, entry_fields(line)).decode() for line in SECOND]  # type: ignore[arg-type, union-attr]
    drain(worker)

    records = {r["entry_id"]: r for r in (orjson.loads(f[b"audit"]) for _, f in read_range(client, keys.audit))}
    results = {f[ENTRY_ID_FIELD.encode()].decode(): f[b"result"] for _, f in read_range(client, keys.results)}
    standings = [orjson.loads(f[b"placement"]) for _, f in read_range(client, keys.standings)]

    run = TournamentReplay()
    run.feed([*FIRST, EARLY, *SECOND], source="agreement")

    assert len(run.decisions) == len(ids) == len(records) == len(EXPECTED)
    assert [(d.outcome, d.code) for d in run.decisions] == EXPECTED
    for entry_id, d in zip(ids, run.decisions, strict=True):
        record = records[entry_id]
        assert (record["outcome"], record["code"]) == (d.outcome, d.code), entry_id
        assert record["event_sha256"] == d.record["event_sha256"], entry_id
        assert record.get("standings_sha256") == d.record.get("standings_sha256"), entry_id
        assert without_clock(results.get(entry_id)) == without_clock(d.result), entry_id
        if entry_id in results:  # one clock: the result's settled_at is its audit record's at
            settled_at = orjson.loads(results[entry_id])["settled_at"]
            assert datetime.fromisoformat(settled_at) == datetime.fromisoformat(record["at"])
    assert standings == run.placements
    assert [(p["player_id"], p["place"], p["prize"]) for p in standings] == [
        ("b", 4, 0), ("c", 3, 200), ("early", 2, 300), ("a", 1, 500),
    ]  # fmt: skip
    assert [(r.line, r.code) for r in run.refused] == [
        (n, code) for n, (_, code) in enumerate(EXPECTED, 1) if code is not None
    ]


def test_the_replay_finds_a_hand_sent_twice_a_duplicate_where_it_once_refused_it(tmp_path: Any) -> None:
    hand = all_in("h1", [(1, "a", 1000, 100), (2, "b", 1000, 100)])
    lines = [opened(payouts=[100]), entry("a"), entry("b"), closed(), hand, hand]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    replay = [*SHOWDOWN, "tournament", "replay", str(path)]
    done = subprocess.run(replay, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "6 lines applied, 0 refused, 1 hands settled" in done.stderr


def test_the_decision_takes_its_clock_and_gives_the_same_bytes_for_the_same_inputs() -> None:
    instant = datetime(2026, 11, 25, 14, 0, 0, 123456, tzinfo=UTC)
    lines = [opened(payouts=[100], bounty_cash_ppm=500_000), entry("a", bounty=100), entry("b", bounty=100), closed(),
             all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)])]  # fmt: skip
    runs = [TournamentReplay(settled_at=instant) for _ in range(2)]
    for run in runs:
        run.feed(lines)
    first, second = ([(d.result, d.record_json, d.placement_texts) for d in run.decisions] for run in runs)
    assert first == second
    knockout = runs[0].decisions[-1]
    assert knockout.settlement is not None
    assert knockout.settlement.bounties, "the ledger settled the bounty from its heads"
    assert orjson.loads(knockout.result or b"{}")["settled_at"] == "2026-11-25T14:00:00.123456Z"
    assert knockout.record["at"] == utc_text(instant) == "2026-11-25T14:00:00.123456Z"


def test_entries_of_one_hand_in_one_batch_see_each_other_and_nothing_is_remembered_twice() -> None:
    now = datetime(2026, 11, 25, tzinfo=UTC)
    payload = orjson.dumps({**CASH, "hand_id": "x"})
    batch = [
        prepare(f"1-{i}", {b"event": payload}, failures=0, max_deliveries=5, max_payload_bytes=65536, now=now,
                started=0.0)
        for i in range(3)
    ]  # fmt: skip
    decided = decide(batch, {}, audit.EMPTY, worker="w", at=utc_text(now))
    assert [(d.outcome, d.remembers) for d in decided.decisions] == [
        ("settled", True), ("duplicate", False), ("duplicate", False)
    ]  # fmt: skip
    assert decided.hands == ["x"]
    assert decided.head == audit.Head(3, decided.decisions[-1].record["hash"])
    again = decide(batch[:1], {"x": batch[0].event_sha256}, decided.head, worker="w", at=utc_text(now))
    assert [(d.outcome, d.result) for d in again.decisions] == [("duplicate", None)]


def test_the_commit_packs_each_entry_in_the_named_layout_the_script_reads(make_settings: Any) -> None:
    keys = make_settings().keys("default")
    now = datetime(2026, 11, 25, tzinfo=UTC)
    batch = [
        prepare(f"1-{i}", {b"event": payload}, failures=0, max_deliveries=5, max_payload_bytes=65536, now=now,
                started=0.0)
        for i, payload in enumerate([orjson.dumps({**CASH, "hand_id": "x"}), b"{"])
    ]  # fmt: skip
    planned = plan(keys, batch, {}, audit.EMPTY, group="g", consumer="w", at=utc_text(now), dedupe_ttl_s=9,
                   maxlens=(0, 0, 0), dead_raw_max_bytes=1)  # fmt: skip
    header = Header(*planned.args[: len(Header._fields)])
    assert (header.group, header.worker, header.first_id, header.last_id) == ("g", "w", "1-0", "1-1")
    start = len(Header._fields) + 1 + len(planned.seen_keys) + 1  # the dedupe keys' count and values, the count
    width = len(EntryArgs._fields)
    settled, refused = (EntryArgs(*planned.args[start + i * width : start + (i + 1) * width]) for i in range(2))
    assert (settled.entry_id, settled.seen_index, settled.digest) == ("1-0", 1, batch[0].event_sha256)
    assert settled.result == planned.decisions[0].result
    assert settled.code == ""
    assert (refused.code, refused.raw, refused.raw_bytes, refused.seen_index) == ("malformed_json", b"{", 1, 0)
    assert planned.keys[len(ScriptKeys._fields)] == keys.seen("x")
    assert "KEYS[K.events]" in COMMIT_LUA
    assert "local E = {entry_id = 0, seen_index = 1" in COMMIT_LUA


def test_each_ledger_is_packed_with_its_open_flag_and_the_open_set_is_a_key_of_the_script(make_settings: Any) -> None:
    """A ledger written while its tournament is open goes with ``open="1"`` (the script SADDs its id to the shard's
    ``tournaments:open`` set), one whose winner is placed with ``"0"`` (SREM; on a real server:
    tests/ops/test_metrics.py's two tournaments, one finished): the open-tournaments gauge."""
    keys = make_settings().keys("default")
    now = datetime(2026, 11, 25, tzinfo=UTC)
    batch = [
        prepare(f"1-{i}", {TOURNAMENT_FIELD.encode(): tournament_body(line).encode()}, failures=0,  # type: ignore[union-attr]
                max_deliveries=5, max_payload_bytes=65536, now=now, started=0.0)
        for i, line in enumerate([opened("T"), entry("a"), entry("b")])
    ]  # fmt: skip
    planned = plan(keys, batch, {}, audit.EMPTY, group="g", consumer="w", at=utc_text(now), dedupe_ttl_s=9,
                   maxlens=(0, 0, 0), dead_raw_max_bytes=1, book=Book())  # fmt: skip
    assert [(d.outcome, d.code) for d in planned.decisions] == [("settled", None)] * 3
    w = len(Header._fields) + 1 + len(planned.seen_keys) + 1 + len(planned.decisions) * len(EntryArgs._fields)
    assert planned.args[w] == 1, "one ledger"
    assert planned.keys[planned.args[w + 1] - 1] == keys.tournaments_open == "showdown:{default}:tournaments:open"
    ledger = LedgerArgs(*planned.args[w + 2 : w + 2 + len(LedgerArgs._fields)])
    assert planned.keys[ledger.key_index - 1] == keys.tournament("T")
    assert (ledger.open, ledger.tournament_id) == ("1", "T")
    assert "local L = {key_index = 0, fields = 1, open = 2, tournament_id = 3}" in COMMIT_LUA
