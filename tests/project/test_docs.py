"""The documentation site (docs/, built by `make docs`): what it states must be true of the code.

The reference parts are written from the code at build time (scripts/docs_hooks.py); the examples shown with
their output are checked here against the code (``python -m tests.project.test_docs`` writes them again).
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal

import markdown
import pytest
import yaml
from pydantic import BaseModel, Field, RootModel

from bench import kept_summary
from scripts import docs_hooks
from showdown_messages import CODES, VARIANT_SHAPES, ShowdownEvent, ShowdownResult
from showdown_messages.schema import MESSAGES
from showdown_service.cli.commands import adjudicate_lines, schema_files
from showdown_service.decision.wire import encode_result
from showdown_service.infra.config import Settings, settings_table
from tests.helpers import REPO, VARIANT_SHOWDOWNS, read_cases, settle_doc

DOCS = REPO / "docs"
WHEN = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def page(name: str) -> str:
    """A page as the site shows it: its generated parts written."""
    return docs_hooks.fill((DOCS / name).read_text(encoding="utf-8"), name)


def nav_pages() -> list[str]:
    """The pages of mkdocs.yml's navigation, in order."""
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    return [next(iter(entry.values())) for entry in config["nav"]]


@cache
def anchors_of(name: str) -> frozenset[str]:
    """The ids of a page's headings, as the site's build gives them."""
    html = markdown.markdown(page(name), extensions=["toc", "tables"])
    return frozenset(re.findall(r'<h[1-6] id="([^"]+)"', html))


def between(text: str, marker: str) -> str:
    """What a page holds between ``<!-- marker -->`` and ``<!-- /marker -->``."""
    return text.split(f"<!-- {marker} -->\n", 1)[1].split(f"<!-- /{marker} -->", 1)[0]


def json_blocks(text: str) -> list[str]:
    return re.findall(r"```json\n(.*?)```", text, re.DOTALL)


# The site: its pages, its build


def test_the_site_has_a_page_for_each_thing_a_reader_comes_for() -> None:
    assert nav_pages()[0] == "index.md"
    for name in (
        "getting-started.md", "messages.md", "message-reference.md", "rules.md", "operations.md", "deploy.md",
        "replay.md", "guarantees.md", "benchmarks.md", "architecture.md",
    ):  # fmt: skip
        assert name in nav_pages(), name
    assert sorted(nav_pages()) == sorted(p.name for p in DOCS.glob("*.md")), "every page of docs/ in the nav, once"


def test_operations_has_every_setting_health_logs_metrics_dead_letters_the_audit_trail_and_the_runbooks() -> None:
    for anchor in (
        "settings", "health", "logs", "metrics", "dead-letters", "the-audit-trail", "runbooks",
        "the-dead-letter-stream-grows", "redis-refuses-writes", "a-failover", "a-poison-entry",
    ):  # fmt: skip
        assert anchor in anchors_of("operations.md"), anchor


