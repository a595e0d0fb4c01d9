"""The read API's OpenAPI document as a client generator reads it: the bearer token declared, the contract's
messages typed, the functions named, the 400s listed; and a client generated from it by a third-party generator
(openapi-python-client, installed with the dev extras) used against a real API on a real port."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import redis
from openapi_spec_validator import validate

from showdown_service.cli.api import openapi_document
from showdown_service.infra.config import Settings
from tests.api_support import EVERYTHING, HANDS_ONLY, commit, knockout, publish_lines, serving
from tests.helpers import REPO, event, seat

GENERATOR = Path(sys.executable).parent / "openapi-python-client"
PACKAGE = "showdown_api_client"
OPERATIONS = {
    "/v1/hands/{hand_id}/proof": "get_hand_proof",
    "/v1/checkpoints/{shard}": "get_checkpoint",
    "/v1/checkpoints/{shard}/consistency": "get_consistency",
    "/v1/hands/{hand_id}": "get_hand",
    "/v1/results": "get_results",
    "/v1/dead-letters": "get_dead_letters",
    "/v1/tournaments/{tournament_id}/standings": "get_standings",
    "/v1/tournaments/{tournament_id}/events": "get_events",
    "/healthz": "healthz",
    "/metrics": "metrics",
    "/floor/{tournament_id}": "floor",
    "/v1/hands/{hand_id}/history": "get_history",
    "/hands/{hand_id}": "hand_page",
    "/v1/jackpots/{jackpot_id}": "get_jackpot",
}

SCOPES = {"hands": "hands:read", "results": "hands:read", "dead-letters": "dead-letters:read",
          "tournaments": "tournaments:read", "checkpoints": "hands:read", "jackpots": "hands:read"}  # fmt: skip
"""The scope each /v1 route needs, by its path's first part after /v1."""


def schema_of(document: dict[str, Any], operation: dict[str, Any], status: str) -> dict[str, Any]:
    """The schema a response of ``operation`` has, its ``$ref`` followed."""
    schema: dict[str, Any] = operation["responses"][status]["content"]["application/json"]["schema"]
    ref = schema.get("$ref", "")
    return document["components"]["schemas"][ref.rsplit("/", 1)[-1]] if ref else schema


def refs(schema: Any) -> set[str]:
    """The component names ``schema`` refers to, anywhere in it."""
    if isinstance(schema, dict):
        found = {schema["$ref"].rsplit("/", 1)[-1]} if "$ref" in schema else set()
        return found.union(*(refs(value) for value in schema.values()))
    if isinstance(schema, list):
        return set().union(*(refs(value) for value in schema))
    return set()


def test_the_document_declares_the_bearer_token_and_the_scopes_routes_need() -> None:
    document: dict[str, Any] = openapi_document()
    (scheme,) = document["components"]["securitySchemes"].values()
    assert scheme["type"] == "http"
    assert scheme["scheme"] == "bearer"
    scopes = {"hands:read", "tournaments:read", "dead-letters:read"}
    assert scopes <= set(scheme["description"].replace(",", " ").split()), "the scopes are named"
    validate(document)  # OpenAPI 3.1 (whose security requirements may name roles for any scheme: the scopes)
    for path, item in document["paths"].items():
        operation = item["get"]
        if path.startswith(("/v1/", "/hands/")):  # the replay page of a hand too: a room embeds it behind its login
            scope = SCOPES[path.split("/")[2] if path.startswith("/v1/") else "hands"]
            assert operation.get("security") == [{"bearer": [scope]}], path
            assert {"401", "403", "429"} <= set(operation["responses"]), path
        else:
            assert "security" not in operation, f"{path} needs no token"


def test_operations_are_named_after_their_functions() -> None:
    document: dict[str, Any] = openapi_document()
    assert {path: item["get"]["operationId"] for path, item in document["paths"].items()} == OPERATIONS


