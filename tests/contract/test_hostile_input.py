"""Hostile input: whatever arrives, intake refuses it with a listed code (or takes a valid event), promptly.

The property, for every payload below: ``parse_event`` returns a valid
ShowdownEvent or raises ``InvalidEvent`` whose code is in ``CODES`` and whose
message is not empty; never another exception, never a hang. Where the
contract has a precise code for the fault (a chip amount, a seat, a card, an
id...), the refusal must use it and name the field.

Every payload is judged in a separate process with a time limit, so a hang
fails the test instead of stalling CI; the parse itself must also take under
:data:`PARSE_LIMIT_S`. At the end a worker on fakeredis takes a stream of
hostile entries interleaved with good events.
"""

from __future__ import annotations

import json
import multiprocessing
import random
import re
import time
from collections.abc import Callable, Iterator
from multiprocessing.pool import Pool
from typing import Any, Final, NamedTuple
from unicodedata import category

import fakeredis
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from showdown_core import InvalidEvent
from showdown_messages import CODES, MAX_CHIPS, VARIANT_SHAPES, PlayerIn, ShowdownEvent
from showdown_rules import ISO_4217_EXPONENTS, MAX_ORDINAL
from showdown_service.decision import audit
from showdown_service.decision.intake import parse_event
from showdown_service.infra.streams import read_range
from showdown_service.worker.loop import Worker
from tests.core.test_differential import reference_settlement
from tests.helpers import event, seat
from tests.strategies import DECK, canonical, deal_hand, events

PARSE_LIMIT_S: Final = 2.0
"""Longest a single parse may take (the largest payloads here are a few megabytes; they parse in ~10 ms)."""
HANG_LIMIT_S: Final = 30.0
"""Longest the child process may take to answer, start-up included, before the payload counts as a hang."""
# derandomize: the same payloads on every run and machine; breadth comes from the many families below
HOSTILE = settings(max_examples=200, deadline=None, derandomize=True, database=None)


class Judged(NamedTuple):
    """What intake made of one payload."""

    valid: bool
    code: str
    """The refusal's code; ``""`` for a valid event; ``"!ExceptionName"`` for anything else raised."""
    field: str
    message: str
    seconds: float


def judge(payload: bytes | str) -> Judged:
    """Parse ``payload`` as the worker does; never raises (runs in the child process)."""
    started = time.perf_counter()
    try:
        parse_event(payload)
    except InvalidEvent as exc:
        return Judged(False, exc.code, exc.field, exc.message, time.perf_counter() - started)
    except Exception as exc:  # exactly what the property forbids: report it, do not die
        return Judged(False, f"!{type(exc).__name__}", "", str(exc)[:2000], time.perf_counter() - started)
    return Judged(True, "", "", "", time.perf_counter() - started)


Judge = Callable[[bytes | str], Judged]


@pytest.fixture(scope="module")
def judged() -> Iterator[Judge]:
    """``judged(payload)``: :func:`judge` in a child process, failing the test if it does not answer in time."""
    pool: Pool = multiprocessing.get_context("spawn").Pool(1)
    pool.apply_async(judge, ('{"warm": "up"}',)).get(timeout=120)  # start-up (imports) is not a parse

    def run(payload: bytes | str) -> Judged:
        try:
            verdict = pool.apply_async(judge, (payload,)).get(timeout=HANG_LIMIT_S)
        except multiprocessing.TimeoutError:
            pool.terminate()
            pytest.fail(f"intake hung on a payload of {len(payload)} bytes starting {payload[:80]!r}")
        assert verdict.seconds < PARSE_LIMIT_S, f"{verdict.seconds:.2f} s to parse {payload[:80]!r}"
        return verdict

    yield run
    pool.terminate()
    pool.join()


def assert_refused_properly(verdict: Judged, payload: bytes | str = b"") -> None:
    """The property: a valid event, or a listed code with a message."""
    if verdict.valid:
        return
    assert not verdict.code.startswith("!"), f"{verdict.code}: {verdict.message} for {payload[:200]!r}"
    assert verdict.code in CODES, verdict
    assert verdict.message.strip(), verdict


