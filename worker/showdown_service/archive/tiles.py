"""The Merkle log's stored hashes as tiles, in the layout of the Go checksum database (c2sp.org/tlog-tiles).

Pure (hashlib only, no I/O: :mod:`.tlog` reads and writes the tiles). A tile of height 8 at level ``L``, index
``N`` and width ``W`` lists ``W`` consecutive hashes of the tree's level ``8*L``, starting at hash ``N*256``:
level 0 holds the leaf hashes, level 1 the roots of each 256 leaves, level 2 of each 65,536 and so on; the
levels between are the tile's own subtrees, hashed again when needed (at most 255 node hashes). A full tile
lists 256 hashes; the rightmost tile of a level, while its level is not a multiple of 256 hashes long, is
partial, named with its width: ``tile/8/<L>/<N>[.p/<W>]``, ``N`` written in groups of three digits, all but
the last prefixed with ``x`` (index 1234067 is ``x001/x234/067``), as golang.org/x/mod/sumdb/tlog names them.

A tile never changes once written: a tree that grows writes a wider partial tile under another name, and the
full one once it fills. :func:`grow` gives the tiles to write when ``added`` leaves extend a tree, from the
partial tiles of its previous size alone (never the leaves before). :class:`TiledTree` reads the hashes a proof
needs from the tiles of one tree size: O(log n) tiles, so a proof costs the same at 10 million leaves as at 1,000.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from showdown_service.archive.merkle import HASH_SIZE, ProofError, StoredTree, node_hash

HEIGHT = 8
"""Levels of the tree one tile spans (the Go checksum database's; c2sp.org/tlog-tiles fixes it at 8)."""
WIDTH = 1 << HEIGHT
"""Hashes in a full tile."""


class TileMissing(ProofError):
    """A tile a tree needs is not kept (an archive written before tiles, or one a failure lost): the message
    names it."""


@dataclass(frozen=True, slots=True)
class Tile:
    """The tile of ``level`` (its hashes are the tree's level ``8*level``) at ``index``, ``width`` hashes wide."""

    level: int
    index: int
    width: int = WIDTH

    def __post_init__(self) -> None:
        if self.level < 0 or self.index < 0 or not 1 <= self.width <= WIDTH:
            raise ValueError(f"no tile of level {self.level}, index {self.index}, width {self.width}")

    def path(self) -> str:
        """``tile/8/<L>/<N>[.p/<W>]``: its name under the log's prefix (c2sp.org/tlog-tiles, with the height)."""
        n = self.index
        name = f"{n % 1000:03d}"
        while n >= 1000:
            n //= 1000
            name = f"x{n % 1000:03d}/{name}"
        partial = f".p/{self.width}" if self.width < WIDTH else ""
        return f"tile/{HEIGHT}/{self.level}/{name}{partial}"


def subtree_root(hashes: Sequence[bytes]) -> bytes:
    """The root of a perfect subtree whose bottom level is ``hashes`` (a power of two of them, in order)."""
    level = list(hashes)
    while len(level) > 1:
        level = [node_hash(level[i], level[i + 1]) for i in range(0, len(level), 2)]
    return level[0]


def edge(size: int) -> list[Tile]:
    """The partial tiles of the tree of ``size`` leaves, one per level that is not whole tiles (lowest first)."""
    tiles = []
    level = 0
    while size >> (HEIGHT * level):
        count = size >> (HEIGHT * level)
        if count % WIDTH:
            tiles.append(Tile(level, count // WIDTH, count % WIDTH))
        level += 1
    return tiles


def split(data: bytes, tile: Tile) -> list[bytes]:
    """A tile's bytes as its hashes, refused unless it is ``tile.width`` hashes long."""
    if len(data) != tile.width * HASH_SIZE:
        raise ProofError(f"{tile.path()}: {len(data)} bytes, not {tile.width} hashes of {HASH_SIZE}")
    return [data[i : i + HASH_SIZE] for i in range(0, len(data), HASH_SIZE)]


def grow(size: int, partials: dict[int, list[bytes]], added: Sequence[bytes]) -> list[tuple[Tile, bytes]]:
    """The tiles to write when ``added`` leaf hashes extend the tree of ``size`` leaves, each with its bytes.

    ``partials`` holds, by level, the hashes of the tree's partial tiles at ``size`` (:func:`edge`; a level of
    whole tiles holds none): every new hash of level ``8*(L+1)`` is the root of a tile of level ``L`` that
    filled, so nothing before the edge is read. Lowest level first; a full tile once it fills, else the
    rightmost tile partial at the new size.
    """
    written: list[tuple[Tile, bytes]] = []
    carry = list(added)
    level = 0
    while carry:
        count = size >> (HEIGHT * level)
        base = count - count % WIDTH
        prefix = partials.get(level, [])
        if len(prefix) != count - base:
            raise ValueError(f"level {level} of a tree of {size} leaves ends in a tile of {count - base} hashes, "
                             f"not {len(prefix)}")  # fmt: skip
        hashes = [*prefix, *carry]
        carry = []
        for start in range(0, len(hashes), WIDTH):
            chunk = hashes[start : start + WIDTH]
            written.append((Tile(level, (base + start) // WIDTH, len(chunk)), b"".join(chunk)))
            if len(chunk) == WIDTH:
                carry.append(subtree_root(chunk))
        level += 1
    return written


@dataclass(slots=True)
class TiledTree:
    """The tree of ``size`` leaves read from its tiles: ``read(tile)`` gives a tile's bytes or None.

    Each stored hash comes from the tile of that size (the full tile of that index when no partial one is kept,
    as a grown tree's is); every tile is read at most once. Proofs and roots as :class:`~.merkle.StoredTree`.
    """

    size: int
    read: Callable[[Tile], bytes | None]
    widths: Callable[[int, int], list[int]] = lambda _level, _index: []
    """The widths of the partial tiles kept at a level and index: asked only when neither the tile of this size
    nor the full one is kept (a tree whose tiles were made again after a failure holds wider ones)."""
    _cache: dict[tuple[int, int], list[bytes]] = field(default_factory=dict)

    def _tile(self, level: int, index: int) -> list[bytes]:
        found = self._cache.get((level, index))
        if found is not None:
            return found
        width = min(WIDTH, (self.size >> (HEIGHT * level)) - index * WIDTH)
        for tile in self._candidates(level, index, width):
            data = self.read(tile)
            if data is not None:
                self._cache[(level, index)] = split(data, tile)[:width]
                return self._cache[(level, index)]
        raise TileMissing(f"{Tile(level, index, width).path()}: not kept (the tree of {self.size} leaves needs it)")

    def _candidates(self, level: int, index: int, width: int) -> Iterator[Tile]:
        """The tile of this size, the full one, then any wider partial one kept (each holds these hashes first)."""
        yield Tile(level, index, width)
        if width < WIDTH:
            yield Tile(level, index)
            yield from (Tile(level, index, w) for w in sorted(self.widths(level, index)) if width < w < WIDTH)

    def stored(self, height: int, index: int) -> bytes:
        """The root of leaves ``index*2**height .. (index+1)*2**height-1``: hashed up inside one tile."""
        level, up = divmod(height, HEIGHT)
        first = index << up
        hashes = self._tile(level, first // WIDTH)
        offset = first % WIDTH
        if offset + (1 << up) > len(hashes):
            raise ProofError(f"no subtree of height {height} at {index} in a tree of {self.size} leaves")
        return subtree_root(hashes[offset : offset + (1 << up)])

    def tree(self) -> StoredTree:
        """The proofs and roots of this tree (and of any smaller one), from its tiles."""
        return StoredTree(self.size, self.stored)
