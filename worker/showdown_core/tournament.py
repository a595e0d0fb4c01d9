"""The tournament ledger: places, prizes and bounties, decided message by message and hand by hand.

Part of the pure core: no I/O, no pydantic. A :class:`Ledger` is one
tournament's state; :class:`Book` holds ledgers and applies a tournament's
messages (core values, :mod:`showdown_core.tournament_messages`, converted from
the contract at the edge) and hands to them in stream order, copy-on-write
(:meth:`Book.begin`), so that a decision abandoned is undone by dropping the
copy. The decision step (:mod:`showdown_service.decision.decide`) drives it for the
worker and every replay; the worker keeps the ledgers in Redis beside the
commit (:mod:`showdown_service.worker.ledger`, which also decides which of
a ledger's fields to write from the record of what changed that a book view
keeps); ``showdown tournament replay`` keeps them in memory.

The rules (each with a test named for it; sources in docs/tournaments.md):

* **Different hands** (PokerStars "Simultaneous elimination"; TDA 2024 RP-8;
  WSOP 2026 Rule 126): entries eliminated in different hands finish in the
  order their hands come on the tournament's stream.
* **One hand**: whoever started the hand with more chips finishes higher
  (PokerStars, GGPoker, WSOP 126). Equal starting stacks tie (PokerStars, the
  default) or, with ``equal_stacks: seat_order``, the first eliminated left of
  the button finishes higher (GGPoker).
* **Hand-for-hand** (hands with ``hand_for_hand_round``): every table's hand of
  a round counts as one hand; its busts are placed when ``round_complete``
  arrives. ``by_stack`` (default, PokerStars): ranked by starting stack as one
  hand; equal stacks at different tables tie (no seat order spans tables;
  at one table ``seat_order`` still applies). ``tie`` (WSOP 126.b): they all
  tie.
* **Ties** share the sum of the prizes of the places they occupy equally; the
  cents the division leaves go one each to the tied entries in the order they
  entered (no room publishes this rule: it is ours). A tie shows the best
  place it shares.
* **The end**: when one entry is left it finishes 1st and collects its own
  bounty as cash. ``satellite``: when every remaining entry would receive the
  same prize, they all finish in the best remaining place and share those
  prizes (PokerStars Double-or-Nothing).
* **Registration**: places count from ``registration_closed``; an entry
  eliminated before it finishes without a place (``place`` null, prize 0) and
  its player may enter again; each entry finishes on its own.
* **Rebuys and add-ons** (``chips``): chips, and in a knockout bounty, join an
  entry in play between hands, once per purchase number.
* **Bounties** are settled by the core (:mod:`showdown_core.bounties`) from
  the heads the ledger holds; bounty money is conserved (cash paid plus the
  bounties on heads equals the bounties put up at entry), checked after every
  change, refused otherwise.
* **Deals** (``deal``; amounts by :mod:`showdown_core.deals`): taken between
  hands once registration is closed, outside a hand-for-hand round, with every
  entry in play in the money and named; from then on each entry finishes with
  its deal amount as its prize (the winner: plus ``left_to_play_for``), places
  still decided by play. Prize money is conserved (the prizes paid equal the
  payouts of the places taken), checked when a deal is made and at the end.
* **Mystery bounties** (``open.mystery_bounties``; envelopes by
  :mod:`showdown_core.mystery`): a hand that starts with at most N entries in
  play pays each elimination's envelope as cash to its relevant pot's
  winner(s); envelopes paid plus envelopes left equal the pool (checked).

Money (prizes, bounties) is in the currency's smallest unit; stacks in chips.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, NamedTuple

from showdown_core import InvalidEvent, InvariantViolation, Settlement, Showdown
from showdown_core import mystery as envelopes
from showdown_core.bounties import award_bounties
from showdown_core.deals import deal_amounts
from showdown_core.model import BountyAward
from showdown_core.tournament_messages import (
    ChipsBought,
    DealAgreed,
    EntryRegistered,
    RegistrationClosed,
    RoundComplete,
    TournamentMessage,
    TournamentOpened,
)
from showdown_rules import MAX_CHIPS, MAX_SEAT

Status = Literal["playing", "held", "finished"]
"""``held``: eliminated in a hand-for-hand round that is not complete yet (out of play, not yet placed)."""


@dataclass(frozen=True, slots=True)
class Rules:
    """A tournament's settings, from its ``open`` message (payouts replaced at ``registration_closed``)."""

    tournament_id: str
    payouts: tuple[int, ...]
    bounty_cash_ppm: int | None
    equal_stacks: str = "tie"
    hand_for_hand: str = "by_stack"
    satellite: bool = False
    mystery_from: int | None = None
    """Mystery bounties: hands starting with at most this many entries in play draw envelopes (None: no stage)."""
    mystery_pool: tuple[tuple[int, int], ...] = ()
    """The published envelopes: (amount, count), each amount once."""

    def prize(self, place: int) -> int:
        """The prize of ``place`` (1 = first), 0 beyond the payouts."""
        return self.payouts[place - 1] if place <= len(self.payouts) else 0


@dataclass(slots=True)
class Entry:
    """One entry of a player: chips in play, the bounty on its head, and how it finished."""

    player_id: str
    entry: int
    order: int
    """1, 2, 3, ...: the order entries registered in (who gets a tie's left-over cents first)."""
    chips: int
    bounty: int
    """On the head now (currency units); 0 once the entry is out."""
    bounty_in: int
    """Put up at registration."""
    stack_in: int
    """Chips at registration."""
    bounty_cash: int = 0
    """Collected from bounties so far (the winner's own final bounty included)."""
    status: Status = "playing"
    place: int | None = None
    tied: int = 1
    prize: int = 0
    held: tuple[int, int, str, int] | None = None
    """While ``held``: (round, starting stack of the hand, the hand's table and id, seat position from the
    button's left, 0 first)."""
    bought: tuple[tuple[int, int], ...] = ()
    """Each purchase since registration (``chips`` messages: rebuys, add-ons), in order: (chips, bounty)."""
    mystery_cash: int = 0
    """Won from mystery-bounty envelopes so far."""

    @property
    def key(self) -> tuple[str, int]:
        return (self.player_id, self.entry)

    def copy(self) -> Entry:
        """A copy to change (positional: a twentieth of ``copy.copy``'s time on a slotted dataclass)."""
        return Entry(self.player_id, self.entry, self.order, self.chips, self.bounty, self.bounty_in, self.stack_in,
                     self.bounty_cash, self.status, self.place, self.tied, self.prize, self.held,
                     self.bought, self.mystery_cash)  # fmt: skip

    def placement(self, tournament_id: str, mystery: bool = False) -> dict[str, Any]:
        """The placement record (see :class:`showdown_messages.tournaments.Placement`); ``mystery``: the tournament
        has a mystery-bounty stage (the record gains ``mystery_bounty_cash``)."""
        if mystery:
            return {**self.placement(tournament_id), "mystery_bounty_cash": self.mystery_cash}
        return {
            "tournament_id": tournament_id,
            "player_id": self.player_id,
            "entry": self.entry,
            "place": self.place,
            "tied": self.tied,
            "prize": self.prize,
            "bounty_cash": self.bounty_cash,
        }


