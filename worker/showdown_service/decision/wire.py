"""Settlements out: the ShowdownResult document, built straight from core values.

The wire only formats: the settlement carries everything the result says
(the pots, the hands shown and the cards that make each), and nothing here
calls back into the core to work anything out.

This is the hot path's serialiser, so it builds plain dicts for orjson
rather than validating pydantic models; the contract tests check that
every document it writes validates against
:class:`showdown_messages.ShowdownResult`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

import orjson

from showdown_core import Card, Category, PotPart, Settlement, Shown, Value
from showdown_core.evaluator import RANK_NAMES
from showdown_core.model import BountyAward, CashOut
from showdown_core.ranking import LowCategory, Ranking
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
        **({} if (currency := showdown.currency) is None else {"currency": currency}),  # absent: bytes as before
        "pots": [
            {
                "index": pot.number,
                "amount": pot.amount,
                "rake": pot.rake,
                "eligible_seats": pot.eligible,
                "winners": [{"seat": w.seat, "amount": w.amount} for w in pot.winners],
                "hand": pot.hand.description if pot.hand else None,
                **({"parts": [_part(part) for part in pot.parts]} if pot.parts else {}),  # only a divided pot's
            }
            for pot in settlement.pots
        ],
        "returned": [{"seat": r.seat, "amount": r.amount} for r in settlement.returned],
        "awards": _awards(settlement),
        "hands": _hands(variant, showdown.runs, settlement.shown),
        "busts": [{"seat": b.seat, "player_id": b.player_id, "finish": b.finish} for b in settlement.busts],
        **({"bounties": [_bounty(b) for b in settlement.bounties]} if settlement.bounties else {}),
        **(
            {"mystery_bounties": [_bounty(b) for b in settlement.mystery_bounties]}
            if settlement.mystery_bounties
            else {}
        ),
        **({} if showdown.saw_flop is None else {"saw_flop": showdown.saw_flop}),
        **(
            {
                "rake_schedule": showdown.rake_schedule,
                "rake_paid": [{"seat": seat, "amount": amount} for seat, amount in showdown.rake_paid],
            }
            if showdown.rake_schedule is not None
            else {}
        ),
        **({"cashouts": [_cashout(c) for c in settlement.cashouts]} if settlement.cashouts else {}),
        **({"jackpot": _jackpot(settlement)} if settlement.jackpot is not None else {}),
        "settled_at": settled_at,
        "evaluator": EVALUATOR,
    }


def _awards(settlement: Settlement) -> list[dict[str, Any]]:
    """Each seat's award; with starting stacks (the event's or its play's) its ``end_stack``, and with a play the
    street it folded on (``folded_on``, ``null`` when it did not)."""
    showdown = settlement.showdown
    seats, collected = showdown.seats, settlement.collected
    if not showdown.starting_stacks and seats[0].stack is None:  # the usual cash hand: no stacks, no play
        return [
            {"seat": s.seat, "player_id": s.player_id, "amount": won, "net": won - s.contributed - s.dead_money}
            for s, won in zip(seats, collected, strict=True)
        ]
    starts, folded_on = showdown.starting_stacks, showdown.folded_on
    if not starts and not folded_on:  # the event's stacks, every seat's (the contract's rule): the hot path
        return [
            {"seat": s.seat, "player_id": s.player_id, "amount": won,
             "net": (net := won - s.contributed - s.dead_money), "end_stack": s.stack + net}  # type: ignore[operator]  # not None: seats[0]'s is not
            for s, won in zip(seats, collected, strict=True)
        ]  # fmt: skip
    starts = starts or tuple([s.stack for s in seats])  # type: ignore[misc]  # every seat's, as above
    if not folded_on:
        return [
            {"seat": s.seat, "player_id": s.player_id, "amount": won,
             "net": (net := won - s.contributed - s.dead_money), "end_stack": start + net}
            for s, won, start in zip(seats, collected, starts, strict=True)
        ]  # fmt: skip
    return [
        {"seat": s.seat, "player_id": s.player_id, "amount": won, "net": (net := won - s.contributed - s.dead_money),
         "end_stack": start + net, "folded_on": folded}
        for s, won, start, folded in zip(seats, collected, starts, folded_on, strict=True)
    ]  # fmt: skip


def _jackpot(settlement: Settlement) -> dict[str, Any]:
    jackpot = settlement.jackpot
    assert jackpot is not None
    beat = jackpot.beat
    names = {s.seat: s.player_id for s in settlement.showdown.seats}
    return {
        "jackpot_id": jackpot.jackpot_id,
        "program": jackpot.program_id,
        "drop": jackpot.drop,
        "bad_beat": beat is not None,
        **(
            {"losing_hand": beat.losing_hand.description, "winning_hand": beat.winning_hand.description}
            if beat is not None
            else {}
        ),
        **(
            {"roles": [{"seat": s, "player_id": names[s], "role": r, "ppm": p} for s, r, p in jackpot.roles]}
            if jackpot.roles and not jackpot.amounts
            else {}
        ),
        **(
            {
                "roles": [
                    {"seat": s, "player_id": names[s], "role": r, "ppm": p, "amount": amount}
                    for (s, r, p), amount in zip(jackpot.roles, jackpot.amounts, strict=True)
                ]
            }
            if jackpot.amounts
            else {}
        ),
        **(
            {"fund_before": jackpot.fund_before, "fund_after": jackpot.fund_after}
            if jackpot.fund_before is not None
            else {}
        ),
    }


def _cashout(taken: CashOut) -> dict[str, Any]:
    return {
        "seat": taken.seat,
        "player_id": taken.player_id,
        "street": taken.street,
        "equity": f"{taken.equity.numerator}/{taken.equity.denominator}",
        "value": f"{taken.value.numerator}/{taken.value.denominator}",
        "fee_ppm": taken.fee_ppm,
        "amount": taken.amount,
        "runout": taken.runout,
        "house": taken.house,
        **({"action": taken.action} if taken.action is not None else {}),
    }


def _bounty(award: BountyAward) -> dict[str, Any]:
    return {
        "seat": award.seat,
        "player_id": award.player_id,
        "bounty": award.bounty,
        "pot": award.pot,
        "winners": [
            {"seat": w.seat, "player_id": w.player_id, "amount": w.amount, "cash": w.cash, "added": w.added}
            for w in award.winners
        ],
    }


def _part(part: PotPart) -> dict[str, Any]:
    return {
        "run": part.run,
        "half": part.half,
        "ranking": part.ranking,
        "amount": part.amount,
        "winners": [{"seat": w.seat, "amount": w.amount} for w in part.winners],
        "hand": part.hand.description,
    }


_CATEGORY: Final = tuple(c.wire for c in LowCategory)
"""A category's wire name by its number: :class:`~showdown_core.Category` numbers its nine as
:class:`LowCategory` numbers its first nine, so one tuple serves both (an index, not a property call)."""
assert all(_CATEGORY[c] == c.wire for c in Category)
_LOW_RANKINGS: Final = frozenset({"eight_or_better", "ace_to_five", "deuce_to_seven"})
"""The rankings whose five-rank hands are named by their highest card (``seven_low``), never ``high_card``."""
_LOW_BY_TOP: Final = {rank: f"{RANK_NAMES[rank].lower()}_low" for rank in range(5, 15)}
"""A low's highest rank (5..14; the ace plays low, as 1, where it may) -> its category: ``five_low`` ... ``ace_low``."""
_FIVE_RANKS: Final = int(LowCategory.HIGH_CARD)