GOOD: Final = event(
    seat(1, "As Ad", 500, stack=1000),
    seat(2, "Kc Kd", 500, stack=500),
    seat(4, "7c", 100, folded=True, stack=300),
    board="2c 7d 9h Js 3s",
    hand_id="hostile-base",
)
"""A valid contested hand to break in different ways."""


def _with(path: tuple[str | int, ...], value: Any, doc: dict[str, Any] | None = None) -> dict[str, Any]:
    """A deep copy of ``doc`` (default :data:`GOOD`) with the value at ``path`` replaced (or added)."""
    copy: Any = json.loads(json.dumps(GOOD if doc is None else doc))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return dict(copy)


def _path_text(path: tuple[str | int, ...]) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out


# --- random bytes, random JSON, truncation ----------------------------------------------------------


@HOSTILE
@given(st.binary(max_size=4000))
def test_random_bytes_are_refused_with_a_listed_code(judged: Judge, payload: bytes) -> None:
    verdict = judged(payload)
    assert_refused_properly(verdict, payload)
    assert not verdict.valid


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
    max_leaves=30,
)


@HOSTILE
@given(JSON_VALUES)
def test_any_json_document_is_refused_with_a_listed_code_and_a_non_object_as_not_an_object(
    judged: Judge, value: Any
) -> None:
    verdict = judged(json.dumps(value))
    assert_refused_properly(verdict, json.dumps(value))
    assert not verdict.valid
    if not isinstance(value, dict):
        assert verdict.code == "not_an_object", verdict


@HOSTILE
@given(events(), st.data())
def test_every_truncation_of_a_valid_event_is_malformed_json(
    judged: Judge, doc: dict[str, Any], data: st.DataObject
) -> None:
    payload = json.dumps(doc, ensure_ascii=False).encode()  # multi-byte characters: cuts inside them too
    cut = data.draw(st.integers(0, len(payload) - 1))
    verdict = judged(payload[:cut])
    assert verdict.code == "malformed_json", verdict
    assert verdict.message.startswith("not valid JSON"), verdict


# --- depth and size -------------------------------------------------------------------------------

_NESTED_DOC = json.dumps({**GOOD, "extra": "@@"})

DEEP: Final = {
    "100,000 [": "[" * 100_000,
    "100,000 [ closed": "[" * 100_000 + "]" * 100_000,
    '100,000 {"a":': '{"a":' * 100_000,
    "300 deep inside an unknown field": _NESTED_DOC.replace('"@@"', "[" * 300 + "]" * 300),
    "300 deep inside the board": json.dumps(GOOD).replace('"board": [', '"board": [' + "[" * 300 + "]" * 300 + ",", 1),
}


@pytest.mark.parametrize("name", DEEP)
def test_deep_nesting_is_refused_as_malformed_json_naming_the_recursion_limit(judged: Judge, name: str) -> None:
    verdict = judged(DEEP[name])
    assert verdict.code == "malformed_json", verdict
    assert "recursion limit exceeded" in verdict.message, verdict


HUGE = 10**400
NUMBER_FIELDS: Final = {
    ("players", 0, "contributed"): ("bad_chips", "players[0].contributed"),
    ("players", 0, "dead_money"): ("bad_chips", "players[0].dead_money"),
    ("players", 0, "stack"): ("bad_chips", "players[0].stack"),
    ("rake",): ("bad_chips", "rake"),
    ("players", 0, "seat"): ("bad_seat", "players[0].seat"),
    ("button_seat",): ("bad_seat", "button_seat"),
    ("rake_ppm",): ("bad_rake", "rake_ppm"),
    ("schema_version",): ("unsupported_schema_version", "schema_version"),
}


def opens_with_the_place(message: str, field: str) -> bool:
    """The message opens with the field at fault and, for a field of a player (other than its seat), that
    player's seat: ``players[0].contributed (seat 1): ...``."""
    seat = r" \(seat \d+\)" if re.match(r"players\[\d+\]\.", field) and not field.endswith(".seat") else ""
    return re.match(f"{re.escape(field)}{seat}: ", message) is not None


