"""The ledger's hash: what a worker's in-place book writes after each batch reads back as exactly that book, and
an entry is written once per batch however many of its hands it played."""

from __future__ import annotations

from dataclasses import astuple
from typing import Any

import orjson
import pytest

from showdown_core import settle
from showdown_core.tournament import Book, Ledger
from showdown_messages.tournaments import parse_tournament_message
from showdown_service.decision.intake import parse_event, to_showdown, to_tournament_message
from showdown_service.testing.simulate import Simulation, simulate
from showdown_service.worker.ledger import decode_ledger, writes


def _apply(book: Book, line: bytes) -> None:
    ((kind, body),) = orjson.loads(line).items()
    if kind == "tournament":
        applied = book.apply_message(to_tournament_message(parse_tournament_message(orjson.dumps(body))))
    else:
        event = parse_event(orjson.dumps(body))
        drawn = None if event.mystery_bounties is None else [(d.seat, d.amount) for d in event.mystery_bounties]
        applied = book.apply_hand(settle(to_showdown(event)), event.hand_for_hand_round, True, drawn)
    assert applied.refused is None, applied.refused


def _state(ledger: Ledger) -> tuple[Any, ...]:
    return (
        ledger.rules,
        ledger.registration_open,
        ledger.next_order,
        ledger.rounds_done,
        ledger.over,
        ledger.opened_payouts,
        sorted(astuple(e) for e in ledger.entries.values()),
        sorted((player, e.key) for player, e in ledger.live.items()),
        ledger.entered,
        ledger.rounds_seen,
        ledger.deal,
        {amount: count for amount, count in ledger.envelopes_left.items() if count},
    )


@pytest.mark.parametrize(
    "sim",
    [
        simulate(11, players=40, reentries=8, quiet_hands=3),
        simulate(12, players=30, reentries=4, quiet_hands=3, paid_fraction=0.3, deal_at=4, mystery_from=7),
    ],
    ids=["knockout", "deal-and-mystery"],
)
def test_what_an_in_place_book_writes_batch_by_batch_reads_back_as_that_book(sim: Simulation) -> None:
    book = Book(in_place=True)
    stored: dict[str, dict[str, str]] = {}  # the hashes, by tournament
    batch = 7  # batches cut across registration, busts, re-entries and the hand-for-hand round
    for start in range(0, len(sim.lines), batch):
        view = book.begin()
        for line in sim.lines[start : start + batch]:
            _apply(view, line)
        for tournament_id, payload in writes(view):
            fields = orjson.loads(payload)
            assert all(isinstance(f, str) for f in fields)
            assert len(fields) % 2 == 0
            stored.setdefault(tournament_id, {}).update(zip(fields[::2], fields[1::2], strict=True))
        (ledger,) = book.ledgers.values()
        assert ledger is not None
        read_back = decode_ledger({name: value.encode() for name, value in stored[sim.tournament_id].items()})
        assert read_back is not None
        assert _state(read_back) == _state(ledger)
    finished = book.ledgers[sim.tournament_id]
    assert finished is not None
    assert finished.over  # the whole tournament went through


def test_an_entry_that_plays_several_hands_of_a_batch_has_its_chips_written_once_and_last() -> None:
    sim = simulate(3, players=20, reentries=0, quiet_hands=4)
    book = Book(in_place=True)
    registered = 0
    for i, line in enumerate(sim.lines):  # up to the first hand: registration, in a view of its own
        if b'"event"' in line[:12]:
            registered = i
            break
        _apply(book, line)
    book.begin()
    hands = sim.lines[registered : registered + 12]
    for line in hands:
        _apply(book, line)
    ((tournament_id, payload),) = writes(book)
    fields = orjson.loads(payload)
    names = fields[::2]
    assert len(names) == len(set(names))  # each field once
    ledger = book.ledgers[tournament_id]
    assert ledger is not None
    values = dict(zip(names, fields[1::2], strict=True))
    played = {orjson.loads(line)["event"]["players"][k]["player_id"] for line in hands for k in range(2)}
    for player in played:
        entry = ledger.live.get(player) or ledger.entries[(player, 1)]
        assert values[f"c:{entry.entry}:{player}"] == str(entry.chips)  # the chips after its last hand
