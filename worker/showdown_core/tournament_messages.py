"""A tournament's messages as the ledger takes them: core values, converted from the contract at the edge.

The contract (:mod:`showdown_messages.tournaments`, pydantic) validates a
message; :func:`showdown_service.decision.intake.to_tournament_message` turns it into
one of these, as :func:`showdown_service.decision.intake.to_showdown` turns an event
into a :class:`~showdown_core.Showdown`. The rules
(:mod:`showdown_core.tournament`) see nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal


@dataclass(frozen=True, slots=True)
class MysteryEnvelopes:
    """Envelopes of one amount in a mystery-bounty pool."""

    amount: int
    count: int


@dataclass(frozen=True, slots=True)
class MysteryBounties:
    """A mystery-bounty stage: from ``from_entries_left`` entries in play on, each elimination wins an envelope."""

    from_entries_left: int
    envelopes: tuple[MysteryEnvelopes, ...]


@dataclass(frozen=True, slots=True)
class TournamentOpened:
    """``open``: a tournament's settings."""

    type: ClassVar[str] = "open"
    tournament_id: str
    payouts: tuple[int, ...]
    bounty_cash_ppm: int | None = None
    equal_stacks: Literal["tie", "seat_order"] = "tie"
    hand_for_hand: Literal["by_stack", "tie"] = "by_stack"
    satellite: bool = False
    mystery_bounties: MysteryBounties | None = None


@dataclass(frozen=True, slots=True)
class EntryRegistered:
    """``entry``: a player's entry (1, 2, ... for re-entries) with its starting stack and bounty."""

    type: ClassVar[str] = "entry"
    tournament_id: str
    player_id: str
    entry: int
    stack: int
    bounty: int | None = None


@dataclass(frozen=True, slots=True)
class ChipsBought:
    """``chips``: a rebuy or add-on of an entry in play, numbered per entry."""

    type: ClassVar[str] = "chips"
    tournament_id: str
    player_id: str
    entry: int
    purchase: int
    kind: Literal["rebuy", "add_on"]
    chips: int
    bounty: int | None = None


@dataclass(frozen=True, slots=True)
class RegistrationClosed:
    """``registration_closed``: places count from here; payouts may be replaced."""

    type: ClassVar[str] = "registration_closed"
    tournament_id: str
    payouts: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class RoundComplete:
    """``round_complete``: every table has played hand-for-hand round ``round``."""

    type: ClassVar[str] = "round_complete"
    tournament_id: str
    round: int


@dataclass(frozen=True, slots=True)
class DealEntry:
    """One entry in play, as a deal names it (``amount``: method ``custom`` only)."""

    player_id: str
    entry: int
    amount: int | None = None


@dataclass(frozen=True, slots=True)
class DealAgreed:
    """``deal``: every entry in play agrees a deal between hands (paid as each entry finishes)."""

    type: ClassVar[str] = "deal"
    tournament_id: str
    method: Literal["icm", "chip_chop", "equal", "custom"]
    entries: tuple[DealEntry, ...]
    left_to_play_for: int = 0


TournamentMessage = TournamentOpened | EntryRegistered | ChipsBought | RegistrationClosed | RoundComplete | DealAgreed
"""Any of them."""
