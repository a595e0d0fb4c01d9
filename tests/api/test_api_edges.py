"""The read API's edges (issue 34, items 4-6): no reader can stall it, starve the token holders' event streams,
or get a traceback, a plain-text 500 or a server path out of it; every id the contract accepts is reachable."""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import pytest
import redis

from showdown_service.api.settings import ApiSettings
from showdown_service.infra.config import Settings
from tests.api_support import (
    HANDS_ONLY,
    TOKENS,
    bearer,
    commit,
    knockout,
    publish_lines,
    serving,
    sse_events,
)
from tests.helpers import REPO, event, seat

SLASHED = "pluribus:data/pluribus/109/73.phh"
"""A hand id as `showdown replay` makes them: the contract allows a `/`."""


@pytest.fixture
def settled(redis_url: str, make_settings: Any, client: redis.Redis) -> Settings:
    """A knockout committed up to its first bust (tournament ``T``, hand ``T-h1``)."""
    settings: Settings = make_settings(redis_url)
    publish_lines(client, settings.keys("default").events, knockout())
    commit(settings)
    return settings


def plain_hand(hand_id: str) -> dict[str, Any]:
    return event(
        seat(1, "As Ad", 100, player_id="ann"), seat(2, "Kc Kd", 100, player_id="bo"),
        board="2c 7d 9h Js 3s", hand_id=hand_id, table_id="cash-1",
    )  # fmt: skip


def settle(settings: Settings, client: redis.Redis, *hand_ids: str) -> None:
    lines = [json.dumps({"event": plain_hand(hand_id)}) for hand_id in hand_ids]
    publish_lines(client, settings.keys("default").events, lines)
    commit(settings)


# --- item 6: every id addressable ----------------------------------------------------------------


@pytest.mark.parametrize("hand_id", [SLASHED, "a/b", "room 1/hand?2#3%4", "/lead", "trail/", "a//b"])
def test_a_hand_whose_id_holds_a_slash_or_any_reserved_character_is_served(
    settled: Settings, client: redis.Redis, hand_id: str
) -> None:
    settle(settled, client, hand_id)
    with serving(settled) as url:
        reply = httpx.get(f"{url}/v1/hands/{quote(hand_id, safe='')}", headers=bearer())
    assert reply.status_code == 200, reply.text
    assert reply.json()["status"] == "settled"
    assert reply.json()["result"]["hand_id"] == hand_id


def test_the_pluribus_id_of_the_issue_is_reachable_as_the_issue_sent_it(settled: Settings, client: redis.Redis) -> None:
    settle(settled, client, SLASHED)
    with serving(settled) as url:
        reply = httpx.get(f"{url}/v1/hands/pluribus%3Adata%2Fpluribus%2F109%2F73.phh", headers=bearer())
        metrics = httpx.get(f"{url}/metrics").text
    assert reply.status_code == 200
    assert reply.json()["hand_id"] == SLASHED
    assert 'showdown_api_requests_total{route="/v1/hands/{hand_id}",status="200"} 1.0' in metrics
    assert "pluribus" not in metrics


def test_a_tournament_whose_id_holds_a_slash_is_served(settled: Settings, client: redis.Redis) -> None:
    publish_lines(client, settled.keys("default").events, knockout("room-7/T"))
    commit(settled)
    with serving(settled) as url:
        standings = httpx.get(f"{url}/v1/tournaments/room-7%2FT/standings", headers=bearer())
        with httpx.stream("GET", f"{url}/v1/tournaments/room-7%2FT/events", headers=bearer(), timeout=20) as reply:
            assert reply.status_code == 200
            events = sse_events(reply.iter_lines(), 2)
    assert standings.status_code == 200, standings.text
    assert standings.json()["tournament_id"] == "room-7/T"
    assert [(e["event"], e["data"]["tournament_id"]) for e in events] == [
        ("bust", "room-7/T"),
        ("placement", "room-7/T"),
    ]


