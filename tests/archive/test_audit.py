"""The audit hash chain: it holds when untouched and names the first edit, insertion or deletion."""

from __future__ import annotations

import orjson

from showdown_service.decision.audit import EMPTY, GENESIS, Head, make_record, record_hash, verify


def chain(n: int) -> tuple[list[tuple[str, bytes]], Head]:
    head = EMPTY
    rows = []
    for i in range(n):
        record, stored, head = make_record(
            head,
            hand_id=f"H-{i}",
            entry_id=f"{1000 + i}-0",
            outcome="settled",
            code=None,
            event_sha256="e" * 64,
            result_sha256="r" * 64,
            worker="w1",
            at="2026-11-22T12:00:00Z",
        )
        assert orjson.loads(stored) == record, "the stored JSON is the record"
        assert record_hash(record) == record["hash"]
        rows.append((f"{1000 + i}-0", stored))
    return rows, head


def test_an_untouched_chain_holds_and_ends_at_the_stored_head() -> None:
    rows, head = chain(5)
    verdict = verify(rows, head)
    assert verdict.holds
    assert verdict.records == 5
    assert verdict.head == head == Head(5, orjson.loads(rows[-1][1])["hash"])
    assert orjson.loads(rows[0][1])["prev_hash"] == GENESIS


def test_an_edited_record_is_named_as_edited() -> None:
    rows, head = chain(5)
    record = orjson.loads(rows[2][1])
    record["outcome"] = "duplicate"
    rows[2] = (rows[2][0], orjson.dumps(record))
    verdict = verify(rows, head)
    assert verdict.first_break is not None
    assert (verdict.first_break.seq, verdict.first_break.kind) == (3, "edited")


def test_an_edit_that_recomputes_the_hash_breaks_the_next_link() -> None:
    rows, head = chain(5)
    record = orjson.loads(rows[2][1])
    record["worker"] = "mallory"
    record["hash"] = record_hash(record)
    rows[2] = (rows[2][0], orjson.dumps(record))
    verdict = verify(rows, head)
    assert verdict.first_break is not None
    assert (verdict.first_break.seq, verdict.first_break.kind) == (4, "inserted")


def test_a_deleted_record_is_named_by_the_one_after_the_gap() -> None:
    rows, head = chain(5)
    del rows[1]
    verdict = verify(rows, head)
    assert verdict.first_break is not None
    assert (verdict.first_break.seq, verdict.first_break.kind) == (3, "deleted")


def test_an_inserted_record_is_named_as_inserted() -> None:
    rows, head = chain(5)
    rows.insert(2, rows[1])
    verdict = verify(rows, head)
    assert verdict.first_break is not None
    assert verdict.first_break.kind == "inserted"


def test_deleting_the_newest_records_shows_against_the_stored_head() -> None:
    rows, head = chain(5)
    verdict = verify(rows[:3], head)
    assert verdict.first_break is not None
    assert verdict.first_break.kind == "truncated"
    assert verify(rows[:3], None).holds


def test_a_record_that_is_not_json_is_unreadable() -> None:
    rows, head = chain(3)
    rows[1] = (rows[1][0], b"not json")
    verdict = verify(rows, head)
    assert verdict.first_break is not None
    assert verdict.first_break.kind == "unreadable"


def test_heads_round_trip_through_their_stored_form() -> None:
    _, head = chain(2)
    assert Head.decode(head.encode()) == head
    assert Head.decode(None) == EMPTY
    assert Head.decode(b"") == EMPTY
