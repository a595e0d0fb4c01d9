"""The archive's Merkle log on disk: each chain's tree kept beside the files, and its signed tree heads.

Per shard and chain epoch the leaves are the archived entries' audit texts in seq order (seq 1 is leaf 0,
:mod:`.merkle`). After each file the archiver (:mod:`.archiver`) writes, write-once as the files are:

- the tree's compact range at the file's last seq: ``tree/<shard>/<epoch16>-<size>.json``
  (``{"size", "hashes"}``, :class:`~.merkle.CompactRange`): the next file extends it (O(log n) a leaf), never
  recomputed from every leaf; and :func:`tree_at` rebuilds it from the files alone, from the newest one kept
  at or below the size asked (none: from leaf 0);
- with a signing key, its signed tree head: a c2sp.org/tlog-checkpoint body (origin ``<room>/<shard>/<epoch16>``,
  the size, the base64 root) signed as a c2sp.org/signed-note with Ed25519 under the room's key name
  (:func:`signer`), at ``checkpoints/<shard>/<epoch16>-<size>.note``; the file's JSON checkpoint carries it as
  ``tree_head``, so the independent copy holds it too;
- before either, the tree's stored hashes as tiles (:mod:`.tiles`, c2sp.org/tlog-tiles):
  ``tiles/<shard>/<epoch16>/tile/8/<L>/<N>[.p/<W>]``, grown from the partial tiles of the size before (never
  the leaves before); a proof reads O(log n) of them (:func:`tiled`). Tiles not kept (an archive written before
  them, a failure between a file and its tiles) are made again from the files once (:func:`keep_tiles`).

Ed25519 signs deterministically and the head holds nothing but origin, size and root: a head written again
after a SIGKILL is the same bytes.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator

import orjson
import pyarrow.fs as pafs
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from showdown_service.archive import tiles
from showdown_service.archive.merkle import CompactRange, leaf_hash, record_leaf
from showdown_service.archive.note import Checkpoint, Signer, Verifier, sign
from showdown_service.storage.layout import ArchiveError, NameTaken, Store, epoch_runs, put_file, read_rows

TREE_DIR = "tree"
CHECKPOINT_DIR = "checkpoints"
TILES_DIR = "tiles"


class LogGap(ArchiveError):
    """The archive's files do not hold a chain's whole run from seq 1 (a file missing, a row out of place): no
    tree can be built from them."""


class LogShort(LogGap):
    """The files hold a chain's run from seq 1, whole, but it ends before the size asked."""


SIZED = re.compile(r"^(?:(?P<epoch>[0-9a-f]{16})-)?(?P<size>\d{12})\.(?P<ext>json|note)$")
"""A kept tree's or a signed head's name (a SIGKILL mid-write may leave a ``.writing-*`` beside: never one)."""
SIZED_TSR = re.compile(r"^(?:(?P<epoch>[0-9a-f]{16})-)?(?P<size>\d{12})\.tsr$")
"""A signed head's RFC 3161 timestamp's name (:mod:`.timestamps`)."""


def origin(room: str, shard: str, epoch: str) -> str:
    """The log's origin line: the room, the shard and the chain's epoch (its first 16 hex digits)."""
    return f"{room}/{shard}/{epoch[:16]}" if epoch else f"{room}/{shard}"


def signer(room: str, key: Ed25519PrivateKey) -> Signer:
    """The archive's signing key under the room's name: the signed-note key that signs every tree head."""
    return Signer(room, key)


def verifier_key(room: str, key: Ed25519PrivateKey) -> str:
    """The verifier key of the room's tree heads, ``name+keyid+base64`` (c2sp.org/signed-note)."""
    return signer(room, key).verifier.encode()


def _name(epoch: str, size: int, ext: str) -> str:
    return f"{epoch[:16]}-{size:012d}.{ext}" if epoch else f"{size:012d}.{ext}"


