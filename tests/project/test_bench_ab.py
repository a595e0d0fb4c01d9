"""bench.ab_worker's own check (issue 41): this checkout's worker against a pinned release's fails below 0.95."""

from __future__ import annotations

import sys
from contextlib import nullcontext
from typing import Any

import pytest
import redis

from bench import ab_worker
from bench import worker as bw


def test_verdict_passes_at_the_target_and_fails_below_it() -> None:
    assert ab_worker.TARGET == 0.95
    assert ab_worker.verdict(0.95) == ("PASS: this/base worker/bare-loop ratio 0.950 >= 0.95", True)
    assert ab_worker.verdict(1.2)[1]
    assert ab_worker.verdict(0.949) == ("FAIL: this/base worker/bare-loop ratio 0.949 < 0.95", False)


def _fake_runs(monkeypatch: pytest.MonkeyPatch, rates: dict[str, float]) -> None:
    """main() without servers: every bare loop 1,000/s, each version's worker at ``rates[its python]``."""

    class Server:
        url = "redis://unused"

    class Client:
        def flushall(self) -> None:
            pass

    monkeypatch.setattr(ab_worker, "LocalRedis", lambda **_: nullcontext(Server()))
    monkeypatch.setattr(redis.Redis, "from_url", lambda *_, **__: Client())
    monkeypatch.setattr(bw, "bare_loop", lambda *_: bw.Throughput("bare", 1000.0))

    def run_worker(*_: Any, python: str, **__: Any) -> tuple[float, float, float]:
        return rates[python], 100.0, 30.0

    monkeypatch.setattr(ab_worker, "run_worker", run_worker)


def test_a_slower_worker_fails_the_comparison(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _fake_runs(monkeypatch, {"base": 1000.0, sys.executable: 900.0})
    with pytest.raises(SystemExit) as ended:
        ab_worker.main(["base", "3", "10"])
    assert ended.value.code == 1
    assert capsys.readouterr().out.splitlines()[-1] == "FAIL: this/base worker/bare-loop ratio 0.900 < 0.95"


def test_a_worker_as_fast_passes(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _fake_runs(monkeypatch, {"base": 1000.0, sys.executable: 960.0})
    ab_worker.main(["base", "1", "10"])
    assert capsys.readouterr().out.splitlines()[-1] == "PASS: this/base worker/bare-loop ratio 0.960 >= 0.95"
