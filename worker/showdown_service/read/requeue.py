"""``showdown dead-letters --requeue ID``: send a dead letter back to its shard's events stream, and only safely.

Refused, with the reason named:

* a dead letter requeued before: ``<prefix>:{<shard>}:dead:resolved`` maps
  each requeued dead letter to the entry it became (claimed with HSETNX
  before the XADD, so two operators cannot both send it);
* a hand already settled: its result is found in the shard's results stream
  (or by :func:`settled_in_archive`, the archive's hook). Past the dedupe TTL
  the worker no longer remembers a hand, so a requeued ``conflicting_duplicate``
  would settle it a second time with other awards;
* a hand that cannot be checked: the shard has a registered archiver (its
  archive hash is in Redis, so results past ``SHOWDOWN_ARCHIVE_KEEP`` are only
  in the archive) but ``SHOWDOWN_ARCHIVE_URL`` does not lead this shell to a
  readable archive holding the archiver's newest file
  (:class:`~showdown_service.storage.lookup.ArchiveUnreadable`): refused,
  naming the setting, never taken as "not settled";
* a payload a worker would refuse again;
* a dead letter of an entry that held several fields (kept whole in its
  ``raw``: see :func:`showdown_service.decision.settling.all_fields_raw`) without
  ``--event FILE`` naming the one message to send.

What is sent carries ``requeued_from`` (the dead letter's id) and, when the
operator sent an edited body, ``body_changed: 1``; the worker writes both
into the entry's audit record.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import cast

import orjson
from pydantic import ValidationError

from showdown_messages import ShowdownEvent, rejections
from showdown_messages.protocol import (
    BODY_CHANGED_FIELD,
    CODE_FIELD_B,
    EVENT_FIELD,
    RAW_BYTES_FIELD_B,
    RAW_FIELD_B,
    REQUEUED_FROM_FIELD,
    TOURNAMENT_FIELD,
)
from showdown_messages.tournaments import parse_tournament_message
from showdown_service.decision.render import describe_result
from showdown_service.decision.settling import all_fields
from showdown_service.infra.config import Settings, ShardKeys
from showdown_service.infra.connection import REDIS_ERRORS, Client
from showdown_service.infra.streams import read_range
from showdown_service.read.dead_letters import CLAIMED
from showdown_service.read.dead_letters import resolved_key as dead_letter_marks
from showdown_service.read.hands import in_archive, result_in_redis
from showdown_service.storage.lookup import ArchiveUnreadable, registered_archives

WHOLE_ENTRY_CODES = frozenset({"ambiguous_entry", "missing_event"})
"""Dead letters whose ``raw`` holds every field of their entry (not one payload)."""


def resolved_key(keys: ShardKeys) -> str:
    """The hash of a shard's requeued dead letters: dead letter id -> the events entry it became."""
    return dead_letter_marks(keys.dead)


def settled_in_archive(
    settings: Settings, shard: str, hand_id: str, registered: Mapping[str, str] | None = None
) -> str | None:
    """Where the shard's archive (``SHOWDOWN_ARCHIVE_URL``) records ``hand_id`` as settled, in words, or None.

    The results stream keeps about ``SHOWDOWN_ARCHIVE_KEEP`` (or ``SHOWDOWN_RESULTS_MAXLEN``) results; a hand
    settled before those were trimmed is found only in the archive (docs/archive.md). ``registered``: the
    shard's registered archiver, if any (:func:`~showdown_service.storage.lookup.registered_archives`): then
    an archive that cannot be read raises :class:`~showdown_service.storage.lookup.ArchiveUnreadable`."""
    found = in_archive(settings, hand_id, registered=registered)
    if found is None or found.shard != shard or not isinstance(found.result, dict):
        return None
    return f"archived result {found.entry_id} (seq {found.seq}): {describe_result(found.result)}"


def settled_result(client: Client, keys: ShardKeys, hand_id: str) -> str | None:
    """The shard's result for ``hand_id``, in words (``result <entry id>: <pots and awards>``), or None."""
    found = result_in_redis(client, keys, hand_id)
    return None if found is None else f"result {found[0]}: {describe_result(found[1])}"


def requeue(client: Client, settings: Settings, dead_id: str, shard: str, event: Path | None) -> int:
    """Send dead letter ``dead_id`` of ``shard`` back (``event``: an edited body instead); 0 when sent."""
    code, text = attempt(client, settings, dead_id, shard, event.read_bytes() if event is not None else None)
    (sys.stdout if code == 0 else sys.stderr).write(text + "\n")
    return code


