"""Copy a few hundred real showdowns (MIT) from ../shared/data into the package.

Every interesting case is kept (side pots, splits, odd chips, multiway,
all-ins, PokerStars hands); plain heads-up showdowns fill the rest.
Reproducible: run from the repository root, ``python scripts/bundle_examples.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

SOURCE = Path("../shared/data/cases/real_showdowns.jsonl")
TARGET = Path("worker/showdown_service/data/showdowns.jsonl")
WANTED = 300
INTERESTING = ("side_pot", "split_pot", "odd_chip", "multiway", "board_plays", "unequal_all_in", "all_in")


def main() -> None:
    rows = [json.loads(line) for line in SOURCE.read_text(encoding="utf-8").splitlines() if line.strip()]
    chosen = [r for r in rows if not r["event"]["hand_id"].startswith("pluribus")]
    chosen += [r for r in rows if r not in chosen and any(r["categories"].get(c) for c in INTERESTING)]
    chosen += [r for r in rows if r not in chosen][: max(0, WANTED - len(chosen))]
    chosen.sort(key=rows.index)
    TARGET.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in chosen), encoding="utf-8")
    print(f"{len(chosen)} showdowns -> {TARGET}")


if __name__ == "__main__":
    main()