def category_name(ranking: Ranking, value: Value) -> str:
    """``value``'s category in messages: a low ranking's hand of five ranks by its highest card (``seven_low``),
    anything else by its category (``one_pair``, ``flush``, ``badugi``)."""
    number = int(value.category)
    if number == _FIVE_RANKS and ranking.name in _LOW_RANKINGS:
        return _LOW_BY_TOP[value.ranks[0]]
    return _CATEGORY[number]


def _hands(variant: Variant, boards: tuple[tuple[Card, ...], ...], shown: tuple[Shown, ...]) -> list[dict[str, Any]]:
    """The hands shown down, as the settlement gives them (with the cards that make each); the common case (one
    board, one high ranking) without per-hand dispatch."""
    if len(boards) > 1 or (variant.high is not None and variant.low is not None) or variant.high is None:
        return [_shown(variant, boards, s) for s in shown]
    category = _CATEGORY
    return [
        {
            "seat": s.seat.seat,
            "player_id": s.seat.player_id,
            "category": category[(value := s.high).category],  # type: ignore[union-attr]
            "best_five": [c.text for c in s.cards],
            "description": value.description,  # type: ignore[union-attr]
            "strength": value.strength,  # type: ignore[union-attr]
        }
        for s in shown
    ]


def _shown(variant: Variant, boards: tuple[tuple[Card, ...], ...], shown: Shown) -> dict[str, Any]:
    """One seat's hand on one board: the main hand's fields, ``run`` when run again, ``high``/``low`` in hi-lo."""
    seat = shown.seat
    main = shown.value
    ranking = variant.high if shown.high is not None else variant.low
    assert ranking is not None
    out: dict[str, Any] = {
        "seat": seat.seat,
        "player_id": seat.player_id,
        "category": category_name(ranking, main),
        "best_five": [c.text for c in shown.cards],
        "description": main.description,
        "strength": main.strength,
    }
    if len(boards) > 1:
        out["run"] = shown.run
    if variant.high is not None and variant.low is not None:
        out["high"] = _ranked(variant.high, main, shown.cards)
        low = shown.low
        out["low"] = None if low is None else _ranked(variant.low, low, shown.low_cards)
    return out


def _ranked(ranking: Ranking, value: Value, cards: tuple[Card, ...]) -> dict[str, Any]:
    return {
        "ranking": ranking.name,
        "category": category_name(ranking, value),
        "cards": [c.text for c in cards],
        "description": value.description,
        "strength": value.strength,
    }


def encode_result(settlement: Settlement, settled_at: datetime) -> bytes:
    """The ShowdownResult JSON of ``settlement`` (UTC times end in ``Z``)."""
    return orjson.dumps(result_document(settlement, settled_at), option=orjson.OPT_UTC_Z)
