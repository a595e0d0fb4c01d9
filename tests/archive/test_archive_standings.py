"""An expired tournament's standings from its archived rows (showdown_service.archive.standings), in process:
generated tournaments of every setting (re-entries, rebuys, hand-for-hand rounds, ties, satellites, deals, mystery
bounties), each line decided as the worker decides it and kept as the archive keeps it; the placement records
ordered from those rows are the full ledger's standings, and the printed standings the same text. The real
server, the archiver and the API: tests/archive/test_archive_redis.py."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from showdown_core.tournament import Book, Ledger
from showdown_service.archive.standings import StandingsUnavailable, ordered
from showdown_service.cli.tournament import _print
from showdown_service.decision.tournament_replay import TournamentReplay
from showdown_service.testing.simulate import Simulation, simulate
from showdown_service.worker import ledger as store

Row = tuple[Any, ...]

SIMULATIONS = [
    simulate(11, players=20, reentries=5, quiet_hands=0),
    simulate(12, players=16, reentries=3, quiet_hands=0, equal_stacks="seat_order", rebuys=3),
    simulate(13, players=16, reentries=2, quiet_hands=0, hand_for_hand_rule="tie", equal_stacks="tie"),
    simulate(14, players=16, reentries=2, quiet_hands=0, satellite=True, paid_fraction=0.25, bounty=None),
    simulate(15, players=18, reentries=4, quiet_hands=0, paid_fraction=0.35, deal_at=4, mystery_from=7),
    simulate(16, players=14, reentries=2, quiet_hands=0, paid_fraction=0.4, deal_at=3, deal_method="custom",
             mystery_from=5),
]  # fmt: skip


def archived(sim: Simulation) -> tuple[TournamentReplay, list[Row]]:
    """The tournament decided line by line, and its rows as the archive keeps them (seq, outcome, event_field,
    event, standings)."""
    run = TournamentReplay()
    rows: list[Row] = []
    for line in sim.lines:
        decision = run.feed_line(line)
        assert decision is not None
        ((field, body),) = orjson.loads(line).items()
        texts = decision.placement_texts
        standings = ("[" + ",".join(t.decode() for t in texts) + "]") if texts else None
        rows.append((len(rows) + 1, decision.outcome, field, orjson.dumps(body).decode(), standings))
    assert not run.refused
    return run, rows


def expired(run: TournamentReplay, tournament_id: str) -> Ledger:
    """The tournament's ledger as Redis keeps it once expired."""
    ledger = run.book.ledgers[tournament_id]
    assert ledger is not None
    assert ledger.over
    full = {store.RULES_FIELD: store.encode_rules(ledger)}
    full |= {store.entry_field(e.player_id, e.entry): store.encode_entry(e) for e in ledger.entries.values()}
    kept = store.expired_fields(full)
    assert kept is not None
    decoded = store.decode_ledger(dict(kept))
    assert decoded is not None
    assert decoded.expired
    return decoded


@pytest.mark.parametrize("sim", SIMULATIONS, ids=["knockout", "rebuys", "hand-for-hand-tie", "satellite",
                                                 "deal-and-mystery", "custom-deal"])  # fmt: skip
def test_the_archived_placement_records_in_order_are_the_full_ledger_s_standings(
    sim: Simulation, capsys: pytest.CaptureFixture[str]
) -> None:
    run, rows = archived(sim)
    tid = sim.tournament_id
    finished, playing = run.book.standings(tid)
    assert playing == []
    got = ordered(tid, expired(run, tid), rows, where="the test's rows")
    assert orjson.dumps(got) == orjson.dumps(finished)
    for as_json in (True, False):
        _print(run.book, tid, as_json=as_json)
        full = capsys.readouterr().out
        _print(store_book(run, tid), tid, as_json=as_json, finished=got)
        assert capsys.readouterr().out == full


def store_book(run: TournamentReplay, tid: str) -> Book:
    """The book ``showdown tournament standings`` reads once the ledger expired."""
    return Book({tid: expired(run, tid)})


def test_ties_and_places_without_a_place_are_in_registration_order_not_the_order_written() -> None:
    sim = simulate(12, players=16, reentries=3, quiet_hands=0, equal_stacks="seat_order", rebuys=3)
    run, rows = archived(sim)
    tid = sim.tournament_id
    written = [orjson.loads(r[4]) for r in rows if r[4]]
    unplaced = [(p["player_id"], p["entry"]) for batch in written for p in batch if p["place"] is None]
    got = [(p["player_id"], p["entry"]) for p in ordered(tid, expired(run, tid), rows, where="rows")]
    ledger = run.book.ledgers[tid]
    assert ledger is not None
    by_order = sorted(unplaced, key=lambda key: ledger.entries[key].order)
    assert unplaced != by_order, "the generator wrote some out of registration order: the test can fail"
    assert got[-len(unplaced) :] == by_order


def test_an_archive_missing_a_registration_or_a_placement_is_incomplete_never_a_guess() -> None:
    sim = SIMULATIONS[0]
    run, rows = archived(sim)
    tid = sim.tournament_id
    ledger = expired(run, tid)
    registration = next(i for i, r in enumerate(rows) if r[2] == "tournament" and '"type":"entry"' in r[3])
    with pytest.raises(StandingsUnavailable, match="lacks the settled entry message of entry") as gap:
        ordered(tid, ledger, rows[:registration] + rows[registration + 1 :], where="rows")
    assert gap.value.code == "archive_incomplete"
    placing = max(i for i, r in enumerate(rows) if r[4])
    with pytest.raises(StandingsUnavailable, match="lacks the placement record of entry"):
        ordered(tid, ledger, rows[:placing] + rows[placing + 1 :], where="rows")
    with pytest.raises(StandingsUnavailable, match="two placement records"):
        ordered(tid, ledger, [*rows, rows[placing]], where="rows")
    with pytest.raises(StandingsUnavailable, match="registered twice"):
        ordered(tid, ledger, [*rows, rows[registration]], where="rows")


@pytest.mark.parametrize("sim", [SIMULATIONS[0], SIMULATIONS[4]], ids=["knockout", "deal-and-mystery"])
def test_an_expired_ledger_keeps_under_half_the_bytes_of_its_entries(sim: Simulation) -> None:
    """docs/archive.md's table: each entry's fields (names and values) shrink from ~72 bytes to ~29."""
    run, _ = archived(sim)
    ledger = run.book.ledgers[sim.tournament_id]
    assert ledger is not None
    full = {store.RULES_FIELD: store.encode_rules(ledger)}
    for e in ledger.entries.values():
        full[store.entry_field(e.player_id, e.entry)] = store.encode_entry(e)
        full[store.chips_field(e.player_id, e.entry)] = str(e.chips).encode()
    kept = store.expired_fields(full)
    assert kept is not None
    assert kept[0] == (store.RULES_FIELD, full[store.RULES_FIELD]), "rules kept whole"
    entries = len(ledger.entries)
    before = sum(len(name) + len(value) for name, value in full.items() if name != store.RULES_FIELD) / entries
    after = sum(len(name) + len(value) for name, value in kept[1:]) / entries
    assert len(kept) == 1 + entries
    assert after < before / 2, (before, after)
