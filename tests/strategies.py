"""Showdown events dealt from real betting, for property tests and the differential test.

:func:`deal_hand` plays a hand of any game of ``VARIANT_SHAPES``: seats and
starting stacks, antes, blinds (board and draw games) or a stud bring-in, a
big-blind ante or a dead blind as ``dead_money``, betting rounds of checks,
calls, raises, all-ins for less and folds, then the showdown (with mucks) or
a hand won uncontested, cards from one deck (36 cards, sixes up, in short
deck), and an optional rake. Each game is dealt its own cards: hold'em and
short deck 2, Omaha 4, 5 or 6 (the same for every player of a hand; hi-lo 4
or 5), stud games 7, five-card draw and deuce-to-seven 5, badugi 4. A board
game whose players were all in before the river is sometimes run two or
three times (``boards``: the cards dealt before the all-in start every
board). Every event it returns is a valid ShowdownEvent; one that is not is
a bug here.

Called without ``variant`` or ``games`` it deals the classic mix, hold'em
(80%) and stud (20%), run once, exactly as it always has; ``games=EVERY_GAME``
deals every game alike.

It takes a :class:`random.Random`, so the same dealer serves hypothesis
(:func:`events` passes ``st.randoms()``, which hypothesis drives and shrinks)
and the differential test (a plain seeded ``Random``: fast, 100,000 hands).

Ties are forced, not hoped for: the board plays (a royal flush, a broadway
straight no hand can improve, four aces and a king), or several players
hold the same ranks in other suits (hold'em and Omaha own cards; all seven
stud cards; a draw hand), with lows made likely in the low games (three low
board cards and two more in the hands, five low stud cards, two wheels).
Chip amounts are odd often enough (1/3 blinds, odd antes, odd stacks) that
split pots, halves and runs leave odd chips.

The module also knows the spellings it writes (``10d``, ``as``, ``A♠``), so
tests can read its events back without the product's card code:
:func:`canonical`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final, Literal, get_args

from hypothesis import strategies as st

from showdown_rules import VARIANT_SHAPES

RANKS: Final = "23456789TJQKA"
"""Rank characters, deuce first (index + 2 is the rank's value)."""
SUITS: Final = "cdhs"
"""Suit characters, clubs first: the stud odd-chip order (clubs < diamonds < hearts < spades)."""
DECK: Final = tuple(r + s for r in RANKS for s in SUITS)
SHORT_DECK: Final = tuple(c for c in DECK if c[0] not in "2345")
"""The 36 cards of short deck (6+) hold'em."""
LOW_RANKS: Final = "A2345678"
"""The ranks of an 8-or-better low (ace low)."""
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

Variant = Literal[
    "holdem",
    "short_deck",
    "short_deck_straight_over_trips",
    "omaha",
    "omaha_hilo",
    "stud",
    "stud_hilo",
    "razz",
    "deuce_to_seven",
    "five_card_draw",
    "badugi",
]
EVERY_GAME: Final[tuple[Variant, ...]] = get_args(Variant)
"""Every game of ``VARIANT_SHAPES``, for ``deal_hand(games=...)``."""
STUD_GAMES: Final = frozenset(name for name, shape in VARIANT_SHAPES.items() if shape.odd_chip_by_card)
"""Seven cards each, a bring-in, no button."""
DRAW_GAMES: Final = frozenset(
    name for name, shape in VARIANT_SHAPES.items() if not shape.board_cards and not shape.odd_chip_by_card
)
"""A final hand of five (badugi four), blinds and a button, no board."""
STREETS: Final = {"board": (4,), "stud": (5,), "five_card_draw": (2,), "deuce_to_seven": (2, 4), "badugi": (4,)}
"""Betting rounds: board games preflop, flop, turn, river; stud third to seventh street; draw games before
and after each draw (deuce-to-seven single or triple draw)."""
MOST_PLAYERS: Final = {"board": 10, "stud": 7, "short_deck": 6, "draw": 6}
"""Seats dealt in: stud 7 (7 x 7 cards fit in one deck), 6-max short deck and draw tables; Omaha by its cards."""
OMAHA_MOST_PLAYERS: Final = {4: 9, 5: 6, 6: 6}
"""Omaha with 4, 5 or 6 cards: a full ring, 6-max (the cards and a board run three times fit in one deck)."""
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
    games: Sequence[Variant] | None = None,
    tie: bool | None = None,
    stacks: bool | None = None,
    rake: bool | None = None,
    folding: bool | None = None,
    runs: bool | None = None,
) -> dict[str, Any]:
    """A ShowdownEvent (as a JSON-ready dict) of one hand played out with ``rng``.

    Keywords force a feature on or off (``None``: dealt at random):
    ``variant`` (else one of ``games``, alike; without ``games`` the classic
    mix: hold'em 80%, stud 20%); ``tie`` (cards that make live hands tie);
    ``stacks`` (starting stacks in the event, so busts are reported);
    ``rake``; ``folding`` (a table that folds a lot: most hands end
    uncontested); ``runs`` (a board game whose live players were all in
    before the river is run two or three times, as ``boards``; ``None``:
    a third of those hands, and never in the classic mix, whose readers
    expect ``board``).
    """
    classic = variant is None and games is None
    if variant is not None:
        game = variant
    elif games is None:
        game = "stud" if rng.random() < 0.2 else "holdem"
    else:
        game = rng.choice(games)
    variant = game
    shape = VARIANT_SHAPES[variant]
    kind = "stud" if variant in STUD_GAMES else "draw" if variant in DRAW_GAMES else "board"
    if stacks is None:
        stacks = rng.random() < 0.6
    if tie is None:
        tie = rng.random() < 0.3
    if rake is None:
        rake = rng.random() < 0.3
    if folding is None:
        folding = rng.random() < 0.2
    holes = rng.choice(shape.hole_cards) if len(shape.hole_cards) > 1 else shape.hole_cards[0]
    count = rng.randint(2, _most_players(variant, kind, holes))
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
    rounds = STREETS[variant if variant in STREETS else kind]
    streets = rng.choice(rounds) if len(rounds) > 1 else rounds[0]
    button = None
    if kind != "stud":
        empty = [s for s in range(1, SEATS + 1) if s not in seats]
        button = rng.choice(empty) if empty and rng.random() < 0.15 else rng.choice(seats)
        order = sorted(players, key=lambda p: (p.seat - button - 1) % SEATS)  # clockwise from left of the button
        first, opening = _post_blinds(rng, order, small, big, button)
    else:
        start = rng.randrange(count)
        order = players[start:] + players[:start]
        first, opening = _post_stud_bring_in(rng, order, small, big)
    street, all_in = _play_streets(rng, streets, kind == "stud", order, first, opening, big, style)
    _maybe_return_uncalled(rng, players)
    if sum(not p.folded for p in players) > 1:
        _muck_some(rng, players)
        street = streets - 1
    times = 1
    if kind == "board" and all_in is not None and sum(not p.folded for p in players) > 1:
        if runs is None:
            runs = not classic and rng.random() < 1 / 3
        if runs:
            times = rng.choice((2, 2, 3))
    shared = _SHARED_BEFORE[all_in] if times > 1 and all_in is not None else 0
    boards = _deal_cards(rng, variant, players, street, tie, holes, times, shared)
    doc: dict[str, Any] = {
        "schema_version": 1,
        "hand_id": hand_id,
        "table_id": f"T-{rng.randint(1, 40)}",
        "variant": variant,
    }
    if len(boards) > 1:
        doc["boards"] = boards
    else:
        doc["board"] = boards[0]
    doc["players"] = [_player_doc(rng, p, stacks) for p in players]
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


