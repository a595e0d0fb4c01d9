"""What a reader makes of one hand: the ShowdownEvent to settle, and what the history recorded.

Chips are whole units of the source (PHH: chips; PokerStars cash: cents;
PokerStars tournaments: chips). Recorded amounts a source writes with
fractions (the Pluribus logs split an odd chip into halves) stay exact as
:class:`~fractions.Fraction`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from fractions import Fraction
from typing import Any, Final, NamedTuple

from pydantic import ValidationError

from showdown_messages import ShowdownEvent, rejections
from showdown_rules.limits import MAX_TOTAL_CHIPS
from showdown_service.histories.errors import ImpossibleAction

MAX_AMOUNT: Final = MAX_TOTAL_CHIPS
"""The largest amount a reader takes, in the source's unit (the contract's bound on all the chips of a hand, 2^53-1):
a history writing more is refused naming the line, never read into a number of thousands of digits."""
TOO_LARGE: Final = "is more than the largest amount the contract carries (2^53-1)"
"""The reason that refuses such an amount, after the amount as written."""
_DIGITS: Final = len(str(MAX_AMOUNT))


def too_long(whole: str) -> bool:
    """Whether the digits ``whole`` (the whole part of an amount as written) are surely more than
    :data:`MAX_AMOUNT`: more digits than it has, leading zeros aside (checked before they are made a number)."""
    return len(whole) > _DIGITS and len(whole.lstrip("0")) > _DIGITS


class PhhOutcome(NamedTuple):
    """What a PHH hand recorded, by seat (the player number)."""

    finishing: dict[int, int | Fraction] | None
    """``finishing_stacks``: each seat's chips after the hand."""
    winnings: dict[int, int | Fraction] | None
    """``winnings``: chips each seat took from the pots (uncalled bets not included)."""


class StarsOutcome(NamedTuple):
    """What a PokerStars hand recorded.

    PokerStars builds its pots at the all-in levels of every seat that
    reached the showdown, mucked or not; the service merges consecutive pots
    open to the same live seats (a muck leaves the same seats in them).
    ``pot_groups`` maps each PokerStars pot to the service's pot it lies in.
    """

    pots: tuple[dict[int, int], ...]
    """``collected X from pot / main pot / side pot-N``: per PokerStars pot, chips by seat."""
    summary: dict[int, int]
    """Chips each seat ``won`` or ``collected`` per the summary's seat lines."""
    returned: dict[int, int]
    """``Uncalled bet (X) returned to``: chips by seat, as recorded."""
    uncalled: dict[int, int]
    """The uncalled bet by the actions: the top contribution above the next one, when one seat alone made it."""
    rake: int
    total_pot: int
    """``Total pot``: every chip in the pots, rake included, uncalled bets not."""
    pot_groups: tuple[int, ...]
    """For each PokerStars pot, the index of the service's pot that holds it."""
    note: str
    """How the rake rate was found, or that the uncalled bet was not written (empty otherwise)."""
    runs: tuple[tuple[dict[int, int], ...], ...] = ()
    """A hand run more than once: per run (FIRST, SECOND, THIRD SHOW DOWN), per PokerStars pot, chips by seat."""
    returned_implied: bool = False
    """The history wrote no ``Uncalled bet ... returned`` line although the actions leave one (histories
    before about 2008): ``returned`` is then the bet the actions leave, and 'Total pot' confirmed it."""
    pooled: bool = False
    """The room writes each seat's collected amount but not the pot it came from: ``pots`` is one pot holding the
    seats' totals, compared with each seat's total over the rules' pots."""
    chip: int = 1
    """The room's smallest chip at this table (Full Tilt: 5 cents): the rules split to the unit, the room to this
    chip, so a split pot's shares may differ by less than one such chip and still match (with a note)."""
    cashouts: tuple[tuple[int, int], ...] = ()
    """All-in cash-outs written (GGPoker's ``Pays Cashout Risk``, ``Receives Cashout``): ``(seat, the house's
    side)``, what the house kept of the seat's run-out less what it paid, seats ascending."""
    cashout_fees: tuple[tuple[int, int], ...] = ()
    """The cash-out fees written (PokerStars' ``| Cash Out Fee $X``): ``(seat, fee)``, seats ascending; each is
    checked against the fee on the settlement's value (``fee_ppm`` of it, rounded half to even)."""


class Bounty(NamedTuple):
    """A knockout bounty line: who won which bounty, as written and in cents (checked against the rules' award).

    Bounties are money (cents: the currency's smallest unit) even in a chip
    tournament; an amount written without a currency (``wins the 22000
    bounty``) is read as a whole number of the tournament's money, in
    hundredths like the rest.
    """

    kind: str
    """``knockout`` (wins the X bounty), ``split knockout`` (A, B split the X bounty) or ``progressive``
    (wins X for eliminating Y, or for splitting the elimination of Y, and their own bounty increases by Z to W)."""
    winners: tuple[str, ...]
    seats: tuple[int, ...]
    """The winners' seats (those that have one in this hand)."""
    eliminated: str
    amount: str
    """As written (``$0.31``): a knockout's whole bounty, a split knockout's whole bounty (all winners
    together), a progressive knockout's cash part for this winner."""
    increase: str = ""
    """Progressive knockout: how much the winner's own bounty grew, as written."""
    bounty_now: str = ""
    """Progressive knockout: the winner's bounty after it grew, as written."""
    line: int = 0
    cents: int = 0
    """``amount`` in cents."""
    increase_cents: int = 0
    """``increase`` in cents (0 unless progressive)."""
    now_cents: int = 0
    """``bounty_now`` in cents (0 unless progressive)."""

    def document(self) -> dict[str, object]:
        """The report's JSON for this bounty."""
        out: dict[str, object] = {
            "kind": self.kind,
            "winners": list(self.winners),
            "seats": list(self.seats),
            "eliminated": self.eliminated,
            "amount": self.amount,
            "line": self.line,
        }
        if self.increase:
            out["increase"] = self.increase
            out["bounty_now"] = self.bounty_now
        return out


