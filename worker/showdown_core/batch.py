"""Evaluate many hands at once with numpy.

Input is an ``(N, k)`` integer array of card indices (``Card.index``,
0..51; ``k`` is 5, 6 or 7 cards per hand); output is the ``(N,)`` array of
strengths (1..7462, see :class:`~showdown_core.evaluator.HandValue`).

The algorithm is the scalar evaluator's, column by column: gather each
card's key, add, split the sum into a rank part (looked up in a dense
``int16`` table; for seven cards the scalar evaluator's own 15.6 MB table) and a suit part (which flags the
~3% of hands holding a flush, re-evaluated from their flush suit's rank
mask). Work is done in chunks that fit in cache; the tables are built on
first use from (or are) the scalar evaluator's, so both paths agree by construction
and are tested against each other and exhaustively.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache, partial
from typing import Final

import numpy as np
import numpy.typing as npt

from showdown_core.cards import DECK
from showdown_core.errors import InvalidEvent
from showdown_core.evaluator import CATEGORY_FLOORS, FLUSH_SUIT, FLUSHES, PLAIN, STRENGTH7

CHUNK: Final = 1 << 15
"""Hands per inner step: small enough for the working set to stay in L2."""

_KEYS = np.array([c.key for c in DECK], dtype=np.uint32)
_BITS = np.array([c.bit for c in DECK], dtype=np.uint16)
_SUITS = np.array([c.suit for c in DECK], dtype=np.int8)
_MASKS = np.array([c.mask for c in DECK], dtype=np.uint64)
_FLOORS = np.array(CATEGORY_FLOORS, dtype=np.int16)
_FLUSH_TABLE = np.array([v.strength if v else 0 for v in FLUSHES], dtype=np.int16)


@dataclass(frozen=True, slots=True)
class _Tables:
    plain: npt.NDArray[np.int16]
    flush_suit: npt.NDArray[np.int8]


@cache
def _tables(size: int) -> _Tables:
    if size == 7:  # the scalar evaluator's dense table, shared without a copy
        plain = np.frombuffer(STRENGTH7, dtype=np.int16)
    else:
        table = PLAIN[size]
        plain = np.zeros(max(table) + 1, dtype=np.int16)
        plain[np.fromiter(table.keys(), dtype=np.int64)] = np.fromiter((v.strength for v in table.values()), np.int16)
    return _Tables(plain, np.array(FLUSH_SUIT[size], dtype=np.int8))


def evaluate_batch(cards: npt.ArrayLike, *, check: bool = True, threads: int | None = None) -> npt.NDArray[np.int16]:
    """Strength (1..7462) of each row of ``cards``, an ``(N, k)`` array of card indices, k in 5..7.

    With ``check`` (the default) every row is verified to hold ``k``
    distinct cards in 0..51, and the first bad row raises
    :class:`~showdown_core.errors.InvalidEvent` naming it; ``check=False``
    skips that for inputs known to be valid, such as a full enumeration.

    Large inputs are split over ``threads`` threads (default: one per CPU);
    numpy releases the GIL in every step of the loop.
    """
    hands = np.asarray(cards)
    if hands.ndim != 2 or hands.shape[1] not in (5, 6, 7) or not np.issubdtype(hands.dtype, np.integer):
        raise InvalidEvent.of(
            "bad_card", "cards", f"expected an (N, 5..7) integer array of card indices, got {hands.dtype} {hands.shape}"
        )
    out = np.empty(len(hands), dtype=np.int16)
    work = partial(_evaluate_chunk, hands, out, _tables(hands.shape[1]), check)
    starts = range(0, len(hands), CHUNK)
    workers = min(threads or os.cpu_count() or 1, len(starts))
    if workers <= 1:
        for start in starts:
            work(start)
    else:
        with ThreadPoolExecutor(workers, thread_name_prefix="showdown-batch") as pool:
            for _ in pool.map(work, starts):  # re-raises the earliest chunk's error first
                pass
    return out


def _evaluate_chunk(
    hands: npt.NDArray[np.integer], out: npt.NDArray[np.int16], tables: _Tables, check: bool, start: int
) -> None:
    cols = np.ascontiguousarray(hands[start : start + CHUNK].T)
    if check:
        _check_block(cols, start)
    key = np.take(_KEYS, cols[0])
    tmp = np.empty_like(key)
    for col in cols[1:]:
        np.take(_KEYS, col, out=tmp)
        np.add(key, tmp, out=key)
    suit = np.take(tables.flush_suit, np.bitwise_and(key, 255, out=tmp))
    np.right_shift(key, 8, out=key)
    np.take(tables.plain, key, out=out[start : start + len(key)])
    flushed = np.flatnonzero(suit >= 0)
    if len(flushed):
        out[start + flushed] = _flush_strengths(cols[:, flushed], suit[flushed])


def _flush_strengths(cols: npt.NDArray[np.integer], suit: npt.NDArray[np.int8]) -> npt.NDArray[np.int16]:
    bits = np.zeros(cols.shape[1], dtype=np.uint16)
    for col in cols:
        bits |= np.where(_SUITS[col] == suit, _BITS[col], np.uint16(0))
    return _FLUSH_TABLE[bits]


def _check_block(cols: npt.NDArray[np.integer], offset: int) -> None:
    """Raise for the first hand (column of ``cols``) with an index outside 0..51 or a repeated card."""
    if cols.max(initial=0) > 51 or cols.min(initial=0) < 0:
        row = int(np.flatnonzero(((cols < 0) | (cols > 51)).any(axis=0))[0])
        raise InvalidEvent.of(
            "bad_card", f"cards[{offset + row}]", f"{cols[:, row].tolist()} has a card index outside 0..51"
        )
    mask = np.take(_MASKS, cols[0])
    tmp = np.empty_like(mask)
    for col in cols[1:]:
        np.take(_MASKS, col, out=tmp)
        np.bitwise_or(mask, tmp, out=mask)
    distinct = np.bitwise_count(mask)
    if distinct.min(initial=len(cols)) < len(cols):
        row = int(np.flatnonzero(distinct < len(cols))[0])
        raise InvalidEvent.of("duplicate_card", f"cards[{offset + row}]", f"{cols[:, row].tolist()} repeats a card")


def categories(strengths: npt.ArrayLike) -> npt.NDArray[np.int8]:
    """The :class:`~showdown_core.evaluator.Category` number (0..8) of each strength."""
    found = np.searchsorted(_FLOORS, np.asarray(strengths), side="right") - 1
    return found.astype(np.int8)
