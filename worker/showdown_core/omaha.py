"""Omaha high: each hand is exactly two own cards and three board cards, the board done once.

How it works. Without flushes, an Omaha hand's value depends only on the board's ranks and the ranks of
the two own cards it uses, so one table holds, for each of the 6,175 multisets of five board ranks and
each of the 91 pairs of own ranks, the best hand of that pair and three board ranks (a maximum over the
board's ten triples, taken once). A showdown then looks up the board once and each own pair once: six
lookups for a four-card hand, ten for five, fifteen for six.

A flush needs three board cards of one suit (a five-card board has at most one such suit) and two own
cards of it; those few hands are valued from the two suits' rank masks (remembered, since a board's
suited cards meet few different own pairs) and the better of the two values is the hand.

The table (562,000 strengths, 1.1 MB) is built with numpy on the first Omaha hand, in about 0.1 s.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import combinations
from typing import Final

from showdown_core.cards import DECK, RANK_KEYS, SUIT_LANES, Card, mask_of
from showdown_core.errors import InvalidEvent
from showdown_core.evaluator import BOARD_FLUSH_SUIT, BY_STRENGTH, FLUSHES, PLAIN, HandValue, rank_multisets

PAIRS: Final = 91
"""Pairs of own ranks, a pair of equal ranks included."""
COLUMNS: Final = 15 << 4
"""A board's row is indexed by ``rank << 4 | rank`` of two own cards (240 columns, 91 distinct): one addition
and one shift per pair, no second lookup."""


class _Tables:
    """The board-by-pair table and its index, built on first use."""

    board_row: dict[int, int]
    """Rank-key sum of a five-card board -> its row's offset in :attr:`best`."""
    best: array[int]
    """``row offset + (rank << 4 | rank)`` -> strength of the best hand, flushes aside, of those two own ranks
    and three of the board's (0: no such hand, five of a rank; or no such pair)."""

    def __init__(self) -> None:
        import numpy as np  # noqa: PLC0415  # only Omaha needs it, once

        pairs = [(x, y) for x in range(2, 15) for y in range(2, x + 1)]
        assert len(pairs) == PAIRS
        column_of = np.zeros(COLUMNS, dtype=np.intp)  # (x << 4 | y) -> pair, and PAIRS (a zero column) elsewhere
        column_of[:] = PAIRS
        for i, (x, y) in enumerate(pairs):
            column_of[x << 4 | y] = column_of[y << 4 | x] = i
        triples: dict[tuple[int, ...], int] = {}
        rows: list[list[int]] = []
        self.board_row = {}
        for key, desc in rank_multisets(5):
            self.board_row[key] = len(rows) * COLUMNS
            rows.append([triples.setdefault(triple, len(triples)) for triple in combinations(desc, 3)])
        plain5 = PLAIN[5]
        by_triple = np.zeros((len(triples), PAIRS + 1), dtype=np.int16)
        for triple, t in triples.items():
            key = sum(RANK_KEYS[r - 2] for r in triple)
            for p, (x, y) in enumerate(pairs):
                value = plain5.get(key + RANK_KEYS[x - 2] + RANK_KEYS[y - 2])
                by_triple[t, p] = 0 if value is None else value.strength
        best = by_triple[np.array(rows)].max(axis=1)  # (boards, 10 triples, pairs) -> (boards, pairs)
        self.best = array("h", best[:, column_of].astype(np.int16).tobytes())


_TABLES: list[_Tables] = []
_FLUSHES: Final[dict[int, HandValue | None]] = {}
"""``board cards of the suit (mask) | own cards of the suit (mask) << 52`` -> the best flush of two own and
three board cards, ``None`` with fewer than two own cards of the suit."""
_PAIRS_OF: Final = {n: tuple(combinations(range(n), 2)) for n in range(2, 7)}


def prepare_omaha() -> None:
    """Build the table now (about 0.1 s), if it is not built yet."""
    if not _TABLES:
        _TABLES.append(_Tables())


def _flush(board: int, own: int) -> HandValue | None:
    """The best flush or straight flush of two of the cards of ``own`` and three of ``board`` (card masks of
    one suit), or ``None`` if ``own`` holds fewer than two."""
    own_bits = [DECK[i].bit for i in range(52) if own >> i & 1]
    board_bits = [DECK[i].bit for i in range(52) if board >> i & 1]
    best: HandValue | None = None
    for pair in combinations(own_bits, 2):
        for triple in combinations(board_bits, 3):
            flush = FLUSHES[sum(pair) + sum(triple)]
            assert flush is not None  # five ranks of one suit are always a flush
            if best is None or flush.strength > best.strength:
                best = flush
    return best


def evaluate_omaha(board: Sequence[Card], holes: Sequence[Sequence[Card]]) -> list[HandValue]:
    """Each hand's best high value of exactly two of its own cards (2 to 6) and three of ``board`` (5).

    Cards must be distinct (a validated event's are); ``board`` must hold five cards.
    """
    if len(board) != 5:
        raise InvalidEvent.of("bad_board_size", "board", f"has {len(board)} cards; an Omaha showdown needs 5")
    if not _TABLES:
        prepare_omaha()
    b0, b1, b2, b3, b4 = board
    base = _TABLES[0].board_row[b0.rank_key + b1.rank_key + b2.rank_key + b3.rank_key + b4.rank_key]
    best, by_strength = _TABLES[0].best, BY_STRENGTH  # every hand has a value: no strength read is 0
    flush_suit = BOARD_FLUSH_SUIT[b0.suit_key + b1.suit_key + b2.suit_key + b3.suit_key + b4.suit_key]
    in_suit = SUIT_LANES[flush_suit] if flush_suit >= 0 else 0  # no three board cards of a suit: no flush
    shared = (b0.mask | b1.mask | b2.mask | b3.mask | b4.mask) & in_suit
    flushes = _FLUSHES
    values: list[HandValue] = []
    for hole in holes:
        try:
            a, b, c, d = hole
        except ValueError:
            value = by_strength[_general(best, base, hole)]
            own = mask_of(hole) & in_suit if in_suit else 0
        else:  # the common case, unrolled: the six own pairs
            ra, rb, rc = base + (a.rank << 4), base + (b.rank << 4), base + (c.rank << 4)
            rd = d.rank
            value = by_strength[max(best[ra + b.rank], best[ra + c.rank], best[ra + rd], best[rb + c.rank],
                                    best[rb + rd], best[rc + rd])]  # fmt: skip
            own = (a.mask | b.mask | c.mask | d.mask) & in_suit if in_suit else 0
        if own & (own - 1):  # two or more own cards of the board's suit
            key = shared | own << 52
            try:
                flush = flushes[key]
            except KeyError:
                flush = flushes[key] = _flush(shared, own)
            if flush is not None and flush.strength > value.strength:
                value = flush
        values.append(value)
    return values


def _general(best: array[int], base: int, hole: Sequence[Card]) -> int:
    """The strength, flushes aside, of a hand of two, three, five or six own cards (four: unrolled above)."""
    if not 2 <= len(hole) <= 6:
        raise InvalidEvent.of("bad_hole_cards", "hole_cards", f"an Omaha hand is 2 to 6 cards, got {len(hole)}")
    return max([best[base + (hole[i].rank << 4 | hole[j].rank)] for i, j in _PAIRS_OF[len(hole)]])
