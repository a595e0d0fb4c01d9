"""The values a settlement reads and writes.

Chips are ``int``, in the table's smallest unit. Per-hand records are
immutable ``NamedTuple`` rather than frozen dataclasses on purpose: a worker
builds about twenty of them per hand, and measured here a frozen slotted
dataclass costs ~900 ns to construct against ~250 ns for a NamedTuple
(``object.__setattr__`` per field). The long-lived values (cards, hand
values, variants) are frozen slotted dataclasses.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Final, Literal, NamedTuple

from showdown_core.cards import Card
from showdown_core.ranking import Value
from showdown_core.variants import Variant

if TYPE_CHECKING:
    from showdown_core.jackpot import JackpotOutcome

from_fields: Final = tuple.__new__
"""``from_fields(Share, (seat, amount))``: a record from all its fields in order, without a NamedTuple's
keyword handling (a third of the time): how the hot path builds them."""


class SeatHand(NamedTuple):
    """One seat's part in a hand."""

    seat: int
    """Seat number, 1..10, clockwise."""
    player_id: str
    cards: tuple[Card, ...]
    """The seat's own cards (hold'em: hole cards; stud: all seven; draw: the final hand); ``()`` if unknown."""
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
    boards: tuple[tuple[Card, ...], ...] = ()
    """Every board, in the order run, when the hand was run more than once (2 or 3); ``board`` is then
    the first of them. Empty when the hand was run once."""
    bounties: tuple[int, ...] = ()
    """The bounty on each seat's head at the start of the hand (currency units, aligned with ``seats``), in a
    knockout tournament; empty otherwise."""
    bounty_cash_ppm: int = 1_000_000
    """The cash part of a bounty in parts per million (1,000,000: fixed knockout; 500,000: the usual
    progressive knockout); the rest is added to the winner's own bounty."""
    starting_stacks: tuple[int, ...] = ()
    """Each seat's chips at the start, aligned with ``seats``, from the hand's played betting
    (:mod:`showdown_core.betting`) when the event gave one; empty otherwise (``SeatHand.stack`` then)."""
    folded_on: tuple[str | None, ...] = ()
    """With the played betting: the street each seat folded on (``preflop``, ``flop``, ..., ``showdown`` for a
    muck), ``None`` for a seat that did not; empty otherwise."""
    saw_flop: bool | None = None
    """With the played betting: whether a flop was dealt with two or more seats in the hand; else ``None``."""
    rake_pots: tuple[int, ...] = ()
    """The rake each pot gives (main pot first), when a rake schedule decided it (:mod:`showdown_core.rake`);
    empty: ``rake`` falls on the pots by :func:`~showdown_core.settlement.rake_by_pot`."""
    rake_paid: tuple[tuple[int, int], ...] = ()
    """With a rake schedule: ``(seat, chips)``, what each seat paid of ``rake`` by its method (seats ascending,
    summing to it)."""
    rake_schedule: str | None = None
    """The id of the rake schedule that decided ``rake``, if one did."""
    cashouts: tuple[CashOutOffer, ...] = ()
    """All-in cash-outs the room paid (:mod:`showdown_core.cashout`); empty without one."""
    currency: str | None = None
    """The table's ISO 4217 code (``USD``), if the event named one: the chips are its minor units. It changes no
    amount: the settlement carries it to the result."""

    @property
    def runs(self) -> tuple[tuple[Card, ...], ...]:
        """The board of each run: ``boards``, or the one ``board``."""
        return self.boards or (self.board,)


class CashOutOffer(NamedTuple):
    """An all-in cash-out as the event states it: who, at which point, the amount offered and the fee rule."""

    seat: int
    street: str
    """``preflop``, ``flop`` or ``turn``: the board then known is the first 0, 3 or 4 cards of ``board``."""
    amount: int
    """What the room paid the seat instead of its share of the run-out."""
    fee_ppm: int
    """The room's fee in parts per million of the hand's value (1% = 10,000)."""
    action: int | None = None
    """The index into the play's actions after which the seat cashed out, when the event named it (``street`` is
    then that action's: :func:`showdown_core.cashout.street_at`)."""


class CashOut(NamedTuple):
    """An all-in cash-out, checked and settled: the seat takes ``amount``, the house its share of the run-out."""

    seat: int
    player_id: str
    street: str
    equity: Fraction
    """The seat's exact share of the pots it contests over every board left at ``street``."""
    value: Fraction
    """``(pot - rake) x equity``, summed over the pots the seat contests, before the fee."""
    fee_ppm: int
    amount: int
    """The offer: ``value`` less the fee, rounded half to even to the minor unit."""
    runout: int
    """What the seat's hand won of the pots on the board dealt: the house's side, taken by the house."""
    action: int | None = None
    """The play's action after which the seat cashed out, when the event named it."""

    @property
    def house(self) -> int:
        """The house's net: what it took of the run-out less what it paid (negative when it paid more)."""
        return self.runout - self.amount


class Share(NamedTuple):
    """Chips one seat takes: from a pot, or back as an uncalled bet."""

    seat: int
    amount: int


class Pot(NamedTuple):
    """Chips at stake and who may win them (before awarding)."""

    amount: int
    eligible: tuple[int, ...]
    """Seats (ascending) that are live and put in enough to contest this pot."""