@pytest.mark.parametrize(
    "query",
    [
        "since=0001-01-01T00:00:00Z",
        "since=0001-01-01T00:00:00%2B14:00",
        "since=1969-12-31T23:59:59Z",
        "since=18446744073709551616-0",
        "since=1-18446744073709551616",
        "since=99999999999999999999999-0",
        "since=%D9%A1%D9%A2-%D9%A0",  # Arabic-Indic digits: \d takes them, Redis does not
        "cursor=default/18446744073709551616-0",
        "cursor=default/18446744073709551615-18446744073709551615",
        "cursor=default/%D9%A1-%D9%A0",
    ],
)
@pytest.mark.parametrize("route", ["/v1/results", "/v1/dead-letters"])
def test_an_out_of_range_since_or_cursor_is_a_400_bad_query(settled: Settings, route: str, query: str) -> None:
    with serving(settled) as url:
        reply = httpx.get(f"{url}{route}?{query}", headers=bearer())
    assert reply.status_code == 400, reply.text
    assert reply.json()["code"] == "bad_query"
    assert reply.json()["message"]


def test_the_largest_ids_redis_takes_still_answer(settled: Settings) -> None:
    with serving(settled) as url:
        last = httpx.get(f"{url}/v1/results?since=18446744073709551615-0", headers=bearer())
        first = httpx.get(f"{url}/v1/results?since=1970-01-01T00:00:00Z", headers=bearer())
        zeros = httpx.get(f"{url}/v1/results?since=0000000000000000000001-0", headers=bearer())
    assert last.status_code == 200
    assert last.json() == {"items": [], "next": None}
    assert [i["result"]["hand_id"] for i in first.json()["items"]] == ["T-h1"]
    assert zeros.status_code == 200


@pytest.mark.parametrize(
    "last_event_id",
    [
        "18446744073709551616-0:0/0-0",
        "0-0:0/18446744073709551616-0",
        "0-0:0/18446744073709551615-18446744073709551615",
        "0-0:99999999999999999999/0-0",
    ],
)
def test_a_crafted_last_event_id_is_a_400_not_a_stream_cut_mid_way(settled: Settings, last_event_id: str) -> None:
    with (
        serving(settled) as url,
        httpx.stream(
            "GET", f"{url}/v1/tournaments/T/events", headers={**bearer(), "Last-Event-ID": last_event_id}, timeout=20
        ) as reply,
    ):
        status = reply.status_code  # a stream (200) is not read: it would not end
        body = reply.read() if status != 200 else b"{}"
    assert status == 400
    assert json.loads(body)["code"] == "bad_query"


def test_a_last_event_id_with_leading_zeros_resumes_after_that_event(settled: Settings) -> None:
    with serving(settled) as url:
        with httpx.stream("GET", f"{url}/v1/tournaments/T/events", headers=bearer(), timeout=20) as reply:
            bust, placement = sse_events(reply.iter_lines(), 2)
        results, _, standings = bust["id"].partition("/")
        padded = f"000{results}/{standings}"
        with httpx.stream("GET", f"{url}/v1/tournaments/T/events", timeout=20,
                          headers={**bearer(), "Last-Event-ID": padded}) as resumed:  # fmt: skip
            (after,) = sse_events(resumed.iter_lines(), 1)
    assert after["id"] == placement["id"], "the bust is not sent again"


def test_unknown_routes_and_methods_answer_the_apis_code_and_message(settled: Settings) -> None:
    with serving(settled) as url:
        nowhere = httpx.get(f"{url}/v2/hands/x", headers=bearer())
        posted = httpx.post(f"{url}/v1/hands/x", headers=bearer())
    assert nowhere.status_code == 404
    assert nowhere.json() == {"code": "not_found", "message": "no such route: see docs/api.md"}
    assert posted.status_code == 405
    assert posted.json()["code"] == "method_not_allowed"
    assert set(posted.json()) == {"code", "message"}


def test_no_docs_ui_is_served(settled: Settings) -> None:
    with serving(settled) as url:
        pages = [httpx.get(f"{url}{path}") for path in ("/docs", "/redoc", "/docs/oauth2-redirect")]
    assert [p.status_code for p in pages] == [404, 404, 404]
    assert all(p.json()["code"] == "not_found" for p in pages)
    assert not any("cdn" in p.text.lower() for p in pages)


def test_healthz_shows_no_file_paths(settled: Settings) -> None:
    settled.heartbeat_file.write_bytes(b'{"stopped_at": 1}')
    with serving(settled) as url:
        stale = httpx.get(f"{url}/healthz")
    assert stale.status_code == 503
    assert "stopped" in stale.text
    assert settled.heartbeat_file.name in stale.text, "the file is named, so an operator knows which"
    assert str(settled.heartbeat_file.parent) not in stale.text
    assert not re.search(r"(^|[\s'\"(=])/[\w.]", stale.text), stale.text


