"""Two `showdown worker` processes on one host: each needs its own heartbeat file (the second one, given the
same, stops at once saying exactly what to set, in one line), and its own metrics port (found by itself while
SHOWDOWN_METRICS_PORT is left at its default; a port set explicitly and taken is an error saying what to set)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from showdown_service.cli.stream import metrics_ports_tried
from showdown_service.infra.config import Settings
from showdown_service.ops.metrics import PORTS_TRIED, Metrics, MetricsPortTaken
from showdown_service.testing.localredis import free_port
from tests.helpers import wait_until

WORKER = [sys.executable, "-m", "showdown_service", "worker"]


def start(env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(WORKER, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop(process: subprocess.Popen[bytes]) -> int:
    process.send_signal(signal.SIGTERM)
    return process.wait(timeout=30)


def test_a_second_worker_with_the_same_heartbeat_file_stops_at_once_saying_what_to_set(
    worker_env: dict[str, str], tmp_path: Path
) -> None:
    first = start(worker_env)
    try:
        beat = Path(worker_env["SHOWDOWN_HEARTBEAT_FILE"])
        wait_until(beat.exists, "the first worker's heartbeat", timeout=30)
        second = subprocess.run(WORKER, env=worker_env, capture_output=True, text=True, timeout=60, check=False)
        assert second.returncode == 2
        (line,) = second.stderr.splitlines()  # one line
        assert line.startswith(f"showdown: {beat} is the heartbeat file of another worker on this host")
        assert f"SHOWDOWN_HEARTBEAT_FILE={beat}.2" in line
        assert "--processes N" in line

        own = start({**worker_env, "SHOWDOWN_HEARTBEAT_FILE": f"{beat}.2"})  # what the line says to set
        try:
            wait_until(Path(f"{beat}.2").exists, "the second worker's own heartbeat", timeout=30)
            assert own.poll() is None, "the second worker, with its own heartbeat file, runs"
        finally:
            assert stop(own) == 0
    finally:
        assert stop(first) == 0


def test_a_worker_whose_explicit_metrics_port_is_taken_says_what_to_set_in_one_line(worker_env: dict[str, str]) -> None:
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**worker_env, "SHOWDOWN_METRICS_PORT": str(port)}
        refused = subprocess.run(WORKER, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert refused.returncode == 2
    (line,) = refused.stderr.splitlines()
    assert line == (
        f"showdown: the metrics port {port} is already in use (another worker on this host?): give this worker its "
        "own SHOWDOWN_METRICS_PORT (0: no metrics), or run one `showdown worker --processes N` instead"
    )


def test_metrics_move_up_from_a_taken_port_when_the_port_is_left_at_its_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SHOWDOWN_METRICS_PORT", raising=False)
    assert metrics_ports_tried(Settings()) == PORTS_TRIED, "the default: the next ports are tried"
    monkeypatch.setenv("SHOWDOWN_METRICS_PORT", "9200")
    assert metrics_ports_tried(Settings()) == 1, "set explicitly: that port or an error"

    with socket.socket() as taken:
        taken.bind(("0.0.0.0", free_port()))
        taken.listen()
        port = taken.getsockname()[1]
        metrics = Metrics()
        served = metrics.serve(port, tries=PORTS_TRIED)
        assert port < served < port + PORTS_TRIED
        assert metrics.port == served
        with urllib.request.urlopen(f"http://127.0.0.1:{served}/metrics", timeout=5) as reply:
            assert b"# TYPE showdown_heartbeat_timestamp_seconds gauge" in reply.read()
        with pytest.raises(MetricsPortTaken, match=f"the metrics port {port} is already in use"):
            Metrics().serve(port)


def test_a_group_whose_child_cannot_serve_its_explicit_metrics_port_stops_instead_of_restarting_it_forever(
    worker_env: dict[str, str],
) -> None:
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**worker_env, "SHOWDOWN_METRICS_PORT": str(port), "SHOWDOWN_CONSUMER": "box"}
        group = subprocess.run([*WORKER, "--processes", "2"], env=env, capture_output=True, text=True, timeout=90,
                               check=False)  # fmt: skip
    assert group.returncode == 2
    refusals = [line for line in group.stderr.splitlines() if f"the metrics port {port} is already in use" in line]
    assert len(refusals) == 1, "child 0 started once, not restarted in a loop"
    exits = [json.loads(line) for line in group.stdout.splitlines() if '"worker_process_exited"' in line]
    assert [(e["index"], e["status"], e["action"]) for e in exits] == [(0, 2, "stopping the group")]


def environ(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:  # gone (or a zombie's, unreadable): not a live child
        return b""


def test_a_child_that_keeps_dying_is_restarted_after_doubling_delays(
    worker_env: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "group.log"
    env = {**worker_env, "SHOWDOWN_METRICS_PORT": "0", "SHOWDOWN_CONSUMER": "box"}
    with log.open("wb") as out:
        group = subprocess.Popen([*WORKER, "--processes", "2"], env=env, stdout=out, stderr=subprocess.STDOUT)
    killed: list[int] = []

    def new_child() -> bool:
        pids = [int(p) for p in Path(f"/proc/{group.pid}/task/{group.pid}/children").read_text().split()]
        fresh = [pid for pid in pids if pid not in killed and b"SHOWDOWN_CONSUMER=box-0\0" in environ(pid)]
        killed.extend(fresh[:1])
        return bool(fresh)

    try:
        for _ in range(3):
            wait_until(new_child, "the group's (next) child", timeout=60)
            os.kill(killed[-1], signal.SIGKILL)
        wait_until(new_child, "the child started a fourth time", timeout=60)
        exits = [json.loads(line) for line in log.read_text().splitlines() if '"worker_process_exited"' in line]
        assert [(e["index"], e["status"], e["restart_in_s"]) for e in exits] == [
            (0, -9, 0.5),
            (0, -9, 1.0),
            (0, -9, 2.0),
        ]
    finally:
        assert stop(group) == 0
