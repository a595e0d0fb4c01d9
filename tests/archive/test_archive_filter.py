"""Issue 34 item 5: a filter of each archive file's hand ids, so a lookup of a hand no file holds reads no file.

A Bloom filter answers "maybe" for every id it was built from (never a false negative: a file that holds the hand
is always read), and "no" for most others."""

from __future__ import annotations

import random
import string
from pathlib import Path
from typing import Any

import pytest

from showdown_service.infra.config import Settings
from showdown_service.storage import recall
from showdown_service.storage.idfilter import FALSE_POSITIVES, HandFilter, HandFilters
from showdown_service.storage.layout import all_files, open_store
from showdown_service.storage.lookup import find_archived
from showdown_service.storage.recall import find_hand, query
from tests.archive.test_archive import archived  # noqa: F401 - the fixture: an archive of mixed entries, several files

ODD_IDS = ["", "a", "pluribus:data/pluribus/109/73.phh", "é", "h{1}", "x" * 1000, "0", "h-1", "h-10", "H-1"]


def test_a_filter_never_says_no_to_an_id_it_was_built_from_and_rarely_yes_to_another() -> None:
    rng = random.Random(34)
    ids = ODD_IDS + ["".join(rng.choices(string.printable, k=rng.randint(1, 40))) for _ in range(20_000)]
    built = HandFilter.of(ids)
    assert [i for i in ids if not built.may_hold(i)] == [], "no false negative, whatever the id"
    others = [f"unknown-{i}" for i in range(20_000)]
    wrong = sum(built.may_hold(i) for i in others) / len(others)
    assert wrong < 2 * FALSE_POSITIVES, wrong
    assert not HandFilter.of([]).may_hold(""), "an empty file's filter holds nothing"


@pytest.mark.parametrize("n", [1, 2, 7, 64, 1000])
def test_a_filter_of_any_size_holds_each_of_its_ids(n: int) -> None:
    ids = [f"h-{i}" for i in range(n)]
    built = HandFilter.of(ids)
    assert all(built.may_hold(i) for i in ids)
    assert HandFilter.of(ids) == built, "the same ids, the same filter (keyless hashes: every process agrees)"


def archived_ids(settings: Settings) -> list[str]:
    _, rows = query(open_store(settings.archive_url), "SELECT DISTINCT hand_id FROM entries WHERE hand_id IS NOT NULL")
    return sorted(row[0] for row in rows)


def test_every_archived_hand_is_found_through_the_filters_as_without_them(archived: tuple[Settings, Any]) -> None:  # noqa: F811
    settings, _ = archived
    filters = HandFilters()
    ids = archived_ids(settings)
    assert len(ids) > 20
    files = len(all_files(open_store(settings.archive_url)))
    assert files > 1
    for hand_id in ids:
        assert find_hand(settings.archive_url, hand_id, filters=filters) == find_hand(settings.archive_url, hand_id)
    assert filters.built == files, "each file's filter built once, on the first lookup"


def test_an_unknown_hand_is_answered_without_reading_the_archive(
    archived: tuple[Settings, Any],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings, _ = archived
    filters = HandFilters()
    assert find_hand(settings.archive_url, "h-3", filters=filters) is not None  # the filters are built
    reads: list[list[str] | None] = []
    real = recall.connect

    def counted(store: Any, paths: list[str] | None = None) -> Any:
        reads.append(paths)
        return real(store, paths)

    monkeypatch.setattr(recall, "connect", counted)
    assert [find_hand(settings.archive_url, f"nowhere-{i}", filters=filters) for i in range(200)] == [None] * 200
    assert len(reads) < 20, f"{len(reads)} of 200 unknown ids read a file (a filter's false positive)"
    assert all(paths and len(paths) == 1 for paths in reads), "and then only the file whose filter said maybe"
    assert find_hand(settings.archive_url, "nowhere-0") is None
    assert reads[-1] is None, "without filters (a one-shot command): the whole archive, as before"


def test_a_file_written_after_the_filters_were_built_is_read_for_its_hands(
    archived: tuple[Settings, Any],  # noqa: F811
    tmp_path: Path,
) -> None:
    """No false negative across time: a file the filters never met is filtered (built) before it is judged."""
    settings, _ = archived
    filters = HandFilters()
    ids = archived_ids(settings)
    store = open_store(settings.archive_url)
    paths = [p for _, _, p in all_files(store)]
    newest = paths[-1]
    hidden = Path(newest).rename(tmp_path / "later.parquet")
    assert find_hand(settings.archive_url, "nowhere", filters=filters) is None
    built = filters.built
    Path(hidden).rename(newest)
    assert [h for h in ids if find_hand(settings.archive_url, h, filters=filters) is None] == []
    assert filters.built == built + 1


def test_the_api_s_lookup_goes_through_the_process_s_filters(archived: tuple[Settings, Any]) -> None:  # noqa: F811
    settings, _ = archived
    from showdown_service.storage import idfilter

    before = idfilter.FILTERS.built
    found = find_archived(settings, "h-3")
    assert found is not None
    assert found.hand_id == "h-3"
    assert find_archived(settings, "nowhere") is None
    assert idfilter.FILTERS.built >= before + len(all_files(open_store(settings.archive_url)))
