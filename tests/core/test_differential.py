"""100,000 dealt hands of every game settled twice: by our core and by a reference settlement written here from
the rules.

The reference shares no code with ``showdown_core``: it reads the event
dict, slices the pots by contribution level itself, takes the rake by the
documented rule (``rake_by_pot``'s docstring, re-derived with fractions),
divides each pot among the runs and each run's part into high and low
halves, places odd chips by the stated orders and numbers busts by the TDA
rule, all as docs/rules.md states them. It uses pokerkit, an
independent library, for one thing only: the class of each five-card hand
(four in badugi) under each ranking, from its public lookups
(``get_entry``; each distinct rank pattern is looked up once, and each
distinct hand valued once). pokerkit's own payouts differ from docs/rules.md
in known ways (issue 9), so it is trusted for rankings, never for payouts.

The 100,000 hands are dealt by :func:`tests.strategies.deal_hand` from fixed
seeds, half the classic mix (hold'em and stud) and half every game alike
(hands run twice and three times among them), in chunks spread over two
worker processes. Any disagreement is printed with the event's JSON, ready
to become a unit test.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import multiprocessing
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from typing import Any, Final, NamedTuple

import pytest
from pokerkit import (
    BadugiHand,
    EightOrBetterLowHand,
    RegularLowHand,
    ShortDeckHoldemHand,
    StandardHighHand,
    StandardLowHand,
)
from pokerkit.lookups import Lookup

import showdown_core.settlement
import showdown_core.variants
from showdown_core import Bust, Card, HandValue, Pot, SeatHand, Settlement, Share, ShowdownError, build_pots, settle
from showdown_core.evaluator import evaluate, evaluate_showdown
from showdown_core.high import High
from showdown_core.model import PotPart, PotResult, Showdown
from showdown_core.settlement import ByRun
from showdown_core.variants import Variant
from showdown_rules import VARIANT_SHAPES
from showdown_service.decision.intake import parse_event, to_showdown
from tests.helpers import VARIANT_SHOWDOWNS, read_cases
from tests.strategies import EVERY_GAME, PPM, RANKS, SEATS, SUITS, canonical, deal_hand

HANDS: Final = 100_000
CHUNK: Final = 2_500
PROCESSES: Final = 2
"""The machine's cores. Chunks are handed out as workers finish, so an uneven chunk costs little."""
SHOW_AT_MOST: Final = 5
"""Disagreements printed in full (all are counted)."""
LIMIT_S: Final = 900
"""Give up (and fail) if the 100,000 hands take longer than this: a crashed or stuck worker, not a slow one."""

# --- hand classes, from pokerkit ------------------------------------------------------------------

_LOOKUPS: Final[dict[str, Lookup]] = {
    "high": StandardHighHand.lookup,
    "short_deck": ShortDeckHoldemHand.lookup,
    "short_deck_straight_over_trips": ShortDeckHoldemHand.lookup,
    "eight_or_better": EightOrBetterLowHand.lookup,
    "ace_to_five": RegularLowHand.lookup,
    "deuce_to_seven": StandardLowHand.lookup,
    "badugi": BadugiHand.lookup,
}
"""Each ranking of docs/rules.md by wire name, and the pokerkit lookup that orders its hands."""
_WORST: Final = {
    "eight_or_better": "8c7d6h5s4c",
    "ace_to_five": "KcKdKhKsQc",
    "deuce_to_seven": "AsKsQsJsTs",
    "badugi": "Kc",
}
"""The worst hand of each low ranking: pokerkit numbers a low ranking's hands from its best (0), so a
strength, 1 for the worst hand upward, is (the worst hand's index + 1) - index."""
_LOW_SIZE: Final = {name: _LOOKUPS[name].get_entry(hand).index + 1 for name, hand in _WORST.items()}
ACE_LOW: Final = frozenset({"eight_or_better", "ace_to_five", "badugi"})
"""The rankings in which the ace plays low (for the stud odd chip: "in a low hand the ace counts low")."""


def _short_deck_blocks() -> tuple[range, range]:
    """pokerkit's short-deck indices of three of a kind and of straights (its order: trips, then straights)."""
    entry = _LOOKUPS["short_deck"].get_entry
    trips = range(entry("6c6d6h7s8c").index, entry("AcAdAhKsQc").index + 1)
    straights = range(entry("As6c7d8h9s").index, entry("TsJcQdKhAs").index + 1)
    assert trips.stop == straights.start, "pokerkit ranks short-deck straights just above trips"
    assert entry("6c6d6h7s7c").index == straights.stop, "and full houses just above straights"
    return trips, straights


_TRIPS, _STRAIGHTS = _short_deck_blocks()


def _strength(ranking: str, index: int) -> int:
    """A pokerkit index as a strength of ``ranking``: 1 for its worst hand upward, dense.

    ``short_deck`` ranks three of a kind above a straight (Triton, online rooms); pokerkit's
    ``ShortDeckHoldemHand`` ranks them the other way round (the WSOP order, which is
    ``short_deck_straight_over_trips``), so the two blocks of classes change places.
    """
    if ranking in _LOW_SIZE:
        return _LOW_SIZE[ranking] - index
    if ranking == "short_deck":
        if index in _TRIPS:
            index += len(_STRAIGHTS)
        elif index in _STRAIGHTS:
            index -= len(_TRIPS)
    return index + 1


