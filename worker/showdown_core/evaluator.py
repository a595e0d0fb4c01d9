"""Best five of five to seven cards.

How it works. Every poker hand falls into one of 7,462 classes (all hands
of a class tie). They are enumerated once, weakest first, as interned
:class:`HandValue` objects whose ``strength`` is their position (1 = 7-5-4-3-2
offsuit, 7462 = royal flush): comparing strengths compares hands.

Each :class:`~showdown_core.cards.Card` has a precomputed ``key`` and the sum
of a hand's keys identifies it: the high bits are a sum of rank keys, unique
per rank multiset (for seven cards, an index into a dense ``int16`` table of
strengths, 15.6 MB, shared with the numpy batch path; for five and six, a
dict); the low 8 bits are a sum of suit keys telling whether (and in which
suit) there is a flush. A flush hand (3% of 7-card hands) is looked up by the bit
mask of its flush suit's ranks instead. With seven cards a flush excludes
quads and full houses, so that lookup is final.

An evaluation is therefore ~7 attribute loads, 6 additions and 3 indexings,
and returns a prebuilt object. (Measured here: a dict lookup among the
49,205 seven-card multisets costs ~50 ns in cache misses, the dense table
~30 ns.)
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from itertools import combinations, combinations_with_replacement
from operator import attrgetter
from typing import Final

from showdown_core.cards import RANK_KEYS, RANK_LANES, SUIT_KEYS, SUIT_LANES, TALLY_SHIFT, Card, mask_of, take_ranks
from showdown_core.errors import InvalidEvent
from showdown_core.ordering import ByStrength


class Category(IntEnum):
    """Hand categories, weakest first."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8

    @property
    def wire(self) -> str:
        """The name used in messages: ``full_house``."""
        return self.name.lower()


