"""The read API on a real Redis-protocol server and a real port: every route, every scope, every refusal."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from showdown_service.api.index import HandIndex
from showdown_service.api.settings import ApiSettings
from showdown_service.cli.api import openapi_document
from showdown_service.infra.config import Settings
from showdown_service.worker import ledger as store
from showdown_service.worker.ledger import read_book
from tests.api_support import (
    EVERYTHING,
    HANDS_ONLY,
    TOKENS,
    bearer,
    commit,
    knockout,
    publish_lines,
    second_bust,
    serving,
    sse_events,
)
from tests.helpers import REPO, event, seat, wait_until
from tests.tournament_builders import all_in, closed, entry, opened, replay

OPENAPI = REPO / "docs" / "openapi.json"


@pytest.fixture
def settled(redis_url: str, make_settings: Any, client: redis.Redis) -> Settings:
    """A knockout committed by a worker up to its first bust (``T-h1``: d busts, a takes the bounty)."""
    settings: Settings = make_settings(redis_url)
    publish_lines(client, settings.keys("default").events, knockout())
    commit(settings)
    return settings


def plain_hand(hand_id: str, table: str = "cash-1", winner: str = "ann") -> dict[str, Any]:
    return event(
        seat(1, "As Ad", 100, player_id=winner), seat(2, "Kc Kd", 100, player_id="bo"),
        board="2c 7d 9h Js 3s", hand_id=hand_id, table_id=table,
    )  # fmt: skip


def test_a_settled_hand_is_served_with_its_result_and_audit_record(settled: Settings) -> None:
    with serving(settled) as url:
        reply = httpx.get(f"{url}/v1/hands/T-h1", headers=bearer())
    assert reply.status_code == 200
    body = reply.json()
    assert body["status"] == "settled"
    assert body["result"]["busts"] == [{"seat": 4, "player_id": "d", "finish": 1}]
    assert body["result"]["bounties"][0]["winners"] == [
        {"seat": 1, "player_id": "a", "amount": 1000, "cash": 500, "added": 500}
    ]
    assert body["audit"]["hand_id"] == "T-h1"
    assert body["audit"]["outcome"] == "settled"
    assert body["dead_letter"] is None


def test_an_unknown_hand_is_a_404_with_the_same_body(settled: Settings) -> None:
    with serving(settled) as url:
        reply = httpx.get(f"{url}/v1/hands/never-sent", headers=bearer())
    assert reply.status_code == 404
    assert reply.json() == {"hand_id": "never-sent", "status": "unknown", "result": None, "dead_letter": None,
                            "audit": None}  # fmt: skip


def test_a_refused_hand_carries_its_dead_letter_then_a_requeue_makes_it_pending(
    settled: Settings, client: redis.Redis
) -> None:
    keys = settled.keys("default")
    bad = plain_hand("bad-1")
    bad["players"][0]["hole_cards"] = ["As", "As"]
    with serving(settled) as url:
        client.xadd(keys.events, {"event": json.dumps(bad)})
        commit(settled)
        refused = httpx.get(f"{url}/v1/hands/bad-1", headers=bearer()).json()
        client.xadd(keys.events, {"event": json.dumps(plain_hand("bad-1")), "requeued_from": "1-0"})
        pending = httpx.get(f"{url}/v1/hands/bad-1", headers=bearer()).json()
        commit(settled)
        settled_now = httpx.get(f"{url}/v1/hands/bad-1", headers=bearer()).json()
    assert refused["status"] == "refused"
    assert refused["dead_letter"]["code"] == "duplicate_card"
    assert refused["dead_letter"]["hand_id"] == "bad-1"
    assert refused["result"] is None
    assert pending["status"] == "pending"
    assert settled_now["status"] == "settled"
    assert settled_now["result"]["hand_id"] == "bad-1"


def test_a_published_hand_no_worker_has_read_is_pending(settled: Settings, client: redis.Redis) -> None:
    client.xadd(settled.keys("default").events, {"event": json.dumps(plain_hand("later-1"))})
    with serving(settled) as url:
        body = httpx.get(f"{url}/v1/hands/later-1", headers=bearer()).json()
    assert body["status"] == "pending"
    assert body["result"] is body["dead_letter"] is body["audit"] is None


def test_a_hand_redis_no_longer_holds_is_looked_up_in_the_archive(settled: Settings) -> None:
    archived = {"hand_id": "old-1", "status": "settled", "result": {"hand_id": "old-1"}, "dead_letter": None,
                "audit": None}  # fmt: skip
    with serving(settled, archive=lambda hand_id: archived if hand_id == "old-1" else None) as url:
        old = httpx.get(f"{url}/v1/hands/old-1", headers=bearer())
        new = httpx.get(f"{url}/v1/hands/T-h1", headers=bearer())
    assert old.status_code == 200
    assert old.json() == archived
    assert new.json()["status"] == "settled"


@pytest.mark.parametrize(
    ("headers", "status", "code"),
    [
        ({}, 401, "unauthenticated"),
        ({"Authorization": "Basic dXNlcjpwYXNz"}, 401, "unauthenticated"),
        ({"Authorization": "Bearer not-a-token"}, 401, "invalid_token"),
        ({"Authorization": f"Bearer {EVERYTHING}x"}, 401, "invalid_token"),
    ],
)
def test_a_request_without_a_known_token_is_a_401_with_a_json_body(
    settled: Settings, headers: dict[str, str], status: int, code: str
) -> None:
    with serving(settled) as url:
        replies = [httpx.get(f"{url}{path}", headers=headers) for path in (
            "/v1/hands/T-h1", "/v1/results", "/v1/dead-letters", "/v1/tournaments/T/standings",
            "/v1/tournaments/T/events",
        )]  # fmt: skip
    for reply in replies:
        assert reply.status_code == status, reply.request.url
        assert reply.json()["code"] == code
        assert reply.headers["www-authenticate"].startswith("Bearer")


def test_each_route_needs_its_scope(settled: Settings) -> None:
    with serving(settled) as url:
        allowed = [httpx.get(f"{url}{p}", headers=bearer(HANDS_ONLY)) for p in ("/v1/hands/T-h1", "/v1/results")]
        denied = [httpx.get(f"{url}{p}", headers=bearer(HANDS_ONLY)) for p in (
            "/v1/dead-letters", "/v1/tournaments/T/standings", "/v1/tournaments/T/events",
        )]  # fmt: skip
    assert [r.status_code for r in allowed] == [200, 200]
    assert [r.status_code for r in denied] == [403, 403, 403]
    assert {r.json()["code"] for r in denied} == {"insufficient_scope"}
    assert "'tournaments:read'" in denied[1].json()["message"]


@pytest.mark.parametrize(
    "path",
    [
        "/v1/results?limit=0",
        "/v1/results?limit=100000",
        "/v1/results?since=yesterday",
        "/v1/results?since=2026-11-25T10:00:00",
        "/v1/results?cursor=nowhere",
        "/v1/dead-letters?code=Not%20A%20Code",
        "/v1/hands/" + "h" * 201,
        "/v1/hands/a%01b",
    ],
)
def test_a_malformed_query_is_a_400_naming_what_is_wrong(settled: Settings, path: str) -> None:
    with serving(settled) as url:
        reply = httpx.get(f"{url}{path}", headers=bearer())
    assert reply.status_code == 400, reply.text
    body = reply.json()
    assert body["code"] == "bad_query"
    assert body["message"]


def test_over_the_request_limit_is_a_429(settled: Settings) -> None:
    api = ApiSettings(tokens=TOKENS, rate_per_s=0.5, burst=3)
    with serving(settled, api) as url:
        replies = [httpx.get(f"{url}/v1/hands/T-h1", headers=bearer()) for _ in range(5)]
        other = httpx.get(f"{url}/v1/hands/T-h1", headers=bearer(HANDS_ONLY))
    assert [r.status_code for r in replies] == [200, 200, 200, 429, 429]
    assert replies[-1].json()["code"] == "too_many_requests"
    assert int(replies[-1].headers["retry-after"]) >= 1
    assert other.status_code == 200, "each token has its own limit"


def test_the_standings_are_the_ledgers(settled: Settings, client: redis.Redis) -> None:
    book = read_book(client, settled.keys("default"), "T")
    assert book is not None
    with serving(settled) as url:
        reply = httpx.get(f"{url}/v1/tournaments/T/standings", headers=bearer())
        missing = httpx.get(f"{url}/v1/tournaments/nope/standings", headers=bearer())
    body = reply.json()
    assert body["placements"] == book.standings("T")[0]
    assert body["placements"] == [
        {"tournament_id": "T", "player_id": "d", "entry": 1, "place": 4, "tied": 1, "prize": 0, "bounty_cash": 0}
    ]
    assert [p["player_id"] for p in body["playing"]] == ["a", "b", "c"]
    assert body["prize_pool"] == 4000
    assert missing.status_code == 404
    assert missing.json()["code"] == "unknown_tournament"


def test_the_standings_of_an_expired_ledger_without_its_archive_are_a_503_naming_why(
    settled: Settings, client: redis.Redis, tmp_path: Path
) -> None:
    """An expired ledger keeps no places: with no archive at SHOWDOWN_ARCHIVE_URL the API says so (503), never
    answering from the ledger's figures (tests/archive/test_archive_redis.py serves them from a real archive)."""
    key = settled.keys("default").tournament("X")
    hand = all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)], tid="X")
    run = replay(opened("X", payouts=[10]), entry("a", tid="X"), entry("b", tid="X"), closed("X"), hand)
    finished = run.book.ledgers["X"]
    assert finished is not None
    assert finished.over
    full = {store.RULES_FIELD: store.encode_rules(finished)}
    full |= {store.entry_field(e.player_id, e.entry): store.encode_entry(e) for e in finished.entries.values()}
    expired = store.expired_fields(full)
    assert expired is not None
    client.hset(key, mapping=dict(expired))
    nowhere = str(tmp_path / "no-archive")
    with serving(settled.model_copy(update={"archive_url": nowhere})) as url:
        reply = httpx.get(f"{url}/v1/tournaments/X/standings", headers=bearer())
    assert reply.status_code == 503
    assert reply.json() == {
        "code": "archive_unavailable",
        "message": f"tournament 'X' finished and its ledger expired (its places are kept in the archive), but there "
        f"is no archive at SHOWDOWN_ARCHIVE_URL={nowhere!r}: point it at the archiver's archive",
    }


