"""``audit replay``'s check of the Merkle log (:mod:`.tlog`): every root recomputed, every signed tree head
checked, a fork reported.

For each shard and chain, the tree is rebuilt from the files' audit texts in one pass (:func:`.merkle.roots_at`)
and each signed tree head found (under ``checkpoints/`` in the archive, and as ``tree_head`` in the
checkpoints copy) is checked:

- ``tree_head_unreadable``: not a signed checkpoint note, or one of another log (origin) than its place says;
- ``tree_head_signature``: with the room's key (``--public-key`` and ``SHOWDOWN_ARCHIVE_LOG_NAME``), a head
  without its valid signature;
- ``fork``: two heads of one log and one size with different roots: the room signed two histories;
- ``tree_head_root``: a head whose root is not the files' tree at its size (a rewritten file, or a head not
  consistent with those that are the files' tree), or whose size the files do not reach;
- ``tree_state``: a kept compact range (``tree/``) that is not the files' tree at its size;
- ``epoch_boundary``: a signed epoch boundary (``<epoch16>-boundary.note``, :func:`.tlog.boundary_text`) that is
  unreadable, without the room's valid signature (with its key), or whose ended chain's root is not the files'
  tree at its size, or that names a chain the archive does not hold;
- ``tree_head_timestamp``: with the timestamp authority's CA (``SHOWDOWN_ARCHIVE_TSA_CA``), a head's RFC 3161
  timestamp (``.tsr`` beside it, :mod:`.timestamps`) that does not verify for that head's bytes, or one kept
  without its head.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pyarrow.fs as pafs

from showdown_service.archive import timestamps, tlog
from showdown_service.archive.chains import Difference, Sink
from showdown_service.archive.checkpoints import read_checkpoints
from showdown_service.archive.merkle import CompactRange, roots_at
from showdown_service.archive.note import Checkpoint, NoteError, Verifier, open_checkpoint, open_note
from showdown_service.storage.layout import ArchiveError, Store, epoch_runs, shards


def copied_heads(path: Path | None) -> list[tuple[str, str]]:
    """``(where, note)`` of every ``tree_head`` in a checkpoints copy (none without one)."""
    if path is None:
        return []
    return [
        (f"{path}:{number}", str(checkpoint["tree_head"]))
        for number, checkpoint, _ in read_checkpoints(path)
        if checkpoint is not None and isinstance(checkpoint.get("tree_head"), str)
    ]


def _archived_heads(store: Store, shard: str) -> list[tuple[str, str]]:
    selector = pafs.FileSelector(store.path(tlog.CHECKPOINT_DIR, shard), allow_not_found=True)
    found = []
    for info in sorted(store.fs.get_file_info(selector), key=lambda i: i.path):
        if info.type == pafs.FileType.File and tlog.SIZED.match(info.base_name) and info.base_name.endswith(".note"):
            with store.fs.open_input_stream(info.path) as handle:
                found.append((info.path, bytes(handle.read()).decode("utf-8", errors="replace")))
    return found


def _body(note: str, verifier: Verifier | None) -> Checkpoint:
    """The note's checkpoint: verified with ``verifier`` when given (raises :class:`NoteError` when it fails)."""
    if verifier is not None:
        return open_checkpoint(note, [verifier])[0]
    cut = note.rfind("\n\n")
    if cut < 0:
        raise NoteError("no blank line between the text and the signatures")
    return Checkpoint.parse(note[: cut + 1])


def check_log(
    store: Store,
    room: str,
    report: Sink,
    *,
    verifier: Verifier | None = None,
    copied: Iterable[tuple[str, str]] = (),
    tsa_ca: Path | None = None,
    names: list[str] | None = None,
) -> int:
    """Check every signed tree head and kept tree of the archive (of its shards ``names``, when given) against its
    files (and, with ``tsa_ca``, every head's timestamp); returns the heads checked."""
    copies = list(copied)
    checked = 0
    for shard in shards(store) if names is None else names:
        if tsa_ca is not None:
            _check_timestamps(store, shard, tsa_ca, report)
        _check_boundaries(store, shard, room, verifier, report)
        logs = {tlog.origin(room, shard, epoch): epoch for epoch in epoch_runs(store, shard)}
        heads: dict[tuple[str, int], tuple[bytes, str]] = {}
        every: list[tuple[Checkpoint, str]] = []
        for where, note in [*_archived_heads(store, shard), *copies]:
            try:
                body = _body(note, verifier)
            except NoteError as exc:
                kind = "tree_head_signature" if "signature" in str(exc) else "tree_head_unreadable"
                if where.startswith(store.path(tlog.CHECKPOINT_DIR)) or _shard_of(note, room) == shard:
                    report(Difference(shard, kind, f"{where}: {exc}"))
                continue
            if body.origin not in logs:
                if where.startswith(store.path(tlog.CHECKPOINT_DIR, shard)):
                    report(Difference(shard, "tree_head_unreadable", f"{where}: the head of another log, "
                                      f"{body.origin}, not one of shard {shard}'s chains"))  # fmt: skip
                continue
            checked += 1
            every.append((body, where))
            seen = heads.setdefault((body.origin, body.size), (body.root, where))
            if seen[0] != body.root:
                report(Difference(shard, "fork", f"{body.origin}: two signed heads of size {body.size} with "
                                  f"different roots: {seen[1]} and {where}", seq=body.size))  # fmt: skip
        for origin, epoch in logs.items():
            signed = [(body, where) for body, where in every if body.origin == origin]
            sizes = sorted({body.size for body, _ in signed})
            kept = tlog.sizes(store, tlog.TREE_DIR, shard, epoch, "json")
            if not sizes and not kept:
                continue
            wanted = sorted({*sizes, *kept})
            roots, broken = _roots(store, shard, epoch, wanted)
            for body, where in signed:
                size, root = body.size, body.root
                if size not in roots and not broken:
                    report(Difference(shard, "tree_head_root", f"{where}: a head of size {size}, past the files' "
                                      f"{max(roots, default=0)} leaves of {origin}", seq=size))  # fmt: skip
                elif size in roots and roots[size] != root:
                    report(Difference(shard, "tree_head_root", f"{where}: its root is not the files' tree at size "
                                      f"{size}: a rewritten file, or a head not consistent with the others",
                                      seq=size))  # fmt: skip
            for size in kept:
                if broken and size not in roots:
                    continue
                _check_kept(store, shard, epoch, size, root=roots.get(size), report=report)
    return checked