def test_a_malformed_path_or_query_is_listed_as_the_400_the_api_answers_never_a_422() -> None:
    document: dict[str, Any] = openapi_document()
    for path, item in document["paths"].items():
        responses = item["get"]["responses"]
        assert "422" not in responses, f"{path}: the API answers 400 bad_query, never 422"
        if "parameters" in item["get"] and path.startswith("/v1/"):
            assert schema_of(document, item["get"], "400") == document["components"]["schemas"]["Error"], path
    assert not {"HTTPValidationError", "ValidationError"} & set(document["components"]["schemas"])


def test_results_dead_letters_audit_records_and_placements_are_the_contracts_schemas() -> None:
    document: dict[str, Any] = openapi_document()
    schemas = document["components"]["schemas"]
    paths = document["paths"]
    hand = schema_of(document, paths["/v1/hands/{hand_id}"]["get"], "200")
    assert refs(hand["properties"]["result"]) == {"ShowdownResult"}
    assert refs(hand["properties"]["audit"]) == {"AuditRecord"}
    assert refs(hand["properties"]["dead_letter"]) == {"DeadLetterItem", "ArchivedDeadLetter"}
    results = schema_of(document, paths["/v1/results"]["get"], "200")
    assert refs(schemas[refs(results["properties"]["items"]).pop()]) == {"ShowdownResult"}
    letters = schema_of(document, paths["/v1/dead-letters"]["get"], "200")
    assert refs(letters["properties"]["items"]) == {"DeadLetterItem"}
    standings = schema_of(document, paths["/v1/tournaments/{tournament_id}/standings"]["get"], "200")
    assert refs(standings["properties"]["placements"]) == {"Placement"}
    for name, file in (("ShowdownResult", "showdown-result"), ("AuditRecord", "audit-record"),
                       ("Placement", "placement")):  # fmt: skip
        committed = json.loads((REPO / "shared" / "schemas" / f"{file}.schema.json").read_text(encoding="utf-8"))
        assert schemas[name]["properties"].keys() == committed["properties"].keys(), name
        assert set(schemas[name].get("required", ())) == set(committed.get("required", ())), name
    dead = json.loads((REPO / "shared" / "schemas" / "dead-letter.schema.json").read_text(encoding="utf-8"))
    assert schemas["ArchivedDeadLetter"]["properties"].keys() == dead["properties"].keys() - {"raw"}