@pytest.mark.parametrize("number", [HUGE, -HUGE, 10**20, MAX_CHIPS + 1, -1], ids=str)
@pytest.mark.parametrize("path", NUMBER_FIELDS, ids=_path_text)
def test_a_huge_or_negative_number_gets_its_fields_own_code(
    judged: Judge, path: tuple[str | int, ...], number: int
) -> None:
    code, field = NUMBER_FIELDS[path]
    verdict = judged(json.dumps(_with(path, number)))
    assert (verdict.code, verdict.field) == (code, field), verdict
    assert opens_with_the_place(verdict.message, field), verdict


@pytest.mark.parametrize("text", ["1e400", "-1e400", "1" + "0" * 5000, "1" * 100_000, "0." + "0" * 50_000 + "1"])
def test_numbers_beyond_any_float_or_4300_digits_are_refused_with_a_listed_code(judged: Judge, text: str) -> None:
    payload = json.dumps(GOOD).replace(
        f'"contributed": {GOOD["players"][0]["contributed"]}', f'"contributed": {text}', 1
    )
    verdict = judged(payload)
    assert_refused_properly(verdict, payload)
    # 1e400 is inf: bad_chips; more than 4300 digits: pydantic's parser stops at "number out of range" and the
    # refusal is malformed_json, not bad_chips (see docs/guarantees-tests.md, "imprecise refusals")
    assert verdict.code in {"bad_chips", "malformed_json"}, verdict


MEGA: Final = "x" * 3_000_000
STRING_FIELDS: Final = {
    ("hand_id",): ("bad_id", "hand_id"),
    ("table_id",): ("bad_id", "table_id"),
    ("tournament_id",): ("bad_id", "tournament_id"),
    ("players", 1, "player_id"): ("bad_id", "players[1].player_id"),
    ("variant",): ("unknown_variant", "variant"),
    ("board", 2): ("bad_card", "board[2]"),
    ("players", 0, "hole_cards", 1): ("bad_card", "players[0].hole_cards[1]"),
    ("occurred_at",): ("bad_timestamp", "occurred_at"),
}


@pytest.mark.parametrize("path", STRING_FIELDS, ids=_path_text)
def test_a_megabyte_string_gets_its_fields_own_code_quoted_short(judged: Judge, path: tuple[str | int, ...]) -> None:
    code, field = STRING_FIELDS[path]
    verdict = judged(json.dumps(_with(path, MEGA)))
    assert (verdict.code, verdict.field) == (code, field), verdict
    assert opens_with_the_place(verdict.message, field), verdict
    assert len(verdict.message) < 300, f"a {len(verdict.message)}-character message"


def test_a_megabyte_unknown_field_is_refused_as_unknown_field(judged: Judge) -> None:
    verdict = judged(json.dumps({**GOOD, MEGA: 1}))
    assert verdict.code == "unknown_field", verdict.code
    # its name quoted short: tests/core/test_regressions.py::test_a_refusal_quotes_the_producers_input_short


def test_ten_thousand_players_are_refused_as_too_many_players(judged: Judge) -> None:
    players = [dict(GOOD["players"][0], seat=1 + i % 10, player_id=f"p{i}") for i in range(10_000)]
    verdict = judged(json.dumps({**GOOD, "players": players}))
    assert (verdict.code, verdict.field) == ("too_many_players", "players"), verdict
    assert len(verdict.message) < 300


# --- a wrong type in every field ------------------------------------------------------------------

WRONG: Final[tuple[Any, ...]] = (
    *(None, True, False, 0, 1, 11, -1, 1.5, 2.0, MAX_ORDINAL + 1, HUGE),
    *("", "x", "As", "2026-11-22T12:00:00Z", "p\u202eq", "\u200b"),
    *([], [1], ["As"], {}, {"a": 1}),
)
"""Values of every JSON type, and some of the right type that a field still refuses."""
CHIP_KEYS: Final = frozenset({"contributed", "dead_money", "stack", "rake", "bounty"})
ID_KEYS: Final = frozenset({"hand_id", "table_id", "tournament_id", "player_id", "rake_schedule"})
OPTIONAL_TOP: Final = (
    "tournament_id", "button_seat", "rake", "rake_ppm", "occurred_at", "boards", "bounty_cash_ppm",
    "hand_for_hand_round", "mystery_bounties", "play", "rake_schedule", "stakes", "cashouts", "jackpot",
    "currency",
)  # fmt: skip
OPTIONAL_PLAYER: Final = ("hole_cards", "dead_money", "folded", "stack", "bounty")


