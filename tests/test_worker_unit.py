"""The worker's logic on fakeredis: outcomes, dedupe, dead letters, audit, poison, trimming."""

from __future__ import annotations

import json
import time
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import fakeredis
import orjson
import pytest

from showdown_messages import AuditRecord, DeadLetter, ShowdownResult
from showdown_service import audit
from showdown_service.commit import plan
from showdown_service.settling import prepare
from showdown_service.streams import read_range
from showdown_service.worker import Worker
from tests.helpers import BUNDLED_SHOWDOWNS, event, read_cases, seat, xadd_events

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
CASES = list(read_cases(BUNDLED_SHOWDOWNS))
GOOD = event(seat(1, "As Ad", 500), seat(2, "Kc Kd", 500), board="2c 7d 9h Js 3s", hand_id="good-1")


def drain(worker: Worker, rounds: int = 5) -> None:
    for _ in range(rounds):
        worker.step()
    worker.flush()


def audit_records(client: Any, key: str) -> list[dict[str, Any]]:
    return [orjson.loads(fields[b"audit"]) for _, fields in read_range(client, key)]


def dead_letters(client: Any, key: str) -> list[dict[str, str]]:
    return [{k.decode(): v.decode(errors="replace") for k, v in f.items()} for _, f in read_range(client, key)]


def prepared(raw: bytes | None, deliveries: int = 1, max_payload_bytes: int = 64 * 1024) -> Any:
    fields = None if raw is None else {b"event": raw}
    return prepare(
        "1-0", fields, deliveries, max_deliveries=5, max_payload_bytes=max_payload_bytes, now=NOW, started=0.0
    )


# --- judging one entry ---------------------------------------------------------------------


def test_a_valid_event_is_settled_with_digests_of_event_and_result() -> None:
    p = prepared(json.dumps(GOOD).encode())
    assert p.valid
    assert p.result is not None
    assert orjson.loads(p.result)["hand_id"] == "good-1"
    assert len(p.event_sha256) == len(p.result_sha256 or "") == 64


def test_the_event_digest_ignores_key_order_spacing_and_card_spelling() -> None:
    same = dict(reversed(list(GOOD.items())))
    same["players"] = [dict(p) for p in GOOD["players"]]
    same["players"][0]["hole_cards"] = ["A♠", "ad"]
    a = prepared(json.dumps(GOOD).encode())
    b = prepared(json.dumps(same, indent=2).encode())
    assert a.event_sha256 == b.event_sha256
    other = dict(GOOD, table_id="T-2")
    assert prepared(json.dumps(other).encode()).event_sha256 != a.event_sha256


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b'{"schema_version": 1,', "malformed_json"),
        (b"[]", "not_an_object"),
        (json.dumps({**GOOD, "variant": "pineapple"}).encode(), "unknown_variant"),
        (json.dumps({**GOOD, "board": ["2c", "7d", "9h", "Js", "As"]}).encode(), "duplicate_card"),
    ],
)
def test_bad_input_becomes_a_rejection_never_an_exception(raw: bytes, code: str) -> None:
    p = prepared(raw)
    assert (p.valid, p.code) == (False, code)
    assert p.message
    assert p.raw == raw


def test_an_entry_without_an_event_field_or_deleted_is_refused_as_missing_event() -> None:
    assert prepare("1-0", {b"evnt": b"{}"}, 1, max_deliveries=5, max_payload_bytes=999, now=NOW, started=0).code == (
        "missing_event"
    )
    assert prepared(None).code == "missing_event"


def test_an_oversized_payload_is_refused_unread() -> None:
    p = prepared(json.dumps(GOOD).encode(), max_payload_bytes=256)
    assert p.code == "payload_too_large"
    assert "limit is 256" in (p.message or "")


def test_an_entry_delivered_too_often_is_poison() -> None:
    p = prepared(json.dumps(GOOD).encode(), deliveries=6)
    assert p.code == "poison"
    assert "6 times" in (p.message or "")


def test_a_refused_payload_still_names_the_hand_it_claims_to_be() -> None:
    p = prepared(json.dumps({**GOOD, "variant": "pineapple"}).encode())
    assert (p.hand_id, p.table_id) == ("good-1", "T-1")


# --- planning a commit -------------------------------------------------------------------------


