"""Whole generated tournaments: places a permutation (ties as the rules say), prize and bounty money conserved,
and every standing equal to an independent reference written here from the rules alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
import pytest

from showdown_core import settle
from showdown_messages import ShowdownEvent
from showdown_service.intake import to_showdown
from showdown_service.tournament.replay import TournamentReplay
from showdown_service.tournament.simulate import Simulation, simulate


def reference(lines: Sequence[bytes]) -> dict[tuple[str, int], tuple[int | None, int, int, int]]:
    """``{(player, entry): (place, tied, prize, bounty cash)}`` from the rules, independently of the book: plain
    lists, one pass, busts grouped per hand (or per hand-for-hand round), places counted down from the entries
    left."""
    rules: dict[str, Any] = {}
    order: list[tuple[str, int]] = []  # registration order
    alive: dict[str, tuple[str, int]] = {}  # player -> entry in play (held ones included)
    cash: dict[tuple[str, int], int] = {}
    heads: dict[tuple[str, int], int] = {}
    out: dict[tuple[str, int], tuple[int | None, int, int, int]] = {}
    held: list[tuple[tuple[str, int], int, str, int]] = []  # (entry, stack, hand, seat position)
    open_ = True

    def prize(place: int) -> int:
        payouts = rules["payouts"]
        return payouts[place - 1] if place <= len(payouts) else 0

    def place_group(group: list[tuple[tuple[str, int], int, str, int]], everyone_ties: bool) -> None:
        left = len(alive)
        stacks = sorted({stack for _, stack, _, _ in group}, reverse=True)
        tiers: list[list[tuple[str, int]]] = []
        for stack in stacks:
            same = [g for g in group if g[1] == stack]
            if rules["equal_stacks"] == "seat_order" and len({g[2] for g in same}) == 1:
                tiers += [[g[0]] for g in sorted(same, key=lambda g: g[3])]
            else:
                tiers.append([g[0] for g in same])
        if everyone_ties:
            tiers = [[g[0] for g in group]]
        place = left - len(group) + 1
        for tier in tiers:
            total = sum(prize(p) for p in range(place, place + len(tier)))
            tier.sort(key=order.index)
            for i, key in enumerate(tier):
                share = total // len(tier) + (i < total % len(tier))
                out[key] = (place, len(tier), share, cash[key])
                del alive[key[0]]
            place += len(tier)

    def finish() -> None:
        if open_ or held or not alive:
            return
        left = list(alive.values())
        if len(left) == 1 or (rules["satellite"] and all(prize(p) == prize(1) for p in range(1, len(left) + 1))):
            for key in left:
                cash[key] += heads[key]
                heads[key] = 0
            place_group([(key, 0, "end", 0) for key in left], everyone_ties=True)

    for line in lines:
        doc = orjson.loads(line)
        if "tournament" in doc:
            m = doc["tournament"]
            if m["type"] == "open":
                rules = dict(m)
            elif m["type"] == "entry":
                key = (m["player_id"], m["entry"])
                order.append(key)
                alive[m["player_id"]] = key
                cash[key], heads[key] = 0, m.get("bounty", 0)
            elif m["type"] == "chips":  # a rebuy or add-on: its chips come in the next hand's stack; its bounty here
                heads[alive[m["player_id"]]] += m.get("bounty", 0)
            elif m["type"] == "registration_closed":
                open_ = False
                rules["payouts"] = m.get("payouts", rules["payouts"])
                finish()
            else:
                group, held = [g for g in held if g[2].startswith(f"{m['round']}|")], []
                place_group(group, everyone_ties=rules["hand_for_hand"] == "tie")
                finish()
            continue
        event = ShowdownEvent.model_validate(doc["event"])
        settled = settle(to_showdown(event))
        seats = {p.seat: alive[p.player_id] for p in event.players}
        for award in settled.bounties:
            heads[seats[award.seat]] = 0
            for w in award.winners:
                cash[seats[w.seat]] += w.cash
                heads[seats[w.seat]] += w.added
        button = event.button_seat or 0
        busts = [
            (seats[p.seat], p.stack or 0, f"{event.hand_for_hand_round}|{event.hand_id}", (p.seat - button - 1) % 10)
            for p, won in zip(event.players, settled.collected, strict=True)
            if (p.stack or 0) - p.contributed - p.dead_money + won == 0
        ]
        if not busts:
            continue
        if open_:
            for key, *_ in busts:
                out[key] = (None, 1, 0, cash[key])
                del alive[key[0]]
        elif event.hand_for_hand_round is not None:
            held += busts
        else:
            place_group(busts, everyone_ties=False)
        finish()
    return out


def replayed(sim: Simulation) -> tuple[TournamentReplay, list[dict[str, Any]]]:
    run = TournamentReplay()
    run.feed([line.decode() for line in sim.lines], source=sim.tournament_id)
    assert run.refused == [], run.refused[:3]
    finished, playing = run.book.standings(sim.tournament_id)
    assert playing == [], "a generated tournament plays to one winner"
    return run, finished


SETTINGS = [
    {"equal_stacks": "tie", "hand_for_hand_rule": "by_stack"},
    {"equal_stacks": "seat_order", "hand_for_hand_rule": "by_stack"},
    {"equal_stacks": "tie", "hand_for_hand_rule": "tie"},
    {"equal_stacks": "tie", "hand_for_hand_rule": "by_stack", "satellite": True},
    {"equal_stacks": "seat_order", "hand_for_hand_rule": "tie", "bounty": None},
]


@pytest.mark.parametrize("seed", range(12))
def test_generated_tournaments_place_every_entry_once_and_pay_exactly_the_prize_pool_and_the_bounties(
    seed: int,
) -> None:
    rules = SETTINGS[seed % len(SETTINGS)]
    sim = simulate(seed, players=12 + 4 * seed, reentries=seed % 5, stack=1000, **rules)  # type: ignore[arg-type]
    run, finished = replayed(sim)
    assert len(finished) == sim.entries
    assert len({(p["player_id"], p["entry"]) for p in finished}) == sim.entries, "no entry placed twice"
    placed = [p for p in finished if p["place"] is not None]
    groups = {(p["place"], p["tied"]) for p in placed}
    spots = sorted(q for place, tied in groups for q in range(place, place + tied))
    assert spots == list(range(1, len(placed) + 1)), "the places are a permutation of 1..field"
    for p in placed:  # a tie is reported once per tied entry, with the best shared place
        assert sum(1 for q in placed if (q["place"], q["tied"]) == (p["place"], p["tied"])) == p["tied"]
    payouts = run.book.ledgers[sim.tournament_id].rules.payouts  # type: ignore[union-attr]
    assert sum(p["prize"] for p in finished) == sum(payouts[: len(placed)])
    assert sum(p["bounty_cash"] for p in finished) == sim.bounties_put_up


@pytest.mark.parametrize("seed", range(40))
def test_standings_equal_an_independent_reference_of_the_rules(seed: int) -> None:
    rules = SETTINGS[seed % len(SETTINGS)]
    sim = simulate(1000 + seed, players=10 + seed % 17, reentries=seed % 4, stack=500, **rules)  # type: ignore[arg-type]
    _, finished = replayed(sim)
    got = {(p["player_id"], p["entry"]): (p["place"], p["tied"], p["prize"], p["bounty_cash"]) for p in finished}
    assert got == reference(sim.lines)


def test_the_generator_exercises_every_rule_it_should() -> None:
    """The reference comparison means something only if the generated tournaments reach the rules: ties, seat
    order, hand-for-hand rounds, eliminations during registration, re-entries, satellites ending early."""
    seen: set[str] = set()
    for seed in range(40):
        rules = SETTINGS[seed % len(SETTINGS)]
        sim = simulate(1000 + seed, players=10 + seed % 17, reentries=seed % 4, stack=500, **rules)  # type: ignore[arg-type]
        _, finished = replayed(sim)
        seen |= {"tie"} if any(p["tied"] > 1 and p["place"] != 1 for p in finished) else set()
        seen |= {"no place"} if any(p["place"] is None for p in finished) else set()
        seen |= {"re-entry"} if any(p["entry"] > 1 for p in finished) else set()
        seen |= {"round"} if sim.rounds else set()
        seen |= {"satellite"} if sum(1 for p in finished if p["place"] == 1) > 1 else set()
    assert seen == {"tie", "no place", "re-entry", "round", "satellite"}


@pytest.mark.parametrize("seed", range(12))
def test_rebuy_tournaments_equal_the_reference_and_pay_every_bounty_bought(seed: int) -> None:
    rules = SETTINGS[seed % len(SETTINGS)]
    sim = simulate(2000 + seed, players=10 + seed, reentries=seed % 3, stack=500, rebuys=3 + seed % 5, **rules)  # type: ignore[arg-type]
    run, finished = replayed(sim)
    got = {(p["player_id"], p["entry"]): (p["place"], p["tied"], p["prize"], p["bounty_cash"]) for p in finished}
    assert got == reference(sim.lines)
    assert sum(p["bounty_cash"] for p in finished) == sim.bounties_put_up, "entries' bounties and the bought ones"
    payouts = run.book.ledgers[sim.tournament_id].rules.payouts  # type: ignore[union-attr]
    assert sum(p["prize"] for p in finished) == sum(payouts[: sum(1 for p in finished if p["place"] is not None)])


def test_the_rebuy_generator_sells_rebuys_and_add_ons() -> None:
    kinds: set[str] = set()
    for seed in range(12):
        rules = SETTINGS[seed % len(SETTINGS)]
        sim = simulate(2000 + seed, players=10 + seed, reentries=seed % 3, stack=500, rebuys=3 + seed % 5, **rules)  # type: ignore[arg-type]
        kinds |= {orjson.loads(line)["tournament"]["kind"] for line in sim.lines if b'"chips"' in line}
    assert kinds == {"rebuy", "add_on"}
