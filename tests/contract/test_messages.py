"""The ShowdownEvent contract: what is accepted, and the precise reason for every refusal."""

from __future__ import annotations

import inspect
import json
import re
from typing import Any

import pytest
from pydantic import ValidationError

from showdown_core import InvalidEvent, parse_card
from showdown_messages import CANONICAL_CARDS, CODES, ShowdownEvent, canonical_card, rejections
from showdown_messages import events as events_module
from showdown_rules.cards import CARD_PATTERN
from tests.helpers import event, refusal, seat, validated


def contested(**fields: Any) -> dict[str, Any]:
    return event(seat(1, "As Ad", 100), seat(2, "Kc Kd", 100), board="2c 7d 9h Js 3s", **fields)


# --- cards ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [
        ("As", "As"),
        ("Td", "Td"),
        ("10d", "Td"),
        ("10D", "Td"),
        ("td", "Td"),
        ("as", "As"),
        ("AS", "As"),
        ("A♠", "As"),
        ("k♥", "Kh"),
        ("Q♦", "Qd"),
        ("2♣", "2c"),
        ("J♠\ufe0f", "Js"),
    ],
)
def test_every_documented_spelling_of_a_card_becomes_canonical_text(spelling: str, canonical: str) -> None:
    assert canonical_card(spelling) == canonical
    assert parse_card(spelling).text == canonical


@pytest.mark.parametrize(
    "text",
    ["1s", "", "A", "As ", " As", "Asx", "11s", "Ax", "AA", "\u0410s", "\uff21s", "A\u2664", "Ss", "0s", "10"],
)
def test_anything_else_is_not_a_card(text: str) -> None:
    assert canonical_card(text) is None
    with pytest.raises(InvalidEvent, match="is not a card"):
        parse_card(text, "where")


def test_the_deck_has_52_canonical_cards_in_index_order() -> None:
    assert len(CANONICAL_CARDS) == len(set(CANONICAL_CARDS)) == 52
    assert [parse_card(t).index for t in CANONICAL_CARDS] == list(range(52))
    assert sorted(parse_card(t) for t in ("As", "Ah", "2c", "Ks")) == [parse_card(t) for t in ("2c", "Ks", "Ah", "As")]


def test_aliases_in_an_event_are_normalised_to_canonical_text() -> None:
    ev = validated(event(seat(1, "10♠ a♠", 100), seat(2, "Kc KD", 100), board="2c 7d 9h Js 3s"))
    assert ev.players[0].hole_cards == ("Ts", "As")
    assert ev.players[1].hole_cards == ("Kc", "Kd")


# --- refusals ---------------------------------------------------------------------


def test_a_bad_card_is_named_with_its_exact_place() -> None:
    doc = event(seat(1, "As Ad", 100), seat(2, "Kc Kd", 100), seat(3, "Qc 1s", 100), board="2c 7d 9h Js 3s")
    err = refusal(doc)
    assert err.code == "bad_card"
    assert err.field == "players[2].hole_cards[1]"
    assert err.message == "players[2].hole_cards[1] (seat 3): '1s' is not a card"


def test_a_card_dealt_twice_is_refused_naming_both_places() -> None:
    doc = event(seat(1, "As Ad", 100), seat(2, "Kc 7d", 100), board="2c 7d 9h Js 3s")
    err = refusal(doc)
    assert err.code == "duplicate_card"
    assert err.message == "players[1].hole_cards[1] (seat 2): 7d is also at board[1]; each card exists once"


def test_a_folded_players_known_cards_count_toward_duplicates() -> None:
    doc = event(seat(1, "As Ad", 100), seat(2, "Kc Kd", 100), seat(3, "Ah AS", 20, folded=True), board="2c 7d 9h Js 3s")
    err = refusal(doc)
    assert err.code == "duplicate_card"
    assert err.message.startswith("players[2].hole_cards[1] (seat 3): ")
    assert "players[0].hole_cards[0] (seat 1)" in err.message, "the other place names its seat too"


