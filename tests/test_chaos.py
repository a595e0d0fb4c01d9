"""The reduced chaos run: workers, Redis and the network fail while real hands settle; the books must balance."""

from __future__ import annotations

from bench.chaos import run


def test_nothing_is_lost_duplicated_or_wrong_when_workers_redis_and_the_network_fail() -> None:
    report = run(5_000, 3, rate=1_000.0, seed=11, timeout_s=240, log=lambda _: None)
    problems = report.lost + report.duplicated + report.wrong
    assert problems == [], report.table() + "\n" + "\n".join(problems[:20])
    assert report.pending == 0
    assert report.chain_holds
    assert report.audit_records == 5_000
    assert report.outcomes["settled"] > 4_500
    assert report.outcomes["duplicate"] > 0
    assert report.outcomes["rejected"] > 0
    assert (report.kills, report.sigterms, report.redis_restarts, report.network_cuts) == (3, 1, 1, 1)
    # the known gap: redis-py re-sends a pipeline whose reply was lost; it must change nothing
    assert report.replies_lost > 0
    assert report.harmless_resends > 0
    assert report.redis_errors > 0, "the workers rode out real outages"