_PATTERNS: dict[tuple[str, str, int], int | None] = {}
"""(ranking, ranks sorted, distinct suits) -> strength: all that pokerkit's lookups look at (ranks, and
whether the cards are suited or, in badugi, of different suits)."""


def hand_strength(ranking: str, cards: Sequence[str]) -> int | None:
    """Strength of exactly these cards (five; one to four in badugi) under ``ranking``; ``None`` if they are
    no hand of it (not an 8-or-better low; a badugi hand with a pair or a suit twice)."""
    key = (ranking, "".join(sorted(c[0] for c in cards)), len({c[1] for c in cards}))
    if key not in _PATTERNS:
        try:
            entry = _LOOKUPS[ranking].get_entry_or_none("".join(cards))
        except ValueError:  # pokerkit's badugi lookup refuses cards of one suit outright
            entry = None
        _PATTERNS[key] = None if entry is None else _strength(ranking, entry.index)
    return _PATTERNS[key]


def _may_play(ranking: str, cards: Iterable[str]) -> tuple[str, ...]:
    """``cards`` that can be part of a hand of ``ranking``: a card above eight is in no 8-or-better low (a
    shortcut only: pokerkit values no five that holds one)."""
    if ranking == "eight_or_better":
        return tuple(c for c in cards if c[0] in "A2345678")
    return tuple(cards)


@lru_cache(maxsize=1 << 16)
def best_strength(ranking: str, cards: frozenset[str]) -> int | None:
    """The strongest hand of ``ranking`` any five of ``cards`` make (badugi: any of the four, largest set of
    different suits and ranks first, as pokerkit's strengths already order them); ``None`` if none."""
    sizes = range(1, 5) if ranking == "badugi" else (5,)
    held = sorted(_may_play(ranking, cards))
    found = [hand_strength(ranking, hand) for size in sizes for hand in combinations(held, size)]
    return max((s for s in found if s is not None), default=None)


def omaha_strength(ranking: str, own: Sequence[str], board: Sequence[str]) -> int | None:
    """The strongest hand of ``ranking`` of exactly two of ``own`` and three of ``board``; ``None`` if none."""
    triples = list(combinations(_may_play(ranking, board), 3))
    pairs = combinations(_may_play(ranking, own), 2)
    found = [hand_strength(ranking, pair + triple) for pair in pairs for triple in triples]
    return max((s for s in found if s is not None), default=None)


def playing_top_card(ranking: str, cards: Sequence[str], strength: int) -> tuple[int, int]:
    """(rank, suit) of the highest card of the five of ``cards`` that make ``strength`` (of several fives
    that do, the one holding the highest card); the ace counts 1 in a low ranking."""
    return max(
        max((1 if c[0] == "A" and ranking in ACE_LOW else RANKS.index(c[0]) + 2, SUITS.index(c[1])) for c in five)
        for five in combinations(cards, 5)
        if hand_strength(ranking, five) == strength
    )


# --- the reference settlement ---------------------------------------------------------------------


class RefPart(NamedTuple):
    """One run's part of a pot, or one half of it, as the rules award it."""

    run: int
    half: str
    """``whole``, or ``high`` / ``low`` in a hi-lo game that had a qualifying low."""
    ranking: str
    amount: int
    winners: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]
    """``(seat, chips)`` per winner, seats ascending. When the same hands won both halves (``as_one``),
    each half gives the winners' shares of both halves together (the rules divide the part as one)."""
    as_one: bool = False


class RefPot(NamedTuple):
    """A pot as the rules make it."""

    amount: int
    eligible: tuple[int, ...]
    rake: int
    shares: tuple[tuple[int, int], ...]
    """``(seat, chips)`` per winner, seats ascending."""
    parts: tuple[RefPart, ...] = ()
    """How a contested pot was divided (one ``whole`` part for a pot one hand won on one board)."""


class Reference(NamedTuple):
    """A settlement made from the rules alone."""

    pots: tuple[RefPot, ...]
    returned: tuple[tuple[int, int], ...]
    collected: dict[int, int]
    busts: tuple[tuple[int, int], ...]
    """``(seat, finish)``, worst finish first, seats ascending within a finish."""
    strengths: dict[tuple[int, int], tuple[int | None, int | None]]
    """``(run, seat)`` -> (high strength, low strength) per live seat at a contested showdown (empty if
    uncontested), from pokerkit's classes; ``None`` where the game has no such hand or the low does not
    qualify."""