@dataclass(frozen=True, slots=True)
class Deal:
    """A deal agreed: how, what was kept back for the winner, and each entry's guaranteed amount."""

    method: str
    left_to_play_for: int
    amounts: tuple[tuple[tuple[str, int], int], ...]
    """((player_id, entry), amount) for every entry in the deal, in registration order."""
    custom: bool = False

    def amount(self, key: tuple[str, int]) -> int | None:
        return next((amount for k, amount in self.amounts if k == key), None)

    def terms(self) -> tuple[str, int, frozenset[tuple[tuple[str, int], int | None]]]:
        """What the ``deal`` message said (a repeat of it is a duplicate): method, kept back, entries (and amounts,
        custom only)."""
        return (
            self.method,
            self.left_to_play_for,
            frozenset((key, amount if self.custom else None) for key, amount in self.amounts),
        )


@dataclass(slots=True)
class Ledger:
    """One tournament's state. ``live`` maps a player to the entry they have in play (or held): the same object
    as in ``entries`` (a copy-on-write view replaces it in both)."""

    rules: Rules
    registration_open: bool = True
    next_order: int = 1
    rounds_done: int = 0
    over: bool = False
    entries: dict[tuple[str, int], Entry] = field(default_factory=dict)
    live: dict[str, Entry] = field(default_factory=dict)
    entered: dict[str, int] = field(default_factory=dict)
    """Entries registered per player (the next entry number is one more)."""
    opened_payouts: tuple[int, ...] = ()
    """The payouts of the ``open`` message (``rules.payouts`` may have been replaced since)."""
    rounds_seen: int = 0
    """The highest hand-for-hand round a hand has played (a round is open while above ``rounds_done``)."""
    deal: Deal | None = None
    envelopes_left: dict[int, int] = field(default_factory=dict)
    """Mystery-bounty envelopes not yet drawn, by amount (replaced, never changed in place: views share it)."""
    expired: bool = False
    """A finished ledger kept only as far as late messages need (each entry's figures at entry and purchases: no
    places, prizes or stacks); its standings are the placements written when it finished, not its entries."""

    def in_play(self) -> int:
        """Entries in play (playing, not held in a hand-for-hand round)."""
        return sum(1 for e in self.live.values() if e.status == "playing")

    def check_prizes(self) -> None:
        """Prize money is conserved: the prizes paid to placed entries (deal amounts, and kept-back money, included)
        equal the payouts of the places taken, and what a deal still owes the entries in play equals the payouts of
        the places left."""
        placed = [e for e in self.entries.values() if e.place is not None]
        left = len(self.live)
        paid, first = sum(e.prize for e in placed), left + 1
        if self.deal is not None and left:
            paid += self.deal.left_to_play_for + sum(
                amount for key, amount in self.deal.amounts if self.entries[key].place is None
            )
            first = 1
        due = sum(self.rules.prize(p) for p in range(first, left + len(placed) + 1))
        if paid != due:
            raise InvariantViolation(
                f"tournament {self.rules.tournament_id!r}: prizes paid and owed {paid} != payouts {due}; refusing"
            )

    def check_envelopes(self) -> None:
        """Envelopes paid plus envelopes left equal the pool."""
        paid = sum(e.mystery_cash for e in self.entries.values())
        pool = envelopes.pool_value(dict(self.rules.mystery_pool))
        if paid + envelopes.pool_value(self.envelopes_left) != pool:
            raise InvariantViolation(
                f"tournament {self.rules.tournament_id!r}: envelopes paid {paid} + left "
                f"{envelopes.pool_value(self.envelopes_left)} != pool {pool}; refusing"
            )

    chips_in_play: int = 0
    """Chips registered and bought so far (hands move them, never change their sum: a tournament takes no rake);
    at most ``MAX_CHIPS``, so that no stack a hand must give can pass it. Counted from the entries when read."""
    bounties_put_up: int = 0
    """Bounties put up at entry and bought since (cash paid plus the bounties on heads); at most ``MAX_CHIPS``."""

    def count(self) -> None:
        """Set the counters derived from the entries (a ledger read from its fields; one written before
        ``rounds_seen`` was kept has it from the rounds its held entries wait for)."""
        self.rounds_seen = max([self.rounds_seen, *(e.held[0] for e in self.live.values() if e.held is not None)])
        self.chips_in_play = sum(e.stack_in + sum(c for c, _ in e.bought) for e in self.entries.values())
        self.bounties_put_up = sum(e.bounty_in + sum(b for _, b in e.bought) for e in self.entries.values())

    def unplaced(self) -> list[Entry]:
        """Entries still playing or held, in registration order."""
        return sorted(self.live.values(), key=_ORDER)

    def check_bounties(self) -> None:
        """Bounty money is conserved: cash paid plus bounties on heads equals what was put up at entry (and bought
        since)."""
        put_up = cash = heads = 0
        for e in self.entries.values():
            put_up += e.bounty_in + sum(bounty for _, bounty in e.bought)
            cash += e.bounty_cash
            heads += e.bounty
        if cash + heads != put_up:
            raise InvariantViolation(
                f"tournament {self.rules.tournament_id!r}: bounties paid {cash} + on heads {heads} != put up "
                f"{put_up}; refusing"
            )

    def clone(self) -> Ledger:
        """A copy to change without touching this one (entries copied on write by :class:`Book`)."""
        twin = copy.copy(self)
        twin.entries = dict(self.entries)
        twin.live = dict(self.live)
        twin.entered = dict(self.entered)
        return twin


