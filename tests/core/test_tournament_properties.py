"""Whole generated tournaments: places a permutation (ties as the rules say), prize and bounty money conserved,
and every standing equal to an independent reference written here from the rules alone."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import floor
from typing import Any

import orjson
import pytest

from showdown_core import settle
from showdown_messages import ShowdownEvent
from showdown_service.decision.intake import to_showdown
from showdown_service.decision.tournament_replay import TournamentReplay
from showdown_service.testing.simulate import Simulation, simulate
from tests.core.test_icm import by_every_order


def reference_deal(m: dict[str, Any], stacks: list[int], unpaid: list[int]) -> list[int]:
    """A deal's amounts from the rules as the issue states them (ICM by every finishing order), rounded down with
    the units left by largest fraction, then bigger stack, then entry order (``stacks`` in entry order)."""
    kept = m.get("left_to_play_for", 0)
    shared = sum(unpaid) - kept
    if m["method"] == "custom":
        return [e["amount"] for e in m["entries"]]  # in the message's order: the caller lists entries so
    if m["method"] == "icm":
        exact = by_every_order(stacks, [unpaid[0] - kept, *unpaid[1:]])
    elif m["method"] == "chip_chop":
        exact = [Fraction(shared * st, sum(stacks)) for st in stacks]
    else:
        exact = [Fraction(shared, len(stacks))] * len(stacks)
    amounts = [floor(v) for v in exact]
    for i in sorted(range(len(exact)), key=lambda i: (amounts[i] - exact[i], -stacks[i], i))[: shared - sum(amounts)]:
        amounts[i] += 1
    return amounts


def reference(
    lines: Sequence[bytes], mystery_cash: dict[tuple[str, int], int] | None = None
) -> dict[tuple[str, int], tuple[int | None, int, int, int]]:
    """``{(player, entry): (place, tied, prize, bounty cash)}`` from the rules, independently of the book: plain
    lists, one pass, busts grouped per hand (or per hand-for-hand round), places counted down from the entries
    left; after a deal, each entry's deal amount (the winner's plus what was kept back). ``mystery_cash`` is
    filled with each entry's envelope money."""
    rules: dict[str, Any] = {}
    order: list[tuple[str, int]] = []  # registration order
    alive: dict[str, tuple[str, int]] = {}  # player -> entry in play (held ones included)
    cash: dict[tuple[str, int], int] = {}
    heads: dict[tuple[str, int], int] = {}
    out: dict[tuple[str, int], tuple[int | None, int, int, int]] = {}
    held: list[tuple[tuple[str, int], int, str, int]] = []  # (entry, stack, hand, seat position)
    open_ = True
    chips: dict[tuple[str, int], int] = {}
    dealt: dict[tuple[str, int], int] = {}
    kept = 0
    envelopes = mystery_cash if mystery_cash is not None else {}

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
                if dealt:  # each their own amount; 1st shares what was kept back
                    share = dealt[key] + (kept // len(tier) + (i < kept % len(tier)) if place == 1 else 0)
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
                cash[key], heads[key], chips[key], envelopes[key] = 0, m.get("bounty", 0), m["stack"], 0
            elif m["type"] == "chips":  # a rebuy or add-on: its chips come in the next hand's stack; its bounty here
                heads[alive[m["player_id"]]] += m.get("bounty", 0)
                chips[alive[m["player_id"]]] += m["chips"]
            elif m["type"] == "deal":
                named = sorted(((e["player_id"], e["entry"]) for e in m["entries"]), key=order.index)
                assert named == sorted(alive.values(), key=order.index)
                if m["method"] == "custom":
                    m = {**m, "entries": sorted(m["entries"], key=lambda e: order.index((e["player_id"], e["entry"])))}
                unpaid = [prize(p) for p in range(1, len(named) + 1)]
                dealt = dict(zip(named, reference_deal(m, [chips[k] for k in named], unpaid), strict=True))
                kept = m.get("left_to_play_for", 0)
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
        for p, won in zip(event.players, settled.collected, strict=True):
            chips[seats[p.seat]] = (p.stack or 0) - p.contributed - p.dead_money + won
        if event.mystery_bounties:  # each envelope as a bounty of its own, all cash, through the relevant pot
            drawn = {d.seat: d.amount for d in event.mystery_bounties}
            doc_ = event.model_dump(mode="json", exclude_none=True)
            for player in doc_["players"]:
                player["bounty"] = drawn.get(player["seat"], 0)
            as_bounties = settle(to_showdown(ShowdownEvent.model_validate({**doc_, "bounty_cash_ppm": 1_000_000})))
            for award in as_bounties.bounties:
                for w in award.winners:
                    envelopes[seats[w.seat]] += w.cash
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


DEALS = ["icm", "chip_chop", "equal", "custom"]


def deal_tournament(seed: int) -> Simulation:
    rules = SETTINGS[seed % 3] if seed % 5 else SETTINGS[4]  # no satellite: a satellite's seats are not dealt
    return simulate(  # type: ignore[arg-type]
        3000 + seed, players=12 + seed % 9, reentries=seed % 3, stack=500, paid_fraction=0.35, deal_at=3 + seed % 3,
        deal_method=DEALS[seed % 4], mystery_from=4 + seed % 4, **rules,
    )  # fmt: skip


@pytest.mark.parametrize("seed", range(16))
def test_deal_and_mystery_tournaments_equal_the_reference_and_conserve_every_unit(seed: int) -> None:
    sim = deal_tournament(seed)
    run, finished = replayed(sim)
    envelopes: dict[tuple[str, int], int] = {}
    want = reference(sim.lines, envelopes)
    got = {(p["player_id"], p["entry"]): (p["place"], p["tied"], p["prize"], p["bounty_cash"]) for p in finished}
    assert got == want
    assert {(p["player_id"], p["entry"]): p["mystery_bounty_cash"] for p in finished} == envelopes
    payouts = run.book.ledgers[sim.tournament_id].rules.payouts  # type: ignore[union-attr]
    assert sum(p["prize"] for p in finished) == sum(payouts[: sum(1 for p in finished if p["place"] is not None)])
    assert sum(p["bounty_cash"] for p in finished) == sim.bounties_put_up
    left = run.book.envelopes_left(sim.tournament_id)
    assert sum(p["mystery_bounty_cash"] for p in finished) + sum(a * c for a, c in left.items()) == sim.mystery_pool


def test_the_deal_generator_agrees_every_kind_of_deal_and_draws_envelopes() -> None:
    methods: set[str] = set()
    kept = drawn = empty = 0
    for seed in range(16):
        sim = deal_tournament(seed)
        for line in sim.lines:
            doc = orjson.loads(line)
            if doc.get("tournament", {}).get("type") == "deal":
                methods.add(doc["tournament"]["method"])
                kept += doc["tournament"]["left_to_play_for"] > 0
            drawn += len(doc.get("event", {}).get("mystery_bounties", ()))
            empty += doc.get("event", {}).get("mystery_bounties") == []
    assert methods == set(DEALS)
    assert kept
    assert drawn
    assert empty
