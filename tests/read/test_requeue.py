"""Requeueing dead letters safely (issue 24, items 4, 10, 11): never a second payment, nothing of an entry lost, every
requeue on the record."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import fakeredis
import orjson
import pytest

from showdown_messages import AuditRecord
from showdown_service.cli.commands import main
from showdown_service.decision.settling import all_fields
from showdown_service.infra.config import Settings
from showdown_service.infra.streams import read_range
from showdown_service.read.requeue import resolved_key
from showdown_service.worker.loop import Worker
from tests.helpers import BUNDLED_SHOWDOWNS, read_cases
from tests.tournament_builders import all_in, chips, closed, entry, opened, round_complete

CASES = list(read_cases(BUNDLED_SHOWDOWNS))
KEYS = Settings().keys("default")


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, fake: fakeredis.FakeRedis) -> fakeredis.FakeRedis:
    """`showdown` commands on the fake server, with the default settings."""
    for key in [k for k in os.environ if k.startswith("SHOWDOWN_")]:
        monkeypatch.delenv(key)
    monkeypatch.setattr("showdown_service.cli.stream.connect", lambda _settings: fake)
    monkeypatch.setattr("showdown_service.cli.dead_letters.connect", lambda _settings: fake)
    return fake


def drain(worker: Worker) -> None:
    worker.run(until_idle=True)


def audit_records(fake: fakeredis.FakeRedis) -> list[dict[str, Any]]:
    return [orjson.loads(f[b"audit"]) for _, f in read_range(fake, KEYS.audit)]


def dead(fake: fakeredis.FakeRedis) -> list[tuple[str, dict[bytes, bytes]]]:
    return [(entry_id.decode(), fields) for entry_id, fields in read_range(fake, KEYS.dead)]


# --- item 4: a settled hand is never requeued -----------------------------------------------------------------------


def test_item4_requeueing_a_conflicting_duplicate_after_the_dedupe_ttl_is_refused_naming_the_settled_result(
    cli: fakeredis.FakeRedis, make_settings: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both players 'won' the same pot: the second event is a conflicting_duplicate; once the dedupe key has expired
    a requeue would settle it again, with the other awards. It is refused, and the first settlement named."""
    fake = cli
    worker = Worker(make_settings(), fake)
    first = CASES[0]["event"]
    other = {**first, "table_id": "another-table"}  # same hand_id, another event
    fake.xadd(KEYS.events, {"event": json.dumps(first)})
    fake.xadd(KEYS.events, {"event": json.dumps(other)})
    drain(worker)
    ((dead_id, letter),) = dead(fake)
    assert letter[b"code"] == b"conflicting_duplicate"
    fake.delete(KEYS.seen(first["hand_id"]))  # the dedupe TTL ran out
    assert main(["dead-letters", "--requeue", dead_id]) == 1
    err = capsys.readouterr().err
    assert f"hand {first['hand_id']!r} was settled already" in err
    (result_id,) = [entry_id.decode() for entry_id, _ in read_range(fake, KEYS.results)]
    assert f"result {result_id}: " in err
    assert "main pot" in err, "the settled result, in words"
    assert fake.xlen(KEYS.events) == 2, "nothing sent"
    assert not fake.hexists(resolved_key(KEYS), dead_id), "and the dead letter not marked"