Half = Literal["whole", "high", "low"]
"""Which half of a run's part of a pot: ``whole`` when it was not split (one ranking, or a hi-lo game
in which no hand qualified for low)."""


class PotPart(NamedTuple):
    """One run's part of a pot, or one half of it, awarded by one ranking."""

    run: int
    """1 for the first (or only) board, 2, 3 for the boards of a hand run again."""
    half: Half
    ranking: str
    """The ranking that awarded it: ``high``, ``eight_or_better``, ..."""
    amount: int
    winners: tuple[Share, ...]
    """Seats ascending; shares sum to ``amount``. At most one odd chip per seat."""
    hand: Value
    """The winning hand (tied winners hold equal hands)."""


class PotResult(NamedTuple):
    """A pot, awarded."""

    number: int
    """0 for the main pot, then 1, 2, ... for the side pots (``index`` on the wire)."""
    amount: int
    eligible: tuple[int, ...]
    winners: tuple[Share, ...]
    """Seats ascending; shares sum to ``amount - rake``: each seat's total over ``parts``."""
    hand: Value | None
    """The winning hand of the first part (run 1; the high half in a hi-lo game); ``None`` when
    nobody had to show (one eligible seat)."""
    rake: int = 0
    """Chips the house took from this pot before awarding it."""
    parts: tuple[PotPart, ...] = ()
    """How the pot was divided, when it was: each run's part, and each half of a hi-lo game (listed
    even when no low qualified). Empty when one ranking awarded the whole pot on one board."""


class Shown(NamedTuple):
    """A hand shown at a contested showdown, on one board."""

    seat: SeatHand
    high: Value | None
    """The high hand, in a game with a high ranking."""
    low: Value | None = None
    """The low hand, in a game with a low ranking; ``None`` there when no low qualifies."""
    run: int = 1
    """Which board (1 unless the hand was run again)."""
    cards: tuple[Card, ...] = ()
    """The cards that make :attr:`value`, most significant first (the result's ``best_five``)."""
    low_cards: tuple[Card, ...] = ()
    """In a game with both rankings: the cards that make :attr:`low` (empty when no low qualifies)."""

    @property
    def value(self) -> Value:
        """The hand the game is mainly played for: the high hand, or in a low-only game the low."""
        value = self.high if self.high is not None else self.low
        assert value is not None  # a low-only game's rankings always make a hand
        return value


class Bust(NamedTuple):
    """A seat left with no chips."""

    seat: int
    player_id: str
    finish: int
    """1 for the worst finish among this hand's busts; ties share it, the next skips (1, 1, 3)."""


class BountyShare(NamedTuple):
    """What one winner of a relevant pot takes of an eliminated player's bounty (currency units)."""

    seat: int
    player_id: str
    amount: int
    """``cash + added``."""
    cash: int
    """Paid to the winner now."""
    added: int
    """Added to the bounty on the winner's own head (0 in a fixed knockout)."""


class BountyAward(NamedTuple):
    """An eliminated player's bounty and who collects it."""

    seat: int
    player_id: str
    bounty: int
    """On the eliminated head when its elimination was settled: the hand's starting bounty plus what the
    player added in this hand's earlier eliminations."""
    pot: int
    """The relevant pot's ``number`` (0 for the main pot)."""
    winners: tuple[BountyShare, ...]
    """Seats ascending; the amounts sum to ``bounty``."""


class Settlement(NamedTuple):
    """The full, rule-correct outcome of a :class:`Showdown`.

    Invariant (checked when it is made): the pots plus the returned bets
    equal every chip put in, and ``collected`` plus the rake pays out
    exactly that (with cash-outs: plus the house's side of each, what it
    took of the run-out less what it paid).
    """

    showdown: Showdown
    pots: tuple[PotResult, ...]
    returned: tuple[Share, ...]
    """Uncalled bets given back; not part of any pot."""
    collected: tuple[int, ...]
    """Chips each seat collects (pots won after rake, plus bets returned), aligned with ``showdown.seats``."""
    shown: tuple[Shown, ...]
    """Hands shown down, by run, then seat; empty when the hand was uncontested."""
    busts: tuple[Bust, ...]
    """Worst finish first; empty unless starting stacks were given."""
    bounties: tuple[BountyAward, ...] = ()
    """Each eliminated seat's bounty and who collects it, in the order settled (see
    :mod:`showdown_core.bounties`); empty unless ``showdown.bounties`` were given."""
    mystery_bounties: tuple[BountyAward, ...] = ()
    """Each mystery-bounty envelope the hand paid (a tournament ledger's, :mod:`showdown_core.mystery`): the
    eliminated seat, the envelope's amount as ``bounty``, and who collects it (all cash); empty without one."""
    cashouts: tuple[CashOut, ...] = ()
    """Each all-in cash-out, seat ascending: ``collected`` then pays the seat its offer, not its run-out."""
    jackpot: JackpotOutcome | None = None
    """The jackpot drop the hand paid and its bad beat, if any (:mod:`showdown_core.jackpot`); ``None`` without
    one. The drop is part of the rake: ``collected`` and the money check are unchanged by it."""

    def collected_by_seat(self) -> dict[int, int]:
        """``{seat: chips collected}`` for every seat."""
        return {s.seat: amount for s, amount in zip(self.showdown.seats, self.collected, strict=True)}
