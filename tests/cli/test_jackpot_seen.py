"""A jackpot's fund seen and counted (issue 39 item 1, "The API and `showdown jackpot ID` show the fund ...; metrics
count drops and payouts (bounded labels)"): the CLI and the read API give the fund as Redis holds it, and the
worker's counters count drops, payouts and their amounts by program."""

from __future__ import annotations

import json
from typing import Any

import fakeredis
import httpx
import pytest

from showdown_service.cli.commands import main
from showdown_service.infra.connection import connect
from showdown_service.ops.metrics import Metrics
from showdown_service.worker.loop import Worker
from tests.api_support import bearer, commit, serving
from tests.worker.test_jackpot_worker import HOLDEM, bad_beat_hand, ggpoker_kings

FUND = "ggpoker-bbj-usd"


def _publish(client: Any, stream: str) -> None:
    for doc in (ggpoker_kings(seed=1_000_000), bad_beat_hand()):
        client.xadd(stream, {"event": json.dumps(doc)})


def _expected(shard: str, last_at: str) -> dict[str, Any]:
    # the figures of test_the_fund_is_a_ledger_in_redis_and_a_bad_beat_pays_amounts_from_it
    return {"jackpot_id": FUND, "funds": [{
        "shard": shard, "program": HOLDEM, "balance": 862_259, "seed": 1_000_000, "hands": 2, "drops": 2,
        "dropped": 300, "payouts": 1, "paid": 138_041,
        "last_bad_beat": {"hand_id": "BB-1", "paid": 138_041, "at": last_at},
    }]}  # fmt: skip


def test_the_cli_and_the_api_show_the_fund_as_redis_holds_it(
    redis_url: str, make_settings: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = make_settings(redis_url)
    _publish(connect(settings), settings.keys("default").events)
    commit(settings)
    monkeypatch.setenv("SHOWDOWN_REDIS_URL", redis_url)
    assert main(["jackpot", FUND, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown == _expected("default", shown["funds"][0]["last_bad_beat"]["at"])
    assert main(["jackpot", FUND]) == 0
    text = capsys.readouterr().out
    assert "balance        862259" in text
    assert "last bad beat  BB-1 paid 138041 at " in text
    assert "seed + dropped - paid = 1000000 + 300 - 138041 = 862259: holds" in text
    assert main(["jackpot", "nobody's"]) == 1
    assert "no fund of nobody's on the shards default" in capsys.readouterr().err
    with serving(settings) as url:
        reply = httpx.get(f"{url}/v1/jackpots/{FUND}", headers=bearer())
        unknown = httpx.get(f"{url}/v1/jackpots/nobody", headers=bearer())
        anonymous = httpx.get(f"{url}/v1/jackpots/{FUND}")
    assert reply.status_code == 200
    assert reply.json() == shown
    assert (unknown.status_code, unknown.json()["code"]) == (404, "unknown_jackpot")
    assert anonymous.status_code == 401


def test_the_worker_counts_drops_and_payouts_by_program_never_by_jackpot_id(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    metrics = Metrics()
    _publish(fake, settings.keys("default").events)
    worker = Worker(settings, fake, metrics=metrics)
    worker.prepare_groups()
    worker.step()
    worker.flush()
    registry = metrics.registry

    def value(name: str) -> float | None:
        return registry.get_sample_value(name, {"shard": "default", "program": HOLDEM})

    assert value("showdown_jackpot_drops_total") == 2
    assert value("showdown_jackpot_dropped_minor_units_total") == 300
    assert value("showdown_jackpot_payouts_total") == 1
    assert value("showdown_jackpot_paid_minor_units_total") == 138_041
    labels = {
        key
        for family in registry.collect()
        if family.name.startswith("showdown_jackpot")
        for sample in family.samples
        for key in sample.labels
    }
    assert labels == {"shard", "program"}  # bounded: the shipped programs, never the room's jackpot id
