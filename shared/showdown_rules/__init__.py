"""What the wire contract and the settlement core both need, with no dependency at all.

``showdown_messages`` (the pydantic models producers install) and
``showdown_core`` (the pure settlement core) both import from here, so the
core never loads pydantic and the two can never disagree about a variant's
shape, a card's spelling, a limit or a rejection code.
"""

from showdown_rules.cards import CANONICAL_CARDS, CARD_PATTERN, RANKS, SPELLINGS, SUITS, canonical_card
from showdown_rules.codes import CODES, Rejection
from showdown_rules.currencies import ISO_4217_EXPONENTS, in_units
from showdown_rules.limits import (
    ID_PATTERN,
    INVISIBLE_RANGES,
    MAX_CHIPS,
    MAX_ICM_DEAL_ENTRIES,
    MAX_ID_LENGTH,
    MAX_ORDINAL,
    MAX_PLAYERS,
    MAX_SEAT,
    MAX_TOTAL_CHIPS,
    PPM,
    SCHEMA_VERSION,
)
from showdown_rules.variants import MAX_RUNS, VARIANT_NAMES, VARIANT_SHAPES, VariantShape

__all__ = [
    "CANONICAL_CARDS",
    "CARD_PATTERN",
    "CODES",
    "ID_PATTERN",
    "INVISIBLE_RANGES",
    "ISO_4217_EXPONENTS",
    "MAX_CHIPS",
    "MAX_ICM_DEAL_ENTRIES",
    "MAX_ID_LENGTH",
    "MAX_ORDINAL",
    "MAX_PLAYERS",
    "MAX_RUNS",
    "MAX_SEAT",
    "MAX_TOTAL_CHIPS",
    "PPM",
    "RANKS",
    "SCHEMA_VERSION",
    "SPELLINGS",
    "SUITS",
    "VARIANT_NAMES",
    "VARIANT_SHAPES",
    "Rejection",
    "VariantShape",
    "canonical_card",
    "in_units",
]