def test_results_filter_and_page_without_repeats_or_gaps(settled: Settings, client: redis.Redis) -> None:
    keys = settled.keys("default")
    publish_lines(client, keys.events, [json.dumps({"event": plain_hand(f"p-{i}", table=f"cash-{i % 2}",
                                                                        winner="ann" if i % 3 else "cy")})
                                        for i in range(7)])  # fmt: skip
    commit(settled)
    with serving(settled) as url:
        everything = httpx.get(f"{url}/v1/results", headers=bearer()).json()
        pages, cursor = [], None
        while True:
            page = httpx.get(f"{url}/v1/results", headers=bearer(),
                             params={"limit": 2, **({"cursor": cursor} if cursor else {})}).json()  # fmt: skip
            pages.append(page["items"])
            cursor = page["next"]
            if cursor is None:
                break
        table = httpx.get(f"{url}/v1/results?table_id=cash-1", headers=bearer()).json()
        player = httpx.get(f"{url}/v1/results?player_id=cy", headers=bearer()).json()
        tournament = httpx.get(f"{url}/v1/results?tournament_id=T", headers=bearer()).json()
        since = httpx.get(f"{url}/v1/results", headers=bearer(),
                          params={"since": everything["items"][-2]["id"]}).json()  # fmt: skip
    hands = [item["result"]["hand_id"] for item in everything["items"]]
    assert hands == ["T-h1"] + [f"p-{i}" for i in range(7)]
    assert everything["next"] is None
    assert [item["result"]["hand_id"] for page in pages for item in page] == hands
    assert [i["result"]["hand_id"] for i in table["items"]] == ["p-1", "p-3", "p-5"]
    assert [i["result"]["hand_id"] for i in player["items"]] == ["p-0", "p-3", "p-6"]
    assert [i["result"]["hand_id"] for i in tournament["items"]] == ["T-h1"]
    assert [i["result"]["hand_id"] for i in since["items"]] == ["p-5", "p-6"]