class Refused(NamedTuple):
    """A message or hand the ledger will not take: dead-lettered with this code (see the rejection codes)."""

    code: str
    field: str
    message: str


class Applied(NamedTuple):
    """What applying one entry did."""

    outcome: Literal["settled", "duplicate", "rejected", "untracked"]
    """``untracked``: a hand of a tournament that was never opened (settled as any hand)."""
    placements: tuple[dict[str, Any], ...] = ()
    """Placement records written by this entry, in place order."""
    settlement: Settlement | None = None
    """The hand's settlement when the ledger changed it (bounties from the ledger's heads), else ``None``."""
    refused: Refused | None = None


UNTRACKED: Final = Applied("untracked")
SETTLED: Final = Applied("settled")
DUPLICATE: Final = Applied("duplicate")
_ORDER: Final = lambda e: e.order  # noqa: E731 - a sort key


def _refuse(code: str, field: str, message: str) -> Applied:
    return Applied("rejected", refused=Refused(code, field, message))


class Book:
    """Ledgers by tournament id, and the rules that change them.

    Two ways to change a book. Copy-on-write (the replay): changes go to a
    copy made by :meth:`begin`, which the caller keeps (:meth:`adopt`) once
    what it decided stands, or drops. In place (``in_place=True``, the
    worker): :meth:`begin` only starts a new record of what changes, the
    ledgers change as they are, and a caller whose commit fails throws the
    book away and reads the ledgers again (they are exact in Redis). In place
    saves a copy of every entry a batch touches: most of the ledger's cost
    per hand.
    """

    def __init__(self, ledgers: dict[str, Ledger | None] | None = None, *, in_place: bool = False) -> None:
        self.ledgers: dict[str, Ledger | None] = ledgers or {}
        """``None``: known not to be opened."""
        self.in_place = in_place
        self._copied: set[str] = set()
        self._owned: set[tuple[str, tuple[str, int]]] = set()
        # What this view changed: the rules' record of it, nothing more. How a store writes it (which fields,
        # each entry once) is the store's (showdown_service.worker.ledger.writes).
        self.changed: dict[str, set[tuple[str, int]]] = {}
        """Entries this view changed beyond their chips (status, place, bounty, purchases...), by tournament."""
        self.meta_changed: set[str] = set()
        """Tournaments whose settings or counters this view changed."""
        self.chips_changed: dict[str, list[Entry]] = {}
        """In place: the entries whose chips this view's hands moved, by tournament, in the order of their hands
        (an entry once per hand it played)."""

    def begin(self) -> Book:
        """A copy-on-write view whose changes leave this book as it is; in place, this book with a fresh record
        of changes."""
        if self.in_place:
            self.changed, self.meta_changed, self.chips_changed = {}, set(), {}
            return self
        return Book(dict(self.ledgers))

    def adopt(self, other: Book) -> None:
        """Take ``other``'s ledgers (a committed view of this book)."""
        self.ledgers = other.ledgers

    def _ledger(self, tournament_id: str) -> Ledger | None:
        ledger = self.ledgers.get(tournament_id)
        if ledger is not None and not self.in_place and tournament_id not in self._copied:
            ledger = self.ledgers[tournament_id] = ledger.clone()
            self._copied.add(tournament_id)
        return ledger

    def _entry(self, ledger: Ledger, key: tuple[str, int]) -> Entry:
        """An entry to change (copied the first time this view changes it)."""
        tournament_id = ledger.rules.tournament_id
        if self.in_place:
            self.changed.setdefault(tournament_id, set()).add(key)
            return ledger.entries[key]
        tag = (tournament_id, key)
        if tag not in self._owned:
            original = ledger.entries[key]
            ledger.entries[key] = mine = original.copy()
            if ledger.live.get(original.player_id) is original:
                ledger.live[original.player_id] = mine
            self._owned.add(tag)
            self.changed.setdefault(tournament_id, set()).add(key)
        return ledger.entries[key]

    # --- messages ------------------------------------------------------------------------

    def apply_message(self, message: TournamentMessage) -> Applied:
        """Apply one tournament message; repeats of one already applied are ``duplicate``."""
        if isinstance(message, TournamentOpened):
            return self._open(message)
        ledger = self._ledger(message.tournament_id)
        if ledger is None:
            return _refuse(
                "tournament_not_open",
                "tournament_id",
                f"{message.tournament_id!r} has no `open` message on this shard before this {message.type!r} message",
            )
        if isinstance(message, EntryRegistered):
            return self._enter(ledger, message)
        if isinstance(message, ChipsBought):
            return self._buy(ledger, message)
        if isinstance(message, RegistrationClosed):
            return self._close(ledger, message)
        if isinstance(message, DealAgreed):
            return self._deal(ledger, message)
        return self._round_complete(ledger, message)

    def _open(self, message: TournamentOpened) -> Applied:
        rules = Rules(
            message.tournament_id,
            tuple(message.payouts),
            message.bounty_cash_ppm,
            message.equal_stacks,
            message.hand_for_hand,
            message.satellite,
        )
        if message.mystery_bounties is not None:
            pool = envelopes.pool_of((e.amount, e.count) for e in message.mystery_bounties.envelopes)
            rules = dataclasses.replace(
                rules, mystery_from=message.mystery_bounties.from_entries_left, mystery_pool=tuple(pool.items())
            )
        known = self._ledger(message.tournament_id)
        if known is not None:
            if known.opened_payouts == rules.payouts and _same_but_payouts(known.rules, rules):
                return DUPLICATE
            return _refuse(
                "tournament_exists",
                "tournament_id",
                f"{message.tournament_id!r} was opened already with other settings; open a tournament once",
            )
        ledger = Ledger(rules, opened_payouts=rules.payouts, envelopes_left=dict(rules.mystery_pool))
        self.ledgers[message.tournament_id] = ledger
        self._copied.add(message.tournament_id)
        self.meta_changed.add(message.tournament_id)
        return SETTLED

    def _enter(self, ledger: Ledger, message: EntryRegistered) -> Applied:
        key = (message.player_id, message.entry)
        known = ledger.entries.get(key)
        if known is not None:
            if (known.stack_in, known.bounty_in) == (message.stack, message.bounty or 0):
                return DUPLICATE
            return _refuse(
                "entry_conflict",
                "entry",
                f"entry {message.entry} of {message.player_id!r} is registered already with other figures",
            )
        if not ledger.registration_open or ledger.over:
            return _refuse(
                "registration_closed",
                "type",
                f"registration of tournament {ledger.rules.tournament_id!r} is closed: no more entries",
            )
        if message.player_id in ledger.live:
            number = ledger.live[message.player_id].entry
            return _refuse(
                "entry_conflict",
                "player_id",
                f"{message.player_id!r} still has entry {number} in play; a player re-enters only once eliminated",
            )
        expected = 1 + ledger.entered.get(message.player_id, 0)
        if message.entry != expected:
            return _refuse(
                "entry_conflict",
                "entry",
                f"{message.entry} is not {message.player_id!r}'s next entry number ({expected})",
            )
        bounties = ledger.rules.bounty_cash_ppm is not None
        who = f"entry {message.entry} of {message.player_id!r}"
        tournament_id = ledger.rules.tournament_id
        if bounties and message.bounty is None:
            return _refuse(
                "bounty_required",
                "bounty",
                f"bounty: {who} gives no bounty, but tournament {tournament_id!r} pays knockout bounties: give the "
                "bounty put on the entry's head.",
            )
        if not bounties and message.bounty:
            return _refuse(
                "bounty_not_expected",
                "bounty",
                f"bounty: {who} gives a bounty of {message.bounty}, but tournament {tournament_id!r} was opened "
                "without bounties: leave it out.",
            )
        bounty = message.bounty or 0
        over = _past_the_limit(ledger, message.stack, bounty, f"{who} brings", "stack")
        if over is not None:
            return over
        entry = Entry(message.player_id, message.entry, ledger.next_order, message.stack, bounty, bounty, message.stack)
        ledger.entries[key] = entry
        ledger.chips_in_play += message.stack
        ledger.bounties_put_up += bounty
        self._owned.add((tournament_id, key))
        self.changed.setdefault(tournament_id, set()).add(key)
        ledger.live[message.player_id] = entry
        ledger.entered[message.player_id] = message.entry
        ledger.next_order += 1
        self.meta_changed.add(tournament_id)
        return SETTLED

    def _buy(self, ledger: Ledger, message: ChipsBought) -> Applied:
        """A rebuy or add-on: chips (and, in a knockout, bounty) added to an entry in play, once per purchase
        number."""
        tournament_id = ledger.rules.tournament_id
        who = f"entry {message.entry} of {message.player_id!r}"
        known = ledger.entries.get((message.player_id, message.entry))
        if known is None:
            return _refuse("not_entered", "entry", f"{who} was never registered in tournament {tournament_id!r}")
        bounty = message.bounty or 0
        if message.purchase <= len(known.bought):
            if known.bought[message.purchase - 1] == (message.chips, bounty):
                return DUPLICATE
            return _refuse(
                "purchase_conflict",
                "purchase",
                f"purchase {message.purchase} of {who} was applied already with other figures "
                f"({known.bought[message.purchase - 1][0]} chips)",
            )
        if message.purchase != len(known.bought) + 1:
            return _refuse(
                "purchase_conflict",
                "purchase",
                f"{message.purchase} is not the next purchase of {who} ({len(known.bought) + 1})",
            )
        if ledger.over or known.status != "playing":
            return _refuse(
                "not_entered",
                "player_id",
                f"{who} is not in play ({_why_out(ledger, known)}): only an entry in play buys chips",
            )
        if bounty and ledger.rules.bounty_cash_ppm is None:
            return _refuse(
                "bounty_not_expected",
                "bounty",
                f"bounty: purchase {message.purchase} of {who} buys a bounty of {bounty}, but tournament "
                f"{tournament_id!r} was opened without bounties: leave it out.",
            )
        over = _past_the_limit(ledger, message.chips, bounty, f"purchase {message.purchase} of {who} buys", "chips")
        if over is not None:
            return over
        entry = self._entry(ledger, known.key)
        entry.chips += message.chips
        entry.bounty += bounty
        ledger.chips_in_play += message.chips
        ledger.bounties_put_up += bounty
        entry.bought = (*entry.bought, (message.chips, bounty))
        return SETTLED

    def _close(self, ledger: Ledger, message: RegistrationClosed) -> Applied:
        payouts = tuple(message.payouts) if message.payouts is not None else ledger.rules.payouts
        if not ledger.registration_open:
            if payouts == ledger.rules.payouts:
                return DUPLICATE
            return _refuse("registration_closed", "payouts", "registration was closed already with other payouts")
        unpaid = _unpaid(ledger, payouts)
        if unpaid is not None:
            return unpaid
        ledger.registration_open = False
        ledger.rules = dataclasses.replace(ledger.rules, payouts=payouts)
        self.meta_changed.add(ledger.rules.tournament_id)
        return Applied("settled", tuple(self._finish(ledger)))

    def _deal(self, ledger: Ledger, message: DealAgreed) -> Applied:
        """A final-table deal: every entry in play named, the amounts computed by the core from the ledger's stacks
        and the prizes not yet paid (see the module's rules); paid as each entry finishes."""
        tournament_id = ledger.rules.tournament_id
        named = [(e.player_id, e.entry) for e in message.entries]
        custom = message.method == "custom"
        if ledger.deal is not None:
            asked = frozenset(((e.player_id, e.entry), e.amount) for e in message.entries)
            if ledger.deal.terms() == (message.method, message.left_to_play_for, asked):
                return DUPLICATE
            return _refuse("deal_not_allowed", "type", f"tournament {tournament_id!r} agreed a deal already")
        why = _no_deal(ledger)
        if why:
            return _refuse("deal_not_allowed", "type", f"tournament {tournament_id!r}: {why}")
        seen: set[tuple[str, int]] = set()
        for i, key in enumerate(named):
            entry = ledger.entries.get(key)
            who = f"entry {key[1]} of {key[0]!r}"
            if key in seen:
                return _refuse("deal_entries", f"entries[{i}]", f"{who} is named twice")
            seen.add(key)
            if entry is None:
                return _refuse("deal_entries", f"entries[{i}]", f"{who} was never registered in {tournament_id!r}")
            if ledger.live.get(entry.player_id) is not entry:
                out = f"finished in place {entry.place}" if entry.status == "finished" else _held_out(entry)
                return _refuse("deal_entries", f"entries[{i}]", f"{who} is not in play ({out})")
        missing = [e for e in ledger.unplaced() if e.key not in seen]
        if missing:
            e = missing[0]
            why = f"entry {e.entry} of {e.player_id!r} is in play and not in the deal: every entry in play agrees it"
            return _refuse("deal_entries", "entries", why)
        left = ledger.unplaced()
        given = {(e.player_id, e.entry): e.amount or 0 for e in message.entries}
        try:
            amounts = deal_amounts(
                message.method,
                [e.chips for e in left],
                [ledger.rules.prize(p) for p in range(1, len(left) + 1)],
                message.left_to_play_for,
                [given[e.key] for e in left] if custom else None,
            )
        except InvalidEvent as exc:
            return _refuse(exc.code, exc.field, exc.message)
        pairs = tuple((e.key, amount) for e, amount in zip(left, amounts, strict=True))
        ledger.deal = Deal(message.method, message.left_to_play_for, pairs, custom)
        ledger.check_prizes()
        self.meta_changed.add(tournament_id)
        return SETTLED

    def _round_complete(self, ledger: Ledger, message: RoundComplete) -> Applied:
        if message.round <= ledger.rounds_done:
            return DUPLICATE
        if ledger.over:  # nothing left to place: settling it would only move rounds_done past the end
            finished = f"round {message.round} completes after tournament {message.tournament_id!r} finished"
            return _refuse("tournament_over", "round", finished)
        placements: list[dict[str, Any]] = []
        held = [self._entry(ledger, e.key) for e in ledger.unplaced() if e.status == "held"]
        for round_ in sorted({e.held[0] for e in held if e.held is not None and e.held[0] <= message.round}):
            group = [(e, e.held[1], e.held[2], e.held[3]) for e in held if e.held is not None and e.held[0] == round_]
            placements += self._place(ledger, group, hand_for_hand=True)
        ledger.rounds_done = message.round
        self.meta_changed.add(ledger.rules.tournament_id)
        placements += self._finish(ledger)
        return Applied("settled", tuple(placements))

    # --- hands ---------------------------------------------------------------------------

    def apply_hand(
        self,
        settlement: Settlement,
        hand_for_hand_round: int | None,
        bounties_given: bool,
        mystery: Sequence[tuple[int, int]] | None = None,
        bounty_cash_ppm: int | None = None,
    ) -> Applied:
        """Check a settled hand of a tournament against the ledger, then move its chips, bounties and busts.

        ``bounties_given``: the event carried ``players[].bounty`` (checked
        against the heads); without them, a knockout's bounties are settled
        from the heads the ledger holds (the returned settlement carries them).
        ``mystery``: the event's ``mystery_bounties`` as ``(seat, amount)``
        (None: not given).
        ``bounty_cash_ppm``: the event's, as given (``None`` when it gives
        none): given, it must be the tournament's, bounties or not.
        """
        showdown = settlement.showdown
        tournament_id = showdown.tournament_id
        if tournament_id is None:
            return UNTRACKED
        ledger = self._ledger(tournament_id)
        if ledger is None:
            return UNTRACKED
        rules = ledger.rules
        checked = _check_hand(ledger, showdown, hand_for_hand_round, bounties_given, bounty_cash_ppm)
        if isinstance(checked, Applied):
            return checked
        entries = checked
        drawn: dict[int, int] = {}
        if rules.mystery_from is not None or mystery is not None:
            drawn_or_refused = _mystery_stage(ledger, settlement, mystery)
            if isinstance(drawn_or_refused, Applied):
                return drawn_or_refused
            drawn = drawn_or_refused
        changed: Settlement | None = None
        if rules.bounty_cash_ppm is not None and not bounties_given:
            settlement = changed = _with_ledger_heads(settlement, entries, rules.bounty_cash_ppm)
            showdown = settlement.showdown
        seats = showdown.seats
        if self.in_place:
            self.chips_changed.setdefault(tournament_id, []).extend(entries)
        else:
            entries = [self._entry(ledger, entry.key) for entry in entries]
        busted = False
        for s, won, entry in zip(seats, settlement.collected, entries):  # noqa: B905 - one length: the hand's seats
            entry.chips = chips = s.stack - s.contributed - s.dead_money + won  # type: ignore[operator]
            if not chips:
                busted = True
        if hand_for_hand_round is not None and hand_for_hand_round > ledger.rounds_seen:
            ledger.rounds_seen = hand_for_hand_round
            self.meta_changed.add(tournament_id)
        if drawn:
            by_seat = {s.seat: e for s, e in zip(seats, entries, strict=True)}
            paid = self._pay_envelopes(ledger, settlement, drawn, by_seat)
            settlement = changed = settlement._replace(mystery_bounties=paid)  # the result names each envelope
        if not (busted or settlement.bounties):  # the usual hand: only chips moved
            return SETTLED if changed is None else Applied("settled", (), changed)
        return self._bounties_and_busts(ledger, settlement, entries, busted, hand_for_hand_round, changed=changed)

    def _bounties_and_busts(
        self,
        ledger: Ledger,
        settlement: Settlement,
        entries: list[Entry],
        busted: bool,
        hand_for_hand_round: int | None,
        *,
        changed: Settlement | None,
    ) -> Applied:
        """The unusual hand's second half: bounties move among the seats (conserved, or refused), busts are placed."""
        showdown = settlement.showdown
        seats = showdown.seats
        if self.in_place:  # bounties or places move too: those entries are written whole (the rest: chips)
            involved = {share.seat for award in settlement.bounties for share in award.winners}
            involved.update([award.seat for award in settlement.bounties])
            self.changed.setdefault(ledger.rules.tournament_id, set()).update(
                [e.key for s, e in zip(seats, entries) if not e.chips or s.seat in involved]  # noqa: B905 - as above
            )
        placements: list[dict[str, Any]] = []
        if settlement.bounties:
            money_before = sum([e.bounty + e.bounty_cash for e in entries])
            self._move_bounties(settlement, {s.seat: e for s, e in zip(seats, entries, strict=True)})
            if sum([e.bounty + e.bounty_cash for e in entries]) != money_before:  # bounties move among the seats
                raise InvariantViolation(f"hand {showdown.hand_id!r}: bounty money was not conserved; refusing")
        if busted:
            placements += self._busts(ledger, showdown, entries, hand_for_hand_round)
        return Applied("settled", tuple(placements), changed)

    def _pay_envelopes(
        self, ledger: Ledger, settlement: Settlement, drawn: dict[int, int], by_seat: dict[int, Entry]
    ) -> tuple[BountyAward, ...]:
        """Each drawn envelope, as cash, to the winners of its seat's relevant pot; the envelopes leave the pool.
        The envelopes paid, as the result reports them."""
        ledger.envelopes_left = envelopes.left_after(ledger.envelopes_left, drawn.values())
        tournament_id = ledger.rules.tournament_id
        self.meta_changed.add(tournament_id)
        paid = envelopes.award(settlement, drawn)
        for award in paid:
            for share in award.winners:
                winner = by_seat[share.seat]
                winner.mystery_cash += share.cash
                if self.in_place:
                    self.changed.setdefault(tournament_id, set()).add(winner.key)
        ledger.check_envelopes()
        return paid

    @staticmethod
    def _move_bounties(settlement: Settlement, by_seat: dict[int, Entry]) -> None:
        """Each eliminated head to the winners of its relevant pot: cash collected, the added part on their heads."""
        for award in settlement.bounties:
            gone = by_seat[award.seat]
            if gone.bounty != award.bounty:
                raise InvariantViolation(f"seat {award.seat}: bounty {award.bounty} settled, {gone.bounty} on its head")
            gone.bounty = 0
            for share in award.winners:
                winner = by_seat[share.seat]
                winner.bounty += share.added
                winner.bounty_cash += share.cash

    def _busts(
        self, ledger: Ledger, showdown: Any, entries: list[Entry], hand_for_hand_round: int | None
    ) -> list[dict[str, Any]]:
        """The hand's eliminated entries: finished without a place (registration open), held for the round's
        end (hand-for-hand), or placed now; then the end of the tournament, if it came."""
        tournament_id = ledger.rules.tournament_id
        button = showdown.button_seat or 0
        hand = f"{showdown.table_id}\x1f{showdown.hand_id}"
        busted = [
            (entry, s.stack, hand, (s.seat - button - 1) % MAX_SEAT)
            for s, entry in zip(showdown.seats, entries, strict=True)
            if entry.chips == 0
        ]
        placements: list[dict[str, Any]] = []
        if busted:
            if ledger.registration_open:
                for entry, *_ in busted:
                    entry.status, entry.place, entry.prize = "finished", None, 0
                    del ledger.live[entry.player_id]
                    placements.append(entry.placement(tournament_id, ledger.rules.mystery_from is not None))
            elif hand_for_hand_round is not None:
                for entry, stack, hand_key, position in busted:
                    entry.status, entry.held = "held", (hand_for_hand_round, stack or 0, hand_key, position)
            else:
                placements += self._place(ledger, [(e, st or 0, h, p) for e, st, h, p in busted], hand_for_hand=False)
            placements += self._finish(ledger)
        return placements

    # --- places ---------------------------------------------------------------------------

    def _place(
        self, ledger: Ledger, busted: Sequence[tuple[Entry, int, str, int]], *, hand_for_hand: bool
    ) -> list[dict[str, Any]]:
        """Place entries eliminated together (one hand, or one hand-for-hand round) below every entry left."""
        rules = ledger.rules
        remaining = len(ledger.live)
        tiers: list[list[Entry]] = []
        if hand_for_hand and rules.hand_for_hand == "tie":
            tiers = [[e for e, *_ in busted]]
        else:
            by_stack: dict[int, list[tuple[Entry, int, str, int]]] = {}
            for bust in busted:
                by_stack.setdefault(bust[1], []).append(bust)
            for stack in sorted(by_stack, reverse=True):
                group = by_stack[stack]
                one_hand = len({hand for _, _, hand, _ in group}) == 1
                if rules.equal_stacks == "seat_order" and one_hand:
                    tiers += [[e] for e, *_ in sorted(group, key=lambda bust: bust[3])]
                else:
                    tiers.append([e for e, *_ in group])
        place = remaining - len(busted) + 1
        out: list[dict[str, Any]] = []
        for tier in tiers:
            out += self._award_places(ledger, tier, place)
            place += len(tier)
        return out

    def _award_places(self, ledger: Ledger, tier: Iterable[Entry], place: int) -> list[dict[str, Any]]:
        """``tier`` shares places ``place`` .. ``place + len - 1``: the best of them, and their prizes, equally
        (left-over cents one each in registration order)."""
        tied = sorted(tier, key=_ORDER)
        count = len(tied)
        if ledger.deal is not None:
            prizes = _deal_prizes(ledger.deal, tied, place)
        else:
            total = sum(ledger.rules.prize(p) for p in range(place, place + count))
            share, odd = divmod(total, count)
            prizes = [share + (i < odd) for i in range(count)]
        out = []
        mystery = ledger.rules.mystery_from is not None
        for entry, prize in zip(tied, prizes, strict=True):
            entry.status, entry.place, entry.tied, entry.prize, entry.held = "finished", place, count, prize, None
            del ledger.live[entry.player_id]
            out.append(entry.placement(ledger.rules.tournament_id, mystery))
        return out

    def _finish(self, ledger: Ledger) -> list[dict[str, Any]]:
        """After a change: one entry left finishes 1st; a satellite ends once every remaining prize is equal.
        The entries that finish here collect their own bounty as cash."""
        if ledger.registration_open or ledger.over or not ledger.live:
            return []
        rules = ledger.rules
        count = len(ledger.live)
        if count > 1 and not (rules.satellite and rules.prize(count) == rules.prize(1)):  # payouts never increase
            return []
        left = ledger.unplaced()
        if any(e.status == "held" for e in left):
            return []
        for e in left:
            entry = self._entry(ledger, e.key)
            entry.bounty_cash += entry.bounty
            entry.bounty = 0
        ledger.over = True
        self.meta_changed.add(rules.tournament_id)
        placements = self._award_places(ledger, [ledger.entries[e.key] for e in left], 1)
        ledger.check_bounties()
        ledger.check_prizes()
        return placements

    # --- standings ------------------------------------------------------------------------

    def standings(self, tournament_id: str) -> tuple[list[dict[str, Any]], list[Entry]]:
        """``(placements, still playing)``: finished entries by place (those without a place last, in the order
        they registered), then entries in play by chips, most first."""
        ledger = self.ledgers.get(tournament_id)
        if ledger is None:
            return [], []
        finished = [e for e in ledger.entries.values() if e.status == "finished"]
        finished.sort(key=lambda e: (e.place is None, e.place or 0, e.order))
        playing = sorted(ledger.live.values(), key=lambda e: (-e.chips, e.order))
        mystery = ledger.rules.mystery_from is not None
        return [e.placement(tournament_id, mystery) for e in finished], playing

    def envelopes_left(self, tournament_id: str) -> dict[int, int]:
        """Mystery-bounty envelopes not drawn, by amount (reported with the standings; never paid)."""
        ledger = self.ledgers.get(tournament_id)
        return {} if ledger is None else {a: c for a, c in sorted(ledger.envelopes_left.items()) if c}


