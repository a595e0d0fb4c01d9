"""100,000 dealt hands settled twice: by our core and by a reference settlement written here from the rules.

The reference shares no code with ``showdown_core``: it reads the event
dict, slices the pots by contribution level itself, takes the rake by the
documented rule (``rake_by_pot``'s docstring, re-derived with fractions),
places odd chips by the stated orders and numbers busts by the TDA rule.
It uses pokerkit, an independent library, for one thing only: the class of
each seven-card hand (its public ``StandardLookup.get_entry`` over the 21
five-card subsets, ~45 us, four times faster than ``from_game``; each
distinct hand is evaluated once).

The 100,000 hands are dealt by :func:`tests.strategies.deal_hand` from fixed
seeds, in chunks spread over two worker processes. Any disagreement is
printed with the event's JSON, ready to become a unit test.
"""

from __future__ import annotations

import json
import multiprocessing
import random
import time
from collections import Counter
from collections.abc import Iterable
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from typing import Any, Final, NamedTuple

import pytest
from pokerkit import Card as PokerkitCard
from pokerkit import StandardHighHand

import showdown_core.settlement
from showdown_core import Bust, Card, HandValue, Pot, SeatHand, Settlement, Share, ShowdownError, build_pots, settle
from showdown_core.evaluator import evaluate, evaluate_showdown
from showdown_core.high import High
from showdown_core.variants import Variant
from showdown_service.intake import parse_event, to_showdown
from tests.strategies import DECK, PPM, RANKS, SEATS, SUITS, canonical, deal_hand

HANDS: Final = 100_000
CHUNK: Final = 2_500
PROCESSES: Final = 2
"""The machine's cores. Chunks are handed out as workers finish, so an uneven chunk costs little."""
SHOW_AT_MOST: Final = 5
"""Disagreements printed in full (all are counted)."""
LIMIT_S: Final = 900
"""Give up (and fail) if the 100,000 hands take longer than this: a crashed or stuck worker, not a slow one."""

# --- hand classes, from pokerkit ------------------------------------------------------------------

_POKERKIT_CARD: Final = {text: next(iter(PokerkitCard.parse(text))) for text in DECK}
_LOOKUP: Final = StandardHighHand.lookup


@lru_cache(maxsize=1 << 16)
def hand_class(cards: frozenset[str]) -> int:
    """pokerkit's class index of the best five of ``cards`` (canonical text): higher is stronger."""
    held = [_POKERKIT_CARD[c] for c in cards]
    return max(_LOOKUP.get_entry(five).index for five in combinations(held, 5))


# --- the reference settlement ---------------------------------------------------------------------


class RefPot(NamedTuple):
    """A pot as the rules make it."""

    amount: int
    eligible: tuple[int, ...]
    rake: int
    shares: tuple[tuple[int, int], ...]
    """``(seat, chips)`` per winner, seats ascending."""


class Reference(NamedTuple):
    """A settlement made from the rules alone."""

    pots: tuple[RefPot, ...]
    returned: tuple[tuple[int, int], ...]
    collected: dict[int, int]
    busts: tuple[tuple[int, int], ...]
    """``(seat, finish)``, worst finish first, seats ascending within a finish."""
    classes: dict[int, int]
    """pokerkit's class index per live seat at a contested showdown (empty if uncontested)."""


