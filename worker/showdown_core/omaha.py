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

from showdown_core.cards import RANK_KEYS, Card
from showdown_core.errors import InvalidEvent
from showdown_core.evaluator import FLUSHES, PLAIN, VALUES, HandValue, rank_multisets

PAIRS: Final = 91
"""Pairs of own ranks, a pair of equal ranks included."""


class _Tables:
    """The board-by-pair table and its two indexes, built on first use."""

    board_id: dict[int, int]
    """Rank-key sum of a five-card board -> its row."""
    pair_id: list[int]
    """``rank << 4 | rank`` of two own cards -> their column."""
    best: array[int]
    """``row * PAIRS + column`` -> strength (0: no such hand, five of a rank)."""

    def __init__(self) -> None:
        import numpy as np  # noqa: PLC0415  # only Omaha needs it, once

        pairs = [(x, y) for x in range(2, 15) for y in range(2, x + 1)]
        assert len(pairs) == PAIRS
        self.pair_id = [0] * (15 << 4)
        for i, (x, y) in enumerate(pairs):
            self.pair_id[x << 4 | y] = self.pair_id[y << 4 | x] = i
        triples: dict[tuple[int, ...], int] = {}
        rows: list[list[int]] = []
        self.board_id = {}
        for key, desc in rank_multisets(5):
            self.board_id[key] = len(rows)
            rows.append([triples.setdefault(triple, len(triples)) for triple in combinations(desc, 3)])
        plain5 = PLAIN[5]
        by_triple = np.zeros((len(triples), PAIRS), dtype=np.int16)
        for triple, t in triples.items():
            key = sum(RANK_KEYS[r - 2] for r in triple)
            for p, (x, y) in enumerate(pairs):
                value = plain5.get(key + RANK_KEYS[x - 2] + RANK_KEYS[y - 2])
                by_triple[t, p] = 0 if value is None else value.strength
        best = by_triple[np.array(rows)].max(axis=1)  # (boards, 10 triples, pairs) -> (boards, pairs)
        self.best = array("h", best.astype(np.int16).tobytes())


_TABLES: list[_Tables] = []
_FLUSHES: Final[dict[int, HandValue]] = {}
"""``board suit ranks << 16 | own suit ranks`` (rank masks) -> the best flush of two own and three board cards."""
_PAIRS_OF: Final = {n: tuple(combinations(range(n), 2)) for n in range(2, 7)}
_BY_STRENGTH: Final[tuple[HandValue, ...]] = (VALUES[0], *VALUES)  # index 0 never read: every hand has a value


def _flush(board_bits: int, own_bits: int) -> HandValue:
    """The best flush or straight flush of two ranks of ``own_bits`` and three of ``board_bits``."""
    own = [1 << i for i in range(13) if own_bits >> i & 1]
    shared = [1 << i for i in range(13) if board_bits >> i & 1]
    best: HandValue | None = None
    for pair in combinations(own, 2):
        for triple in combinations(shared, 3):
            flush = FLUSHES[sum(pair) + sum(triple)]
            assert flush is not None  # five ranks of one suit are always a flush
            if best is None or flush.strength > best.strength:
                best = flush
    assert best is not None  # two own and three board cards of the suit: a caller's precondition
    return best


def evaluate_omaha(board: Sequence[Card], holes: Sequence[Sequence[Card]]) -> list[HandValue]:
    """Each hand's best high value of exactly two of its own cards (2 to 6) and three of ``board`` (5).

    Cards must be distinct (a validated event's are); ``board`` must hold five cards.
    """
    if len(board) != 5:
        raise InvalidEvent.of("bad_board_size", "board", f"has {len(board)} cards; an Omaha showdown needs 5")
    if not _TABLES:
        _TABLES.append(_Tables())
    tables = _TABLES[0]
    b0, b1, b2, b3, b4 = board
    base = tables.board_id[b0.rank_key + b1.rank_key + b2.rank_key + b3.rank_key + b4.rank_key] * PAIRS
    best, pair_id = tables.best, tables.pair_id
    suit_counts = [0, 0, 0, 0]
    for c in board:
        suit_counts[c.suit] += 1
    flush_suit = next((s for s in range(4) if suit_counts[s] >= 3), -1)
    strengths: list[int] = []
    for hole in holes:
        ranks = [c.rank for c in hole]
        if len(ranks) == 4:  # the common case, unrolled
            r0, r1, r2, r3 = ranks
            strength = max(
                best[base + pair_id[r0 << 4 | r1]],
                best[base + pair_id[r0 << 4 | r2]],
                best[base + pair_id[r0 << 4 | r3]],
                best[base + pair_id[r1 << 4 | r2]],
                best[base + pair_id[r1 << 4 | r3]],
                best[base + pair_id[r2 << 4 | r3]],
            )
        else:
            if not 2 <= len(ranks) <= 6:
                raise InvalidEvent.of(
                    "bad_hole_cards", "hole_cards", f"an Omaha hand is 2 to 6 cards, got {len(ranks)}"
                )
            strength = max([best[base + pair_id[ranks[i] << 4 | ranks[j]]] for i, j in _PAIRS_OF[len(ranks)]])
        strengths.append(strength)
    values = [_BY_STRENGTH[s] for s in strengths]
    if flush_suit >= 0:
        board_bits = 0
        for c in board:
            if c.suit == flush_suit:
                board_bits |= c.bit
        for i, hole in enumerate(holes):
            own_bits = 0
            for c in hole:
                if c.suit == flush_suit:
                    own_bits |= c.bit
            if own_bits.bit_count() >= 2:
                key = board_bits << 16 | own_bits
                flush = _FLUSHES.get(key)
                if flush is None:
                    flush = _FLUSHES[key] = _flush(board_bits, own_bits)
                if flush.strength > values[i].strength:
                    values[i] = flush
    return values