def _seat_refused(  # noqa: PLR0917 - the seat's facts, as the check had them
    rules: Rules, i: int, seat: int, player_id: str, stack: int | None, bounty: int | None, entry: Entry | None
) -> Applied:
    """Why the ledger refuses a seat of a hand: no entry in play, one held in a hand-for-hand round, its chips
    or its bounty differing from the ledger's (naming the seat and both figures), a bounty in a tournament
    without bounties."""
    tournament_id = rules.tournament_id
    where = f"players[{i}] (seat {seat})"
    if entry is None:
        return _refuse(
            "not_entered",
            f"players[{i}].player_id",
            f"{where}: {player_id!r} has no entry in play in tournament {tournament_id!r}",
        )
    if entry.status != "playing":
        return _refuse(
            "not_entered",
            f"players[{i}].player_id",
            f"{where}: {player_id!r} (entry {entry.entry}) was {_held_out(entry)}",
        )
    if entry.chips != stack:
        return _refuse(
            "stack_mismatch",
            f"players[{i}].stack",
            f"{where}: {player_id!r} (entry {entry.entry}) starts the hand with {stack} chips here but the ledger "
            f"has {entry.chips} after their previous hand",
        )
    if rules.bounty_cash_ppm is None:
        return _refuse(
            "bounty_not_expected",
            f"players[{i}].bounty",
            f"players[{i}].bounty (seat {seat}): {player_id!r} has a bounty of {bounty} here, but tournament "
            f"{tournament_id!r} was opened without bounties: leave the bounties out.",
        )
    return _refuse(
        "bounty_mismatch",
        f"players[{i}].bounty",
        f"{where}: {player_id!r} (entry {entry.entry}) has a {bounty} bounty here but {entry.bounty} in the ledger",
    )