def tree_path(store: Store, shard: str, epoch: str, size: int) -> str:
    return store.path(TREE_DIR, shard, _name(epoch, size, "json"))


def head_path(store: Store, shard: str, epoch: str, size: int) -> str:
    return store.path(CHECKPOINT_DIR, shard, _name(epoch, size, "note"))


def sizes(store: Store, directory: str, shard: str, epoch: str, ext: str) -> list[int]:
    """The sizes kept under ``directory/shard`` for ``epoch`` (files ending ``.ext``), ascending."""
    selector = pafs.FileSelector(store.path(directory, shard), allow_not_found=True)
    found = []
    for info in store.fs.get_file_info(selector):
        match = SIZED.match(info.base_name)
        if match and match["ext"] == ext and (match["epoch"] or "") == epoch[:16]:
            found.append(int(match["size"]))
    return sorted(found)


def _read(store: Store, path: str) -> bytes | None:
    try:
        with store.fs.open_input_stream(path) as handle:
            return bytes(handle.read())
    except FileNotFoundError:
        return None


def load_tree(store: Store, shard: str, epoch: str, size: int) -> CompactRange | None:
    """The compact range kept at ``size`` (None when none is)."""
    path = tree_path(store, shard, epoch, size)
    data = _read(store, path)
    if data is None:
        return None
    try:
        tree = CompactRange.from_json(orjson.loads(data))
    except (orjson.JSONDecodeError, ValueError) as exc:
        raise ArchiveError(f"{path}: not a compact range: {exc}") from exc
    if tree.size != size:
        raise ArchiveError(f"{path}: holds a tree of {tree.size} leaves, its name says {size}")
    return tree


def leaves(store: Store, shard: str, epoch: str, after: int, upto: int) -> Iterator[bytes]:
    """The leaf hashes of seq ``after+1 .. upto`` of ``shard``'s chain ``epoch``, read from its files in order.

    Raises :class:`LogGap` naming where the files' run breaks or that it ends before ``upto``.
    """
    seq = after
    for run in epoch_runs(store, shard).get(epoch[:16], []):
        if run.last_seq <= seq or seq >= upto:
            continue
        if run.first_seq > seq + 1:
            raise LogGap(f"archive file {run.path}: starts at seq {run.first_seq}, the log is at {seq}")
        table = read_rows(store, run.path, columns=["seq", "audit"])
        for number, audit in zip(table["seq"].to_pylist(), table["audit"].to_pylist(), strict=True):
            if number <= seq:
                continue
            if number != seq + 1 or not isinstance(audit, str):
                raise LogGap(f"archive file {run.path}: seq {number} where {seq + 1} comes next, with its audit")
            yield leaf_hash(record_leaf(audit))
            seq += 1
            if seq == upto:
                return
    if seq < upto:
        raise LogShort(f"the archive holds seq 1-{seq} of shard {shard} epoch {epoch[:16]}, not {upto}")


def tree_at(store: Store, shard: str, epoch: str, size: int) -> CompactRange:
    """The tree of the first ``size`` leaves: the newest compact range kept at or below ``size``, extended with
    the files' leaves after it (from leaf 0 when none is kept: rebuilt from the files alone)."""
    kept = [s for s in sizes(store, TREE_DIR, shard, epoch, "json") if s <= size]
    tree = (load_tree(store, shard, epoch, kept[-1]) if kept else None) or CompactRange()
    if tree.size < size:
        tree = tree.extend(leaves(store, shard, epoch, tree.size, size))
    return tree


def put_once(store: Store, path: str, data: bytes) -> bytes:
    """Write ``data`` at ``path`` once; a name already holding these bytes (written before a SIGKILL) is kept,
    one holding others refuses (:class:`NameTaken`). Returns what the name holds."""
    try:
        put_file(store, path, data)
    except NameTaken:
        held = _read(store, path)
        if held != data:
            raise
        return held
    return data


