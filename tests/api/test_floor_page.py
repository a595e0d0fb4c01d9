"""The floor page in a real headless Chromium (Debian's, driven by Playwright): a bust a worker commits appears on
the page without a reload; the page reads on a phone's width; it waits for a tournament not open yet, tries again
after a refused event stream, shows a deal and the mystery-bounty envelopes, and says when the tournament is
finished."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from playwright.sync_api import BrowserContext, Page, ViewportSize, sync_playwright

from showdown_service.api.settings import ApiSettings
from showdown_service.infra.config import Settings
from tests.api_support import TOKENS, commit, knockout, publish_lines, second_bust, serving
from tests.tournament_builders import all_in, closed, deal, entry, opened

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's chromium (the Makefile installs it where it is missing: `make chromium`)."""
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
PHONE: ViewportSize = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def browser() -> Iterator[BrowserContext]:
    """Chromium with a new, empty profile (removed afterwards)."""
    if not CHROMIUM.exists():
        pytest.fail(f"no {CHROMIUM}: run `make chromium` (make test does it first)", pytrace=False)
    profile = tempfile.mkdtemp(prefix="showdown-chromium-")
    try:
        with sync_playwright() as p:
            context = p.chromium.launch_persistent_context(
                profile, executable_path=str(CHROMIUM), args=FLAGS, viewport=PHONE, timeout=60_000
            )
            try:
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def test_a_bust_committed_by_a_worker_appears_on_the_floor_page_without_a_reload(
    redis_url: str, make_settings: Any, client: redis.Redis, browser: BrowserContext
) -> None:
    settings: Settings = make_settings(redis_url)
    events = settings.keys("default").events
    publish_lines(client, events, knockout())
    commit(settings)
    with serving(settings) as url:
        page = browser.new_page()
        loads: list[str] = []
        page.on("load", lambda _page: loads.append("load"))
        page.goto(f"{url}/floor/T")
        page.wait_for_selector("li.bust[data-player='d']", timeout=20_000)
        assert page.locator("#pool").inner_text() == "40.00"
        assert "bounty 10.00 to a 5.00 cash + 5.00 added" in page.locator("li.bust").first.inner_text()
        page.wait_for_function("document.getElementById('status').textContent === 'live'", timeout=20_000)

        publish_lines(client, events, second_bust())
        commit(settings)  # while the page is open
        page.wait_for_selector("li.bust[data-player='c']", timeout=20_000)
        page.wait_for_function("document.querySelectorAll('#placed tr').length === 2", timeout=20_000)

        busts = page.locator("li.bust").all_inner_texts()
        placed = page.locator("#placed tr").all_inner_texts()
        playing = page.locator("#playing tr").all_inner_texts()
        width = page.evaluate("document.documentElement.scrollWidth")
        page.close()
    assert loads == ["load"], "the page was never reloaded"
    assert busts[0].startswith("c busts (hand T-h2): bounty 10.00 to a")
    assert busts[1].startswith("d busts (hand T-h1)")
    assert [row.split("\t")[:2] for row in placed] == [["3", "c"], ["4", "d"]]
    assert [row.split("\t")[0] for row in playing] == ["a", "b"]
    assert width <= PHONE["width"], "nothing wider than a phone's screen"


def mystery_final(tid: str = "M") -> tuple[list[str], list[str]]:
    """A mystery-bounty tournament (4 entries of 1,000 chips; payouts 50.00, 30.00, 20.00; envelopes 60.00 and
    2 x 10.00 from 4 entries in play on) up to a heads-up after an ICM deal keeping 6.00 back; then its last hand
    (``b`` busts to ``a``, who draws the 60.00 envelope and wins)."""
    pool = {"from_entries_left": 4, "envelopes": [{"amount": 6000, "count": 1}, {"amount": 1000, "count": 2}]}
    heads_up = [
        opened(tid, payouts=[5000, 3000, 2000], mystery_bounties=pool),
        *(entry(player, tid=tid) for player in "abcd"),
        closed(tid),
        all_in(f"{tid}-h1", [(1, "a", 1000, 1000), (4, "d", 1000, 1000)], tid=tid, mystery=[(4, 1000)]),
        deal("icm", ["a", "b", "c"], left_to_play_for=600, tid=tid),
        all_in(f"{tid}-h2", [(1, "a", 2000, 1000), (3, "c", 1000, 1000)], tid=tid, mystery=[(3, 1000)]),
    ]
    last = [all_in(f"{tid}-h3", [(1, "a", 3000, 1000), (2, "b", 1000, 1000)], tid=tid, mystery=[(2, 6000)])]
    return heads_up, last


