"""The values a settlement reads and writes.

Chips are ``int``, in the table's smallest unit. Per-hand records are
immutable ``NamedTuple`` rather than frozen dataclasses on purpose: a worker
builds about twenty of them per hand, and measured here a frozen slotted
dataclass costs ~900 ns to construct against ~250 ns for a NamedTuple
(``object.__setattr__`` per field). The long-lived values (cards, hand
values, variants) are frozen slotted dataclasses.
"""

from __future__ import annotations

from typing import NamedTuple

from showdown_core.cards import Card
from showdown_core.evaluator import HandValue
from showdown_core.variants import Variant


class SeatHand(NamedTuple):
    """One seat's part in a hand."""

    seat: int
    """Seat number, 1..10, clockwise."""
    player_id: str
    cards: tuple[Card, ...]
    """The seat's own cards (hold'em: hole cards; stud: all seven); ``()`` if unknown."""
    contributed: int
    """Chips put in that count toward the seat's level: blinds, antes, bets, calls."""
    dead_money: int = 0
    """Chips put in that count toward no level (a big-blind ante, a dead blind): main pot."""
    folded: bool = False
    """Folded, or mucked at showdown: out of every pot."""
    stack: int | None = None
    """Chips at the start of the hand, if known (tournaments)."""

    @property
    def put_in(self) -> int:
        """Every chip the seat put in: ``contributed + dead_money``."""
        return self.contributed + self.dead_money


class Showdown(NamedTuple):
    """A finished hand, typed and validated, ready to settle."""

    hand_id: str
    table_id: str
    variant: Variant
    board: tuple[Card, ...]
    button_seat: int | None
    seats: tuple[SeatHand, ...]
    tournament_id: str | None = None
    rake: int = 0
    """Chips the house takes from the pots, never from an uncalled bet (see ``settlement.rake_by_pot``)."""
    rake_ppm: int | None = None
    """The house's rate in parts per million (4.5% = 45_000), if stated; else ``rake`` / the pots' chips."""


class Share(NamedTuple):
    """Chips one seat takes: from a pot, or back as an uncalled bet."""

    seat: int
    amount: int


class Pot(NamedTuple):
    """Chips at stake and who may win them (before awarding)."""

    amount: int
    eligible: tuple[int, ...]
    """Seats (ascending) that are live and put in enough to contest this pot."""


class PotResult(NamedTuple):
    """A pot, awarded."""

    number: int
    """0 for the main pot, then 1, 2, ... for the side pots (``index`` on the wire)."""
    amount: int
    eligible: tuple[int, ...]
    winners: tuple[Share, ...]
    """Seats ascending; shares sum to ``amount - rake``."""
    hand: HandValue | None
    """The winning hand's value; ``None`` when nobody had to show (one live player)."""
    rake: int = 0
    """Chips the house took from this pot before awarding it."""


class Shown(NamedTuple):
    """A hand shown at a contested showdown."""

    seat: SeatHand
    value: HandValue


class Bust(NamedTuple):
    """A seat left with no chips."""

    seat: int
    player_id: str
    finish: int
    """1 for the worst finish among this hand's busts; ties share it, the next skips (1, 1, 3)."""


class Settlement(NamedTuple):
    """The full, rule-correct outcome of a :class:`Showdown`.

    Invariant (checked when it is made): the pots plus the returned bets
    equal every chip put in, and ``collected`` plus the rake pays out
    exactly that.
    """

    showdown: Showdown
    pots: tuple[PotResult, ...]
    returned: tuple[Share, ...]
    """Uncalled bets given back; not part of any pot."""
    collected: tuple[int, ...]
    """Chips each seat collects (pots won after rake, plus bets returned), aligned with ``showdown.seats``."""
    shown: tuple[Shown, ...]
    """Hands shown down, in seat order; empty when the hand was uncontested."""
    busts: tuple[Bust, ...]
    """Worst finish first; empty unless starting stacks were given."""

    def collected_by_seat(self) -> dict[int, int]:
        """``{seat: chips collected}`` for every seat."""
        return {s.seat: amount for s, amount in zip(self.showdown.seats, self.collected, strict=True)}
