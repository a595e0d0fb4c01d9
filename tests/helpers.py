"""Builders shared by the tests: real-data paths, compact events, refusals, stream entries and waiting."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from showdown_core import InvalidEvent, Settlement, settle
from showdown_messages import CODES, ShowdownEvent
from showdown_service.decision.intake import parse_event, to_showdown
from showdown_service.infra.connection import Client

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
FIXTURES = REPO / "tests" / "fixtures"
"""Real hand histories with known outcomes (read-only, beside the repository)."""
REAL_SHOWDOWNS = SHARED_DATA / "cases" / "real_showdowns.jsonl"
BUNDLED_SHOWDOWNS = REPO / "worker" / "showdown_service" / "data" / "showdowns.jsonl"
VARIANT_SHOWDOWNS = REPO / "worker" / "showdown_service" / "data" / "variants.jsonl"


def read_cases(path: Path) -> Iterator[dict[str, Any]]:
    """Each JSON line of a cases file (event, expected_award, categories)."""
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def seat(
    number: int,
    cards: str | None,
    put_in: int,
    *,
    folded: bool = False,
    dead: int = 0,
    stack: int | None = None,
    player_id: str | None = None,
) -> dict[str, Any]:
    """A player entry: ``seat(3, "As Kd", 500)``; ``cards=None`` for unknown cards."""
    entry: dict[str, Any] = {
        "seat": number,
        "player_id": player_id or f"p{number}",
        "hole_cards": cards.split() if cards else None,
        "contributed": put_in,
        "folded": folded,
    }
    if dead:
        entry["dead_money"] = dead
    if stack is not None:
        entry["stack"] = stack
    return entry


def event(*players: dict[str, Any], board: str = "", button: int | None = 1, **fields: Any) -> dict[str, Any]:
    """A hold'em ShowdownEvent dict with sensible defaults; ``fields`` override anything."""
    doc: dict[str, Any] = {
        "schema_version": 1,
        "hand_id": "H-1",
        "table_id": "T-1",
        "variant": "holdem",
        "board": board.split(),
        "button_seat": button,
        "players": list(players),
    }
    doc.update(fields)
    return {k: v for k, v in doc.items() if v is not None}


def settle_doc(doc: dict[str, Any]) -> Settlement:
    """Validate a ShowdownEvent dict exactly as the worker would, and settle it."""
    return settle(to_showdown(parse_event(json.dumps(doc))))


def collected(doc: dict[str, Any]) -> dict[int, int]:
    """``{seat: chips collected}`` for an event dict."""
    return settle_doc(doc).collected_by_seat()


def validated(doc: dict[str, Any]) -> ShowdownEvent:
    return parse_event(json.dumps(doc))


def refusal(doc_or_text: dict[str, Any] | str) -> InvalidEvent:
    """The ``InvalidEvent`` intake raises for an event dict (or raw text); its code must be a listed one."""
    payload = doc_or_text if isinstance(doc_or_text, str) else json.dumps(doc_or_text)
    with pytest.raises(InvalidEvent) as caught:
        parse_event(payload)
    assert caught.value.code in CODES, caught.value.code
    return caught.value


def xadd_events(client: Client, stream: str, events: Sequence[Mapping[str, Any] | str | bytes]) -> list[bytes]:
    """XADD each event (dicts as JSON, text and bytes as they are) in one pipeline; their entry ids."""
    pipe = client.pipeline(transaction=False)
    for doc in events:
        pipe.xadd(stream, {"event": doc if isinstance(doc, str | bytes) else json.dumps(doc)})
    return list(pipe.execute())


def move_inboxes(client: Client, shards: Sequence[str] = ("default",)) -> int:
    """Move the shards' inboxes (what producers RPUSH) into their events streams, as a worker does before each read;
    how many elements moved."""
    from showdown_service.infra.config import Settings
    from showdown_service.worker.ingress import Ingress

    settings = Settings()
    return Ingress(client, [settings.keys(shard) for shard in shards], count=10_000).move()


def wait_until(check: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    """Poll ``check`` every 50 ms; fail the test naming ``what`` if it is not true within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.05)


TLS_REDIS = Path(sys.prefix) / "debian-redis" / "redis-server"
"""Debian's redis-server (built with TLS), which `make test` unpacks into this virtual environment (see the
Makefile): no package on PyPI ships a server built with TLS."""


def tls_redis_server() -> str:
    """The path of :data:`TLS_REDIS`; failing the test, with what to run, where make has not fetched it yet."""
    if not os.access(TLS_REDIS, os.X_OK):
        make_target = os.path.relpath(TLS_REDIS, REPO)
        pytest.fail(f"no {TLS_REDIS}: run `make {make_target}` (make test does it first)", pytrace=False)
    return str(TLS_REDIS)


def audit_tournaments(tmp_path: Path, files: Mapping[str, str]) -> tuple[int, Path, list[dict[str, Any]]]:
    """Write ``files`` (name -> text) into the folder ``tmp_path / "paths"`` (emptied first), run ``showdown replay
    --tournaments`` on each file by name, and return the exit status, the folder and the tournament report's lines."""
    from showdown_service.cli.commands import main

    folder = tmp_path / "paths"
    folder.mkdir(exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    report = tmp_path / "tournaments.jsonl"
    status = main(["replay", "--tournaments", *(str(folder / n) for n in files), "--tournament-report", str(report)])
    return status, folder, [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
