"""Issue 24's contract refusals: every integer bounded, ids without invisible characters, a stream entry's field
given once, and each refusal with the code its field has (items 1, 6, 9, 12 and 13)."""

from __future__ import annotations

import json
import sys
import unicodedata
from typing import Any

import fakeredis
import orjson
import pytest
from pydantic import ValidationError

from showdown_messages import ShowdownEvent, rejections
from showdown_messages.tournaments import parse_tournament_message
from showdown_rules import INVISIBLE_RANGES, MAX_ORDINAL
from showdown_service.cli.commands import schema_files
from showdown_service.cli.tournament import standings_text
from showdown_service.decision.render import describe_result
from showdown_service.decision.tournament_replay import TournamentReplay
from showdown_service.infra.connection import connect
from showdown_service.infra.entry_fields import RepeatedFields
from showdown_service.infra.streams import read_group, read_range
from showdown_service.testing.localredis import LocalCluster
from showdown_service.worker.loop import Worker
from tests.tournament_builders import all_in, closed, entry, opened

PAST_64_BITS = 2**64  # 18446744073709551616: orjson cannot write it


def event(**fields: Any) -> dict[str, Any]:
    """A valid heads-up hand (no tournament), ``fields`` replaced."""
    doc: dict[str, Any] = orjson.loads(all_in("H-1", [(1, "a", 1000, 100), (2, "b", 1000, 100)], tid=None))["event"]
    return {**doc, **fields}


def _drain(worker: Worker) -> None:
    worker.run(until_idle=True)


def _message(doc: dict[str, Any]) -> str:
    return json.dumps({"schema_version": 1, "tournament_id": "T", **doc})


def _refusal(text: str) -> tuple[str, str, str]:
    try:
        parse_tournament_message(text)
    except ValidationError as exc:
        first = rejections(exc)[0]
        return first.code, first.field, first.message
    raise AssertionError(f"accepted: {text}")


# --- item 1 ---------------------------------------------------------------------------------------------------


def test_item1_round_beyond_2_53_is_refused_not_a_crash_loop(fake: fakeredis.FakeRedis, make_settings: Any) -> None:
    """Item 1: a `round_complete` (and a hand) with round 2^64 is refused `bad_round`; the batch around it settles,
    where the ledger store's JSON encoding raised on every delivery."""
    settings = make_settings()
    keys = settings.keys("default")
    huge_round = f'{{"schema_version": 1, "type": "round_complete", "tournament_id": "T", "round": {PAST_64_BITS}}}'
    hand = orjson.loads(all_in("h1", [(1, "a", 1000, 500), (2, "b", 1000, 500)], round_=1))["event"]
    huge_hand = json.dumps(hand).replace('"hand_for_hand_round": 1', f'"hand_for_hand_round": {PAST_64_BITS}')
    rows = [opened(payouts=[100]), entry("a"), entry("b"), closed()]
    for line in rows:
        fake.xadd(keys.events, {"tournament": json.dumps(orjson.loads(line)["tournament"])})
    fake.xadd(keys.events, {"tournament": huge_round})
    fake.xadd(keys.events, {"event": huge_hand})
    fake.xadd(keys.events, {"event": json.dumps({**hand, "hand_id": "h2", "hand_for_hand_round": None})})
    _drain(Worker(settings, fake))
    dead = [f for _, f in read_range(fake, keys.dead)]
    assert [(d[b"code"], d[b"message"].split(b":")[0]) for d in dead] == [
        (b"bad_round", b"round_complete.round"),
        (b"bad_round", b"hand_for_hand_round"),
    ]
    assert str(PAST_64_BITS).encode() in dead[0][b"message"]
    assert fake.xlen(keys.results) == 1, "the valid hand of the batch settled"
    assert fake.xpending(keys.events, settings.group)["pending"] == 0, "nothing is left pending"


