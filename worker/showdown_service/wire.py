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

from showdown_core import PotPart, PotResult, Settlement, Shown, Value
from showdown_core.ranking import Ranking
from showdown_core.variants import Variant
from showdown_service import EVALUATOR


def result_document(settlement: Settlement, settled_at: datetime) -> dict[str, Any]:
    """The public ShowdownResult of ``settlement`` as a JSON-ready dict.

    Only hands shown at a contested showdown appear; folded and mucked
    cards never do.
    """
    showdown = settlement.showdown
    variant = showdown.variant
    return {
        "schema_version": 1,
        "hand_id": showdown.hand_id,
        "table_id": showdown.table_id,
        "tournament_id": showdown.tournament_id,
        "variant": variant.name,
        "pots": [_pot(pot) for pot in settlement.pots],
        "returned": [{"seat": r.seat, "amount": r.amount} for r in settlement.returned],
        "awards": [
            {"seat": s.seat, "player_id": s.player_id, "amount": won, "net": won - s.contributed - s.dead_money}
            for s, won in zip(showdown.seats, settlement.collected, strict=True)
        ],
        "hands": [_shown(variant, showdown.runs, shown) for shown in settlement.shown],
        "busts": [{"seat": b.seat, "player_id": b.player_id, "finish": b.finish} for b in settlement.busts],
        "settled_at": settled_at,
        "evaluator": EVALUATOR,
    }


def _pot(pot: PotResult) -> dict[str, Any]:
    """A pot; its ``parts`` only when it was divided into runs or halves (a hold'em result is unchanged)."""
    out = {
        "index": pot.number,
        "amount": pot.amount,
        "rake": pot.rake,
        "eligible_seats": pot.eligible,
        "winners": [{"seat": w.seat, "amount": w.amount} for w in pot.winners],
        "hand": pot.hand.description if pot.hand else None,
    }
    if pot.parts:
        out["parts"] = [_part(part) for part in pot.parts]
    return out


def _part(part: PotPart) -> dict[str, Any]:
    return {
        "run": part.run,
        "half": part.half,
        "ranking": part.ranking,
        "amount": part.amount,
        "winners": [{"seat": w.seat, "amount": w.amount} for w in part.winners],
        "hand": part.hand.description,
    }


def _shown(variant: Variant, boards: tuple[tuple[Any, ...], ...], shown: Shown) -> dict[str, Any]:
    """One seat's hand on one board: the main hand's fields, ``run`` when run again, ``high``/``low`` in hi-lo."""
    seat = shown.seat
    board = boards[shown.run - 1]
    main = shown.value
    ranking = variant.high if shown.high is not None else variant.low
    assert ranking is not None
    cards = variant.playing_cards(ranking, board, seat.cards, main)
    out: dict[str, Any] = {
        "seat": seat.seat,
        "player_id": seat.player_id,
        "category": main.category.wire,
        "best_five": [c.text for c in cards],
        "description": main.description,
        "strength": main.strength,
    }
    if len(boards) > 1:
        out["run"] = shown.run
    if variant.high is not None and variant.low is not None:
        out["high"] = _ranked(variant.high, main, cards)
        low = shown.low
        out["low"] = (
            None
            if low is None
            else _ranked(variant.low, low, variant.playing_cards(variant.low, board, seat.cards, low))
        )
    return out


def _ranked(ranking: Ranking, value: Value, cards: tuple[Any, ...]) -> dict[str, Any]:
    return {
        "ranking": ranking.name,
        "category": value.category.wire,
        "cards": [c.text for c in cards],
        "description": value.description,
        "strength": value.strength,
    }


def encode_result(settlement: Settlement, settled_at: datetime) -> bytes:
    """The ShowdownResult JSON of ``settlement`` (UTC times end in ``Z``)."""
    return orjson.dumps(result_document(settlement, settled_at), option=orjson.OPT_UTC_Z)
