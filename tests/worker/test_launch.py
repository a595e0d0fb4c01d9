"""Stop signals are honoured from the first instant a worker process exists."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import event, seat


def catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler installed for ``signum`` (Linux: SigCgt in /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return False


def test_a_worker_stopped_while_it_is_still_starting_exits_0(worker_env: dict[str, str]) -> None:
    started = time.monotonic()
    worker = subprocess.Popen([sys.executable, "-m", "showdown_service", "worker"], env=worker_env)
    deadline = started + 10
    while not catches(worker.pid, signal.SIGTERM):
        assert time.monotonic() < deadline, "no SIGTERM handler was installed"
        time.sleep(0.001)
    handler_after = time.monotonic() - started
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(30) == 0

    started = time.monotonic()
    subprocess.run([sys.executable, "-c", "import showdown_service.cli.commands"], check=True)
    cli_imported_after = time.monotonic() - started
    # the handler exists long before the CLI (tables, pydantic, redis) could even be imported,
    # so the SIGTERM above reached a process still starting, and it still exited 0
    assert handler_after < cli_imported_after / 2, (handler_after, cli_imported_after)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_any_other_command_is_interrupted_at_once_by_ctrl_c_or_sigterm(signum: int) -> None:
    """Only the worker finishes first: `results --follow`, a replay or `adjudicate -` must not outlive a stop."""
    line = json.dumps(event(seat(1, "As Ad", 500), seat(2, "Kc Kd", 500), board="2c 7d 9h Js 3s", hand_id="h-1"))
    with subprocess.Popen(
        [sys.executable, "-m", "showdown_service", "adjudicate", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as command:
        assert command.stdin is not None
        assert command.stdout is not None
        assert command.stderr is not None
        command.stdin.write(line + "\n")
        command.stdin.flush()
        assert '"hand_id":"h-1"' in command.stdout.readline()  # settled: it now waits for the next line
        command.send_signal(signum)
        try:
            assert command.wait(10) == 130
        finally:
            command.kill()
        assert "Traceback" not in command.stderr.read()
