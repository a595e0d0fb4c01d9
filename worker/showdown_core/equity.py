"""Exact equity: each hand's share of the pot over every remaining board, ties split, hi-lo halves exact.

Given a game with a board (hold'em, short deck, Omaha 4-6, Omaha Hi/Lo), the hands and the board known so
far, :func:`equity` deals every remaining board from the cards nobody holds (nor the known board, nor the
``dead`` cards: a folded hand's, where known) and values each hand on each. A hand's equity is the
average, over those boards, of its share of the pot on that board:

* one ranking: the best hands split the pot equally (two tied: a half each);
* hi-lo (Omaha Hi/Lo): when some hand makes a qualifying low, the high half goes to the best high hands and
  the low half to the best lows, each split equally among its ties; when none does, the best high hands
  take the whole pot.

Shares are exact (:class:`fractions.Fraction`), with no odd chip: what a chip division would give one
hand more than another is a matter of a settlement (:mod:`showdown_core.settlement`), not of equity. The
equities of the hands sum to exactly 1.

Hold'em boards are valued with numpy, all at once (:func:`_holdem`): each board's rank multiset is numbered
once for all hands, and each hand looks its strength up in a small table of its own built from the
evaluator's seven-card table, a flush re-valued from its suit's rank bits. Heads-up preflop hold'em, 1,712,304
boards, takes about 30 ms of CPU (``python -m bench.equity``). Omaha and Omaha Hi/Lo with no board card known
(a million boards) are valued the same way (:mod:`showdown_core.equity_omaha`), and short deck as hold'em
from its own tables. Every other spot (Omaha with board cards known: a few hundred boards) goes through its
:class:`~showdown_core.variants.Variant` board by board.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations, combinations_with_replacement
from math import comb, lcm
from typing import TYPE_CHECKING, Final, TypeVar

import numpy as np
import numpy.typing as npt

from showdown_core.cards import DECK, RANK_KEYS, Card
from showdown_core.errors import InvalidEvent
from showdown_core.evaluator import FLUSH_SUIT, FLUSHES, STRENGTH7
from showdown_core.high import HIGH
from showdown_core.ranking import Ranking
from showdown_core.variants import Variant

if TYPE_CHECKING:
    from showdown_core.short_deck import ShortDeck

_Int = TypeVar("_Int", np.uint8, np.uint16, np.uint32, np.uint64)

MAX_HANDS: Final = 10
"""At most ten hands, as at a table."""
CHUNK: Final = 1 << 16
"""Boards per numpy step: the working set stays in cache."""

_PLAIN7: Final = np.frombuffer(STRENGTH7, dtype=np.int16)
_FLUSH_SUIT7: Final = np.array(FLUSH_SUIT[7], dtype=np.int8)
_FLUSH_STRENGTH: Final = np.array([v.strength if v else 0 for v in FLUSHES], dtype=np.int16)


@dataclass(frozen=True, slots=True)
class Equity:
    """Each hand's exact equity, in the order the hands were given."""

    shares: tuple[Fraction, ...]
    """Each hand's share of the pot over every remaining board; they sum to 1."""
    boards: int
    """How many boards were dealt (1 when the board was complete)."""


def equity(
    variant: Variant, holes: Sequence[Sequence[Card]], board: Sequence[Card] = (), dead: Sequence[Card] = ()
) -> Equity:
    """Each of ``holes``' exact equity in ``variant`` with ``board`` known and ``dead`` out of the deck.

    Raises :class:`~showdown_core.errors.InvalidEvent` naming the card or hand at fault: a game without a
    board (``bad_board_size``), fewer than two hands or a hand of the wrong size (``bad_hole_cards``),
    Omaha hands of different sizes (``unequal_hole_cards``), a board of more cards than the game's
    (``bad_board_size``), a card given twice (``duplicate_card``), a card the game's deck lacks
    (``card_not_in_deck``).
    """
    _check(variant, holes, board, dead)
    used = {c.index for hole in holes for c in hole} | {c.index for c in board} | {c.index for c in dead}
    deck = [c for c in DECK if c.index not in used and c.rank >= variant.shape.lowest_rank]
    to_deal = variant.shape.board_cards - len(board)
    if len(deck) < to_deal:
        raise InvalidEvent.of(
            "too_many_cards", "hands", f"leave {len(deck)} cards in the deck, fewer than the {to_deal} still to deal"
        )
    if _vectorised(variant):
        units, denominator = _holdem(holes, board, deck, to_deal, _short_deck(variant.high))
    elif _omaha_preflop(variant, to_deal):
        from showdown_core.equity_omaha import omaha_preflop  # noqa: PLC0415  # its tables, only when needed

        units, denominator = omaha_preflop(
            holes, _numbered(deck, to_deal), _packed(deck, to_deal), variant.low is not None
        )
    else:
        units, denominator = _by_board(variant, holes, board, deck, to_deal)
    return Equity(tuple(Fraction(u, denominator) for u in units), comb(len(deck), to_deal))