def keep_tree(store: Store, shard: str, epoch: str, tree: CompactRange) -> None:
    """Write the compact range at its size (write-once)."""
    put_once(store, tree_path(store, shard, epoch, tree.size), orjson.dumps(tree.to_json()) + b"\n")


def sign_head(room: str, shard: str, epoch: str, tree: CompactRange, *signers: Signer) -> str:
    """The signed tree head of ``tree``: its checkpoint body signed by each of ``signers`` (the room's first)."""
    return sign(Checkpoint(origin(room, shard, epoch), tree.size, tree.root()).body(), *signers)


def write_head(store: Store, shard: str, epoch: str, size: int, note: str) -> str:
    """Write a signed tree head under ``checkpoints/`` (write-once); returns it."""
    return put_once(store, head_path(store, shard, epoch, size), note.encode("utf-8")).decode("utf-8")


def read_head(store: Store, shard: str, epoch: str, size: int) -> str | None:
    data = _read(store, head_path(store, shard, epoch, size))
    return None if data is None else data.decode("utf-8", errors="replace")


def verifier_of(room: str, key: Ed25519PrivateKey) -> Verifier:
    return signer(room, key).verifier


def tile_path(store: Store, shard: str, epoch: str, tile: tiles.Tile) -> str:
    """Where a chain's tile is kept: under ``tiles/<shard>/<epoch16>/``, the log's prefix, at its tlog-tiles name."""
    return store.path(TILES_DIR, shard, *([epoch[:16]] if epoch else []), *tile.path().split("/"))


def tiled(store: Store, shard: str, epoch: str, size: int) -> tiles.TiledTree:
    """The tree of ``size`` leaves of ``shard``'s chain ``epoch``, read from its tiles as a proof needs them
    (:class:`~.tiles.TileMissing` when one is not kept)."""
    return tiles.TiledTree(
        size,
        lambda tile: _read(store, tile_path(store, shard, epoch, tile)),
        lambda level, index: _widths(store, tile_path(store, shard, epoch, tiles.Tile(level, index))),
    )


def _widths(store: Store, full: str) -> list[int]:
    """The widths of the partial tiles kept beside the full tile named ``full`` (``<N>.p/<W>``)."""
    selector = pafs.FileSelector(f"{full}.p", allow_not_found=True)
    return [int(info.base_name) for info in store.fs.get_file_info(selector) if info.base_name.isdigit()]


def _edge(store: Store, shard: str, epoch: str, size: int) -> dict[int, list[bytes]]:
    """The hashes of the partial tiles of the tree of ``size``, by level (TileMissing when one is not kept)."""
    found = {}
    for tile in tiles.edge(size):
        data = _read(store, tile_path(store, shard, epoch, tile))
        if data is None:
            raise tiles.TileMissing(f"{tile_path(store, shard, epoch, tile)}: not kept")
        found[tile.level] = tiles.split(data, tile)
    return found


REBUILD_CHUNK = 1 << 16
"""Leaves hashed into tiles at a time when tiles are made again from the files (whole tiles: a multiple of 256)."""


def keep_tiles(store: Store, shard: str, epoch: str, size: int, added: list[bytes]) -> None:
    """Write (write-once) the tiles of the tree of ``size`` leaves grown by the leaf hashes ``added``.

    The partial tiles of ``size`` are read back; when one is not kept, every tile up to ``size`` is made again
    from the files' leaves first (:func:`leaves`, in chunks: :class:`LogGap` if the files do not hold them).
    """
    try:
        edge = _edge(store, shard, epoch, size)
    except tiles.TileMissing:
        edge, made = {}, 0
        for batch in _chunks(store, shard, epoch, size):
            edge = _write_tiles(store, shard, epoch, made, edge=edge, added=batch)
            made += len(batch)
    _write_tiles(store, shard, epoch, size, edge=edge, added=added)