def text(page: Page, selector: str) -> str:
    return page.locator(selector).inner_text()


def test_the_floor_page_waits_for_its_tournament_shows_the_deal_and_the_envelopes_and_says_when_it_is_finished(
    redis_url: str, make_settings: Any, client: redis.Redis, browser: BrowserContext
) -> None:
    settings: Settings = make_settings(redis_url)
    events = settings.keys("default").events
    heads_up, last = mystery_final()
    api = ApiSettings(tokens=TOKENS, poll_s=0.05, floor_currency="EUR")
    with serving(settings, api) as url:
        page = browser.new_page()
        page.goto(f"{url}/floor/M")  # before the tournament opens
        page.wait_for_function("document.getElementById('status').dataset.state === 'waiting'", timeout=20_000)
        assert text(page, "#notice") == "Waiting for the tournament to open…"

        publish_lines(client, events, heads_up)
        commit(settings)
        page.wait_for_function("document.getElementById('status').textContent === 'live'", timeout=40_000)
        page.wait_for_selector("li.bust[data-player='c']", timeout=20_000)
        assert text(page, "#pool") == "€100.00"
        assert (text(page, "#deal"), text(page, "#deal-kept")) == ("ICM", "€6.00 left to play for")
        assert (text(page, "#left"), text(page, "#average")) == ("2", "2,000")
        assert text(page, "#envelopes") == "1"
        assert text(page, "#envelopes-detail") == "1 × €60.00"
        playing = [row.split("\t") for row in page.locator("#playing tr").all_inner_texts()]
        assert [row[:2] for row in playing] == [["a", "3,000"], ["b", "1,000"]]
        assert all(row[-1].startswith("€") for row in playing), "each entry's deal amount"
        payouts = [row.split("\t") for row in page.locator("#payouts tr").all_inner_texts()]
        assert [row[:2] for row in payouts] == [["1", "€50.00"], ["2", "€30.00"], ["3", "€20.00"]]
        assert payouts[2][2] == "c"
        assert "mystery bounty €10.00 to a €10.00" in text(page, "li.bust[data-player='c']")
        assert "Playing" in text(page, "body")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "every column fits a phone"

        publish_lines(client, events, last)
        commit(settings)
        page.wait_for_function("document.getElementById('status').textContent === 'finished'", timeout=20_000)
        page.wait_for_selector("li.bust[data-player='b']", state="attached", timeout=20_000)
        assert text(page, "#winner") == "a"
        assert text(page, "#notice") == "The tournament is finished."
        assert "Playing" not in text(page, "body"), "no 'Playing 0' once it is finished"
        assert "mystery bounty €60.00 to a €60.00" in text(page, "li.bust[data-player='b']")
        placed = [row.split("\t") for row in page.locator("#placed tr").all_inner_texts()]
        assert placed[0][:2] == ["1", "a"]
        assert placed[0][-1] == "€80.00", "the winner's envelopes: 10.00 + 10.00 + 60.00"
        page.close()


def test_a_floor_page_refused_its_event_stream_tries_again_and_goes_live(
    redis_url: str, make_settings: Any, client: redis.Redis, browser: BrowserContext
) -> None:
    settings: Settings = make_settings(redis_url)
    publish_lines(client, settings.keys("default").events, knockout())
    commit(settings)
    api = ApiSettings(tokens=TOKENS, poll_s=0.05, floor_streams_per_address=1)
    with serving(settings, api) as url:
        first = browser.new_page()
        first.goto(f"{url}/floor/T")
        first.wait_for_function("document.getElementById('status').textContent === 'live'", timeout=20_000)
        second = browser.new_page()
        second.goto(f"{url}/floor/T")  # its event stream is refused: 429, one stream per address
        second.wait_for_function(
            "document.getElementById('status').textContent.startsWith('retrying in')", timeout=20_000
        )
        first.close()
        second.wait_for_function("document.getElementById('status').textContent === 'live'", timeout=40_000)
        second.wait_for_selector("li.bust[data-player='d']", timeout=20_000)
        second.close()
