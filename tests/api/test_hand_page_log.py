"""The hand page says where the hand sits in the Merkle log, with its proof one link away (issue 37 item 6): the
same words as ``showdown hand``'s ``log:`` line (:func:`~showdown_service.archive.proofs.place_in_log`)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from showdown_service.api.replay import log_line, page, replay_document
from showdown_service.archive.proofs import place_in_log
from showdown_service.infra.config import Settings
from showdown_service.storage.layout import all_files, open_store, read_rows
from tests.api.test_hand_page import RAISED
from tests.archive.test_tlog import chain_leaves
from tests.archive.test_tlog import signed as signed  # noqa: PLC0414  # the signed archive fixture
from tests.histories.test_history_export import settled, with_play


def entry_of(settings: Settings, seq: int) -> str:
    store = open_store(settings.archive_url)
    for _, _, path in all_files(store):
        for row in read_rows(store, path, ["seq", "entry_id"]).to_pylist():
            if row["seq"] == seq:
                return str(row["entry_id"])
    raise AssertionError(f"seq {seq} is not archived")


def test_the_place_is_the_leaf_and_the_signed_head_holding_it_and_the_page_links_its_proof(signed: Settings) -> None:
    epoch = next(iter(chain_leaves(signed.archive_url)))
    where, provable = place_in_log(signed, "default", 4, entry_of(signed, 4))
    assert provable
    assert where.startswith(f"leaf 3 of shard default's log, epoch {epoch}, in the signed tree head of size 70 of ")
    log = log_line(SimpleNamespace(settings=signed), "h-3", ("default", 4, entry_of(signed, 4)))  # type: ignore[arg-type]
    assert log == {"where": where, "proof": "/v1/hands/h-3/proof"}
    doc, _ = with_play(RAISED)
    html = page(replay_document(doc, settled(doc), log))
    embedded: dict[str, Any] = json.loads(html.split('id="hand">', 1)[1].split("</script>", 1)[0])
    assert embedded["log"] == log
    assert 'id="log"' in html, "the page has the place to show it"


def test_an_id_with_a_slash_is_linked_encoded_and_an_unknown_place_says_so(signed: Settings) -> None:
    state: Any = SimpleNamespace(settings=signed)
    linked = log_line(state, "pluribus:data/1.phh", ("default", 4, entry_of(signed, 4)))
    assert linked is not None
    assert linked["proof"] == "/v1/hands/pluribus%3Adata%2F1.phh/proof"
    assert log_line(state, "h", None) is None
    assert place_in_log(signed, "default", 71, "9-9") == ("(not archived yet)", False)


def test_without_an_archive_the_place_is_not_archived_yet(make_settings: Any, tmp_path: Path) -> None:
    settings: Settings = make_settings(archive_url=str(tmp_path / "none"))
    assert place_in_log(settings, "default", 1, "1-0") == ("(not archived yet)", False)
