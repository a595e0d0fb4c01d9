"""Builders shared by the tests: real-data paths and compact events."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from showdown_core import Settlement, settle
from showdown_messages import ShowdownEvent
from showdown_service.intake import parse_event, to_showdown

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
"""Real hand histories with known outcomes (read-only, beside the repository)."""
REAL_SHOWDOWNS = SHARED_DATA / "cases" / "real_showdowns.jsonl"
BUNDLED_SHOWDOWNS = REPO / "worker" / "showdown_service" / "data" / "showdowns.jsonl"


def read_cases(path: Path) -> Iterator[dict[str, Any]]:
    """Each JSON line of a cases file (event, expected_award, categories)."""
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def seat(
    number: int,
    cards: str | None,
    put_in: int,
    *,
    folded: bool = False,
    dead: int = 0,
    stack: int | None = None,
    player_id: str | None = None,
) -> dict[str, Any]:
    """A player entry: ``seat(3, "As Kd", 500)``; ``cards=None`` for unknown cards."""
    entry: dict[str, Any] = {
        "seat": number,
        "player_id": player_id or f"p{number}",
        "hole_cards": cards.split() if cards else None,
        "contributed": put_in,
        "folded": folded,
    }
    if dead:
        entry["dead_money"] = dead
    if stack is not None:
        entry["stack"] = stack
    return entry


def event(*players: dict[str, Any], board: str = "", button: int | None = 1, **fields: Any) -> dict[str, Any]:
    """A hold'em ShowdownEvent dict with sensible defaults; ``fields`` override anything."""
    doc: dict[str, Any] = {
        "schema_version": 1,
        "hand_id": "H-1",
        "table_id": "T-1",
        "variant": "holdem",
        "board": board.split(),
        "button_seat": button,
        "players": list(players),
    }
    doc.update(fields)
    return {k: v for k, v in doc.items() if v is not None}


def settle_doc(doc: dict[str, Any]) -> Settlement:
    """Validate a ShowdownEvent dict exactly as the worker would, and settle it."""
    return settle(to_showdown(parse_event(json.dumps(doc))))


def collected(doc: dict[str, Any]) -> dict[int, int]:
    """``{seat: chips collected}`` for an event dict."""
    return settle_doc(doc).collected_by_seat()


def validated(doc: dict[str, Any]) -> ShowdownEvent:
    return parse_event(json.dumps(doc))