def reference_settlement(doc: dict[str, Any]) -> Reference:
    """Settle the event ``doc`` (a valid ShowdownEvent dict) by the rules, without ``showdown_core``."""
    players = doc["players"]
    put = {p["seat"]: p["contributed"] for p in players}
    dead = sum(p.get("dead_money", 0) for p in players)
    live = sorted(p["seat"] for p in players if not p.get("folded", False))
    cards = {p["seat"]: [canonical(c) for c in p.get("hole_cards") or ()] for p in players}
    board = [canonical(c) for c in doc.get("board", ())]

    # Slices: dead money at level 0 for every live seat; then one slice per contribution level.
    slices: list[tuple[int, tuple[int, ...]]] = [(dead, tuple(live))] if dead else []
    returned: list[tuple[int, int]] = []
    below = 0
    for level in sorted(set(put.values()) - {0}):
        reaching = [seat for seat, chips in put.items() if chips >= level]
        chips = (level - below) * len(reaching)
        if len(reaching) == 1:  # nobody matched it: an uncalled bet, back to its owner
            returned.append((reaching[0], chips))
        else:
            slices.append((chips, tuple(s for s in live if put[s] >= level)))
        below = level
    merged: list[list[Any]] = []
    for chips, eligible in slices:  # consecutive slices open to the same seats are one pot
        if merged and merged[-1][1] == eligible:
            merged[-1][0] += chips
        else:
            merged.append([chips, eligible])

    classes = {s: hand_class(frozenset(cards[s] + board)) for s in live} if len(live) > 1 else {}
    rakes = _rake_per_pot([chips for chips, _ in merged], doc.get("rake", 0), doc.get("rake_ppm"))
    collected = dict.fromkeys(put, 0)
    for seat, chips in returned:
        collected[seat] += chips
    pots: list[RefPot] = []
    for (chips, eligible), rake in zip(merged, rakes, strict=True):
        prize = chips - rake
        if len(eligible) == 1:
            winners = list(eligible)
        else:
            best = max(classes[s] for s in eligible)
            winners = [s for s in eligible if classes[s] == best]
        each, odd = divmod(prize, len(winners))
        lucky = set(_odd_chip_order(doc, winners, cards)[:odd]) if odd else set()
        shares = tuple((s, each + (s in lucky)) for s in sorted(winners))
        for seat, won in shares:
            collected[seat] += won
        pots.append(RefPot(chips, tuple(eligible), rake, shares))
    return Reference(tuple(pots), tuple(returned), collected, _busts(players, collected), classes)


def _rake_per_pot(amounts: list[int], rake: int, rake_ppm: int | None) -> list[int]:
    """The documented rule: the first k pots together give round-half-even(rate x their chips), capped at
    ``rake``; the rate is ``rake_ppm`` / 10**6 if stated, else ``rake`` / all the pots' chips."""
    if not rake:
        return [0] * len(amounts)
    rate = Fraction(rake_ppm, PPM) if rake_ppm is not None else Fraction(rake, sum(amounts))
    out: list[int] = []
    so_far = 0
    running = 0
    for amount in amounts:
        running += amount
        upto = min(rake, round(rate * running))  # round() on a Fraction rounds halves to even
        out.append(upto - so_far)
        so_far = upto
    assert so_far == rake, f"the rule leaves {rake - so_far} of the rake untaken"
    return out


def _odd_chip_order(doc: dict[str, Any], tied: list[int], cards: dict[int, list[str]]) -> list[int]:
    """Hold'em: clockwise, starting with the first seat left of the button. Stud (TDA 2024 Rule 20-B): the
    highest card by rank, then suit, among the five cards that play (of several fives that make the hand,
    the one holding the highest card)."""
    if doc["variant"] == "holdem":
        button = doc["button_seat"]
        walk = [(button + step - 1) % SEATS + 1 for step in range(1, SEATS + 1)]
        return [s for s in walk if s in tied]

    def high_card(seat: int) -> tuple[int, int]:
        held = cards[seat]
        best = hand_class(frozenset(held))
        return max(
            max((RANKS.index(c[0]), SUITS.index(c[1])) for c in five)
            for five in combinations(held, 5)
            if hand_class(frozenset(five)) == best
        )

    return sorted(tied, key=high_card, reverse=True)


def _busts(players: list[dict[str, Any]], collected: dict[int, int]) -> tuple[tuple[int, int], ...]:
    """Seats left with nothing; the smaller starting stack finishes worse; equal stacks share a place and
    the next place skips (1, 1, 3)."""
    if "stack" not in players[0]:
        return ()
    out = [
        (p["stack"], p["seat"])
        for p in players
        if p["stack"] - p["contributed"] - p.get("dead_money", 0) + collected[p["seat"]] == 0
    ]
    out.sort()
    finishes: list[tuple[int, int]] = []
    place = 1
    for i, (stack, seat) in enumerate(out):
        if i and stack != out[i - 1][0]:
            place = i + 1
        finishes.append((seat, place))
    return tuple(finishes)


# --- comparing ------------------------------------------------------------------------------------


