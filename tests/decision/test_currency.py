"""A table's currency (issue 36 item 4): an event's ISO 4217 ``currency`` carried to the result, the summary, the
archive and the API; refused when it is not a code, or on a tournament hand; absent, every result's bytes as before."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import fakeredis
import httpx
import orjson
import pytest
import redis

from showdown_messages import ShowdownEvent, ShowdownResult
from showdown_rules import CODES, ISO_4217_EXPONENTS, in_units
from showdown_service.api.replay import replay_document
from showdown_service.cli.commands import main as showdown_main
from showdown_service.decision.render import describe_result
from showdown_service.decision.wire import encode_result
from showdown_service.infra.config import Settings
from showdown_service.storage.recall import find_hand
from tests.api_support import bearer, commit, serving
from tests.archive.test_archive import prove, settle_and_archive
from tests.helpers import REAL_SHOWDOWNS, event, read_cases, refusal, seat, settle_doc
from tests.histories.test_history_export import EVERY, settled, with_play

WHEN = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def cash_hand(hand_id: str = "usd-1", **fields: Any) -> dict[str, Any]:
    return event(
        seat(1, "As Ad", 450, player_id="ann"), seat(2, "Kc Kd", 450, player_id="bo"),
        board="2c 7d 9h Js 3s", hand_id=hand_id, table_id="cash-1", **fields,
    )  # fmt: skip


def test_a_usd_event_s_result_says_usd() -> None:
    result = orjson.loads(encode_result(settle_doc(cash_hand(currency="USD")), WHEN))
    assert result["currency"] == "USD"
    assert ShowdownResult.model_validate(result).currency == "USD"


@pytest.mark.parametrize("code", ["usd", "US", "USDT", "XYZ", "XAU", "XXX", "chips", ""])
def test_a_currency_that_is_not_an_iso_4217_code_with_a_minor_unit_is_bad_currency(code: str) -> None:
    refused = refusal(cash_hand(currency=code))
    assert (refused.code, refused.field) == ("bad_currency", "currency")
    assert repr(code)[:10] in refused.message


def test_a_tournament_hand_with_a_currency_is_tournament_currency() -> None:
    doc = cash_hand(currency="EUR", tournament_id="MTT-1")
    for p in doc["players"]:
        p["stack"] = 1000
    refused = refusal(doc)
    assert (refused.code, refused.field) == ("tournament_currency", "currency")
    assert "MTT-1" in refused.message


def test_the_refusal_codes_are_listed() -> None:
    assert {"bad_currency", "tournament_currency"} <= set(CODES)


def test_an_event_without_currency_settles_to_the_same_bytes_and_with_one_adds_only_its_key() -> None:
    """Every bundled real showdown: without ``currency`` no result names one (an old producer's bytes are the bytes
    they were); with ``"currency": "EUR"`` the result is those bytes with ``"currency":"EUR",`` after the variant."""
    cases = list(read_cases(REAL_SHOWDOWNS))
    assert len(cases) >= 300
    for case in cases:
        doc = case["event"]
        before = encode_result(settle_doc(doc), WHEN)
        assert b'"currency"' not in before
        assert (
            ShowdownEvent.model_validate_json(json.dumps(doc)).model_dump_json(exclude_none=True).find("currency") < 0
        )
        if doc.get("tournament_id") is not None:
            continue
        after = encode_result(settle_doc({**doc, "currency": "EUR"}), WHEN)
        variant = f'"variant":"{doc.get("variant", "holdem")}",'.encode()
        assert after == before.replace(variant, variant + b'"currency":"EUR",', 1), doc["hand_id"]


def test_amounts_in_the_currency_s_units() -> None:
    """ISO 4217's minor units: 2 digits for USD, none for JPY, 3 for KWD."""
    assert (ISO_4217_EXPONENTS["USD"], ISO_4217_EXPONENTS["JPY"], ISO_4217_EXPONENTS["KWD"]) == (2, 0, 3)
    assert [in_units(900, "USD"), in_units(5, "EUR"), in_units(-1234, "GBP")] == ["9.00", "0.05", "-12.34"]
    assert [in_units(900, "JPY"), in_units(1500, "KWD")] == ["900", "1.500"]


