"""Why an event is refused: stable error codes and precise messages.

Every refusal names a ``code`` (stable, machine-readable, listed in
:data:`CODES`), the ``field`` at fault in path form (``players[2].hole_cards[1]``,
empty for the event as a whole) and a ``message`` that says what to fix. A
producer that validates with :class:`~showdown_messages.ShowdownEvent` sees
exactly the rejections the worker would dead-letter.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from pydantic import ValidationError
from pydantic_core import ErrorDetails, PydanticCustomError

from showdown_rules import MAX_SEAT
from showdown_rules.codes import CODES, Rejection
from showdown_rules.variants import VARIANT_NAMES


def reject(code: str, field: str, reason: str) -> PydanticCustomError:
    """Build the error a model validator raises for one semantic rule.

    ``reason`` is free text (it may quote producer data, braces included):
    it is passed as context, never as a format template.
    """
    return PydanticCustomError(code, "{reason}", {"reason": reason, "field": field})


def field_path(loc: tuple[int | str, ...]) -> str:
    """Render a pydantic location as a path: ``('players', 2, 'seat')`` -> ``players[2].seat``.

    A part named by the producer (an unknown key) is cut to 60 characters.
    """
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            name = part if len(part) <= 60 else part[:57] + "..."
            out += f".{name}" if out else name
    return out


def quote(value: Any, limit: int = 40) -> str:
    """A short, safe rendering of producer input for messages and logs."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_CHIP_FIELDS = frozenset({"contributed", "dead_money", "stack", "rake", "bounty"})
_SEAT_FIELDS = frozenset({"seat", "button_seat"})
_ID_FIELDS = frozenset({"hand_id", "table_id", "tournament_id", "player_id", "rake_schedule"})
_ID_ERRORS = frozenset({"string_too_short", "string_too_long", "string_pattern_mismatch"})
_CARD_LISTS = frozenset({"board", "boards", "hole_cards"})
_NUMBER_ERRORS = frozenset(
    {"int_type", "int_parsing", "int_from_float", "greater_than_equal", "less_than_equal", "greater_than", "less_than"}
)


_LIST_ERRORS = frozenset({"tuple_type", "list_type", "too_long", "iterable_type"})
_ROUND = ("bad_round", "a hand-for-hand round number (a whole number from 1 to 2^53 - 1)")
_NUMBERED: Final = {
    ("entry", "stack"): ("bad_chips", "a starting stack (a whole number of chips from 1 to 10^15)"),
    ("chips", "chips"): ("bad_chips", "a purchase of chips (a whole number from 1 to 10^15)"),
    ("entry", "entry"): ("bad_number", "an entry number (a whole number from 1 to 2^53 - 1)"),
    ("chips", "entry"): ("bad_number", "an entry number (a whole number from 1 to 2^53 - 1)"),
    ("chips", "purchase"): ("bad_number", "a purchase number (a whole number from 1 to 2^53 - 1)"),
    ("deal", "entry"): ("bad_number", "an entry number (a whole number from 1 to 2^53 - 1)"),
    ("round_complete", "round"): _ROUND,
    ("hand_for_hand_round", "hand_for_hand_round"): _ROUND,
    ("stakes", "small_blind"): ("bad_chips", "a blind (a whole number of minor units from 1 to 10^15)"),
    ("stakes", "big_blind"): ("bad_chips", "a blind (a whole number of minor units from 1 to 10^15)"),
}
"""The whole-number fields whose range is their own, by (the first step of the place: a tournament message's type,
or the event's own field; the field): the code, and what the field is with its range."""