def _vectorised(variant: Variant) -> bool:
    """Hold'em's high hand, or short deck's (either order): valued with numpy, all boards at once."""
    shape = variant.shape
    if variant.low is not None or shape.omaha:
        return False
    return (variant.high is HIGH and shape.lowest_rank == 2) or _short_deck(variant.high) is not None


def _short_deck(ranking: Ranking | None) -> ShortDeck | None:
    """``ranking`` if it is a short-deck one (its module is loaded once a short-deck variant is)."""
    if ranking is None or not ranking.name.startswith("short_deck"):
        return None
    from showdown_core.short_deck import ShortDeck  # noqa: PLC0415  # loaded with the variant already

    return ranking if isinstance(ranking, ShortDeck) else None


@cache
def _short_deck_flushes(ranking: ShortDeck) -> npt.NDArray[np.int16]:
    """A short-deck ranking's flush strength by the 13-bit rank mask of one suit's cards (0: no flush)."""
    table = np.zeros(1 << 13, dtype=np.int16)
    for bits, value in ranking._flush.items():
        table[bits] = value.strength
    return table


def _omaha_preflop(variant: Variant, to_deal: int) -> bool:
    """Omaha high or Hi/Lo with no board card known: valued with numpy (:mod:`showdown_core.equity_omaha`)."""
    low = variant.low
    return (
        variant.shape.omaha
        and variant.high is HIGH
        and (low is None or low.name == "eight_or_better")
        and to_deal == 5
        and variant.shape.lowest_rank == 2
    )


def _numbered(deck: list[Card], to_deal: int) -> npt.NDArray[np.uint16]:
    """The number of each board's dealt rank multiset (see :func:`_multisets`), boards in the order of
    ``itertools.combinations(deck, to_deal)``: a card at place ``p`` of a board adds ``comb(rank + p, p + 1)``
    (ranks from 0, the deuce), the deck being in card order."""
    return _sums([np.array([comb(c.rank - 2 + p, p + 1) for c in deck], np.uint16) for p in range(to_deal)])


def _packed(deck: list[Card], to_deal: int) -> npt.NDArray[np.uint64]:
    """Each board's dealt cards' rank bits, suit ``s``'s at bit ``16 * s``, boards in the order of ``_numbered``."""
    return _sums([np.array([c.bit << _SUIT_SHIFT * c.suit for c in deck], dtype=np.uint64)] * to_deal)


def _check(variant: Variant, holes: Sequence[Sequence[Card]], board: Sequence[Card], dead: Sequence[Card]) -> None:
    shape = variant.shape
    if not shape.board_cards:
        raise InvalidEvent.of(
            "bad_board_size", "variant", f"{shape.label} has no board: equity is dealt over remaining boards"
        )
    if not 2 <= len(holes) <= MAX_HANDS:
        raise InvalidEvent.of("bad_hole_cards", "hands", f"{len(holes)} given; equity is of 2 to {MAX_HANDS} hands")
    for i, hole in enumerate(holes):
        if len(hole) not in shape.hole_cards:
            raise InvalidEvent.of(
                "bad_hole_cards",
                f"hands[{i}]",
                f"{''.join(map(str, hole))} has {len(hole)} cards; {shape.label} hands have {shape.hole_text()}",
            )
        if len(hole) != len(holes[0]):
            raise InvalidEvent.of(
                "unequal_hole_cards",
                f"hands[{i}]",
                f"has {len(hole)} cards but hands[0] has {len(holes[0])}; every {shape.label} hand has as many",
            )
    if len(board) > shape.board_cards:
        raise InvalidEvent.of(
            "bad_board_size", "board", f"has {len(board)} cards; a {shape.label} board has {shape.board_cards}"
        )
    places = [(c, f"board[{k}]") for k, c in enumerate(board)]
    places += [(c, f"hands[{i}][{k}]") for i, hole in enumerate(holes) for k, c in enumerate(hole)]
    places += [(c, f"dead[{k}]") for k, c in enumerate(dead)]
    seen: dict[Card, str] = {}
    for card, where in places:
        if card.rank < shape.lowest_rank:
            raise InvalidEvent.of("card_not_in_deck", where, f"{card} is not in the {shape.label} deck")
        if card in seen:
            raise InvalidEvent.of("duplicate_card", where, f"{card} is also at {seen[card]}; each card exists once")
        seen[card] = where


