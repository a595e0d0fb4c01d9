"""Proofs from the archive's Merkle log: where a hand's entry sits, the signed tree heads, the proofs themselves.

Read-only over the archive (:mod:`.tlog` keeps the trees and heads, :mod:`.merkle` computes): used by
``showdown proof`` (:mod:`.proof_cli`) and the read API's proof and checkpoint routes. A proof is computed from
the chain's tiles at the head's size (:mod:`.tiles`: O(log n) reads, never the leaves; the files' leaves only
for an archive kept before tiles) and checked against the signed root before it is handed out: the tiles and
the signed head must agree, else :class:`~.layout.ArchiveError` says they do not.
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from showdown_service.archive import tlog
from showdown_service.archive.merkle import MerkleTree, ProofError, StoredTree
from showdown_service.archive.note import Checkpoint, NoteError, consistency_document, inclusion_document
from showdown_service.archive.tiles import TileMissing
from showdown_service.infra.config import Settings
from showdown_service.storage.layout import (
    ArchiveError,
    Store,
    checkpoint_path,
    epoch_runs,
    newest_file,
    open_store,
    read_rows,
)
from showdown_service.storage.lookup import archive_exists


class NoHead(ProofError):
    """No signed tree head of that chain (of that size): nothing to prove against."""


@dataclass(frozen=True, slots=True)
class Leaf:
    """An archived entry in its shard's log: its chain (``epoch``, 16 hex digits), ``seq`` and audit text."""

    shard: str
    epoch: str
    seq: int
    audit: str
    file: str

    @property
    def index(self) -> int:
        """Its leaf index: seq 1 is leaf 0."""
        return self.seq - 1


def locate(store: Store, shard: str, seq: int, entry_id: str) -> Leaf | None:
    """The archived entry ``entry_id`` at ``seq`` of ``shard``, in whichever chain's file holds it (None if none)."""
    for epoch, runs in epoch_runs(store, shard).items():
        for run in runs:
            if not run.first_seq <= seq <= run.last_seq:
                continue
            table = read_rows(store, run.path, columns=["seq", "entry_id", "audit"])
            for number, entry, audit in zip(
                table["seq"].to_pylist(), table["entry_id"].to_pylist(), table["audit"].to_pylist(), strict=True
            ):
                if number == seq and entry == entry_id and isinstance(audit, str):
                    return Leaf(shard, epoch, seq, audit, run.path)
    return None


def head_body(note: str) -> Checkpoint:
    """The checkpoint a signed tree head carries (its signatures are the verifier's to check)."""
    cut = note.rfind("\n\n")
    if cut < 0:
        raise ArchiveError("a signed tree head is a note: its text, a blank line, its signatures")
    try:
        return Checkpoint.parse(note[: cut + 1])
    except NoteError as exc:
        raise ArchiveError(f"a signed tree head that is no checkpoint: {exc}") from exc


def head_sizes(store: Store, shard: str, epoch: str) -> list[int]:
    """The sizes of ``shard``'s chain ``epoch`` that have a signed tree head, ascending."""
    return tlog.sizes(store, tlog.CHECKPOINT_DIR, shard, epoch, "note")


def newest_epoch(store: Store, shard: str) -> str:
    """The chain of ``shard`` written last (16 hex digits; "" for none or a chain named before epochs)."""
    meta = newest_file(store, shard)
    return meta.epoch[:16] if meta is not None else ""


def head(store: Store, shard: str, epoch: str, size: int | None = None) -> str:
    """The signed tree head of ``size`` (the newest without), raising :class:`NoHead` when there is none."""
    sizes = head_sizes(store, shard, epoch)
    wanted = sizes[-1] if size is None and sizes else size
    note = None if wanted is None else tlog.read_head(store, shard, epoch, wanted)
    if note is None:
        what = "any size" if size is None else f"size {size}"
        raise NoHead(f"shard {shard} epoch {epoch or '(none)'} has no signed tree head of {what}")
    return note