_SHARED_BEFORE: Final = (0, 0, 3, 4)
"""Board cards dealt before the all-in, by the first betting round the all-in players skipped (0: all in on
the blinds, 1: preflop, 2: on the flop, 3: on the turn): they start every board of a hand run again."""


def _most_players(variant: Variant, kind: str, holes: int) -> int:
    if variant in ("omaha", "omaha_hilo"):
        return OMAHA_MOST_PLAYERS[holes]
    if VARIANT_SHAPES[variant].lowest_rank > 2:
        return MOST_PLAYERS["short_deck"]
    return MOST_PLAYERS[kind]


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


def _post_blinds(rng: random.Random, order: list[_Player], small: int, big: int, button: int) -> tuple[int, _Round]:
    """Board and draw games: antes, blinds, a big-blind ante or a dead blind; the first to act (index in
    ``order``) and the open round."""
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
    rng: random.Random, streets: int, stud: bool, order: list[_Player], first: int, rnd: _Round, big: int, style: _Style
) -> tuple[int, int | None]:
    """Every betting round until one player is left or the last round ends. Returns the last round played
    and the first round the live players skipped because they were all in (``None``: they never were)."""
    street = 0
    all_in: int | None = None
    for street in range(streets):
        live = [p for p in order if not p.folded]
        if len(live) == 1:
            return max(0, street - 1), all_in
        if street:
            rnd = _Round(bet=0, min_raise=big, put_in={p.seat: 0 for p in order})
            first = rng.randrange(len(order)) if stud else 0
        able = [p for p in live if p.behind]
        if not able or (len(able) == 1 and rnd.put_in[able[0].seat] >= rnd.bet):
            if all_in is None:
                all_in = street
            continue  # everybody (but one, who owes nothing) is all-in: the cards are run out
        _betting_round(rng, order, first, rnd, style, street)
    return street, all_in


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