def differences(ours: Settlement, ref: Reference) -> list[str]:
    """Every way our settlement differs from the reference (empty when they agree)."""
    found: list[str] = []
    our_pots = [(p.amount, p.eligible, p.rake, tuple(sorted((w.seat, w.amount) for w in p.winners))) for p in ours.pots]
    ref_pots = [(p.amount, p.eligible, p.rake, p.shares) for p in ref.pots]
    if our_pots != ref_pots:
        found.append(f"pots {our_pots} != reference {ref_pots}")
    if [(r.seat, r.amount) for r in ours.returned] != list(ref.returned):
        found.append(f"returned {list(ours.returned)} != reference {ref.returned}")
    if ours.collected_by_seat() != ref.collected:
        found.append(f"collected {ours.collected_by_seat()} != reference {ref.collected}")
    our_busts = [(b.seat, b.finish) for b in ours.busts]
    if sorted(our_busts, key=lambda b: (b[1], b[0])) != list(ref.busts) or our_busts != sorted(
        our_busts, key=lambda b: b[1]
    ):
        found.append(f"busts {our_busts} != reference {ref.busts}")
    our_classes = {s.seat.seat: s.value.strength for s in ours.shown}
    if our_classes != {seat: index + 1 for seat, index in ref.classes.items()}:
        found.append(f"hand strengths {our_classes} != pokerkit's {ref.classes} (+1)")
    return found


class ChunkReport(NamedTuple):
    """What one worker process saw."""

    hands: int
    counts: Counter[str]
    disagreements: list[tuple[str, list[str]]]
    """``(event JSON, differences)``, at most SHOW_AT_MOST; ``counts['disagreements']`` has them all."""


def settle_chunk(seed: int, count: int) -> ChunkReport:
    """Deal ``count`` hands from ``seed``, settle each both ways, count the situations and the disagreements."""
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    shown: list[tuple[str, list[str]]] = []
    before = hand_class.cache_info()
    for i in range(count):
        doc = deal_hand(rng, f"D-{seed}-{i}")
        payload = json.dumps(doc)
        try:
            ours = settle(to_showdown(parse_event(payload)))
        except ShowdownError as exc:  # a dealt hand is always valid: this is a disagreement too
            found = [f"refused: {type(exc).__name__}: {exc}"]
        else:
            found = differences(ours, reference_settlement(doc))
            counts.update(_situations(doc, ours))
        if found:
            counts["disagreements"] += 1
            if len(shown) < SHOW_AT_MOST:
                shown.append((payload, found))
    after = hand_class.cache_info()
    counts["pokerkit evaluations"] += after.misses - before.misses
    counts["pokerkit evaluations saved"] += after.hits - before.hits
    return ChunkReport(count, counts, shown)


def _settle_chunk(args: tuple[int, int]) -> ChunkReport:
    return settle_chunk(*args)


def _situations(doc: dict[str, Any], ours: Settlement) -> Iterable[str]:
    yield doc["variant"]
    yield "contested" if ours.shown else "uncontested"
    if len(ours.pots) > 1:
        yield "side pots"
    splits = [p for p in ours.pots if len(p.winners) > 1]
    if splits:
        yield "split pots"
    if any((p.amount - p.rake) % len(p.winners) for p in splits):
        yield "odd chips"
        if doc["variant"] == "stud":
            yield "odd chips (stud)"
    if any((p.amount - p.rake) % len(p.winners) for p in splits if p.number > 0):
        yield "odd chips in a side pot"
    if doc.get("rake"):
        yield "rake"
    if ours.returned:
        yield "uncalled bet returned"
    if any(p.get("dead_money") for p in doc["players"]):
        yield "dead money"
    if any(p.get("folded") and p.get("hole_cards") for p in doc["players"]):
        yield "folded cards known"
    if ours.busts:
        yield "busts"
    if len({b.finish for b in ours.busts}) < len(ours.busts):
        yield "busts sharing a finish"


# --- the tests ------------------------------------------------------------------------------------


def test_the_reference_settles_a_known_three_way_hand_with_a_split_side_pot_and_rake() -> None:
    doc = {
        "schema_version": 1,
        "hand_id": "ref-1",
        "table_id": "T",
        "variant": "holdem",
        "button_seat": 2,
        "board": ["Qh", "Js", "Ts", "4c", "4d"],
        "players": [
            {"seat": 1, "player_id": "a", "hole_cards": ["Qc", "Qd"], "contributed": 100, "stack": 100},
            {"seat": 2, "player_id": "b", "hole_cards": ["Ac", "Kd"], "contributed": 351, "stack": 400},
            {"seat": 3, "player_id": "c", "hole_cards": ["As", "Kh"], "contributed": 301, "stack": 301},
            {"seat": 4, "player_id": "d", "contributed": 20, "dead_money": 5, "folded": True, "stack": 90},
        ],
        "rake": 31,
        "rake_ppm": 50_000,
    }
    ref = reference_settlement(doc)
    # main pot: 3 x 100 + seat 4's 20 + 5 dead = 325, raked round(5% x 325 = 16.25) = 16, queens full win it;
    # side pot: 2 x 201 = 402, raked 31 - 16 = 15 (the cap; 5% of 727 is 36), the two straights split 387:
    # the odd chip to seat 3, the first left of the button; seat 2's 50 above seat 3 is returned
    assert ref.pots == (RefPot(325, (1, 2, 3), 16, ((1, 309),)), RefPot(402, (2, 3), 15, ((2, 193), (3, 194))))
    assert ref.returned == ((2, 50),)
    assert ref.collected == {1: 309, 2: 243, 3: 194, 4: 0}
    assert ref.busts == ()
    assert ref.classes[1] > ref.classes[2] == ref.classes[3]
    ours = settle(to_showdown(parse_event(json.dumps(doc))))
    assert differences(ours, ref) == []


