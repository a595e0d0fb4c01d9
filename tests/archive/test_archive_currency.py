"""The archive's ``currency`` column (issue 36 item 4): each entry's currency as its event states it, kept as a
column (additive to the schema: files written before it read as before, the column null), in ``archive query``
and ``archive export``, proven by ``audit replay`` (an edited currency is an ``edited_column``), and a sum of money
over entries of several currencies made per currency."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import fakeredis
import pyarrow.parquet as pq
import pytest

from showdown_service.cli.launch import main
from showdown_service.infra.config import Settings
from showdown_service.storage.layout import SCHEMA, all_files, open_store
from showdown_service.storage.recall import find_hand, query
from tests.archive.test_archive import kinds, prove, rewrite, settle_and_archive
from tests.helpers import REAL_SHOWDOWNS, read_cases

CASHES = [case["event"] for case in read_cases(REAL_SHOWDOWNS) if case["event"].get("tournament_id") is None]
CURRENCIES = ["USD", "JPY", None, "BHD", "EUR", "USD"]
"""The currency of each archived cash hand in turn (``None``: the event names none)."""
HANDS = 36


def cash_hands() -> list[dict[str, Any]]:
    docs = []
    for i in range(HANDS):
        doc = {**CASHES[i % len(CASHES)], "hand_id": f"c-{i}"}
        currency = CURRENCIES[i % len(CURRENCIES)]
        if currency is not None:
            doc["currency"] = currency
        docs.append(doc)
    return docs


def stated(hand_id: str) -> str | None:
    return CURRENCIES[int(hand_id.split("-")[1]) % len(CURRENCIES)]


@pytest.fixture
def archived(fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path) -> Settings:
    """Cash hands of several currencies and none, and a refused event naming a currency not ISO 4217's, settled
    by a worker and archived (several files)."""
    settings: Settings = make_settings(batch_size=10, archive_url=str(tmp_path / "archive"), archive_file_rows=10)
    refused = {**CASHES[0], "hand_id": "bad-currency", "currency": "usd"}
    entries: list[tuple[str, bytes | str]] = [("event", json.dumps(doc)) for doc in [*cash_hands(), refused]]
    settle_and_archive(fake, settings, entries)
    return settings


def archive_rows(settings: Settings) -> list[dict[str, Any]]:
    store = open_store(settings.archive_url)
    return [row for _, _, path in all_files(store) for row in pq.read_table(path).to_pylist()]


def test_each_entry_s_currency_is_a_column_as_its_event_states_it(archived: Settings) -> None:
    assert SCHEMA.names[-1] == "currency", "added last: the older columns keep their places"
    rows = archive_rows(archived)
    assert len(rows) == HANDS + 1
    for row in rows:
        if row["hand_id"] == "bad-currency":
            assert (row["outcome"], row["currency"]) == ("rejected", "usd"), "as the payload states it"
            continue
        assert row["outcome"] == "settled"
        assert row["currency"] == stated(row["hand_id"]), row["hand_id"]
        assert json.loads(row["result"]).get("currency") == row["currency"], "the result says the same"


def test_archive_query_sums_money_per_currency_never_across(archived: Settings) -> None:
    """The pots of the settled hands summed by ``currency``: one figure per currency (and one for hands without)."""
    store = open_store(archived.archive_url)
    sql = (
        "SELECT currency, count(*), sum(CAST(json_extract(result, '$.pots[0].amount') AS BIGINT)) FROM entries "
        "WHERE outcome = 'settled' GROUP BY currency ORDER BY currency NULLS LAST"
    )
    columns, got = query(store, sql)
    assert columns[0] == "currency"
    expected: dict[str | None, list[int]] = {}
    for doc in cash_hands():
        expected.setdefault(doc.get("currency"), [0, 0])[0] += 1
    for row in archive_rows(archived):
        if row["outcome"] == "settled":
            expected[row["currency"]][1] += json.loads(row["result"])["pots"][0]["amount"]
    assert {currency: [count, total] for currency, count, total in got} == expected
    assert [currency for currency, _, _ in got] == ["BHD", "EUR", "JPY", "USD", None]


def test_archive_export_and_find_hand_carry_the_currency(
    archived: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("SHOWDOWN_ARCHIVE_URL", archived.archive_url)
    today = datetime.now(UTC).date()
    days = ["--from", str(today - timedelta(days=1)), "--to", str(today + timedelta(days=1))]
    assert main(["archive", "export", *days]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {line["hand_id"]: line["currency"] for line in lines if line["outcome"] == "settled"} == {
        f"c-{i}": stated(f"c-{i}") for i in range(HANDS)
    }
    out = tmp_path / "export.csv"
    assert main(["archive", "export", *days, "--format", "csv", "--out", str(out)]) == 0
    table = list(csv.DictReader(io.StringIO(out.read_text())))
    assert [row["currency"] for row in table if row["hand_id"] == "c-1"] == ["JPY"]
    assert main(["archive", "query", "--json", "SELECT hand_id, currency FROM entries WHERE hand_id = 'c-3'"]) == 0
    assert json.loads(capsys.readouterr().out) == {"hand_id": "c-3", "currency": "BHD"}


def test_audit_replay_proves_the_column_and_catches_an_edited_currency(archived: Settings) -> None:
    assert prove(archived) == []
    store = open_store(archived.archive_url)
    path = next(p for _, _, p in all_files(store) if any(r["hand_id"] == "c-1" for r in pq.read_table(p).to_pylist()))

    def edit(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for row in found:
            if row["hand_id"] == "c-1":
                row["currency"] = "USD"  # yen shown as dollars: the event says JPY
        return found

    rewrite(path, edit)
    found = prove(archived)
    assert kinds(found) == {"edited_column"}
    assert [d.hand_id for d in found] == ["c-1"]
    assert "the currency column says 'USD', what it copies 'JPY'" in found[0].detail


def test_files_written_before_the_column_read_as_before_with_the_currency_null(archived: Settings) -> None:
    """An archive mixing files without the column (written before it) and with it: both read, proven, queried."""
    store = open_store(archived.archive_url)
    paths = [p for _, _, p in all_files(store)]
    for path in paths[: len(paths) // 2]:  # the older half, as it was written before the column
        table = pq.read_table(path)  # its metadata (the chain's run) kept
        pq.write_table(table.drop_columns(["currency"]).replace_schema_metadata(table.schema.metadata), path)
    old_ids = {r["hand_id"] for p in paths[: len(paths) // 2] for r in pq.read_table(p).to_pylist()}
    assert "currency" not in pq.read_schema(paths[0]).names
    assert prove(archived) == [], "nothing to prove of a column a file does not have"
    _, got = query(store, "SELECT hand_id, currency FROM entries")
    assert len(got) == HANDS + 1
    for hand_id, currency in got:
        assert currency == (None if hand_id in old_ids else stated(hand_id) if hand_id != "bad-currency" else "usd")
    old = sorted(old_ids)[0]
    found = find_hand(archived.archive_url, old)
    assert found is not None
    assert (found.outcome, found.event["hand_id"]) == ("settled", old)


def test_an_archive_of_older_files_alone_has_the_column_null(archived: Settings) -> None:
    store = open_store(archived.archive_url)
    for _, _, path in all_files(store):
        table = pq.read_table(path)
        pq.write_table(table.drop_columns(["currency"]).replace_schema_metadata(table.schema.metadata), path)
    _, got = query(store, "SELECT count(*), count(currency) FROM entries")
    assert got == [(HANDS + 1, 0)]
    assert find_hand(archived.archive_url, "c-0") is not None