def _mystery_stage(
    ledger: Ledger, settlement: Settlement, mystery: Sequence[tuple[int, int]] | None
) -> dict[int, int] | Applied:
    """The envelopes a hand draws (by eliminated seat), checked by the core; or why the hand is refused. The stage
    is every hand that starts with at most ``mystery_from`` entries in play."""
    rules = ledger.rules
    stage = rules.mystery_from is not None and (
        len(ledger.live) <= rules.mystery_from
        or (ledger.rounds_seen > ledger.rounds_done and ledger.in_play() <= rules.mystery_from)  # some held
    )
    if not stage:
        if mystery is None:
            return {}
        where = f"the stage starts at {rules.mystery_from} entries in play" if rules.mystery_from else "it has none"
        return _refuse(
            "mystery_bounty_not_expected",
            "mystery_bounties",
            f"the hand is outside the mystery-bounty stage of tournament {rules.tournament_id!r} ({where})",
        )
    try:
        drawn, _ = envelopes.draw(settlement, mystery or (), ledger.envelopes_left)
    except InvalidEvent as exc:
        return _refuse(exc.code, exc.field, exc.message)
    return drawn


def _deal_prizes(deal: Deal, tied: Sequence[Entry], place: int) -> list[int]:
    """After a deal each entry finishing is paid its own deal amount (tied or not: nothing is shared); those
    finishing 1st also share ``left_to_play_for`` (one alone takes it whole; units left one each in registration
    order)."""
    prizes = []
    for entry in tied:
        amount = deal.amount(entry.key)
        if amount is None:
            raise InvariantViolation(f"entry {entry.entry} of {entry.player_id!r} finishes after a deal it is not in")
        prizes.append(amount)
    if place == 1:
        share, odd = divmod(deal.left_to_play_for, len(tied))
        prizes = [p + share + (i < odd) for i, p in enumerate(prizes)]
    return prizes


