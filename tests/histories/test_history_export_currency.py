"""The Open Hand History export's currency (issue 36 item 3): a hand in a currency is written in it (hh-specs 1.4's
``currency``), every amount in major units scaled exactly by the currency's minor-unit exponent (USD 2, JPY 0,
BHD 3), ``CHIPS`` only for tournament chips and hands without a currency; ``showdown replay`` reads the export back
to the same settlement, through the archive and ``archive export`` too."""

from __future__ import annotations

import json
import tomllib
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import fakeredis
import pytest

from showdown_rules.currencies import ISO_4217_EXPONENTS
from showdown_service.cli.launch import main
from showdown_service.histories.compare import judge
from showdown_service.histories.export import ohh_document, ohh_in_minor_units, ohh_json, phh_text
from showdown_service.histories.run import replay_file
from showdown_service.storage.recall import find_hand
from tests.archive.test_archive import settle_and_archive
from tests.histories.test_history_export import PLURIBUS, read_back, same_settlement, settled, with_play

HANDS = [PLURIBUS / "30" / "0.phh", PLURIBUS / "40" / "100.phh", PLURIBUS / "40" / "101.phh"]
"""A hand everybody folds to a raise preflop, one to the river, one to the turn."""
CURRENCIES = ("USD", "JPY", "BHD")


def in_currency(path: Path, currency: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    doc, _ = with_play(path)
    if currency is not None:
        doc["currency"] = currency
    return doc, settled(doc)


def amounts(document: dict[str, Any]) -> list[Any]:
    """Every amount of an Open Hand History object, in order."""
    ohh = document["ohh"]
    found = [ohh["small_blind_amount"], ohh["big_blind_amount"], ohh["ante_amount"]]
    found += [p["starting_stack"] for p in ohh["players"]]
    found += [a["amount"] for r in ohh["rounds"] for a in r["actions"] if "amount" in a]
    for pot in ohh["pots"]:
        found += [pot["amount"], pot["rake"], pot["jackpot"], *(w["win_amount"] for w in pot["player_wins"])]
    return found


@pytest.mark.parametrize("currency", CURRENCIES)
def test_the_ohh_export_names_the_currency_and_writes_each_amount_in_major_units_exactly(currency: str) -> None:
    exponent = ISO_4217_EXPONENTS[currency]
    for path in HANDS:
        doc, result = in_currency(path, currency)
        text = ohh_json(doc, result)
        written = json.loads(text, parse_float=Decimal)
        assert written["ohh"]["currency"] == currency
        minor = amounts(ohh_in_minor_units(doc, result))
        assert all(isinstance(n, int) for n in minor)
        assert amounts(written) == [Decimal(n).scaleb(-exponent) for n in minor], path
        assert amounts(written) == amounts(ohh_document(doc, result))
        stack = doc["play"]["starting_stacks"][0]
        major = f"{stack // 10**exponent}.{stack % 10**exponent:0{exponent}d}" if exponent else str(stack)
        assert f'"starting_stack": {major}}}' in text, "written with the currency's places, never a float's digits"


def test_a_fils_an_odd_cent_and_a_yen_are_written_exactly() -> None:
    doc, _ = in_currency(HANDS[0], "BHD")
    doc["play"]["starting_stacks"][0] += 7
    doc["players"][0]["stack"] += 7
    text = ohh_json(doc, settled(doc))
    assert '"starting_stack": 10.007' in text
    doc["currency"] = "USD"
    assert '"starting_stack": 100.07' in ohh_json(doc, settled(doc))
    doc["currency"] = "JPY"
    assert '"starting_stack": 10007' in ohh_json(doc, settled(doc))


@pytest.mark.parametrize("currency", CURRENCIES)
def test_replay_reads_a_currency_hand_s_ohh_and_phh_back_to_the_same_settlement(currency: str) -> None:
    for path in HANDS:
        doc, result = in_currency(path, currency)
        for fmt, text in (("ohh", ohh_json(doc, result, indent=True)), ("phh", phh_text(doc, result))):
            hand = read_back(text, fmt)
            same_settlement(hand, result)
            assert hand.currency_code == currency, (fmt, path)


def test_chips_only_for_a_hand_without_a_currency_and_for_a_tournament() -> None:
    doc, result = in_currency(HANDS[1], None)
    written = json.loads(ohh_json(doc, result))
    assert written["ohh"]["currency"] == "CHIPS"
    assert amounts(written) == amounts(ohh_in_minor_units(doc, result)), "chips written whole"
    same_settlement(read_back(ohh_json(doc, result), "ohh"), result)
    tournament = {**doc, "tournament_id": "t-1"}
    assert json.loads(ohh_json(tournament, result))["ohh"]["currency"] == "CHIPS"


def test_every_pluribus_hand_in_a_currency_of_each_exponent_round_trips_through_ohh() -> None:
    """A bounded sample (every 97th hand) in USD, JPY and BHD: every one read back a match."""
    for path in sorted(PLURIBUS.rglob("*.phh"))[::97]:
        for currency in CURRENCIES:
            doc, result = in_currency(path, currency)
            assert judge(read_back(ohh_json(doc, result), "ohh")).status == "match", (path, currency)


def test_archive_export_writes_each_hand_in_its_currency_and_replay_reads_it_back(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Event -> worker -> archive -> ``archive export --format ohh|phh`` -> ``showdown replay``: the same
    settlement, each hand in its own currency."""
    settings = make_settings(batch_size=10, archive_url=str(tmp_path / "archive"), archive_file_rows=10)
    docs = []
    for i, (path, currency) in enumerate(zip(HANDS, CURRENCIES, strict=True)):
        doc, _ = in_currency(path, currency)
        docs.append(doc | {"hand_id": f"{currency}-{i}"})
    settle_and_archive(fake, settings, [("event", json.dumps(doc)) for doc in docs])
    monkeypatch.setenv("SHOWDOWN_ARCHIVE_URL", settings.archive_url)
    today = datetime.now(UTC).date()
    days = ["--from", str(today - timedelta(days=1)), "--to", str(today + timedelta(days=1))]
    for fmt in ("ohh", "phh"):
        out = tmp_path / f"export.{fmt}{'s' if fmt == 'phh' else ''}"
        assert main(["archive", "export", *days, "--format", fmt, "--out", str(out)]) == 0
        assert f"{len(docs)} hands written as {fmt.upper()}; 0 settled hands left out" in capsys.readouterr().err
        replayed = replay_file(str(out))
        assert [v.status for v in replayed.verdicts] == ["match"] * len(docs)
        if fmt == "ohh":
            decoder, at, currencies = json.JSONDecoder(parse_float=Decimal), 0, []
            text = out.read_text()
            while at < len(text.rstrip()):
                obj, at = decoder.raw_decode(text, at)
                currencies.append(obj["ohh"]["currency"])
                at += len(text[at:]) - len(text[at:].lstrip())
            assert currencies == list(CURRENCIES)
        else:
            sections = tomllib.loads(out.read_text())
            assert [sections[str(k + 1)]["currency"] for k in range(len(docs))] == list(CURRENCIES)
        for doc in docs:
            found = find_hand(settings.archive_url, doc["hand_id"])
            assert found is not None
            assert found.result["currency"] == doc["currency"]
