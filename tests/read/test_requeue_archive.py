"""Issue 34 item 1: a requeue on a shard with a registered archiver fails closed when its shell cannot read the
archive (``SHOWDOWN_ARCHIVE_URL`` unset, wrong, or the archive missing the archiver's newest file): never "not
settled", which paid a hand Redis had trimmed a second time. On a real server, with a real archiver."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import redis

from showdown_service.archive.archiver import Archiver
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import connect
from showdown_service.infra.streams import read_range
from showdown_service.read.requeue import attempt, resolved_key, settled_result
from showdown_service.storage.layout import open_store
from showdown_service.storage.lookup import ArchiveUnreadable, find_archived, registered_archives
from showdown_service.worker.loop import Worker
from tests.helpers import BUNDLED_SHOWDOWNS, read_cases, xadd_events

CASES = list(read_cases(BUNDLED_SHOWDOWNS))


def _settled_and_archived(client: redis.Redis, settings: Settings) -> str:
    """30 hands settled, one of them sent again with other content (a conflicting_duplicate), everything archived
    and the results trimmed to 5, the dedupe keys expired: returns the dead letter's id."""
    keys = settings.keys("default")
    events = [{**CASES[i % len(CASES)]["event"], "hand_id": f"h-{i}"} for i in range(30)]
    xadd_events(client, keys.events, [*events, {**events[2], "table_id": "another-table"}])
    archiver = Archiver(settings, connect(settings), open_store(settings.archive_url, settings))
    archiver.step(keys)
    worker = Worker(settings, connect(settings))
    worker.run(until_idle=True)
    archiver.drain()
    client.xtrim(keys.results, maxlen=5, approximate=False)
    for key in client.scan_iter(match=keys.seen("*")):
        client.delete(key)  # the dedupe TTL ran out
    assert settled_result(client, keys, "h-2") is None, "only the archive holds h-2's result now"
    ((dead_id, fields),) = read_range(client, keys.dead)
    assert fields[b"code"] == b"conflicting_duplicate"
    return dead_id.decode()


@pytest.mark.parametrize("where", ["unset", "elsewhere"])
def test_a_requeue_that_cannot_read_a_registered_archiver_s_archive_is_refused_naming_the_setting(
    client: redis.Redis, redis_url: str, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:  # fmt: skip
    settings = make_settings(redis_url, batch_size=25, archive_url=str(tmp_path / "archive"), archive_keep=5)
    keys = settings.keys("default")
    dead_id = _settled_and_archived(client, settings)
    if where == "unset":  # the operator's shell: the default relative path `archive`, which is not there
        monkeypatch.chdir(tmp_path / "archive" / "..")
        shell = make_settings(redis_url, archive_url="archive-not-here")
    else:  # a directory that exists, but not the archiver's
        (tmp_path / "other").mkdir()
        shell = make_settings(redis_url, archive_url=str(tmp_path / "other"))
    events_before = client.xlen(keys.events)
    code, text = attempt(client, shell, dead_id, "default", None)
    assert code == 1
    assert text.startswith(f"not requeued: dead letter {dead_id}: whether hand 'h-2' was settled cannot be told")
    assert "SHOWDOWN_ARCHIVE_URL=" in text
    assert "'default' have a registered archiver" in text
    assert client.xlen(keys.events) == events_before, "nothing sent"
    assert not client.hexists(resolved_key(keys), dead_id), "and the dead letter not marked"
    code, text = attempt(client, settings, dead_id, "default", None)  # the archive's own shell
    assert code == 1
    assert "hand 'h-2' was settled already (archived result " in text
    assert client.xlen(keys.events) == events_before


def test_without_a_registered_archiver_a_missing_archive_still_finds_nothing(
    client: redis.Redis, redis_url: str, make_settings: Any, tmp_path: Path
) -> None:
    settings = make_settings(redis_url, archive_url=str(tmp_path / "never"))
    keys = settings.keys("default")
    assert registered_archives(client, [keys]) == {}
    assert find_archived(settings, "h-1", registered={}) is None
    assert not (tmp_path / "never").exists(), "nothing created by looking"
    client.hset(keys.archive, mapping={"seq": 0, "file": ""})  # an archiver registered, no file yet
    assert registered_archives(client, [keys]) == {"default": ""}
    with pytest.raises(ArchiveUnreadable, match="SHOWDOWN_ARCHIVE_URL="):
        find_archived(settings, "h-1", registered=registered_archives(client, [keys]))
    assert not (tmp_path / "never").exists()


def test_a_requeue_of_an_unsettled_hand_on_a_readable_archive_goes_through(
    client: redis.Redis, redis_url: str, make_settings: Any, tmp_path: Path
) -> None:
    """Failing closed refuses only what cannot be checked: a hand the archive does not hold is sent."""
    settings = make_settings(redis_url, batch_size=25, archive_url=str(tmp_path / "archive"), archive_keep=5)
    keys = settings.keys("default")
    _settled_and_archived(client, settings)
    bad = {**CASES[0]["event"], "hand_id": "never-settled"}
    client.xadd(keys.dead, {"code": "bad_card", "message": "x", "raw": json.dumps(bad), "raw_bytes": "1"})
    new_dead = read_range(client, keys.dead)[-1][0].decode()
    code, text = attempt(client, settings, new_dead, "default", None)
    assert (code, text.split(" as ")[0]) == (0, f"requeued {new_dead} (event)")


def test_the_read_api_that_cannot_read_a_registered_archiver_s_archive_answers_503_not_unknown(
    client: redis.Redis, redis_url: str, make_settings: Any, tmp_path: Path
) -> None:
    """The read API fails closed as the requeue does: a hand Redis trimmed, asked where the archive is not, is a
    503 naming SHOWDOWN_ARCHIVE_URL (a producer told "unknown" would send it again); with no archiver registered
    the same lookup finds nothing; pointed at the archive it answers the settled result."""
    from showdown_service.api.archive import lookup
    from showdown_service.api.auth import Refused

    settings = make_settings(redis_url, batch_size=25, archive_url=str(tmp_path / "archive"), archive_keep=5)
    _settled_and_archived(client, settings)
    elsewhere = make_settings(redis_url, archive_url=str(tmp_path / "not-the-archive"))
    with pytest.raises(Refused) as refused:
        lookup(elsewhere, connect(elsewhere))("h-2")
    assert refused.value.status == 503
    assert refused.value.code == "archive_unreadable"
    assert "SHOWDOWN_ARCHIVE_URL" in refused.value.message
    assert lookup(elsewhere)("h-2") is None, "without Redis to ask, as before: nothing found"
    found = lookup(settings, connect(settings))("h-2")
    assert found is not None
    assert found["status"] == "settled"
    client.delete(settings.keys("default").archive)  # no archiver registered: nothing to fail closed on
    assert lookup(elsewhere, connect(elsewhere))("h-2") is None
