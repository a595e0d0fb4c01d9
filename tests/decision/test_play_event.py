"""An event's ``play`` (phh-std's fields): the worker plays the hand, refuses one whose stated chips, folds, board,
stacks or button differ from what the actions give (or whose actions break a rule), and the result gives every
seat's end stack, the street each seat folded on and whether the hand saw a flop."""

from __future__ import annotations

import json
import tomllib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

from showdown_core import InvalidEvent, settle
from showdown_messages import ShowdownEvent, ShowdownResult
from showdown_service.decision.audit import EMPTY
from showdown_service.decision.decide import decide
from showdown_service.decision.intake import parse_event, to_showdown
from showdown_service.decision.settling import prepare
from showdown_service.decision.wire import encode_result
from showdown_service.histories.phh import read_phh
from tests.helpers import SHARED_DATA

PLURIBUS = SHARED_DATA / "phh" / "pluribus"
PLAY_FIELDS = ("variant", "antes", "blinds_or_straddles", "min_bet", "starting_stacks", "actions")


def pluribus_event(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A Pluribus hand as the replay reads it, as an event with its ``play`` (phh-std's own fields, line for line),
    and the file's fields."""
    text = path.read_text()
    fields = tomllib.loads(text)
    [hand] = list(read_phh(text, str(path)))
    assert hand.event is not None, path  # type: ignore[union-attr]
    doc = hand.event.model_dump(mode="json", exclude_none=True)  # type: ignore[union-attr]
    doc["play"] = {key: fields[key] for key in PLAY_FIELDS} | {"ante_trimming_status": True}
    return doc, fields


def sample(step: int = 40) -> list[Path]:
    return sorted(PLURIBUS.rglob("*.phh"))[::step]


def settle_doc(doc: dict[str, Any]) -> dict[str, Any]:
    settlement = settle(to_showdown(parse_event(json.dumps(doc))))
    result: dict[str, Any] = orjson.loads(encode_result(settlement, datetime(2026, 11, 29, tzinfo=UTC)))
    ShowdownResult.model_validate(result)  # every result the wire writes is the contract's
    return result


def refusal(doc: dict[str, Any]) -> InvalidEvent:
    with pytest.raises(InvalidEvent) as caught:
        settle_doc(doc)
    return caught.value


def test_pluribus_hands_with_play_settle_as_without_and_end_at_their_recorded_stacks() -> None:
    """A bounded sample (every 40th of 6,844 hands): the same payouts as the event without ``play``, and each seat's
    ``end_stack`` the file's ``finishing_stacks`` (Pluribus writes a chopped odd chip as a half: within one chip)."""
    for path in sample():
        doc, fields = pluribus_event(path)
        plain = {key: value for key, value in doc.items() if key != "play"}
        with_play, without = settle_doc(doc), settle_doc(plain)
        assert [a["amount"] for a in with_play["awards"]] == [a["amount"] for a in without["awards"]], path
        ends = [a["end_stack"] for a in with_play["awards"]]
        assert all(abs(end - recorded) < 1 for end, recorded in zip(ends, fields["finishing_stacks"], strict=True))
        assert [a["end_stack"] for a in without["awards"]] == ends  # the players' stacks give them too
        assert "saw_flop" not in without
        assert "folded_on" not in without["awards"][0]
        cash = settle_doc({**plain, "players": [{k: v for k, v in p.items() if k != "stack"} for p in doc["players"]]})
        assert set(cash["awards"][0]) == {"seat", "player_id", "amount", "net"}  # no stacks, no play: as it was
        assert with_play["saw_flop"] == any(action.startswith("d db") for action in fields["actions"]), path


def test_the_result_names_the_street_each_seat_folded_on_and_whether_the_flop_was_seen() -> None:
    doc, _ = pluribus_event(PLURIBUS / "30" / "0.phh")  # everybody folds to Bill's raise preflop
    result = settle_doc(doc)
    assert [a["folded_on"] for a in result["awards"]] == ["preflop"] * 4 + [None, "preflop"]
    assert result["saw_flop"] is False
    assert [a["end_stack"] for a in result["awards"]] == [9950, 9900, 10000, 10000, 10150, 10000]


def test_doctored_a_raise_below_the_minimum_is_refused_naming_the_action_and_the_seat() -> None:
    doc, fields = pluribus_event(PLURIBUS / "30" / "0.phh")
    actions = list(fields["actions"])
    actions[actions.index("p5 cbr 225")] = "p5 cbr 150"  # over a big blind of 100: the least raise is to 200
    doc["play"]["actions"] = actions
    error = refusal(doc)
    assert (error.code, error.field) == ("raise_below_minimum", "play.actions[8]")
    assert "p5 (seat 5)" in error.message
    assert "least raise is to 200" in error.message


def test_doctored_an_action_out_of_turn_is_refused() -> None:
    doc, fields = pluribus_event(PLURIBUS / "30" / "0.phh")
    actions = list(fields["actions"])
    actions[6], actions[7] = actions[7], actions[6]  # p4 folds before p3
    doc["play"]["actions"] = actions
    error = refusal(doc)
    assert (error.code, error.field) == ("out_of_turn", "play.actions[6]")
    assert "p3 is to act, not p4" in error.message


def test_doctored_one_chip_moved_between_two_seats_contributed_is_a_betting_mismatch() -> None:
    doc, _ = pluribus_event(PLURIBUS / "30" / "0.phh")
    doc["players"][0]["contributed"] += 1
    doc["players"][1]["contributed"] -= 1
    error = refusal(doc)
    assert (error.code, error.field) == ("betting_mismatch", "players[0].contributed")
    assert "is 51; the actions give p1 (seat 1) 50" in error.message


def test_doctored_a_fold_turned_into_a_call_is_a_betting_mismatch() -> None:
    doc, fields = pluribus_event(PLURIBUS / "30" / "0.phh")
    actions = list(fields["actions"])
    actions[-1] = "p2 cc"  # the big blind calls Bill's raise instead of folding: the hand goes on to a flop
    doc["play"]["actions"] = [*actions, "d db 2s3h4d", "p2 cc", "p5 cc", "d db 5c", "p2 cc", "p5 cc", "d db 8h",
                              "p2 cc", "p5 cc"]  # fmt: skip
    error = refusal(doc)
    assert (error.code, error.field) == ("betting_mismatch", "players[1].contributed")


def test_the_board_the_stacks_and_the_button_must_be_the_plays() -> None:
    doc, _ = pluribus_event(PLURIBUS / "30" / "0.phh")
    doc["players"][2]["stack"] = 1
    for player in doc["players"]:
        player.setdefault("stack", 10_000)
    error = refusal(doc)
    assert (error.code, error.field) == ("betting_mismatch", "players[2].stack")
    doc, _ = pluribus_event(PLURIBUS / "30" / "0.phh")
    doc["button_seat"] = 1
    assert (refusal(doc).code, refusal(doc).field) == ("betting_mismatch", "button_seat")
    contested = next(path for path in sample() if pluribus_event(path)[0]["board"])
    doc, _ = pluribus_event(contested)
    doc["board"] = [*doc["board"][:4], "2c" if "2c" not in json.dumps(doc) else "2d"]
    error = refusal(doc)
    assert (error.code, error.field) == ("betting_mismatch", "board")


def test_a_play_of_another_game_or_the_wrong_number_of_players_is_refused_by_the_contract() -> None:
    doc, _ = pluribus_event(PLURIBUS / "30" / "0.phh")
    doc["play"]["variant"] = "PO"
    with pytest.raises(InvalidEvent) as caught:
        parse_event(json.dumps(doc))
    assert (caught.value.code, caught.value.field) == ("bad_play", "play.variant")
    doc["play"]["variant"] = "NT"
    doc["play"]["antes"] = [0, 0]
    with pytest.raises(InvalidEvent) as caught:
        parse_event(json.dumps(doc))
    assert (caught.value.code, caught.value.field) == ("bad_play", "play.antes")
    doc["play"]["antes"] = [0] * 6
    doc["play"]["actions"] = ["p1 f\n"]
    with pytest.raises(InvalidEvent) as caught:
        parse_event(json.dumps(doc))
    assert caught.value.field.startswith("play.actions")


def test_a_refused_play_becomes_a_dead_letter_with_its_code() -> None:
    doc, fields = pluribus_event(PLURIBUS / "30" / "0.phh")
    doc["play"]["actions"] = [*fields["actions"][:8], "p5 cbr 50000", *fields["actions"][9:]]
    entry = {b"event": json.dumps(doc).encode()}
    now = datetime(2026, 11, 29, tzinfo=UTC)
    prepared = prepare("1-1", entry, failures=0, max_deliveries=5, max_payload_bytes=65536, now=now, started=0.0)
    assert prepared.code == "bet_beyond_stack"
    assert prepared.message is not None
    assert "play.actions[8]" in prepared.message
    assert "p5 (seat 5)" in prepared.message
    fine, _ = pluribus_event(PLURIBUS / "30" / "0.phh")
    ok = prepare("1-2", {b"event": json.dumps(fine).encode()}, failures=0, max_deliveries=5,
                 max_payload_bytes=65536, now=now, started=0.0)  # fmt: skip
    assert ok.code is None


def test_a_v1_event_without_play_reads_and_digests_as_before() -> None:
    doc, _ = pluribus_event(PLURIBUS / "30" / "0.phh")
    del doc["play"]
    event = ShowdownEvent.model_validate_json(json.dumps(doc))
    assert "play" not in event.model_dump(mode="json", exclude_defaults=False, exclude_none=False)


def test_pluribus_hands_with_play_are_decided_settled_at_their_recorded_stacks() -> None:
    """The worker's path, prepare then decide, on a bounded sample (scripts/pluribus_play.py runs all 6,844)."""
    now = datetime(2026, 11, 29, tzinfo=UTC)
    batch, finishing = [], {}
    for k, path in enumerate(sample(97)):
        doc, fields = pluribus_event(path)
        entry = {b"event": json.dumps(doc).encode()}
        batch.append(prepare(f"1-{k}", entry, failures=0, max_deliveries=5, max_payload_bytes=65536, now=now,
                             started=0.0))  # fmt: skip
        finishing[doc["hand_id"]] = fields["finishing_stacks"]
    decided = decide(batch, {}, EMPTY, worker="w", at="2026-11-29T00:00:00.000000Z")
    assert [d.outcome for d in decided.decisions] == ["settled"] * len(batch)
    for decision in decided.decisions:
        assert decision.result is not None
        ends = [award["end_stack"] for award in orjson.loads(decision.result)["awards"]]
        recorded = finishing[decision.prepared.hand_id]
        assert all(abs(end - stack) < 1 for end, stack in zip(ends, recorded, strict=True)), decision.prepared.hand_id