class Place(NamedTuple):
    """``Y finished the tournament in 6th place [and received $4.72.]``, or the winner's ``X wins the
    tournament and receives $230.36 - congratulations!`` (``won``, ``place`` 1)."""

    player: str
    seat: int
    place: int
    """The place in the whole tournament (1 = its winner): only its order among this hand's busts is checked."""
    received: int | None
    """The prize in cents, when the line gives one."""
    line: int
    won: bool = False


class Purchase(NamedTuple):
    """``X re-buys and receives 1500 chips for $5.00`` / ``X takes the add-on and receives 3000 chips for $5.00``
    (PokerStars): chips bought between two hands of the table."""

    player: str
    kind: str
    """``rebuy`` or ``add_on`` (the ledger's ``chips`` message's kinds)."""
    chips: int
    cost: str
    """What was paid, as written (``$5.00``, ``150 StarsCoin``)."""
    line: int
    before_seats: bool
    """Written above the hand's seat lines: bought before this hand (its seat line holds the chips); else after the
    hand, for the table's next hand."""
    bounty: int | None = None
    """In a knockout, the bounty (cents) the purchase adds to the buyer's head, told from its cost by the buy-in
    (PokerStars: a fresh starting bounty when it costs prize + bounty); ``None`` when the cost does not tell."""


class Stakes(NamedTuple):
    """The table's terms as the history's header writes them: what a rake schedule is looked up by
    (``showdown replay --rake-schedule``)."""

    small_blind: int | None
    big_blind: int | None
    """In the hand's units (cents in a cash game); fixed limit: the small bet."""
    limit: str
    """``no_limit``, ``pot_limit``, ``fixed_limit``; ``""`` when the header does not say."""
    played_on: date | None
    """The day the room dates the hand (PokerStars: its ET date when it writes one)."""


class HandRecord(NamedTuple):
    """One hand, read: where it is, the event to settle and the recorded outcome to compare with."""

    source: str
    hand_id: str
    line: int
    """1-based line where the hand starts in ``source``."""
    event: ShowdownEvent | None
    """``None`` when the hand cannot be settled as recorded (see ``unverifiable``)."""
    outcome: PhhOutcome | StarsOutcome | None
    """``None`` when the history recorded no outcome."""
    unverifiable: str
    """Why the history cannot decide the hand (unknown cards at a contested showdown, a cancelled hand, an
    All-in Cash Out), or ``""``."""
    contested: bool
    """Two or more seats reached the showdown (mucks included)."""
    game: str = ""
    """The game as the report names it (``Hold'em``, ``Omaha Hi/Lo``, ``Razz``): see :mod:`.games`."""
    bounties: tuple[Bounty, ...] = ()
    """Knockout bounties won in this hand, in the order written."""
    places: tuple[Place, ...] = ()
    """Tournament finishes written in this hand (``finished the tournament in``, ``wins the tournament``)."""
    currency: str = ""
    """The symbol the hand's money is written with (``$``), for the report's reasons; ``""`` when none."""
    purchases: tuple[Purchase, ...] = ()
    """Rebuys and add-ons written in this hand (whole tournaments account for them between hands)."""
    site: str = ""
    """The site an Open Hand History hand names (``site_name``, else ``network_name``): the room of a format many
    rooms export; ``""`` for a room's own format (its room is the hand id's prefix) or an OHH hand naming none."""
    buy_in_bounty: int | None = None
    """The bounty (cents) the tournament's buy-in states (PokerStars' ``$12.30+$12.25+$2.45``: the middle amount),
    every entry's starting bounty; ``None`` when the buy-in states none."""
    currency_code: str = ""
    """The currency its amounts are in: an ISO 4217 code (``USD``), ``chips`` in a tournament, a play-money code as
    the room writes it, ``""`` when the history writes none (see :mod:`.currency`); the report's rake is per code."""
    stakes: Stakes | None = None
    """The table's blinds, betting and date, when the reader gives them (PokerStars): a rake schedule's lookup."""
    played_by_reader: bool = False
    """The reader itself played the hand's betting through the state machine (PHH: :class:`showdown_core.betting.
    Machine` gives its contributions), though its event carries no ``play``."""
    no_play: str = ""
    """Why a reader that writes ``play`` wrote none for this hand (:attr:`.room_play.PlayLog.why_not`); ``""`` when
    it did, or when its reader writes none (the replay's summary counts hands by it)."""
    no_play_detail: str = ""
    """What exactly was refused, when :attr:`no_play` alone does not say (the state machine's message)."""


def validated_event(doc: dict[str, Any], source: str, hand_id: str, line: int | Callable[[], int]) -> ShowdownEvent:
    """``doc`` as the worker's ShowdownEvent, or :class:`~.errors.ImpossibleAction` saying why it is none.

    ``line`` may be a function that finds it: called only when the event is refused."""
    try:
        return _VALIDATE(doc)  # type: ignore[no-any-return]  # ShowdownEvent.model_validate(doc), a microsecond less
    except ValidationError as exc:
        reasons = "; ".join(r.message for r in rejections(exc, doc))
        where = line if isinstance(line, int) else line()
        raise ImpossibleAction(source, hand_id, where, f"the hand is not a valid showdown: {reasons}") from None


_VALIDATE: Final = ShowdownEvent.__pydantic_validator__.validate_python
"""What ``ShowdownEvent.model_validate`` runs (every field and rule of the contract), without its Python wrapper."""