def _by_board(
    variant: Variant, holes: Sequence[Sequence[Card]], board: Sequence[Card], deck: list[Card], to_deal: int
) -> tuple[list[int], int]:
    """Each hand's units of pot over every board dealt from ``deck``, and the units of the whole (boards x
    a pot's units): any game, through its ``Variant``."""
    count = len(holes)
    pot = 2 * lcm(*range(1, count + 1))  # a pot's units: a half split among any number of tied hands is whole
    units = [0] * count
    known = tuple(board)
    hands = variant.hands
    boards = 0
    for extra in combinations(deck, to_deal):
        boards += 1
        highs, lows = hands((*known, *extra), holes)
        low_winners = _winners(lows) if lows is not None else []
        high_winners = _winners(highs) if highs is not None else []
        if low_winners and high_winners:  # hi-lo with a qualifying low: two halves
            half = pot // 2
            for i in high_winners:
                units[i] += half // len(high_winners)
            for i in low_winners:
                units[i] += half // len(low_winners)
        else:  # one ranking, or no low qualified: the whole pot
            winners = high_winners or low_winners
            for i in winners:
                units[i] += pot // len(winners)
    return units, pot * boards


def _winners(values: Sequence[object]) -> list[int]:
    """The positions of the best of ``values`` (strength; ``None`` is no hand), empty if none qualifies."""
    strengths = [-1 if v is None else v.strength for v in values]  # type: ignore[attr-defined]
    best = max(strengths)
    return [] if best < 0 else [i for i, s in enumerate(strengths) if s == best]


def _sums(levels: Sequence[npt.NDArray[_Int]]) -> npt.NDArray[_Int]:
    """For every ``k``-subset of a deck (``k = len(levels)``), in the order of ``itertools.combinations``, the
    sum of ``levels[p][j]`` over its cards, ``j`` the card's place in the deck and ``p`` its place in the subset.

    Built level by level: the ``m``-subsets are each first card plus an ``(m - 1)``-subset of the cards
    after it, and those are a suffix of the previous level (lexicographic order). So the work is about the
    output's size, one addition a board, with no table of card indices.
    """
    k = len(levels)
    if k == 0:
        return np.zeros(1, dtype=np.uint32)  # one board, the known one
    n = len(levels[0])
    level = levels[-1]
    for m in range(2, k + 1):
        values = levels[k - m]
        out = np.empty(comb(n, m), dtype=values.dtype)
        pos, previous = 0, len(level)
        for j in range(n - m + 1):
            size = comb(n - j - 1, m - 1)
            np.add(level[previous - size :], values[j], out=out[pos : pos + size])
            pos += size
        level = out
    return level


_SUIT_SHIFT: Final = 16
"""A board's card bits, packed: suit ``s``'s rank bits (``Card.bit``) at ``s * 16``."""


@cache
def _multisets(k: int) -> npt.NDArray[np.int64]:
    """The rank-key sum (``Card.rank_key``) of every multiset of ``k`` ranks, by its combinadic number.

    A multiset of ranks ``r_1 <= ... <= r_k`` (0 for a deuce) is the set ``c_i = r_i + i - 1`` of
    ``range(12 + k)``, numbered ``sum(comb(c_i, i))``: one addition per card, whatever the suits.
    """
    sums = np.zeros(comb(12 + k, k), dtype=np.int64)
    for ranks in combinations_with_replacement(range(13), k):
        sums[sum(comb(r + i, i + 1) for i, r in enumerate(ranks))] = sum(RANK_KEYS[r] for r in ranks)
    return sums


