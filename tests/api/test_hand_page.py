"""A settled hand given back whole by the read API (issue 36 items 5-6): ``/v1/hands/{id}/history`` as PHH or Open
Hand History (read back by the replay to the same settlement), and the replay page ``/hands/{id}`` in a real
headless Chromium (Debian's, driven by Playwright, as tests/api/test_floor_page.py): behind the hands:read scope, street
by street with the cards drawn, each seat's chips at the start and end, total bet and won, on a phone's width."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from playwright.sync_api import BrowserContext

from showdown_service.histories.compare import judge
from showdown_service.infra.config import Settings
from tests.api.test_floor_page import browser as browser  # noqa: PLC0414  # the floor page's Chromium fixture
from tests.api_support import HANDS_ONLY, bearer, commit, publish_lines, serving
from tests.helpers import SHARED_DATA
from tests.histories.test_history_export import read_back, settled, with_play

PLURIBUS = SHARED_DATA / "phh" / "pluribus"
SHOWDOWN = PLURIBUS / "83" / "63.phh"
"""Checked down to a showdown of two: every street dealt, two hands shown."""
RAISED = PLURIBUS / "30" / "0.phh"
"""A raise and five folds preflop: the raise's uncalled part goes back."""


def events(*paths: Path) -> tuple[list[dict[str, Any]], list[str]]:
    docs = []
    for k, path in enumerate(paths):
        doc, _ = with_play(path)
        docs.append(doc | {"hand_id": f"P-{k}", "table_id": "pluribus"})
    v1 = {key: value for key, value in docs[0].items() if key != "play"} | {"hand_id": "V1"}
    return docs, [json.dumps({"event": doc}) for doc in [*docs, v1]]


@pytest.fixture
def served(redis_url: str, make_settings: Any, client: redis.Redis) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """The API over a Redis where a worker settled two Pluribus hands with their play and a v1 event."""
    settings: Settings = make_settings(redis_url)
    docs, lines = events(SHOWDOWN, RAISED)
    publish_lines(client, settings.keys("default").events, lines)
    commit(settings)
    with serving(settings) as url:
        yield url, docs


def test_the_history_route_gives_a_settled_hand_back_as_phh_and_ohh_that_replay_to_its_result(
    served: tuple[str, list[dict[str, Any]]],
) -> None:
    url, docs = served
    for doc in docs:
        result = httpx.get(f"{url}/v1/hands/{doc['hand_id']}", headers=bearer(HANDS_ONLY)).json()["result"]
        phh = httpx.get(f"{url}/v1/hands/{doc['hand_id']}/history", headers=bearer(HANDS_ONLY))
        assert phh.status_code == 200
        assert phh.headers["content-type"].startswith("application/toml")
        ohh = httpx.get(f"{url}/v1/hands/{doc['hand_id']}/history?format=ohh", headers=bearer(HANDS_ONLY))
        assert ohh.status_code == 200
        assert ohh.json()["ohh"]["game_number"] == doc["hand_id"]
        for text, fmt in ((phh.text, "phh"), (ohh.text, "ohh")):
            hand = read_back(text, fmt)
            assert judge(hand).status == "match"
            assert hand.event is not None
            again = settled(hand.event.model_dump(mode="json", exclude_none=True))
            assert [a["amount"] for a in again["awards"]] == [a["amount"] for a in result["awards"]]


def test_the_history_route_and_the_page_refuse_what_they_cannot_give_back(
    served: tuple[str, list[dict[str, Any]]],
) -> None:
    url, _ = served
    assert httpx.get(f"{url}/v1/hands/P-0/history").status_code == 401
    assert httpx.get(f"{url}/hands/P-0").status_code == 401, "the page is behind the token too"
    gone = httpx.get(f"{url}/v1/hands/nowhere/history", headers=bearer())
    assert (gone.status_code, gone.json()["code"]) == (404, "not_settled")
    v1 = httpx.get(f"{url}/v1/hands/V1/history", headers=bearer())
    assert (v1.status_code, v1.json()["code"]) == (409, "no_history")
    assert "hand V1: its event has no play" in v1.json()["message"]
    page = httpx.get(f"{url}/hands/V1", headers=bearer())
    assert (page.status_code, page.json()["code"]) == (409, "no_history")
    assert httpx.get(f"{url}/v1/hands/P-0/history?format=xml", headers=bearer()).status_code == 400