@pytest.mark.parametrize(
    "sent", [b"", b"GET /v1/hands/x HTTP/1.1\r\nHost: api\r\nAuthorization: Bearer "], ids=["nothing", "half"]
)
def test_a_half_sent_request_is_closed_by_the_server(settled: Settings, sent: bytes) -> None:
    api = ApiSettings(tokens=TOKENS, head_timeout_s=0.5)
    with serving(settled, api) as url:
        parts = urlsplit(url)
        with socket.create_connection((parts.hostname or "", parts.port or 0), timeout=10) as raw:
            raw.sendall(sent)
            try:
                closed = raw.recv(1024) == b""  # the server closed it (no answer to half a request)
            except TimeoutError:
                closed = False
            except ConnectionResetError:
                closed = True
    assert closed, "the server still holds a connection whose request head never ended, after 10 s"


def test_a_request_head_sent_a_byte_at_a_time_does_not_move_its_deadline(settled: Settings) -> None:
    api = ApiSettings(tokens=TOKENS, head_timeout_s=1.0)
    head = b"GET /healthz HTTP/1.1\r\nHost: api\r\nX-Slow: " + b"a" * 200
    with serving(settled, api) as url:
        parts = urlsplit(url)
        with socket.create_connection((parts.hostname or "", parts.port or 0), timeout=10) as raw:
            sent = 0
            try:
                for byte in head:  # one byte each 0.05 s: 10 s in all, were the connection kept
                    raw.sendall(bytes([byte]))
                    sent += 1
                    threading.Event().wait(0.05)
            except OSError:
                pass
            try:
                rest = raw.recv(1024)
            except TimeoutError:
                rest = None  # still open
            except OSError:
                rest = b""
    assert sent < len(head) or rest == b"", "the server kept a request head that took 10 s"


def test_a_whole_request_on_a_kept_alive_connection_is_still_answered(settled: Settings) -> None:
    api = ApiSettings(tokens=TOKENS, head_timeout_s=0.5)
    with serving(settled, api) as url, httpx.Client() as http:
        first = http.get(f"{url}/v1/hands/T-h1", headers=bearer())
        threading.Event().wait(1.0)  # longer than the head deadline, on the same connection
        second = http.get(f"{url}/v1/hands/T-h1", headers=bearer())
    assert (first.status_code, second.status_code) == (200, 200)


# --- item 4: the floor's streams apart ---------------------------------------------------------


def _open(stack: ExitStack, url: str, path: str, headers: dict[str, str], client: httpx.Client) -> int:
    """Open an event stream and hold it till ``stack`` closes (its first event read); its status."""
    reply = stack.enter_context(client.stream("GET", f"{url}{path}", headers=headers, timeout=20))
    if reply.status_code == 200:
        lines: Iterator[str] = reply.iter_lines()  # held by the callback: an iterator let go closes the stream
        stack.callback(list, [lines])
        sse_events(lines, 1)
    else:
        reply.read()
    return reply.status_code


def test_anonymous_floor_streams_cannot_take_the_token_holders_places(settled: Settings) -> None:
    api = ApiSettings(tokens=TOKENS, max_streams=2, floor_max_streams=2, floor_streams_per_address=5, poll_s=0.05)
    with serving(settled, api) as url, ExitStack() as stack, httpx.Client() as http:
        floors = [_open(stack, url, "/floor/T/events", {}, http) for _ in range(3)]
        tokens = [_open(stack, url, "/v1/tournaments/T/events", bearer(), http) for _ in range(2)]
        over = http.get(f"{url}/v1/tournaments/T/events", headers=bearer())
    assert floors == [200, 200, 429]
    assert tokens == [200, 200], "the floor's streams are counted apart from the token holders'"
    assert over.status_code == 429
    assert over.json()["code"] == "too_many_streams"


def test_one_address_may_hold_only_so_many_floor_streams(settled: Settings) -> None:
    api = ApiSettings(tokens=TOKENS, floor_max_streams=10, floor_streams_per_address=2, poll_s=0.05)
    other = httpx.HTTPTransport(local_address="127.0.0.2")
    with serving(settled, api) as url, ExitStack() as stack, httpx.Client() as http:
        elsewhere = stack.enter_context(httpx.Client(transport=other))
        mine = [_open(stack, url, "/floor/T/events", {}, http) for _ in range(3)]
        refused = http.get(f"{url}/floor/T/events")
        theirs = _open(stack, url, "/floor/T/events", {}, elsewhere)
    assert mine == [200, 200, 429]
    assert refused.json()["code"] == "too_many_streams"
    assert "address" in refused.json()["message"]
    assert theirs == 200, "another address has its own streams"


