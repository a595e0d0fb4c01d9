"""The README is the operator's first page: what it states must be true of the code."""

from __future__ import annotations

import re

from showdown_messages import CODES
from showdown_service.config import settings_table
from tests.helpers import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_the_readme_opens_with_the_two_commands() -> None:
    first_block = re.search(r"```sh\n(.*?)```", README, re.DOTALL)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines() if line.strip()]
    assert commands == ["make demo", "make test"]
    assert README.index("```sh") < README.index("## ")


def test_the_configuration_table_is_the_settings_table() -> None:
    table = README.split("<!-- settings-table -->\n", 1)[1].split("<!-- /settings-table -->", 1)[0]
    assert table.strip() == settings_table(), "paste the output of `showdown settings` into the README"


def test_every_rejection_code_is_documented() -> None:
    missing = [code for code in CODES if f"`{code}`" not in README]
    assert missing == []


def test_the_required_sections_are_there() -> None:
    for heading in (
        "What it does", "Quickstart", "Message contracts", "Delivery semantics", "Configuration",
        "Operations", "Benchmarks", "Guarantees, as measured", "Architecture",
    ):  # fmt: skip
        assert f"\n## {heading}\n" in README, heading