def reference_settlement(doc: dict[str, Any]) -> Reference:
    """Settle the event ``doc`` (a valid ShowdownEvent dict) by the rules, without ``showdown_core``."""
    players = doc["players"]
    shape = VARIANT_SHAPES[doc["variant"]]
    put = {p["seat"]: p["contributed"] for p in players}
    dead = sum(p.get("dead_money", 0) for p in players)
    live = sorted(p["seat"] for p in players if not p.get("folded", False))
    cards = {p["seat"]: [canonical(c) for c in p.get("hole_cards") or ()] for p in players}
    runs = [[canonical(c) for c in board] for board in doc.get("boards") or [doc.get("board", [])]]

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

    strengths = hand_strengths(doc["variant"], live, cards, runs) if len(live) > 1 else {}
    table = _Table(doc, cards, runs, strengths)
    rakes = _rake_per_pot([chips for chips, _ in merged], doc.get("rake", 0), doc.get("rake_ppm"))
    collected = dict.fromkeys(put, 0)
    for seat, chips in returned:
        collected[seat] += chips
    pots: list[RefPot] = []
    for (chips, eligible), rake in zip(merged, rakes, strict=True):
        prize = chips - rake
        parts: tuple[RefPart, ...] = ()
        if len(eligible) == 1:
            shares: tuple[tuple[int, int], ...] = ((eligible[0], prize),)
        else:
            parts = tuple(_divide_pot(table, shape.high, shape.low, prize, eligible))
            shares = _totals(parts)
        for seat, won in shares:
            collected[seat] += won
        pots.append(RefPot(chips, tuple(eligible), rake, shares, parts))
    return Reference(tuple(pots), tuple(returned), collected, _busts(players, collected), strengths)


def hand_strengths(
    variant: str, live: list[int], cards: dict[int, list[str]], runs: list[list[str]]
) -> dict[tuple[int, int], tuple[int | None, int | None]]:
    """Each live seat's high and low strength on each board (Omaha: two own and three board cards)."""
    shape = VARIANT_SHAPES[variant]
    out: dict[tuple[int, int], tuple[int | None, int | None]] = {}
    for run, board in enumerate(runs, start=1):
        for seat in live:
            values: list[int | None] = []
            for ranking in (shape.high, shape.low):
                if ranking is None:
                    values.append(None)
                elif shape.omaha:
                    values.append(omaha_strength(ranking, cards[seat], board))
                else:
                    values.append(best_strength(ranking, frozenset(cards[seat] + board)))
            out[run, seat] = (values[0], values[1])
    return out


class _Table(NamedTuple):
    """What dividing a pot needs to know of the hand."""

    doc: dict[str, Any]
    cards: dict[int, list[str]]
    runs: list[list[str]]
    strengths: dict[tuple[int, int], tuple[int | None, int | None]]