def generate(document: bytes, where: Path) -> None:
    """The client package ``PACKAGE`` generated into ``where`` from ``document``, by openapi-python-client."""
    spec = where / "openapi.json"
    spec.write_bytes(document)
    config = where / "config.json"
    config.write_text(json.dumps({"package_name_override": PACKAGE, "post_hooks": []}), encoding="utf-8")
    made = subprocess.run(
        [GENERATOR, "generate", "--path", spec, "--config", config, "--meta", "none",
         "--output-path", where / PACKAGE],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert made.returncode == 0, made.stdout + made.stderr
    assert "Warning" not in made.stdout + made.stderr, made.stdout + made.stderr  # nothing it could not type


@pytest.fixture
def generated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``generated(url)``: a client package generated from the document the API at ``url`` serves, imported."""

    def imported(url: str) -> ModuleType:
        generate(httpx.get(f"{url}/openapi.json", timeout=20).content, tmp_path)
        monkeypatch.syspath_prepend(str(tmp_path))
        return importlib.import_module(PACKAGE)

    yield imported
    for name in [name for name in sys.modules if name == PACKAGE or name.startswith(PACKAGE + ".")]:
        del sys.modules[name]


CALLER = f"""
from datetime import datetime

from {PACKAGE} import AuthenticatedClient
from {PACKAGE}.api.default import get_dead_letters, get_hand, get_results, get_standings
from {PACKAGE}.models import (
    ArchivedDeadLetter, AuditRecord, DeadLetterItem, DeadLettersPage, Hand, ResultsPage, ShowdownResult,
    TournamentStandings,
)


def read(api: AuthenticatedClient) -> tuple[list[int], datetime, list[str], list[str], list[int], str, int | str]:
    hand = get_hand.sync(client=api, hand_id="T-h1")
    assert isinstance(hand, Hand)
    assert isinstance(hand.result, ShowdownResult)
    assert isinstance(hand.audit, AuditRecord)
    amounts = [award.amount for award in hand.result.awards]
    page = get_results.sync(client=api, tournament_id="T")
    assert isinstance(page, ResultsPage)
    hands = [item.result.hand_id for item in page.items]
    letters = get_dead_letters.sync(client=api)
    assert isinstance(letters, DeadLettersPage)
    codes = [letter.code for letter in letters.items]
    standings = get_standings.sync(client=api, tournament_id="T")
    assert isinstance(standings, TournamentStandings)
    prizes = [placement.prize for placement in standings.placements]
    refused = get_hand.sync(client=api, hand_id="bad-1")
    assert isinstance(refused, Hand)
    assert isinstance(refused.dead_letter, (DeadLetterItem, ArchivedDeadLetter))
    letter = refused.dead_letter
    return amounts, hand.audit.at, hands, codes, prizes, letter.code, letter.raw_bytes
"""
"""What a caller of the generated client reads, each value of a declared type: checked with no ``Any`` in it."""


def test_a_generated_client_is_typed_for_mypy_strict_with_no_any_in_what_a_caller_reads(tmp_path: Path) -> None:
    generate(json.dumps(openapi_document()).encode(), tmp_path)
    (tmp_path / "caller.py").write_text(CALLER, encoding="utf-8")
    (tmp_path / "mypy.ini").write_text("[mypy]\nstrict = True\n[mypy-caller]\ndisallow_any_expr = True\n")
    checked = subprocess.run(
        [Path(sys.executable).parent / "mypy", "--config-file", "mypy.ini", "--no-incremental",
         "--cache-dir", os.devnull, "caller.py", PACKAGE],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr


def bad_hand(hand_id: str) -> dict[str, Any]:
    hand = event(
        seat(1, "As Ad", 100, player_id="ann"), seat(2, "Kc Kd", 100, player_id="bo"),
        board="2c 7d 9h Js 3s", hand_id=hand_id, table_id="cash-1",
    )  # fmt: skip
    hand["players"][0]["hole_cards"] = ["As", "As"]
    return hand


def test_a_generated_client_reads_every_route_typed_end_to_end(
    redis_url: str, make_settings: Any, client: redis.Redis, generated: Any
) -> None:
    settings: Settings = make_settings(redis_url)
    publish_lines(client, settings.keys("default").events, knockout())
    client.xadd(settings.keys("default").events, {"event": json.dumps(bad_hand("bad-1"))})
    commit(settings)
    archived_letter = {"code": "duplicate_card", "message": "As twice", "entry_id": "1-0", "raw_bytes": "312",
                       "hand_id": "old-1", "worker": "w1", "at": "2026-11-01T00:00:00Z"}  # fmt: skip
    archived = {"hand_id": "old-1", "status": "refused", "result": None, "dead_letter": archived_letter, "audit": None}

    def archive(hand_id: str) -> dict[str, Any] | None:
        if hand_id == "broken-1":
            raise RuntimeError("the archive's store failed")
        return archived if hand_id == "old-1" else None

    with serving(settings, archive=archive) as url:
        package = generated(url)
        models = importlib.import_module(f"{PACKAGE}.models")
        ops = {name: importlib.import_module(f"{PACKAGE}.api.default.{name}") for name in OPERATIONS.values()}
        with (
            package.AuthenticatedClient(base_url=url, token=EVERYTHING) as reader,
            package.AuthenticatedClient(base_url=url, token=HANDS_ONLY) as hands_only,
            package.Client(base_url=url) as anonymous,
        ):
            use(ops, models, reader, hands_only, anonymous)


def use(ops: dict[str, Any], models: Any, reader: Any, hands_only: Any, anonymous: Any) -> None:
    """Every /v1 route but the event stream through the generated client, each answer of its own classes."""
    hand = ops["get_hand"].sync(client=reader, hand_id="T-h1")
    assert isinstance(hand, models.Hand)
    assert isinstance(hand.result, models.ShowdownResult)
    assert [(bust.player_id, bust.finish) for bust in hand.result.busts] == [("d", 1)]
    winner = hand.result.bounties[0].winners[0]
    assert (winner.player_id, winner.amount, winner.cash) == ("a", 1000, 500)
    assert isinstance(hand.audit, models.AuditRecord)
    assert isinstance(hand.audit.at, datetime)
    assert hand.audit.outcome == "settled"
    assert hand.dead_letter is None

    refused = ops["get_hand"].sync(client=reader, hand_id="bad-1")
    assert isinstance(refused.dead_letter, models.DeadLetterItem)
    assert (refused.dead_letter.code, refused.dead_letter.hand_id) == ("duplicate_card", "bad-1")
    assert isinstance(refused.dead_letter.raw_bytes, int)
    old = ops["get_hand"].sync(client=reader, hand_id="old-1")
    assert isinstance(old.dead_letter, models.ArchivedDeadLetter)
    assert old.dead_letter.raw_bytes == "312"
    unknown = ops["get_hand"].sync_detailed(client=reader, hand_id="never-sent")
    assert unknown.status_code == 404
    assert isinstance(unknown.parsed, models.Hand)
    assert unknown.parsed.status == "unknown"

    page = ops["get_results"].sync(client=reader, tournament_id="T", limit=10)
    assert isinstance(page, models.ResultsPage)
    assert [item.result.hand_id for item in page.items] == ["T-h1"]
    assert isinstance(page.items[0].result, models.ShowdownResult)
    assert isinstance(page.items[0].result.settled_at, datetime)

    letters = ops["get_dead_letters"].sync(client=reader, code="duplicate_card")
    assert isinstance(letters, models.DeadLettersPage)
    assert [(item.hand_id, item.requeued_as) for item in letters.items] == [("bad-1", None)]
    assert isinstance(letters.items[0], models.DeadLetterItem)

    standings = ops["get_standings"].sync(client=reader, tournament_id="T")
    assert isinstance(standings, models.TournamentStandings)
    (placement,) = standings.placements
    assert isinstance(placement, models.Placement)
    assert (placement.player_id, placement.place, placement.bounty_cash) == ("d", 4, 0)
    assert all(isinstance(entry, models.Playing) for entry in standings.playing)

    for name, args in (("get_checkpoint", {"shard": "default"}), ("get_hand_proof", {"hand_id": "T-h1"}),
                       ("get_consistency", {"shard": "default", "size1": 1, "size2": 2})):  # fmt: skip
        no_log = ops[name].sync_detailed(client=reader, **args)  # no archive here: no signed tree head to prove by
        assert no_log.status_code == 503, name
        assert isinstance(no_log.parsed, models.Error)
        assert no_log.parsed.code == "archive_unavailable"
    assert {"TreeHead", "InclusionProof", "ConsistencyProof"} <= set(dir(models)), "the log's answers are typed"

    malformed = ops["get_results"].sync_detailed(client=reader, limit=0)
    assert malformed.status_code == 400
    assert isinstance(malformed.parsed, models.Error)
    assert malformed.parsed.code == "bad_query"
    scoped_out = ops["get_dead_letters"].sync_detailed(client=hands_only)
    assert scoped_out.status_code == 403
    assert isinstance(scoped_out.parsed, models.Error)
    assert scoped_out.parsed.code == "insufficient_scope"
    refused_401 = ops["get_hand"].sync_detailed(client=anonymous, hand_id="T-h1")
    assert refused_401.status_code == 401
    assert isinstance(refused_401.parsed, models.Error)
    failed = ops["get_hand"].sync_detailed(client=reader, hand_id="broken-1")
    assert failed.status_code == 500
    assert isinstance(failed.parsed, models.Error)
    assert failed.parsed.code == "internal_error"
