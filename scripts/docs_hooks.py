"""MkDocs hooks (``mkdocs.yml``: ``hooks:``): the documentation's reference parts, written from the code at build time.

A page asks for a generated part with a line of its own, ``<!-- generated: NAME -->``; the build replaces it with
:data:`GENERATORS`' ``NAME`` (an unknown name fails the build). So the settings table, the rejection codes and the
message reference are the code's own (``Settings``, ``CODES``, the pydantic models' JSON Schemas), and cannot drift.
The JSON Schemas and the AsyncAPI document are also published with the site under ``schemas/``, written by the same
code as ``showdown schema``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from showdown_messages import CODES
from showdown_messages.schema import MESSAGES, asyncapi_document
from showdown_service import __version__
from showdown_service.cli.commands import schema_files
from showdown_service.infra.config import settings_table
from showdown_service.ops.alert_rules import OPEN_TOURNAMENTS, alerts_table

MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.MULTILINE)
SCHEMAS_DIR = "schemas"
VERIFIER = Path(__file__).with_name("verify_proof.py")


def codes_table() -> str:
    """Every rejection code with what it means and what to fix."""
    rows = ["| code | what is wrong, and what to do |", "|---|---|"]
    rows += [f"| `{code}` | {_cell(text)} |" for code, text in CODES.items()]
    return "\n".join(rows)


def channels_table() -> str:
    """The AsyncAPI document's operations: which stream, who writes or reads it, what flows."""
    doc = asyncapi_document(__version__)
    rows = ["| operation | the service | stream | message | what happens |", "|---|---|---|---|---|"]
    for name, op in doc["operations"].items():
        channel = doc["channels"][op["channel"]["$ref"].rsplit("/", 1)[1]]
        messages = ", ".join(f"[{m}](message-reference.md#{m.lower()})" for m in channel["messages"])
        verb = "reads" if op["action"] == "receive" else "writes"
        rows.append(f"| `{name}` | {verb} | `{channel['address']}` | {messages} | {_cell(op['summary'])} |")
    return "\n".join(rows)


def message_reference() -> str:
    """Each message of the contract, and each object inside one, as a table of its fields."""
    out: list[str] = []
    done: set[str] = set()
    for name, (model, mode) in MESSAGES.items():
        schema = model.model_json_schema(mode=mode)  # type: ignore[arg-type]
        title = schema["title"]
        link = f"[`{name}.schema.json`]({SCHEMAS_DIR}/{name}.schema.json)"
        out.append(f"## {title}\n\n{_cell(schema.get('description', ''))}\n\nJSON Schema: {link}.\n")
        out.append(_body(schema))
        for def_name, definition in schema.get("$defs", {}).items():
            if def_name not in done:
                done.add(def_name)
                out.append(f"### {def_name}\n\n{_cell(definition.get('description', ''))} Part of {title}.\n")
                out.append(_body(definition))
    return "\n".join(out)


def _body(schema: dict[str, Any]) -> str:
    """An object's fields, or what a union may be (by its discriminator's value, when it has one)."""
    if "properties" in schema:
        return _fields(schema)
    options = schema.get("oneOf") or schema.get("anyOf")
    if not options:
        raise ValueError(f"{schema.get('title', 'a schema')}: neither fields nor a union of messages to document")
    discriminator = schema.get("discriminator")
    if discriminator is None:
        return "One of: " + ", ".join(_type(option) for option in options) + ".\n"
    key = discriminator["propertyName"]
    rows = [f"| `{key}` | message |", "|---|---|"]
    rows += [f"| `{value}` | {_type({'$ref': ref})} |" for value, ref in discriminator["mapping"].items()]
    return f"One of these, told apart by `{key}`:\n\n" + "\n".join(rows) + "\n"


def _fields(schema: dict[str, Any]) -> str:
    required = set(schema.get("required", []))
    rows = ["| field | type | required | default | what it is |", "|---|---|---|---|---|"]
    for field, spec in schema["properties"].items():
        default = f"`{json.dumps(spec['default'])}`" if "default" in spec else ""
        need = "yes" if field in required else "no"
        rows.append(f"| `{field}` | {_type(spec)} | {need} | {default} | {_cell(spec.get('description', ''))} |")
    return "\n".join(rows) + "\n"


def _type(spec: dict[str, Any]) -> str:
    """A JSON Schema type in a few words: `string`, `array of Pot`, `integer 1-10`, `"holdem" or ...`."""
    if "$ref" in spec:
        target = spec["$ref"].rsplit("/", 1)[1]
        return f"[{target}](#{target.lower()})"
    if "anyOf" in spec:
        return " or ".join(_type(option) for option in spec["anyOf"])
    if "const" in spec:
        return f"`{json.dumps(spec['const'])}`"
    if "enum" in spec:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in spec["enum"])
    kind = spec.get("type", "any")
    if kind == "array":
        size = _range(spec.get("minItems"), spec.get("maxItems"), "items")
        return f"array{size} of {_type(spec.get('items', {}))}"
    if kind == "integer":
        return f"integer{_range(spec.get('minimum'), spec.get('maximum'), '')}"
    if kind == "string" and "cdhs" in spec.get("pattern", ""):
        return "card"
    if kind == "string" and spec.get("format"):
        return f"string ({spec['format']})"
    if kind == "string" and "maxLength" in spec:
        return f"string{_range(spec.get('minLength'), spec.get('maxLength'), 'characters')}"
    return str(kind)


def _range(low: int | None, high: int | None, unit: str) -> str:
    unit = f" {unit}" if unit else ""
    if low is None and high is None:
        return ""
    if high is None:
        return f" (at least {low}{unit})"
    if low is None:
        return f" (at most {high}{unit})"
    return f" ({low}-{high}{unit})"


def _cell(text: str) -> str:
    """Text that stays in one markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


GENERATORS: dict[str, Callable[[], str]] = {
    "settings": settings_table,
    "rejection-codes": codes_table,
    "channels": channels_table,
    "message-reference": message_reference,
    "alerts": alerts_table,
    "open-tournaments": lambda: f"```promql\n{OPEN_TOURNAMENTS}\n```",
}


def fill(markdown: str, where: str) -> str:
    """The page with each ``<!-- generated: NAME -->`` line replaced by its generated part."""

    def generated(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in GENERATORS:
            known = ", ".join(GENERATORS)
            raise ValueError(f"{where}: '<!-- generated: {name} -->' names no generator; use one of: {known}")
        return GENERATORS[name]()

    return MARKER.sub(generated, markdown)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    return fill(markdown, page.file.src_uri)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Publish the JSON Schemas and the AsyncAPI document with the site, as ``showdown schema`` writes them, and
    the standalone proof verifier (``scripts/verify_proof.py``) beside docs/verify.md, byte for byte."""
    for name, document in schema_files().items():
        files.append(File.generated(config, f"{SCHEMAS_DIR}/{name}", content=json.dumps(document, indent=2) + "\n"))
    files.append(File.generated(config, VERIFIER.name, content=VERIFIER.read_bytes()))
    return files