def _divide_pot(
    table: _Table, high: str | None, low: str | None, prize: int, eligible: tuple[int, ...]
) -> Iterable[RefPart]:
    """The rules of docs/rules.md: each pot divided equally among the runs, the chips left over one each to the
    earliest runs; each run's part to its best hand, or in a hi-lo game split in halves (the odd chip to the
    high half) unless no eligible hand qualifies for low; the same hands winning both halves divide the
    part as one."""
    per_run, extra = divmod(prize, len(table.runs))
    for run in range(1, len(table.runs) + 1):
        amount = per_run + (run <= extra)
        highs = {s: table.strengths[run, s][0] for s in eligible}
        lows = {s: table.strengths[run, s][1] for s in eligible}
        if high is None or low is None:
            ranking, values = (high, highs) if high is not None else (low, lows)
            assert ranking is not None
            yield _award(table, run, "whole", ranking, amount, values)
            continue
        qualified = {s: v for s, v in lows.items() if v is not None}
        if not qualified:
            yield _award(table, run, "whole", high, amount, highs)
            continue
        top = _award(table, run, "high", high, amount - amount // 2, highs)
        bottom = _award(table, run, "low", low, amount // 2, qualified)
        if len(top.winners) > 1 and top.winners == bottom.winners:
            # as one: the part divided evenly among them, the odd chips in the high hand's order (as a
            # split's odd chip goes to the high half)
            both = _split(amount, top.winners, _odd_chip_order(table, run, high, top.winners))
            top, bottom = top._replace(shares=both, as_one=True), bottom._replace(shares=both, as_one=True)
        yield top
        yield bottom


def _award(table: _Table, run: int, half: str, ranking: str, amount: int, values: dict[int, Any]) -> RefPart:
    """``amount`` to the strongest of ``values`` (seat -> strength), divided among ties."""
    best = max(values.values())
    winners = tuple(sorted(s for s, v in values.items() if v == best))
    order = _odd_chip_order(table, run, ranking, winners)
    return RefPart(run, half, ranking, amount, winners, _split(amount, winners, order))


def _split(amount: int, winners: tuple[int, ...], order: list[int]) -> tuple[tuple[int, int], ...]:
    each, odd = divmod(amount, len(winners))
    lucky = set(order[:odd])
    return tuple((s, each + (s in lucky)) for s in winners)


def _odd_chip_order(table: _Table, run: int, ranking: str, tied: tuple[int, ...]) -> list[int]:
    """Board and draw games: clockwise, starting with the first seat left of the button. Stud games (TDA 2024
    Rule 20-B): the highest card by rank, then suit, among the five cards that play for this part."""
    doc = table.doc
    if not VARIANT_SHAPES[doc["variant"]].odd_chip_by_card:
        button = doc["button_seat"]
        walk = [(button + step - 1) % SEATS + 1 for step in range(1, SEATS + 1)]
        return [s for s in walk if s in tied]
    index = 0 if ranking == VARIANT_SHAPES[doc["variant"]].high else 1
    top = {s: playing_top_card(ranking, table.cards[s], table.strengths[run, s][index]) for s in tied}  # type: ignore[arg-type]
    return sorted(tied, key=top.__getitem__, reverse=True)


def _totals(parts: Iterable[RefPart]) -> tuple[tuple[int, int], ...]:
    """Each winner's chips over ``parts`` (a part divided as one with its other half counted once)."""
    total: Counter[int] = Counter()
    for part in parts:
        if part.as_one and part.half == "low":
            continue
        for seat, chips in part.shares:
            total[seat] += chips
    return tuple(sorted(total.items()))


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

PartKey = tuple[int, str, str, int, tuple[int, ...], tuple[tuple[int, int], ...]]
"""(run, half, ranking, amount, winners, shares) of one part of a pot."""


def _our_parts(ours: Settlement, pot: PotResult) -> list[PartKey]:
    """Our division of a contested pot, as the reference states it: one ``whole`` part when one ranking
    awarded it on one board (no parts listed); the halves a part was divided as one give both halves'
    shares together."""
    if not pot.parts:
        shape = ours.showdown.variant.shape
        ranking = shape.high or shape.low
        assert ranking is not None
        winners = tuple(sorted((w.seat, w.amount) for w in pot.winners))
        return [(1, "whole", ranking, pot.amount - pot.rake, tuple(s for s, _ in winners), winners)]
    keys: list[PartKey] = []
    for part in pot.parts:
        shares = tuple(sorted((w.seat, w.amount) for w in part.winners))
        keys.append((part.run, part.half, part.ranking, part.amount, tuple(s for s, _ in shares), shares))
    for i in range(len(keys) - 1):
        high, low = keys[i], keys[i + 1]
        if high[:2] == (low[0], "high") and low[1] == "low" and len(high[4]) > 1 and high[4] == low[4]:
            both = tuple((s, a + b) for (s, a), (_, b) in zip(high[5], low[5], strict=True))
            keys[i], keys[i + 1] = (*high[:5], both), (*low[:5], both)
    return keys


def _ref_parts(pot: RefPot) -> list[PartKey]:
    return [(p.run, p.half, p.ranking, p.amount, p.winners, p.shares) for p in pot.parts]


def differences(ours: Settlement, ref: Reference) -> list[str]:
    """Every way our settlement differs from the reference (empty when they agree)."""
    found: list[str] = []
    our_pots = [(p.amount, p.eligible, p.rake, tuple(sorted((w.seat, w.amount) for w in p.winners))) for p in ours.pots]
    ref_pots = [(p.amount, p.eligible, p.rake, p.shares) for p in ref.pots]
    if our_pots != ref_pots:
        found.append(f"pots {our_pots} != reference {ref_pots}")
    for pot, ref_pot in zip(ours.pots, ref.pots, strict=False):
        if ref_pot.parts and _our_parts(ours, pot) != _ref_parts(ref_pot):
            found.append(f"pot {pot.number} parts {_our_parts(ours, pot)} != reference {_ref_parts(ref_pot)}")
    if [(r.seat, r.amount) for r in ours.returned] != list(ref.returned):
        found.append(f"returned {list(ours.returned)} != reference {ref.returned}")
    if ours.collected_by_seat() != ref.collected:
        found.append(f"collected {ours.collected_by_seat()} != reference {ref.collected}")
    our_busts = [(b.seat, b.finish) for b in ours.busts]
    if sorted(our_busts, key=lambda b: (b[1], b[0])) != list(ref.busts) or our_busts != sorted(
        our_busts, key=lambda b: b[1]
    ):
        found.append(f"busts {our_busts} != reference {ref.busts}")
    our_strengths = {
        (s.run, s.seat.seat): (None if s.high is None else s.high.strength, None if s.low is None else s.low.strength)
        for s in ours.shown
    }
    if our_strengths != ref.strengths:
        found.append(f"hand strengths (run, seat): (high, low) {our_strengths} != pokerkit's {ref.strengths}")
    return found


class ChunkReport(NamedTuple):
    """What one worker process saw."""

    hands: int
    counts: Counter[str]
    disagreements: list[tuple[str, list[str]]]
    """``(event JSON, differences)``, at most SHOW_AT_MOST; ``counts['disagreements']`` has them all."""


def settle_chunk(seed: int, count: int, deal: dict[str, Any] | None = None) -> ChunkReport:
    """Deal ``count`` hands from ``seed`` (``deal``: :func:`deal_hand`'s keywords), settle each both ways,
    count the situations and the disagreements."""
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    shown: list[tuple[str, list[str]]] = []
    before = best_strength.cache_info()
    for i in range(count):
        doc = deal_hand(rng, f"D-{seed}-{i}", **(deal or {}))
        payload = json.dumps(doc)
        try:
            ours = settle(to_showdown(parse_event(payload)))
        except ShowdownError as exc:  # a dealt hand is always valid: this is a disagreement too
            found = [f"refused: {type(exc).__name__}: {exc}"]
        else:
            found = differences(ours, reference_settlement(doc))
            counts.update(situations(doc, ours))
        if found:
            counts["disagreements"] += 1
            if len(shown) < SHOW_AT_MOST:
                shown.append((payload, found))
    after = best_strength.cache_info()
    counts["pokerkit hands valued"] += after.misses - before.misses
    counts["pokerkit hands valued again"] += after.hits - before.hits
    return ChunkReport(count, counts, shown)


def _settle_chunk(args: tuple[int, int, dict[str, Any]]) -> ChunkReport:
    return settle_chunk(*args)


def situations(doc: dict[str, Any], ours: Settlement) -> Iterable[str]:
    variant = doc["variant"]
    stud = VARIANT_SHAPES[variant].odd_chip_by_card
    yield variant
    yield "contested" if ours.shown else "uncontested"
    if variant.startswith("omaha") and ours.shown:
        yield f"{variant}, {len(ours.shown[0].seat.cards)} cards"
    if "boards" in doc:
        yield f"run {len(doc['boards'])} times"
    if len(ours.pots) > 1:
        yield "side pots"
    splits = [p for p in ours.pots if len(p.winners) > 1]
    if splits:
        yield "split pots"
    divisions = [(p.amount - p.rake, len(p.winners), p.number) for p in splits if not p.parts]
    divisions += [(part.amount, len(part.winners), p.number) for p in ours.pots for part in p.parts]
    if any(amount % winners for amount, winners, _ in divisions if winners > 1):
        yield "odd chips"
        if variant == "stud":
            yield "odd chips (stud)"
        if stud:
            yield "odd chips (stud games)"
    if any(amount % winners for amount, winners, number in divisions if winners > 1 and number > 0):
        yield "odd chips in a side pot"
    parts = [part for p in ours.pots for part in p.parts]
    if any(part.run > 1 for part in parts) and any(
        (p.amount - p.rake) % len(doc["boards"]) for p in ours.pots if p.parts
    ):
        yield "chips left over between runs"
    halves = [part for part in parts if part.half != "whole"]
    if halves:
        yield "hi-lo split"
        if any(part.amount % 2 for part in halves if part.half == "high") or any(
            a.amount != b.amount for a, b in zip(halves[::2], halves[1::2], strict=True)
        ):
            yield "odd chip of a hi-lo split"
        for high, low in zip(halves[::2], halves[1::2], strict=True):
            seats = [w.seat for w in high.winners], [w.seat for w in low.winners]
            if len(seats[0]) > 1 and seats[0] == seats[1]:
                yield "hi-lo halves won by the same hands (as one)"
            elif len(seats[1]) > 1 or len(seats[0]) > 1:
                yield "hi-lo half shared (quartered)"
            elif seats[0] == seats[1]:
                yield "hi-lo scoop of both halves"
    if VARIANT_SHAPES[variant].split and any(part.half == "whole" for part in parts):
        yield "hi-lo without a qualifying low (scoop)"
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


def _doc(variant: str, players: list[tuple[int, str | None, int]], **fields: Any) -> dict[str, Any]:
    """A small event: ``(seat, cards or None for folded, chips put in)`` per player."""
    doc: dict[str, Any] = {"schema_version": 1, "hand_id": "ref", "table_id": "T", "variant": variant}
    doc["players"] = [
        {"seat": seat, "player_id": f"p{seat}", "contributed": chips, "folded": cards is None}
        | ({"hole_cards": cards.split()} if cards else {})
        for seat, cards, chips in players
    ]
    return doc | fields


def _agrees(doc: dict[str, Any]) -> Reference:
    ref = reference_settlement(doc)
    assert differences(settle(to_showdown(parse_event(json.dumps(doc)))), ref) == []
    return ref


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
    assert [p[:4] for p in ref.pots] == [(325, (1, 2, 3), 16, ((1, 309),)), (402, (2, 3), 15, ((2, 193), (3, 194)))]
    assert ref.returned == ((2, 50),)
    assert ref.collected == {1: 309, 2: 243, 3: 194, 4: 0}
    assert ref.busts == ()
    assert ref.strengths[1, 1][0] > ref.strengths[1, 2][0] == ref.strengths[1, 3][0]  # type: ignore[operator]
    ours = settle(to_showdown(parse_event(json.dumps(doc))))
    assert differences(ours, ref) == []


def test_the_reference_splits_hi_lo_halves_with_the_odd_chip_high_and_scoops_without_a_low() -> None:
    board = ["2c", "4d", "7h", "Kc", "Qs"]
    kings, wheel_draw, no_low = "Ks Kd 9c 9d", "Ac 3h Jd Td", "Jd Td 9h 9s"
    doc = _doc("omaha_hilo", [(1, kings, 50), (2, wheel_draw, 50), (3, None, 3)], board=board, button_seat=1)
    ref = reference_settlement(doc)
    assert [(p.half, p.amount, p.shares) for p in ref.pots[0].parts] == [
        ("high", 52, ((1, 52),)),
        ("low", 51, ((2, 51),)),
    ]
    doc = _doc("omaha_hilo", [(1, kings, 50), (2, no_low, 50), (3, None, 3)], board=board, button_seat=1)
    assert [(p.half, p.amount, p.shares) for p in reference_settlement(doc).pots[0].parts] == [
        ("whole", 103, ((1, 103),))
    ]


@pytest.mark.parametrize(("pot", "shares"), [(66, ((1, 33), (2, 33))), (67, ((1, 33), (2, 34)))])
def test_the_reference_divides_a_part_as_one_when_the_same_hands_win_both_halves(
    pot: int, shares: tuple[tuple[int, int], ...]
) -> None:
    doc = _doc(
        "omaha_hilo",
        [(1, "Ac 5c 9d 9h", 33), (2, "As 5s 9c 9s", 33), (3, None, pot - 66)],
        board=["2c", "3d", "4h", "Kc", "Qs"],
        button_seat=1,
    )
    ref = reference_settlement(doc)
    assert ref.pots[0].shares == shares  # not 34 and 32 of 66: each half divided alone would give seat 2 both odd chips
    assert [(p.half, p.amount, p.as_one) for p in ref.pots[0].parts] == [
        ("high", pot - pot // 2, True),
        ("low", pot // 2, True),
    ]


def test_the_reference_gives_the_chips_left_over_between_runs_to_the_earliest_runs() -> None:
    runs = [["2c", "7d", "9h", "Js", "3s"], ["2c", "7d", "9h", "Kh", "4c"], ["2c", "7d", "9h", "Ah", "5c"]]
    doc = _doc("holdem", [(1, "As Ad", 100), (2, "Kc Kd", 100), (3, None, 2)], boards=runs, button_seat=1)
    ref = reference_settlement(doc)
    assert [(p.run, p.amount, p.shares) for p in ref.pots[0].parts] == [
        (1, 68, ((1, 68),)),
        (2, 67, ((2, 67),)),
        (3, 67, ((1, 67),)),
    ]


@pytest.mark.parametrize(
    ("variant", "players", "collected"),
    [
        # both play a nine-high straight; seat 2's nine of hearts beats seat 1's nine of clubs (its ace does not play)
        ("stud", [(1, "9c 8d 7c 6d 5c As 2d", 50), (2, "9h 8c 7d 6c 5d Kd 3c", 50), (3, None, 1)], {1: 50, 2: 51}),
        # both hold 7-5-4-2-A: with the ace low, seat 2's seven of diamonds beats seat 1's seven of clubs
        ("razz", [(1, "As 2c 4d 5h 7c Ks Qs", 50), (2, "Ah 2d 4c 5s 7d Kh Qh", 50), (3, None, 1)], {1: 50, 2: 51}),
    ],
)
def test_the_reference_gives_a_stud_games_odd_chip_by_the_highest_card_of_the_five_that_play(
    variant: str, players: list[tuple[int, str | None, int]], collected: dict[int, int]
) -> None:
    assert {s: c for s, c in reference_settlement(_doc(variant, players)).collected.items() if c} == collected


@pytest.mark.parametrize(("variant", "winner"), [("short_deck", 2), ("short_deck_straight_over_trips", 1)])
def test_the_reference_ranks_short_deck_trips_over_a_straight_unless_the_wsop_order_is_asked(
    variant: str, winner: int
) -> None:
    doc = _doc(variant, [(1, "Ac 9s", 50), (2, "Qh Qc", 50)], board=["6c", "7d", "8h", "Qs", "Kd"], button_seat=1)
    assert reference_settlement(doc).collected[winner] == 100


def test_the_reference_settles_every_worked_example_of_every_game_as_worked_out_by_hand() -> None:
    cases = list(read_cases(VARIANT_SHOWDOWNS))
    assert {case["event"]["variant"] for case in cases} == set(EVERY_GAME)
    for case in cases:
        want = {int(seat): chips for seat, chips in case["expected_award"].items()}
        assert reference_settlement(case["event"]).collected == want, case["event"]["hand_id"]


def _best(ranking: str, cards: str) -> int:
    value = best_strength(ranking, frozenset(cards.split()))
    assert value is not None, f"{cards} make no {ranking} hand"
    return value


@pytest.mark.parametrize(
    ("ranking", "better", "worse"),
    [
        ("deuce_to_seven", "Kd 9c 7d 5c 3h", "As 2c 3d 4h 5s"),  # king-high beats ace-high: the wheel is no straight
        ("deuce_to_seven", "8c 6d 4c 3d 2s", "7h 5h 4h 3h 2h"),  # a flush counts against a hand
        ("deuce_to_seven", "7c 5d 4h 3s 2c", "7c 6d 4h 3s 2c"),  # the number one: 7-5-4-3-2
        ("ace_to_five", "9c Td Jh Qs Kd 8s 7s", "Ac Ad 2c 2d 3h 3s Kc"),  # pairs count against a razz hand
        ("ace_to_five", "5h 4h 3h 2h Ah Kc Kd", "6c 4d 3h 2s Ac Kh Ks"),  # a straight flush does not
        ("eight_or_better", "5c 4d 3h 2s Ac Kd Qh", "6c 4d 3h 2s Ac Kh Qs"),  # the wheel is the best low
        ("badugi", "Kc Qd Jh Ts", "Ac 2d 3h 3s"),  # any badugi beats any three-card hand
        ("badugi", "Ac 2d 3h 4s", "Ac 2d 3h 5s"),  # ace low; the lower highest card wins
        ("badugi", "2c 3d 4h 4s", "Ac 2c 8d 9h"),  # three cards each: 4-3-2 beats 9-8-A
        ("short_deck", "6c 6d 6h Ks 8c", "As 6c 7d 8h 9s"),  # trips beat a straight
        ("short_deck", "6c 7c 8c Jc Kc", "Ac Ad Ah Ks Kd"),  # a flush beats a full house
        ("short_deck", "As 6c 7d 8h 9s", "Ac Kd Qh Js 9s"),  # A-6-7-8-9 is a straight
        ("short_deck_straight_over_trips", "As 6c 7d 8h 9s", "6c 6d 6h Ks 8c"),  # the WSOP order
        ("high", "As 2c 3d 4h 5s", "Ac Kd Qh Js 9s"),  # the wheel
    ],
)
def test_the_reference_ranks_hands_as_the_readme_says(ranking: str, better: str, worse: str) -> None:
    assert _best(ranking, better) > _best(ranking, worse)


def test_the_reference_numbers_each_low_from_1_for_its_worst_hand_and_a_nine_is_no_eight_or_better_low() -> None:
    assert best_strength("eight_or_better", frozenset(["9c", "5d", "4h", "3s", "2c", "Kd", "Kh"])) is None
    assert (_best("eight_or_better", "5c 4d 3h 2s Ac"), _best("eight_or_better", "8c 7d 6h 5s 4c")) == (56, 1)
    assert (_best("ace_to_five", "5c 4d 3h 2s Ac"), _best("ace_to_five", "Kc Kd Kh Ks Qc")) == (6175, 1)
    assert (_best("deuce_to_seven", "7c 5d 4h 3s 2c"), _best("deuce_to_seven", "As Ks Qs Js Ts")) == (7462, 1)
    assert (_best("badugi", "Ac 2d 3h 4s"), _best("badugi", "Kc Ks Kh Kd")) == (1092, 1)
    assert (_best("short_deck", "As Ks Qs Js Ts"), _best("short_deck", "9c 8d 7h 6s Jc")) == (1404, 1)


def test_our_settlement_agrees_with_the_reference_on_100000_dealt_hands_of_every_game() -> None:
    started = time.perf_counter()
    mixes: list[dict[str, Any]] = [{}, {"games": EVERY_GAME}]  # the classic mix, and every game alike
    jobs = [(20_260_000 + k, CHUNK, mixes[k % 2]) for k in range(HANDS // CHUNK)]
    with multiprocessing.get_context("spawn").Pool(PROCESSES) as pool:
        reports = pool.map_async(_settle_chunk, jobs, chunksize=1).get(timeout=LIMIT_S)
    counts: Counter[str] = Counter()
    for report in reports:
        counts.update(report.counts)
    hands = sum(report.hands for report in reports)
    print(f"\n{hands} hands in {time.perf_counter() - started:.1f} s on {PROCESSES} processes")
    for situation, n in sorted(counts.items()):
        print(f"  {situation:44s} {n:7d}")
    for report in reports:
        for payload, found in report.disagreements:
            print("DISAGREEMENT:", *found, sep="\n  ")
            print("  event:", payload)
    assert hands == HANDS
    assert counts["disagreements"] == 0
    # the hands exercise what they are meant to: each game, and each situation, in well over 1 hand of 1,000
    common = ("uncontested", "side pots", "split pots", "odd chips", "odd chips (stud games)", "rake", "run 2 times")
    rarer = (
        *EVERY_GAME,
        *(f"omaha, {n} cards" for n in (4, 5, 6)),
        *(f"omaha_hilo, {n} cards" for n in (4, 5)),
        "run 3 times",
        "chips left over between runs",
        "odd chips (stud)",
        "hi-lo split",
        "odd chip of a hi-lo split",
        "hi-lo halves won by the same hands (as one)",
        "hi-lo half shared (quartered)",
        "hi-lo scoop of both halves",
        "hi-lo without a qualifying low (scoop)",
    )
    for situation in common:
        assert counts[situation] > HANDS // 100, situation
    for situation in rarer:
        assert counts[situation] > HANDS // 1000, situation


# --- planted bugs ---------------------------------------------------------------------------------


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


def _odd_chip_to_the_low_half(
    showdown: Showdown, award: int, eligible: tuple[int, ...], by_run: ByRun
) -> tuple[PotPart, ...]:
    parts = list(DIVIDE(showdown, award, eligible, by_run))
    variant = showdown.variant
    for i, (high, low) in enumerate(itertools.pairwise(parts)):
        if high.half == "high" and high.amount > low.amount:
            highs, lows = by_run[high.run - 1]
            assert variant.high is not None
            assert variant.low is not None
            assert highs is not None
            assert lows is not None
            qualified = tuple(s for s in eligible if lows[s] is not None)
            parts[i] = AWARD(showdown, low.amount, eligible, high.run, "high", variant.high, highs)
            parts[i + 1] = AWARD(showdown, high.amount, qualified, high.run, "low", variant.low, lows)
    return tuple(parts)


def _leftover_to_the_last_runs(
    showdown: Showdown, award: int, eligible: tuple[int, ...], by_run: ByRun
) -> tuple[PotPart, ...]:
    backwards = DIVIDE(showdown, award, eligible, by_run[::-1])  # the last board's part is divided first
    return tuple(sorted((p._replace(run=len(by_run) + 1 - p.run) for p in backwards), key=lambda p: p.run))


def _every_run_by_the_first_board(
    showdown: Showdown, award: int, eligible: tuple[int, ...], by_run: ByRun
) -> tuple[PotPart, ...]:
    return DIVIDE(showdown, award, eligible, [by_run[0]] * len(by_run))


def _a_low_half_without_a_low(
    showdown: Showdown, award: int, eligible: tuple[int, ...], by_run: ByRun
) -> tuple[PotPart, ...]:
    parts: list[PotPart] = []
    high = showdown.variant.high
    for part in DIVIDE(showdown, award, eligible, by_run):
        if part.half == "whole" and showdown.variant.shape.split:  # no low: split anyway, both halves by high
            highs = by_run[part.run - 1][0]
            upper = (part.amount + 1) // 2
            parts.append(AWARD(showdown, upper, eligible, part.run, "high", high, highs))  # type: ignore[arg-type]
            parts.append(AWARD(showdown, part.amount - upper, eligible, part.run, "low", high, highs))  # type: ignore[arg-type]
        else:
            parts.append(part)
    return tuple(parts)


def _halves_divided_apart(showdown: Showdown, amount: int, top: PotPart, bottom: PotPart, *_: Any) -> Any:
    return top, bottom


def _all_seven_cards(self: Variant, tied: list[tuple[int, list[Card]]], *args: Any) -> list[int]:
    if not self.shape.odd_chip_by_card:
        return ODD_CHIP_ORDER(self, tied, *args)
    return [seat for seat, cards in sorted(tied, key=lambda t: max(t[1]), reverse=True)]


def _any_own_cards(self: Variant, board: Sequence[Card], holes: Sequence[Sequence[Card]]) -> Any:
    return VARIANT_HANDS(dataclasses.replace(self, shape=self.shape._replace(omaha=False)), board, holes)


RAKE_BY_POT: Final = showdown_core.settlement.rake_by_pot
BUSTS: Final = showdown_core.settlement._busts
DIVIDE: Final = showdown_core.settlement._divide
AWARD: Final = showdown_core.settlement._award
ODD_CHIP_ORDER: Final = Variant.odd_chip_order
VARIANT_HANDS: Final = Variant.hands
CLASSIC: Final[dict[str, Any]] = {}
"""Plants dealt the classic mix (hold'em and stud)."""
HI_LO: Final[dict[str, Any]] = {"games": ("omaha_hilo", "stud_hilo"), "tie": True}
RUNS: Final[dict[str, Any]] = {"games": ("holdem", "omaha", "omaha_hilo", "short_deck"), "runs": True}


class Plant(NamedTuple):
    """A bug: ``bug`` replaces ``attribute`` of ``owner()``; ``deal`` says which hands can show it."""

    owner: Callable[[], Any]
    attribute: str
    bug: Any
    deal: dict[str, Any]
    hands: int = 400
    """Hands dealt to show it (each plant is caught in fewer than half of them)."""


def _settlement() -> Any:
    return showdown_core.settlement


def _ace_to_five() -> Any:
    return showdown_core.variants.ranking("ace_to_five")


PLANTED: Final[dict[str, Plant]] = {
    "odd chips from the button itself": Plant(lambda: Variant, "odd_chip_order", _button_first, CLASSIC, 1_500),
    "stud odd chips to the lowest card": Plant(lambda: Variant, "odd_chip_order", _lowest_card_first, CLASSIC, 1_500),
    "the river ignored": Plant(lambda: High, "with_board", _river_ignored, CLASSIC, 1_500),
    "the stated rake rate ignored": Plant(_settlement, "rake_by_pot", _rate_ignored, CLASSIC, 1_500),
    "an uncalled bet kept in a pot": Plant(_settlement, "build_pots", _uncalled_bet_kept_in_a_pot, CLASSIC, 1_500),
    "bust places not skipped after a tie": Plant(_settlement, "_busts", _dense_finishes, CLASSIC, 1_500),
    "the odd chip of a hi-lo split to the low half": Plant(_settlement, "_divide", _odd_chip_to_the_low_half, HI_LO),
    "a low half split off without a qualifying low (no scoop)": Plant(
        _settlement, "_divide", _a_low_half_without_a_low, HI_LO
    ),
    "halves won by the same hands divided apart (34 and 32 of 66)": Plant(
        _settlement, "_as_one", _halves_divided_apart, HI_LO
    ),
    "the chips left over between runs to the last runs": Plant(
        _settlement, "_divide", _leftover_to_the_last_runs, RUNS
    ),
    "every run's part awarded by the first board": Plant(_settlement, "_divide", _every_run_by_the_first_board, RUNS),
    "stud games' odd chips by all seven cards (Robert's Rules)": Plant(
        lambda: Variant, "odd_chip_order", _all_seven_cards, {"games": ("stud", "stud_hilo", "razz"), "tie": True}
    ),
    "razz odd chips with the ace high": Plant(_ace_to_five, "ace_low", False, {"variant": "razz", "tie": True}),
    "Omaha hands of any own cards": Plant(lambda: Variant, "hands", _any_own_cards, {"games": ("omaha", "omaha_hilo")}),
}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_the_differential_test_catches_a_planted_bug(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    plant = PLANTED[name]
    monkeypatch.setattr(plant.owner(), plant.attribute, plant.bug)
    report = settle_chunk(7, plant.hands, plant.deal)
    assert report.counts["disagreements"] > 0, f"{name}: {plant.hands} hands and no disagreement"
    assert report.disagreements[0][0].startswith('{"schema_version": 1'), "the event is shown, as JSON"
