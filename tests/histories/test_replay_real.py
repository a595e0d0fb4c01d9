"""The full real-data replay: every Pluribus hand, every PokerStars sample and every variant sample, zero mismatches."""

from __future__ import annotations

import json
import tomllib
from collections import Counter
from pathlib import Path

from showdown_core import settle
from showdown_service.cli.commands import main
from showdown_service.decision.intake import to_showdown
from showdown_service.histories import HandRecord, read_phh
from showdown_service.histories.phh import _flat_fields, _number
from tests.helpers import REAL_SHOWDOWNS, SHARED_DATA, read_cases

PLURIBUS = SHARED_DATA / "phh" / "pluribus"
POKERSTARS = SHARED_DATA / "pokerstars"
VARIANTS = SHARED_DATA / "variants"


def test_replaying_all_real_hands_finds_no_mismatch(tmp_path: Path) -> None:
    assert PLURIBUS.is_dir(), f"real hand data missing at {PLURIBUS}"
    report = tmp_path / "report.jsonl"
    code = main(["replay", str(SHARED_DATA / "phh"), str(POKERSTARS), "--report", str(report), "--jobs", "2"])
    lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    statuses = Counter(line["status"] for line in lines)
    assert statuses == {"match": 6844 + 15}, [line for line in lines if line["status"] != "match"][:3]
    assert code == 0
    notes = Counter(line["reason"].split(" (")[0] for line in lines if line["reason"])
    assert notes["the source splits odd chips into fractions in finishing_stacks"] == 7
    stars = {line["hand_id"]: line for line in lines if line["hand_id"].startswith("pokerstars:")}
    three_pots = stars["pokerstars:85998509763"]  # side_pot_3pots_eur.txt
    assert [pot["collected"] for pot in three_pots["computed"]["pots"]] == [{"3": 537}, {"9": 750}, {"9": 608}]
    assert [pot["rake"] for pot in three_pots["computed"]["pots"]] == [25, 36, 28]
    ante = stars["pokerstars:109690806574"]  # side_pot_ante_rake.txt: 30.37 + 7.91 to T_Leroy, rake 1.50
    assert ante["computed"]["collected"] == {"3": 3037 + 791}
    assert ante["expected"]["pots"] == [{"index": 0, "collected": {"3": 3037}}, {"index": 1, "collected": {"3": 791}}]
    for hand_id, cents in {
        "pokerstars:109688230087": {"4": 2357},
        "pokerstars:109675960819": {"4": 7999500},
        "pokerstars:109673533027": {"6": 56200},
    }.items():
        assert stars[hand_id]["computed"]["collected"] == cents


def test_replayed_pluribus_events_settle_to_the_real_showdown_cases() -> None:
    records: dict[str, HandRecord] = {}
    for path in sorted(PLURIBUS.rglob("*.phh")):
        for read in read_phh(path.read_text(encoding="utf-8"), str(path)):
            assert isinstance(read, HandRecord), read
            records[read.hand_id] = read
    assert len(records) == 6844
    joined = 0
    for case in read_cases(REAL_SHOWDOWNS):
        hand = records.get(case["event"]["hand_id"])
        if hand is None:
            continue
        joined += 1
        assert hand.event is not None
        expected = {int(seat): chips for seat, chips in case["expected_award"].items()}
        assert settle(to_showdown(hand.event)).collected_by_seat() == expected, hand.hand_id
    assert joined == 1170


def test_the_fast_field_parser_reads_every_real_hand_as_tomllib_does() -> None:
    for path in sorted(PLURIBUS.rglob("*.phh")):
        text = path.read_text(encoding="utf-8")
        assert _flat_fields(text) == tomllib.loads(text, parse_float=_number), path


def test_the_real_omaha_hi_lo_and_run_it_twice_histories_replay_with_no_mismatch(tmp_path: Path) -> None:
    assert VARIANTS.is_dir(), f"real variant data missing at {VARIANTS}"
    report = tmp_path / "report.jsonl"
    code = main(["replay", str(VARIANTS), "--report", str(report)])
    lines = {json.loads(line)["hand_id"]: json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()}
    assert Counter(line["status"] for line in lines.values()) == {"match": 9}, [
        (hand, line["reason"]) for hand, line in lines.items() if line["status"] != "match"
    ]
    assert code == 0
    assert Counter(line["game"] for line in lines.values()) == {"Omaha Hi/Lo": 5, "Omaha": 3, "Hold'em": 1}
    quartered = lines["pokerstars:109680525613"]  # omaha_hilo_nl.txt: high 9.55; low 9.55 shared 4.78 / 4.77
    assert quartered["computed"]["collected"] == {"3": 478, "6": 1432}
    split = lines["pokerstars:109677324649"]  # omaha_hilo_pl_2.txt: the odd cent goes to the high half
    assert split["computed"]["collected"] == {"2": 38, "6": 39}
    twice = lines["pokerstars:124689908714"]  # run_it_twice_1.txt: Omaha run twice, the side pot uncontested
    assert twice["computed"]["collected"] == {"3": 302700}
    assert [len(run) for run in twice["expected"]["runs"]] == [2, 2]
    capped = lines["pokerstars:133974380110"]  # run_it_twice_2.txt: capped hold'em, a tie on each run
    (pot,) = capped["computed"]["pots"]
    assert [(part["run"], part["collected"]) for part in pot["parts"]] == [
        (1, {"3": 4030, "6": 4030}),
        (2, {"3": 4030, "6": 4030}),
    ]
