"""Card text, as it travels on the wire.

Canonical card text is two characters: a rank from ``23456789TJQKA`` and a
suit from ``cdhs`` (``"As"``, ``"Td"``, ``"2c"``). Producers may also send
``"10d"``, lower-case ranks (``"as"``), upper-case suits (``"AS"``) and the
suit symbols ``♠♥♦♣`` (with or without the emoji variation selector U+FE0F).
Everything we emit is canonical.

Look-alikes (Cyrillic letters, full-width digits, outline suit symbols) are
not cards: accepting them would let two spellings of one card slip past the
duplicate check.

This module is pure: no pydantic, no I/O. The service's core builds its typed
``Card`` values from the canonical text defined here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

RANKS = "23456789TJQKA"
"""Canonical rank characters, lowest first (deuce = 2 ... ace = 14)."""

SUITS = "cdhs"
"""Canonical suit characters in ascending stud order: clubs < diamonds < hearts < spades."""

_RANK_SPELLINGS: dict[str, str] = {r: r for r in RANKS}
_RANK_SPELLINGS.update({r.lower(): r for r in "TJQKA"})
_RANK_SPELLINGS["10"] = "T"

_SUIT_SPELLINGS: dict[str, str] = {}
for _canonical, _symbol in zip(SUITS, "♣♦♥♠", strict=True):
    _SUIT_SPELLINGS[_canonical] = _canonical
    _SUIT_SPELLINGS[_canonical.upper()] = _canonical
    _SUIT_SPELLINGS[_symbol] = _canonical
    _SUIT_SPELLINGS[_symbol + "\ufe0f"] = _canonical

CANONICAL_CARDS: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
"""All 52 canonical card texts, ordered by rank then suit (index = (rank - 2) * 4 + suit)."""

SPELLINGS: Mapping[str, str] = MappingProxyType(
    {r + s: _RANK_SPELLINGS[r] + _SUIT_SPELLINGS[s] for r in _RANK_SPELLINGS for s in _SUIT_SPELLINGS}
)
"""Every accepted spelling of a card, mapped to its canonical text."""


CARD_PATTERN = r"^(?:[2-9TJQKAtjqka]|10)(?:[cdhsCDHS]|[\u2663\u2666\u2665\u2660]\ufe0f?)$"
"""A regular expression matching exactly the keys of :data:`SPELLINGS` (a test checks it)."""


def canonical_card(text: str) -> str | None:
    """Return the canonical text of ``text``, or ``None`` if it is not a card."""
    return SPELLINGS.get(text)
