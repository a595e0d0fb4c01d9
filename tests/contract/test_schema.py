"""The committed schemas are the models' schemas, and the AsyncAPI document is valid AsyncAPI 3.0."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from showdown_messages import AuditRecord, DeadLetter
from showdown_service.cli.commands import ASYNCAPI_FILE, main, schema_files
from tests.helpers import FIXTURES, REAL_SHOWDOWNS, REPO, read_cases

SCHEMAS = REPO / "shared" / "schemas"
ASYNCAPI_SCHEMA = FIXTURES / "asyncapi" / "asyncapi-3.0.0.schema.json"


@pytest.mark.parametrize("name", sorted(schema_files()))
def test_the_committed_schema_matches_the_model(name: str) -> None:
    committed = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    assert committed == schema_files()[name], f"run `make schema` and commit {SCHEMAS / name}"


def test_no_stale_schema_file_is_left_behind() -> None:
    assert {p.name for p in SCHEMAS.glob("*.json")} == set(schema_files())


def test_real_events_are_valid_under_the_event_schema() -> None:
    validator = jsonschema.Draft202012Validator(schema_files()["showdown-event.schema.json"])
    for case in list(read_cases(REAL_SHOWDOWNS))[:200]:
        validator.validate(case["event"])
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"schema_version": 1, "hand_id": "h", "table_id": "t", "players": [], "extra": 1})


def test_the_asyncapi_document_is_valid_asyncapi_3() -> None:
    spec = json.loads(ASYNCAPI_SCHEMA.read_text(encoding="utf-8"))
    document = schema_files()[ASYNCAPI_FILE]
    jsonschema.Draft7Validator(spec).validate(document)
    broken = {**document, "channels": {"events": {"address": 42}}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(spec).validate(broken)


def test_the_asyncapi_document_describes_every_stream_message_and_the_group() -> None:
    document = schema_files()[ASYNCAPI_FILE]
    assert set(document["channels"]) == {"events", "results", "audit", "dead", "standings"}
    assert set(document["components"]["messages"]) == {
        "ShowdownEvent", "TournamentMessage", "ShowdownResult", "AuditRecord", "DeadLetter", "Placement"
    }  # fmt: skip
    assert set(document["channels"]["events"]["messages"]) == {"ShowdownEvent", "TournamentMessage"}
    assert "adjudicators" in document["operations"]["settleEvents"]["summary"]
    assert document["components"]["schemas"]["ShowdownEvent"]["properties"]["players"]
    for ref in _refs(document):
        assert _resolve(document, ref) is not None, ref


def _refs(node: object) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for value in node.values() for r in _refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in _refs(value)]
    return []


def _resolve(document: dict[str, object], ref: str) -> object:
    node: object = document
    for part in ref.removeprefix("#/").split("/"):
        assert isinstance(node, dict)
        node = node.get(part)
    return node


def test_audit_records_and_dead_letters_have_models_of_their_own() -> None:
    assert "prev_hash" in AuditRecord.model_fields
    assert {"code", "message", "entry_id", "raw"} <= set(DeadLetter.model_fields)


def test_showdown_schema_writes_every_file_or_prints_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(schema_files())
    capsys.readouterr()
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == schema_files()
    assert main(["schema", "--asyncapi"]) == 0
    assert json.loads(capsys.readouterr().out)["asyncapi"] == "3.0.0"
