"""A tournament's entries as its hands show them: re-entries, rebuys after a bust, late registrations, and the places
of the entries eliminated while the ledger's registration is held open (docs/replay.md, Whole tournaments).

* **A re-entry** (PokerStars re-entry tournaments, summary rows ``Ben [2] (Germany)``): a player whose chips ran
  out (a hand ended them at 0, and no rebuy line followed) and who sits down again, at any table, is a new entry:
  the ledger's ``entry`` message with the player's next entry number. It must bring the tournament's starting
  stack (every entry starts with it); a re-entered player is seated anew, so their chips are not compared with
  the hand they busted in. A player who sits down with fresh chips without a bust before is no re-entry: the
  chips between hands (or the ledger, across tables) say so.
* **A rebuy after a bust** (rebuy tournaments: ``Ben re-buys and receives 1500 chips for $4.00`` after the hand
  that took Ben's last chip, or above the seats of Ben's next hand): the player is not out and takes no place;
  their chips go on from the rebuy. The ledger's purchases are an entry in play's, and an eliminated entry
  re-enters (docs/tournaments.md): the ledger is sent an ``entry`` for the bought chips, which continues the
  same entry of the room (one row of its summary, its place the last link's, its bounty cash the chain's).
* **A late registration** (PokerStars tournaments take registrations for their first levels): a player first seen
  after the first hand, with no bust before (a player never seen before cannot have gone out), at a table whose
  hands are there from its start (:func:`.continuity.table_starts`), is a new entry registered before the hand
  they first play: the ledger's ``entry`` message, their entry 1. It must bring the starting stack (every entry
  starts with it). Where the tables' starts are not all there, such a player cannot be told from one moved from a
  table the histories do not show: no late registration is taken (the tournament is then ``incomplete``).
* **Places of the busts while registration is open**: the ledger takes a new entry only while registration is
  open, and leaves an entry eliminated before it closes without a place. The audit closes registration after
  the hands' last new entry, and places those busts itself below every entry in play at the close, the first out
  the last (PokerStars lists every entry of a re-entry tournament with its place in the order they went out),
  same-hand busts by starting stack and equal stacks tied, as the ledger places the others
  (docs/tournaments.md). Placed so, every place is the one the ledger would give knowing the whole field.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from showdown_messages.tournaments import EntryRegistered
from showdown_service.histories.continuity import ended
from showdown_service.histories.hands import HandRecord, Purchase

if TYPE_CHECKING:
    from showdown_core.tournament import Book, Ledger


class NewEntry(NamedTuple):
    """A ledger entry the hands add after the start: a re-entry, a rebuy after a bust, or a late registration."""

    player: str
    hand: int
    """The index (in hand order) of the hand it is registered at."""
    before_seats: bool
    """Before that hand (its seat line holds the chips), or after it (a rebuy written below the hand's actions)."""
    kind: Literal["re-entry", "rebuy", "late registration"]
    stack: int
    bounty: int | None
    """The seat line's bounty (a re-entry), the purchase's (a rebuy); ``None`` when unknown."""
    busted: str
    """The hand id that took the player's last chip (``""`` for a late registration)."""
    purchase: Purchase | None = None


def new_entries(hands: Sequence[HandRecord], start: int | None) -> tuple[list[NewEntry], list[tuple[str, str]]]:
    """The re-entries and rebuys after a bust of ``hands`` (in hand order), and ``(hand_id, detail)`` for each
    re-entry that does not bring the starting stack ``start`` (``None``: the entries started with different
    stacks, nothing to compare with)."""
    out: list[NewEntry] = []
    wrong: list[tuple[str, str]] = []
    busted: dict[str, str] = {}
    """Players whose last hand took their last chip (and no rebuy since): the hand's id."""
    for k, record in enumerate(hands):
        event = record.event
        assert event is not None
        out += [NewEntry(purchase.player, k, True, "rebuy", purchase.chips, purchase.bounty,
                         busted.pop(purchase.player), purchase)
                for purchase in record.purchases if purchase.before_seats and purchase.player in busted]  # fmt: skip
        for p in event.players:
            if p.player_id in busted:
                bust = busted.pop(p.player_id)
                out.append(NewEntry(p.player_id, k, True, "re-entry", p.stack or 0, p.bounty, bust))
                if start is not None and p.stack != start:
                    wrong.append((record.hand_id,
                                  f"{p.player_id} went out in hand {bust} and sits down again in hand "
                                  f"{record.hand_id} with {p.stack} chips: a re-entry starts with the starting "
                                  f"stack, {start}"))  # fmt: skip
        after = ended(record)
        for purchase in record.purchases:
            if not purchase.before_seats:
                if after.get(purchase.player) == 0:
                    out.append(NewEntry(purchase.player, k, False, "rebuy", purchase.chips, purchase.bounty,
                                        record.hand_id, purchase))  # fmt: skip
                after[purchase.player] = after.get(purchase.player, 0) + purchase.chips
        for player, chips in after.items():
            if chips == 0:
                busted[player] = record.hand_id
            else:
                busted.pop(player, None)
    return out, wrong


def late_registrations(
    hands: Sequence[HandRecord], starters: Collection[str], start: int | None
) -> tuple[list[NewEntry], list[tuple[str, str]]]:
    """The late registrations of ``hands`` (in hand order): each player first seen after the first hand who is not
    one of ``starters`` (the entries the tournament started with, every table's: :func:`.continuity.table_starts`),
    registered before the hand they first sit in; and ``(hand_id, detail)`` for each that does not bring the
    starting stack ``start`` (``None``: the entries started with different stacks, nothing to compare with)."""
    out: list[NewEntry] = []
    wrong: list[tuple[str, str]] = []
    seen = set(starters)
    for k, record in enumerate(hands):
        event = record.event
        assert event is not None
        for p in event.players:
            if p.player_id in seen:
                continue
            seen.add(p.player_id)
            out.append(NewEntry(p.player_id, k, True, "late registration", p.stack or 0, p.bounty, ""))
            if start is not None and p.stack != start:
                detail = (
                    f"{p.player_id} first sits down in hand {record.hand_id} with {p.stack} chips and did not go out "
                    f"before: a late registration starts with the starting stack, {start}"
                )
                wrong.append((record.hand_id, detail))
    return out, wrong


class LateBust(NamedTuple):
    """An entry the ledger left without a place (eliminated while registration was open)."""

    hand: int
    """The index of the hand it went out in."""
    key: tuple[str, int]
    """The room's entry: (player, entry number)."""
    stack: int
    """Its starting stack in that hand."""
    order: int
    """Its registration order (a tie's left-over cents go first to the first registered)."""


def late_places(busts: Sequence[LateBust], entries: int, payouts: Sequence[int]) -> dict[tuple[str, int], Any]:
    """``{entry: (place, tied, prize)}`` for the entries eliminated while registration was open, of ``entries`` in
    all: below every entry in play at the close, the first out the last; a hand's busts by starting stack (the
    bigger finishes higher), equal stacks tied, sharing their places' prizes (left-over cents one each in
    registration order), as the ledger places every other bust (showdown_core.tournament)."""
    out: dict[tuple[str, int], Any] = {}
    by_hand: dict[int, list[LateBust]] = {}
    for bust in busts:
        by_hand.setdefault(bust.hand, []).append(bust)
    remaining = entries
    for hand in sorted(by_hand):
        group = by_hand[hand]
        place = remaining - len(group) + 1
        for stack in sorted({b.stack for b in group}, reverse=True):
            tier = sorted((b for b in group if b.stack == stack), key=lambda b: b.order)
            total = sum(payouts[p - 1] if 0 < p <= len(payouts) else 0 for p in range(place, place + len(tier)))
            share, odd = divmod(total, len(tier))
            for i, bust in enumerate(tier):
                out[bust.key] = (place, len(tier), share + (i < odd))
            place += len(tier)
        remaining -= len(group)
    return out


class Chains:
    """Which of the room's entries each ledger entry is: a re-entry is the room's next entry of the player, a rebuy
    after a bust continues the room's entry it rebought (its ledger entry before is ``continued``: no place)."""

    def __init__(self, players: Sequence[str]) -> None:
        self.room: dict[str, int] = dict.fromkeys(players, 1)
        """Each player's room entry in play (or last)."""
        self.ledger: dict[str, int] = dict.fromkeys(players, 1)
        """Each player's ledger entry in play (or last)."""
        self.of: dict[tuple[str, int], tuple[str, int]] = {(player, 1): (player, 1) for player in players}
        """Ledger entry -> the room's entry."""
        self.continued: set[tuple[str, int]] = set()

    def add(self, new: NewEntry) -> int:
        """Follow ``new``; the ledger entry number to register it as."""
        player = new.player
        if new.kind == "late registration":
            self.room[player] = self.ledger[player] = 1
            self.of[player, 1] = (player, 1)
            return 1
        before = (player, self.ledger.get(player, 1))
        self.ledger[player] = number = before[1] + 1
        if new.kind == "rebuy":
            self.continued.add(before)
            self.of[player, number] = self.of.get(before, before)
        else:
            self.room[player] = self.room.get(player, 1) + 1
            self.of[player, number] = (player, self.room[player])
        return number

    def entry(
        self, tournament_id: str, new: NewEntry, book: Book, *, knockout: bool, progressive: bool
    ) -> EntryRegistered:
        """``new`` as the ledger's ``entry`` message: the player's next ledger entry (followed from here on; a late
        registration's is their first); in a knockout with the bounty it puts up: a re-entry's or a late
        registration's seat line's; a rebuy's, in a progressive knockout, the bounty its cost buys (docs/replay.md);
        else (a fixed knockout's head is the buy-in's whatever was bought, or a seat that gives none) the player's
        first entry's, the buy-in's."""
        ledger = book.ledgers[tournament_id]
        assert ledger is not None
        bounty = None
        if knockout:
            first = ledger.entries.get((new.player, 1))
            told = new.bounty if new.kind != "rebuy" or progressive else None
            bounty = told if told is not None else first.bounty_in if first is not None else 0
        return EntryRegistered(schema_version=1, tournament_id=tournament_id, type="entry", player_id=new.player,
                               entry=self.add(new), stack=max(1, new.stack), bounty=bounty)  # fmt: skip

    def placed(
        self, ledger: Ledger, placements: list[dict[str, Any]], late: list[LateBust], payouts: Sequence[int]
    ) -> list[dict[str, Any]]:
        """Each finished entry of the room (``{"player_id", "entry", "place", "prize", "bounty_cash"}``, in the
        order the ledger finished them): its place and prize (the ledger's, or :func:`late_places` for a bust
        before registration closed, ``late``: by ledger entry), its bounty cash over the ledger entries it was."""
        ended = [bust for bust in late if bust.key not in self.continued]
        orders = {bust.key: ledger.entries[bust.key].order for bust in ended}
        entries = len({self.of[key] for key in ledger.entries})
        busts = [LateBust(b.hand, self.of[b.key], b.stack, orders[b.key]) for b in ended]
        early = late_places(busts, entries, payouts)
        cash: dict[tuple[str, int], int] = {}
        for key, entry in ledger.entries.items():
            cash[self.of[key]] = cash.get(self.of[key], 0) + entry.bounty_cash
        rows = []
        for placement in placements:
            key = (placement["player_id"], placement["entry"])
            if key in self.continued:
                continue
            room = self.of[key]
            place, _, prize = early[room] if placement["place"] is None else (placement["place"], 0, placement["prize"])
            rows.append({"player_id": room[0], "entry": room[1], "place": place, "prize": prize,
                         "bounty_cash": cash[room]})  # fmt: skip
        return rows

    def room_entry(self, player: str) -> tuple[str, int]:
        """The room's entry ``player`` has in play."""
        return player, self.room.get(player, 1)


def name(key: tuple[str, int]) -> str:
    """An entry as the report names it: the player, and a re-entry's number as PokerStars' summary writes it
    (``Ben [2]``)."""
    player, entry = key
    return player if entry == 1 else f"{player} [{entry}]"
