"""JSON Schemas of every message, for producers in any language."""

from __future__ import annotations

from typing import Any

from showdown_messages.events import ShowdownEvent
from showdown_messages.results import ShowdownResult

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def json_schemas() -> dict[str, dict[str, Any]]:
    """``{file name: JSON Schema}`` for each message, as committed under ``shared/schemas/``."""
    return {
        "showdown-event.schema.json": {"$schema": DIALECT, **ShowdownEvent.model_json_schema(mode="validation")},
        "showdown-result.schema.json": {"$schema": DIALECT, **ShowdownResult.model_json_schema(mode="serialization")},
    }