def _deal_cards(
    rng: random.Random,
    variant: Variant,
    players: list[_Player],
    street: int,
    tie: bool,
    holes: int,
    times: int = 1,
    shared: int = 0,
) -> list[list[str]]:
    """Give every player the cards the event shows (forcing a tie when asked); returns the board, or the
    ``times`` boards of a hand run again (their first ``shared`` cards alike)."""
    live = [p for p in players if not p.folded]
    contested = len(live) > 1
    used: set[str] = set()
    deck = SHORT_DECK if VARIANT_SHAPES[variant].lowest_rank > 2 else DECK
    boards: list[list[str]] = [[]]
    if variant in STUD_GAMES:
        if contested and tie:
            _tie_stud(rng, variant, live, used)
        for p in live:
            if p.cards is None:
                held = 7 if contested else rng.choice((0, min(street + 1, 4), street + 3))
                p.cards = _draw(rng, used, held) if held else None
        for p in players:
            if p.folded and p.cards is None:
                had = 7 if p.street_folded < 0 else p.street_folded + 3
                known = min(rng.choice((0, min(had - 2, 4), had)), len(deck) - len(used))
                p.cards = _draw(rng, used, known) if known else None
    elif variant in DRAW_GAMES:
        if contested and tie:
            _tie_draw(rng, variant, live, used, holes)
        for p in live:
            if p.cards is None:
                held = holes if contested else rng.choice((0, 1, holes))
                p.cards = _draw(rng, used, held) if held else None
        for p in players:
            if p.folded and p.cards is None:
                known = rng.choice((0, 0, 2, holes))
                p.cards = _draw(rng, used, known) if known else None
    else:
        board: list[str] = []
        board_size = 5 if contested else (0, 3, 4, 5)[min(street, 3)]
        if contested and tie:
            if holes == 2:
                board = _tie_holdem(rng, live, used, "".join(dict.fromkeys(c[0] for c in deck)))
            else:
                board = _tie_omaha(rng, variant, live, used, holes)
        if len(board) < board_size:
            board += _draw(rng, used, board_size - len(board), deck)
        for p in live:
            if p.cards is None:
                held = holes if contested else rng.choice((0, 1, holes, holes, holes))
                p.cards = _draw(rng, used, held, deck) if held else None
        for p in players:
            if p.folded and p.cards is None:
                known = rng.choice((0, 0, 1, holes, holes))
                p.cards = _draw(rng, used, known, deck) if known else (None if rng.random() < 0.9 else [])
        while times > 1 and len(deck) - len(used) < (times - 1) * (5 - shared):
            times -= 1  # not enough cards left to run it again: as a dealer would, run it fewer times
        boards = [board] + [board[:shared] + _draw(rng, used, 5 - shared, deck) for _ in range(times - 1)]
    for p in players:
        if p.cards:
            p.cards = [_spell(rng, card) for card in p.cards]
    return [[_spell(rng, card) for card in board] for board in boards]


