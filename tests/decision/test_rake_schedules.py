"""Rake schedules as data: the shipped files, their JSON Schema, the loader's refusals, the real PokerStars hands."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from showdown_core.rake import Hand, Version, rake_hand
from showdown_service.decision.rake_schedules import (
    ScheduleFileError,
    line_of,
    load_schedules,
    read_schedule,
    schema_text,
)
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.pokerstars import read_pokerstars
from tests.helpers import REPO, SHARED_DATA

DATA = SHARED_DATA
SHIPPED = ("888poker-usd-nl-pl", "bodog-usd-nl-pl", "live-usd-fixed-drop", "pokerstars-de-eur-nl-pl",
           "pokerstars-usd-nl-pl")  # fmt: skip


def good() -> dict[str, Any]:
    return {
        "format": "showdown.rake_schedule",
        "format_version": 1,
        "id": "room-usd",
        "room": "Room",
        "currency": "USD",
        "games": ["holdem"],
        "versions": [
            {
                "effective_from": "2020-01-01",
                "effective_to": "2021-01-01",
                "mode": "percentage",
                "stakes": [
                    {
                        "big_blind": 10,
                        "percent": 4.5,
                        "caps": [
                            {"players_from": 2, "players_to": 2, "cap": 50},
                            {"players_from": 3, "players_to": 4, "cap": 100},
                            {"players_from": 5, "cap": 150},
                        ],
                    }
                ],
            },
            {"effective_from": "2021-01-01", "mode": "time_collection"},
        ],
    }


def text_of(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2)


def refusal(doc: dict[str, Any]) -> ScheduleFileError:
    with pytest.raises(ScheduleFileError) as caught:
        read_schedule(text_of(doc), "room.json")
    return caught.value


def test_every_shipped_schedule_loads_and_is_valid_by_the_json_schema() -> None:
    schedules = load_schedules()
    assert sorted(schedules) == sorted(SHIPPED)
    schema = json.loads(schema_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    for source in schedules.sources.values():
        doc = json.loads((REPO / "worker" / "showdown_service" / source).read_text())
        jsonschema.validate(doc, schema)
    assert schedules["pokerstars-usd-nl-pl"].version_at(date(2026, 1, 1)).tier(10).rate_ppm == 45_000


def test_a_good_file_reads_as_its_versions_by_date() -> None:
    schedule = read_schedule(text_of(good()), "room.json")
    assert [v.mode for v in schedule.versions] == ["percentage", "time_collection"]
    assert schedule.version_at(date(2020, 6, 1)).tier(10).cap_for(3) == 100


def test_overlapping_dates_are_refused_naming_file_line_and_field() -> None:
    doc = good()
    doc["versions"][1]["effective_from"] = "2020-12-01"
    error = refusal(doc)
    assert error.field == "versions[1].effective_from"
    assert error.line == text_of(doc).splitlines().index('      "effective_from": "2020-12-01",') + 1
    assert str(error).startswith(f"room.json:{error.line}: versions[1].effective_from: 2020-12-01 overlaps versions[0]")


def test_a_cap_table_with_a_gap_is_refused_naming_the_row() -> None:
    doc = good()
    doc["versions"][0]["stakes"][0]["caps"][2]["players_from"] = 6
    error = refusal(doc)
    assert error.field == "versions[0].stakes[0].caps[2].players_from"
    assert "6 does not follow caps[1] (up to 4 players): a gap or an overlap" in str(error)
    assert text_of(doc).splitlines()[error.line - 1].strip() == '"players_from": 6,'


def test_a_cap_table_not_starting_at_two_players_or_with_an_end_is_refused() -> None:
    doc = good()
    doc["versions"][0]["stakes"][0]["caps"][0].update(players_from=3, players_to=3)
    assert "has no cap for 2" in str(refusal(doc))
    doc = good()
    doc["versions"][0]["stakes"][0]["caps"][2]["players_to"] = 9
    assert refusal(doc).field == "versions[0].stakes[0].caps[2].players_to"


def test_a_percentage_over_100_is_refused() -> None:
    doc = good()
    doc["versions"][0]["stakes"][0]["percent"] = 100.5
    error = refusal(doc)
    assert (error.field, error.reason) == ("versions[0].stakes[0].percent", "100.5% is over 100%")
    assert text_of(doc).splitlines()[error.line - 1].strip() == '"percent": 100.5,'


def test_a_rate_with_more_than_four_decimals_or_a_second_stage_over_100_is_refused() -> None:
    doc = good()
    doc["versions"][0]["stakes"][0]["percent"] = 4.12345
    assert "more than four decimals" in str(refusal(doc))
    doc = good()
    doc["versions"][0]["multiplier_percent"] = 2500
    assert refusal(doc).field == "versions[0].multiplier_percent"
    doc = good()
    doc["versions"][0]["stakes"][0]["percent"] = 90
    doc["versions"][0]["multiplier_percent"] = 125
    assert "times the multiplier is over 100%" in str(refusal(doc))


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (lambda d: d.update(format_version=2), "format_version", "not a version this reads"),
        (lambda d: d.update(currency="usd"), "currency", "ISO 4217"),
        (lambda d: d.update(games=["poker"]), "games[0]", "is not a game"),
        (lambda d: d["versions"][0].update(mode="per_hour"), "versions[0].mode", "is not one of"),
        (lambda d: d["versions"][0].update(effective_from="2020-13-01"), "versions[0].effective_from", "not a date"),
        (lambda d: d["versions"][0]["stakes"][0].update(rate=4), "versions[0].stakes[0].rate", "unknown field"),
        (lambda d: d["versions"][0]["stakes"][0].update(big_blind="10"), "versions[0].stakes[0].big_blind", "int"),
        (lambda d: d["versions"][0].update(stakes=[]), "versions[0].stakes", "none given"),
        (lambda d: d.pop("room"), "", "required field 'room'"),
    ],
)
def test_every_other_mistake_names_its_field(change: Any, field: str, words: str) -> None:
    doc = good()
    change(doc)
    error = refusal(doc)
    assert (error.field, words in error.reason) == (field, True), str(error)


def test_a_file_that_is_not_json_names_its_line() -> None:
    with pytest.raises(ScheduleFileError, match=r"^bad\.json:3: \(the file\): not JSON"):
        read_schedule('{\n "id": "x",\n oops\n}', "bad.json")


def test_the_directory_setting_adds_schedules_and_refuses_an_id_given_twice(tmp_path: Path) -> None:
    (tmp_path / "room.json").write_text(text_of(good()))
    assert "room-usd" in load_schedules(tmp_path)
    twice = {**good(), "id": "pokerstars-usd-nl-pl"}
    (tmp_path / "room.json").write_text(text_of(twice))
    with pytest.raises(ScheduleFileError, match=r"room\.json:4: id: 'pokerstars-usd-nl-pl' is given already by"):
        load_schedules(tmp_path)


def test_line_of_finds_nested_fields() -> None:
    text = '{"a": 1,\n "b": [\n  {"c": 2},\n  {"c": 3,\n   "d": 4}\n ]\n}'
    assert [line_of(text, p) for p in [("a",), ("b",), ("b", 1), ("b", 1, "d"), ("zz",)]] == [1, 2, 4, 5, 7]


# --- the real PokerStars cash hands of ../shared/data ---------------------------------------------------------------

_HEADER = re.compile(
    r"\((?P<sym>\D?)(?P<sb>[\d.]+)/\D?(?P<bb>[\d.]+)(?: - [^)]*)? (?P<cur>[A-Z]{3})\) - (?P<day>\d{4}/\d\d/\d\d)"
)


def stars_cash_hands() -> list[tuple[str, HandRecord, str]]:
    """Every PokerStars cash hand the replay reads in ../shared/data, with its header line."""
    found: list[tuple[str, HandRecord, str]] = []
    for path in sorted(DATA.rglob("*.txt")):
        text = path.read_text(errors="replace")
        if "PokerStars" not in text[:3000]:
            continue
        lines = text.splitlines()
        found.extend(
            (path.name, record, lines[record.line - 1])
            for record in read_pokerstars(text, str(path))
            if isinstance(record, HandRecord) and record.event is not None and record.event.tournament_id is None
        )
    return found


def test_real_pokerstars_hands_ending_preflop_are_raked_0_and_uncapped_ones_4_5_or_4_25_percent() -> None:
    # issue 38: "every hand that ended before the flop shows rake 0; uncapped ones match 4.5% or 4.25% rounded to
    # the cent": the rule's own arithmetic (no flop no drop, half to even) against every cash hand read
    hands = stars_cash_hands()
    preflop = uncapped = capped = 0
    halves: list[tuple[int, int]] = []
    for name, record, _ in hands:
        event = record.event
        assert event is not None
        pot = sum(p.contributed + p.dead_money for p in event.players)
        first = not event.board and not event.boards
        rates = [
            rake_hand(Version(date(2000, 1, 1), None, "percentage", (_any(ppm),)), Hand((pot,), 9, first_round=first))
            for ppm in (45_000, 42_500)
        ]
        if first:
            preflop += 1
            assert event.rake == 0 == rates[0].rake, name
        elif event.rake in {r.rake for r in rates}:
            uncapped += 1
            if pot * 45_000 % 1_000_000 == 500_000:  # an exact half cent at 4.5%: the room rounded it to even
                halves.append((pot, event.rake))
        else:
            capped += 1
            assert event.rake < min(r.rake for r in rates), (name, event.rake, [r.rake for r in rates])
    assert (len(hands), preflop, uncapped, capped) == (25, 5, 10, 10)
    assert halves == [(4500, 202), (6500, 292)]  # $2.025 -> $2.02 and $2.925 -> $2.92: half to even, not half up


def _any(ppm: int) -> Any:
    from showdown_core.rake import Tier

    return Tier(None, rate_ppm=ppm)
