"""Showdown events dealt from real betting, for property tests and the differential test.

:func:`deal_hand` plays a hand: seats and starting stacks, antes, blinds (or a
stud bring-in), a big-blind ante or a dead blind as ``dead_money``, betting
rounds of checks, calls, raises, all-ins for less and folds, then the
showdown (with mucks) or a hand won uncontested, cards from one deck, and an
optional rake. Every event it returns is a valid ShowdownEvent; one that is
not is a bug here.

It takes a :class:`random.Random`, so the same dealer serves hypothesis
(:func:`events` passes ``st.randoms()``, which hypothesis drives and shrinks)
and the differential test (a plain seeded ``Random``: fast, 100,000 hands).

Ties are forced, not hoped for: the board plays (a royal flush, a broadway
straight no hand can improve, four aces and a king), or several players
hold the same ranks in other suits (hold'em hole cards; all seven stud
cards). Chip amounts are odd often enough (1/3 blinds, odd antes, odd
stacks) that split pots leave odd chips.

The module also knows the spellings it writes (``10d``, ``as``, ``A♠``), so
tests can read its events back without the product's card code:
:func:`canonical`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final, Literal

from hypothesis import strategies as st

RANKS: Final = "23456789TJQKA"
"""Rank characters, deuce first (index + 2 is the rank's value)."""
SUITS: Final = "cdhs"
"""Suit characters, clubs first: the stud odd-chip order (clubs < diamonds < hearts < spades)."""
DECK: Final = tuple(r + s for r in RANKS for s in SUITS)
PPM: Final = 1_000_000
SEATS: Final = 10

_RANK_SPELLINGS: Final = {"T": ("T", "10", "t"), "J": ("J", "j"), "Q": ("Q", "q"), "K": ("K", "k"), "A": ("A", "a")}
_SUIT_SPELLINGS: Final = {"c": ("c", "C", "♣"), "d": ("d", "D", "♦"), "h": ("h", "H", "♥"), "s": ("s", "S", "♠")}
_READ_RANK: Final = {spelling: r for r, spellings in _RANK_SPELLINGS.items() for spelling in spellings} | {
    r: r for r in RANKS
}
_READ_SUIT: Final = {spelling: s for s, spellings in _SUIT_SPELLINGS.items() for spelling in spellings} | {
    symbol + "\ufe0f": s for s, (_, _, symbol) in _SUIT_SPELLINGS.items()
}

Variant = Literal["holdem", "stud"]
STREETS: Final = {"holdem": 4, "stud": 5}
"""Betting rounds: hold'em preflop, flop, turn, river; stud third to seventh street."""
BLINDS: Final = ((1, 2), (1, 3), (2, 5), (5, 10), (10, 25), (25, 50), (50, 100), (100, 200))
"""Small and big blind (stud: bring-in and completion), odd pairs included."""


def canonical(text: str) -> str:
    """The canonical text (``As``) of a card as this module may spell it (``a♠``, ``10d``, ``A♠\\ufe0f``)."""
    rank = "T" if text.startswith("10") else text[0]
    return _READ_RANK[rank] + _READ_SUIT[text[2:] if text.startswith("10") else text[1:]]


def round_half_even(value: Fraction) -> int:
    """``value`` rounded to the nearest whole number, halves to even (Python's ``round`` on a Fraction)."""
    return round(value)


@dataclass
class _Player:
    seat: int
    player_id: str
    stack: int
    behind: int
    contributed: int = 0
    dead: int = 0
    folded: bool = False
    street_folded: int = -1
    """The betting round in which the seat folded (-1: it did not, or it mucked at showdown)."""
    cards: list[str] | None = None

    def put(self, chips: int) -> int:
        """Put up to ``chips`` into the pot from what is behind; returns what went in."""
        chips = min(chips, self.behind)
        self.behind -= chips
        self.contributed += chips
        return chips


@dataclass
class _Style:
    """How the table plays this hand."""

    fold: float
    aggression: float
    shove: float


@dataclass
class _Round:
    """One betting round in progress."""

    bet: int
    min_raise: int
    put_in: dict[int, int] = field(default_factory=dict)


def deal_hand(
    rng: random.Random,
    hand_id: str = "H-1",
    *,
    variant: Variant | None = None,
    tie: bool | None = None,
    stacks: bool | None = None,
    rake: bool | None = None,
    folding: bool | None = None,
) -> dict[str, Any]:
    """A ShowdownEvent (as a JSON-ready dict) of one hand played out with ``rng``.

    Keywords force a feature on or off (``None``: dealt at random):
    ``variant``; ``tie`` (cards that make live hands tie); ``stacks``
    (starting stacks in the event, so busts are reported); ``rake``;
    ``folding`` (a table that folds a lot: most hands end uncontested).
    """
    if variant is None:
        variant = "stud" if rng.random() < 0.2 else "holdem"
    if stacks is None:
        stacks = rng.random() < 0.6
    if tie is None:
        tie = rng.random() < 0.3
    if rake is None:
        rake = rng.random() < 0.3
    if folding is None:
        folding = rng.random() < 0.2
    count = rng.randint(2, 7 if variant == "stud" else SEATS)  # stud: 7 x 7 cards fit in one deck
    seats = sorted(rng.sample(range(1, SEATS + 1), count))
    small, big = rng.choice(BLINDS)
    players = [
        _Player(s, _player_id(rng, s), stack, stack) for s, stack in zip(seats, _stacks(rng, count, big), strict=True)
    ]
    style = _Style(
        fold=rng.choice((0.5, 0.7)) if folding else rng.choice((0.05, 0.15, 0.3)),
        aggression=rng.choice((0.1, 0.25, 0.45)),
        shove=rng.choice((0.1, 0.3, 0.6)),
    )
    button = None
    if variant == "holdem":
        empty = [s for s in range(1, SEATS + 1) if s not in seats]
        button = rng.choice(empty) if empty and rng.random() < 0.15 else rng.choice(seats)
        order = sorted(players, key=lambda p: (p.seat - button - 1) % SEATS)  # clockwise from left of the button
        first, opening = _post_holdem_blinds(rng, order, small, big, button)
    else:
        start = rng.randrange(count)
        order = players[start:] + players[:start]
        first, opening = _post_stud_bring_in(rng, order, small, big)
    street = _play_streets(rng, variant, order, first, opening, big, style)
    _maybe_return_uncalled(rng, players)
    if sum(not p.folded for p in players) > 1:
        _muck_some(rng, players)
        street = STREETS[variant] - 1
    board = _deal_cards(rng, variant, players, street, tie)
    doc: dict[str, Any] = {
        "schema_version": 1,
        "hand_id": hand_id,
        "table_id": f"T-{rng.randint(1, 40)}",
        "variant": variant,
        "board": board,
        "players": [_player_doc(rng, p, stacks) for p in players],
    }
    if button is not None:
        doc["button_seat"] = button
    if rake:
        _add_rake(rng, doc, big)
    if stacks and not doc.get("rake") and rng.random() < 0.5:
        doc["tournament_id"] = f"MTT-{rng.randint(1, 9)}"
    if rng.random() < 0.2:
        doc["occurred_at"] = "2026-11-22T12:00:00Z"
    return doc


def events(**knobs: Any) -> st.SearchStrategy[dict[str, Any]]:
    """Hypothesis strategy: hands from :func:`deal_hand` (same keywords), each with its own hand_id."""
    return st.builds(
        lambda rng, n: deal_hand(rng, f"H-{n}", **knobs),
        st.randoms(use_true_random=False),
        st.integers(1, 10**9),
    )


# --- the table ------------------------------------------------------------------------------------


def _player_id(rng: random.Random, seat: int) -> str:
    style = rng.randrange(4)
    return (f"p{seat}", f"player-{seat:02d}", f"José {seat}", f"李{seat}")[style]


def _stacks(rng: random.Random, count: int, big: int) -> list[int]:
    """Starting stacks: deep, short (all-ins on the blinds), all equal, or a few shared values (tied busts)."""
    profile = rng.randrange(4)
    if profile == 0:
        return [rng.randint(20 * big, 200 * big) for _ in range(count)]
    if profile == 1:
        return [rng.randint(1, 12 * big) for _ in range(count)]
    if profile == 2:
        return [rng.randint(1, 30 * big)] * count
    values = [rng.randint(1, 40 * big) for _ in range(rng.randint(2, 3))]
    return [rng.choice(values) for _ in range(count)]


def _post_holdem_blinds(
    rng: random.Random, order: list[_Player], small: int, big: int, button: int
) -> tuple[int, _Round]:
    """Antes, blinds, a big-blind ante or a dead blind; the first to act (index in ``order``) and the open round."""
    ante = rng.choice((0, 0, 0, max(1, big // 10), big // 4 + 1))
    for p in order:
        p.put(ante)
    if len(order) == 2 and order[1].seat == button:  # heads-up: the button posts the small blind and acts first
        sb, bb, first = order[1], order[0], 1
    else:
        sb, bb, first = order[0], order[1], 2 % len(order)
    preflop = _Round(bet=big, min_raise=big, put_in={p.seat: 0 for p in order})
    preflop.put_in[sb.seat] = sb.put(small)
    preflop.put_in[bb.seat] = bb.put(big)
    if not ante and rng.random() < 0.25:  # big-blind ante, paid after the blind: dead money, toward no level
        bb.dead = min(big, bb.behind)
        bb.behind -= bb.dead
    if len(order) > 3 and rng.random() < 0.08:  # a returning player posts a dead small blind
        late = order[rng.randrange(2, len(order))]
        late.dead = min(small, late.behind)
        late.behind -= late.dead
    return first, preflop


def _post_stud_bring_in(rng: random.Random, order: list[_Player], small: int, big: int) -> tuple[int, _Round]:
    """Antes for all and the bring-in; the first to act (index in ``order``) and the open round."""
    ante = rng.choice((max(1, big // 5), big // 4 + 1, small))
    for p in order:
        p.put(ante)
    bring_in = rng.randrange(len(order))
    third = _Round(bet=small, min_raise=big, put_in={p.seat: 0 for p in order})
    third.put_in[order[bring_in].seat] = order[bring_in].put(small)
    return (bring_in + 1) % len(order), third


def _play_streets(
    rng: random.Random, variant: Variant, order: list[_Player], first: int, rnd: _Round, big: int, style: _Style
) -> int:
    """Every betting round until one player is left or the last round ends; returns the last round played."""
    street = 0
    for street in range(STREETS[variant]):
        live = [p for p in order if not p.folded]
        if len(live) == 1:
            return max(0, street - 1)
        if street:
            rnd = _Round(bet=0, min_raise=big, put_in={p.seat: 0 for p in order})
            first = rng.randrange(len(order)) if variant == "stud" else 0
        able = [p for p in live if p.behind]
        if not able or (len(able) == 1 and rnd.put_in[able[0].seat] >= rnd.bet):
            continue  # everybody (but one, who owes nothing) is all-in: the cards are run out
        _betting_round(rng, order, first, rnd, style, street)
    return street


def _betting_round(
    rng: random.Random, order: list[_Player], first: int, rnd: _Round, style: _Style, street: int
) -> None:
    """Act in turn until every live player who has chips has matched the bet (three raises at most)."""
    n = len(order)
    queue = [order[(first + k) % n] for k in range(n)]
    raises = 0
    while queue:
        p = queue.pop(0)
        if p.folded or not p.behind:
            continue
        if sum(not q.folded for q in order) == 1:
            return
        owe = rnd.bet - rnd.put_in[p.seat]
        roll = rng.random()
        facing = any(q.contributed > p.contributed for q in order if not q.folded)  # a real bet, not a short blind
        if owe > 0 and facing and roll < style.fold:
            p.folded, p.street_folded = True, street
            continue
        if raises < 3 and roll > 1 - style.aggression:
            if rng.random() < style.shove:
                amount = p.behind
            else:
                target = (
                    rnd.bet
                    + rnd.min_raise * rng.choice((1, 1, 2, 3))
                    + rng.choice((0, 0, rng.randint(0, rnd.min_raise)))
                )
                amount = target - rnd.put_in[p.seat]
            rnd.put_in[p.seat] += p.put(amount)
            now = rnd.put_in[p.seat]
            if now > rnd.bet:
                rnd.min_raise = max(rnd.min_raise, now - rnd.bet)
                rnd.bet = now
                raises += 1
                at = order.index(p)
                queue = [order[(at + k) % n] for k in range(1, n)]  # everyone else acts again
            continue
        rnd.put_in[p.seat] += p.put(owe)  # check, call, or call all-in for less


def _maybe_return_uncalled(rng: random.Random, players: list[_Player]) -> None:
    """Half the time the dealer hands back an uncalled bet before the event is sent (else the service does)."""
    top = max(players, key=lambda p: p.contributed)
    second = max((p.contributed for p in players if p is not top), default=0)
    if top.contributed > second and rng.random() < 0.5:
        back = top.contributed - second
        top.contributed -= back
        top.behind += back


def _muck_some(rng: random.Random, players: list[_Player]) -> None:
    """Sometimes players muck at showdown (a muck forfeits); one live holder of the top contribution never does."""
    if rng.random() >= 0.2:
        return
    top = max(p.contributed for p in players)
    live = [p for p in players if not p.folded]
    keeper = rng.choice([p for p in live if p.contributed == top])
    others = [p for p in live if p is not keeper]
    for p in rng.sample(others, rng.randint(1, len(others))):
        p.folded = True


# --- the cards ------------------------------------------------------------------------------------


def _deal_cards(rng: random.Random, variant: Variant, players: list[_Player], street: int, tie: bool) -> list[str]:
    """Give every player the cards the event shows (forcing a tie when asked); returns the board."""
    live = [p for p in players if not p.folded]
    contested = len(live) > 1
    used: set[str] = set()
    board: list[str] = []
    if variant == "holdem":
        board_size = 5 if contested else (0, 3, 4, 5)[min(street, 3)]
        if contested and tie:
            board = _tie_holdem(rng, live, used)
        if len(board) < board_size:
            board += _draw(rng, used, board_size - len(board))
        for p in live:
            if p.cards is None:
                held = 2 if contested else rng.choice((0, 1, 2, 2, 2))
                p.cards = _draw(rng, used, held) if held else None
        for p in players:
            if p.folded and p.cards is None:
                known = rng.choice((0, 0, 1, 2, 2))
                p.cards = _draw(rng, used, known) if known else (None if rng.random() < 0.9 else [])
    else:
        if contested and tie:
            _tie_stud(rng, live, used)
        for p in live:
            if p.cards is None:
                held = 7 if contested else rng.choice((0, min(street + 1, 4), street + 3))
                p.cards = _draw(rng, used, held) if held else None
        for p in players:
            if p.folded and p.cards is None:
                had = 7 if p.street_folded < 0 else p.street_folded + 3
                known = min(rng.choice((0, min(had - 2, 4), had)), 52 - len(used))
                p.cards = _draw(rng, used, known) if known else None
    for p in players:
        if p.cards:
            p.cards = [_spell(rng, card) for card in p.cards]
    return [_spell(rng, card) for card in board]


def _draw(rng: random.Random, used: set[str], count: int) -> list[str]:
    cards = rng.sample([c for c in DECK if c not in used], count)
    used.update(cards)
    return cards


def _tie_holdem(rng: random.Random, live: list[_Player], used: set[str]) -> list[str]:
    """A board that plays for everyone, or the same hole ranks in other suits for 2-4 players."""
    if rng.random() < 0.4:
        kind = rng.randrange(3)
        if kind == 0:  # a royal flush
            suit = rng.choice(SUITS)
            board = [r + suit for r in "AKQJT"]
        elif kind == 1:  # broadway, at most two of a suit: no flush, no full house, no quads possible
            suits = list(rng.sample(SUITS, 3))
            suits = [suits[0], suits[0], suits[1], suits[1], suits[2]]
            rng.shuffle(suits)
            board = [r + s for r, s in zip("AKQJT", suits, strict=True)]
        else:  # four aces and a king: nobody has a better kicker
            board = ["Ac", "Ad", "Ah", "As", "K" + rng.choice(SUITS)]
        rng.shuffle(board)
        used.update(board)
        return board
    tied = rng.sample(live, rng.randint(2, min(4, len(live))))
    suits = list(SUITS)
    rng.shuffle(suits)
    if len(tied) == 2 and rng.random() < 0.25:  # the same pocket pair
        pair = rng.choice(RANKS)
        tied[0].cards = [pair + suits[0], pair + suits[1]]
        tied[1].cards = [pair + suits[2], pair + suits[3]]
    else:  # the same two ranks; each rank's suits differ between the players, so the cards are distinct
        high, low = rng.sample(RANKS, 2)
        turn = rng.randrange(4)
        for i, p in enumerate(tied):
            p.cards = [high + suits[i], low + suits[(i + turn) % 4]]
    for p in tied:
        used.update(p.cards or ())
    return []


def _tie_stud(rng: random.Random, live: list[_Player], used: set[str]) -> None:
    """2-4 players with the same seven ranks in rotated suits (two or fewer of a suit each: no flush)."""
    tied = rng.sample(live, rng.randint(2, min(4, len(live))))
    ranks = rng.sample(RANKS, 7)
    offset = rng.randrange(4)
    for i, p in enumerate(tied):
        p.cards = [r + SUITS[(i + j + offset) % 4] for j, r in enumerate(ranks)]
        used.update(p.cards)


def _spell(rng: random.Random, card: str) -> str:
    """Usually the canonical text; sometimes another accepted spelling (the event must canonicalise it)."""
    if rng.random() >= 0.05:
        return card
    rank, suit = card[0], card[1]
    spelled_rank = rng.choice(_RANK_SPELLINGS.get(rank, (rank,)))
    spelled_suit = rng.choice(_SUIT_SPELLINGS[suit])
    if spelled_suit in "♣♦♥♠" and rng.random() < 0.3:
        spelled_suit += "\ufe0f"
    return spelled_rank + spelled_suit


# --- the event ------------------------------------------------------------------------------------


def _player_doc(rng: random.Random, p: _Player, stacks: bool) -> dict[str, Any]:
    doc: dict[str, Any] = {"seat": p.seat, "player_id": p.player_id, "contributed": p.contributed}
    if p.cards is not None or rng.random() < 0.3:
        doc["hole_cards"] = p.cards
    if p.folded or rng.random() < 0.5:
        doc["folded"] = p.folded
    if p.dead or rng.random() < 0.1:
        doc["dead_money"] = p.dead
    if stacks:
        doc["stack"] = p.stack
    return doc


def pots_total(doc: dict[str, Any]) -> tuple[int, int]:
    """``(chips in the pots, uncalled bet)`` of an event: everything put in, less the top contribution's excess."""
    levels = sorted((p["contributed"] for p in doc["players"]), reverse=True)
    uncalled = levels[0] - levels[1]
    put_in = sum(p["contributed"] + p.get("dead_money", 0) for p in doc["players"])
    return put_in - uncalled, uncalled


def _add_rake(rng: random.Random, doc: dict[str, Any], big: int) -> None:
    """A rake the event allows: a stated rate (often capped), or an amount alone."""
    pots, _ = pots_total(doc)
    if not pots:
        return
    if rng.random() < 0.5:
        ppm = rng.choice((25_000, 45_000, 50_000, 100_000, rng.randint(0, PPM)))
        most = round_half_even(Fraction(ppm * pots, PPM))
        cap = rng.choice((None, None, big, 3 * big))
        doc["rake_ppm"] = ppm
        doc["rake"] = most if cap is None else min(most, cap)
    else:
        doc["rake"] = min(pots, round_half_even(Fraction(pots * rng.choice((1, 3, 5, 10, 100)), 100)))