def _holdem(
    holes: Sequence[Sequence[Card]], board: Sequence[Card], deck: list[Card], to_deal: int, short: ShortDeck | None
) -> tuple[list[int], int]:
    """:func:`_by_board` for hold'em's high hand (or ``short`` deck's), every board at once with numpy.

    Each remaining board is three numbers, summed once for all hands (:func:`_sums`): the number of its
    dealt cards' rank multiset, its cards' suit keys, its cards' rank bits packed by suit. Each hand looks
    up its strength without a flush by the multiset's number in a table of its own (at most 6,188 entries,
    from the seven-card table: cache-resident), and the suit sum with its own says whether it holds a
    flush, then valued from the packed bits of that suit and its own cards of it.
    """
    count = len(holes)
    pot = lcm(*range(1, count + 1))
    numbered = _numbered(deck, to_deal)
    suits = _sums([np.array([c.suit_key for c in deck], dtype=np.uint8)] * to_deal)
    packed = _packed(deck, to_deal)
    packed |= np.uint64(sum(c.bit << _SUIT_SHIFT * c.suit for c in board))
    multisets = _multisets(to_deal)
    tables = []
    for hole in holes:
        rank_sum = multisets + sum(c.rank_key for c in (*board, *hole))
        if short is None:
            tables.append(_PLAIN7[np.minimum(rank_sum, len(_PLAIN7) - 1)])  # (a sum past the table: 5 of a rank)
        else:  # a multiset with a rank below six, or five of a rank, is never dealt
            plain = short._plain
            tables.append(np.array([v.strength if (v := plain.get(k)) else 0 for k in rank_sum.tolist()], np.int16))
    flushes = _FLUSH_STRENGTH if short is None else _short_deck_flushes(short)
    suit_tables = [
        _FLUSH_SUIT7[np.arange(32 * to_deal + 1) + sum(c.suit_key for c in (*board, *hole))] for hole in holes
    ]
    own_bits = [np.array([sum(c.bit for c in hole if c.suit == s) for s in range(4)], np.uint64) for hole in holes]
    counted = np.zeros((count, count + 1), dtype=np.int64)  # [hand, k]: boards it won with k - 1 others
    for start in range(0, len(numbered), CHUNK):
        number = numbered[start : start + CHUNK]
        suit_sum = suits[start : start + CHUNK]
        strengths = np.empty((count, len(number)), dtype=np.int16)
        for i in range(count):
            np.take(tables[i], number, out=strengths[i])
            suit = suit_tables[i][suit_sum]
            flushed = np.flatnonzero(suit >= 0)
            if len(flushed):
                strengths[i, flushed] = _flushes(packed[start + flushed], suit[flushed], own_bits[i], flushes)
        if count == 2:  # heads-up: two comparisons
            ahead = np.count_nonzero(strengths[0] > strengths[1])
            tied = np.count_nonzero(strengths[0] == strengths[1])
            counted[0, 1] += ahead
            counted[1, 1] += len(number) - ahead - tied
            counted[:, 2] += tied
            continue
        won = strengths == strengths.max(axis=0)
        ways = won.sum(axis=0, dtype=np.int8)
        for k in range(1, count + 1):
            alike = ways == k
            for i in range(count):
                counted[i, k] += np.count_nonzero(won[i] & alike)
    units = [sum(int(counted[i, k]) * (pot // k) for k in range(1, count + 1)) for i in range(count)]
    return units, pot * len(numbered)


def _flushes(
    packed: npt.NDArray[np.uint64],
    suit: npt.NDArray[np.int8],
    own: npt.NDArray[np.uint64],
    table: npt.NDArray[np.int16],
) -> npt.NDArray[np.int16]:
    """The flush strength (by ``table``, by rank mask) of each board (its ``packed`` bits) in its ``suit``,
    with the hand's ``own`` bits of each suit."""
    shift = suit.astype(np.uint64) * np.uint64(_SUIT_SHIFT)
    bits = (packed >> shift) & np.uint64(0x1FFF)
    bits |= own[suit]
    strengths: npt.NDArray[np.int16] = table[bits]
    return strengths
