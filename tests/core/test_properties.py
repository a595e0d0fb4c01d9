"""The settlement's guarantees as properties of hands dealt from real betting (hypothesis), in every game.

Each property is a ``check_*`` function over an :class:`Outcome` (the event,
our settlement, and the public ShowdownResult JSON built from it), run by its
own test over generated hands, and shown to fail on a planted bug by
:func:`test_each_property_catches_the_bug_planted_for_it`.

Reproducibility: every test runs with ``derandomize=True`` (and no example
database), so CI and a laptop try exactly the same examples, and a failure
in CI fails the same way locally. Breadth comes from the 100,000-hand
differential test, which deals different hands from the same dealer.

Hands come half from the classic mix (hold'em and stud) and half from every
game alike (:func:`every_game`): Omaha, hi-lo, razz, draw games, short deck,
hands run two and three times. A hand's reported strengths are checked
against pokerkit's classes (the differential test's reading of them), and
each pot's division (runs, hi-lo halves) against the rules of docs/rules.md.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any, NamedTuple

import orjson
import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

import showdown_core.settlement
from showdown_core import (
    Bust,
    Card,
    Pot,
    PotResult,
    SeatHand,
    Settlement,
    Share,
    Showdown,
    Shown,
    build_pots,
    evaluate,
    settle,
)
from showdown_core.variants import Variant
from showdown_messages import ShowdownEvent, ShowdownResult
from showdown_rules import VARIANT_SHAPES
from showdown_service.decision.intake import parse_event, to_showdown
from showdown_service.decision.wire import encode_result
from tests.core.test_differential import (
    ACE_LOW,
    HI_LO,
    RUNS,
    _every_run_by_the_first_board,
    _halves_divided_apart,
    _leftover_to_the_last_runs,
    _odd_chip_to_the_low_half,
    hand_strengths,
    situations,
)
from tests.strategies import EVERY_GAME, RANKS, SEATS, STUD_GAMES, SUITS, canonical, deal_hand, events

# derandomize: the same examples on every run and machine (see the module docstring); no database needed
PROPERTY = settings(max_examples=300, deadline=None, derandomize=True, database=None)
SAMPLE = 600
"""Hands dealt (from a fixed seed) to show each check catches its planted bug."""


def every_game(**knobs: Any) -> st.SearchStrategy[dict[str, Any]]:
    """Hands of the classic mix (hold'em and stud) or, as often, of every game alike (same keywords as
    :func:`~tests.strategies.events`)."""
    return st.one_of(events(**knobs), events(games=EVERY_GAME, **knobs))


class Outcome(NamedTuple):
    """One hand: the event dict, the validated event, our settlement and the public result."""

    doc: dict[str, Any]
    event: ShowdownEvent
    settlement: Settlement
    result: dict[str, Any]
    encoded: bytes

    @property
    def live(self) -> list[int]:
        return [p["seat"] for p in self.doc["players"] if not p.get("folded", False)]

    @property
    def put_in(self) -> dict[int, int]:
        return {p["seat"]: p["contributed"] + p.get("dead_money", 0) for p in self.doc["players"]}

    def cards(self, seat: int) -> list[str]:
        player = next(p for p in self.doc["players"] if p["seat"] == seat)
        return [canonical(c) for c in player.get("hole_cards") or ()]

    @property
    def runs(self) -> list[list[str]]:
        """The board of each run (one, unless the hand was run again)."""
        return [[canonical(c) for c in board] for board in self.doc.get("boards") or [self.doc.get("board", [])]]

    @property
    def shape(self) -> Any:
        return VARIANT_SHAPES[self.doc["variant"]]

    def hand(self, run: int, seat: int, ranking: str) -> dict[str, Any] | None:
        """The published hand of ``seat`` on board ``run`` under ``ranking`` (the game's high or low):
        ``{cards, description, strength}``; ``None`` for a low that does not qualify."""
        shown = next(h for h in self.result["hands"] if (h.get("run", 1), h["seat"]) == (run, seat))
        if self.shape.split:
            return shown["high"] if ranking == self.shape.high else shown["low"]  # type: ignore[no-any-return]
        return {"cards": shown["best_five"], "description": shown["description"], "strength": shown["strength"]}

    def parts(self, pot: dict[str, Any]) -> list[dict[str, Any]]:
        """How a contested pot was divided: its parts, or one ``whole`` part when one ranking awarded it on
        one board (then none are listed)."""
        if pot.get("parts"):
            return pot["parts"]  # type: ignore[no-any-return]
        ranking = self.shape.high or self.shape.low
        return [{**pot, "run": 1, "half": "whole", "ranking": ranking, "amount": pot["amount"] - pot["rake"]}]


def outcome(doc: dict[str, Any]) -> Outcome:
    """Validate and settle ``doc`` as the worker does; the result as it is published (and schema-checked)."""
    event = parse_event(json.dumps(doc))
    settlement = settle(to_showdown(event))  # a global, looked up per call: a test plants bugs here
    encoded = encode_result(settlement, datetime(2026, 11, 22, tzinfo=UTC))
    ShowdownResult.model_validate_json(encoded)
    return Outcome(doc, event, settlement, orjson.loads(encoded), encoded)


# --- the properties -------------------------------------------------------------------------------


def check_chips_balance(o: Outcome) -> None:
    """Awards plus rake equal every chip put in (dead money included); pots plus returns equal it too."""
    put_in = sum(o.put_in.values())
    awards = o.result["awards"]
    assert sorted(a["seat"] for a in awards) == sorted(o.put_in), "one award per seat"
    raked = sum(p["rake"] for p in o.result["pots"])
    assert raked == o.doc.get("rake", 0), f"raked {raked}, the event says {o.doc.get('rake', 0)}"
    assert sum(a["amount"] for a in awards) + raked == put_in, f"{awards} + rake {raked} != {put_in} put in"
    assert sum(p["amount"] for p in o.result["pots"]) + sum(r["amount"] for r in o.result["returned"]) == put_in
    for pot in o.result["pots"]:
        assert sum(w["amount"] for w in pot["winners"]) == pot["amount"] - pot["rake"], pot
    for a in awards:
        assert a["net"] == a["amount"] - o.put_in[a["seat"]], a


def check_winners(o: Outcome) -> None:
    """Winners are eligible; eligible seats are live and put in at least as much as any excluded live seat;
    each part of a pot (each run, each hi-lo half) goes to the strongest eligible hands of its ranking on its
    board (a low half among the qualifying lows), and a pot's winners are its parts' winners."""
    live = set(o.live)
    if len(live) > 1:  # the reported strengths are the hands' (pokerkit's classes, another evaluator)
        want = hand_strengths(o.doc["variant"], sorted(live), {s: o.cards(s) for s in live}, o.runs)
        got = {
            (run, seat): tuple(
                None if r is None or (h := o.hand(run, seat, r)) is None else h["strength"]
                for r in (o.shape.high, o.shape.low)
            )
            for run, seat in want
        }
        assert got == want, f"strengths (run, seat): (high, low) {got} != pokerkit's {want}"
    contributed = {p["seat"]: p["contributed"] for p in o.doc["players"]}
    for pot in o.result["pots"]:
        eligible = set(pot["eligible_seats"])
        winners = {w["seat"] for w in pot["winners"]}
        assert winners <= eligible <= live, pot
        least = min(contributed[s] for s in eligible)
        assert all(s in eligible for s in live if contributed[s] >= least), f"a live seat that paid is left out: {pot}"
        if len(eligible) == 1:
            continue
        parts = o.parts(pot)
        assert winners == {w["seat"] for part in parts for w in part["winners"]}, pot
        for part in parts:
            hands = {s: o.hand(part["run"], s, part["ranking"]) for s in eligible}
            strengths = {s: h["strength"] for s, h in hands.items() if h is not None}
            best = max(strengths.values())
            assert {w["seat"] for w in part["winners"]} == {s for s, v in strengths.items() if v == best}, part
            assert part["hand"] == hands[part["winners"][0]["seat"]]["description"], part  # type: ignore[index]
        assert pot["hand"] == parts[0]["hand"], pot


def check_divisions(o: Outcome) -> None:
    """Each contested pot is divided equally among the runs, the chips left over one each to the earliest
    runs; in a hi-lo game each run's part is split in halves, the odd chip to the high half, unless no eligible
    hand qualifies for low (the high hand scoops the part); a part's shares add up to it."""
    shape = o.shape
    for pot in o.result["pots"]:
        if len(pot["eligible_seats"]) == 1:
            assert not pot.get("parts"), pot
            continue
        parts = o.parts(pot)
        runs = len(o.runs)
        per_run, extra = divmod(pot["amount"] - pot["rake"], runs)
        assert sorted({p["run"] for p in parts}) == list(range(1, runs + 1)), pot
        for run in range(1, runs + 1):
            mine = [p for p in parts if p["run"] == run]
            amount = per_run + (run <= extra)
            assert sum(p["amount"] for p in mine) == amount, f"run {run} should have {amount}: {pot}"
            lows = [o.hand(run, s, shape.low) for s in pot["eligible_seats"]] if shape.split else []
            if shape.split and any(lows):
                assert [(p["half"], p["amount"]) for p in mine] == [
                    ("high", amount - amount // 2),
                    ("low", amount // 2),
                ], pot
                assert [p["ranking"] for p in mine] == [shape.high, shape.low], pot
            else:
                assert [p["half"] for p in mine] == ["whole"], pot
                assert mine[0]["ranking"] == (shape.high or shape.low), pot
        for part in parts:
            assert sum(w["amount"] for w in part["winners"]) == part["amount"], part


def check_odd_chips(o: Outcome) -> None:
    """Every division (a pot, or a run's part, or a hi-lo half) gives its tied winners the equal share or one
    chip more, the extra chips in the variant's order (board and draw games: clockwise from the first seat
    left of the button; stud games: the highest card, by rank then suit, of the five that play for that part,
    the ace low in a low hand). When the same hands win both halves, the part is divided among them as one."""
    for pot in o.result["pots"]:
        if len(pot["winners"]) == 1:
            continue
        parts = o.parts(pot)
        divisions: list[tuple[dict[str, Any], dict[int, int]]] = []
        i = 0
        while i < len(parts):
            part = parts[i]
            shares = {w["seat"]: w["amount"] for w in part["winners"]}
            following = parts[i + 1] if i + 1 < len(parts) else None
            if (
                part["half"] == "high"
                and following is not None
                and len(shares) > 1
                and sorted(shares) == sorted(w["seat"] for w in following["winners"])
            ):  # the same hands won both halves: one division of the whole part
                for w in following["winners"]:
                    shares[w["seat"]] += w["amount"]
                divisions.append(({**part, "amount": part["amount"] + following["amount"]}, shares))
                i += 2
                continue
            divisions.append((part, shares))
            i += 1
        for part, shares in divisions:
            each, odd = divmod(part["amount"], len(shares))
            assert set(shares.values()) <= {each, each + 1}, (part, shares)
            if len(shares) == 1:
                continue
            lucky = [s for s, chips in shares.items() if chips == each + 1]
            assert sorted(lucky) == sorted(_odd_chip_order(o, part, list(shares))[:odd]), (part, shares)


def _split_label(o: Outcome) -> str:
    """For hypothesis' statistics: did a division leave odd chips, and how many winners shared it."""
    divisions = [p for pot in o.result["pots"] for p in o.parts(pot) if len(p["winners"]) > 1]
    odd = any(p["amount"] % len(p["winners"]) for p in divisions)
    most = max((len(p["winners"]) for p in divisions), default=1)  # a hi-lo pot may have no shared part
    return f"{'odd chips' if odd else 'even split'}, {most} winners"


def _odd_chip_order(o: Outcome, part: dict[str, Any], tied: list[int]) -> list[int]:
    if not o.shape.odd_chip_by_card:
        button = o.doc["button_seat"]
        return [s for s in ((button + k - 1) % SEATS + 1 for k in range(1, SEATS + 1)) if s in tied]
    # TDA 2024 Rule 20-B: the highest card by suit among the five cards that play for the part (published)
    ranking = part["ranking"]

    def top(seat: int) -> tuple[int, int]:
        hand = o.hand(part["run"], seat, ranking)
        assert hand is not None
        return max(
            (1 if c[0] == "A" and ranking in ACE_LOW else RANKS.index(c[0]) + 2, SUITS.index(c[1]))
            for c in hand["cards"]
        )

    return sorted(tied, key=top, reverse=True)


def check_busts(o: Outcome) -> None:
    """Busts are exactly the seats left with nothing (stacks given); worst first; a bigger starting stack
    finishes higher; equal stacks share the number and the next number skips."""
    busts = o.result["busts"]
    if "stack" not in o.doc["players"][0]:
        assert busts == []
        return
    stacks = {p["seat"]: p["stack"] for p in o.doc["players"]}
    won = {a["seat"]: a["amount"] for a in o.result["awards"]}
    broke = {s for s in stacks if stacks[s] - o.put_in[s] + won[s] == 0}
    assert {b["seat"] for b in busts} == broke, f"busts {busts}, broke {broke}"
    assert len(busts) == len(broke)
    names = {p["seat"]: p["player_id"] for p in o.doc["players"]}
    for b in busts:
        assert b["player_id"] == names[b["seat"]]
        assert b["finish"] == 1 + sum(stacks[other] < stacks[b["seat"]] for other in broke), busts
    assert [b["finish"] for b in busts] == sorted(b["finish"] for b in busts), "worst first"


def check_hidden_cards(o: Outcome) -> None:
    """The result never holds a folded, mucked or unshown card; only live seats show, and only when contested."""
    live = o.live
    hands = [(h.get("run", 1), h["seat"]) for h in o.result["hands"]]
    runs = range(1, len(o.runs) + 1)
    expected = sorted((run, seat) for run in runs for seat in live) if len(live) > 1 else []
    assert sorted(hands) == expected, f"hands shown (run, seat): {hands}, live: {live}"
    hidden = [s for s in o.put_in if s not in live or len(live) == 1]
    text = o.encoded.decode()
    for seat in hidden:
        for card in o.cards(seat):
            assert f'"{card}"' not in text, f"seat {seat}'s {card} is in the result"


def check_one_live_player(o: Outcome) -> None:
    """With one live player: every pot theirs, nothing evaluated or shown, everything put in less the rake."""
    if len(o.live) != 1:
        return
    (winner,) = o.live
    assert o.result["hands"] == []
    for pot in o.result["pots"]:
        assert pot["hand"] is None, pot
        assert not pot.get("parts"), pot
        assert [(w["seat"], w["amount"]) for w in pot["winners"]] == [(winner, pot["amount"] - pot["rake"])]
    won = {a["seat"]: a["amount"] for a in o.result["awards"]}
    assert won == {s: (sum(o.put_in.values()) - o.doc.get("rake", 0) if s == winner else 0) for s in o.put_in}


def check_uncalled_bet(o: Outcome) -> None:
    """The part of the top contribution nobody matched is returned to its owner, whole: in no pot, never raked."""
    contributed = sorted(((p["contributed"], p["seat"]) for p in o.doc["players"]), reverse=True)
    (top, seat), (second, _) = contributed[0], contributed[1]
    expected = [{"seat": seat, "amount": top - second}] if top > second else []
    assert o.result["returned"] == expected, f"returned {o.result['returned']}, expected {expected}"
    in_pots = sum(o.put_in.values()) - (top - second)
    assert sum(p["amount"] for p in o.result["pots"]) == in_pots
    assert all(0 <= p["rake"] <= p["amount"] for p in o.result["pots"])


CHECKS: dict[str, Callable[[Outcome], None]] = {
    "chips": check_chips_balance,
    "winners": check_winners,
    "odd chips": check_odd_chips,
    "runs and halves": check_divisions,
    "busts": check_busts,
    "hidden cards": check_hidden_cards,
    "one live player": check_one_live_player,
    "uncalled bet": check_uncalled_bet,
}


# --- the property tests ---------------------------------------------------------------------------


@PROPERTY
@given(every_game())
def test_every_dealt_hand_is_a_valid_showdown_event(doc: dict[str, Any]) -> None:
    event = parse_event(json.dumps(doc))
    assert event.hand_id == doc["hand_id"]
    assert [p.seat for p in event.players] == [p["seat"] for p in doc["players"]]


@PROPERTY
@given(every_game())
def test_chips_out_equal_chips_in_with_dead_money_and_rake(doc: dict[str, Any]) -> None:
    check_chips_balance(outcome(doc))


@PROPERTY
@given(every_game(tie=True))
def test_every_pot_goes_to_its_strongest_eligible_hands_and_only_to_eligible_seats(doc: dict[str, Any]) -> None:
    o = outcome(doc)
    event("contested" if o.result["hands"] else "uncontested")
    event("side pots" if len(o.result["pots"]) > 1 else "one pot")
    check_winners(o)


@PROPERTY
@given(events(games=EVERY_GAME, tie=True, runs=True))
def test_every_pot_is_divided_equally_among_runs_and_in_hi_lo_halves_as_the_readme_says(doc: dict[str, Any]) -> None:
    o = outcome(doc)
    event(doc["variant"])
    event(f"run {len(o.runs)} times")
    check_divisions(o)


@settings(PROPERTY, max_examples=400)
@given(every_game(tie=True, rake=False))
def test_odd_chips_follow_the_variants_order_and_tied_winners_differ_by_one_chip_at_most(doc: dict[str, Any]) -> None:
    o = outcome(doc)
    assume(any(len(p["winners"]) > 1 for p in o.result["pots"]))
    event(_split_label(o))
    check_odd_chips(o)


@settings(PROPERTY, max_examples=400)
@given(events(tie=True, rake=True, games=sorted(STUD_GAMES)))
def test_stud_games_odd_chips_go_to_the_highest_card_of_the_five_that_play_even_after_rake(
    doc: dict[str, Any],
) -> None:
    o = outcome(doc)
    assume(any(len(p["winners"]) > 1 for p in o.result["pots"]))
    event(f"{doc['variant']}: {_split_label(o)}")
    check_odd_chips(o)


@PROPERTY
@given(every_game(stacks=True))
def test_busts_are_exactly_the_seats_left_with_nothing_in_tda_order(doc: dict[str, Any]) -> None:
    o = outcome(doc)
    finishes = [b.finish for b in o.settlement.busts]
    event(f"{len(finishes)} busts" + (", a shared finish" if len(set(finishes)) < len(finishes) else ""))
    check_busts(o)


@PROPERTY
@given(every_game())
def test_results_never_contain_folded_mucked_or_unshown_cards(doc: dict[str, Any]) -> None:
    check_hidden_cards(outcome(doc))


@PROPERTY
@given(every_game(folding=True))
def test_one_live_player_takes_everything_unevaluated_and_an_uncalled_bet_comes_back_unraked(
    doc: dict[str, Any],
) -> None:
    assume(sum(not p.get("folded", False) for p in doc["players"]) == 1)
    o = outcome(doc)
    check_one_live_player(o)
    check_uncalled_bet(o)


@PROPERTY
@given(every_game())
def test_an_uncalled_top_contribution_is_returned_whole_at_every_showdown(doc: dict[str, Any]) -> None:
    check_uncalled_bet(outcome(doc))


# --- each property catches a bug ------------------------------------------------------------------


def _tampered(change: Callable[[Settlement], Settlement]) -> Callable[[Showdown], Settlement]:
    """A settlement that settles correctly, then applies ``change`` (a bug past the core's own invariant)."""

    def broken(showdown: Showdown) -> Settlement:
        return change(showdown_core.settlement.settle(showdown))  # the real one: this module's name is patched

    return broken


def _recollect(s: Settlement, pots: list[PotResult]) -> Settlement:
    """``s`` with ``pots``, and collected amounts that add up again (so only the planted bug is wrong)."""
    won = {seat.seat: 0 for seat in s.showdown.seats}
    for back in s.returned:
        won[back.seat] += back.amount
    for pot in pots:
        for w in pot.winners:
            won[w.seat] += w.amount
    return s._replace(pots=tuple(pots), collected=tuple(won[seat.seat] for seat in s.showdown.seats))


def _forget_the_returned_bet(s: Settlement) -> Settlement:
    if not s.returned:
        return s
    back = s.returned[0]
    return s._replace(
        collected=tuple(
            c - back.amount * (x.seat == back.seat) for x, c in zip(s.showdown.seats, s.collected, strict=True)
        )
    )


def _every_pot_to_the_best_hand(s: Settlement) -> Settlement:
    if not s.shown:
        return s
    best = max(s.shown, key=lambda x: x.value.strength).seat.seat
    return _recollect(s, [p._replace(winners=(Share(best, p.amount - p.rake),)) for p in s.pots])


def _show_folded_hands(s: Settlement) -> Settlement:
    if not s.shown:
        return s
    need = s.showdown.variant.shape.hole_cards
    folded = [x for x in s.showdown.seats if x.folded and len(x.cards) in need]
    return s._replace(shown=s.shown + tuple(Shown(x, evaluate(x.cards + s.showdown.board)) for x in folded))


def _show_the_lone_winner(s: Settlement) -> Settlement:
    live = [x for x in s.showdown.seats if not x.folded]
    cards = live[0].cards + s.showdown.board
    if s.shown or len(cards) < 5 or len(live[0].cards) not in s.showdown.variant.shape.hole_cards:
        return s
    return s._replace(shown=(Shown(live[0], evaluate(cards)),))


def _busts_in_seat_order(seats: tuple[SeatHand, ...], collected: tuple[int, ...]) -> tuple[Bust, ...]:
    broke = [x for x, won in zip(seats, collected, strict=True) if x.stack is not None and x.stack == x.put_in - won]
    return tuple(Bust(x.seat, x.player_id, i + 1) for i, x in enumerate(broke))


def _lowest_seat_first(self: Variant, tied: list[tuple[int, list[Card]]], *_: Any) -> list[int]:
    return sorted(seat for seat, _ in tied)


def _lowest_card_first(self: Variant, tied: list[tuple[int, list[Card]]], *_: Any) -> list[int]:
    return [seat for seat, cards in sorted(tied, key=lambda t: max(t[1]))]


def _pots_without_returns(seats: list[SeatHand]) -> tuple[list[Pot], list[Share]]:
    pots, returned = build_pots(seats)
    return pots + [Pot(back.amount, (back.seat,)) for back in returned], []


class Plant(NamedTuple):
    """A bug, and where it goes."""

    target: str
    """``module:attribute`` (or ``module:Class.method``) replaced by ``bug``."""
    bug: Any
    deal: dict[str, Any]
    """``deal_hand`` keywords for hands that can show the bug."""
    hands: int = SAMPLE


PLANTED: dict[str, Plant] = {
    "chips": Plant(f"{__name__}:settle", _tampered(_forget_the_returned_bet), {}),
    "winners": Plant(f"{__name__}:settle", _tampered(_every_pot_to_the_best_hand), {}),
    "odd chips": Plant("showdown_core.variants:Variant.odd_chip_order", _lowest_seat_first, {"tie": True}),
    "odd chips (stud games)": Plant(
        "showdown_core.variants:Variant.odd_chip_order", _lowest_card_first, {"tie": True, "games": sorted(STUD_GAMES)}
    ),
    "odd chips (hi-lo)": Plant("showdown_core.settlement:_as_one", _halves_divided_apart, HI_LO, 250),
    "runs and halves": Plant("showdown_core.settlement:_divide", _leftover_to_the_last_runs, RUNS, 250),
    "runs and halves (hi-lo)": Plant("showdown_core.settlement:_divide", _odd_chip_to_the_low_half, HI_LO, 250),
    "winners (runs)": Plant("showdown_core.settlement:_divide", _every_run_by_the_first_board, RUNS, 250),
    "busts": Plant("showdown_core.settlement:_busts", _busts_in_seat_order, {"stacks": True}),
    "hidden cards": Plant(f"{__name__}:settle", _tampered(_show_folded_hands), {}),
    "one live player": Plant(f"{__name__}:settle", _tampered(_show_the_lone_winner), {"folding": True}),
    "uncalled bet": Plant("showdown_core.settlement:build_pots", _pots_without_returns, {}),
}


def _sample(deal: dict[str, Any], hands: int) -> Iterator[dict[str, Any]]:
    rng = random.Random(2026)
    for i in range(hands):
        yield deal_hand(rng, f"S-{i}", **deal)


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_each_property_catches_the_bug_planted_for_it(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    plant = PLANTED[name]
    check = CHECKS[name.split(" (", maxsplit=1)[0]]
    docs = list(_sample(plant.deal, plant.hands))
    for doc in docs:  # the check holds for the real settlement...
        check(outcome(doc))
    module, _, attribute = plant.target.partition(":")
    owner: Any = sys.modules[module]
    if "." in attribute:
        cls, attribute = attribute.split(".")
        owner = getattr(owner, cls)
    monkeypatch.setattr(owner, attribute, plant.bug)
    caught = 0
    for doc in docs:  # ...and fails once the bug is planted
        try:
            check(outcome(doc))
        except AssertionError:
            caught += 1
    assert caught > 0, f"the {name} check passed {len(docs)} hands with the bug planted"


def test_the_dealer_reaches_every_situation_the_properties_are_about() -> None:
    """The properties are only as good as the hands they see: count what 2,000 dealt hands contain."""
    rng = random.Random(7)
    seen: dict[str, int] = dict.fromkeys(
        ("side pots", "split", "odd chips", "stud odd chips", "rake", "dead money", "uncontested", "returned",
         "busts", "shared finish", "muck", "folded cards", "empty button seat", "heads-up", "ten players"),
        0,
    )  # fmt: skip
    for i in range(2000):
        doc = deal_hand(rng, f"C-{i}")
        o = outcome(doc)
        pots = o.settlement.pots
        odd = any(len(p.winners) > 1 and (p.amount - p.rake) % len(p.winners) for p in pots)
        players = doc["players"]
        flags = {
            "side pots": len(pots) > 1,
            "split": any(len(p.winners) > 1 for p in pots),
            "odd chips": odd,
            "stud odd chips": odd and doc["variant"] == "stud",
            "rake": bool(doc.get("rake")),
            "dead money": any(p.get("dead_money") for p in players),
            "uncontested": len(o.live) == 1,
            "returned": bool(o.settlement.returned),
            "busts": bool(o.settlement.busts),
            "shared finish": len({b.finish for b in o.settlement.busts}) < len(o.settlement.busts),
            "muck": any(
                p.get("folded") and p["contributed"] == max(q["contributed"] for q in players) for p in players
            ),
            "folded cards": any(p.get("folded") and p.get("hole_cards") for p in players),
            "empty button seat": doc.get("button_seat") not in (None, *[p["seat"] for p in players]),
            "heads-up": len(players) == 2,
            "ten players": len(players) == 10,
        }
        for name, hit in flags.items():
            seen[name] += hit
    rare = {name: count for name, count in seen.items() if count < 10}  # each in at least 1 hand of 200
    assert not rare, f"the dealer rarely reaches {rare}"


def test_the_dealer_reaches_every_game_and_every_division_the_properties_are_about() -> None:
    """Every game, Omaha's card counts, runs, hi-lo halves (shared, scooped, won as one, without a low) and
    odd chips in each kind of division, in 1,500 hands of every game."""
    rng = random.Random(8)
    seen: Counter[str] = Counter()
    for i in range(1500):
        doc = deal_hand(rng, f"E-{i}", games=EVERY_GAME)
        seen.update(situations(doc, outcome(doc).settlement))
    wanted = (
        *EVERY_GAME,
        *(f"omaha, {n} cards" for n in (4, 5, 6)),
        *(f"omaha_hilo, {n} cards" for n in (4, 5)),
        "run 2 times",
        "run 3 times",
        "chips left over between runs",
        "odd chips (stud games)",
        "odd chip of a hi-lo split",
        "hi-lo halves won by the same hands (as one)",
        "hi-lo half shared (quartered)",
        "hi-lo scoop of both halves",
        "hi-lo without a qualifying low (scoop)",
    )
    rare = {name: seen[name] for name in wanted if seen[name] < 5}  # each in at least 1 hand of 300
    assert not rare, f"the dealer rarely reaches {rare}"
