"""Defects found by the property, hostile-input and differential tests, each pinned by its test.

Found by the tests of issue 6; all fixed. None of them lost or misplaced a
chip (the differential test found no settlement disagreement in 100,000
hands); the trimming one could stop a worker.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import fakeredis
import orjson
import pytest

from showdown_core import settle
from showdown_rules.limits import MAX_TOTAL_CHIPS
from showdown_service.decision.intake import parse_event, to_showdown
from showdown_service.decision.settling import prepare
from showdown_service.decision.wire import encode_result
from showdown_service.worker.loop import Worker
from tests.helpers import event, refusal, seat

GOOD = event(seat(1, "As Ad", 500), seat(2, "Kc Kd", 500), board="2c 7d 9h Js 3s", hand_id="found-1")


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param(json.dumps({**GOOD, "k" * 60_000: 1}), id="a 60 KB unknown field name"),
        pytest.param(
            json.dumps(GOOD).replace('"schema_version": 1', '"schema_version": 1' + "0" * 4000), id="4000 digits"
        ),
    ],
)
def test_a_refusal_quotes_the_producers_input_short(payload: str) -> None:
    """rejections.quote() exists so messages carry "a short, safe rendering of producer input" (40 characters),
    and values are quoted with it. Two paths bypass it:

    * ``extra_forbidden``: the unknown key becomes the rejection's ``field`` (via ``field_path``) and the start of
      its ``message`` in full: a 60,000-character key gives a 60,000-character field and message.
    * ``_supported_version`` (events.py) formats ``schema_version`` with f"{version}": up to the parser's 4,300
      digits are echoed.

    Both end up in the dead letter's ``message`` and the worker's warning log line, which
    ``dead_raw_max_bytes`` does not cut.
    """
    refused = refusal(payload)
    assert len(refused.field) <= 200, f"field of {len(refused.field)} characters"
    assert len(refused.message) <= 300, f"message of {len(refused.message)} characters"


def test_a_dead_letters_message_is_no_larger_than_the_payload_it_refuses() -> None:
    """A refusal lists every rejection, joined (InvalidEvent.__init__). 6,500 unknown keys fit in the default
    64 KB payload limit and give 6,500 rejections: a ~246,000-character message, 3.8 times the payload, stored
    whole in the dead-letter stream (only ``raw`` is cut to ``dead_raw_max_bytes``) and logged whole."""
    payload = json.dumps({**GOOD, **{f"k{i}": 1 for i in range(6_500)}}, separators=(",", ":")).encode()
    assert len(payload) <= 64 * 1024
    judged = prepare(
        "1-0",
        {b"event": payload},
        failures=1,
        max_deliveries=5,
        max_payload_bytes=64 * 1024,
        now=datetime(2026, 1, 1, tzinfo=UTC),
        started=0.0,
    )
    assert judged.code == "unknown_field"
    assert len(judged.message or "") <= len(payload), f"{len(judged.message or '')} characters for {len(payload)}"


@pytest.mark.parametrize(
    ("field", "control"),
    [("hand_id", "\x85"), ("table_id", "\x9b"), ("player_id", "\x80")],
    ids=["hand_id U+0085 NEL", "table_id U+009B CSI", "player_id U+0080"],
)
def test_an_id_holding_a_c1_control_character_is_refused_as_bad_id(field: str, control: str) -> None:
    """The Id contract (events.py) is "1-200 characters, no control characters" and CODES['bad_id'] says an id
    is refused when it "holds control characters". The pattern ``^[^\\x00-\\x1f\\x7f]+$`` only excludes C0
    controls and DEL: the C1 controls U+0080-U+009F (Unicode category Cc) pass, including NEL (a line break
    to some log readers) and CSI (a terminal escape introducer). ``settling._short_text`` already treats them
    as unprintable, so a refused payload's ids are dropped while an accepted event carries them everywhere."""
    doc = json.loads(json.dumps(GOOD))
    if field == "player_id":
        doc["players"][0]["player_id"] = f"p{control}1"
    else:
        doc[field] = f"x{control}1"
    assert refusal(doc).code == "bad_id"


def test_an_event_whose_chips_could_not_stay_exact_as_doubles_is_refused() -> None:
    """Each field may hold up to MAX_CHIPS (10**15), but pots and awards sum up to 20 fields: ten players at
    MAX_CHIPS and one chip of dead money would make an award of 10**16 + 1, which a double (JavaScript, many
    JSON readers) rounds. The event's total is bounded by 2**53 - 1 instead, so every amount in a result is
    exact; an event over it is refused with bad_chips naming why."""
    cards = ["As Ad", "Kc Kd", "Qc Qd", "Jc Jd", "Tc Td", "9c 9d", "8c 8d", "7c 7s", "6c 6d", "5c 5d"]
    over = event(*[seat(i + 1, cards[i], 10**15, dead=int(i == 0)) for i in range(10)], board="2h 3h 4s 9h Js")
    refused = refusal(over)
    assert (refused.code, refused.field) == ("bad_chips", "players")
    assert "2^53" in refused.message
    per_seat = MAX_TOTAL_CHIPS // 10
    at_limit = event(*[seat(i + 1, cards[i], per_seat) for i in range(10)], board="2h 3h 4s 9h Js")
    result = orjson.loads(encode_result(settle(to_showdown(parse_event(json.dumps(at_limit)))), datetime.now(UTC)))
    amounts = [p["amount"] for p in result["pots"]] + [a["amount"] for a in result["awards"]]
    assert max(amounts) == 10 * per_seat
    assert all(float(a) == a for a in amounts)


def test_a_list_of_invalid_players_is_not_also_said_to_be_no_players() -> None:
    refused = refusal({**GOOD, "players": ["x"]})
    assert [r.code for r in refused.rejections] == ["wrong_type"]
    assert refused.field == "players[0]"


def test_a_number_is_not_a_date_time() -> None:
    for stamp in (-1, 1.5, 1_700_000_000, "yesterday", "2026-11-21"):
        refused = refusal({**GOOD, "occurred_at": stamp})
        assert (refused.code, refused.field) == ("bad_timestamp", "occurred_at"), stamp


def test_trimming_survives_entries_acked_between_reading_the_groups_and_their_pending_summary(
    fake: fakeredis.FakeRedis, make_settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Worker.step`` hands the batch's commit to the I/O thread, then runs ``_housekeeping`` -> ``trim`` on the
    main thread. ``trim`` reads XINFO GROUPS (``pending`` > 0), then XPENDING for the oldest pending id. If the
    commit acked the entries in between, XPENDING answered ``min: None`` and ``_id_order(None)`` raised
    AttributeError (worker.py, ``trim``). ``run`` catches only RedisError, so the worker process stopped. On a real
    server this happened: tests/worker/test_worker_redis.py::test_audit_verify_names_the_first_edited_or_deleted_record
    failed at its first ``worker.step()`` in some runs. Here the ack is made to land at exactly that moment."""
    settings = make_settings()
    keys = settings.keys("default")
    entry = fake.xadd(keys.events, {"event": json.dumps(GOOD)})
    worker = Worker(settings, fake)
    worker.prepare_groups()
    fake.xreadgroup(settings.group, settings.consumer, {keys.events: ">"}, count=1)  # one entry pending
    pending_summary = fake.xpending

    def commit_lands_meanwhile(name: str, groupname: str) -> Any:
        fake.xack(keys.events, settings.group, entry)
        return pending_summary(name, groupname)

    monkeypatch.setattr(fake, "xpending", commit_lands_meanwhile)
    worker.trim(keys)  # must not raise: nothing is pending any more, so nothing below the last read needs keeping
