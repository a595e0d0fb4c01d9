"""Merkle log benchmark: a hand's inclusion proof and a consistency proof read from the log's tiles, against the
same proofs from every leaf (issue 37: a proof in 10 million entries under 100 ms, a consistency proof under 50).

A chain of ``LEAVES`` synthetic audit records (``SHOWDOWN_BENCH_TLOG_LEAVES``, default 1,000,000; bounded to
20,000,000) is hashed into its tiles (:func:`showdown_service.archive.tiles.grow`, grown a file of
``FILE_ROWS`` leaves at a time as the archiver grows them) and written at their c2sp.org/tlog-tiles names in a
local archive (plain writes: what is timed is the reading). Then, rounds interleaved:

* **from tiles**: what ``showdown proof`` and ``GET /v1/hands/{id}/proof`` do, :func:`~showdown_service.archive.
  tlog.tiled` over the local store, the root of the signed size and the audit path of a random leaf (a fresh
  reader each time: no tile cached between proofs); and a consistency proof between two random sizes;
* **from the leaves**: :class:`~showdown_service.archive.merkle.MerkleTree` built from the leaf hashes already in
  memory (the files' parquet reading, which the proof before tiles also paid, is not counted: the ratio is a
  floor), then the same proofs.

Run: ``python -m bench.tlog``.
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from bench import Figure, Section
from showdown_service.archive import tlog
from showdown_service.archive.merkle import MerkleTree, leaf_hash
from showdown_service.archive.tiles import edge, grow, split
from showdown_service.storage.layout import open_store

LEAVES = min(int(os.environ.get("SHOWDOWN_BENCH_TLOG_LEAVES", "1000000")), 20_000_000)
FILE_ROWS = 50_000
PROOF_TARGET_S = 0.100
CONSISTENCY_TARGET_S = 0.050
ROUNDS = 15
LEAF_ROUNDS = 3
LEAF_BASELINE_MAX = 2_000_000
"""The tree from every leaf is built only up to this many (about 200 bytes of memory a leaf): past it, not timed."""


def synthetic_leaves(count: int) -> list[bytes]:
    """Leaf hashes of ``count`` audit-record-like texts (about 300 bytes each, all different)."""
    body = b'{"audit":1,"settled_at":"2026-11-29T05:00:00Z","shard":"default","pots":[{"amount":1200}],"pad":"' + (
        b"x" * 200
    )
    return [leaf_hash(body + str(i).encode() + b'"}') for i in range(count)]


def write_tiles(root: Path, hashes: list[bytes]) -> float:
    """Grow the chain's tiles a file at a time and write them under ``root``; seconds taken."""
    store = open_store(str(root))
    started = time.perf_counter()
    partials: dict[int, list[bytes]] = {}
    for size in range(0, len(hashes), FILE_ROWS):
        added = hashes[size : size + FILE_ROWS]
        for tile, data in grow(size, partials, added):
            path = Path(tlog.tile_path(store, "default", "0" * 16, tile))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        grown = size + len(added)
        partials = {
            t.level: split(Path(tlog.tile_path(store, "default", "0" * 16, t)).read_bytes(), t) for t in edge(grown)
        }
    return time.perf_counter() - started


def from_tiles(url: str, size: int, index: int, size1: int) -> tuple[float, float, bytes]:
    """Seconds for an inclusion proof (with the root it is checked against) and for a consistency proof."""
    store = open_store(url)
    started = time.perf_counter()
    tree = tlog.tiled(store, "default", "0" * 16, size).tree()
    root = tree.root()
    tree.inclusion_proof(index)
    inclusion = time.perf_counter() - started
    started = time.perf_counter()
    tree = tlog.tiled(store, "default", "0" * 16, size).tree()
    tree.root(size1)
    tree.root()
    tree.consistency_proof(size1)
    return inclusion, time.perf_counter() - started, root


def from_leaves(hashes: list[bytes], index: int, size1: int) -> tuple[float, bytes]:
    started = time.perf_counter()
    tree = MerkleTree.build(hashes)
    root = tree.root()
    tree.inclusion_proof(index)
    tree.consistency_proof(size1)
    return time.perf_counter() - started, root


def measure(count: int = LEAVES) -> dict[str, float]:
    rng = random.Random(37)
    hashes = synthetic_leaves(count)
    with tempfile.TemporaryDirectory(prefix="bench-tlog-") as temporary:
        written = write_tiles(Path(temporary), hashes)
        tiled_proofs, tiled_consistency, leaf_proofs = [], [], []
        for round_ in range(ROUNDS):
            index, size1 = rng.randrange(count), rng.randint(1, count - 1)
            inclusion, consistency, root = from_tiles(temporary, count, index, size1)
            tiled_proofs.append(inclusion)
            tiled_consistency.append(consistency)
            if round_ < LEAF_ROUNDS and count <= LEAF_BASELINE_MAX:
                seconds, built = from_leaves(hashes, index, size1)
                assert built == root, "the tiles' root is the leaves' root"
                leaf_proofs.append(seconds)
        files = sum(1 for p in Path(temporary).rglob("*") if p.is_file())
    return {
        "leaves": count,
        "tiles": files,
        "tiles_written_s": written,
        "proof_tiles_s": statistics.median(tiled_proofs),
        "consistency_tiles_s": statistics.median(tiled_consistency),
        "proof_leaves_s": statistics.median(leaf_proofs) if leaf_proofs else 0.0,
    }


def section() -> Section:
    m = measure()
    proof, consistency, leaves = m["proof_tiles_s"], m["consistency_tiles_s"], m["proof_leaves_s"]
    markdown = "\n".join(
        [
            "## Merkle log proofs",
            "",
            f"A chain of {m['leaves']:,.0f} synthetic leaves, its {m['tiles']:,.0f} tiles (c2sp.org/tlog-tiles, "
            f"written in {m['tiles_written_s']:.1f} s) in a local archive (`python -m bench.tlog`; "
            "`SHOWDOWN_BENCH_TLOG_LEAVES` for another size). Targets: an inclusion proof under "
            f"{PROOF_TARGET_S * 1e3:.0f} ms and a consistency proof under {CONSISTENCY_TARGET_S * 1e3:.0f} ms at "
            "10 million entries. From the leaves: the tree built from leaf hashes already in memory (reading the "
            "files is not counted: a floor).",
            "",
            "| proof | from tiles (median) | from the leaves (median) | leaves / tiles |",
            "|---|---:|---:|---:|",
            f"| inclusion, with its root | {proof * 1e3:.2f} ms | "
            + (f"{leaves * 1e3:.0f} ms | {leaves / proof:,.0f}x |" if leaves else "not timed (memory) | |"),
            f"| consistency, with both roots | {consistency * 1e3:.2f} ms | | |",
            "",
        ]
    )
    return Section(
        markdown,
        [
            Figure("merkle log: inclusion proof, 100 ms / from tiles", PROOF_TARGET_S / proof, 1.0),
            Figure("merkle log: consistency proof, 50 ms / from tiles", CONSISTENCY_TARGET_S / consistency, 1.0),
        ],
    )


def main() -> None:
    print(section().markdown)


if __name__ == "__main__":
    main()