def _card(value: Any) -> bool:
    try:
        return isinstance(value, str) and canonical(value) in DECK
    except (KeyError, IndexError):
        return False


def _valid_id(value: Any) -> bool:
    invisible = ("Cc", "Cf", "Zl", "Zp")
    return isinstance(value, str) and 1 <= len(value) <= 200 and not any(category(c) in invisible for c in value)


def expected_refusal(path: tuple[str | int, ...], value: Any) -> tuple[str, str] | None:
    """The code and field a value at ``path`` must be refused with; ``None`` if its type is acceptable there
    (the event may then be valid, or break a rule between fields: any listed code)."""
    key = next(step for step in reversed(path) if isinstance(step, str))
    here = _path_text(path)
    whole_int = type(value) is int
    if path[-1] != key and key == "players":  # one player replaced whole
        return None if isinstance(value, dict) else ("wrong_type", here)
    if path[-1] != key:  # one card of the board or of a hand
        return None if _card(value) else ("bad_card", here)
    if key in CHIP_KEYS:
        ok = (whole_int and 0 <= value <= MAX_CHIPS) or (key in ("stack", "bounty") and value is None)
        return None if ok else ("bad_chips", here)
    if key in ("seat", "button_seat"):
        ok = (whole_int and 1 <= value <= 10) or (key == "button_seat" and value is None)
        return None if ok else ("bad_seat", here)
    if key == "rake_ppm":
        return None if value is None or (whole_int and 0 <= value <= 1_000_000) else ("bad_rake", here)
    if key == "bounty_cash_ppm":
        return None if value is None or (whole_int and 0 <= value <= 1_000_000) else ("bad_bounty", here)
    if key == "hand_for_hand_round":
        return None if value is None or (whole_int and 1 <= value <= MAX_ORDINAL) else ("bad_round", here)
    if key in ID_KEYS:
        if value is None and key in {"tournament_id", "rake_schedule"}:
            return None
        if not isinstance(value, str):
            return ("wrong_type", here)
        return None if _valid_id(value) else ("bad_id", here)
    if key == "variant":
        return None if isinstance(value, str) and value in VARIANT_SHAPES else ("unknown_variant", here)
    if key == "schema_version":
        if not whole_int:
            return ("wrong_type", here)
        return None if value == 1 else ("unsupported_schema_version", here)
    if key == "folded":
        return None if isinstance(value, bool) else ("wrong_type", here)
    if key in ("board", "hole_cards"):
        if value is None and key == "hole_cards":
            return None
        if not isinstance(value, list):
            return ("wrong_type", here)
        bad = next((i for i, card in enumerate(value) if not _card(card)), None)
        return None if bad is None else ("bad_card", f"{here}[{bad}]")
    if key == "occurred_at":  # RFC 3339 text only (strict: a number is not a date-time), or null
        return None if value is None or value == "2026-11-22T12:00:00Z" else ("bad_timestamp", here)
    if key == "boards":  # absent, or a list of boards: its rules span fields (any listed code)
        return None if value is None or isinstance(value, list) else ("wrong_type", here)
    if key in ("mystery_bounties", "cashouts"):  # absent, [], or objects ({"seat", ...}): their rules span fields
        if value is None or value == []:
            return None
        if not isinstance(value, list):
            return ("wrong_type", here)
        return None if isinstance(value[0], dict) else ("wrong_type", f"{here}[0]")
    if key in ("play", "stakes", "jackpot"):  # absent, null, or an object: its own fields' rules (any listed code)
        return None if value is None or isinstance(value, dict) else ("wrong_type", here)
    if key == "currency":  # absent, null, or a code of ISO 4217's (on a tournament's hand: tournament_currency)
        if value is None:
            return None
        if not isinstance(value, str):
            return ("wrong_type", here)
        return None if value in ISO_4217_EXPONENTS else ("bad_currency", here)
    if key == "players":
        if not isinstance(value, list):
            return ("wrong_type", here)
        if not value:
            return ("no_players", here)
        return None if isinstance(value[0], dict) else ("wrong_type", f"{here}[0]")
    raise AssertionError(f"no expectation for {here}")


