"""Typed playing cards: 52 interned, immutable values, parsed once at the boundary.

A :class:`Card` carries what the evaluator needs precomputed, so evaluation
is attribute loads and integer additions:

* ``index``: 0..51, ``(rank - 2) * 4 + suit``; the batch API's encoding.
* ``key``: ``RANK_KEY << 8 | SUIT_KEY``. Summing the keys of 5-7 distinct
  cards identifies their rank multiset (high bits) and whether and in
  which suit they hold a flush (low 8 bits). See :mod:`showdown_core.evaluator`.
* ``rank_key``, ``suit_key``: the two parts of ``key``, for the showdown
  path, which sums ranks alone when the board allows no flush.
* ``bit``: ``1 << (rank - 2)``, for flush rank masks.
* ``mask``: ``1 << index``, for detecting duplicate cards: the *sum* of
  the masks of k cards has k bits set exactly when the cards are distinct
  (a repeated card carries into a higher bit).
* ``tally``: ``mask << TALLY_SHIFT | key``. One chain of additions over a
  hand's tallies yields both its evaluation key (low bits) and its
  distinctness check (the high bits). Keys of up to 25 cards sum below
  ``2**TALLY_SHIFT``, so a whole showdown's tallies can be added without
  the keys carrying into the masks.

Cards order by rank, then suit (clubs < diamonds < hearts < spades): the
stud odd-chip order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from showdown_core.errors import InvalidEvent
from showdown_rules.cards import RANKS, SUITS, canonical_card

RANK_KEYS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
"""Per-rank keys (deuce first) whose sums are distinct for every multiset of 5, 6 or 7
ranks with at most four of each (SKPokerEval's keys). Largest 7-card sum: 7,825,759."""

TALLY_SHIFT = 34
"""Bit where a card's mask starts in its ``tally`` (25 keys sum below 2**34)."""

SUIT_KEYS = (0, 1, 25, 32)
"""Per-suit keys (clubs first). For a fixed card count n in 5..7, the sum of n suit keys
tells whether some suit holds five or more and which (found by exhaustive search)."""


@dataclass(frozen=True, slots=True, order=True, repr=False)
class Card:
    """A playing card. Build one with :func:`parse_card`; the 52 values are interned."""

    rank: int
    """2 (deuce) .. 14 (ace)."""
    suit: int
    """0 clubs, 1 diamonds, 2 hearts, 3 spades."""
    index: int = field(init=False, compare=False)
    key: int = field(init=False, compare=False)
    rank_key: int = field(init=False, compare=False)
    suit_key: int = field(init=False, compare=False)
    bit: int = field(init=False, compare=False)
    mask: int = field(init=False, compare=False)
    tally: int = field(init=False, compare=False)
    text: str = field(init=False, compare=False)

    def __post_init__(self) -> None:
        if not (2 <= self.rank <= 14 and 0 <= self.suit <= 3):
            raise InvalidEvent.of("bad_card", "", f"rank {self.rank!r}, suit {self.suit!r} is not a card")
        index = (self.rank - 2) * 4 + self.suit
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "rank_key", RANK_KEYS[self.rank - 2])
        object.__setattr__(self, "suit_key", SUIT_KEYS[self.suit])
        object.__setattr__(self, "key", self.rank_key << 8 | self.suit_key)
        object.__setattr__(self, "bit", 1 << (self.rank - 2))
        object.__setattr__(self, "mask", 1 << index)
        object.__setattr__(self, "tally", 1 << (TALLY_SHIFT + index) | self.key)
        object.__setattr__(self, "text", RANKS[self.rank - 2] + SUITS[self.suit])

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self.text!r})"


DECK: tuple[Card, ...] = tuple(Card(rank, suit) for rank in range(2, 15) for suit in range(4))
"""All 52 cards; ``DECK[i].index == i``."""

BY_TEXT: Mapping[str, Card] = MappingProxyType({c.text: c for c in DECK})

RANK_LANES: tuple[int, ...] = tuple(0 if r == 0 else 0xF << 4 * ((14 if r == 1 else r) - 2) for r in range(15))
"""Rank (2..14; 1 is the ace playing low) -> the bits of its four cards in a card mask (``Card.mask``)."""
SUIT_LANES: tuple[int, ...] = tuple(sum(1 << (4 * i + suit) for i in range(13)) for suit in range(4))
"""Suit -> the bits of its thirteen cards in a card mask."""


def mask_of(cards: Iterable[Card]) -> int:
    """The card mask of distinct ``cards``: bit ``index`` set for each."""
    held = 0
    for c in cards:
        held |= c.mask
    return held


def take_ranks(held: int, ranks: Iterable[int]) -> tuple[Card, ...]:
    """For each of ``ranks`` in order (1 or 14 for an ace), the highest card of that rank among the cards of
    the mask ``held`` not taken yet: the cards that play a hand, most significant first, the higher suit
    where two could.

    Raises ``ValueError`` if ``held`` holds too few cards of some rank.
    """
    chosen = []
    for rank in ranks:
        bit = (held & RANK_LANES[rank]).bit_length() - 1
        if bit < 0:
            raise ValueError(f"the cards hold no more of rank {rank} for the ranks {list(ranks)}")
        held ^= 1 << bit
        chosen.append(DECK[bit])
    return tuple(chosen)


"""Canonical text -> card. The fast path for text already validated by the message model."""


def parse_card(text: str, where: str = "") -> Card:
    """Parse one card from any accepted spelling (``As``, ``10d``, ``a♠``).

    ``where`` names the input's location for the error message, e.g.
    ``players[2].hole_cards[1]``.
    """
    canonical = canonical_card(text) if isinstance(text, str) else None
    if canonical is None:
        raise InvalidEvent.of("bad_card", where, f"{text!r} is not a card")
    return BY_TEXT[canonical]


def parse_cards(texts: Iterable[str], where: str = "cards") -> tuple[Card, ...]:
    """Parse several cards, each error naming its position: ``cards[3]: 'Xx' is not a card``."""
    return tuple(parse_card(t, f"{where}[{i}]") for i, t in enumerate(texts))
