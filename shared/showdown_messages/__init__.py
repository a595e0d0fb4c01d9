"""Message contracts of the showdown adjudication service.

Producers install this package alone (it depends on pydantic only)::

    from showdown_messages import ShowdownEvent

    event = ShowdownEvent.model_validate_json(payload)  # raises on anything a worker would refuse
"""

from showdown_messages.events import PlayerIn, ShowdownEvent
from showdown_messages.records import AuditRecord, DeadLetter
from showdown_messages.rejections import rejections
from showdown_messages.results import (
    Award,
    BountyAward,
    BountyShare,
    Bust,
    Pot,
    PotPart,
    RankedHand,
    Returned,
    Share,
    ShowdownResult,
    ShownHand,
)
from showdown_rules import (
    CANONICAL_CARDS,
    CODES,
    MAX_CHIPS,
    MAX_PLAYERS,
    MAX_SEAT,
    SCHEMA_VERSION,
    VARIANT_SHAPES,
    Rejection,
    VariantShape,
    canonical_card,
)

__version__ = "1.0.0"
"""The contract's version: its major is :data:`SCHEMA_VERSION`, the ``schema_version`` it speaks (docs/release.md)."""

__all__ = [
    "CANONICAL_CARDS",
    "CODES",
    "MAX_CHIPS",
    "MAX_PLAYERS",
    "MAX_SEAT",
    "SCHEMA_VERSION",
    "VARIANT_SHAPES",
    "AuditRecord",
    "Award",
    "BountyAward",
    "BountyShare",
    "Bust",
    "DeadLetter",
    "PlayerIn",
    "Pot",
    "PotPart",
    "RankedHand",
    "Rejection",
    "Returned",
    "Share",
    "ShowdownEvent",
    "ShowdownResult",
    "ShownHand",
    "VariantShape",
    "canonical_card",
    "rejections",
]
