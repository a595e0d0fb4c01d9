"""Chips between the hands of a tournament's table: what each player ended a hand with, the rebuys and add-ons
bought in between, and those purchases as the ledger's ``chips`` messages (:mod:`.tournaments` audits with them).

A purchase line written above a hand's seat lines was bought before that hand (its seat line holds the chips); one
written after the hand's actions is the player's for the table's next hand (docs/replay.md, Whole tournaments).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from showdown_messages import PlayerIn
from showdown_messages.tournaments import ChipsBought
from showdown_service.histories.hands import HandRecord, StarsOutcome


def ended(record: HandRecord) -> dict[str, int]:
    """Each player's chips after the hand, by what the history recorded (collected amounts, uncalled bets)."""
    event = record.event
    assert event is not None
    won: dict[int, int] = {}
    if isinstance(record.outcome, StarsOutcome):
        for pot in record.outcome.pots:
            for seat, chips in pot.items():
                won[seat] = won.get(seat, 0) + chips
    return {p.player_id: (p.stack or 0) - p.contributed - p.dead_money + won.get(p.seat, 0) for p in event.players}


def bought(record: HandRecord, *, before_seats: bool) -> dict[str, int]:
    """Chips each player bought (rebuys, add-ons) above this hand's seats, or below them (for the next hand)."""
    out: dict[str, int] = {}
    for purchase in record.purchases:
        if purchase.before_seats == before_seats:
            out[purchase.player] = out.get(purchase.player, 0) + purchase.chips
    return out


def chip_differences(hands: list[HandRecord], unread: Collection[int] = ()) -> list[tuple[str, str]]:
    """``(hand_id, detail)`` for each player whose starting stack is not what they ended the previous hand of the
    table with, plus the chips they bought in between (rebuys and add-ons written in the hands); never across a hand
    not replayed (``unread``: the numbers of the tournament's hands that could not be, :mod:`.unread`), which may
    have been dealt at the table in between."""
    out: list[tuple[str, str]] = []
    last: dict[str, tuple[str, dict[str, int]]] = {}
    for record in hands:
        event = record.event
        assert event is not None
        table = event.table_id
        before = last.get(table)
        if before is not None and any(number(before[0]) < n < number(record.hand_id) for n in unread):
            before = None
        if before is not None:
            previous, was = before
            extra = bought(record, before_seats=True)
            for p in event.players:
                if was.get(p.player_id) == 0 and not extra.get(p.player_id):
                    continue  # out of chips at the last hand: a re-entry, not chips carried over (entries.py)
                if p.player_id in was and p.stack != was[p.player_id] + extra.get(p.player_id, 0):
                    since = extra.get(p.player_id, 0)
                    out.append((record.hand_id,
                                f"{p.player_id} starts hand {record.hand_id} with {p.stack} chips but ended hand "
                                f"{previous} at this table with {was[p.player_id]}"
                                + (f" and bought {since} since" if since else "")))  # fmt: skip
        after = ended(record)
        for player, chips in bought(record, before_seats=False).items():
            after[player] = after.get(player, 0) + chips
        last[table] = (record.hand_id, after)
    return out


def number(hand_id: str) -> int:
    """The hand's number (the digits of its id after the room: ``ggpoker:TM5000001`` -> 5000001), 0 when none."""
    digits = "".join(c for c in hand_id.partition(":")[2] if c.isdigit())
    return int(digits) if digits else 0


def entrants(hands: list[HandRecord]) -> list[PlayerIn]:
    """The tournament's entries as the hands show them: the first hand's seats; for a tournament over several
    tables, every table's first hand's seats, when they all start it with one stack (the tournament's start at every
    table, no hand of a table missing before: :func:`table_starts`); else the first hand's seats alone (a field the
    hands do not cover: the summary's count then tells). A player whose chips ran out before a table's first hand
    and who sits in it is a re-entry there (:mod:`.entries`), not one of the entries the tournament started with; a
    player first seen after their table's first hand, a late registration (:func:`.entries.late_registrations`)."""
    head = hands[0].event
    assert head is not None
    starts = table_starts(hands)
    return list(head.players) if starts is None else starts


def table_starts(hands: list[HandRecord]) -> list[PlayerIn] | None:
    """The seats of every table's first hand, less the players whose chips ran out before it (re-entries there),
    when those hands are the tournament's start at every table: one table (its first hand, taken as the start), or
    several whose first hands seat each player once, all with one stack. ``None`` when they are not (a player-side
    history that joins a table after its start): then a player first seen after the first hand cannot be told from
    a player moved from a table the histories do not show."""
    first: dict[str, tuple[HandRecord, frozenset[str]]] = {}
    out: set[str] = set()
    """Players whose chips ran out at their last hand (and bought none after it)."""
    for record in hands:
        assert record.event is not None
        first.setdefault(record.event.table_id, (record, frozenset(out)))
        after = ended(record)
        for player, chips in bought(record, before_seats=False).items():
            after[player] = after.get(player, 0) + chips
        out.difference_update(player for player, chips in after.items() if chips)
        out.update(player for player, chips in after.items() if not chips)
    head = hands[0].event
    assert head is not None
    if len(first) == 1:
        return list(head.players)
    seated = [p for record, gone in first.values() if record.event is not None for p in record.event.players
              if p.player_id not in gone]  # fmt: skip
    names = {p.player_id for p in seated}
    if len(names) != len(seated) or len({p.stack for p in seated}) != 1:
        return None
    return seated


def untold_bounty(hands: list[HandRecord]) -> str:
    """Why a progressive knockout cannot go through the ledger: a purchase whose cost does not tell the bounty it
    buys (a cost in StarsCoin, a price that is neither the buy-in's prize and bounty nor its prize alone); ``""``
    when none."""
    for record in hands:
        for purchase in record.purchases:
            if purchase.bounty is None:
                return (
                    f"not the places and bounties through the ledger: the bounty {purchase.player}'s purchase for "
                    f"{purchase.cost} buys cannot be told from the buy-in (line {purchase.line} of hand "
                    f"{record.hand_id})"
                )
    return ""


def chips_messages(
    tournament_id: str,
    record: HandRecord,
    numbers: dict[tuple[str, int], int],
    *,
    before_seats: bool,
    progressive: bool,
    entries: dict[str, int] | None = None,
    skip: frozenset[int] = frozenset(),
) -> Iterator[tuple[int, ChipsBought]]:
    """``(line, message)``: each purchase of ``record`` above (or below) its seats as a ``chips`` message for the
    buyer's entry in play (``entries``: each player's ledger entry, 1 when not given), numbered per entry from
    ``numbers`` (updated); in a progressive knockout with the bounty it buys (the ledger adds it to the head). A
    fixed knockout's head is the buy-in's bounty whatever was bought: there a purchase buys chips, and the ledger
    checks every head against the hands'. The purchases at the lines ``skip`` are left out (a rebuy after a bust
    is a new entry of the ledger's: :mod:`.entries`)."""
    for purchase in record.purchases:
        if purchase.before_seats != before_seats or purchase.line in skip:
            continue
        entry = (entries or {}).get(purchase.player, 1)
        numbers[purchase.player, entry] = number = numbers.get((purchase.player, entry), 0) + 1
        kind = "rebuy" if purchase.kind == "rebuy" else "add_on"
        yield purchase.line, ChipsBought(schema_version=1, tournament_id=tournament_id, type="chips",
                                         player_id=purchase.player, entry=entry, purchase=number, kind=kind,
                                         chips=purchase.chips,
                                         bounty=(purchase.bounty or None) if progressive else None)  # fmt: skip
