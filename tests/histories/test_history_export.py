"""The record recreates the play (issue 36 item 5): a hand settled with its ``play`` is archived whole and read
back whole; ``showdown archive export --format phh|ohh`` and ``showdown hand HAND_ID --history`` write it as a
hand history that ``showdown replay`` reads back to the same settlement (and pokerkit, for PHH, to the same end
stacks); a hand the formats cannot hold is left out, named with why."""

from __future__ import annotations

import json
import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import fakeredis
import orjson
import pyarrow.parquet as pq
import pytest
from pokerkit import HandHistory

from showdown_core import settle
from showdown_service.archive.archiver import Archiver
from showdown_service.cli.launch import main
from showdown_service.decision.intake import parse_event, to_showdown
from showdown_service.decision.wire import encode_result
from showdown_service.histories.compare import judge
from showdown_service.histories.export import NotAHistory, ohh_document, phh_text
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.ohh import read_ohh
from showdown_service.histories.phh import read_phh
from showdown_service.histories.run import replay_file
from showdown_service.infra.config import Settings
from showdown_service.storage.layout import all_files, open_store
from showdown_service.storage.recall import find_hand
from showdown_service.worker.loop import Worker
from tests.helpers import SHARED_DATA

PLURIBUS = SHARED_DATA / "phh" / "pluribus"
PLAY_FIELDS = ("variant", "antes", "blinds_or_straddles", "min_bet", "starting_stacks", "actions")
EVERY = sorted(PLURIBUS.rglob("*.phh"))
SAMPLE = EVERY[::211]
NO_REDIS = "redis://127.0.0.1:1/0"


def with_play(path: Path) -> tuple[dict[str, Any], list[int]]:
    """A Pluribus hand as an event with its ``play`` (phh-std's fields line for line), and its finishing stacks
    (Pluribus writes a chopped odd chip as a half)."""
    text = path.read_text()
    fields = tomllib.loads(text)
    [hand] = list(read_phh(text, str(path)))
    assert isinstance(hand, HandRecord), path
    assert hand.event is not None, path
    doc = hand.event.model_dump(mode="json", exclude_none=True)
    doc["play"] = {key: fields[key] for key in PLAY_FIELDS} | {"ante_trimming_status": True}
    return doc, fields["finishing_stacks"]