def _chunks(store: Store, shard: str, epoch: str, size: int) -> Iterator[list[bytes]]:
    batch: list[bytes] = []
    for given in leaves(store, shard, epoch, 0, size):
        batch.append(given)
        if len(batch) == REBUILD_CHUNK:
            yield batch
            batch = []
    if batch:
        yield batch


def _write_tiles(
    store: Store, shard: str, epoch: str, size: int, *, edge: dict[int, list[bytes]], added: list[bytes]
) -> dict[int, list[bytes]]:
    """Write the tiles ``added`` makes of the tree of ``size`` (lowest level first: a tree's top tile is written
    last, so a kept top tile says every tile below it is); returns the partial tiles' hashes after."""
    after = dict(edge)
    for tile, data in tiles.grow(size, edge, added):
        put_once(store, tile_path(store, shard, epoch, tile), data)
        if tile.width < tiles.WIDTH:
            after[tile.level] = tiles.split(data, tile)
        else:
            after.pop(tile.level, None)
    return after


def timestamp_path(store: Store, shard: str, epoch: str, size: int) -> str:
    """Where a signed tree head's RFC 3161 timestamp is kept: beside it, ``.tsr`` (:mod:`.timestamps`)."""
    return store.path(CHECKPOINT_DIR, shard, _name(epoch, size, "tsr"))


def read_timestamp(store: Store, shard: str, epoch: str, size: int) -> bytes | None:
    return _read(store, timestamp_path(store, shard, epoch, size))


def keep_timestamp(store: Store, shard: str, epoch: str, size: int, response: bytes) -> None:
    """Keep a head's timestamp response (write-once; one already kept is the one: never asked twice)."""
    put_file(store, timestamp_path(store, shard, epoch, size), response)


BOUNDARY = "epoch boundary"


def boundary_path(store: Store, shard: str, epoch: str) -> str:
    """Where the signed boundary into chain ``epoch`` is kept: ``checkpoints/<shard>/<epoch16>-boundary.note``."""
    return store.path(CHECKPOINT_DIR, shard, f"{epoch[:16]}-boundary.note")


def boundary_text(room: str, shard: str, ended: Checkpoint, epoch: str) -> str:
    """The text of the room's statement that the shard's chain ``ended`` (its origin, size and root: the last tree
    the archive holds of it) was followed by the chain ``epoch`` (a new chain from seq 1, after Redis lost the
    old one's tail): a signed note, c2sp.org/signed-note, that a verifier checks against both chains' heads."""
    lines = [f"{room}/{shard} {BOUNDARY}", ended.origin, str(ended.size), base64.b64encode(ended.root).decode(),
             origin(room, shard, epoch)]  # fmt: skip
    return "".join(f"{line}\n" for line in lines)


def parse_boundary(text: str) -> tuple[Checkpoint, str]:
    """The ended chain's tree head and the origin of the chain after it, from a boundary's text."""
    lines = text.split("\n")
    if len(lines) != 6 or lines[5] != "" or not lines[0].endswith(f" {BOUNDARY}"):
        raise ArchiveError("an epoch boundary is five lines: the log and 'epoch boundary', the ended chain's origin, "
                           "size and root, the next chain's origin")  # fmt: skip
    try:
        ended = Checkpoint.parse("".join(f"{line}\n" for line in lines[1:4]))
    except ValueError as exc:
        raise ArchiveError(f"an epoch boundary whose ended chain is no tree head: {exc}") from exc
    return ended, lines[4]


def write_boundary(store: Store, shard: str, epoch: str, note: str) -> str:
    """Write the signed boundary into chain ``epoch`` (write-once); returns it."""
    return put_once(store, boundary_path(store, shard, epoch), note.encode("utf-8")).decode("utf-8")


def read_boundary(store: Store, shard: str, epoch: str) -> str | None:
    data = _read(store, boundary_path(store, shard, epoch))
    return None if data is None else data.decode("utf-8", errors="replace")
