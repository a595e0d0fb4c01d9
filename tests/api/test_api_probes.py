"""The read API's own probes (``/livez``, ``/readyz``), which deploy/ points compose and Kubernetes at: they judge
this process and its Redis, never the workers' heartbeat file (which an API container does not share)."""

from __future__ import annotations

import json
import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx

from showdown_service.testing.localredis import LocalRedis
from tests.api_support import EVERYTHING, TOKENS, serving


def test_livez_and_readyz_answer_without_a_heartbeat_and_readyz_follows_redis(make_settings: Any) -> None:
    with LocalRedis() as server:
        settings = make_settings(server.url)
        assert not Path(settings.heartbeat_file).exists(), "an API container: no worker's heartbeat in sight"
        with serving(settings) as url:
            health = httpx.get(f"{url}/healthz", timeout=10)
            live = httpx.get(f"{url}/livez", timeout=10)
            ready = httpx.get(f"{url}/readyz", timeout=10)
            server.stop()
            gone_ready = httpx.get(f"{url}/readyz", timeout=30)
            gone_live = httpx.get(f"{url}/livez", timeout=10)
    assert health.status_code == 503, "/healthz is the workers' judgement: no use as this process's probe"
    assert (live.status_code, live.text) == (200, "alive\n")
    assert (ready.status_code, ready.text) == (200, "ready: Redis answers\n")
    assert gone_ready.status_code == 503
    assert gone_ready.text.startswith("not ready: Redis does not answer: ")
    assert (gone_live.status_code, gone_live.text) == (200, "alive\n"), "a Redis outage never restarts the API"


def test_the_probes_need_no_token_and_stay_out_of_the_openapi_document(make_settings: Any) -> None:
    with LocalRedis() as server, serving(make_settings(server.url)) as url:
        answers = {path: httpx.get(f"{url}{path}", timeout=10).status_code for path in ("/livez", "/readyz")}
        document = httpx.get(f"{url}/openapi.json", timeout=10).json()
    assert answers == {"/livez": 200, "/readyz": 200}
    assert not {"/livez", "/readyz"} & set(document["paths"]), "for the orchestrator, not the API's clients"


def test_showdown_api_logs_one_line_at_start_with_its_address_archive_and_auth(
    worker_env: dict[str, str], tmp_path: Path
) -> None:
    """Issue 42 item 6: the API logged nothing at start. Names only: never a token or its digest."""
    digest = TOKENS[0].sha256
    env = {**worker_env, "SHOWDOWN_ARCHIVE_URL": str(tmp_path / "archive"),
           "SHOWDOWN_API_TOKENS": json.dumps([t.model_dump() for t in TOKENS])}  # fmt: skip
    api = subprocess.Popen(
        [sys.executable, "-m", "showdown_service", "api", "--port", "0"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for text in api.stdout or ():
            lines.put(text)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        before: list[dict[str, Any]] = []
        while not before or before[-1]["event"] != "api_started":  # its line comes once it listens
            try:
                before.append(json.loads(lines.get(timeout=60)))
            except queue.Empty:
                raise AssertionError(f"no api_started line within 60 s; it logged {before}") from None
        line = before[-1]
        first = json.dumps(line)
        reply = httpx.get(f"{line['address']}/livez", timeout=10)
    finally:
        api.send_signal(signal.SIGTERM)
        api.wait(30)
        reader.join(10)
        if api.stdout is not None:
            api.stdout.close()
    assert re.fullmatch(r"http://127\.0\.0\.1:[0-9]+", line["address"]), "the port --port 0 took"
    assert reply.status_code == 200, "the address logged is the one served"
    assert line["archive"] == str(tmp_path / "archive")
    assert line["auth"] == "bearer tokens: ops, game-server"
    assert line["floor"] == "on: /floor/<tournament id> needs no token"
    assert digest not in first
    assert EVERYTHING not in first