def test_item4_the_archive_hook_is_asked_when_the_results_no_longer_hold_the_hand(
    cli: fakeredis.FakeRedis, make_settings: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = cli
    fake.xadd(KEYS.dead, {"code": "bad_card", "message": "x", "raw": json.dumps(CASES[1]["event"]), "raw_bytes": "1"})
    ((dead_id, _),) = dead(fake)
    asked: list[tuple[str, str]] = []

    def archived(_settings: Settings, shard: str, hand_id: str, *_registered: object) -> str:
        asked.append((shard, hand_id))
        return "archive row 7 of 2026-11-24.parquet"

    monkeypatch.setattr("showdown_service.read.requeue.settled_in_archive", archived)
    assert main(["dead-letters", "--requeue", dead_id]) == 1
    assert asked == [("default", CASES[1]["event"]["hand_id"])]
    assert "archive row 7 of 2026-11-24.parquet" in capsys.readouterr().err
    assert not fake.exists(KEYS.events)


# --- item 10: a dead letter keeps every field of its entry ----------------------------------------------------------


def test_item10_a_chips_purchase_beside_an_event_is_dead_lettered_with_both_and_a_requeue_can_bring_it_back(
    cli: fakeredis.FakeRedis, make_settings: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fake = cli
    worker = Worker(make_settings(), fake)
    for line in (opened(payouts=[100]), entry("a"), entry("b")):
        fake.xadd(KEYS.events, {"tournament": json.dumps(json.loads(line)["tournament"])})
    purchase = json.loads(chips("a", 1000))["tournament"]
    hand = json.loads(all_in("h1", [(1, "a", 1000, 10), (2, "b", 1000, 10)], tid=None))["event"]
    fields: dict[str, str | bytes] = {
        "event": json.dumps(hand),
        "tournament": json.dumps(purchase),
        "note": b"\xff\x00 not utf-8",
    }
    fake.xadd(KEYS.events, fields)  # type: ignore[arg-type]
    fake.xadd(KEYS.events, {"tournament": json.dumps(purchase), "extra": "1"})
    drain(worker)
    (both_id, both), (extra_id, extra) = dead(fake)
    assert (both[b"code"], extra[b"code"]) == (b"ambiguous_entry", b"missing_event")
    assert all_fields(both[b"raw"]) == {
        k.encode(): v if isinstance(v, bytes) else v.encode() for k, v in fields.items()
    }
    assert all_fields(extra[b"raw"]) == {b"tournament": json.dumps(purchase).encode(), b"extra": b"1"}
    assert all_fields(b'[["tournament", "A"], ["tournament", "B"]]') == {b"tournament": b"B"}, "a repeated field's"
    assert all_fields(json.dumps(hand).encode()) is None, "a payload of its own"
    assert main(["dead-letters", "--requeue", both_id]) == 2
    assert "held several fields (event, note, tournament)" in capsys.readouterr().err
    purchase_file = tmp_path / "purchase.json"
    purchase_file.write_bytes(all_fields(extra[b"raw"])[b"tournament"])  # type: ignore[index]
    assert main(["dead-letters", "--requeue", extra_id, "--event", str(purchase_file)]) == 0
    assert "(tournament message)" in capsys.readouterr().out
    drain(worker)
    assert fake.xlen(KEYS.dead) == 2, "the purchase, brought back from its dead letter, is applied"


# --- item 11: every requeue on the record, once -----------------------------------------------------------------------


def test_item11_a_requeue_with_an_edited_body_is_on_the_audit_record_and_the_dead_letter_is_resolved_once(
    cli: fakeredis.FakeRedis, make_settings: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fake = cli
    worker = Worker(make_settings(), fake)
    good = CASES[2]["event"]
    broken = {**good, "board": [good["board"][0]] * 5}
    fake.xadd(KEYS.events, {"event": json.dumps(broken)})
    drain(worker)
    ((dead_id, _),) = dead(fake)
    fixed = tmp_path / "fixed.json"
    fixed.write_text(json.dumps(good), encoding="utf-8")
    assert main(["dead-letters", "--requeue", dead_id, "--event", str(fixed)]) == 0
    out = capsys.readouterr().out
    assert "with an edited body" in out
    new_id = out.split(" as ")[1].split()[0]
    assert fake.hget(resolved_key(KEYS), dead_id) == new_id.encode()
    drain(worker)
    record = audit_records(fake)[-1]
    assert (record["entry_id"], record["outcome"]) == (new_id, "settled")
    assert (record["requeued_from"], record["body_changed"]) == (dead_id, True)
    AuditRecord.model_validate(record)
    assert "requeued_from" not in audit_records(fake)[0], "absent from records of entries never requeued"

    assert main(["dead-letters"]) == 0
    assert f"[requeued as {new_id}]" in capsys.readouterr().out
    assert main(["dead-letters", "--requeue", dead_id, "--event", str(fixed)]) == 1
    assert f"was requeued already, as {new_id}" in capsys.readouterr().err
    assert fake.xlen(KEYS.events) == 2, "not sent twice"


def test_item11_a_requeue_of_the_dead_letter_s_own_payload_is_recorded_as_unchanged(
    cli: fakeredis.FakeRedis, make_settings: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = cli
    worker = Worker(make_settings(), fake)
    for line in (entry("early"), opened(payouts=[100]), entry("a")):  # the first arrives before its `open`
        fake.xadd(KEYS.events, {"tournament": json.dumps(json.loads(line)["tournament"])})
    drain(worker)
    ((dead_id, _),) = dead(fake)
    assert main(["dead-letters", "--requeue", dead_id]) == 0
    assert "edited" not in capsys.readouterr().out
    drain(worker)
    record = audit_records(fake)[-1]
    assert (record["outcome"], record["requeued_from"], record["body_changed"]) == ("settled", dead_id, False)


def test_item11_a_round_complete_for_a_finished_tournament_is_refused_not_settled(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    worker = Worker(make_settings(), fake)
    lines = [opened(payouts=[100]), entry("a"), entry("b"), closed(),
             all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)])]  # fmt: skip
    for line in lines:
        doc = json.loads(line)
        field = "tournament" if "tournament" in doc else "event"
        fake.xadd(KEYS.events, {field: json.dumps(doc[field])})
    drain(worker)
    assert fake.xlen(KEYS.standings) == 2, "over: both placed"
    late = json.loads(round_complete(3))["tournament"]
    fake.xadd(KEYS.events, {"tournament": json.dumps(late)})
    drain(worker)
    ((_, letter),) = dead(fake)
    assert letter[b"code"] == b"tournament_over"
    assert b"finished" in letter[b"message"]
    assert audit_records(fake)[-1]["outcome"] == "rejected"
