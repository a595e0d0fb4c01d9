"""Settlements out: the ShowdownResult document, built straight from core values.

This is the hot path's serialiser, so it builds plain dicts for orjson
rather than validating pydantic models; the contract tests check that
every document it writes validates against
:class:`showdown_messages.ShowdownResult`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson

from showdown_core import Settlement, best_five
from showdown_service import EVALUATOR


def result_document(settlement: Settlement, settled_at: datetime) -> dict[str, Any]:
    """The public ShowdownResult of ``settlement`` as a JSON-ready dict.

    Only hands shown at a contested showdown appear; folded and mucked
    cards never do.
    """
    showdown = settlement.showdown
    board = showdown.board
    return {
        "schema_version": 1,
        "hand_id": showdown.hand_id,
        "table_id": showdown.table_id,
        "tournament_id": showdown.tournament_id,
        "variant": showdown.variant.name,
        "pots": [
            {
                "index": pot.number,
                "amount": pot.amount,
                "rake": pot.rake,
                "eligible_seats": pot.eligible,
                "winners": [{"seat": w.seat, "amount": w.amount} for w in pot.winners],
                "hand": pot.hand.description if pot.hand else None,
            }
            for pot in settlement.pots
        ],
        "returned": [{"seat": r.seat, "amount": r.amount} for r in settlement.returned],
        "awards": [
            {"seat": s.seat, "player_id": s.player_id, "amount": won, "net": won - s.contributed - s.dead_money}
            for s, won in zip(showdown.seats, settlement.collected, strict=True)
        ],
        "hands": [
            {
                "seat": shown.seat.seat,
                "player_id": shown.seat.player_id,
                "category": shown.value.category.wire,
                "best_five": [c.text for c in best_five(shown.seat.cards + board, shown.value)],
                "description": shown.value.description,
                "strength": shown.value.strength,
            }
            for shown in settlement.shown
        ],
        "busts": [{"seat": b.seat, "player_id": b.player_id, "finish": b.finish} for b in settlement.busts],
        "settled_at": settled_at,
        "evaluator": EVALUATOR,
    }


def encode_result(settlement: Settlement, settled_at: datetime) -> bytes:
    """The ShowdownResult JSON of ``settlement`` (UTC times end in ``Z``)."""
    return orjson.dumps(result_document(settlement, settled_at), option=orjson.OPT_UTC_Z)
