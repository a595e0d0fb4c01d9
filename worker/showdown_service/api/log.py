"""The read API's Merkle-log answers: a shard's signed tree heads, a hand's inclusion proof, a consistency proof.

Read from the archive (``SHOWDOWN_ARCHIVE_URL``) through :mod:`showdown_service.archive.proofs`, as ``showdown
proof`` reads it; every answer is what ``scripts/verify_proof.py`` checks. The refusals:

- ``unknown_shard`` (404): a shard that is not one of ``SHOWDOWN_SHARDS`` (nothing else is looked up);
- ``no_tree_head`` (404): no signed tree head of that shard (or of that size);
- ``hand_not_archived`` (404): the hand is not in the archive (yet);
- ``not_yet_signed`` (404): the hand is archived, but after the newest signed head (or the one asked);
- ``archive_unavailable`` (503): no archive here, or its files and its signed head disagree (the message says).

The answers name no file of the server (its paths stay its own).
"""

from __future__ import annotations

from typing import Any

from showdown_service.api.auth import Refused
from showdown_service.archive import proofs
from showdown_service.archive.merkle import ProofError
from showdown_service.infra.config import Settings
from showdown_service.read.hands import in_archive
from showdown_service.storage.errors import ArchiveError
from showdown_service.storage.layout import Store, open_store
from showdown_service.storage.lookup import archive_exists


def _store(settings: Settings, shard: str | None = None) -> Store:
    if shard is not None and shard not in settings.shards:
        raise Refused(404, "unknown_shard", f"shard {shard!r} is not one of SHOWDOWN_SHARDS")
    if not settings.archive_url or not archive_exists(settings.archive_url):
        raise Refused(503, "archive_unavailable", "no archive here: SHOWDOWN_ARCHIVE_URL names none")
    return open_store(settings.archive_url, settings)


def _refused(exc: Exception) -> Refused:
    if isinstance(exc, proofs.NoHead):
        return Refused(404, "no_tree_head", str(exc))
    if isinstance(exc, ProofError):
        return Refused(404, "not_yet_signed", str(exc))
    return Refused(503, "archive_unavailable", str(exc))


def tree_head(settings: Settings, shard: str, size: int | None, epoch: str | None) -> dict[str, Any]:
    """The signed tree head of ``shard``'s newest chain (or ``epoch``'s), the newest (or of ``size``)."""
    store = _store(settings, shard)
    try:
        chain = epoch if epoch is not None else proofs.newest_epoch(store, shard)
        note = proofs.head(store, shard, chain, size)
        body = proofs.head_body(note)
    except (ArchiveError, ProofError) as exc:
        raise _refused(exc) from exc
    return {"shard": shard, "epoch": chain, "size": body.size, "checkpoint": note}


def hand_proof(settings: Settings, hand_id: str, size: int | None) -> dict[str, Any]:
    """The inclusion proof of the archived entry that settled ``hand_id`` (``showdown proof HAND_ID --json``)."""
    store = _store(settings)
    try:
        found = in_archive(settings, hand_id, url=settings.archive_url)
        leaf = None
        if found is not None and found.seq is not None:
            leaf = proofs.locate(store, found.shard, found.seq, found.entry_id)
        if leaf is None:
            raise Refused(404, "hand_not_archived", f"hand {hand_id} is not in the archive (yet)")
        document = proofs.inclusion(store, leaf, size)
    except (ArchiveError, ProofError) as exc:
        raise _refused(exc) from exc
    document.pop("file", None)
    return {"hand_id": hand_id, **document}


def consistency(settings: Settings, shard: str, size1: int, size2: int, epoch: str | None) -> dict[str, Any]:
    """The consistency proof between the signed heads of ``size1`` and ``size2`` of one chain."""
    if size1 > size2:
        raise Refused(400, "bad_query", f"size1 ({size1}) is at most size2 ({size2})")
    store = _store(settings, shard)
    try:
        chain = epoch if epoch is not None else proofs.newest_epoch(store, shard)
        return proofs.consistency(store, shard, chain, size1, size2)
    except (ArchiveError, ProofError) as exc:
        raise _refused(exc) from exc
