"""The read API's own probes (``/livez``, ``/readyz``), which deploy/ points compose and Kubernetes at: they judge
this process and its Redis, never the workers' heartbeat file (which an API container does not share)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from showdown_service.localredis import LocalRedis
from tests.api_support import serving


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