def test_a_later_conflicting_re_send_is_never_given_back_as_the_settled_hand(
    redis_url: str, make_settings: Any, client: redis.Redis
) -> None:
    settings: Settings = make_settings(redis_url)
    docs, lines = events(SHOWDOWN)
    other = json.loads(json.dumps(docs[0]))
    other["play"]["actions"][-1] = "p2 sm"  # MrBlue mucks: another hand under the same id
    other["players"][1]["folded"] = True
    publish_lines(client, settings.keys("default").events, [lines[0], json.dumps({"event": other})])
    commit(settings)
    with serving(settings) as url:
        hand = httpx.get(f"{url}/v1/hands/P-0", headers=bearer()).json()
        assert (hand["status"], hand["audit"]["code"]) == ("settled", "conflicting_duplicate")
        given = httpx.get(f"{url}/v1/hands/P-0/history", headers=bearer())
    assert (given.status_code, given.json()["code"]) == (404, "event_gone"), "never the re-send's play"


def test_the_replay_page_steps_street_by_street_with_the_cards_drawn_on_a_phone(
    served: tuple[str, list[dict[str, Any]]], browser: BrowserContext, tmp_path: Path
) -> None:
    url, _ = served
    page = browser.new_page()
    page.set_extra_http_headers(bearer(HANDS_ONLY))  # what a room's server in front of the page sends
    page.goto(f"{url}/hands/P-0")
    page.wait_for_selector("body.loaded", timeout=20_000)
    assert page.locator("h1").inner_text() == "Hand P-0"
    assert [b.strip() for b in page.locator("#steps button").all_inner_texts()] == [
        "Preflop", "Flop", "Turn", "River", "Showdown"
    ]  # fmt: skip
    final = [c.get_attribute("data-card") for c in page.locator("#board .card").all()]
    assert final == ["Jc", "Qh", "3s", "2d", "Qs"], "the final display: the whole board"
    assert page.locator("#board .card.h").first.inner_text() == "Q\u2665"
    rows = {row.get_attribute("data-player"): row.locator("td").all_inner_texts()
            for row in page.locator("#players tbody tr").all()}  # fmt: skip
    assert rows["Bill"][2:] == ["10,000", "100", "0", "9,900"], "start, total bet, total won, end"
    assert rows["MrBlue"][2:] == ["10,000", "100", "200", "10,100"]
    blue = page.locator("#players tr[data-player='MrBlue'] .hole .card")
    assert [c.get_attribute("data-card") for c in blue.all()] == ["Ah", "8s"]
    assert blue.all_inner_texts() == ["A\u2665", "8\u2660"]
    assert page.locator("#players tr[data-player='Pluribus'] .hole").inner_text() == "folded (preflop)"
    assert page.locator("#pots li").all_inner_texts()[0].startswith("main pot 200: MrBlue 200 with ")
    assert page.locator("#log").inner_text() == "(not archived yet)", "its place in the Merkle log, once archived"

    page.locator("#steps button[data-step='0']").click()
    assert page.locator("#board .card").count() == 0
    assert page.locator("section.street:visible").count() == 1
    preflop = page.locator("section.street[data-street='Preflop'] li").all_inner_texts()
    assert preflop[:3] == ["Bill posts the small blind 50", "MrBlue posts the big blind 100", "Pluribus folds"]
    page.locator("#steps button[data-step='1']").click()
    assert [c.get_attribute("data-card") for c in page.locator("#board .card").all()] == ["Jc", "Qh", "3s"]
    assert page.locator("section.street:visible").count() == 2
    page.locator("#steps button[data-step='2']").click()
    assert page.locator("#board .card").count() == 4
    width = page.evaluate("document.documentElement.scrollWidth")
    page.locator("#steps button[data-step='4']").click()
    page.screenshot(path=str(tmp_path / "hand_page_phone.png"), full_page=True)  # looked at by eye
    page.close()
    assert width <= 390, "no sideways scrolling on a phone"


def test_the_replay_page_of_an_uncalled_raise_shows_it_returned_in_the_end_stacks(
    served: tuple[str, list[dict[str, Any]]], browser: BrowserContext
) -> None:
    url, _ = served
    page = browser.new_page()
    page.set_extra_http_headers(bearer())
    page.goto(f"{url}/hands/P-1")
    page.wait_for_selector("body.loaded", timeout=20_000)
    assert "Bill raises 225" in page.locator("section.street[data-street='Preflop']").inner_text()
    rows = {row.get_attribute("data-player"): row.locator("td").all_inner_texts()
            for row in page.locator("#players tbody tr").all()}  # fmt: skip
    page.close()
    ends = [int(row[5].replace(",", "")) for row in rows.values()]
    assert ends == with_play(RAISED)[1] == [9950, 9900, 10000, 10000, 10150, 10000]
