"""What a finished tournament's ledger answers to every late message and hand, and which of those answers read
its entries: the contract a ledger expiry (issue 25 item 2: keeping less of a finished ledger) must keep, so that
the worker and ``showdown audit replay`` keep deciding alike (see docs/archive.md, "What is not expired").

Each late line is decided through :func:`showdown_service.decision.decide.decide` (by a
:class:`~showdown_service.decision.tournament_replay.TournamentReplay`) against the
finished ledger as the worker reads it from its hash (every field), against
that ledger expired (:func:`showdown_service.worker.ledger.expired_fields`),
and against it read from its ``rules`` field alone (which would change five
kinds of decision: why an expired ledger keeps each entry's figures)."""

from __future__ import annotations

import copy

import orjson
import pytest

from showdown_service.decision.tournament_replay import TournamentReplay
from showdown_service.worker import ledger as store
from tests.tournament_builders import all_in, chips, closed, deal, entry, opened, replay, round_complete


def finished() -> TournamentReplay:
    """T: three entries, a rebuy, registration closed, then two hands: a wins, T is over."""
    run = replay(
        opened(payouts=[700, 300]),
        entry("a"),
        entry("b"),
        entry("c"),
        chips("a", 500),
        closed(),
        all_in("h1", [(1, "a", 1500, 1000), (2, "b", 1000, 1000)]),
        all_in("h2", [(1, "a", 2500, 1000), (3, "c", 1000, 1000)]),
    )
    assert not run.refused
    ledger = run.book.ledgers["T"]
    assert ledger is not None
    assert ledger.over
    return run


def ledger_fields(run: TournamentReplay, kept: str) -> dict[str, bytes]:
    """The ledger's hash as the worker writes it (``kept``: "all"), expired ("expired") or its ``rules`` alone."""
    ledger = run.book.ledgers["T"]
    assert ledger is not None
    fields = {store.RULES_FIELD: store.encode_rules(ledger)}
    for e in ledger.entries.values() if kept != "rules" else ():
        fields[store.entry_field(e.player_id, e.entry)] = store.encode_entry(e)
        fields[store.chips_field(e.player_id, e.entry)] = str(e.chips).encode()
    if kept == "expired":
        expired = store.expired_fields(fields)
        assert expired is not None
        return dict(expired)
    return fields


def late(run: TournamentReplay, kept: str, line: str) -> tuple[str, str | None, str | None]:
    """The decision on ``line`` against the finished ledger read back from its hash."""
    copied = copy.deepcopy(run)
    ledger = store.decode_ledger(ledger_fields(run, kept))
    assert ledger is not None
    copied.book.ledgers["T"] = ledger
    decision = copied.feed_line(line)
    assert decision is not None
    return decision.outcome, decision.code, decision.message


OVER = "tournament 'T' has finished"
CLOSED = "registration of tournament 'T' is closed: no more entries"
WITHOUT_ENTRIES = {
    "hand": (all_in("h9", [(1, "a", 3500, 1000), (2, "b", 1000, 1000)]), ("rejected", "tournament_over", OVER)),
    "hand of a player never entered": (
        all_in("h9", [(1, "a", 3500, 1000), (2, "zz", 1000, 1000)]),
        ("rejected", "tournament_over", OVER),
    ),
    "new entry": (entry("d"), ("rejected", "registration_closed", CLOSED)),
    "re-entry": (entry("b", number=2), ("rejected", "registration_closed", CLOSED)),
    "chips of an entry never registered": (
        chips("zz", 500),
        ("rejected", "not_entered", "entry 1 of 'zz' was never registered in tournament 'T'"),
    ),
    "registration_closed again": (closed(), ("duplicate", None, None)),
    "registration_closed with other payouts": (
        closed(payouts=[1000]),
        ("rejected", "registration_closed", "registration was closed already with other payouts"),
    ),
    "round_complete": (
        round_complete(1),
        ("rejected", "tournament_over", "round 1 completes after tournament 'T' finished"),
    ),
    "deal": (deal("equal", ["a", "b"]), ("rejected", "deal_not_allowed", "tournament 'T': it has finished")),
    "open again": (opened(payouts=[700, 300]), ("duplicate", None, None)),
    "open with other settings": (
        opened(payouts=[1]),
        ("rejected", "tournament_exists", "'T' was opened already with other settings; open a tournament once"),
    ),
}
"""Late lines a finished ledger decides from its ``rules`` alone: the same decision with or without entries."""

READ_ENTRIES = {
    "entry sent again": (entry("a"), ("duplicate", None, None)),
    "entry again with other figures": (
        entry("a", 999),
        ("rejected", "entry_conflict", "entry 1 of 'a' is registered already with other figures"),
    ),
    "chips of an entry that played": (
        chips("a", 500, purchase=2),
        (
            "rejected",
            "not_entered",
            "entry 1 of 'a' is not in play (the tournament has finished): only an entry in play buys chips",
        ),
    ),
    "chips purchase sent again": (chips("a", 500), ("duplicate", None, None)),
    "chips purchase again with other figures": (
        chips("a", 400),
        (
            "rejected",
            "purchase_conflict",
            "purchase 1 of entry 1 of 'a' was applied already with other figures (500 chips)",
        ),
    ),
}
"""Late lines a finished ledger decides from the entry they name (its figures at registration, its purchases):
a ledger expiry must keep these (or the decisions change, and the replay of the chain with them)."""


@pytest.mark.parametrize("kind", sorted(WITHOUT_ENTRIES))
def test_a_finished_ledger_decides_these_late_lines_before_reading_any_entry(kind: str) -> None:
    line, expected = WITHOUT_ENTRIES[kind]
    run = finished()
    assert late(run, "all", line) == expected
    assert late(run, "expired", line) == expected
    assert late(run, "rules", line) == expected


@pytest.mark.parametrize("kind", sorted(READ_ENTRIES))
def test_a_finished_ledger_decides_these_late_lines_from_the_entry_they_name(kind: str) -> None:
    line, expected = READ_ENTRIES[kind]
    run = finished()
    assert late(run, "all", line) == expected
    assert late(run, "expired", line) == expected
    assert late(run, "rules", line) != expected


def test_an_expired_ledger_keeps_no_entry_state_and_is_smaller() -> None:
    run = finished()
    full, expired = ledger_fields(run, "all"), ledger_fields(run, "expired")
    assert sorted(expired) == ["f:1:a", "f:1:b", "f:1:c", "rules"]
    assert orjson.loads(expired["f:1:a"]) == [1000, 0, [[500, 0]]]
    assert expired["rules"] == full["rules"]
    per_entry = [sum(len(k) + len(v) for k, v in fields.items() if k != "rules") for fields in (expired, full)]
    assert per_entry[0] * 2 < per_entry[1]  # the entries' part shrinks to under half
    ledger = store.decode_ledger(expired)
    assert ledger is not None
    assert (ledger.expired, ledger.over, ledger.live) == (True, True, {})
    assert (ledger.chips_in_play, ledger.bounties_put_up) == (3500, 0)


def test_a_ledger_not_finished_does_not_expire() -> None:
    run = replay(opened(payouts=[700, 300]), entry("a"), entry("b"), closed())
    assert store.expired_fields(ledger_fields(run, "all")) is None
    assert store.expired_fields({}) is None
