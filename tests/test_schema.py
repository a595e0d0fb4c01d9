"""The committed JSON Schemas are the models' schemas: producers generate code from them."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from showdown_messages.schema import json_schemas
from showdown_service.cli import main
from tests.helpers import REAL_SHOWDOWNS, REPO, read_cases

SCHEMAS = REPO / "shared" / "schemas"


@pytest.mark.parametrize("name", sorted(json_schemas()))
def test_the_committed_schema_matches_the_model(name: str) -> None:
    committed = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    assert committed == json_schemas()[name], f"run `make schema` and commit {SCHEMAS / name}"


def test_no_stale_schema_file_is_left_behind() -> None:
    assert {p.name for p in SCHEMAS.glob("*.json")} == set(json_schemas())


def test_real_events_are_valid_under_the_event_schema() -> None:
    schema = json_schemas()["showdown-event.schema.json"]
    validator = jsonschema.Draft202012Validator(schema)
    for case in list(read_cases(REAL_SHOWDOWNS))[:200]:
        validator.validate(case["event"])
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"schema_version": 1, "hand_id": "h", "table_id": "t", "players": [], "extra": 1})


def test_showdown_schema_writes_every_file_or_prints_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(json_schemas())
    capsys.readouterr()
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == json_schemas()