def test_a_plan_settles_new_hands_dedupes_resends_and_rejects_conflicts(make_settings: Any) -> None:
    keys = make_settings().keys("default")
    first = prepared(json.dumps(GOOD).encode())
    resend = prepared(json.dumps(GOOD).encode())
    changed = prepared(json.dumps({**GOOD, "table_id": "T-9"}).encode())
    bad = prepared(b"{")
    batch = [first, resend, changed, bad]
    for i, p in enumerate(batch):
        p.entry_id = f"10-{i}"
    planned = plan(
        keys, batch, {}, audit.EMPTY, group="g", consumer="w1", at="t", dedupe_ttl_s=9,
        maxlens=(0, 0, 0), dead_raw_max_bytes=10,
    )  # fmt: skip
    assert [(d.outcome, d.code) for d in planned.decisions] == [
        ("settled", None),
        ("duplicate", None),
        ("rejected", "conflicting_duplicate"),
        ("rejected", "malformed_json"),
    ]
    assert [d.record["seq"] for d in planned.decisions] == [1, 2, 3, 4]
    assert planned.decisions[1].record["prev_hash"] == planned.decisions[0].record["hash"]
    assert planned.head == audit.Head(4, planned.decisions[-1].record["hash"])
    assert planned.seen_keys == [keys.seen("good-1")]


def test_a_plan_against_a_known_hand_marks_the_resend_duplicate(make_settings: Any) -> None:
    keys = make_settings().keys("default")
    p = prepared(json.dumps(GOOD).encode())
    planned = plan(
        keys, [p], {keys.seen("good-1"): p.event_sha256}, audit.EMPTY, group="g", consumer="w1", at="t",
        dedupe_ttl_s=9, maxlens=(0, 0, 0), dead_raw_max_bytes=10,
    )  # fmt: skip
    assert planned.decisions[0].outcome == "duplicate"
    assert planned.decisions[0].record["result_sha256"] is None


# --- the loop -------------------------------------------------------------------------------------


def test_the_worker_settles_every_bundled_hand_exactly(fake: fakeredis.FakeRedis, make_settings: Any) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    xadd_events(fake, keys.events, [case["event"] for case in CASES])
    worker = Worker(settings, fake)
    worker.prepare_groups()
    drain(worker)
    results = {
        orjson.loads(f[b"result"])["hand_id"]: orjson.loads(f[b"result"]) for _, f in read_range(fake, keys.results)
    }
    assert len(results) == len(CASES)
    for case in CASES:
        awards = {str(a["seat"]): a["amount"] for a in results[case["event"]["hand_id"]]["awards"]}
        assert awards == case["expected_award"]
    assert fake.xpending(keys.events, settings.group)["pending"] == 0
    verdict = audit.verify(audit.read_stream(fake, keys.audit), audit.Head.decode(fake.get(keys.audit_head)))
    assert verdict.holds
    assert verdict.records == len(CASES)


