"""Builders for tournament tests: messages and all-in hands as JSON lines, fed to an in-process replay."""

from __future__ import annotations

import json
from typing import Any

from showdown_service.decision.tournament_replay import TournamentReplay

BOARD = "2c 7d 9h Js 3s"
"""Pairs nothing below: aces beat kings beat queens beat ... on it."""
HANDS = ["As Ad", "Kc Kd", "Qc Qd", "Tc Td", "8c 8d", "6c 6d", "5c 5d", "4c 4d", "Ah Kh"]
"""Hole cards, strongest first on :data:`BOARD` (none of them makes a straight or a flush there)."""


def opened(tid: str = "T", payouts: list[int] | None = None, **rules: Any) -> str:
    doc = {"schema_version": 1, "type": "open", "tournament_id": tid, "payouts": payouts or [], "bounty_cash_ppm": None}
    doc.update(rules)
    return json.dumps({"tournament": doc})


def entry(player: str, stack: int = 1000, number: int = 1, tid: str = "T", bounty: int | None = None) -> str:
    doc: dict[str, Any] = {"schema_version": 1, "type": "entry", "tournament_id": tid, "player_id": player,
                           "entry": number, "stack": stack}  # fmt: skip
    if bounty is not None:
        doc["bounty"] = bounty
    return json.dumps({"tournament": doc})


def chips(player: str, amount: int, purchase: int = 1, number: int = 1, tid: str = "T", kind: str = "rebuy",
          bounty: int | None = None) -> str:  # fmt: skip
    doc: dict[str, Any] = {"schema_version": 1, "type": "chips", "tournament_id": tid, "player_id": player,
                           "entry": number, "purchase": purchase, "kind": kind, "chips": amount}  # fmt: skip
    if bounty is not None:
        doc["bounty"] = bounty
    return json.dumps({"tournament": doc})


def closed(tid: str = "T", payouts: list[int] | None = None) -> str:
    doc: dict[str, Any] = {"schema_version": 1, "type": "registration_closed", "tournament_id": tid}
    if payouts is not None:
        doc["payouts"] = payouts
    return json.dumps({"tournament": doc})


def round_complete(number: int, tid: str = "T") -> str:
    return json.dumps(
        {"tournament": {"schema_version": 1, "type": "round_complete", "tournament_id": tid, "round": number}}
    )


def all_in(
    hand_id: str,
    seats: list[tuple[int, str, int, int]],
    *,
    tid: str | None = "T",
    table: str = "table-1",
    button: int = 1,
    round_: int | None = None,
    bounties: dict[int, int] | None = None,
    cash_ppm: int | None = None,
    mystery: list[tuple[int, int]] | None = None,
) -> str:
    """A hand in which every seat puts in ``put`` of its ``stack``; ``seats`` as ``(seat, player, stack, put)``,
    listed strongest hand first (the first gets aces, the next kings, ...)."""
    players = []
    for rank, (seat, player, stack, put) in enumerate(seats):
        p: dict[str, Any] = {"seat": seat, "player_id": player, "hole_cards": HANDS[rank].split(), "contributed": put,
                             "stack": stack}  # fmt: skip
        if bounties is not None:
            p["bounty"] = bounties[seat]
        players.append(p)
    doc: dict[str, Any] = {"schema_version": 1, "hand_id": hand_id, "table_id": table, "tournament_id": tid,
                           "board": BOARD.split(), "button_seat": button, "players": players}  # fmt: skip
    if round_ is not None:
        doc["hand_for_hand_round"] = round_
    if cash_ppm is not None:
        doc["bounty_cash_ppm"] = cash_ppm
    if mystery is not None:
        doc["mystery_bounties"] = [{"seat": seat, "amount": amount} for seat, amount in mystery]
    return json.dumps({"event": doc})


def deal(method: str, entries: list[str | tuple[str, int]], left_to_play_for: int | None = None, tid: str = "T",
         amounts: list[int] | None = None) -> str:  # fmt: skip
    """A ``deal`` message; ``entries`` as players (entry 1) or ``(player, entry)``; ``amounts`` for custom."""
    named = [(e, 1) if isinstance(e, str) else e for e in entries]
    listed: list[dict[str, Any]] = [{"player_id": p, "entry": n} for p, n in named]
    for item, amount in zip(listed, amounts or [], strict=False):
        item["amount"] = amount
    doc: dict[str, Any] = {"schema_version": 1, "type": "deal", "tournament_id": tid, "method": method,
                           "entries": listed}  # fmt: skip
    if left_to_play_for is not None:
        doc["left_to_play_for"] = left_to_play_for
    return json.dumps({"tournament": doc})


def replay(*lines: str) -> TournamentReplay:
    run = TournamentReplay()
    run.feed(lines, source="test")
    return run


def places(run: TournamentReplay, tid: str = "T") -> dict[str, tuple[int | None, int, int]]:
    """``{player (entry > 1 as player#n): (place, tied, prize)}`` of the finished entries."""
    finished, _ = run.book.standings(tid)
    return {
        (p["player_id"] if p["entry"] == 1 else f"{p['player_id']}#{p['entry']}"): (p["place"], p["tied"], p["prize"])
        for p in finished
    }
