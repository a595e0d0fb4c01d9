"""One answer to "what happened to hand X": its event, result, dead letter and audit record, and where they are (a
Redis stream entry, or an archive file's row), or nothing found.

Every reader of a hand goes through here: the read API (its live index,
:mod:`showdown_service.read.index`, and its archive fallback), ``showdown hand``,
``showdown proof`` and a requeue's "was it settled already?". The rules they
share:

* **Redis first, then the archive.** Redis holds the newest entries; the
  archive (``SHOWDOWN_ARCHIVE_URL``) everything the archiver moved, and alone
  what Redis trimmed past ``SHOWDOWN_ARCHIVE_KEEP``. A hand Redis does not
  know is asked of the archive, never the other way round.
* **Of a hand's entries** (a re-send is an entry too), the one that settled it,
  else the newest (:func:`showdown_service.storage.recall.best`), in Redis and
  in the archive alike.
* **Which hand an entry names**: a results entry's ``hand_id`` field (the
  commit writes it beside the result:
  :func:`~showdown_service.infra.entry_fields.result_hand`), else (an entry an
  older worker wrote, an event, a dead letter's raw) its JSON's ``hand_id``
  (:func:`~showdown_service.infra.entry_fields.hand_of`); a scan looks for the id's JSON text first and parses only
  the entries holding it.
* **Failing closed**: a shard whose archiver is registered cannot be answered
  "not here" from an archive this shell cannot read
  (:class:`~showdown_service.storage.lookup.ArchiveUnreadable`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import orjson

from showdown_messages.protocol import (
    AUDIT_FIELD_B,
    ENTRY_ID_FIELD_B,
    EVENT_FIELD_B,
    HAND_ID_FIELD_B,
    RAW_FIELD_B,
    RESULT_FIELD_B,
)
from showdown_service.infra.config import Settings, ShardKeys
from showdown_service.infra.connection import REDIS_ERRORS, Client
from showdown_service.infra.streams import Fields, read_range
from showdown_service.storage.lookup import find_archived

if TYPE_CHECKING:
    from showdown_service.storage.recall import HandFound

PAGE = 1000
"""Entries read per round trip while scanning a stream for a hand."""
STATUS_OF_OUTCOME = {"settled": "settled", "duplicate": "settled", "rejected": "refused", "poison": "refused"}
"""An archived entry's outcome as the API's status (a duplicate's hand was settled, by an earlier entry)."""


def _needle(hand_id: str) -> bytes:
    """The JSON text an entry naming ``hand_id`` holds (compact, as the worker writes it)."""
    return b'"hand_id":' + orjson.dumps(hand_id)


def pages(client: Client, key: str, *, newest_first: bool = False, page: int = PAGE) -> Iterator[tuple[bytes, Fields]]:
    """Every entry of stream ``key`` (oldest first, or newest first), ``page`` a round trip."""
    low, high = "-", "+"
    while True:
        rows = read_range(client, key, low=low, high=high, count=page, newest_first=newest_first)
        yield from rows
        if len(rows) < page:
            return
        after = "(" + rows[-1][0].decode()
        low, high = (low, after) if newest_first else (after, high)


def result_in_redis(client: Client, keys: ShardKeys, hand_id: str) -> tuple[str, dict[str, Any]] | None:
    """The first result of ``hand_id`` in the shard's results stream: (its entry id, the result), or None."""
    needle, named = _needle(hand_id), hand_id.encode()
    for entry_id, fields in pages(client, keys.results):
        raw = fields.get(RESULT_FIELD_B, b"")
        field = fields.get(HAND_ID_FIELD_B)
        if (field == named if field else needle in raw) and (doc := orjson.loads(raw)).get("hand_id") == hand_id:
            return entry_id.decode(), doc
    return None


def in_redis(client: Client, settings: Settings, hand_id: str) -> HandFound | None:
    """The hand's entries still in Redis (its audit records, newest first, on every shard), joined to their
    texts (the event, the result by its sha256, the dead letter by its entry id); the best of them."""
    from showdown_service.archive.collect import joined_row  # noqa: PLC0415
    from showdown_service.decision.audit import sha256_hex  # noqa: PLC0415
    from showdown_service.storage.recall import best, found_from_row  # noqa: PLC0415

    wanted = _needle(hand_id)
    rows: list[dict[str, Any]] = []
    for shard in settings.shards:
        keys = settings.keys(shard)
        for stream_id, fields in pages(client, keys.audit, newest_first=True):
            text = fields.get(AUDIT_FIELD_B, b"")
            if wanted not in text:
                continue
            body = orjson.loads(text)
            entry = str(body["entry_id"])
            row = joined_row(keys.shard, stream_id.decode(), text, body, read_range(client, keys.events, low=entry,
                             high=entry))  # fmt: skip
            if body.get("result_sha256"):
                row["result"] = next(
                    (f[RESULT_FIELD_B].decode() for _, f in pages(client, keys.results, newest_first=True)
                     if sha256_hex(f.get(RESULT_FIELD_B, b"")) == body["result_sha256"]),
                    None,
                )  # fmt: skip
            if body.get("code"):
                entry_id = str(body["entry_id"]).encode()
                dead = next(
                    (f for _, f in pages(client, keys.dead, newest_first=True) if f.get(ENTRY_ID_FIELD_B) == entry_id),
                    None,
                )
                if dead is not None:
                    shown = {k.decode(): v.decode(errors="replace") for k, v in dead.items() if k != RAW_FIELD_B}
                    row["dead_letter"] = orjson.dumps(shown).decode()
            rows.append(row)
    chosen = best(rows)
    return None if chosen is None else found_from_row(chosen, "redis")


def in_archive(
    settings: Settings, hand_id: str, *, url: str | None = None, registered: Mapping[str, str] | None = None
) -> HandFound | None:
    """The archived entry of ``hand_id`` (the one that settled it, else the newest), or None.

    Without ``url``: ``SHOWDOWN_ARCHIVE_URL``, through the process's hand-id filters, and none when no archive
    is there (:func:`~showdown_service.storage.lookup.find_archived`; ``registered``: the shards whose archiver
    is registered, then an unreadable archive raises). With ``url`` (an archive a command names): read whole."""
    if url is None:
        return find_archived(settings, hand_id, registered=registered)
    from showdown_service.storage.recall import find_hand  # noqa: PLC0415 - pyarrow and DuckDB on first use

    return find_hand(url, hand_id, settings=settings)


def archived_document(
    settings: Settings, hand_id: str, registered: Mapping[str, str] | None = None
) -> dict[str, Any] | None:
    """The archive's ``{"hand_id", "status", "result", "dead_letter", "audit"}`` for ``hand_id`` (as the read API
    serves a hand), or None when it holds none."""
    found = in_archive(settings, hand_id, registered=registered)
    if found is None:
        return None
    status = STATUS_OF_OUTCOME.get(found.outcome or "", "settled" if found.result is not None else "refused")
    return {
        "hand_id": found.hand_id,
        "status": status,
        "result": found.result,
        "dead_letter": found.dead_letter,
        "audit": found.audit,
    }


def event_of_entry(client: Client, keys: ShardKeys, entry_id: str) -> dict[str, Any] | None:
    """The event of the shard's events entry ``entry_id``, parsed; None when Redis no longer holds it."""
    rows = read_range(client, keys.events, low=entry_id, high=entry_id, count=1)
    payload = rows[0][1].get(EVENT_FIELD_B) if rows else None
    return orjson.loads(payload) if payload else None


def find(
    settings: Settings, hand_id: str, client: Callable[[], Client], warn: Callable[[str], None]
) -> HandFound | None:
    """``showdown hand``'s answer: the hand in Redis (``client``: connects), else in the archive; a hand found in
    Redis without its event (trimmed there first) with the archive's event of the same entry. What could not be
    searched is told to ``warn``, and the rest still searched."""
    found = None
    try:
        found = in_redis(client(), settings, hand_id)
    except REDIS_ERRORS as exc:
        warn(f"Redis not searched: {type(exc).__name__}: {exc}")
    if found is None:
        return in_archive(settings, hand_id, url=settings.archive_url)
    if found.event is not None:
        return found
    try:
        archived = in_archive(settings, hand_id, url=settings.archive_url)
    except Exception as exc:  # any store's failure (a missing directory, S3): say so, show what Redis holds
        warn(f"archive not searched for the event: {type(exc).__name__}: {exc}")
        return found
    same = archived is not None and (archived.shard, archived.entry_id) == (found.shard, found.entry_id)
    if archived is None or archived.event is None or not same:
        return found
    return dataclasses.replace(found, event=archived.event)