def test_bad_entries_are_dead_lettered_while_good_ones_around_them_settle(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings(dead_raw_max_bytes=64)
    keys = settings.keys("default")
    huge = json.dumps({**GOOD, "hand_id": "big", "table_id": "x" * 201})
    xadd_events(fake, keys.events, [CASES[0]["event"], "not json", CASES[1]["event"], huge, b'{"schema_version": 2}'])
    fake.xadd(keys.events, {"something": "else"})
    xadd_events(fake, keys.events, [CASES[2]["event"]])
    worker = Worker(settings, fake)
    worker.prepare_groups()
    drain(worker)
    assert fake.xlen(keys.results) == 3
    letters = dead_letters(fake, keys.dead)
    assert [d["code"] for d in letters] == ["malformed_json", "bad_id", "unsupported_schema_version", "missing_event"]
    assert letters[0]["raw"] == "not json"
    assert len(letters[1]["raw"]) == 64
    assert int(letters[1]["raw_bytes"]) == len(huge)
    assert all(d["entry_id"] and d["message"] for d in letters)
    outcomes = Counter(r["outcome"] for r in audit_records(fake, keys.audit))
    assert outcomes == {"settled": 3, "rejected": 4}
    for letter in letters:
        DeadLetter.model_validate(letter)
    for record in audit_records(fake, keys.audit):
        AuditRecord.model_validate(record)
    for _, fields in read_range(fake, keys.results):
        ShowdownResult.model_validate_json(fields[b"result"])
    assert fake.xpending(keys.events, settings.group)["pending"] == 0


def test_a_resent_hand_gets_no_second_result_and_a_changed_one_is_dead_lettered(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    xadd_events(fake, keys.events, [GOOD])
    worker = Worker(settings, fake)
    worker.prepare_groups()
    drain(worker)
    xadd_events(fake, keys.events, [GOOD, {**GOOD, "table_id": "T-2"}, GOOD])
    drain(worker)
    assert fake.xlen(keys.results) == 1
    assert [d["code"] for d in dead_letters(fake, keys.dead)] == ["conflicting_duplicate"]
    assert [r["outcome"] for r in audit_records(fake, keys.audit)] == ["settled", "duplicate", "rejected", "duplicate"]
    assert fake.ttl(keys.seen("good-1")) > 0


def test_an_entry_whose_settling_crashes_is_retried_then_dead_lettered_as_poison(
    fake: fakeredis.FakeRedis, make_settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = make_settings(claim_idle_ms=100, max_deliveries=3)
    keys = settings.keys("default")
    from showdown_service import intake

    real = intake.to_showdown

    def explode_on_bad_hand(ev: Any) -> Any:
        if ev.hand_id == "cursed":
            raise RuntimeError("a bug in settlement")
        return real(ev)

    monkeypatch.setattr("showdown_service.settling.to_showdown", explode_on_bad_hand)
    xadd_events(fake, keys.events, [{**GOOD, "hand_id": "cursed"}, GOOD])
    worker = Worker(settings, fake)
    worker.prepare_groups()
    deadline = time.monotonic() + 10
    while not fake.xlen(keys.dead) and time.monotonic() < deadline:
        worker.step()
        time.sleep(0.06)  # the claim takes entries idle >= 100 ms, every 50 ms
    worker.flush()
    letters = dead_letters(fake, keys.dead)
    assert [(d["code"], d["hand_id"]) for d in letters] == [("poison", "cursed")]
    assert "delivered 4 times (limit 3)" in letters[0]["message"]
    assert fake.xlen(keys.results) == 1
    assert fake.xpending(keys.events, settings.group)["pending"] == 0
    assert worker.metrics.failures.labels("default")._value.get() == 3


def test_two_workers_on_one_shard_settle_each_entry_once_and_share_one_chain(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    a, b = (
        Worker(make_settings(consumer="a", batch_size=7), fake),
        Worker(make_settings(consumer="b", batch_size=5), fake),
    )
    keys = a.settings.keys("default")
    xadd_events(fake, keys.events, [case["event"] for case in CASES[:60]])
    a.prepare_groups()
    for _ in range(20):
        a.step()
        b.step()
    a.flush()
    b.flush()
    records = audit_records(fake, keys.audit)
    assert len(records) == fake.xlen(keys.results) == 60
    assert {r["worker"] for r in records} == {"a", "b"}
    assert audit.verify(audit.read_stream(fake, keys.audit), audit.Head.decode(fake.get(keys.audit_head))).holds


def test_a_batch_whose_last_allowed_replan_commits_is_reported_not_given_up(
    fake: fakeredis.FakeRedis, make_settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("showdown_service.worker.MAX_REPLANS", 1)
    first, second = Worker(make_settings(consumer="first"), fake), Worker(make_settings(consumer="second"), fake)
    keys = first.settings.keys("default")
    first.prepare_groups()
    xadd_events(fake, keys.events, [CASES[0]["event"]])
    drain(first)  # `first` now holds the shard's head as it left it
    xadd_events(fake, keys.events, [CASES[1]["event"]])
    drain(second)  # ...which `second` has moved
    xadd_events(fake, keys.events, [CASES[2]["event"]])
    drain(first)  # refused once (stale head), re-planned once, committed
    assert first.metrics.conflicts.labels("default")._value.get() == 1
    assert first.metrics.entries.labels("default", "settled")._value.get() == 2, "the re-planned batch was reported"
    assert fake.xlen(keys.results) == 3
    assert audit.verify(audit.read_stream(fake, keys.audit), audit.Head.decode(fake.get(keys.audit_head))).holds


def test_a_commit_sent_twice_writes_nothing_the_second_time(fake: fakeredis.FakeRedis, make_settings: Any) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    xadd_events(fake, keys.events, [GOOD, CASES[0]["event"]])
    worker = Worker(settings, fake)
    worker.prepare_groups()
    worker.step()  # reads, settles, and sends the commit in the background
    ((_, planned),) = worker._inflight
    worker.flush()  # the commit has run
    assert fake.xlen(keys.results) == 2
    again = worker._commit_script(keys=planned.keys, args=planned.args)  # as a client re-send would
    assert again[0] == 0
    assert sorted(g.decode() for g in again[2]) == sorted(d.prepared.entry_id for d in planned.decisions)
    assert fake.xlen(keys.results) == 2
    assert fake.xlen(keys.audit) == 2


def test_trimming_keeps_every_unread_and_pending_entry(fake: fakeredis.FakeRedis, make_settings: Any) -> None:
    settings = make_settings(batch_size=10)
    keys = settings.keys("default")
    ids = xadd_events(fake, keys.events, [case["event"] for case in CASES[:40]])
    worker = Worker(settings, fake)
    worker.prepare_groups()
    fake.xreadgroup(settings.group, "slowpoke", {keys.events: ">"}, count=5)  # 5 pending with another consumer
    worker.step()
    worker.flush()  # a batch or two settled and acked; the rest unread
    settled = fake.xlen(keys.results)
    assert 0 < settled < 35
    minid = worker.trim(keys)
    assert minid == ids[0].decode()
    remaining = [e for e, _ in read_range(fake, keys.events)]
    assert remaining == ids  # the oldest pending entry is the first one: nothing may go
    fake.xack(keys.events, settings.group, *ids[:5])
    worker.trim(keys)
    kept = [e for e, _ in read_range(fake, keys.events)]
    assert set(ids[5 + settled :]) <= set(kept), "unread entries survive"