def _no_deal(ledger: Ledger) -> str:
    """Why a deal cannot be taken now, in words ("" when it can): the tournament over, registration open, a
    hand-for-hand round open, or an entry in play not in the money."""
    if ledger.over:
        return "it has finished"
    if ledger.registration_open:
        return "registration is still open (a deal is taken only after it closes)"
    if ledger.rounds_seen > ledger.rounds_done or any(e.status == "held" for e in ledger.live.values()):
        return f"hand-for-hand round {ledger.rounds_seen} is not complete (a deal is taken between rounds)"
    count = len(ledger.live)
    if ledger.rules.prize(count) == 0:
        return f"{count} entries are in play and place {count} pays nothing: a deal needs every entry in the money"
    return ""


def _round_open(ledger: Ledger) -> Applied:
    """A hand without ``hand_for_hand_round`` while a hand-for-hand round is not complete: placed now, its busts
    would finish below entries eliminated in the round before them (the round's are placed when it completes)."""
    last = ledger.rounds_seen
    return _refuse(
        "round_open",
        "hand_for_hand_round",
        f"hand_for_hand_round: is missing, but hand-for-hand round {last} of tournament {ledger.rules.tournament_id!r} "
        f"is not complete (its busts are placed together when it is): send the hand with its round, or "
        f"`round_complete` {last} before it.",
    )