def test_item1_worker_and_tournament_replay_agree_on_the_refusal_of_a_round_past_64_bits(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    """Item 1: `tournament replay` read 2^64 as a float and refused it as another thing; it now reads the message
    as written, as the worker does: the same code, field and message."""
    body = f'{{"schema_version": 1, "type": "round_complete", "tournament_id": "T", "round": {PAST_64_BITS}}}'
    run = TournamentReplay()
    run.feed([opened(payouts=[100]), f'{{"tournament": {body}}}'])
    settings = make_settings()
    keys = settings.keys("default")
    fake.xadd(keys.events, {"tournament": json.dumps(orjson.loads(opened(payouts=[100]))["tournament"])})
    fake.xadd(keys.events, {"tournament": body})
    _drain(Worker(settings, fake))
    ((_, dead),) = read_range(fake, keys.dead)
    assert [(r.code, r.message) for r in run.refused] == [(dead[b"code"].decode(), dead[b"message"].decode())]
    assert run.refused[0].code == "bad_round"


@pytest.mark.parametrize(
    ("doc", "code", "field"),
    [
        ({"type": "round_complete", "round": MAX_ORDINAL + 1}, "bad_round", "round_complete.round"),
        ({"type": "entry", "player_id": "a", "entry": MAX_ORDINAL + 1, "stack": 10}, "bad_number", "entry.entry"),
        (
            {"type": "chips", "player_id": "a", "entry": 1, "purchase": PAST_64_BITS, "kind": "rebuy", "chips": 5},
            "bad_number",
            "chips.purchase",
        ),
    ],
)
def test_item1_entry_purchase_and_round_numbers_stop_at_2_53_minus_1(
    doc: dict[str, Any], code: str, field: str
) -> None:
    """Item 1: the numbers the ledger keeps are bounded as chips are (exact as a double, inside 64 bits)."""
    assert _refusal(_message(doc))[:2] == (code, field)
    at_the_bound = {k: (MAX_ORDINAL if v in (MAX_ORDINAL + 1, PAST_64_BITS) else v) for k, v in doc.items()}
    parse_tournament_message(_message(at_the_bound))
    refused = event(hand_for_hand_round=MAX_ORDINAL + 1)
    with pytest.raises(ValidationError) as caught:
        ShowdownEvent.model_validate(refused)
    assert rejections(caught.value)[0][:2] == ("bad_round", "hand_for_hand_round")


def _integers(node: Any, path: str = "") -> list[tuple[str, Any]]:
    """Every integer of a JSON Schema, with its maximum (None when it has none)."""
    out: list[tuple[str, Any]] = []
    if isinstance(node, dict):
        if node.get("type") == "integer":
            out.append((path, node.get("maximum", node.get("const"))))
        for key, value in node.items():
            out += _integers(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _integers(value, f"{path}/{i}")
    return out


@pytest.mark.parametrize("name", ["showdown-event.schema.json", "tournament-message.schema.json"])
def test_item1_every_integer_a_producer_sends_has_a_maximum_within_2_53_minus_1(name: str) -> None:
    """Item 1: no integer of the producer's contract is unbounded (the JSON Schemas are the models')."""
    integers = _integers(schema_files()[name])
    assert integers
    unbounded = [(path, most) for path, most in integers if most is None or most > MAX_ORDINAL]
    assert unbounded == []


# --- item 6 (the contract's part; the ledger's is in tests/decision/test_tournament_refusals.py) ---------------------


@pytest.mark.parametrize("payouts", [[0], [0, 0, 0]])
def test_item6_payouts_that_pay_nothing_are_refused_at_open(payouts: list[int]) -> None:
    """Item 6: all-zero payouts announce no prize (a satellite's seats are prizes of the seat's value)."""
    code, field, message = _refusal(_message({"type": "open", "payouts": payouts}))
    assert (code, field) == ("bad_payouts", "payouts")
    assert "pay nothing" in message


def test_item6_registration_closing_with_empty_or_all_zero_payouts_is_refused() -> None:
    """Item 6: `registration_closed` replaces the payouts with the prizes announced; none at all is refused (leave
    the field out to keep the `open` message's)."""
    assert _refusal(_message({"type": "registration_closed", "payouts": []}))[:2] == ("bad_payouts", "payouts")
    assert _refusal(_message({"type": "registration_closed", "payouts": [0, 0]}))[:2] == ("bad_payouts", "payouts")
    parse_tournament_message(_message({"type": "registration_closed"}))
    parse_tournament_message(_message({"type": "open", "payouts": []}))  # the prize pool is known at the close


# --- item 9 ---------------------------------------------------------------------------------------------------


def test_item9_a_field_given_twice_in_one_stream_entry_is_ambiguous_entry_not_the_last_one_applied(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    """Item 9: `XADD ... tournament A tournament B` is refused, with both values kept; a reader keeping the last
    would have opened another tournament than one keeping the first."""
    settings = make_settings()
    keys = settings.keys("default")
    first = json.dumps(orjson.loads(opened("T1", payouts=[100]))["tournament"])
    last = json.dumps(orjson.loads(opened("T2", payouts=[100]))["tournament"])
    fake.execute_command("XADD", keys.events, "*", "tournament", first, "tournament", last)  # type: ignore[no-untyped-call]
    twice = ("event", json.dumps(event()), "event", json.dumps(event()))
    fake.execute_command("XADD", keys.events, "*", *twice)  # type: ignore[no-untyped-call]
    _drain(Worker(settings, fake))
    dead = [f for _, f in read_range(fake, keys.dead)]
    assert [d[b"code"] for d in dead] == [b"ambiguous_entry", b"ambiguous_entry"]
    assert b"'tournament' more than once" in dead[0][b"message"]
    assert b"'event' more than once" in dead[1][b"message"]
    kept = orjson.loads(dead[0][b"raw"])
    assert kept == [["tournament", first], ["tournament", last]], "the dead letter keeps both"
    assert fake.exists(keys.tournament("T1"), keys.tournament("T2")) == 0, "neither tournament was opened"
    assert fake.xlen(keys.results) == 0


def test_item9_a_cluster_client_sees_the_repeated_field_too(make_settings: Any) -> None:
    """Item 9: on Redis Cluster each reply is parsed by the client of the node that answered; those clients read
    an entry's pairs the same way (:func:`showdown_service.infra.connection.connect` has them do so)."""
    with LocalCluster(masters=3, replicas=0) as cluster:
        settings = make_settings(cluster.url, redis_cluster=True, shards="table0,table1", group="twice")
        client = connect(settings)
        for shard in settings.shards:
            key = settings.keys(shard).events
            client.execute_command("XADD", key, "*", "tournament", "{}", "tournament", "[]")  # type: ignore[no-untyped-call]
        for shard in settings.shards:
            client.xgroup_create(settings.keys(shard).events, "twice", id="0")
            ((_, rows),) = read_group(client, "twice", "c", {settings.keys(shard).events: ">"}, count=10)
            ((_, fields),) = rows
            assert isinstance(fields, RepeatedFields)
            assert fields.pairs == [(b"tournament", b"{}"), (b"tournament", b"[]")]


# --- item 12 --------------------------------------------------------------------------------------------------

INVISIBLE = {
    "right-to-left override": "\u202e",
    "zero width space": "\u200b",
    "byte order mark": "\ufeff",
    "line separator": "\u2028",
    "paragraph separator": "\u2029",
    "soft hyphen": "\u00ad",
    "word joiner": "\u2060",
    "tag latin a": "\U000e0041",
    "next line (C1 control)": "\x85",
}


@pytest.mark.parametrize("char", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_item12_ids_with_format_characters_are_refused_bad_id(char: str) -> None:
    """Item 12: `al\u202eice` prints as a look-alike of another player (or reverses a row); any id holding a
    control, format character or separator is refused, in a hand and in a tournament message."""
    for field, doc in [
        ("hand_id", event(hand_id=f"h{char}1")),
        ("table_id", event(table_id=f"t{char}")),
        ("tournament_id", event(tournament_id=f"{char}T")),
    ]:
        with pytest.raises(ValidationError) as caught:
            ShowdownEvent.model_validate_json(json.dumps(doc))
        assert rejections(caught.value)[0][:2] == ("bad_id", field)
    player = event()
    player["players"][1]["player_id"] = f"bob{char}"
    with pytest.raises(ValidationError) as caught:
        ShowdownEvent.model_validate_json(json.dumps(player))
    assert rejections(caught.value)[0][:2] == ("bad_id", "players[1].player_id")
    message = _message({"type": "entry", "player_id": f"al{char}ice", "entry": 1, "stack": 100})
    code, field, text = _refusal(message)
    assert (code, field) == ("bad_id", "entry.player_id")
    assert "format character" in text


def test_item12_the_refused_characters_cover_every_control_format_character_and_separator_of_unicode() -> None:
    """Item 12: the table of refused characters holds every Cc, Cf, Zl and Zp character this Python's Unicode
    database knows, and nothing a name is made of (letters, marks, digits, punctuation, spaces)."""
    refused = {code for first, last in INVISIBLE_RANGES for code in range(first, last + 1)}
    wanted = {c for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) in ("Cc", "Cf", "Zl", "Zp")}
    assert wanted <= refused
    assert {unicodedata.category(chr(c)) for c in refused - wanted} <= {"Cn"}, "only unassigned: Unicode 15's Cf"
    ShowdownEvent.model_validate_json(json.dumps(event(hand_id="Zoë-李-Ω 1", table_id="mesa ñ")))


def test_item12_tournament_standings_escape_an_id_that_would_reverse_its_row() -> None:
    """Item 12: a ledger written before the refusal may hold such an id; the standings table shows it escaped."""
    finished = [{"place": 1, "tied": 1, "player_id": "eve\u202e9999", "entry": 1, "prize": 100, "bounty_cash": 0}]
    text = standings_text(finished, [])
    assert "\u202e" not in text
    assert "eve\\u202e9999" in text
    result = {"hand_id": "h\u2028", "tournament_id": "T", "awards": [{"seat": 1, "player_id": "eve\u202e"}],
              "returned": [], "pots": [{"index": 0, "amount": 10, "winners": [{"seat": 1, "amount": 10}]}],
              "busts": [{"seat": 2, "player_id": "bob\u200b", "finish": 1}]}  # fmt: skip
    assert describe_result(result) == "h\\u2028: main pot 10: eve\\u202e 10; bob\\u200b busts"


# --- item 13 --------------------------------------------------------------------------------------------------

REFUSED_WITH_THEIR_FIELDS_CODE = [
    ('{"type": "open", "payouts": [1.5]}', "bad_payouts", "open.payouts[0]"),
    ('{"type": "open", "payouts": ["500"]}', "bad_payouts", "open.payouts[0]"),
    ('{"type": "open", "payouts": [NaN]}', "bad_payouts", "open.payouts[0]"),
    ('{"type": "open", "payouts": [1e400]}', "bad_payouts", "open.payouts[0]"),
    ('{"type": "open", "payouts": [-5]}', "bad_payouts", "open.payouts[0]"),
    ('{"type": "open", "payouts": [1000000000000001]}', "bad_payouts", "open.payouts[0]"),
    ('{"type": "open", "payouts": "500"}', "bad_payouts", "open.payouts"),
    ('{"type": "registration_closed", "payouts": [100, 2.5]}', "bad_payouts", "registration_closed.payouts[1]"),
    ('{"type": "chips", "player_id": "a", "entry": 1, "purchase": 1, "kind": "rebuy", "chips": 0}', "bad_chips",
     "chips.chips"),
    ('{"type": "chips", "player_id": "a", "entry": 1, "purchase": 1, "kind": "rebuy", "chips": -100}', "bad_chips",
     "chips.chips"),
    ('{"type": "chips", "player_id": "a", "entry": 1, "purchase": 1, "kind": "rebuy", "chips": 1000000000000001}',
     "bad_chips", "chips.chips"),
    ('{"type": "chips", "player_id": "a", "entry": 1, "purchase": 1, "kind": "rebuy", "chips": 99.9}', "bad_chips",
     "chips.chips"),
    ('{"type": "entry", "player_id": "a", "entry": 1, "stack": 0}', "bad_chips", "entry.stack"),
    ('{"type": "entry", "player_id": "a", "entry": 0, "stack": 100}', "bad_number", "entry.entry"),
    ('{"type": "entry", "player_id": "a", "entry": -1, "stack": 100}', "bad_number", "entry.entry"),
    ('{"type": "entry", "player_id": "a", "entry": 1.0, "stack": 100}', "bad_number", "entry.entry"),
    ('{"type": "chips", "player_id": "a", "entry": 0, "purchase": 1, "kind": "rebuy", "chips": 5}', "bad_number",
     "chips.entry"),
    ('{"type": "chips", "player_id": "a", "entry": 1, "purchase": -1, "kind": "rebuy", "chips": 5}', "bad_number",
     "chips.purchase"),
    ('{"type": "round_complete", "round": 0}', "bad_round", "round_complete.round"),
    ('{"type": "round_complete", "round": "3"}', "bad_round", "round_complete.round"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "code", "field"), REFUSED_WITH_THEIR_FIELDS_CODE)
def test_item13_numbers_of_tournament_messages_are_refused_with_their_fields_code_not_wrong_type(
    body: str, code: str, field: str
) -> None:
    """Item 13: these 20 refusals said the generic `wrong_type`; each says its field's code and the field's range."""
    text = '{"schema_version": 1, "tournament_id": "T", ' + body[1:]
    refused = _refusal(text)
    assert refused[:2] == (code, field)
    assert refused[2].startswith(f"{field}: ")


def test_item13_a_refusal_states_the_range_of_its_own_field() -> None:
    """Item 13: `entry.stack: 0 is not a chip count (a whole number from 0 to 10^15)` contradicted itself; an
    entry's stack and a purchase's chips start at 1, and their refusals say so."""
    message = _refusal(_message({"type": "entry", "player_id": "a", "entry": 1, "stack": 0}))[2]
    assert message == "entry.stack: 0 is not a starting stack (a whole number of chips from 1 to 10^15)"
    message = _refusal(
        _message({"type": "chips", "player_id": "a", "entry": 1, "purchase": 1, "kind": "add_on", "chips": 0})
    )[2]
    assert message == "chips.chips: 0 is not a purchase of chips (a whole number from 1 to 10^15)"
    bounty = _refusal(_message({"type": "entry", "player_id": "a", "entry": 1, "stack": 5, "bounty": -1}))[2]
    assert bounty == "entry.bounty: -1 is not a chip count (a whole number from 0 to 10^15)"
