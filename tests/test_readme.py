"""The README is the operator's first page: what it states must be true of the code."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

from showdown_messages import CODES, VARIANT_SHAPES
from showdown_service.config import settings_table
from showdown_service.wire import encode_result
from tests.helpers import REPO, VARIANT_SHOWDOWNS, read_cases, settle_doc

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


def test_every_game_is_in_the_readmes_games_table() -> None:
    games = README.split("### Games\n", 1)[1].split("\n## ", 1)[0]
    missing = [name for name in VARIANT_SHAPES if f"| `{name}` |" not in games]
    assert missing == []


def test_the_readmes_game_examples_are_what_the_code_settles() -> None:
    block = README.split("<!-- variant-examples -->\n", 1)[1].split("<!-- /variant-examples -->", 1)[0]
    examples = re.findall(r"Event:\n\n```json\n(.*?)```\n\nResult:\n\n```json\n(.*?)```", block, re.DOTALL)
    assert len(examples) == 2, "one hi-lo hand and one hand run twice"
    for event_text, result_text in examples:
        expected = json.loads(result_text)
        result = json.loads(encode_result(settle_doc(json.loads(event_text)), WHEN))
        assert result == expected, "regenerate with: python -m tests.test_readme > examples.md"


WHEN = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def example_markdown() -> str:
    """The README's game examples, written from the bundled hands (run as a module to print them)."""
    wanted = {"var-o8-quarter": "Omaha Hi/Lo, the low quartered", "var-holdem-twice": "A hold'em hand run twice"}
    cases = {case["event"]["hand_id"]: case["event"] for case in read_cases(VARIANT_SHOWDOWNS)}
    out = []
    for hand_id, title in wanted.items():
        event = cases[hand_id]
        result = json.loads(encode_result(settle_doc(event), WHEN))
        out.append(
            f"**{title}.**\n\nEvent:\n\n```json\n{_compact(event)}\n```\n\n"
            f"Result:\n\n```json\n{_compact(result)}\n```\n"
        )
    return "\n".join(out)


def _compact(value: object, indent: str = "") -> str:
    """JSON that keeps a value on one line when it fits in 110 characters, and opens it up otherwise."""
    flat = json.dumps(value)
    if len(indent) + len(flat) <= 110 or not isinstance(value, dict | list) or not value:
        return flat
    inner = indent + "  "
    if isinstance(value, dict):
        fields = [f"{inner}{json.dumps(k)}: {_compact(v, inner).lstrip()}" for k, v in value.items()]
        return "{\n" + ",\n".join(fields) + f"\n{indent}}}"
    items = [inner + _compact(v, inner) for v in value]
    return "[\n" + ",\n".join(items) + f"\n{indent}]"


if __name__ == "__main__":
    print(example_markdown())