def test_two_spellings_of_one_card_are_still_a_duplicate() -> None:
    err = refusal(event(seat(1, "As Ad", 100), seat(2, "Kc A♠", 100), board="2c 7d 9h Js 3s"))
    assert err.code == "duplicate_card"


@pytest.mark.parametrize(
    ("change", "code", "field"),
    [
        ({"schema_version": 2}, "unsupported_schema_version", "schema_version"),
        ({"schema_version": True}, "wrong_type", "schema_version"),
        ({"schema_version": "1"}, "wrong_type", "schema_version"),
        ({"variant": "pineapple"}, "unknown_variant", "variant"),
        ({"colour": "red"}, "unknown_field", "colour"),
        ({"hand_id": ""}, "bad_id", "hand_id"),
        ({"hand_id": "x" * 201}, "bad_id", "hand_id"),
        ({"table_id": "T\n1"}, "bad_id", "table_id"),
        ({"hand_id": 123}, "wrong_type", "hand_id"),
        ({"button_seat": 11}, "bad_seat", "button_seat"),
        ({"button_seat": None}, "missing_button", "button_seat"),
        ({"board": ["2c", "7d", "9h"]}, "bad_board_size", "board"),
        ({"board": ["2c", "7d", "9h", "Js", "3s", "4s"]}, "too_many_cards", "board"),
        ({"players": []}, "no_players", "players"),
        ({"occurred_at": "yesterday"}, "bad_timestamp", "occurred_at"),
    ],
)
def test_each_event_field_rule_has_its_own_code(change: dict[str, Any], code: str, field: str) -> None:
    doc = contested()
    doc.update(change)
    if change.get("button_seat", 0) is None:
        del doc["button_seat"]
    err = refusal(doc)
    assert (err.code, err.field) == (code, field)
    assert err.message.startswith(f"{field}: ")


@pytest.mark.parametrize(
    ("change", "code", "field"),
    [
        ({"contributed": -5}, "bad_chips", "players[1].contributed"),
        ({"contributed": 1.5}, "bad_chips", "players[1].contributed"),
        ({"contributed": 100.0}, "bad_chips", "players[1].contributed"),
        ({"contributed": "100"}, "bad_chips", "players[1].contributed"),
        ({"contributed": True}, "bad_chips", "players[1].contributed"),
        ({"contributed": 10**16}, "bad_chips", "players[1].contributed"),
        ({"dead_money": -1}, "bad_chips", "players[1].dead_money"),
        ({"seat": 0}, "bad_seat", "players[1].seat"),
        ({"seat": 1}, "duplicate_seat", "players[1].seat"),
        ({"player_id": "p1"}, "duplicate_player", "players[1].player_id"),
        ({"player_id": "y" * 201}, "bad_id", "players[1].player_id"),
        ({"hole_cards": ["Kc"]}, "bad_hole_cards", "players[1].hole_cards"),
        ({"hole_cards": None}, "bad_hole_cards", "players[1].hole_cards"),
        ({"hole_cards": "KcKd"}, "wrong_type", "players[1].hole_cards"),
        ({"folded": "no"}, "wrong_type", "players[1].folded"),
        ({"cards": ["Kc"]}, "unknown_field", "players[1].cards"),
    ],
)
def test_each_player_field_rule_has_its_own_code(change: dict[str, Any], code: str, field: str) -> None:
    doc = contested()
    doc["players"][1].update(change)
    err = refusal(doc)
    assert (err.code, err.field) == (code, field)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"contributed": -5}, "players[1].contributed (seat 7): "),  # a field pydantic checks
        ({"hole_cards": ["Kc"]}, "players[1].hole_cards (seat 7): "),  # a rule of the event's own check
        ({"hole_cards": ["Kc", "As"]}, "players[1].hole_cards[1] (seat 7): "),  # a card of that seat
        ({"cards": ["Kc"]}, "players[1].cards (seat 7): "),  # a key the schema does not know
        ({"seat": 0}, "players[1].seat: "),  # no seat to name: the refusal is of the seat itself
    ],
)
def test_a_refusal_of_one_players_field_names_that_players_seat(change: dict[str, Any], named: str) -> None:
    doc = event(seat(3, "As Ad", 100), seat(7, "Kc Kd", 100), board="2c 7d 9h Js 3s")
    doc["players"][1].update(change)
    assert refusal(doc).message.startswith(named)
    with pytest.raises(ValidationError) as caught:
        ShowdownEvent.model_validate(doc)
    assert rejections(caught.value, doc)[0].message.startswith(named), "a mapping names the seat too"