def test_dead_letters_filter_by_code_tournament_and_hand(settled: Settings, client: redis.Redis) -> None:
    keys = settled.keys("default")
    bad = plain_hand("bad-2")
    bad["players"][0]["hole_cards"] = ["As", "As"]
    lines = [json.dumps({"event": bad}), knockout()[1]]  # a second entry of `a`, same figures: a duplicate
    lines.append(knockout()[0].replace('"payouts": [3000, 1000]', '"payouts": [1]'))  # T again: tournament_exists
    publish_lines(client, keys.events, lines)
    commit(settled)
    with serving(settled) as url:
        everything = httpx.get(f"{url}/v1/dead-letters", headers=bearer()).json()["items"]
        by_code = httpx.get(f"{url}/v1/dead-letters?code=duplicate_card", headers=bearer()).json()["items"]
        by_tournament = httpx.get(f"{url}/v1/dead-letters?tournament_id=T", headers=bearer()).json()["items"]
        by_hand = httpx.get(f"{url}/v1/dead-letters?hand_id=bad-2", headers=bearer()).json()["items"]
    assert [d["code"] for d in everything] == ["duplicate_card", "tournament_exists"]
    assert [d["hand_id"] for d in by_code] == ["bad-2"]
    assert [(d["code"], d["tournament_id"], d["type"]) for d in by_tournament] == [("tournament_exists", "T", "open")]
    assert [d["code"] for d in by_hand] == ["duplicate_card"]


