"""Stop signals are honoured from the first instant a worker process exists."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path


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
    subprocess.run([sys.executable, "-c", "import showdown_service.cli"], check=True)
    cli_imported_after = time.monotonic() - started
    # the handler exists long before the CLI (tables, pydantic, redis) could even be imported,
    # so the SIGTERM above reached a process still starting, and it still exited 0
    assert handler_after < cli_imported_after / 2, (handler_after, cli_imported_after)