def attempt(client: Client, settings: Settings, dead_id: str, shard: str, edited: bytes | None) -> tuple[int, str]:
    """Send dead letter ``dead_id`` of ``shard`` back (``edited``: another body instead), the one way every
    requeue goes (one id, or each of several in stream order): the exit status (0 sent, 1 refused, 2 refused
    until the operator names what to send) and a line saying what happened."""
    keys = settings.keys(shard)
    rows = read_range(client, keys.dead, low=dead_id, high=dead_id)
    if not rows:
        return 2, f"no dead letter {dead_id} in shard {shard}"
    fields = rows[0][1]
    done = cast(bytes | None, client.hget(resolved_key(keys), dead_id))
    if done == CLAIMED:
        return 1, (f"not requeued: dead letter {dead_id} was claimed by a requeue that names no entry yet (under "
                   f"way, or stopped before its XADD: look for requeued_from {dead_id} in {keys.events})")  # fmt: skip
    if done:
        return 1, (f"not requeued: dead letter {dead_id} was requeued already, as {done.decode()} on "
                   f"{keys.events}; requeue that entry's dead letter if it was refused again")  # fmt: skip
    raw = fields.get(RAW_FIELD_B, b"")
    whole = all_fields(raw) if fields.get(CODE_FIELD_B, b"").decode() in WHOLE_ENTRY_CODES else None
    if edited is not None:
        payload = edited
    elif whole is not None:
        names = ", ".join(sorted(k.decode(errors="replace") for k in whole))
        return 2, (f"not requeued: dead letter {dead_id}'s entry held several fields ({names}), all kept in its "
                   "raw; send the one message to settle with --event FILE (one requeue per dead letter)")  # fmt: skip
    elif int(fields.get(RAW_BYTES_FIELD_B, b"0") or 0) > len(raw):
        return 2, f"not requeued: dead letter {dead_id} kept only part of the payload; send it whole with --event FILE"
    else:
        payload = raw
    field = TOURNAMENT_FIELD if _is_tournament_message(payload) else EVENT_FIELD
    what = "tournament message" if field == TOURNAMENT_FIELD else "event"
    try:
        hand_id = None if field == TOURNAMENT_FIELD else ShowdownEvent.model_validate_json(payload).hand_id
        if field == TOURNAMENT_FIELD:
            parse_tournament_message(payload)
    except ValidationError as exc:
        why = rejections(exc, payload)[0].message
        return 1, f"not requeued: dead letter {dead_id}: the {what} is still invalid: {why}"
    if hand_id is not None:
        settled = settled_result(client, keys, hand_id)
        if settled is None:
            try:
                settled = settled_in_archive(settings, shard, hand_id, registered_archives(client, [keys]))
            except ArchiveUnreadable as exc:
                return 1, (f"not requeued: dead letter {dead_id}: whether hand {hand_id!r} was settled cannot be "
                           f"told: {exc}")  # fmt: skip
        if settled is not None:
            return 1, (f"not requeued: hand {hand_id!r} was settled already ({settled}); sent again after its "
                       "dedupe key expired, it would be paid a second time")  # fmt: skip
    changed = edited is not None and payload.strip() != raw.strip()
    return _send(client, keys, dead_id, {field: payload, REQUEUED_FROM_FIELD: dead_id,
                                         **({BODY_CHANGED_FIELD: "1"} if changed else {})}, what, changed)  # fmt: skip


def _send(  # noqa: PLR0917 - attempt()'s parts, positional
    client: Client, keys: ShardKeys, dead_id: str, entry: dict[str, bytes | str], what: str, changed: bool
) -> tuple[int, str]:
    """Claim the dead letter (HSETNX), XADD the entry, record what it became; a failed XADD releases the claim."""
    resolved = resolved_key(keys)
    if not client.hsetnx(resolved, dead_id, CLAIMED):
        return 1, f"not requeued: dead letter {dead_id} is being requeued by someone else right now"
    try:
        new_id = cast(bytes, client.xadd(keys.events, entry))  # type: ignore[arg-type]
    except REDIS_ERRORS:
        client.hdel(resolved, dead_id)
        raise
    client.hset(resolved, dead_id, new_id)
    edited = " with an edited body" if changed else ""
    return 0, f"requeued {dead_id} ({what}){edited} as {new_id.decode()} on {keys.events}"


def resolutions(client: Client, keys: ShardKeys, dead_ids: list[bytes]) -> list[str | None]:
    """For each dead letter: the events entry it was requeued as, or None (one HMGET)."""
    if not dead_ids:
        return []
    found = cast(list[bytes | None], client.hmget(resolved_key(keys), dead_ids))
    return [value.decode() if value else None for value in found]


def _is_tournament_message(payload: bytes) -> bool:
    """A dead letter's payload is a tournament message (an object with a ``type``; no event has one) or an
    event: which field of a stream entry it goes back in."""
    try:
        doc = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return False
    return isinstance(doc, dict) and "type" in doc and "hand_id" not in doc