def test_the_event_stream_resumes_after_a_disconnect_with_nothing_missed_or_repeated(
    settled: Settings, client: redis.Redis
) -> None:
    with serving(settled) as url:
        with httpx.stream("GET", f"{url}/v1/tournaments/T/events", headers=bearer(), timeout=20) as first:
            assert first.headers["content-type"].startswith("text/event-stream")
            seen = sse_events(first.iter_lines(), 2)
        publish_lines(client, settled.keys("default").events, second_bust())
        commit(settled)  # committed while no one listens
        last = seen[-1]["id"]
        with httpx.stream("GET", f"{url}/v1/tournaments/T/events", timeout=20,
                          headers={**bearer(), "Last-Event-ID": last}) as resumed:  # fmt: skip
            after = sse_events(resumed.iter_lines(), 2)
        with httpx.stream("GET", f"{url}/v1/tournaments/T/events", timeout=20,
                          headers={**bearer(), "Last-Event-ID": seen[0]["id"]}) as again:  # fmt: skip
            from_bust = sse_events(again.iter_lines(), 3)
        bad = httpx.get(f"{url}/v1/tournaments/T/events", headers={**bearer(), "Last-Event-ID": "x"})
    assert [(e["event"], e["data"]["player_id"]) for e in seen] == [("bust", "d"), ("placement", "d")]
    assert seen[0]["data"]["bounty"]["winners"][0]["player_id"] == "a"
    assert [(e["event"], e["data"]["player_id"]) for e in after] == [("bust", "c"), ("placement", "c")]
    assert after[0]["data"]["hand_id"] == "T-h2"
    assert after[0]["data"]["bounty"]["bounty"] == 1000
    assert [e["id"] for e in from_bust] == [seen[1]["id"], after[0]["id"], after[1]["id"]]
    assert bad.status_code == 400


def test_healthz_is_the_judgement_of_showdown_health(settled: Settings) -> None:
    with serving(settled) as url:
        settled.heartbeat_file.write_bytes(b'{"stopped_at": 1}')
        stale = httpx.get(f"{url}/healthz")
        settled.heartbeat_file.write_bytes(b"")
        fresh = httpx.get(f"{url}/healthz")
    assert stale.status_code == 503
    assert stale.text.startswith("unhealthy:")
    assert "stopped" in stale.text
    assert fresh.status_code == 200
    assert fresh.text.startswith("healthy: 1 worker")


def test_metrics_count_requests_by_route_never_by_id(settled: Settings) -> None:
    with serving(settled) as url:
        httpx.get(f"{url}/v1/hands/T-h1", headers=bearer())
        httpx.get(f"{url}/v1/hands/nope", headers=bearer())
        text = httpx.get(f"{url}/metrics").text
    assert 'showdown_api_requests_total{route="/v1/hands/{hand_id}",status="200"} 1.0' in text
    assert 'showdown_api_requests_total{route="/v1/hands/{hand_id}",status="404"} 1.0' in text
    assert "T-h1" not in text
    assert "nope" not in text