@pytest.mark.parametrize("missing", ["schema_version", "hand_id", "table_id", "players"])
def test_a_missing_required_field_is_named(missing: str) -> None:
    doc = contested()
    del doc[missing]
    err = refusal(doc)
    assert (err.code, err.field) == ("missing_field", missing)


def test_a_player_without_contributed_is_refused() -> None:
    doc = contested()
    del doc["players"][0]["contributed"]
    assert (refusal(doc).code, refusal(doc).field) == ("missing_field", "players[0].contributed")


def test_more_than_ten_players_is_refused() -> None:
    doc = event(*[seat(i % 10 + 1, None, 0, folded=True, player_id=f"x{i}") for i in range(11)])
    assert refusal(doc).code == "too_many_players"


def test_the_top_contribution_held_only_by_folded_seats_is_refused() -> None:
    doc = event(seat(1, "As Ad", 100), seat(2, "Kc Kd", 100), seat(3, None, 300, folded=True), board="2c 7d 9h Js 3s")
    err = refusal(doc)
    assert err.code == "folded_top_contribution"
    assert "(300)" in err.message
    assert "seat(s) 3" in err.message


def test_an_event_where_everyone_folded_is_refused() -> None:
    err = refusal(event(seat(1, None, 10, folded=True), seat(2, None, 10, folded=True)))
    assert err.code == "no_live_player"


def test_a_stack_smaller_than_the_chips_put_in_is_refused() -> None:
    doc = event(seat(1, "As Ad", 100, stack=1000), seat(2, "Kc Kd", 100, stack=90, dead=5), board="2c 7d 9h Js 3s")
    err = refusal(doc)
    assert (err.code, err.field) == ("stack_too_small", "players[1].stack")
    assert "105 chips" in err.message


def test_stacks_must_be_given_for_every_seat_or_none() -> None:
    doc = event(seat(1, "As Ad", 100, stack=1000), seat(2, "Kc Kd", 100), board="2c 7d 9h Js 3s")
    assert (refusal(doc).code, refusal(doc).field) == ("partial_stacks", "players[1].stack")


def test_a_stud_event_may_not_have_a_board() -> None:
    doc = event(
        seat(1, "As Ad 2c 3c 4c 5d 9s", 100),
        seat(2, "Kc Kd 2d 3d 4d 5h 9h", 100),
        board="Js",
        variant="stud",
    )
    assert refusal(doc).code == "bad_board_size"


def test_malformed_json_and_non_objects_are_refused_with_their_own_codes() -> None:
    assert refusal('{"schema_version": 1,').code == "malformed_json"
    assert refusal(b"\xff\xfe".decode("latin-1")).code == "malformed_json"
    assert refusal("[1, 2]").code == "not_an_object"
    assert refusal("42").code == "not_an_object"


def test_a_player_field_given_twice_is_refused_as_duplicate_key_naming_both_values() -> None:
    text = json.dumps(contested()).replace('"contributed": 100', '"contributed": 100, "contributed": 800', 1)
    err = refusal(text)
    assert (err.code, err.field) == ("duplicate_key", "players[0].contributed")
    assert "100 and 800" in err.message