def test_the_summary_gives_amounts_in_the_currency_s_units() -> None:
    usd = orjson.loads(encode_result(settle_doc(cash_hand(currency="USD", rake=45)), WHEN))
    assert describe_result(usd) == "usd-1 (USD): main pot 9.00, rake 0.45: ann 8.55 (Pair of Aces)"
    plain = orjson.loads(encode_result(settle_doc(cash_hand(rake=45)), WHEN))
    assert describe_result(plain) == "usd-1: main pot 900, rake 45: ann 855 (Pair of Aces)"


def test_the_archive_keeps_the_currency_and_its_replay_proves_it(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    settings = make_settings(batch_size=10, archive_url=str(tmp_path / "archive"))
    entries: list[tuple[str, bytes | str]] = [
        ("event", json.dumps(cash_hand("usd-1", currency="USD"))),
        ("event", json.dumps(cash_hand("bad-1", currency="usd"))),
        ("event", json.dumps(cash_hand("old-1"))),
    ]
    settle_and_archive(fake, settings, entries)
    usd = find_hand(settings.archive_url, "usd-1", settings=settings)
    bad = find_hand(settings.archive_url, "bad-1", settings=settings)
    old = find_hand(settings.archive_url, "old-1", settings=settings)
    assert usd is not None
    assert bad is not None
    assert old is not None
    assert usd.result is not None
    assert usd.result["currency"] == "USD"
    assert usd.event is not None
    assert usd.event["currency"] == "USD"
    assert bad.result is None
    assert bad.dead_letter is not None
    assert bad.dead_letter["code"] == "bad_currency"
    assert old.result is not None
    assert "currency" not in old.result
    assert prove(settings) == []  # audit replay settles each archived event again to the same bytes


def test_a_worker_settles_usd_and_dead_letters_bad_codes_and_the_api_says_so(
    redis_url: str, make_settings: Any, client: redis.Redis
) -> None:
    settings: Settings = make_settings(redis_url)
    keys = settings.keys("default")
    tournament = cash_hand("t-1", currency="EUR", tournament_id="MTT-9")
    for p in tournament["players"]:
        p["stack"] = 1000
    for doc in (cash_hand("usd-1", currency="USD"), cash_hand("bad-1", currency="EURO"), tournament):
        client.xadd(keys.events, {"event": json.dumps(doc)})
    commit(settings)
    with serving(settings) as url:
        usd, bad, chips = (httpx.get(f"{url}/v1/hands/{h}", headers=bearer()).json() for h in ("usd-1", "bad-1", "t-1"))
    assert usd["status"] == "settled"
    assert usd["result"]["currency"] == "USD"
    assert (bad["status"], bad["dead_letter"]["code"]) == ("refused", "bad_currency")
    assert "'EURO'" in bad["dead_letter"]["message"]
    assert (chips["status"], chips["dead_letter"]["code"]) == ("refused", "tournament_currency")
    letters = cast(list[tuple[bytes, dict[bytes, bytes]]], client.xrange(keys.dead))
    assert sorted(fields[b"code"] for _, fields in letters) == [b"bad_currency", b"tournament_currency"]


def test_the_replay_page_says_the_result_s_currency() -> None:
    doc, _ = with_play(EVERY[0])
    assert doc.get("tournament_id") is None
    assert replay_document(doc, settled(doc))["currency"] == "chips"
    usd = {**doc, "currency": "USD"}
    assert replay_document(usd, settled(usd))["currency"] == "USD"


def test_showdown_hand_names_the_currency(
    client: redis.Redis, redis_url: str, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    settings: Settings = make_settings(redis_url, archive_url=str(tmp_path / "archive"))
    for doc in (cash_hand("usd-1", currency="USD"), cash_hand("old-1")):
        client.xadd(settings.keys("default").events, {"event": json.dumps(doc)})
    commit(settings)
    monkeypatch.setenv("SHOWDOWN_REDIS_URL", redis_url)
    monkeypatch.setenv("SHOWDOWN_ARCHIVE_URL", settings.archive_url)
    assert showdown_main(["hand", "usd-1"]) == 0
    usd = capsys.readouterr().out
    assert showdown_main(["hand", "old-1"]) == 0
    old = capsys.readouterr().out
    assert "  currency: USD (every amount in its minor unit)" in usd.splitlines()
    assert "currency" not in old