def _tree(store: Store, shard: str, epoch: str, size: int, note: str) -> StoredTree:
    """The tree of the first ``size`` leaves, read from its tiles (O(log n) of them, never the leaves) and checked
    against the signed head; rebuilt from the files' leaves only where its tiles are not kept."""
    try:
        tree = tlog.tiled(store, shard, epoch, size).tree()
        root = tree.root()
    except TileMissing:
        built = MerkleTree.build(list(tlog.leaves(store, shard, epoch, 0, size)))
        tree, root = StoredTree(built.size, built.stored), built.root()
    signed = head_body(note)
    if signed.size != size or root != signed.root:
        raise ArchiveError(
            f"shard {shard} epoch {epoch}: the archive's files give another root at size {size} than its signed "
            "tree head: the files or the head were changed (run showdown audit replay)"
        )
    return tree


def inclusion(store: Store, leaf: Leaf, size: int | None = None) -> dict[str, object]:
    """The inclusion proof of ``leaf`` in its chain's newest signed tree (or the one of ``size``)."""
    note = head(store, leaf.shard, leaf.epoch, size)
    signed = head_body(note).size
    if leaf.seq > signed:
        raise ProofError(f"seq {leaf.seq} is not yet in a signed tree head (the newest is of size {signed})")
    proof = _tree(store, leaf.shard, leaf.epoch, signed, note).inclusion_proof(leaf.index, signed)
    return {
        "shard": leaf.shard,
        "epoch": leaf.epoch,
        "seq": leaf.seq,
        "file": leaf.file,
        **inclusion_document(leaf.audit, proof, note),
    }


def consistency(store: Store, shard: str, epoch: str, size1: int, size2: int) -> dict[str, object]:
    """The consistency proof between the signed tree heads of ``size1`` and ``size2`` of one chain."""
    if size1 > size2:
        raise ProofError(f"size1 ({size1}) is at most size2 ({size2})")
    note1, note2 = head(store, shard, epoch, size1), head(store, shard, epoch, size2)
    tree = _tree(store, shard, epoch, size2, note2)
    if tree.root(size1) != head_body(note1).root:
        raise ArchiveError(f"shard {shard} epoch {epoch}: the signed tree head of size {size1} is not the files' tree")
    proof = tree.consistency_proof(size1, size2)
    return {"shard": shard, "epoch": epoch, **consistency_document(proof, note1, note2)}


def tree_for(store: Store, shard: str, epoch: str, size: int) -> StoredTree:
    """The tree of ``shard``'s chain ``epoch`` as far as ``size`` (at least): read from the tiles of the smallest
    size kept at or past it (O(log n) tiles); from the files' leaves when no tiles are kept (:class:`~.tlog.LogGap`
    naming where their run breaks, or how far it goes)."""
    for kept in (s for s in tlog.sizes(store, tlog.TREE_DIR, shard, epoch, "json") if s >= size):
        tree = tlog.tiled(store, shard, epoch, kept).tree()
        try:
            tree.root(size)
        except TileMissing:
            break
        return tree
    built = MerkleTree.build(list(tlog.leaves(store, shard, epoch, 0, size)))
    return StoredTree(built.size, built.stored)


def signed_pair(
    store: Store, shard: str, epoch: str, first: tuple[int, bytes], second: tuple[int, bytes]
) -> dict[str, str]:
    """The signed tree heads of two ``(size, root)`` of a chain, as ``checkpoint1`` and ``checkpoint2``: both,
    when both sizes have one (an unsigned archive, or a size between files: none). A head whose root is not the
    one given raises :class:`ArchiveError`."""
    notes = {}
    for name, (size, root) in (("checkpoint1", first), ("checkpoint2", second)):
        note = tlog.read_head(store, shard, epoch, size) if size else None
        if note is None:
            return {}
        if head_body(note).root != root:
            raise ArchiveError(f"shard {shard} epoch {epoch}: the signed tree head of size {size} is not the tree "
                               "its tiles and files give: the files or the head were changed (run showdown audit "
                               "replay)")  # fmt: skip
        notes[name] = note
    return notes