def _draw(rng: random.Random, used: set[str], count: int, deck: Sequence[str] = DECK) -> list[str]:
    cards = rng.sample([c for c in deck if c not in used], count)
    used.update(cards)
    return cards


def _tie_holdem(rng: random.Random, live: list[_Player], used: set[str], ranks: str = RANKS) -> list[str]:
    """A board that plays for everyone, or the same hole ranks (of ``ranks``: the deck's) in other suits for
    2-4 players. (In short deck, where trips beat a straight, a pocket pair of a broadway board's rank beats
    the board: a tie broken, now and then.)"""
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
        pair = rng.choice(ranks)
        tied[0].cards = [pair + suits[0], pair + suits[1]]
        tied[1].cards = [pair + suits[2], pair + suits[3]]
    else:  # the same two ranks; each rank's suits differ between the players, so the cards are distinct
        high, low = rng.sample(ranks, 2)
        turn = rng.randrange(4)
        for i, p in enumerate(tied):
            p.cards = [high + suits[i], low + suits[(i + turn) % 4]]
    for p in tied:
        used.update(p.cards or ())
    return []


def _tie_stud(rng: random.Random, variant: Variant, live: list[_Player], used: set[str]) -> None:
    """2-4 players with the same seven ranks in rotated suits (two or fewer of a suit each: no flush); in the
    low games often five low ranks (the same low for all), or A-2-3-4-5 (two wheels, high and low)."""
    tied = rng.sample(live, rng.randint(2, min(4, len(live))))
    if variant == "stud" or rng.random() < 0.3:
        ranks = rng.sample(RANKS, 7)
    else:
        low = list("A2345") if rng.random() < 0.4 else rng.sample(LOW_RANKS, 5)
        ranks = low + rng.sample([r for r in RANKS if r not in low], 2)
        rng.shuffle(ranks)
    _rotate(rng, tied, ranks, used)


def _tie_draw(rng: random.Random, variant: Variant, live: list[_Player], used: set[str], holes: int) -> None:
    """2-4 players with the same final ranks in rotated suits (no flush; in badugi four suits, a badugi),
    often low ranks in the low games (a seven-low in deuce-to-seven, ace low in badugi)."""
    tied = rng.sample(live, rng.randint(2, min(4, len(live))))
    pool = {"deuce_to_seven": "2345678", "badugi": LOW_RANKS}.get(variant, RANKS)
    ranks = rng.sample(pool if rng.random() < 0.6 else RANKS, holes)
    _rotate(rng, tied, ranks, used)


def _tie_omaha(rng: random.Random, variant: Variant, live: list[_Player], used: set[str], holes: int) -> list[str]:
    """2-4 players with the same own ranks in rotated suits. In Omaha Hi/Lo often a board with three low
    ranks and two more low ranks in every tied hand (the same low), or A-5 beside a board's 2-3-4 (two
    wheels: the same hands win both halves); returns the board (or none)."""
    tied = rng.sample(live, rng.randint(2, min(4, len(live))))
    board: list[str] = []
    if variant == "omaha_hilo" and rng.random() < 0.7:
        low = rng.sample("A2345" if rng.random() < 0.4 else LOW_RANKS, 5)
        on_board, own = low[:3], low[3:]
        rest = [r for r in RANKS if r not in on_board and r not in own]
        board_ranks = on_board + rng.sample(rest, 2)
        board = [r + rng.choice(SUITS) for r in board_ranks]
        rng.shuffle(board)
        used.update(board)
        rest = [r for r in rest if r not in board_ranks]
        ranks = own + rng.sample(rest, holes - 2)
        rng.shuffle(ranks)
    else:
        ranks = rng.sample(RANKS, holes)
    _rotate(rng, tied, ranks, used)
    return board


def _rotate(rng: random.Random, tied: list[_Player], ranks: list[str], used: set[str]) -> None:
    """Each tied player holds ``ranks`` (distinct, none of them on the board), suits rotated one step per
    player: the cards are distinct, and nobody holds more than two of a suit in seven cards."""
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
