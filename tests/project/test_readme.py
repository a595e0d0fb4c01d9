"""The README is the front door: short, true of the code, and one click from every page of the documentation."""

from __future__ import annotations

import re

from showdown_messages import VARIANT_SHAPES
from showdown_service.infra.examples import example_lines
from tests.helpers import REPO
from tests.project.test_docs import anchors_of, nav_pages

README = (REPO / "README.md").read_text(encoding="utf-8")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_readme_opens_with_the_two_commands() -> None:
    first_block = re.search(r"```sh\n(.*?)```", README, re.DOTALL)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines() if line.strip()]
    assert commands == ["make demo", "make test"]
    assert README.index("```sh") < README.index("## ")


def test_the_readme_is_read_in_five_minutes() -> None:
    lines = README.count("\n")
    assert lines <= 150, f"README.md has {lines} lines: move the detail to a page of docs/ and link to it"


def test_every_link_of_the_readme_reaches_a_file_and_every_page_link_a_heading_of_a_page_in_the_site() -> None:
    nav = nav_pages()
    broken = []
    for target in LINK.findall(README):
        if target.startswith(("http://", "https://")):
            continue
        path, _, anchor = target.partition("#")
        if not (REPO / path).exists():
            broken.append(f"{target}: no file {path}")
        elif path.startswith("docs/") and path.endswith(".md"):
            page = path.removeprefix("docs/")
            if page not in nav:
                broken.append(f"{target}: {page} is not in mkdocs.yml's nav")
            elif anchor and anchor not in anchors_of(page):
                broken.append(f"{target}: {page} has no heading #{anchor}")
    assert broken == []


def test_a_newcomer_finds_publishing_results_every_setting_and_the_dead_letter_runbook_one_click_away() -> None:
    targets = set(LINK.findall(README))
    for wanted in (
        "docs/getting-started.md#publish-a-hand",
        "docs/messages.md#showdownevent",
        "docs/messages.md#showdownresult",
        "docs/operations.md#settings",
        "docs/operations.md#runbooks",
    ):  # fmt: skip
        assert wanted in targets, wanted
    assert "the-dead-letter-stream-grows" in anchors_of("operations.md"), "the runbook, on the page linked"


def test_every_game_is_in_the_readmes_games_table() -> None:
    games = README.split("\n## Games\n", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([a-z_]+)` \|", games, re.MULTILINE)
    assert listed == ["variant", *VARIANT_SHAPES]


def test_the_readmes_count_of_bundled_hands_is_what_the_examples_hold() -> None:
    counts = {int(n) for n in re.findall(r"the (\d+) bundled hands", README)}
    assert counts == {sum(1 for _ in example_lines())}, "say how many hands `showdown publish --examples` sends"