def across(store: Store, shard: str, epoch1: str, epoch2: str, *, size1: int, size2: int) -> dict[str, object]:
    """How the signed head of ``size1`` of chain ``epoch1`` relates to the one of ``size2`` of the chain after it,
    ``epoch2`` (a new chain from seq 1: no tree of one is a prefix of the other's): the consistency proof from
    ``size1`` to the old chain's last archived tree, the room's signed boundary naming that tree and the new
    chain (:func:`~.tlog.boundary_text`), and the new chain's head of ``size2``."""
    boundary = tlog.read_boundary(store, shard, epoch2)
    if boundary is None:
        raise NoHead(f"shard {shard} has no signed epoch boundary into epoch {epoch2[:16]}")
    cut = boundary.rfind("\n\n")
    ended, following = tlog.parse_boundary(boundary[: cut + 1] if cut >= 0 else boundary)
    if not ended.origin.endswith(f"/{epoch1[:16]}"):
        raise ProofError(f"epoch {epoch2[:16]} of shard {shard} follows {ended.origin}, not epoch {epoch1[:16]}")
    if size1 > ended.size:
        raise ProofError(f"epoch {epoch1[:16]} ended at size {ended.size}: no head of size {size1} in it")
    before = consistency(store, shard, epoch1, size1, ended.size)
    note2 = head(store, shard, epoch2, size2)
    if head_body(note2).origin != following or head_body(str(before["checkpoint2"])).root != ended.root:
        raise ArchiveError(f"shard {shard}: the epoch boundary into {epoch2[:16]} names other trees than its heads")
    return {"shard": shard, "epoch1": epoch1[:16], "epoch2": epoch2[:16], "size1": size1, "size2": size2,
            "consistency": before, "boundary": boundary, "checkpoint2": note2}  # fmt: skip


def place_in_log(settings: Settings, shard: str, seq: int | None, entry_id: str) -> tuple[str, bool]:
    """Where an entry sits in its shard's Merkle log, in words (``showdown hand``'s and the hand page's line:
    "leaf 41,207 of shard default's log, epoch ..., in the signed tree head of size 1,000,000 of
    2026-11-28T10:00Z"), and whether a signed tree head holds it (so that a proof can be asked for)."""
    if seq is None or not settings.archive_url or not archive_exists(settings.archive_url):
        return "(not archived yet)", False
    try:
        store = open_store(settings.archive_url, settings)
        leaf = locate(store, shard, seq, entry_id)
        if leaf is None:
            return "(not archived yet)", False
        sizes = head_sizes(store, leaf.shard, leaf.epoch)
    except (ArchiveError, OSError) as exc:
        return f"(the archive cannot say: {exc})", False
    where = f"leaf {leaf.index:,} of shard {leaf.shard}'s log, epoch {leaf.epoch}"
    if not sizes or sizes[-1] < leaf.seq:
        return f"{where}; not yet in a signed tree head", False
    when = _signed_at(store, leaf.shard, leaf.epoch, sizes[-1])
    return f"{where}, in the signed tree head of size {sizes[-1]:,}{when}", True


def _signed_at(store: Store, shard: str, epoch: str, size: int) -> str:
    """`` of 2026-11-28T10:00Z``: when the file's checkpoint that carries the head of ``size`` was signed (to the
    minute); "" when it says nothing readable."""
    try:
        with store.fs.open_input_stream(store.path(*checkpoint_path(shard, size, epoch))) as handle:
            signed_at = orjson.loads(bytes(handle.read())).get("signed_at")
    except (OSError, orjson.JSONDecodeError, AttributeError):
        return ""
    return f" of {signed_at[:16]}Z" if isinstance(signed_at, str) and len(signed_at) >= 16 else ""