def test_docs_state_what_the_floor_serves_without_a_token() -> None:
    text = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    prose = " ".join(text.split())
    for route in ("`GET /floor/{tournament_id}/standings`", "`GET /floor/{tournament_id}/events`"):
        assert f"| {route} | none |" in text, route
    assert "SHOWDOWN_API_FLOOR_STREAMS_PER_ADDRESS" in text
    assert "serve, without a token, to anyone who can reach the API, exactly what" in prose


# --- item 5: unknown hands and the archive ------------------------------------------------------


class Archive:
    """An archive lookup that counts its scans and holds none of the hands (or ``hold`` them while ``gate`` is
    shut)."""

    def __init__(self) -> None:
        self.scans: list[str] = []
        self.gate = threading.Event()
        self.gate.set()
        self.entered = threading.Event()

    def __call__(self, hand_id: str) -> dict[str, Any] | None:
        self.scans.append(hand_id)
        self.entered.set()
        assert self.gate.wait(20)
        return None


def test_an_unknown_hand_asked_again_and_again_scans_the_archive_once(settled: Settings, client: redis.Redis) -> None:
    archive = Archive()
    api = ApiSettings(tokens=TOKENS, unknown_ttl_s=60)
    with serving(settled, api, archive=archive) as url:
        polls = [httpx.get(f"{url}/v1/hands/in-the-inbox", headers=bearer()) for _ in range(10)]
        settle(settled, client, "in-the-inbox")  # Redis is read first every time: the hand is found at once
        found = httpx.get(f"{url}/v1/hands/in-the-inbox", headers=bearer())
    assert [p.status_code for p in polls] == [404] * 10
    assert {p.json()["status"] for p in polls} == {"unknown"}
    assert archive.scans == ["in-the-inbox"]
    assert found.status_code == 200
    assert found.json()["status"] == "settled"


def test_archive_lookups_have_each_tokens_own_budget_apart_from_its_requests(settled: Settings) -> None:
    archive = Archive()
    api = ApiSettings(tokens=TOKENS, archive_rate_per_s=0.001, archive_burst=3, unknown_ttl_s=0)
    with serving(settled, api, archive=archive) as url:
        unknown = [httpx.get(f"{url}/v1/hands/nope-{i}", headers=bearer()) for i in range(5)]
        known = httpx.get(f"{url}/v1/hands/T-h1", headers=bearer())
        other = httpx.get(f"{url}/v1/hands/nope-9", headers=bearer(HANDS_ONLY))
    assert [r.status_code for r in unknown] == [404, 404, 404, 429, 429]
    assert unknown[-1].json()["code"] == "too_many_archive_lookups"
    assert int(unknown[-1].headers["retry-after"]) >= 1
    assert known.status_code == 200, "a hand Redis holds needs no archive budget"
    assert other.status_code == 404, "each token has its own archive budget"
    assert archive.scans == ["nope-0", "nope-1", "nope-2", "nope-9"]


def test_archive_lookups_beyond_the_concurrency_are_refused_not_queued(settled: Settings) -> None:
    archive = Archive()
    archive.gate.clear()
    api = ApiSettings(tokens=TOKENS, archive_concurrency=1, unknown_ttl_s=0)
    replies: list[httpx.Response] = []
    with serving(settled, api, archive=archive) as url:
        first = threading.Thread(target=lambda: replies.append(httpx.get(f"{url}/v1/hands/slow", headers=bearer(),
                                                                          timeout=30)))  # fmt: skip
        first.start()
        try:
            assert archive.entered.wait(20)
            second = httpx.get(f"{url}/v1/hands/other", headers=bearer(), timeout=10)
            settled_hand = httpx.get(f"{url}/v1/hands/T-h1", headers=bearer(), timeout=10)
        finally:
            archive.gate.set()
            first.join(timeout=30)
    assert second.status_code == 429
    assert second.json()["code"] == "archive_busy"
    assert settled_hand.status_code == 200
    assert [r.status_code for r in replies] == [404]
    assert archive.scans == ["slow"]