def test_our_settlement_agrees_with_the_reference_on_100000_dealt_hands() -> None:
    started = time.perf_counter()
    jobs = [(20_260_000 + k, CHUNK) for k in range(HANDS // CHUNK)]
    with multiprocessing.get_context("spawn").Pool(PROCESSES) as pool:
        reports = pool.map_async(_settle_chunk, jobs, chunksize=1).get(timeout=LIMIT_S)
    counts: Counter[str] = Counter()
    for report in reports:
        counts.update(report.counts)
    hands = sum(report.hands for report in reports)
    print(f"\n{hands} hands in {time.perf_counter() - started:.1f} s on {PROCESSES} processes")
    for situation, n in sorted(counts.items()):
        print(f"  {situation:28s} {n:7d}")
    for report in reports:
        for payload, found in report.disagreements:
            print("DISAGREEMENT:", *found, sep="\n  ")
            print("  event:", payload)
    assert hands == HANDS
    assert counts["disagreements"] == 0
    # the hands exercise what they are meant to (each well above 1% of the hands)
    for situation in ("stud", "uncontested", "side pots", "split pots", "odd chips", "odd chips (stud)", "rake"):
        assert counts[situation] > HANDS // 100, situation


def _button_first(self: Variant, tied: list[tuple[int, list[Card]]], button_seat: int | None, *_: Any) -> list[int]:
    return sorted((seat for seat, _ in tied), key=lambda seat: (seat - (button_seat or 0)) % SEATS)


def _lowest_card_first(self: Variant, tied: list[tuple[int, list[Card]]], *_: Any) -> list[int]:
    return [seat for seat, cards in sorted(tied, key=lambda t: max(t[1]))]


def _river_ignored(self: High, board: list[Card], hands: list[list[Card]]) -> list[HandValue]:
    return evaluate_showdown(board[:4], hands) if board else [evaluate(hand) for hand in hands]


def _rate_ignored(amounts: list[int], rake: int, rake_ppm: int | None = None) -> tuple[int, ...]:
    return RAKE_BY_POT(amounts, rake, None)


def _uncalled_bet_kept_in_a_pot(seats: list[SeatHand]) -> tuple[list[Pot], list[Share]]:
    pots, returned = build_pots(seats)
    return pots + [Pot(back.amount, (back.seat,)) for back in returned], []


def _dense_finishes(seats: tuple[SeatHand, ...], collected: tuple[int, ...]) -> tuple[Bust, ...]:
    busts = BUSTS(seats, collected)
    dense = {finish: rank for rank, finish in enumerate(sorted({b.finish for b in busts}), start=1)}
    return tuple(b._replace(finish=dense[b.finish]) for b in busts)


RAKE_BY_POT: Final = showdown_core.settlement.rake_by_pot
BUSTS: Final = showdown_core.settlement._busts
PLANTED: Final[dict[str, tuple[Any, str, Any]]] = {
    "odd chips from the button itself": (Variant, "odd_chip_order", _button_first),
    "stud odd chips to the lowest card": (Variant, "odd_chip_order", _lowest_card_first),
    "the river ignored": (High, "with_board", _river_ignored),
    "the stated rake rate ignored": (showdown_core.settlement, "rake_by_pot", _rate_ignored),
    "an uncalled bet kept in a pot": (showdown_core.settlement, "build_pots", _uncalled_bet_kept_in_a_pot),
    "bust places not skipped after a tie": (showdown_core.settlement, "_busts", _dense_finishes),
}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_the_differential_test_catches_a_planted_bug(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    owner, attribute, bug = PLANTED[name]
    monkeypatch.setattr(owner, attribute, bug)
    report = settle_chunk(7, 1_500)
    assert report.counts["disagreements"] > 0, f"{name}: 1,500 hands and no disagreement"
    assert report.disagreements[0][0].startswith('{"schema_version": 1'), "the event is shown, as JSON"
