"""Issue 34 item 3: one producer's ICM deal cannot stall a shard. An ``icm`` deal names at most
``MAX_ICM_DEAL_ENTRIES`` entries (``deal_too_large`` beyond, from the contract and the ledger), so its Monte Carlo's
work is bounded (the worker's side: tests/worker/test_deal_worker.py)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pytest
from pydantic import ValidationError

from showdown_core import InvalidEvent
from showdown_core import deals as core_deals
from showdown_core import icm as core_icm
from showdown_core.deals import deal_amounts
from showdown_messages import CODES, rejections
from showdown_messages.tournaments import parse_tournament_message
from showdown_rules import MAX_ICM_DEAL_ENTRIES
from tests.tournament_builders import closed, deal, entry, opened, replay

STATED_BOUND_S = 60.0
"""docs/tournaments.md: the largest icm deal takes about 3 s on one free core of this 2-core machine, 8-10 s with its
load average at 7; the bound is six times the worst of those, so only a deal whose work is not bounded fails it."""


def field(n: int) -> list[str]:
    """``n`` entries (p0 .. p<n-1>, different stacks) registered and closed, every one of them in the money."""
    return [opened(payouts=[10_000 - 100 * i for i in range(n)]), *[entry(f"p{i}", 1000 + 37 * i) for i in range(n)],
            closed()]  # fmt: skip


def deal_doc(n: int, method: str = "icm") -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(deal(method, [f"p{i}" for i in range(n)]))["tournament"]
    return doc


def test_deal_too_large_is_a_documented_code() -> None:
    assert MAX_ICM_DEAL_ENTRIES == 20
    assert "deal_too_large" in CODES
    assert "more than 20 entries" in CODES["deal_too_large"]


def test_the_contract_refuses_an_icm_deal_of_more_than_20_entries_and_takes_other_methods() -> None:
    parse_tournament_message(json.dumps(deal_doc(MAX_ICM_DEAL_ENTRIES)))
    payload = json.dumps(deal_doc(MAX_ICM_DEAL_ENTRIES + 1))
    with pytest.raises(ValidationError) as caught:
        parse_tournament_message(payload)
    (first, *_) = rejections(caught.value, payload)
    assert (first.code, first.field) == ("deal_too_large", "entries")
    assert "21 entries: an icm deal is shared between at most 20" in first.message
    parse_tournament_message(json.dumps(deal_doc(300, "chip_chop")))  # no Monte Carlo: any size


def test_the_ledger_refuses_an_oversized_icm_deal_before_any_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(*_: Any) -> tuple[Fraction, ...]:
        raise AssertionError("the Monte Carlo ran for a deal it refuses")

    monkeypatch.setattr(core_deals, "icm", never)
    n = MAX_ICM_DEAL_ENTRIES + 1
    with pytest.raises(InvalidEvent) as caught:
        deal_amounts("icm", [1000 + i for i in range(n)], [10_000 - 100 * i for i in range(n)])
    assert caught.value.code == "deal_too_large"
    assert sum(deal_amounts("chip_chop", [1000 + i for i in range(n)], [100] * n)) == 100 * n


def test_the_largest_allowed_icm_deal_decides_with_bounded_work_within_the_stated_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    draws: list[int] = []
    real = core_icm.icm_monte_carlo

    def counted(stacks: Sequence[int], prizes: Sequence[int], **kw: Any) -> tuple[Fraction, ...]:
        draws.append(core_icm.TRIALS * len(stacks))
        return real(stacks, prizes, **kw)

    monkeypatch.setattr(core_icm, "icm_monte_carlo", counted)
    n = MAX_ICM_DEAL_ENTRIES
    started = time.perf_counter()
    run = replay(*field(n), deal("icm", [f"p{i}" for i in range(n)]))
    took = time.perf_counter() - started
    assert not run.refused
    assert draws == [2_000_000], "one Monte Carlo of 100,000 orders of 20 stacks: the most a deal can ask"
    assert took < STATED_BOUND_S, f"the largest icm deal took {took:.1f} s (stated bound {STATED_BOUND_S} s)"
    ledger = run.book.ledgers["T"]
    assert ledger is not None
    assert ledger.deal is not None
    assert sum(amount for _, amount in ledger.deal.amounts) == sum(10_000 - 100 * i for i in range(n))
    refused = replay(*field(n + 1), deal("icm", [f"p{i}" for i in range(n + 1)]))
    assert [r.code for r in refused.refused] == ["deal_too_large"]


def test_the_monte_carlo_draws_the_same_values_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """The draws were made faster, not different: values computed with the uniform stream drawn one by one from
    _splitmix64 (the former loop) equal icm_monte_carlo's, with every place paid and with fewer."""
    import heapq
    from math import log

    def former(stacks: list[int], prizes: list[int], trials: int) -> tuple[Fraction, ...]:
        uniform = core_icm._splitmix64(core_icm.SEED)
        won = [0] * len(stacks)
        for _ in range(trials):
            race = [-log(next(uniform)) / float(s) for s in stacks]
            for place, i in enumerate(heapq.nsmallest(len(prizes), range(len(stacks)), key=race.__getitem__)):
                won[i] += prizes[place]
        return tuple(Fraction(w, trials) for w in won)

    fields = [
        ([5, 900, 31, 7000, 12, 450, 3, 3, 80, 1200, 66], [500, 300, 200, 100, 50, 25, 10, 5, 3, 2, 1]),
        ([100 + i for i in range(15)], [900, 500, 100]),
    ]
    for stacks, prizes in fields:
        assert core_icm.icm_monte_carlo(stacks, prizes, trials=500) == former(stacks, prizes, 500)
