"""Rake schedules, byte for byte: what the worker writes for hands raked by a schedule stays what it wrote.

tests/fixtures/rake_golden.jsonl.gz holds events (``bench.rake_schedule``'s two, and hands of every game dealt by
``tests.strategies.deal_hand`` under each shipped schedule, at posted and unposted stakes, with no rake stated, the
schedule's own stated, and one more than it) and, for each, the digest of what ``prepare()`` and ``decide()`` made
of it: the refusal's code and message, or the result document, the event's and the result's digests and the audit
record as stored. A change that makes the live rake cheaper must leave every one of them as it was (issue 38's
speed work). Regenerate (only for an intended change of the documents): ``python -m tests.decision.test_rake_golden``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from datetime import UTC, datetime

import orjson

from bench.rake_schedule import SCHEDULED, STATED
from showdown_service.decision.audit import Head
from showdown_service.decision.decide import decide
from showdown_service.decision.rake_schedules import load_schedules
from showdown_service.decision.settling import prepare
from tests.helpers import FIXTURES
from tests.strategies import EVERY_GAME, deal_hand

GOLDEN = FIXTURES / "rake_golden.jsonl.gz"
NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
SCHEDULES = load_schedules()
BIG_BLINDS = (2, 10, 100, 300, 7)
"""Stakes some shipped schedules post, and one none posts (7)."""


def digest(raw: bytes) -> str:
    """sha256 of everything the worker writes for ``raw``: code, message, result, digests, the audit record."""
    p = prepare("1-0", {b"event": raw}, failures=0, max_deliveries=5, max_payload_bytes=65536, now=NOW,
                started=0.0, schedules=SCHEDULES)  # fmt: skip
    decided = decide([p], {}, Head(0, "0" * 64), worker="w", at="2026-11-22T12:00:00Z")
    (d,) = decided.decisions
    written = [p.code, p.message, p.result, p.event_sha256, p.result_sha256, d.outcome, d.record_json]
    return hashlib.sha256(orjson.dumps(written, default=lambda b: b.decode())).hexdigest()


def test_every_hand_raked_by_a_schedule_is_written_byte_for_byte_as_before() -> None:
    lines = [json.loads(line) for line in gzip.decompress(GOLDEN.read_bytes()).decode().splitlines()]
    assert len(lines) > 300
    codes = {line["code"] for line in lines}
    assert {None, "rake_mismatch", "unknown_rake_schedule"} <= codes  # settled and refused hands both covered
    changed = [i for i, line in enumerate(lines) if digest(line["event"].encode()) != line["digest"]]
    assert not changed, f"{len(changed)} of {len(lines)} hands written otherwise, e.g. line {changed[0] + 1}"


def _dealt() -> list[str]:
    """The fixture's events: the bench's two, then dealt hands under each shipped schedule (seeded)."""
    rng = random.Random(38)
    texts = [STATED.decode(), SCHEDULED.decode()]
    for schedule_id in sorted(SCHEDULES):
        schedule = SCHEDULES[schedule_id]
        posted = [t.big_blind for t in schedule.versions[-1].tiers if t.big_blind is not None] or [10]
        for k in range(30):  # most of them of the schedule's games and stakes, every fifth of any game and stakes
            games = EVERY_GAME if k % 5 == 4 else tuple(g for g in EVERY_GAME if g in schedule.games)
            doc = deal_hand(rng, games=games, rake=False)
            doc = {k: v for k, v in doc.items() if k not in {"rake", "rake_ppm", "tournament_id"}}
            big = rng.choice(BIG_BLINDS if k % 5 == 4 else posted)
            month, day, hour = rng.randint(1, 11), rng.randint(1, 28), rng.randint(0, 9)
            doc |= {"rake_schedule": schedule_id, "stakes": {"small_blind": max(1, big // 2), "big_blind": big},
                    "occurred_at": f"2026-{month:02d}-{day:02d}T0{hour}:00:00Z"}  # fmt: skip
            texts.append(json.dumps(doc))
            p = prepare("1-0", {b"event": texts[-1].encode()}, failures=0, max_deliveries=5,
                        max_payload_bytes=65536, now=NOW, started=0.0, schedules=SCHEDULES)  # fmt: skip
            if p.result is not None:  # the schedule's rake stated, and one more than it
                rake = orjson.loads(p.result)["pots"]
                stated = sum(pot["rake"] for pot in rake)
                texts += [json.dumps(doc | {"rake": stated}), json.dumps(doc | {"rake": stated + 1})]
    return texts


def _code(raw: bytes) -> str | None:
    return prepare("1-0", {b"event": raw}, failures=0, max_deliveries=5, max_payload_bytes=65536, now=NOW,
                   started=0.0, schedules=SCHEDULES).code  # fmt: skip


def main() -> None:
    """Write the fixture afresh from this checkout's code."""
    lines = [
        json.dumps({"event": text, "code": _code(text.encode()), "digest": digest(text.encode())}) for text in _dealt()
    ]
    GOLDEN.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0))
    print(f"{len(lines)} hands written to {GOLDEN}")


if __name__ == "__main__":
    main()
