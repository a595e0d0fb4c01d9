"""The audit record names the table and the tournament of the hand it judges (issue 35 item 3): ``table_id`` when
an event was read (settled, a duplicate, or refused once read), ``tournament_id`` for a tournament hand; neither
for an unreadable payload (what it claims is not read) nor for a tournament message. A record without them (a cash
hand's tournament, and every record written before them) leaves the key out, so it hashes as it always did."""

from __future__ import annotations

import json
from typing import Any

import orjson

from showdown_messages import AuditRecord
from showdown_service.decision.audit import EMPTY, GENESIS, IDS, Head, as_written, make_record, record_hash, verify
from tests.helpers import REAL_SHOWDOWNS, read_cases
from tests.tournament_builders import all_in, closed, entry, opened, replay

CASH = next(case["event"] for case in read_cases(REAL_SHOWDOWNS) if case["event"].get("tournament_id") is None)
"""A real showdown of no tournament."""
TABLE = CASH["table_id"]


def event(**changes: Any) -> str:
    return json.dumps({"event": {**CASH, **changes}})


LINES = [
    (opened(payouts=[100]), "settled", None, None),
    (entry("a"), "settled", None, None),
    (entry("b"), "settled", None, None),
    (closed(), "settled", None, None),
    (all_in("t-1", [(1, "a", 1000, 500), (2, "b", 1000, 500)], table="final"), "settled", "final", "T"),
    (all_in("t-1", [(1, "a", 1000, 500), (2, "b", 1000, 500)], table="final"), "duplicate", "final", "T"),
    # the ledger refuses it (a's stack is 1500 now): refused once read, the record still names the table
    (all_in("t-2", [(1, "a", 1000, 500), (2, "b", 500, 500)], table="final"), "rejected", "final", "T"),
    (event(hand_id="c-1"), "settled", TABLE, None),
    (event(hand_id="c-1"), "duplicate", TABLE, None),
    (event(hand_id="c-1", table_id="elsewhere"), "rejected", "elsewhere", None),  # conflicting_duplicate
    (event(hand_id="c-2", rake_schedule="no-such-schedule"), "rejected", TABLE, None),  # refused as it settled
    (event(hand_id="c-3", variant="pineapple"), "rejected", None, None),  # refused unread: its table is a claim
]


def records() -> list[dict[str, Any]]:
    run = replay(*(line for line, *_ in LINES))
    return [d.record for d in run.decisions]


def test_each_record_names_the_table_and_tournament_of_the_event_it_read() -> None:
    found = records()
    assert [r["outcome"] for r in found] == [outcome for _, outcome, _, _ in LINES]
    assert found[-2]["code"] == "unknown_rake_schedule", "a refusal once the event was read"
    assert found[-1]["code"] == "unknown_variant", "a refusal of an event that could not be read"
    for record, (_, _, table, tournament) in zip(found, LINES, strict=True):
        assert record.get("table_id") == table, record
        assert record.get("tournament_id") == tournament, record
        assert ("table_id" in record) == (table is not None), "a key with no value is left out, not null"
        assert ("tournament_id" in record) == (tournament is not None), "a cash hand names no tournament"
        AuditRecord.model_validate(record)


def test_the_records_with_the_ids_chain_and_verify() -> None:
    found = records()
    assert sum("table_id" in r for r in found) == sum(table is not None for _, _, table, _ in LINES)
    entries = [(f"0-{n}", orjson.dumps(r)) for n, r in enumerate(found, 1)]
    verdict = verify(entries, Head(len(found), found[-1]["hash"]))
    assert verdict.holds, verdict.first_break
    assert verdict.records == len(found)
    for record in found:
        assert record_hash(record) == record["hash"], "hashed as stored: keys sorted, the ids among them"


def test_a_record_stored_with_the_ids_is_its_canonical_json() -> None:
    record, stored, head = make_record(
        EMPTY, hand_id="h", entry_id="1-0", outcome="settled", code=None, event_sha256="e" * 64,
        result_sha256="r" * 64, worker="w", at="2026-11-29T12:00:00Z", standings_sha256="s" * 64,
        table_id="table-9", tournament_id="T-1",
    )  # fmt: skip
    body = {k: v for k, v in record.items() if k != "hash"}
    assert stored == orjson.dumps(body, option=orjson.OPT_SORT_KEYS)[:-1] + b',"hash":"' + head.hash.encode() + b'"}'
    assert (record["table_id"], record["tournament_id"], record["prev_hash"]) == ("table-9", "T-1", GENESIS)


def test_a_chain_begun_before_the_ids_and_continued_with_them_verifies() -> None:
    """An upgrade mid-chain: the older records have no ids (their hashes cover the keys they have)."""
    head, stored = EMPTY, []
    for n in range(1, 7):
        _, text, head = make_record(head, hand_id=f"h-{n}", entry_id=f"1-{n}", outcome="settled", code=None,
                                    event_sha256="e" * 64, result_sha256="r" * 64, worker="w",
                                    at="2026-11-29T12:00:00Z", table_id=f"t-{n}" if n > 3 else None)  # fmt: skip
        stored.append((f"2-{n}", text))
    assert [b'"table_id"' in text for _, text in stored] == [False] * 3 + [True] * 3
    verdict = verify(stored, head)
    assert verdict.holds, verdict.first_break


def test_a_record_decided_again_is_compared_as_the_archived_one_was_written() -> None:
    """A replay decides an older record again with the ids: without them it is the older record, byte for byte;
    a record that has them is compared as it is (a wrong id is a difference)."""
    common: dict[str, Any] = {"hand_id": "h", "entry_id": "1-0", "outcome": "settled", "code": None,
                              "event_sha256": "e" * 64, "result_sha256": "r" * 64, "worker": "w",
                              "at": "2026-11-29T12:00:00Z"}  # fmt: skip
    older, _, _ = make_record(EMPTY, **common)
    again, _, _ = make_record(EMPTY, **common, table_id="t", tournament_id="T")
    assert again != older
    assert as_written(again, older) == older
    assert as_written(again, again) is again
    forged, _, _ = make_record(EMPTY, **common, table_id="other", tournament_id="T")
    assert as_written(again, forged) != forged, "a record with the ids proves them"
    assert set(IDS) == {"table_id", "tournament_id"}
