"""What a player's export of a tournament cannot show, told apart from what it gets wrong (docs/replay.md, Whole
tournaments, "A partial view").

A room's export is one player's: their tables, often up to their own bust. Three things in the real exports of
``../shared/data`` look like differences between hands and are not:

* **The same hand twice** (:func:`one_copy`): two files of one export may hold the same hand (the same room and
  hand number; rooms-more's partypoker tournament 125049467 and Microgaming's ``Christmas Day 26`` are each in two
  files). It is one hand: compared with itself across the copies its chips would "appear". Two copies that say
  the same of the seats, stacks, chips put in, folds, board and what each player ended with are one hand (a card
  one copy shows and the other does not is no disagreement: the copy that shows more is kept); two that say
  otherwise are a ``hand copies`` difference naming both files.
* **Rebuys the history does not write** (:func:`unwritten_rebuys`): 888poker writes no rebuy or add-on line (its 2016
  ``Step 1`` rebuy tournaments in rooms-more: ``noblufj1`` ends a hand with 940 and starts the table's next with
  1,940; ``sieg1122`` goes out and sits down again with 2,000, the starting stack being 1,000). The rooms' published
  rules: a rebuy is open to a player "at or below their original chip count" and gives the starting chips
  (partypoker's help, "Tournament rebuys"; every such gain in the 888poker files is one or two starting stacks), a
  double rebuy or an add-on twice them. So, in a room that writes none (:data:`UNWRITTEN_PURCHASES`), a player who
  ended a hand with at most the starting stack and starts the table's next with that plus one or two starting stacks
  bought them: the chips are taken as a rebuy (a bust followed by one is no re-entry), and the tournament's
  ``checked`` says how many. A player who went out at one table and sits down later at another, in such a room
  (rooms-more's 888 tournament 78670600: ``barrozoo`` out at table 9, at table 1 with 12,665 chips),
  rebought and played at tables the hands do not show: their chips there are beyond the hands, taken as bought. Any
  other chip that appears is still a ``chips`` difference.
* **Anonymous tables** (:data:`ANONYMOUS_ROOMS`): Ignition, Bovada and Bodog name each player by their position in
  the hand (``Small Blind [ME]``, ``UTG+1``, ``Dealer``): the name moves round the table with the button, so
  no player can be followed from one hand to the next. The chips between hands and the ledger are beyond such
  hands; each hand, and the order of the places printed, are still checked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final, TypeVar

from showdown_service.histories.continuity import ended
from showdown_service.histories.hands import HandRecord, Purchase

UNWRITTEN_PURCHASES: Final = frozenset({"888poker"})
"""Rooms whose histories write no rebuy or add-on line (888poker: its rebuy tournaments' hands in rooms-more)."""
ANONYMOUS_ROOMS: Final = frozenset({"bovada"})
"""Rooms whose histories name players by their position in the hand (the Bovada reader's room: Ignition, Bovada,
Bodog)."""
REBUYS: Final = (1, 2)
"""A rebuy buys the starting stack; a double rebuy (or a rebuy with an add-on) twice it."""
UNWRITTEN: Final = "not written (the room writes no rebuy line)"
"""The ``cost`` of a rebuy taken from the chips alone."""

ELSEWHERE: Final = "not written (out at another table, seated again here: rebought and played at other tables)"
"""The ``cost`` of the chips of a player out at one table and seated later at another, in a room that writes no
rebuy line: what they rebought and won in between is at tables the hands do not show."""

_T = TypeVar("_T")


def one_copy(group: Sequence[tuple[HandRecord, _T]]) -> tuple[list[tuple[HandRecord, _T]], list[tuple[str, str]]]:
    """``group`` with each hand once (by its site and id), the copy showing the most cards kept; and ``(hand_id,
    detail)`` for each copy that does not say what the first one read says."""
    kept: dict[tuple[str, str], tuple[HandRecord, _T]] = {}
    differ: list[tuple[str, str]] = []
    for item in group:
        record = item[0]
        key = (record.site, record.hand_id)
        first = kept.get(key)
        if first is None:
            kept[key] = item
            continue
        if _chips(first[0]) != _chips(record) or not _cards_agree(first[0], record):
            differ.append((record.hand_id, f"hand {record.hand_id} is in {first[0].source} (line {first[0].line}) "
                                           f"and {record.source} (line {record.line}), and the two copies differ: "
                                           "the first read is used"))  # fmt: skip
        elif _known(record) > _known(first[0]):
            kept[key] = item
    return list(kept.values()), differ


def _chips(record: HandRecord) -> tuple[object, ...]:
    event = record.event
    assert event is not None
    seats = tuple((p.seat, p.player_id, p.stack, p.contributed, p.dead_money, p.folded) for p in event.players)
    return seats, tuple(event.board), tuple(sorted(ended(record).items()))


def _cards(record: HandRecord) -> dict[int, tuple[str, ...]]:
    assert record.event is not None
    return {p.seat: tuple(p.hole_cards) for p in record.event.players if p.hole_cards}


def _cards_agree(one: HandRecord, other: HandRecord) -> bool:
    """Every hand's cards both copies show are the same cards."""
    mine, theirs = _cards(one), _cards(other)
    return all(theirs[seat] == cards for seat, cards in mine.items() if seat in theirs)


def _known(record: HandRecord) -> int:
    return len(_cards(record))


def starting_stack(first: HandRecord) -> int | None:
    """The stack most seats of the tournament's first hand start with (the starting stack, where the hands hold the
    start; a player who rebought before it or lost a blind is the exception), ``None`` when no stack is the most."""
    assert first.event is not None
    counts = Counter(p.stack for p in first.event.players if p.stack).most_common(2)
    if not counts or (len(counts) == 2 and counts[0][1] == counts[1][1]):
        return None
    return counts[0][0]


def unwritten_rebuys(hands: Sequence[HandRecord], start: int | None) -> tuple[list[HandRecord], int]:
    """``hands`` (in hand order) with the rebuys a room that writes none (:data:`UNWRITTEN_PURCHASES`) made between
    two hands of a table added as the later hand's purchases above its seats, and how many were added: a player who
    ended the table's previous hand with at most ``start`` and starts this one with that plus ``start`` or twice it
    (:data:`REBUYS`; none when ``start`` is ``None``), or who went out at another table (:data:`ELSEWHERE`)."""
    if not hands or hands[0].hand_id.partition(":")[0] not in UNWRITTEN_PURCHASES:
        return list(hands), 0
    out: list[HandRecord] = []
    added = 0
    last: dict[str, dict[str, int]] = {}
    out_at: dict[str, str] = {}
    """Players whose last hand took their last chip: the table it was at."""
    for record in hands:
        event = record.event
        assert event is not None
        was = last.get(event.table_id, {})
        bought = [Purchase(p.player_id, "rebuy", (p.stack or 0) - was[p.player_id], UNWRITTEN, record.line, True)
                  for p in event.players if start is not None and p.player_id in was and was[p.player_id] <= start
                  and (p.stack or 0) - was[p.player_id] in {k * start for k in REBUYS}]  # fmt: skip
        # out at one table, seated later at another: rebought, and played at tables the hands do not show
        bought += [Purchase(p.player_id, "rebuy", p.stack or 0, ELSEWHERE, record.line, True)
                   for p in event.players if out_at.get(p.player_id, event.table_id) != event.table_id]  # fmt: skip
        out.append(record._replace(purchases=(*bought, *record.purchases)) if bought else record)
        added += len(bought)
        after = ended(out[-1])
        last[event.table_id] = after
        for player, chips in after.items():
            if chips:
                out_at.pop(player, None)
            else:
                out_at[player] = event.table_id
    return out, added