def field_paths(doc: dict[str, Any]) -> list[tuple[str | int, ...]]:
    """Every field of ``doc`` and every optional field it leaves out; each card; each player whole."""
    paths: list[tuple[str | int, ...]] = [(key,) for key in doc]
    paths += [(key,) for key in OPTIONAL_TOP if key not in doc]
    paths += [("board", i) for i in range(len(doc["board"]))]
    for i, player in enumerate(doc["players"]):
        paths.append(("players", i))
        paths += [("players", i, key) for key in player]
        paths += [("players", i, key) for key in OPTIONAL_PLAYER if key not in player]
        paths += [("players", i, "hole_cards", k) for k in range(len(player.get("hole_cards") or ()))]
    return paths


@settings(HOSTILE, max_examples=600)
@given(events(), st.data())
def test_a_wrong_type_in_any_field_is_refused_with_that_fields_code_naming_it(
    judged: Judge, doc: dict[str, Any], data: st.DataObject
) -> None:
    path = data.draw(st.sampled_from(field_paths(doc)), label="path")
    value = data.draw(st.sampled_from(WRONG), label="value")
    payload = json.dumps(_with(path, value, doc))
    verdict = judged(payload)
    assert_refused_properly(verdict, payload)
    want = expected_refusal(path, value)
    if want is not None:
        assert (verdict.code, verdict.field) == want, f"{_path_text(path)} = {value!r}: {verdict}"
        assert opens_with_the_place(verdict.message, want[1]), verdict


def test_the_wrong_type_test_reaches_every_field_of_the_contract() -> None:
    contract = set(ShowdownEvent.model_fields) | {f"players.{name}" for name in PlayerIn.model_fields}
    reached = {
        ".".join(str(step) for step in path if isinstance(step, str))
        for path in field_paths(deal_hand(random.Random(3), "x", stacks=True, rake=False))
    }
    assert contract <= reached, contract - reached


# --- look-alike cards -----------------------------------------------------------------------------

LOOK_ALIKES: Final = {
    "Cyrillic A": "\u0410s",
    "Greek Alpha": "\u0391s",
    "Greek Kappa": "\u039ad",
    "Cyrillic es for clubs": "K\u0441",
    "Kelvin sign": "\u212ah",
    "full-width As": "\uff21\uff53",
    "full-width rank": "\uff21s",
    "full-width 10": "\uff11\uff10d",
    "mathematical bold A": "\U0001d400s",
    "outline spade": "A\u2664",
    "outline heart": "A\u2661",
    "outline diamond": "A\u2662",
    "outline club": "A\u2667",
    "text variation selector": "A\u2660\ufe0e",
    "combining acute": "A\u0301s",
    "combining after the suit": "As\u0301",
    "zero-width space": "A\u200bs",
    "no-break space": "A\u00a0s",
    "trailing newline": "As\n",
    "leading space": " As",
    "letter O for zero": "1Od",
    "one": "1d",
    "eleven": "11d",
    "suit first": "sA",
    "rank only": "A",
    "empty": "",
}


@pytest.mark.parametrize("name", LOOK_ALIKES)
@pytest.mark.parametrize("path", [("board", 0), ("players", 1, "hole_cards", 0)], ids=_path_text)
def test_a_look_alike_card_is_refused_as_bad_card_where_it_stands(
    judged: Judge, name: str, path: tuple[str | int, ...]
) -> None:
    verdict = judged(json.dumps(_with(path, LOOK_ALIKES[name]), ensure_ascii=False).encode())
    assert (verdict.code, verdict.field) == ("bad_card", _path_text(path)), verdict