RANK_NAMES: Final = {
    **{1: "Ace", 2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight"},
    **{9: "Nine", 10: "Ten", 11: "Jack", 12: "Queen", 13: "King", 14: "Ace"},
}
"""Rank (2..14; 1 is the ace playing low) -> its name for people."""
_PLURAL: Final = {r: n + "s" for r, n in RANK_NAMES.items()} | {6: "Sixes"}


def describe(category: Category, r: tuple[int, ...]) -> str:
    """A high hand for people, from its category and its five ranks in :attr:`HandValue.ranks` order."""
    name, plural = RANK_NAMES, _PLURAL
    match category:
        case Category.STRAIGHT_FLUSH:
            return "Royal flush" if r[0] == 14 else f"Straight flush, {name[r[0]]} high"
        case Category.FOUR_OF_A_KIND:
            return f"Four of a kind, {plural[r[0]]}, {name[r[4]]} kicker"
        case Category.FULL_HOUSE:
            return f"Full house, {plural[r[0]]} full of {plural[r[3]]}"
        case Category.FLUSH:
            return f"Flush, {name[r[0]]}-{name[r[1]]} high"
        case Category.STRAIGHT:
            return f"Straight, {name[r[0]]} high"
        case Category.THREE_OF_A_KIND:
            return f"Three of a kind, {plural[r[0]]}"
        case Category.TWO_PAIR:
            return f"Two pair, {plural[r[0]]} and {plural[r[2]]}, {name[r[4]]} kicker"
        case Category.ONE_PAIR:
            return f"Pair of {plural[r[0]]}"
        case _:
            return f"High card, {name[r[0]]}"


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class HandValue(ByStrength):
    """The value of a poker hand: one of 7,462 interned classes.

    Ordered by ``strength``: ``max()`` finds the winner, ``==`` finds ties.
    The 7,462 values in :data:`VALUES` are the only instances (building
    another raises), so equality and hashing are identity: C-speed, which
    matters to ``in`` and ``==`` on the hot path.
    """

    strength: int
    """1 (7-5-4-3-2 offsuit) .. 7462 (royal flush); higher wins, equal ties."""
    category: Category
    ranks: tuple[int, ...]
    """The five playing ranks, most significant first (full house KKK55: 13,13,13,5,5;
    the wheel: 5,4,3,2,14)."""
    description: str = field(init=False)
    """For people: ``Full house, Kings full of Fives``."""

    def __post_init__(self) -> None:
        if _SEALED:
            raise TypeError("HandValue is interned: use value_of(strength) or an evaluation, not the constructor")
        object.__setattr__(self, "description", describe(self.category, self.ranks))

    def __repr__(self) -> str:
        return f"HandValue({self.strength}, {self.description!r})"


# --- the 7,462 classes -------------------------------------------------------

_RANKS = range(2, 15)
_RANK_KEY_OF: Final = {r: RANK_KEYS[r - 2] for r in _RANKS}
_STRAIGHTS: Final = ((5, 4, 3, 2, 14), *(tuple(range(top, top - 5, -1)) for top in range(6, 15)))
"""Every straight, lowest (the wheel, five-high) first."""


def class_members(
    ranks: Sequence[int], straights: Sequence[tuple[int, ...]]
) -> dict[Category, Sequence[tuple[int, ...]]]:
    """Every five-card class of a deck of ``ranks``, by category, weakest first within each (the ranks of
    a class in :attr:`HandValue.ranks` order); ``straights`` lowest first. Categories are ordered by the
    caller: the standard order here, short deck's in :mod:`showdown_core.short_deck`."""
    desc = sorted(ranks, reverse=True)
    straight_sets = {frozenset(s) for s in straights}
    # combinations of a descending list are descending tuples; sorting them ascending is poker order
    no_straight = sorted(c for c in combinations(desc, 5) if frozenset(c) not in straight_sets)

    def kickers(n: int, *excluded: int) -> list[tuple[int, ...]]:
        return list(combinations([r for r in desc if r not in excluded], n))

    return {
        Category.HIGH_CARD: no_straight,
        Category.ONE_PAIR: sorted((p, p, *k) for p in desc for k in kickers(3, p)),
        Category.TWO_PAIR: sorted(
            (h, h, lo, lo, k) for h in desc for lo in desc if lo < h for (k,) in kickers(1, h, lo)
        ),
        Category.THREE_OF_A_KIND: sorted((t, t, t, *k) for t in desc for k in kickers(2, t)),
        Category.STRAIGHT: straights,
        Category.FLUSH: no_straight,
        Category.FULL_HOUSE: sorted((t, t, t, p, p) for t in desc for p in desc if p != t),
        Category.FOUR_OF_A_KIND: sorted((q, q, q, q, k) for q in desc for (k,) in kickers(1, q)),
        Category.STRAIGHT_FLUSH: straights,
    }


def _enumerate_classes() -> list[tuple[Category, tuple[int, ...]]]:
    members = class_members(_RANKS, _STRAIGHTS)
    return [(category, ranks) for category in Category for ranks in members[category]]


_SEALED = False
VALUES: Final[tuple[HandValue, ...]] = tuple(
    HandValue(strength, category, ranks) for strength, (category, ranks) in enumerate(_enumerate_classes(), start=1)
)
_SEALED = True
"""All 7,462 hand values, weakest first: ``VALUES[s - 1].strength == s``."""
_VALUE_OF: Final = {(v.category, v.ranks): v for v in VALUES}

CATEGORY_FLOORS: Final[tuple[int, ...]] = tuple(min(v.strength for v in VALUES if v.category == c) for c in Category)
"""Lowest strength of each category, by category: strength s is in the last category whose floor <= s."""


def value_of(strength: int) -> HandValue:
    """The hand value with this strength (1..7462)."""
    if not 1 <= strength <= len(VALUES):
        raise ValueError(f"strength must be 1..{len(VALUES)}, got {strength}")
    return VALUES[strength - 1]


# --- lookup tables -------------------------------------------------------------


def _straight_top(rank_bits: int) -> int:
    """Highest straight's top rank within a rank bit mask (bit r-2 = rank r), or 0."""
    with_low_ace = rank_bits << 1 | (rank_bits >> 12 & 1)  # bit r-1 = rank r, bit 0 = ace as one
    run = with_low_ace & with_low_ace >> 1 & with_low_ace >> 2 & with_low_ace >> 3 & with_low_ace >> 4
    return run.bit_length() + 4 if run else 0


def _straight_ranks(top: int) -> tuple[int, ...]:
    return _STRAIGHTS[top - 5]


def _best_without_flush(desc: Sequence[int]) -> HandValue:
    """Best hand from a multiset of ranks given in descending order (flushes aside)."""
    counts = [0] * 15
    for r in desc:
        counts[r] += 1
    distinct = sorted(set(desc), reverse=True)
    quads = [r for r in distinct if counts[r] == 4]
    trips = [r for r in distinct if counts[r] == 3]
    pairs = [r for r in distinct if counts[r] == 2]
    if quads:
        q = quads[0]
        k = next(r for r in distinct if r != q)
        return _VALUE_OF[Category.FOUR_OF_A_KIND, (q, q, q, q, k)]
    if trips and (len(trips) > 1 or pairs):
        t = trips[0]
        p = max(trips[1:] + pairs)
        return _VALUE_OF[Category.FULL_HOUSE, (t, t, t, p, p)]
    top = _straight_top(sum(1 << (r - 2) for r in distinct))
    if top:
        return _VALUE_OF[Category.STRAIGHT, _straight_ranks(top)]
    if trips:
        t = trips[0]
        return _VALUE_OF[Category.THREE_OF_A_KIND, (t, t, t, *[r for r in distinct if r != t][:2])]
    if len(pairs) > 1:
        h, lo = pairs[:2]
        k = next(r for r in distinct if r not in (h, lo))
        return _VALUE_OF[Category.TWO_PAIR, (h, h, lo, lo, k)]
    if pairs:
        p = pairs[0]
        return _VALUE_OF[Category.ONE_PAIR, (p, p, *[r for r in distinct if r != p][:3])]
    return _VALUE_OF[Category.HIGH_CARD, tuple(distinct[:5])]


def _best_flush(rank_bits: int) -> HandValue:
    """Best hand among 5+ cards of one suit, given their rank bit mask."""
    top = _straight_top(rank_bits)
    if top:
        return _VALUE_OF[Category.STRAIGHT_FLUSH, _straight_ranks(top)]
    desc = tuple(r for r in range(14, 1, -1) if rank_bits >> (r - 2) & 1)
    return _VALUE_OF[Category.FLUSH, desc[:5]]


def rank_multisets(size: int, lowest: int = 2) -> Iterator[tuple[int, tuple[int, ...]]]:
    """``(rank-key sum, ranks descending)`` of every multiset of ``size`` ranks from ``lowest`` to the ace,
    at most four of each. The sums are distinct for 5, 6 or 7 ranks (:data:`~showdown_core.cards.RANK_KEYS`)."""
    for desc in combinations_with_replacement(range(14, lowest - 1, -1), size):
        if all(desc[i] != desc[i + 4] for i in range(size - 4)):  # never five of a rank
            yield sum(_RANK_KEY_OF[r] for r in desc), desc


def _build_plain5() -> dict[int, HandValue]:
    return {key: _best_without_flush(desc) for key, desc in rank_multisets(5)}


def _build_plain(size: int, smaller: Callable[[int], int]) -> dict[int, int]:
    """Rank-key sum -> strength of the best hand (flushes aside), for ``size`` ranks.

    A multiset's best hand is the best among its multisets one rank smaller,
    whose strengths ``smaller`` gives by key (key subtraction drops a rank).
    """
    table: dict[int, int] = {}
    for key, desc in rank_multisets(size):
        if key in table:  # pragma: no cover - guards the key choice itself
            raise AssertionError(f"rank keys collide for {size} cards")
        table[key] = max(smaller(key - _RANK_KEY_OF[r]) for r in set(desc))
    return table


def _build_flush_suit(size: int) -> list[int]:
    """Suit-key sum of ``size`` cards -> the suit holding five or more of them, or -1."""
    table = [-2] * 256
    for a in range(size + 1):
        for b in range(size + 1 - a):
            for c in range(size + 1 - a - b):
                split = (a, b, c, size - a - b - c)
                total = sum(n * k for n, k in zip(split, SUIT_KEYS, strict=True))
                suit = next((s for s, n in enumerate(split) if n >= 5), -1)
                if table[total] not in (-2, suit):  # pragma: no cover - guards the key choice itself
                    raise AssertionError(f"suit keys are ambiguous for {size} cards")
                table[total] = suit
    return [-1 if s == -2 else s for s in table]


_PLAIN5: Final = _build_plain5()
_PLAIN6: Final = {k: VALUES[s - 1] for k, s in _build_plain(6, lambda k: _PLAIN5[k].strength).items()}
_STRENGTH7: Final = array("h", bytes(2 * 7_825_760))
"""Dense: rank-key sum of seven cards -> strength (0 where no multiset sums to it). 15.6 MB."""
for _key, _strength in _build_plain(7, lambda k: _PLAIN6[k].strength).items():
    _STRENGTH7[_key] = _strength
# Strength -> hand value. Index 0 is None: seven distinct cards never sum to a
# key whose table entry is 0, so typing it as HandValue keeps the hot path cast-free.
BY_STRENGTH: Final[tuple[HandValue, ...]] = (None, *VALUES)  # type: ignore[arg-type]

PLAIN: Final = {5: _PLAIN5, 6: _PLAIN6}
"""Five and six cards: rank-key sum -> best hand, flushes aside. (Seven: :data:`STRENGTH7`.)"""
STRENGTH7: Final = _STRENGTH7
FLUSH_SUIT: Final = {n: _build_flush_suit(n) for n in (5, 6, 7)}
"""Per card count: suit-key sum (key & 255) -> flush suit, or -1."""
FLUSHES: Final[list[HandValue | None]] = [_best_flush(m) if m.bit_count() >= 5 else None for m in range(1 << 13)]
"""Rank bit mask of the flush suit's cards -> best flush or straight flush."""

_FLUSH_SUIT7, _FLUSH_SUIT6, _FLUSH_SUIT5 = FLUSH_SUIT[7], FLUSH_SUIT[6], FLUSH_SUIT[5]


# --- evaluation ------------------------------------------------------------------


def _plain(size: int, rank_sum: int) -> HandValue:
    """Best hand (flushes aside) of ``size`` cards whose rank keys sum to ``rank_sum``."""
    return BY_STRENGTH[_STRENGTH7[rank_sum]] if size == 7 else PLAIN[size][rank_sum]


def _flush_value(cards: Iterable[Card], suit: int, *more: Card) -> HandValue:
    """The flush or straight flush in ``suit`` among ``cards`` and ``more`` (five or more of that suit)."""
    bits = 0
    for c in (*cards, *more):
        if c.suit == suit:
            bits |= c.bit
    value = FLUSHES[bits]
    assert value is not None  # the suit table guarantees five cards of the suit
    return value


def _duplicates(cards: Sequence[Card], where: str) -> InvalidEvent:
    seen: dict[Card, int] = {}
    for i, c in enumerate(cards):
        j = seen.setdefault(c, i)
        if j != i:
            return InvalidEvent.of("duplicate_card", f"{where}[{i}]", f"{c} is also {where}[{j}]")
    return InvalidEvent.of("duplicate_card", where, "holds a card twice")  # pragma: no cover


_RANK_SUM = (1 << 24) - 1
"""``tally_sum >> 8 & _RANK_SUM`` is the rank-key sum of up to 7 cards (their keys sum below 2**32)."""


def evaluate(cards: Sequence[Card]) -> HandValue:
    """Value of the best five of 5, 6 or 7 distinct cards.

    Raises :class:`~showdown_core.errors.InvalidEvent` (``duplicate_card``,
    ``bad_card``) for a repeated card or a count outside 5..7: other
    evaluators silently return nonsense for those.
    """
    try:
        a, b, c, d, e, f, g = cards  # the common case first: no len() dispatch
    except ValueError:
        return _evaluate_five_or_six(cards)
    t = a.tally + b.tally + c.tally + d.tally + e.tally + f.tally + g.tally
    if (t >> TALLY_SHIFT).bit_count() != 7:
        raise _duplicates(cards, "cards")
    suit = _FLUSH_SUIT7[t & 255]
    return BY_STRENGTH[_STRENGTH7[t >> 8 & _RANK_SUM]] if suit < 0 else _flush_value(cards, suit)


def _evaluate_five_or_six(cards: Sequence[Card]) -> HandValue:
    n = len(cards)
    if n not in (5, 6):
        raise InvalidEvent.of("bad_card", "cards", f"a poker hand is 5 to 7 cards, got {n}")
    t = sum(c.tally for c in cards)
    if (t >> TALLY_SHIFT).bit_count() != n:
        raise _duplicates(cards, "cards")
    suit = FLUSH_SUIT[n][t & 255]
    return PLAIN[n][t >> 8 & _RANK_SUM] if suit < 0 else _flush_value(cards, suit)


_ORDER: Final = attrgetter("index")
"""A card's place in the deck, (rank - 2) * 4 + suit: the order of :class:`Card` (by rank, then suit) as a sort key
(a key read in C, not Card's own comparison in Python)."""


def omaha_five(board: Sequence[Card], hole: Sequence[Card], value: HandValue) -> tuple[Card, ...] | None:
    """The first five of two of ``hole`` and three of ``board`` (each taken highest card first, by rank then
    suit; pairs outer, triples inner) whose value is ``value``; ``None`` if none is.

    The fives :meth:`~showdown_core.ranking.Ranking.omaha_playing_cards` tries, in its order, each valued as
    :func:`evaluate` values five cards (from the cards' tallies), without building the five it passes over.
    """
    triples = [
        (triple, sum([c.tally for c in triple])) for triple in combinations(sorted(board, key=_ORDER, reverse=True), 3)
    ]
    plain, flush_suit = _PLAIN5, FLUSH_SUIT[5]
    for a, b in combinations(sorted(hole, key=_ORDER, reverse=True), 2):
        pair = a.tally + b.tally
        for triple, tally in triples:
            t = pair + tally
            if (t >> TALLY_SHIFT).bit_count() != 5:
                raise _duplicates((a, b, *triple), "cards")
            suit = flush_suit[t & 255]
            if suit < 0:
                if plain[t >> 8 & _RANK_SUM] is value:
                    return (a, b, *triple)
            elif _flush_value((a, b, *triple), suit) is value:
                return (a, b, *triple)
    return None


@dataclass(frozen=True, slots=True)
class Board:
    """Community cards (0 to 5), prepared once and shared by several evaluations.

    ``Board(board).evaluate(hole)`` does only the hole cards' share of the
    work: the board's tally and per-suit rank masks are computed here.
    """

    cards: tuple[Card, ...]
    _tally: int = field(init=False, repr=False)
    _suit_bits: tuple[int, int, int, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if len(self.cards) > 5:
            raise InvalidEvent.of("bad_board_size", "board", f"has {len(self.cards)} cards; a board has at most 5")
        tally = 0
        bits = [0, 0, 0, 0]
        for c in self.cards:
            tally += c.tally
            bits[c.suit] |= c.bit
        if (tally >> TALLY_SHIFT).bit_count() != len(self.cards):
            raise _duplicates(self.cards, "board")
        object.__setattr__(self, "_tally", tally)
        object.__setattr__(self, "_suit_bits", (bits[0], bits[1], bits[2], bits[3]))

    def evaluate(self, hole: Sequence[Card]) -> HandValue:
        """Value of the best five of the board plus ``hole`` (5..7 cards in all, all distinct)."""
        n = len(self.cards) + len(hole)
        if not 5 <= n <= 7:
            raise InvalidEvent.of("bad_card", "hole_cards", f"board and hole make {n} cards; a hand is 5 to 7")
        t = self._tally
        for c in hole:
            t += c.tally
        if (t >> TALLY_SHIFT).bit_count() != n:
            raise InvalidEvent.of("duplicate_card", "hole_cards", "repeats a card of the board or of the hand")
        suit = FLUSH_SUIT[n][t & 255]
        if suit < 0:
            return _plain(n, t >> 8 & _RANK_SUM)
        bits = self._suit_bits[suit]
        for c in hole:
            if c.suit == suit:
                bits |= c.bit
        value = FLUSHES[bits]
        assert value is not None
        return value


def evaluate_showdown(
    board: Sequence[Card], holes: Sequence[Sequence[Card]], *, assume_distinct: bool = False
) -> list[HandValue]:
    """Every player's hand value against one shared board, in the order given.

    All cards (board and every hand) must be distinct; a repeat raises
    :class:`~showdown_core.errors.InvalidEvent`. ``assume_distinct=True``
    skips that check for input already validated as a whole (a
    ShowdownEvent is: the settlement passes it); anything else should keep
    the default, since a repeated card gives a wrong answer, not an error.

    The hold'em path (five-card board, two-card holes) does the board's work
    once. Each player then costs two key additions and a table lookup; the
    duplicate check is a running sum of card masks in the same pass. A flush
    needs three board cards of one suit: on other boards (about 60%) only
    ranks are summed; on the rest, the few players holding a flush are
    valued from their flush suit afterwards.
    """
    if len(board) != 5:
        return _evaluate_showdown_general(board, holes)
    b0, b1, b2, b3, b4 = board
    base = b0.key + b1.key + b2.key + b3.key + b4.key  # rank-key sum << 8 | suit-key sum
    strength, by_strength = _STRENGTH7, BY_STRENGTH
    seen = 0 if assume_distinct else b0.mask + b1.mask + b2.mask + b3.mask + b4.mask
    may_flush = _BOARD_ALLOWS_FLUSH[base & 255]
    try:
        if not may_flush:
            ranks = base >> 8
            if assume_distinct:
                return [by_strength[strength[ranks + x.rank_key + y.rank_key]] for x, y in holes]
            values: list[HandValue | None] = [
                by_strength[strength[ranks + x.rank_key + y.rank_key]]
                for x, y in holes
                if (seen := seen + x.mask + y.mask)  # always true: accumulates the masks in the same pass
            ]
        else:  # three or more board cards of a suit: each player's suits count too
            flush_suit = _FLUSH_SUIT7
            values = [
                by_strength[strength[key >> 8]] if flush_suit[key & 255] < 0 else None  # None: valued below
                for x, y in holes
                if (key := base + x.key + y.key) >= 0 and (assume_distinct or (seen := seen + x.mask + y.mask))
            ]
    except ValueError:  # some hand is not exactly two cards
        return _evaluate_showdown_general(board, holes)
    if not assume_distinct and seen.bit_count() != 5 + 2 * len(values):
        raise _duplicates([c for hole in (board, *holes) for c in hole], "showdown cards")
    if may_flush:
        for i, (x, y) in enumerate(holes):
            if values[i] is None:
                values[i] = _flush_value(board, _FLUSH_SUIT7[(base + x.key + y.key) & 255], x, y)
    return values  # type: ignore[return-value]  # every None was replaced just above


def _board_flush_suits() -> tuple[int, ...]:
    """Suit-key sum of five board cards -> the suit holding three or more of them, or -1."""
    table = [-2] * 256
    for split in ((a, b, c, 5 - a - b - c) for a in range(6) for b in range(6 - a) for c in range(6 - a - b)):
        total = sum(n * key for n, key in zip(split, SUIT_KEYS, strict=True))
        suit = next((suit for suit, n in enumerate(split) if n >= 3), -1)
        if table[total] not in (-2, suit):  # pragma: no cover - guards the key choice itself
            raise AssertionError("suit keys are ambiguous for five board cards")
        table[total] = suit
    return tuple(max(suit, -1) for suit in table)


BOARD_FLUSH_SUIT: Final = _board_flush_suits()
"""Suit-key sum of a five-card board -> the suit of which it holds three or more cards (a flush needs them;
only one suit can), or -1."""
_BOARD_ALLOWS_FLUSH: Final = tuple(suit >= 0 for suit in BOARD_FLUSH_SUIT)


def _evaluate_showdown_general(board: Sequence[Card], holes: Sequence[Sequence[Card]]) -> list[HandValue]:
    everything = [*board, *(c for hole in holes for c in hole)]
    if sum(c.mask for c in everything).bit_count() != len(everything):
        raise _duplicates(everything, "showdown cards")
    prepared = Board(tuple(board))
    return [prepared.evaluate(hole) for hole in holes]


def best_five(cards: Iterable[Card], value: HandValue) -> tuple[Card, ...]:
    """The five cards that make ``value`` from ``cards``, most significant first.

    Where several cards could play (a straight with a paired rank), the
    higher suit is chosen, so the answer is deterministic: for each rank of
    ``value`` in order, the highest card of that rank not yet taken (of the
    flush suit, for a flush).
    """
    held = mask_of(cards)
    if value.category is Category.FLUSH or value.category is Category.STRAIGHT_FLUSH:
        for lane in reversed(SUIT_LANES):  # the highest suit holding every rank of the flush
            suited = held & lane
            if all(suited & RANK_LANES[r] for r in value.ranks):
                held = suited
                break
    return take_ranks(held, value.ranks)
