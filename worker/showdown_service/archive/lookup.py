"""A hand asked of the archive by the shell's other parts (the read API, a requeue), without loading pyarrow and
DuckDB until one is asked: :func:`find_archived`.

A local archive directory that does not exist (no archiver has written there)
is no archive: nothing is found, and nothing is created by looking.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from showdown_service.config import Settings

if TYPE_CHECKING:
    from showdown_service.archive.recall import HandFound


def archive_exists(url: str) -> bool:
    """Whether ``url`` may hold an archive: any object store; a local directory only once it exists."""
    if url.startswith("s3://"):
        return True
    return os.path.isdir(os.path.abspath(url.removeprefix("file://") or "."))


def find_archived(settings: Settings, hand_id: str) -> HandFound | None:
    """The archived entry of ``hand_id`` (the one that settled it, else the newest) in ``SHOWDOWN_ARCHIVE_URL``."""
    if not archive_exists(settings.archive_url):
        return None
    from showdown_service.archive.recall import find_hand  # noqa: PLC0415 - pyarrow and DuckDB on first use

    return find_hand(settings.archive_url, hand_id, settings=settings)