def settled(doc: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = orjson.loads(
        encode_result(settle(to_showdown(parse_event(json.dumps(doc)))), datetime(2026, 11, 29, tzinfo=UTC))
    )
    return result


def read_back(text: str, fmt: str) -> HandRecord:
    [hand] = list(read_phh(text, "export.phh") if fmt == "phh" else read_ohh(text, "export.ohh"))
    assert isinstance(hand, HandRecord), hand
    return hand


def same_settlement(hand: HandRecord, result: dict[str, Any]) -> None:
    """The history read back settles as the archived result did: each seat the same amount, the same pots."""
    verdict = judge(hand)
    assert verdict.status == "match", verdict.reason
    assert hand.event is not None
    again = settled(hand.event.model_dump(mode="json", exclude_none=True))
    assert [a["amount"] for a in again["awards"]] == [a["amount"] for a in result["awards"]]
    assert [(p["amount"], p["winners"]) for p in again["pots"]] == [(p["amount"], p["winners"]) for p in result["pots"]]


# --- the archive keeps the whole hand -------------------------------------------------------------------


@pytest.fixture
def archived(fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path) -> tuple[Settings, list[str]]:
    """Sampled Pluribus hands with their play, a v1 event of one of them (no play) and a refused one, settled by
    a worker and archived; the settings and the texts sent, in order."""
    settings = make_settings(batch_size=20, archive_url=str(tmp_path / "archive"), archive_file_rows=10)
    keys = settings.keys("default")
    docs = [with_play(path)[0] for path in SAMPLE]
    v1 = {key: value for key, value in docs[0].items() if key != "play"} | {"hand_id": "v1-no-play"}
    refused = json.loads(json.dumps(docs[1])) | {"hand_id": "refused"}
    refused["players"][0]["contributed"] += 1  # one chip more than its actions put in: betting_mismatch
    texts = [json.dumps(doc) for doc in [*docs, v1, refused]]
    archiver = Archiver(settings, fake, open_store(settings.archive_url, settings))
    archiver.step(keys)
    for text in texts:
        fake.xadd(keys.events, {"event": text})
    worker = Worker(settings, fake)
    worker.run(until_idle=True)
    archiver.drain()
    return settings, texts


def test_a_hand_settled_with_play_is_archived_whole_and_read_back_byte_equal(
    archived: tuple[Settings, list[str]],
) -> None:
    settings, texts = archived
    store = open_store(settings.archive_url)
    rows = [row for _, _, path in all_files(store) for row in pq.read_table(path, filesystem=store.fs).to_pylist()]
    assert [row["event"] for row in rows] == texts, "the event's exact text, play and all"
    for path, text in zip(SAMPLE, texts, strict=False):
        doc, finishing = with_play(path)
        found = find_hand(settings.archive_url, doc["hand_id"])
        assert found is not None
        assert found.outcome == "settled"
        assert orjson.dumps(found.event) == orjson.dumps(json.loads(text))
        assert found.event["play"] == doc["play"]
        awards = found.result["awards"]
        assert all(abs(a["end_stack"] - stack) < 1 for a, stack in zip(awards, finishing, strict=True))
        assert all("folded_on" in a for a in awards)


# --- showdown hand --history ------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["phh", "ohh"])
def test_showdown_hand_history_prints_the_hand_that_replays_to_its_archived_settlement(
    archived: tuple[Settings, list[str]], fmt: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    settings, _ = archived
    monkeypatch.setenv("SHOWDOWN_ARCHIVE_URL", settings.archive_url)
    monkeypatch.setenv("SHOWDOWN_REDIS_URL", NO_REDIS)
    doc, _ = with_play(SAMPLE[2])
    assert main(["hand", doc["hand_id"], "--history", fmt]) == 0
    text = capsys.readouterr().out
    found = find_hand(settings.archive_url, doc["hand_id"])
    assert found is not None
    same_settlement(read_back(text, fmt), found.result)


def test_showdown_hand_history_defaults_to_phh(
    archived: tuple[Settings, list[str]], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    settings, _ = archived
    monkeypatch.setenv("SHOWDOWN_ARCHIVE_URL", settings.archive_url)
    monkeypatch.setenv("SHOWDOWN_REDIS_URL", NO_REDIS)
    doc, finishing = with_play(SAMPLE[3])
    assert main(["hand", doc["hand_id"], "--history"]) == 0
    fields = tomllib.loads(capsys.readouterr().out)
    assert fields["actions"] == doc["play"]["actions"]
    assert fields["players"] == [p["player_id"] for p in doc["players"]]
    assert all(abs(end - stack) < 1 for end, stack in zip(fields["finishing_stacks"], finishing, strict=True))


def test_showdown_hand_history_of_a_hand_without_play_says_why_and_exits_2(
    archived: tuple[Settings, list[str]], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    settings, _ = archived
    monkeypatch.setenv("SHOWDOWN_ARCHIVE_URL", settings.archive_url)
    monkeypatch.setenv("SHOWDOWN_REDIS_URL", NO_REDIS)
    assert main(["hand", "v1-no-play", "--history"]) == 2
    assert "hand v1-no-play: its event has no play" in capsys.readouterr().err
    assert main(["hand", "refused", "--history", "ohh"]) == 2
    assert "hand refused: it was not settled (no result)" in capsys.readouterr().err


# --- showdown archive export --format phh|ohh -----------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["phh", "ohh"])
def test_archive_export_writes_every_settled_hand_with_play_and_replay_reads_each_back_to_its_settlement(
    archived: tuple[Settings, list[str]], fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    settings, _ = archived
    monkeypatch.setenv("SHOWDOWN_ARCHIVE_URL", settings.archive_url)
    today = datetime.now(UTC).date()
    out = tmp_path / f"export.{fmt}{'s' if fmt == 'phh' else ''}"
    days = ["--from", str(today - timedelta(days=1)), "--to", str(today + timedelta(days=1))]
    assert main(["archive", "export", *days, "--format", fmt, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"{len(SAMPLE)} hands written as {fmt.upper()}; 1 settled hands left out" in err
    assert "hand v1-no-play: its event has no play" in err
    replayed = replay_file(str(out))
    assert replayed.format == fmt
    assert [v.status for v in replayed.verdicts] == ["match"] * len(SAMPLE)
    hands = list((read_phh if fmt == "phh" else read_ohh)(out.read_text(), str(out)))
    for path, hand in zip(SAMPLE, hands, strict=True):
        found = find_hand(settings.archive_url, with_play(path)[0]["hand_id"])
        assert found is not None
        assert isinstance(hand, HandRecord)
        same_settlement(hand, found.result)


# --- the writers, on every real hand ------------------------------------------------------------------------


def test_every_pluribus_hand_written_as_phh_and_ohh_replays_to_its_settlement() -> None:
    """All 6,844 Pluribus hands: settled with their play, written as PHH and as Open Hand History, each read back
    by the replay and compared with the settlement's end stacks (PHH) and pots (OHH): every one a match."""
    statuses: dict[str, int] = {}
    for path in EVERY:
        doc, _ = with_play(path)
        result = settled(doc)
        for fmt, text in (("phh", phh_text(doc, result)), ("ohh", json.dumps(ohh_document(doc, result)))):
            status = judge(read_back(text, fmt)).status
            statuses[f"{fmt} {status}"] = statuses.get(f"{fmt} {status}", 0) + 1
    assert statuses == {"phh match": len(EVERY), "ohh match": len(EVERY)}
    assert len(EVERY) == 6844


def test_pokerkit_reads_the_phh_export_and_ends_at_its_finishing_stacks() -> None:
    for path in EVERY[::97]:
        doc, _ = with_play(path)
        history = HandHistory.loads(phh_text(doc, settled(doc)))
        *_, state = iter(history)
        assert list(state.stacks) == history.finishing_stacks, path


def test_a_history_that_would_not_replay_the_same_is_caught_by_the_round_trip() -> None:
    """The round trip can fail: a chip moved between two seats' end stacks is a mismatch; pots that do not add up
    are not written."""
    doc, _ = with_play(PLURIBUS / "30" / "0.phh")
    result = settled(doc)
    result["awards"][0]["end_stack"] += 1
    result["awards"][1]["end_stack"] -= 1
    assert judge(read_back(phh_text(doc, result), "phh")).status == "mismatch"
    result = settled(doc)
    result["pots"][0]["winners"] = [{**result["pots"][0]["winners"][0], "amount": 1}]
    with pytest.raises(NotAHistory, match="pot 0's winners and rake are not its amount"):
        ohh_document(doc, result)


def test_a_game_open_hand_history_cannot_hold_is_not_written_and_named() -> None:
    doc, _ = with_play(PLURIBUS / "30" / "0.phh")
    doc["play"]["variant"] = "F7S"
    with pytest.raises(NotAHistory, match="not 'F7S' \\(use PHH\\)"):
        ohh_document(doc, {"awards": []})
    with pytest.raises(NotAHistory, match="it was not settled"):
        phh_text(with_play(PLURIBUS / "30" / "0.phh")[0], None)
