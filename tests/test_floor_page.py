"""The floor page in a real headless Chromium (Debian's, driven by Playwright): a bust a worker commits appears on
the page without a reload; the page reads on a phone's width."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from playwright.sync_api import BrowserContext, ViewportSize, sync_playwright

from showdown_service.config import Settings
from tests.api_support import commit, knockout, publish_lines, second_bust, serving

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