def _classify(error: ErrorDetails) -> tuple[str, str]:
    """Map one pydantic error to ``(code, reason)``."""
    kind = error["type"]
    loc = error["loc"]
    last = next((p for p in reversed(loc) if isinstance(p, str)), "")
    given = quote(error.get("input"))
    if kind in CODES:  # raised by our own validators
        return kind, error["msg"]
    if kind in ("json_invalid", "json_type"):
        return "malformed_json", f"not valid JSON ({error['msg']})"
    if kind in ("model_type", "model_attributes_type", "dict_type") and not loc:
        return "not_an_object", f"expected a JSON object, got {given}"
    if kind == "missing":
        return "missing_field", "is required"
    if kind == "extra_forbidden":
        return "unknown_field", "is not a field of this schema"
    if kind == "literal_error" and last == "schema_version":
        return "unsupported_schema_version", f"{given} is not a supported schema_version (1)"
    if kind == "literal_error" and last == "variant":
        return "unknown_variant", f"{given} is not a supported variant ({', '.join(VARIANT_NAMES)})"
    if last == "players" and kind == "too_short":
        return "no_players", "lists no players"
    if last == "players" and kind == "too_long":
        return "too_many_players", "lists more than 10 players"
    if last in _CARD_LISTS and isinstance(loc[-1], int) and kind in ("string_pattern_mismatch", "string_type"):
        return "bad_card", f"{given} is not a card"
    if loc == ("boards",) and kind in ("too_short", "too_long"):
        return "bad_boards", f"holds {len(error.get('input') or ())} boards; a hand is run 2 or 3 times"
    if last in _CARD_LISTS and kind == "too_long":
        return "too_many_cards", error["msg"]
    if last in _ID_FIELDS and kind in _ID_ERRORS:
        return "bad_id", f"{given} is not a valid id (1-200 characters, none a control or format character)"
    if last == "occurred_at" and kind.startswith("datetime"):
        return "bad_timestamp", f"{given} is not an RFC 3339 date-time (2026-11-21T12:00:00Z)"
    if "payouts" in loc and kind in _NUMBER_ERRORS | _LIST_ERRORS:
        if isinstance(loc[-1], int):
            return "bad_payouts", f"{given} is not a prize (a whole number of currency units from 0 to 10^15)"
        return "bad_payouts", f"{given} is not a list of prizes (whole numbers of currency units, at most 100000)"
    if kind in _NUMBER_ERRORS and (numbered := _NUMBERED.get((str(loc[0]) if loc else "", last))) is not None:
        return numbered[0], f"{given} is not {numbered[1]}"
    if last in _CHIP_FIELDS and kind in _NUMBER_ERRORS:
        return "bad_chips", f"{given} is not a chip count (a whole number from 0 to 10^15)"
    if last == "rake_ppm" and kind in _NUMBER_ERRORS:
        return "bad_rake", f"{given} is not a rate in parts per million (a whole number from 0 to 1000000)"
    if last == "bounty_cash_ppm" and kind in _NUMBER_ERRORS:
        return "bad_bounty", f"{given} is not a cash fraction in parts per million (a whole number from 0 to 1000000)"
    if last in _SEAT_FIELDS and kind in _NUMBER_ERRORS:
        return "bad_seat", f"{given} is not a seat number (a whole number from 1 to 10)"
    return "wrong_type", f"{error['msg']}, got {given}"


def rejections(
    exc: ValidationError, payload: str | bytes | bytearray | Mapping[str, Any] | None = None
) -> list[Rejection]:
    """Translate a pydantic ``ValidationError`` into rejections, most specific first.

    The order is pydantic's (the order fields appear in the schema); the first
    rejection is the one a dead letter's ``code`` reports. Given the
    ``payload`` that was validated (JSON text, or the mapping), a refusal of
    one player's field names that player's seat as well, since ``players[i]``
    counts from 0 and seats from 1: ``players[0].contributed (seat 3): ...``.
    """
    out: list[Rejection] = []
    errors = exc.errors(include_url=False)
    player_errors = any(len(e["loc"]) > 1 and e["loc"][0] == "players" for e in errors)
    seats = _Seats(payload)
    for error in errors:
        if player_errors and error["loc"] == ("players",) and error["type"] == "too_short":
            continue  # a list of invalid players is not "no players": the item errors say what is wrong
        code, reason = _classify(error)
        ctx = error.get("ctx") or {}
        field = str(ctx.get("field", "")) or field_path(error["loc"])
        if payload is not None and "players[" in f"{field}{reason}":
            reason = _PLACE.sub(seats.named, reason)
            out.append(Rejection(code, field, f"{seats.name(field)}: {reason}" if field else reason))
            continue
        out.append(Rejection(code, field, f"{field}: {reason}" if field else reason))
    return out


_PLACE = re.compile(r"players\[(\d+)\](?:\.\w+(?:\[\d+\])?)?")
"""A place in one player's entry named in a message: ``players[2]``, ``players[2].hole_cards[1]``."""
_PLAYER = re.compile(r"players\[(\d+)\]")


class _Seats:
    """The seat each entry of a payload's ``players`` gives, read once when first asked for."""

    def __init__(self, payload: str | bytes | bytearray | Mapping[str, Any] | None) -> None:
        self.payload = payload
        self.given: list[object] | None = None

    def name(self, place: str) -> str:
        """``place`` with the seat of its player: ``players[0].stack (seat 3)``; unchanged when the player gave
        no valid seat (the refusal is then of the seat itself) or ``place`` is of no player."""
        player = _PLAYER.match(place)
        if player is None or self.payload is None:
            return place
        if self.given is None:
            self.given = _seats_given(self.payload)
        index = int(player[1])
        seat = self.given[index] if index < len(self.given) else None
        if isinstance(seat, int) and not isinstance(seat, bool) and 1 <= seat <= MAX_SEAT:
            return f"{place} (seat {seat})"
        return place

    def named(self, place: re.Match[str]) -> str:
        """:meth:`name` for a place found in a message."""
        return self.name(place[0])


def _seats_given(payload: str | bytes | bytearray | Mapping[str, Any]) -> list[object]:
    """The ``seat`` each entry of the payload's ``players`` gives, as given (None where there is none); empty
    when the payload is no JSON object holding a list of players."""
    doc: object = payload
    if not isinstance(payload, Mapping):
        try:
            doc = json.loads(payload)
        except (ValueError, RecursionError):  # not JSON: no player to name
            return []
    players = doc.get("players") if isinstance(doc, Mapping) else None
    if not isinstance(players, list | tuple):
        return []
    return [p.get("seat") if isinstance(p, Mapping) else getattr(p, "seat", None) for p in players]
