"""Exact equity of Omaha (high, and Hi/Lo's halves) with nothing of the board known: every board at once with numpy.

Preflop an Omaha spot has about a million boards (1,086,008 heads-up with four cards), too many to value one
by one (:func:`showdown_core.equity._by_board`: seconds). Here each board is two numbers, summed once for
all hands by the caller (:func:`showdown_core.equity._sums`): the number of its rank multiset and its cards'
rank bits packed by suit. Then, for each hand:

* **high without a flush**: the Omaha table of :mod:`showdown_core.omaha` (for each board rank multiset and
  each pair of own ranks, the best hand of that pair and three board ranks) gives each own pair's strength;
  the hand's is the best of its pairs;
* **flushes**: a board holds three or more cards of at most one suit; for each own pair of that suit, a table
  by the board's 13-bit mask of the suit gives the best flush (or straight flush) of the pair and three of
  them, built once per pair of ranks from the evaluator's flush table;
* **the low** (Hi/Lo): a board's low ranks are a mask of its multiset; the hand's best low of two own and
  three board low ranks is one of 256 answers (:mod:`showdown_core.eight_or_better`).

The same shares as the board-by-board path, which the tests check it against.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations, combinations_with_replacement
from math import comb, lcm
from typing import Final

import numpy as np
import numpy.typing as npt

from showdown_core.cards import RANK_KEYS, Card
from showdown_core.eight_or_better import LOW_BIT, _omaha_low
from showdown_core.evaluator import FLUSHES
from showdown_core.omaha import _TABLES, prepare_omaha

CHUNK: Final = 1 << 16
_SUIT_SHIFT: Final = 16
"""Suit ``s``'s rank bits sit at ``16 * s`` of a board's packed bits."""
_FLUSH_STRENGTH: Final = np.array([v.strength if v else 0 for v in FLUSHES], dtype=np.int16)


@cache
def _board_tables() -> tuple[npt.NDArray[np.int32], npt.NDArray[np.uint8]]:
    """By the number of a five-card board's rank multiset (as :func:`showdown_core.equity._multisets` numbers
    them): its row's offset in the Omaha table, and its low ranks' mask."""
    prepare_omaha()
    board_row = _TABLES[0].board_row
    rows = np.zeros(comb(17, 5), dtype=np.int32)
    lows = np.zeros(comb(17, 5), dtype=np.uint8)
    for ranks in combinations_with_replacement(range(13), 5):
        number = sum(comb(r + i, i + 1) for i, r in enumerate(ranks))
        rows[number] = board_row.get(sum(RANK_KEYS[r] for r in ranks), 0)  # (five of a rank: never dealt)
        mask = 0
        for r in ranks:
            mask |= LOW_BIT[r + 2]
        lows[number] = mask
    return rows, lows


@cache
def _triples() -> tuple[npt.NDArray[np.intp], npt.NDArray[np.uint16]]:
    """Every 13-bit mask of three to five ranks, once per three of its ranks: (mask, the three's bits)."""
    masks, threes = [], []
    for size in (3, 4, 5):
        for ranks in combinations(range(13), size):
            mask = sum(1 << r for r in ranks)
            for three in combinations(ranks, 3):
                masks.append(mask)
                threes.append(sum(1 << r for r in three))
    return np.array(masks, dtype=np.intp), np.array(threes, dtype=np.uint16)


@cache
def _flush_with(pair: int) -> npt.NDArray[np.int16]:
    """Board mask of one suit (13 bits) -> the best flush of the own ``pair`` (rank bits) of that suit and three
    of the board's cards of it (0 with fewer than three)."""
    masks, threes = _triples()
    table = np.zeros(1 << 13, dtype=np.int16)
    np.maximum.at(table, masks, _FLUSH_STRENGTH[threes | pair])
    return table


def omaha_preflop(
    holes: Sequence[Sequence[Card]],
    numbered: npt.NDArray[np.uint16],
    packed: npt.NDArray[np.uint64],
    hi_lo: bool,
) -> tuple[list[int], int]:
    """Each hand's units of pot over every five-card board, and the units of the whole. The boards are given as
    ``numbered`` (each one's rank multiset number) and ``packed`` (its cards' rank bits, suit ``s`` at bit
    ``16 * s``), in one order."""
    count = len(holes)
    pot = 2 * lcm(*range(1, count + 1))
    rows_of, lows_of = _board_tables()
    best = np.frombuffer(_TABLES[0].best, dtype=np.int16)
    pairs = [list(combinations(hole, 2)) for hole in holes]
    columns = [np.array([a.rank << 4 | b.rank for a, b in hand], dtype=np.int32) for hand in pairs]
    suited = [
        {s: [_flush_with(a.bit | b.bit) for a, b in hand if a.suit == b.suit == s] for s in range(4)} for hand in pairs
    ]
    low_tables = []
    for hole in holes:
        own = 0
        for c in hole:
            own |= LOW_BIT[c.rank]
        answers = [_omaha_low(board, own) for board in range(256)]
        low_tables.append(np.array([0 if v is None else v.strength for v in answers], dtype=np.int16))
    counted = np.zeros((3, count, count + 1), dtype=np.int64)  # [whole / high half / low half, hand, ways]
    for start in range(0, len(numbered), CHUNK):
        number = numbered[start : start + CHUNK]
        rows = rows_of[number]
        bits = packed[start : start + CHUNK]
        by_suit = [((bits >> np.uint64(_SUIT_SHIFT * s)) & np.uint64(0x1FFF)).astype(np.intp) for s in range(4)]
        flushing = [np.flatnonzero(np.bitwise_count(mask) >= 3) for mask in by_suit]
        highs = np.empty((count, len(number)), dtype=np.int16)
        for i in range(count):
            high = highs[i]
            np.take(best, rows + columns[i][0], out=high)
            for column in columns[i][1:]:
                np.maximum(high, best[rows + column], out=high)
            for s in range(4):
                where = flushing[s]
                if suited[i][s] and len(where):
                    mask = by_suit[s][where]
                    flush = suited[i][s][0][mask]
                    for table in suited[i][s][1:]:
                        np.maximum(flush, table[mask], out=flush)
                    high[where] = np.maximum(high[where], flush)
        won_high = highs == highs.max(axis=0)
        ways_high = won_high.sum(axis=0, dtype=np.int8)
        if hi_lo:
            board_lows = lows_of[number]
            lows = np.stack([table[board_lows] for table in low_tables])
            low_best = lows.max(axis=0)
            split = low_best > 0
            won_low = (lows == low_best) & split
            ways_low = won_low.sum(axis=0, dtype=np.int8)
        else:
            split = np.zeros(len(number), dtype=bool)
        for k in range(1, count + 1):
            high_k = ways_high == k
            halves, wholes = high_k & split, high_k & ~split
            low_k = ways_low == k if hi_lo else None
            for i in range(count):
                counted[0, i, k] += np.count_nonzero(won_high[i] & wholes)
                counted[1, i, k] += np.count_nonzero(won_high[i] & halves)
                if low_k is not None:
                    counted[2, i, k] += np.count_nonzero(won_low[i] & low_k)
    units = [
        sum(
            int(counted[0, i, k]) * (pot // k) + int(counted[1, i, k] + counted[2, i, k]) * (pot // 2 // k)
            for k in range(1, count + 1)
        )
        for i in range(count)
    ]
    return units, pot * len(numbered)
