"""A hand asked of the archive by the shell's other parts (the read API, a requeue), without loading pyarrow and
DuckDB until one is asked: :func:`find_archived`.

A local archive directory that does not exist (no archiver has written there)
is no archive: nothing is found, and nothing is created by looking.

**Failing closed.** That answer is right only where no archiver runs. A shard
whose archiver is registered in Redis (its ``<prefix>:{<shard>}:archive``
hash exists: :func:`registered_archives`) has had entries archived and, past
``SHOWDOWN_ARCHIVE_KEEP``, trimmed from Redis: an archive the asker cannot
read there (``SHOWDOWN_ARCHIVE_URL`` unset in that shell, a directory that
does not exist or lacks the newest file the archiver recorded, an object
store that refuses) is not "nothing found" but :class:`ArchiveUnreadable`,
naming the setting. A requeue takes that as a refusal, never as "not settled".
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from showdown_core.errors import ShowdownError
from showdown_service.infra.config import Settings, ShardKeys

if TYPE_CHECKING:
    from showdown_service.storage.recall import HandFound

ARCHIVE_SETTING = "SHOWDOWN_ARCHIVE_URL"
"""The setting that points a shell at the archive (with ``SHOWDOWN_ARCHIVE_S3_*`` for an object store)."""


class ArchiveUnreadable(ShowdownError):
    """A shard has a registered archiver, but its archive cannot be read from here: nothing may be concluded."""


def archive_exists(url: str) -> bool:
    """Whether ``url`` may hold an archive: any object store; a local directory only once it exists."""
    if url.startswith("s3://"):
        return True
    return os.path.isdir(_local_root(url))


def _local_root(url: str) -> str:
    return os.path.abspath(url.removeprefix("file://") or ".")


def registered_archives(client: Any, keys: Sequence[ShardKeys]) -> dict[str, str]:
    """Each of ``keys``' shards whose archiver is registered in Redis (its archive hash exists) -> the newest file
    that archiver recorded (``""`` before its first). One round trip."""
    pipe = client.pipeline(transaction=False)
    for k in keys:
        pipe.exists(k.archive)
        pipe.hget(k.archive, "file")
    replies = pipe.execute()
    found: dict[str, str] = {}
    for k, exists, file in zip(keys, replies[::2], replies[1::2], strict=True):
        if exists:
            found[k.shard] = file.decode() if isinstance(file, bytes) else str(file or "")
    return found


def _unreadable(settings: Settings, registered: Mapping[str, str], why: str) -> ArchiveUnreadable:
    url = settings.archive_url
    where = url if url.startswith("s3://") else f"{url} ({_local_root(url)})"
    shards = ", ".join(f"{shard!r}" for shard in sorted(registered))
    return ArchiveUnreadable(
        f"shard(s) {shards} have a registered archiver (their archive hash is in Redis: entries past "
        f"SHOWDOWN_ARCHIVE_KEEP are only in the archive), but the archive at {ARCHIVE_SETTING}={where} cannot be "
        f"read here: {why}; set {ARCHIVE_SETTING} (and its SHOWDOWN_ARCHIVE_S3_* settings) to the archiver's archive"
    )


def _check_readable(settings: Settings, registered: Mapping[str, str]) -> None:
    """Raise :class:`ArchiveUnreadable` unless the archive exists here and holds each registered shard's newest
    file (the archiver's own record of it)."""
    url = settings.archive_url
    if not archive_exists(url):
        raise _unreadable(settings, registered, "no such directory")
    named = {shard: file for shard, file in registered.items() if file}
    if not named:
        return
    from showdown_service.storage.layout import open_store  # noqa: PLC0415 - pyarrow on first use

    try:
        store = open_store(url, settings)
        infos = store.fs.get_file_info([store.path(file) for file in named.values()])
    except Exception as exc:
        raise _unreadable(settings, registered, f"{type(exc).__name__}: {exc}") from exc
    missing = [f"{shard!r}'s {file}" for (shard, file), info in zip(named.items(), infos, strict=True)
               if not info.is_file]  # fmt: skip
    if missing:
        raise _unreadable(settings, registered, f"it holds no {', '.join(missing)} (the newest file recorded)")


def find_archived(settings: Settings, hand_id: str, *, registered: Mapping[str, str] | None = None) -> HandFound | None:
    """The archived entry of ``hand_id`` (the one that settled it, else the newest) in ``SHOWDOWN_ARCHIVE_URL``.

    ``registered``: the shards asked about whose archiver is registered (:func:`registered_archives`); with
    any, an archive that cannot be read (missing, without their newest file, or failing to read) raises
    :class:`ArchiveUnreadable` instead of finding nothing. The files are filtered by the process's filters of
    their hand ids (:mod:`.idfilter`): a hand no file holds is answered without reading one."""
    if registered:
        _check_readable(settings, registered)
    elif not archive_exists(settings.archive_url):
        return None
    from showdown_service.storage.idfilter import FILTERS  # noqa: PLC0415 - numpy on first use
    from showdown_service.storage.recall import find_hand  # noqa: PLC0415 - pyarrow and DuckDB on first use

    if not registered:
        return find_hand(settings.archive_url, hand_id, settings=settings, filters=FILTERS)
    try:
        return find_hand(settings.archive_url, hand_id, settings=settings, filters=FILTERS)
    except Exception as exc:
        raise _unreadable(settings, registered, f"{type(exc).__name__}: {exc}") from exc
