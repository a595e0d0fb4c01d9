"""The in-memory twin of a shard (decision/twin.py): the dedupe keys lapse as Redis's ``EX`` does, a broken ledger
invariant refuses its entry alone, as the worker's planning does; tournament replay, audit replay and the ledger
restore all decide through it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from showdown_service.decision import twin as twin_module
from showdown_service.decision.decide import Decided, LedgerInvariant, decide
from showdown_service.decision.settling import Prepared, prepare
from showdown_service.decision.twin import Twin
from tests.helpers import BUNDLED_SHOWDOWNS, read_cases

NOW = datetime(2026, 11, 29, tzinfo=UTC)
EVENT = next(iter(read_cases(BUNDLED_SHOWDOWNS)))["event"]


def prepared(hand_id: str, n: int = 1, **changes: Any) -> Prepared:
    doc = {**EVENT, "hand_id": hand_id, **changes}
    return prepare(f"0-{n}", {b"event": json.dumps(doc).encode()}, failures=0, max_deliveries=5,
                   max_payload_bytes=65536, now=NOW, started=0.0)  # fmt: skip


def outcome(twin: Twin, p: Prepared, now: float) -> str:
    return twin.decide([p], worker="w", at="2026-11-29T00:00:00.000000Z", now=now).decisions[0].outcome


def test_a_dedupe_key_lapses_exactly_at_the_ttl_as_redis_ex_does() -> None:
    twin = Twin(dedupe_ttl_s=60)
    assert outcome(twin, prepared("h"), 0.0) == "settled"
    assert outcome(twin, prepared("h", 2), 59.999) == "duplicate"
    assert outcome(twin, prepared("h", 3), 60.0) == "settled", "a key 60 s old is gone (SET ... EX 60)"


def test_without_a_ttl_a_key_never_lapses_as_a_tournament_replay_remembers_its_whole_file() -> None:
    twin = Twin(dedupe_ttl_s=None)
    assert outcome(twin, prepared("h"), 0.0) == "settled"
    assert outcome(twin, prepared("h", 2), 1e12) == "duplicate"


def test_a_conflicting_resend_is_refused_against_the_key_the_twin_kept() -> None:
    twin = Twin(dedupe_ttl_s=60)
    twin.decide([prepared("h")], worker="w", at="x", now=0.0)
    other = prepared("h", 2, table_id="elsewhere")
    assert twin.decide([other], worker="w", at="x", now=1.0).decisions[0].code == "conflicting_duplicate"


def test_remember_false_sets_no_key_and_remember_sets_the_one_given() -> None:
    twin = Twin(dedupe_ttl_s=60)
    twin.decide([prepared("h")], worker="w", at="x", now=0.0, remember=False)
    assert twin.seen == {}
    twin.remember("h", "digest", 5.0)
    assert twin.held(["h", "k"], 10.0) == {"h": "digest"}
    assert twin.held(["h"], 65.0) == {}
    assert twin.seen == {}


def test_the_chain_goes_on_from_the_twin_s_head_or_the_head_given() -> None:
    twin = Twin(dedupe_ttl_s=None)
    first = twin.decide([prepared("a")], worker="w", at="x", now=0.0)
    second = twin.decide([prepared("b", 2)], worker="w", at="x", now=0.0)
    assert second.decisions[0].record["prev_hash"] == first.head.hash
    assert second.decisions[0].record["seq"] == 2


def test_a_broken_invariant_refuses_its_entry_alone_and_the_batch_is_decided_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As the worker's planning: the entry the invariant names is ``invariant_violation``, the others decided as
    if it were not there; the twin lists what broke."""

    def breaking(batch: Sequence[Prepared], *args: Any, **kwargs: Any) -> Decided:
        for p in batch:
            if p.hand_id == "bad" and p.code is None:
                raise LedgerInvariant(p.entry_id, "chips were not conserved")
        return decide(batch, *args, **kwargs)

    monkeypatch.setattr(twin_module, "decide", breaking)
    twin = Twin(dedupe_ttl_s=None)
    decided = twin.decide([prepared("a", 1), prepared("bad", 2), prepared("c", 3)], worker="w", at="x", now=0.0)
    assert [(d.outcome, d.code) for d in decided.decisions] == [
        ("settled", None),
        ("rejected", "invariant_violation"),
        ("settled", None),
    ]
    assert [b.entry_id for b in twin.broken] == ["0-2"]
    assert set(twin.seen) == {"a", "c"}