def _docs_recipe() -> str:
    """The command `make docs` runs, as the Makefile says it."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ndocs: $(STAMP)\n\t", 1)[1].split("\n", 1)[0]
    return recipe.replace("$(BIN)", str(REPO / ".venv" / "bin"))


def _build_copy(tmp_path: Path, extra: str = "") -> subprocess.CompletedProcess[str]:
    """`make docs`'s command on a copy of the site's sources, with ``extra`` added to the home page."""
    for name in ("docs", "scripts"):
        shutil.copytree(REPO / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    home = tmp_path / "docs" / "index.md"
    home.write_text(home.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return subprocess.run(
        _docs_recipe(), check=False, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )


def test_make_docs_builds_the_site_with_no_warning_and_publishes_the_schemas(tmp_path: Path) -> None:
    built = _build_copy(tmp_path)
    assert built.returncode == 0, built.stderr
    assert "WARNING" not in built.stderr + built.stdout
    assert (tmp_path / "site" / "operations.html").exists()
    published = {
        path.name: json.loads(path.read_text(encoding="utf-8")) for path in (tmp_path / "site" / "schemas").iterdir()
    }
    assert published == schema_files(), "the site publishes the JSON Schemas and AsyncAPI document of `showdown schema`"


def test_make_docs_fails_on_a_link_to_a_heading_that_does_not_exist(tmp_path: Path) -> None:
    built = _build_copy(tmp_path, "\nSee [the settings](operations.md#no-such-heading).\n")
    assert built.returncode != 0
    assert "does not contain an anchor '#no-such-heading'" in built.stderr


def test_a_page_asking_for_a_generated_part_that_does_not_exist_fails_the_build_naming_the_page() -> None:
    with pytest.raises(ValueError, match=r"rules\.md: '<!-- generated: standings -->' names no generator; use one"):
        docs_hooks.fill("# Rules\n\n<!-- generated: standings -->\n", "rules.md")


def test_no_paragraph_is_written_twice_across_the_readme_and_the_pages() -> None:
    seen: dict[str, str] = {}
    repeated = []
    for path in [REPO / "README.md", *sorted(DOCS.glob("*.md"))]:
        for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
            text = " ".join(block.split())
            if len(text) < 150 or text.startswith(("<!--", "|---")):
                continue
            if text in seen and seen[text] != path.name:
                repeated.append(f"{path.name} repeats {seen[text]}: {text[:80]}...")
            seen.setdefault(text, path.name)
    assert repeated == []


# Generated from the code


def test_the_settings_table_is_every_field_of_the_settings_model() -> None:
    operations = page("operations.md")
    assert settings_table() in operations
    missing = [name for name in Settings.model_fields if f"| `SHOWDOWN_{name.upper()}` |" not in operations]
    assert missing == []


def test_every_rejection_code_is_listed_with_what_to_fix() -> None:
    messages = page("messages.md")
    missing = [code for code, text in CODES.items() if f"| `{code}` | {' '.join(text.split())} |" not in messages]
    assert missing == []


def test_the_message_reference_lists_every_field_of_every_message_and_of_every_object_inside_one() -> None:
    reference = page("message-reference.md")
    missing = []
    for model, mode in MESSAGES.values():
        schema = model.model_json_schema(mode=mode)  # type: ignore[arg-type]
        for name, part in [(schema["title"], schema), *schema.get("$defs", {}).items()]:
            heading = reference.index(f"# {name}\n")
            table = reference[heading:].split("\n\n#", 1)[0]
            fields = part.get("properties", {})
            missing += [f"{name}.{field}" for field in fields if f"| `{field}` |" not in table]
    assert missing == []


class _Open(BaseModel):
    """A tournament opens."""

    type: Literal["open"]
    name: str


class _Close(BaseModel):
    """Registration closes."""

    type: Literal["close"]


class _Message(RootModel[Annotated[_Open | _Close, Field(discriminator="type")]]):
    """A message of either kind."""


def test_a_message_that_is_one_of_several_is_documented_by_its_discriminator_and_each_kind_by_its_fields() -> None:
    schema = _Message.model_json_schema()
    union = docs_hooks._body(schema)
    assert "One of these, told apart by `type`:" in union
    assert "| `open` | [_Open](#_open) |" in union
    assert "| `close` | [_Close](#_close) |" in union
    assert "| `name` | string | yes |" in docs_hooks._body(schema["$defs"]["_Open"])
    with pytest.raises(ValueError, match="neither fields nor a union"):
        docs_hooks._body({"title": "Nothing", "type": "object"})


def test_the_message_reference_links_the_asyncapi_operations_to_their_messages() -> None:
    reference = page("message-reference.md")
    for operation in ("settleEvents", "publishResults", "publishAudit", "publishDeadLetters"):
        assert f"| `{operation}` |" in reference
    assert (
        "| `settleEvents` | reads | `showdown:{shard}:events` | [ShowdownEvent](message-reference.md#showdownevent)"
        in (reference)
    )


def test_make_bench_keeps_the_benchmarks_pages_hand_written_summary(tmp_path: Path) -> None:
    summary = "<!-- summary -->\n## Summary\n\nwritten by hand\n<!-- /summary -->\n"
    written = tmp_path / "benchmarks.md"
    written.write_text(f"# Benchmarks\n\n{summary}\n## Evaluator\n\nold figures\n", encoding="utf-8")
    assert kept_summary(written) == summary + "\n"
    assert kept_summary(tmp_path / "missing.md") == ""
    assert between((DOCS / "benchmarks.md").read_text(encoding="utf-8"), "summary").startswith("## Summary\n")


# Examples, checked against the code


def test_the_first_hand_of_getting_started_settles_as_shown() -> None:
    block = between(page("getting-started.md"), "first-hand")
    (event_line,) = json_blocks(block)
    shown = re.search(r"\$ \.venv/bin/showdown adjudicate --summary hand\.jsonl\n(.*?)\n```", block, re.DOTALL)
    assert shown is not None
    assert event_line.count("\n") == 1, "the event is one JSON line, as the file holds it"
    out, err = io.StringIO(), io.StringIO()
    assert adjudicate_lines(iter([event_line]), out, err, summary=True) == 0, err.getvalue()
    assert out.getvalue().strip() == shown.group(1).strip()


def test_the_message_contracts_event_is_one_json_line_and_settles_to_the_result_shown() -> None:
    messages = page("messages.md")
    (event_line,) = json_blocks(between(messages, "event-example"))
    (result_text,) = json_blocks(between(messages, "result-example"))
    assert event_line.count("\n") == 1, "the event is shown as it is sent: one JSON line"
    event = ShowdownEvent.model_validate_json(event_line)
    ShowdownResult.model_validate_json(result_text)
    result = json.loads(encode_result(settle_doc(json.loads(event_line)), WHEN))
    assert result == json.loads(result_text), "regenerate with: python -m tests.project.test_docs"
    assert {"tournament_id", "occurred_at", "rake"} <= event.model_fields_set, "the example shows the optional fields"
    assert result["busts"], "a bust"
    assert result["returned"], "an uncalled bet returned"
    assert len(result["pots"][0]["winners"]) == 2, "a split pot"


def test_every_game_is_in_the_rules_games_table() -> None:
    games = page("rules.md").split("\n## Games\n", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([a-z_]+)` \|", games, re.MULTILINE)
    assert listed == ["variant", *VARIANT_SHAPES]


def test_the_rules_game_examples_are_what_the_code_settles() -> None:
    block = between(page("rules.md"), "variant-examples")
    examples = re.findall(r"Event:\n\n```json\n(.*?)```\n\nResult:\n\n```json\n(.*?)```", block, re.DOTALL)
    assert len(examples) == 2, "one hi-lo hand and one hand run twice"
    for event_text, result_text in examples:
        expected = json.loads(result_text)
        result = json.loads(encode_result(settle_doc(json.loads(event_text)), WHEN))
        assert result == expected, "regenerate with: python -m tests.project.test_docs"


def example_markdown() -> str:
    """The examples of the rules page, then the result of the message contracts page (run as a module)."""
    wanted = {"var-o8-quarter": "Omaha Hi/Lo, the low quartered", "var-holdem-twice": "A hold'em hand run twice"}
    cases = {case["event"]["hand_id"]: case["event"] for case in read_cases(VARIANT_SHOWDOWNS)}
    out = ["<!-- variant-examples -->"]
    for hand_id, title in wanted.items():
        event = cases[hand_id]
        result = json.loads(encode_result(settle_doc(event), WHEN))
        out.append(
            f"**{title}.**\n\nEvent:\n\n```json\n{_compact(event)}\n```\n\n"
            f"Result:\n\n```json\n{_compact(result)}\n```\n"
        )
    out.append("<!-- /variant-examples -->\n")
    (event_line,) = json_blocks(between(page("messages.md"), "event-example"))
    result = json.loads(encode_result(settle_doc(json.loads(event_line)), WHEN))
    out.append(f"<!-- result-example -->\n```json\n{_compact(result)}\n```\n<!-- /result-example -->")
    return "\n".join(out)


def _compact(value: Any, indent: str = "") -> str:
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