@pytest.mark.parametrize(
    ("spelling", "field"),
    [
        ('"hand_id": "H-1", "hand_id": "H-1"', "hand_id"),  # twice alike: still refused, the producers may differ
        ('"hand_id" : "H-1" ,\n "hand_id":"H-2"', "hand_id"),  # blanks around the colon
        ('"hand_id": "H-1", "occurred_at": "2026-11-21T12:00:00Z", "hand_id": "H-2"', "hand_id"),
    ],
)
def test_an_event_field_given_twice_in_any_spelling_is_refused_as_duplicate_key(spelling: str, field: str) -> None:
    text = json.dumps(contested()).replace('"hand_id": "H-1"', spelling, 1)
    err = refusal(text)
    assert (err.code, err.field) == ("duplicate_key", field)


def test_a_key_given_twice_is_the_reason_even_when_the_event_is_invalid_for_another() -> None:
    doc = contested()
    doc["players"][0]["contributed"] = -1
    text = json.dumps(doc).replace('"seat": 2', '"seat": 2, "seat": 1', 1)
    assert refusal(text).code == "duplicate_key"


def test_a_key_given_twice_as_deep_as_the_parser_reads_is_refused_without_a_crash() -> None:
    text = "[" * 900 + '{"a": 1, "a": 2}' + "]" * 900
    err = refusal(text)
    assert err.code == "duplicate_key"
    assert err.field == "[0]" * 900 + ".a"


def test_a_string_holding_a_quote_and_a_colon_is_no_duplicate_key() -> None:
    doc = contested()
    doc["players"][0]["player_id"] = 'alice":"bob'
    doc["occurred_at"] = "2026-11-21T12:00:00Z"
    assert validated(doc).players[0].player_id == 'alice":"bob'


def test_every_rejection_is_reported_not_only_the_first() -> None:
    doc = contested(colour="red")
    doc["players"][0]["contributed"] = -1
    with pytest.raises(ValidationError) as caught:
        ShowdownEvent.model_validate_json(json.dumps(doc))
    codes = {r.code for r in rejections(caught.value)}
    assert codes == {"unknown_field", "bad_chips"}


def test_braces_in_producer_data_do_not_break_the_message() -> None:
    doc = contested()
    doc["players"][1]["player_id"] = "{reason}"
    doc["players"][0]["player_id"] = "{reason}"
    err = refusal(doc)
    assert err.code == "duplicate_player"
    assert "'{reason}'" in err.message


# --- accepted -------------------------------------------------------------------------


def test_one_live_player_needs_no_board_or_cards() -> None:
    ev = validated(event(seat(1, None, 50, folded=True), seat(2, "Kc", 100), board="2c 7d"))
    assert ev.board == ("2c", "7d")


def test_optional_fields_have_documented_defaults() -> None:
    ev = validated(contested())
    assert ev.variant == "holdem"
    assert ev.tournament_id is None
    assert ev.players[0].dead_money == 0
    assert ev.players[0].stack is None
    assert ev.occurred_at is None


def test_every_code_the_model_can_raise_is_documented() -> None:
    source = inspect.getsource(events_module)
    raised = set(re.findall(r'(?:reject|_raise_first_repeat)\(\s*"([a-z_]+)"', source))
    assert len(raised) >= 10
    assert raised <= CODES.keys()


def test_the_card_pattern_accepts_exactly_the_documented_spellings() -> None:
    pattern = re.compile(CARD_PATTERN)
    alphabet = "0123456789TJQKAtjqkacdhsCDHSXx♣♦♥♠♤\ufe0f "
    tried = 0
    for a in alphabet:
        for b in alphabet:
            for tail in ("", *alphabet):
                text = a + b + tail
                tried += 1
                assert bool(pattern.match(text)) == (canonical_card(text) is not None), repr(text)
    assert tried > 50_000


def test_a_card_that_is_not_a_string_is_a_bad_card() -> None:
    doc = contested()
    doc["board"][2] = 7
    err = refusal(doc)
    assert (err.code, err.message) == ("bad_card", "board[2]: 7 is not a card")