def _past_the_limit(ledger: Ledger, chips: int, bounty: int, what: str, field: str) -> Applied | None:
    """Refuse chips (or bounty) that would take the tournament's past ``MAX_CHIPS``: every chip registered may end
    in one stack, every bounty on one head, and a hand cannot give a stack or bounty past it (``bad_chips``)."""
    tournament_id = ledger.rules.tournament_id
    if ledger.chips_in_play + chips > MAX_CHIPS:
        return _refuse(
            "chips_limit",
            field,
            f"{field}: {what} {chips} chips, which would take the chips in play in tournament {tournament_id!r} to "
            f"{ledger.chips_in_play + chips}, past 10^15: the stack holding them could not be sent in a hand.",
        )
    if ledger.bounties_put_up + bounty > MAX_CHIPS:
        return _refuse(
            "chips_limit",
            "bounty",
            f"bounty: {what} a bounty of {bounty}, which would take the bounties of tournament {tournament_id!r} to "
            f"{ledger.bounties_put_up + bounty}, past 10^15: the head holding them could not be sent in a hand.",
        )
    return None


def _unpaid(ledger: Ledger, payouts: tuple[int, ...]) -> Applied | None:
    """Refuse a close whose payouts announce no prize, or prizes for places the field does not have (the entries
    in play: places count from here), which would never be paid."""
    tournament_id = ledger.rules.tournament_id
    if not payouts:
        return _refuse(
            "bad_payouts",
            "payouts",
            f"payouts: registration of tournament {tournament_id!r} closes with no prize announced (its `open` gave "
            "none): give the payouts with `registration_closed`.",
        )
    field = len(ledger.live)
    paid = sum(1 for prize in payouts if prize)  # never increasing: the prizes come first, then any 0s
    if paid > field:
        return _refuse(
            "bad_payouts",
            "payouts",
            f"payouts: {paid} places are paid but the field of tournament {tournament_id!r} is {field} entries: "
            f"{sum(payouts[field:])} of the {sum(payouts)} announced would never be paid. Pay at most {field} "
            "places.",
        )
    return None


