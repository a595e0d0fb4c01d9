"""The audit record's ``table_id`` and ``tournament_id`` (issue 35 item 3) in the archive: archived with the record
(its text is the ``audit`` column, no column of its own), proven by ``audit replay`` (the entry decided again names
the same ids), and an archive whose records were written before them (a chain begun by an older worker, continued by
this one) still proven, its tournament's ledger still rebuilt from it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fakeredis
import orjson
import pytest

from showdown_service.archive.ledger_restore import rebuild
from showdown_service.decision import decide as decide_module
from showdown_service.decision.audit import IDS, make_record
from showdown_service.infra.config import Settings
from tests.archive.test_archive import kinds, mixed_entries, prove, rows, settle_and_archive

TOURNAMENT = "MTT-1"
"""The simulated tournament of :func:`mixed_entries`."""


def write_records(monkeypatch: pytest.MonkeyPatch, change: Any) -> None:
    """The worker's records written as ``change(seq, hand_id, ids)`` says: the ids it keeps, as an older or a
    faulty worker would write them."""

    def writer(head: Any, **fields: Any) -> Any:
        ids = {key: fields.pop(key) for key in IDS if key in fields}
        return make_record(head, **fields, **change(head.seq + 1, fields.get("hand_id"), ids))

    monkeypatch.setattr(decide_module, "make_record", writer)


@pytest.fixture
def settings(make_settings: Any, tmp_path: Path) -> Settings:
    built: Settings = make_settings(batch_size=25, archive_url=str(tmp_path / "archive"), archive_file_rows=40)
    return built


def test_each_archived_record_names_its_table_and_tournament_and_the_replay_proves_them(
    fake: fakeredis.FakeRedis, settings: Settings
) -> None:
    settle_and_archive(fake, settings, mixed_entries())
    kept = rows(settings)
    named = 0
    for row in kept:
        record = orjson.loads(row["audit"])
        if row["event_field"] == "event" and row["outcome"] in {"settled", "duplicate"}:
            named += 1
            assert record["table_id"] == row["table_id"], row["hand_id"]
            assert record.get("tournament_id") == row["tournament_id"], row["hand_id"]
        elif row["event_field"] == "tournament" or row["hand_id"] == "no-fields":
            assert not set(IDS) & set(record), "a tournament message, an unread payload: no table, no tournament"
    assert named > 100
    assert any(orjson.loads(r["audit"]).get("tournament_id") == TOURNAMENT for r in kept)
    assert prove(settings) == []


def test_an_archive_begun_before_the_ids_is_proven_and_rebuilds_its_ledger(
    fake: fakeredis.FakeRedis, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = mixed_entries()
    older = len(entries) - 15  # the tournament's last entries written by this worker, the others before
    write_records(monkeypatch, lambda seq, _, ids: {} if seq <= older else ids)
    settle_and_archive(fake, settings, entries)
    monkeypatch.undo()  # proven and rebuilt by this code
    kept = rows(settings)
    shapes = [bool(set(IDS) & set(orjson.loads(r["audit"]))) for r in kept]
    assert not any(shapes[:older]), "the older worker's records have no ids"
    assert any(shapes[older:]), "this worker's have them"
    assert prove(settings) == [], "an older record is proven as it was written"
    tournament = [shape for row, shape in zip(kept, shapes, strict=True) if row["tournament_id"] == TOURNAMENT]
    assert set(tournament) == {True, False}, "the tournament's records of both shapes"
    rebuilt = rebuild(settings, "default", TOURNAMENT)
    assert rebuilt.entries == len(tournament), "the ledger rebuilt from records of both shapes"


def test_a_record_naming_another_table_is_caught_by_the_replay(
    fake: fakeredis.FakeRedis, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that wrote a wrong table into a record (the chain holds: it hashed what it wrote) is caught."""
    write_records(monkeypatch, lambda _, hand, ids: {**ids, "table_id": "forged"} if hand == "h-7" else ids)
    settle_and_archive(fake, settings, mixed_entries())
    monkeypatch.undo()  # proven by this code
    found = prove(settings)
    assert kinds(found) == {"resettled_differs"}
    detail = "re-settled, the audit record differs in: hash, table_id"
    assert [(d.hand_id, d.detail) for d in found] == [("h-7", detail)]
