"""What a rake schedule costs a hand: ``prepare()`` of one hold'em event with a stated rake against the same event
naming its table's schedule and stakes (issue 38: at most 10% more).

Run: ``.venv/bin/python -m bench.rake_schedule`` (medians of 7 rounds of 20,000 events each, in one process), then
the same pairs by the process's CPU time, the least of 40 rounds of 500 events each: on a shared machine (the 2 cores
of several sessions, load 10-16) the wall clock measures the neighbours as much as the code, a round's CPU time much
less so.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime

from showdown_service.decision.rake_schedules import schedules_in
from showdown_service.decision.settling import prepare

_PLAYERS = [
    {"seat": 2, "player_id": "p2", "contributed": 2, "folded": True},
    {"seat": 3, "player_id": "p3", "hole_cards": ["8h", "8c"], "contributed": 1226},
    {"seat": 4, "player_id": "p4", "hole_cards": ["Ah", "Ks"], "contributed": 1226},
    {"seat": 5, "player_id": "p5", "contributed": 12, "folded": True},
    {"seat": 6, "player_id": "p6", "contributed": 2, "folded": True},
]
_BASE = {"schema_version": 1, "hand_id": "H-1", "table_id": "T-1", "board": ["5c", "4c", "4h", "Qs", "Kc"],
         "button_seat": 3, "occurred_at": "2026-11-29T02:00:00Z", "players": _PLAYERS}  # fmt: skip
STATED = json.dumps({**_BASE, "rake": 111}).encode()
SCHEDULED = json.dumps(
    {**_BASE, "rake_schedule": "pokerstars-usd-nl-pl", "stakes": {"small_blind": 5, "big_blind": 10}}
).encode()


def per_event_us(raw: bytes, count: int = 20_000, clock: Callable[[], float] = time.perf_counter) -> float:
    """Microseconds a ``prepare()`` of ``raw``, over ``count`` calls, by ``clock``."""
    schedules = schedules_in(None)
    now = datetime.now(UTC)
    start = clock()
    for _ in range(count):
        prepare("1-0", {b"event": raw}, failures=0, max_deliveries=5, max_payload_bytes=65536, now=now,
                started=0.0, schedules=schedules)  # fmt: skip
    return (clock() - start) / count * 1e6


def main(rounds: int = 7) -> None:
    per_event_us(STATED, 2000)
    per_event_us(SCHEDULED, 2000)
    pairs = [(per_event_us(STATED), per_event_us(SCHEDULED)) for _ in range(rounds)]  # alternated: load alike
    stated = statistics.median(a for a, _ in pairs)
    scheduled = statistics.median(b for _, b in pairs)
    print(f"stated rake {stated:.1f} us/event, by schedule {scheduled:.1f} us/event: {scheduled / stated:.3f}")
    cpu = [(per_event_us(STATED, 500, time.process_time), per_event_us(SCHEDULED, 500, time.process_time))
           for _ in range(40)]  # fmt: skip
    stated, scheduled = min(a for a, _ in cpu), min(b for _, b in cpu)
    print(f"CPU time, least of 40: stated rake {stated:.1f} us/event, by schedule {scheduled:.1f} us/event: "
          f"{scheduled / stated:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