RANK_CHARS: Final = "23456789TJQKAtjqka" + "\u0410\u0391\u039a\u212a\uff21\uff34\U0001d40010Ol1"
SUIT_CHARS: Final = "cdhsCDHS\u2663\u2666\u2665\u2660" + "\u0441\u2664\u2661\u2662\u2667\uff53\u0455\u0301\ufe0f\ufe0e "
REAL_RANKS: Final = frozenset("23456789TJQKAtjqka") | {"10"}
REAL_SUITS: Final = frozenset("cdhsCDHS\u2663\u2666\u2665\u2660") | {s + "\ufe0f" for s in "\u2663\u2666\u2665\u2660"}


@HOSTILE
@given(
    st.text(st.sampled_from(RANK_CHARS), min_size=1, max_size=2),
    st.text(st.sampled_from(SUIT_CHARS), min_size=1, max_size=2),
)
def test_a_card_is_accepted_exactly_when_its_rank_and_suit_are_real_spellings(
    judged: Judge, rank: str, suit: str
) -> None:
    doc = _with(("board", 0), rank + suit)
    verdict = judged(json.dumps(doc, ensure_ascii=False))
    if rank in REAL_RANKS and suit in REAL_SUITS:  # the event then reads it as the card, so it may clash
        clash = canonical(rank + suit) in {canonical(c) for c in GOOD["board"][1:]} | {
            canonical(c) for p in GOOD["players"] for c in p.get("hole_cards") or ()
        }
        assert verdict.valid != clash, verdict
        assert verdict.code in ("", "duplicate_card"), verdict
    else:
        assert (verdict.code, verdict.field) == ("bad_card", "board[0]"), (rank, suit, verdict)


@HOSTILE
@given(st.sampled_from(DECK), st.data())
def test_two_spellings_of_one_card_never_slip_past_the_duplicate_check(
    judged: Judge, card: str, data: st.DataObject
) -> None:
    rank, suit = card[0], card[1]
    ranks = [rank, *{"T": ["10", "t"], "J": ["j"], "Q": ["q"], "K": ["k"], "A": ["a"]}.get(rank, [])]
    suits = [suit, suit.upper(), "\u2663\u2666\u2665\u2660"["cdhs".index(suit)]]
    suits.append(suits[-1] + "\ufe0f")
    first = data.draw(st.sampled_from(ranks)) + data.draw(st.sampled_from(suits))
    second = data.draw(st.sampled_from(ranks)) + data.draw(st.sampled_from(suits))
    doc = json.loads(json.dumps(GOOD))
    used = {canonical(c) for c in doc["board"]} | {
        canonical(c) for p in doc["players"] for c in p.get("hole_cards") or ()
    }
    free = [c for c in DECK if c not in used and c != card]
    doc["board"] = [first, second, *free[:3]]
    verdict = judged(json.dumps(doc, ensure_ascii=False))
    assert (verdict.code, verdict.field) == ("duplicate_card", "board[1]"), (first, second, verdict)


# --- a worker on a hostile stream -----------------------------------------------------------------


def _payload(doc: dict[str, Any], hand_id: str | None = None) -> bytes:
    return json.dumps({**doc, "hand_id": hand_id} if hand_id else doc, ensure_ascii=False).encode()