def test_the_api_runs_no_command_that_writes(settled: Settings, client: redis.Redis) -> None:
    client.config_resetstat()
    with serving(settled) as url:
        paths = ("/v1/hands/T-h1", "/v1/hands/none", "/v1/results", "/v1/dead-letters",
                 "/v1/tournaments/T/standings", "/healthz", "/metrics", "/floor/T", "/floor/T/standings")  # fmt: skip
        for path in paths:
            httpx.get(f"{url}{path}", headers=bearer())
        with httpx.stream("GET", f"{url}/v1/tournaments/T/events", headers=bearer(), timeout=20) as stream:
            sse_events(stream.iter_lines(), 2)
    stats: dict[str, Any] = client.info("commandstats")
    used = {name.removeprefix("cmdstat_") for name in stats} - {"config|resetstat", "info"}
    assert used, "the API ran some command"
    assert used <= {"xrange", "xread", "hget", "hgetall", "exists", "ping", "client|setname"}, used


def test_the_committed_openapi_document_is_the_apps() -> None:
    committed = json.loads(OPENAPI.read_text(encoding="utf-8"))
    assert committed == json.loads(json.dumps(openapi_document())), "run `make schema` and commit docs/openapi.json"
    assert set(committed["paths"]) == {
        "/v1/hands/{hand_id}", "/v1/results", "/v1/dead-letters", "/v1/tournaments/{tournament_id}/standings",
        "/v1/tournaments/{tournament_id}/events", "/healthz", "/metrics", "/floor/{tournament_id}",
        "/v1/hands/{hand_id}/proof", "/v1/checkpoints/{shard}", "/v1/checkpoints/{shard}/consistency",
        "/v1/hands/{hand_id}/history", "/hands/{hand_id}", "/v1/jackpots/{jackpot_id}",
    }  # fmt: skip
    assert all(set(item) == {"get"} for item in committed["paths"].values()), "read-only: GET only"


def test_event_streams_beyond_the_limit_are_a_429_and_a_closed_one_frees_its_place(settled: Settings) -> None:
    api = ApiSettings(tokens=TOKENS, max_streams=1, poll_s=0.05)
    with serving(settled, api) as url:
        with httpx.stream("GET", f"{url}/v1/tournaments/T/events", headers=bearer(), timeout=20) as first:
            lines = first.iter_lines()  # held: an iterator let go closes the connection
            sse_events(lines, 1)
            second = httpx.get(f"{url}/v1/tournaments/T/events", headers=bearer())
            del lines
        wait_until(lambda: _stream_opens(url), "the closed stream's place freed", timeout=20)
    assert second.status_code == 429
    assert second.json()["code"] == "too_many_streams"


def _stream_opens(url: str) -> bool:
    """Whether an event stream may be opened (its first event read, then closed)."""
    with httpx.stream("GET", f"{url}/v1/tournaments/T/events", headers=bearer(), timeout=20) as reply:
        if reply.status_code != 200:
            return False
        sse_events(reply.iter_lines(), 1)
        return True


def test_a_hand_trimmed_from_redis_is_forgotten_by_the_index_and_asked_of_the_archive(
    settled: Settings, client: redis.Redis
) -> None:
    keys = settled.keys("default")
    publish_lines(client, keys.events, [json.dumps({"event": plain_hand(f"t-{i}")}) for i in range(3)])
    commit(settled)
    asked: list[str] = []

    def archive(hand_id: str) -> dict[str, Any] | None:
        asked.append(hand_id)
        return None

    index = HandIndex(settled, client, archive)
    index.catch_up()
    assert index.lookup("t-0")["status"] == "settled"
    for key in (keys.results, keys.audit, keys.events):
        client.xtrim(key, maxlen=1, approximate=False)  # as Redis trims to its window (the archiver keeps the rest)
    assert index.prune() > 0
    assert "t-0" not in index.results
    assert "t-2" in index.results
    assert index.lookup("t-0")["status"] == "unknown"
    assert asked == ["t-0"]
    assert index.lookup("t-2")["status"] == "settled"


def test_docs_api_lists_every_api_setting_with_its_default() -> None:
    text = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `SHOWDOWN_API_([A-Z_]+)` \| `([^`]*)` \|", text, re.MULTILINE))
    assert set(rows) == {name.upper() for name in ApiSettings.model_fields}
    for name, info in ApiSettings.model_fields.items():
        default = info.get_default(call_default_factory=True)
        if default is None:
            shown = "(none)"
        else:
            shown = "[]" if default == () else str(default).lower() if isinstance(default, bool) else f"{default:g}"
        assert rows[name.upper()] == shown, name