def _shard_of(note: str, room: str) -> str:
    """The shard an (unverified) head's origin names, "" when it names none."""
    first = note.split("\n", 1)[0]
    return first.removeprefix(f"{room}/").split("/", 1)[0] if first.startswith(f"{room}/") else ""


def _roots(store: Store, shard: str, epoch: str, sizes: list[int]) -> tuple[dict[int, bytes], bool]:
    """The files' tree root at each of ``sizes`` it reaches (one pass over the leaves), and whether the files
    broke off before the largest (a file unreadable or missing: the walk of the files reports it)."""
    leaves: list[bytes] = []
    broken = False
    try:
        leaves.extend(tlog.leaves(store, shard, epoch, 0, max(sizes)))  # what was read before a failure is kept
    except tlog.LogShort:
        pass  # the run ends cleanly before a size: a head past it is reported
    except ArchiveError:
        broken = True
    return roots_at(leaves, [s for s in sizes if s <= len(leaves)]), broken


def _check_kept(store: Store, shard: str, epoch: str, size: int, *, root: bytes | None, report: Sink) -> None:
    path = tlog.tree_path(store, shard, epoch, size)
    try:
        tree: CompactRange | None = tlog.load_tree(store, shard, epoch, size)
    except ArchiveError as exc:
        report(Difference(shard, "tree_state", str(exc), seq=size))
        return
    if tree is None or root is None or tree.root() != root:
        report(Difference(shard, "tree_state", f"{path}: not the files' tree at size {size}", seq=size))


def _check_timestamps(store: Store, shard: str, ca: Path, report: Sink) -> None:
    """Every ``.tsr`` under ``checkpoints/<shard>/``: a token of the head beside it, from a TSA ``ca`` certifies."""
    selector = pafs.FileSelector(store.path(tlog.CHECKPOINT_DIR, shard), allow_not_found=True)
    for info in sorted(store.fs.get_file_info(selector), key=lambda i: i.path):
        match = tlog.SIZED_TSR.match(info.base_name)
        if info.type != pafs.FileType.File or match is None:
            continue
        size = int(match["size"])
        note = tlog.read_head(store, shard, match["epoch"] or "", size)
        with store.fs.open_input_stream(info.path) as handle:
            token = bytes(handle.read())
        if note is None:
            report(Difference(shard, "tree_head_timestamp", f"{info.path}: a timestamp without its signed head",
                              seq=size))  # fmt: skip
            continue
        try:
            timestamps.verify(note.encode("utf-8"), token, ca)
        except timestamps.TimestampError as exc:
            report(Difference(shard, "tree_head_timestamp", f"{info.path}: {exc}", seq=size))


def _check_boundaries(store: Store, shard: str, room: str, verifier: Verifier | None, report: Sink) -> None:
    """Every signed epoch boundary of ``shard``: readable, signed (with the key), naming chains the archive holds,
    the ended one's root the files' tree at its size (recomputed from its leaves)."""
    chains = epoch_runs(store, shard)
    for epoch in chains:
        note = tlog.read_boundary(store, shard, epoch)
        if note is None:
            continue
        where = tlog.boundary_path(store, shard, epoch)
        try:
            text = open_note(note, [verifier]).text if verifier is not None else note[: note.rfind("\n\n") + 1]
            ended, following = tlog.parse_boundary(text)
        except (NoteError, ArchiveError) as exc:
            report(Difference(shard, "epoch_boundary", f"{where}: {exc}"))
            continue
        old = ended.origin.rsplit("/", 1)[-1]
        if following != tlog.origin(room, shard, epoch) or ended.origin != tlog.origin(room, shard, old):
            report(Difference(shard, "epoch_boundary", f"{where}: names {ended.origin} and {following}, not chains "
                              f"of shard {shard} into epoch {epoch}"))  # fmt: skip
            continue
        roots, _ = _roots(store, shard, old, [ended.size]) if old in chains else ({}, True)
        if roots.get(ended.size) != ended.root:
            report(Difference(shard, "epoch_boundary", f"{where}: the ended chain {ended.origin} is not the files' "
                              f"tree at size {ended.size}", seq=ended.size))  # fmt: skip