def _hostile_entries(good: list[dict[str, Any]]) -> list[tuple[dict[bytes, bytes], str]]:
    """Stream entries (fields) and the code each must be dead-lettered with."""
    base = json.dumps(GOOD)
    rng = random.Random(11)
    hostile: list[tuple[bytes, str]] = [
        (b"", "malformed_json"),
        (bytes(rng.randrange(256) for _ in range(3000)), "malformed_json"),
        (base[: len(base) // 2].encode(), "malformed_json"),
        (b"[" * 100_000, "malformed_json"),
        (b'{"a":' * 100_000, "malformed_json"),
        (base.encode().replace(b"hostile-base", b"go\xff\xfe"), "malformed_json"),
        (b"[1, 2, 3]", "not_an_object"),
        (_payload(_with(("players", 0, "contributed"), HUGE), "h-huge"), "bad_chips"),
        (_payload(GOOD, MEGA), "bad_id"),
        (_payload(_with(("board", 0), MEGA), "h-mega-card"), "bad_card"),
        (_payload(_with(("board", 0), "\u0410s"), "h-cyrillic"), "bad_card"),
        (_payload(_with(("board", 1), "A\u2664"), "h-outline"), "bad_card"),
        (_payload(_with(("players", 0, "folded"), "no"), "h-folded"), "wrong_type"),
        (_payload({**GOOD, "schema_version": 2}, "h-v2"), "unsupported_schema_version"),
        (_payload({**GOOD, "variant": "pineapple"}, "h-pineapple"), "unknown_variant"),
        (_payload({k: v for k, v in GOOD.items() if k != "players"}), "missing_field"),
        (_payload({**GOOD, "players": GOOD["players"] * 4}, "h-12"), "too_many_players"),
        (_payload(_with(("board", 0), "K\u2663"), "h-dup"), "duplicate_card"),  # K♣ is seat 2's Kc
        (_payload({**GOOD, "rake": 10**12}, "h-rake"), "bad_rake"),
        (_payload({**GOOD, "players": [dict(p, folded=True) for p in GOOD["players"]]}, "h-folded"), "no_live_player"),
        (_payload({**GOOD, "padding": "x" * 9_000_000}, "h-big"), "payload_too_large"),
        (_payload({**good[0], "table_id": "T-changed"}), "conflicting_duplicate"),
    ]
    entries = [({b"event": payload}, code) for payload, code in hostile]
    entries.append(({b"evnt": base.encode()}, "missing_event"))
    return entries


def test_a_worker_settles_every_good_event_and_dead_letters_every_hostile_one_with_its_code(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings_ = make_settings(max_payload_bytes=8 * 1024 * 1024, batch_size=16)
    keys = settings_.keys("default")
    rng = random.Random(2026)
    good = [deal_hand(rng, f"good-{i}") for i in range(40)]
    hostile = _hostile_entries(good)
    expected_code: dict[bytes, str] = {}
    order = [("good", i) for i in range(len(good))] + [("bad", i) for i in range(len(hostile))]
    random.Random(5).shuffle(order)
    order.remove(("bad", len(hostile) - 2))  # the changed resend goes after the hand it changes
    order.append(("bad", len(hostile) - 2))
    order.append(("good", 0))  # and an exact resend: a duplicate, neither settled again nor dead-lettered
    for kind, i in order:
        if kind == "good":
            fake.xadd(keys.events, {"event": json.dumps(good[i])})
        else:
            fields, code = hostile[i]
            expected_code[bytes(fake.xadd(keys.events, fields))] = code  # type: ignore[arg-type]
    worker = Worker(settings_, fake)
    worker.run(until_idle=True)  # raises if the worker crashes
    assert fake.xlen(keys.audit) == len(order)

    results = {
        orjson.loads(f[b"result"])["hand_id"]: orjson.loads(f[b"result"]) for _, f in read_range(fake, keys.results)
    }
    assert sorted(results) == sorted(doc["hand_id"] for doc in good), "every good event settled, once"
    for doc in good:
        ref = reference_settlement(doc)
        result = results[doc["hand_id"]]
        assert {a["seat"]: a["amount"] for a in result["awards"]} == ref.collected, doc
        assert [
            (p["amount"], p["rake"], sorted((w["seat"], w["amount"]) for w in p["winners"])) for p in result["pots"]
        ] == [(p.amount, p.rake, list(p.shares)) for p in ref.pots], doc
        assert [(b["seat"], b["finish"]) for b in result["busts"]] == list(ref.busts), doc
    by_entry = {fields[b"entry_id"]: fields for _, fields in read_range(fake, keys.dead)}
    assert len(by_entry) == len(expected_code)
    for entry_id, code in expected_code.items():
        letter = by_entry[entry_id]
        assert letter[b"code"].decode() == code, (code, letter[b"message"][:300])
        assert letter[b"message"], letter
        assert len(letter[b"raw"]) <= settings_.dead_raw_max_bytes
    assert fake.xpending(keys.events, settings_.group)["pending"] == 0, "nothing left pending"
    assert worker.metrics.failures.labels("default")._value.get() == 0, "no entry made the worker fail"
    verdict = audit.verify(audit.read_stream(fake, keys.audit), audit.Head.decode(fake.get(keys.audit_head)))
    assert verdict.holds
    assert verdict.records == len(order)