def _why_out(ledger: Ledger, entry: Entry) -> str:
    """Why ``entry`` cannot buy chips, in words: the tournament over, the entry finished, or held in a
    hand-for-hand round that is not complete."""
    if ledger.over:
        return "the tournament has finished"
    return _held_out(entry) if entry.status == "held" else entry.status


def _held_out(entry: Entry) -> str:
    """A held entry, in words (a seat's refusal and a purchase's say it alike)."""
    return f"eliminated in hand-for-hand round {entry.held[0] if entry.held else '?'}, not yet complete"


def _same_but_payouts(a: Rules, b: Rules) -> bool:
    """An ``open`` re-sent after ``registration_closed`` replaced its payouts is the same ``open``."""
    return dataclasses.replace(a, payouts=()) == dataclasses.replace(b, payouts=())


def _check_hand(
    ledger: Ledger,
    showdown: Showdown,
    hand_for_hand_round: int | None,
    bounties_given: bool,
    bounty_cash_ppm: int | None,
) -> Applied | list[Entry]:
    """:meth:`TournamentBook.apply_hand`'s checks, before anything moves: the tournament is on, no rake, each seat
    is a playing entry at its ledger stack (and bounty, when given), the bounty cash rate is the tournament's, the
    hand-for-hand round is open. The seats' entries, in seat order; or the refusal."""
    tournament_id, rules = showdown.tournament_id, ledger.rules
    if ledger.over:
        return _refuse("tournament_over", "tournament_id", f"tournament {tournament_id!r} has finished")
    seats = showdown.seats
    if seats[0].stack is None:
        return _refuse(
            "tournament_stacks_missing",
            "players[0].stack",
            f"players[0].stack (seat {seats[0].seat}): is missing, but every hand of tournament {tournament_id!r} "
            "gives each seat's starting stack (the ledger checks each against its entry's chips).",
        )
    if showdown.rake:
        return _refuse(
            "tournament_rake",
            "rake",
            f"rake: {showdown.rake} chips would leave tournament {tournament_id!r}, whose chips stay in play (the "
            "house takes its fee with the buy-in): send the hand without rake.",
        )
    live = ledger.live
    heads = showdown.bounties
    entries: list[Entry] = []
    for i, s in enumerate(seats):  # by name, not unpacked: a seat's other fields are not touched (cold in cache)
        entry = live.get(s.player_id)
        if (
            entry is None
            or entry.chips != s.stack
            or entry.status != "playing"
            or (bounties_given and heads[i] != entry.bounty)
        ):
            return _seat_refused(rules, i, s.seat, s.player_id, s.stack, heads[i] if heads else None, entry)
        entries.append(entry)
    if (
        bounty_cash_ppm is not None
        and bounty_cash_ppm != rules.bounty_cash_ppm
        and not (rules.bounty_cash_ppm is None and bounties_given and not any(showdown.bounties))
    ):  # a tournament without bounties takes a hand whose every seat gives a bounty of 0 (with its cash rate)
        pays = (
            "pays no bounties"
            if rules.bounty_cash_ppm is None
            else f"pays {rules.bounty_cash_ppm} of each bounty as cash"
        )
        return _refuse(
            "bounty_mismatch",
            "bounty_cash_ppm",
            f"bounty_cash_ppm: {bounty_cash_ppm} is given, but tournament {tournament_id!r} {pays}.",
        )
    if hand_for_hand_round is not None and hand_for_hand_round <= ledger.rounds_done:
        return _refuse(
            "round_already_complete",
            "hand_for_hand_round",
            f"round {hand_for_hand_round} of tournament {tournament_id!r} was completed before this hand",
        )
    if hand_for_hand_round is None and ledger.rounds_seen > ledger.rounds_done:
        return _round_open(ledger)
    return entries


def _with_ledger_heads(settlement: Settlement, entries: list[Entry], bounty_cash_ppm: int) -> Settlement:
    """A knockout hand sent without ``players[].bounty``: its bounties settled from the heads the ledger holds."""
    heads = tuple([entry.bounty for entry in entries])
    showdown = settlement.showdown._replace(bounties=heads, bounty_cash_ppm=bounty_cash_ppm)
    awards = (
        award_bounties(showdown, settlement.pots, settlement.collected, settlement.shown, heads, bounty_cash_ppm)
        if settlement.busts
        else ()
    )
    return settlement._replace(showdown=showdown, bounties=awards)
