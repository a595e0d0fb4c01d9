"""A tournament's busts and placements as Server-Sent Events, resumable with ``Last-Event-ID``.

A tournament's hands and messages are all on one shard, so its news is on
two streams of that shard: the results (a hand's ``busts``, each with the
``bounties`` entry of the same seat: the bounty it paid, and to whom) and the
standings (a ``placement`` per finished entry). Each is one event:

* ``event: bust``: ``{"tournament_id", "hand_id", "table_id", "seat", "player_id",
  "bounty", "mystery_bounty"}`` (``bounty``: the hand's ``bounties`` entry for that seat, or null;
  ``mystery_bounty``: its ``mystery_bounties`` entry, the envelope paid for that seat, or null);
* ``event: placement``: the placement object (see docs/tournaments.md).

Every event's ``id`` is a cursor over both streams:
``<results entry id>:<busts of that entry sent>/<standings entry id>``. A
client that reconnects with the last id it saw (browsers' ``EventSource``
do so by themselves) gets exactly the events after it: none missed, none
repeated. Without one, the stream starts with the oldest news Redis still
holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

from showdown_messages.protocol import PLACEMENT_FIELD_B, RESULT_FIELD_B, entry_order, parse_entry_id
from showdown_service.api.auth import Refused
from showdown_service.infra.connection import Client
from showdown_service.infra.streams import read_range

READ_COUNT = 500
"""Entries of each stream read per poll."""

_CURSOR = re.compile(r"([0-9]+-[0-9]+):([0-9]{1,9})/([0-9]+-[0-9]+)")
"""An event id (ASCII digits only: Redis refuses other scripts' digits, which ``re``'s ``\\d`` takes)."""


@dataclass(frozen=True, slots=True)
class Cursor:
    results: str
    busts: int
    """Busts of the results entry ``results`` already sent (all of an entry that had none to send)."""
    standings: str

    @classmethod
    def parse(cls, text: str | None) -> Cursor:
        if not text:
            return cls("0-0", 0, "0-0")
        match = _CURSOR.fullmatch(text.strip())
        results = parse_entry_id(match[1]) if match else None
        standings = parse_entry_id(match[3]) if match else None
        if match is None or results is None or standings is None:
            raise Refused(400, "bad_query", f"Last-Event-ID {text!r} is not an event id this API gave")
        return cls(
            f"{results[0]}-{results[1]}", int(match[2]), f"{standings[0]}-{standings[1]}"
        )  # as Redis writes them (no leading 0)

    def text(self) -> str:
        return f"{self.results}:{self.busts}/{self.standings}"


def busts(tournament_id: str, result: dict[str, Any]) -> list[dict[str, Any]]:
    """A result's busts as ``bust`` events' data, each with the bounty its seat paid (or None)."""
    if result.get("tournament_id") != tournament_id:
        return []
    paid = {b["seat"]: b for b in result.get("bounties", ())}
    envelopes = {b["seat"]: b for b in result.get("mystery_bounties", ())}
    return [
        {
            "tournament_id": tournament_id,
            "hand_id": result["hand_id"],
            "table_id": result["table_id"],
            "seat": bust["seat"],
            "player_id": bust["player_id"],
            "bounty": paid.get(bust["seat"]),
            "mystery_bounty": envelopes.get(bust["seat"]),
        }
        for bust in result.get("busts", ())
    ]


def news(client: Client, results_key: str, standings_key: str, tournament_id: str, cursor: Cursor) -> tuple[
    list[tuple[str, str, dict[str, Any]]], Cursor
]:  # fmt: skip
    """The events after ``cursor`` (as ``(id, event type, data)``) from one read of each stream, and the cursor
    after all the entries read (those that made no event included)."""
    results = read_range(client, results_key, low=cursor.results, count=READ_COUNT)
    standings = read_range(client, standings_key, low=f"({cursor.standings}", count=READ_COUNT)
    # Both reads end somewhere; merge only up to the earlier end, so that a later read cannot put an entry of one
    # stream before one already sent of the other.
    ends = []
    if len(results) == READ_COUNT:
        ends.append(entry_order(results[-1][0]))
    if len(standings) == READ_COUNT:
        ends.append(entry_order(standings[-1][0]))
    end = min(ends) if ends else None
    merged: list[tuple[tuple[int, int], int, str, Any]] = []
    for number, rows in enumerate((results, standings)):
        for raw_id, fields in rows:
            text = raw_id.decode()
            merged.append((entry_order(text), number, text, fields))
    merged.sort(key=lambda row: (row[0], row[1]))
    out: list[tuple[str, str, dict[str, Any]]] = []
    at = cursor
    for key, stream, entry_id, fields in merged:
        if end is not None and key > end:
            break
        if stream == 0:
            raw = fields.get(RESULT_FIELD_B)
            found = busts(tournament_id, orjson.loads(raw)) if raw else []
            sent = at.busts if entry_id == at.results else 0
            for number, data in enumerate(found[sent:], start=sent + 1):
                at = Cursor(entry_id, number, at.standings)
                out.append((at.text(), "bust", data))
            if entry_id != at.results:
                at = Cursor(entry_id, len(found), at.standings)
        else:
            raw = fields.get(PLACEMENT_FIELD_B)
            placement = orjson.loads(raw) if raw else {}
            at = Cursor(at.results, at.busts, entry_id)
            if placement.get("tournament_id") == tournament_id:
                out.append((at.text(), "placement", placement))
    return out, at


def frame(event_id: str, kind: str, data: dict[str, Any]) -> bytes:
    """One Server-Sent Event."""
    return b"id: %s\nevent: %s\ndata: %s\n\n" % (event_id.encode(), kind.encode(), orjson.dumps(data))
