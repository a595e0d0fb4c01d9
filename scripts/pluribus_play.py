"""Every Pluribus hand of ``../shared/data`` as an event with its ``play``, settled as a worker settles it.

Each of the 6,844 PHH hands is read by the replay (``showdown_service.histories.phh``), given its betting as
``play`` (phh-std's own fields, line for line: ``p<i>`` is the file's i-th player) and judged and decided as the
worker does (``settling.prepare`` then ``decide.decide``, one batch, no hand seen before). Each must settle, and each
seat's ``end_stack`` must be the file's ``finishing_stacks`` (Pluribus writes a chopped odd chip as a half: within one
chip). ``tests/decision/test_play_event.py`` runs a bounded sample of the same.

Run: ``.venv/bin/python scripts/pluribus_play.py [PHH_FOLDER]`` (default ``../shared/data/phh/pluribus``); prints the
count settled, the mismatches, and exits 1 on any.
"""

from __future__ import annotations

import json
import sys
import tomllib
from datetime import UTC, datetime
from pathlib import Path

import orjson

from showdown_service.decision.audit import EMPTY
from showdown_service.decision.decide import decide
from showdown_service.decision.settling import prepare
from showdown_service.histories.phh import read_phh

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "phh" / "pluribus"
PLAY_FIELDS = ("variant", "antes", "blinds_or_straddles", "min_bet", "starting_stacks", "actions")
AT = "2026-11-29T00:00:00.000000Z"


def main() -> int:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    now = datetime(2026, 11, 29, tzinfo=UTC)
    batch, finishing = [], {}
    for k, path in enumerate(sorted(folder.rglob("*.phh"))):
        text = path.read_text()
        fields = tomllib.loads(text)
        [hand] = list(read_phh(text, str(path)))
        if hand.event is None:  # type: ignore[union-attr]
            print(f"{path}: not read by the replay: {hand}")
            continue
        doc = hand.event.model_dump(mode="json", exclude_none=True)  # type: ignore[union-attr]
        doc["play"] = {key: fields[key] for key in PLAY_FIELDS}
        doc["play"]["ante_trimming_status"] = bool(fields.get("ante_trimming_status", False))
        entry = {b"event": json.dumps(doc).encode()}
        batch.append(prepare(f"1-{k}", entry, failures=0, max_deliveries=5, max_payload_bytes=1 << 20, now=now,
                             started=0.0))  # fmt: skip
        finishing[doc["hand_id"]] = fields["finishing_stacks"]
    decided = decide(batch, {}, EMPTY, worker="pluribus-play", at=AT)
    bad = 0
    for decision in decided.decisions:
        hand_id = decision.prepared.hand_id
        if decision.outcome != "settled" or decision.result is None:
            bad += 1
            print(f"{hand_id}: {decision.outcome} {decision.code}: {decision.message}")
            continue
        ends = [award["end_stack"] for award in orjson.loads(decision.result)["awards"]]
        recorded = finishing[hand_id]
        if any(abs(end - stack) >= 1 for end, stack in zip(ends, recorded, strict=True)):
            bad += 1
            print(f"{hand_id}: end stacks {ends}, recorded {recorded}")
    print(f"{len(decided.decisions)} hands with play decided; {len(decided.decisions) - bad} settled at their "
          f"recorded finishing stacks; {bad} not")  # fmt: skip
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
