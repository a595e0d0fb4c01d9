"""Issue 37: the Merkle log's stored hashes as tiles (c2sp.org/tlog-tiles, the Go checksum database's layout):
proofs read from the tiles equal the proofs from every leaf, on trees of many sizes and partial tiles, and a
proof never reads the leaves."""

from __future__ import annotations

import base64
import json
import random
import shutil
from pathlib import Path
from typing import Any

import fakeredis
import pytest

from showdown_service.archive import tlog
from showdown_service.archive.archiver import Archiver
from showdown_service.archive.merkle import MerkleTree, ProofError, leaf_hash, node_hash, tree_hash
from showdown_service.archive.tiles import WIDTH, Tile, TiledTree, TileMissing, edge, grow, subtree_root
from showdown_service.cli.commands import main
from showdown_service.infra.config import Settings
from showdown_service.storage.layout import open_store
from tests.archive.test_archive import hands, settle_and_archive
from tests.archive.test_tlog import ENTRIES, chain_leaves, signed_settings


def test_tile_names_are_the_go_checksum_database_s() -> None:
    # golang.org/x/mod/sumdb/tlog Tile.Path: N in groups of three digits, all but the last prefixed x; .p/W partial
    assert Tile(0, 1234067).path() == "tile/8/0/x001/x234/067"
    assert Tile(0, 1234067, 5).path() == "tile/8/0/x001/x234/067.p/5"
    assert Tile(1, 0, 1).path() == "tile/8/1/000.p/1"
    assert Tile(2, 999).path() == "tile/8/2/999"
    assert Tile(3, 1000, 255).path() == "tile/8/3/x001/000.p/255"
    with pytest.raises(ValueError, match="no tile"):
        Tile(0, 0, 257)
    assert edge(0) == []
    assert edge(256) == [Tile(1, 0, 1)], "a level of whole tiles has no partial tile"
    assert edge(70_000) == [Tile(0, 273, 112), Tile(1, 1, 17), Tile(2, 0, 1)]


def leaf_hashes(n: int, seed: int = 7) -> list[bytes]:
    rng = random.Random(seed)
    return [leaf_hash(rng.randbytes(rng.randint(0, 40))) for _ in range(n)]


def grown(hashes: list[bytes], steps: list[int]) -> tuple[dict[Tile, bytes], list[int]]:
    """The tiles a tree grown by ``steps`` leaves at a time writes (each name once), and the sizes it stops at."""
    kept: dict[Tile, bytes] = {}
    partials: dict[int, list[bytes]] = {}
    size, sizes = 0, []
    for step in steps:
        added = hashes[size : size + step]
        for tile, data in grow(size, partials, added):
            assert kept.setdefault(tile, data) == data, f"{tile.path()} written twice with other bytes"
        size += len(added)
        sizes.append(size)
        partials = {t.level: [kept[t][i : i + 32] for i in range(0, len(kept[t]), 32)] for t in edge(size)}
    return kept, sizes


def test_proofs_read_from_tiles_equal_the_proofs_from_every_leaf_at_every_size_a_tree_stopped_at() -> None:
    rng = random.Random(37)
    hashes = leaf_hashes(70_000)
    steps = [1, 1, 253, 1, 1, 255, 256, 1, 511, 64_000 - 1280, 1536, 1, rng.randint(1, 3000), 70_000]
    kept, sizes = grown(hashes, steps)
    assert sizes[-1] == 70_000
    full = MerkleTree.build(hashes)
    assert any(t.level == 2 for t in kept), "three levels of tiles"
    for size in sizes:
        reads: list[Tile] = []

        def read(tile: Tile) -> bytes | None:
            reads.append(tile)  # noqa: B023
            return kept.get(tile)

        tree = TiledTree(size, read).tree()
        assert tree.root() == tree_hash(hashes[:size]) == full.root(size), size
        indexes = {0, size - 1, size // 2, rng.randrange(size), min(size - 1, 255), min(size - 1, 256)}
        for index in indexes:
            assert tree.inclusion_proof(index) == full.inclusion_proof(index, size), (index, size)
        for size1 in {1, size // 3, size - 1, rng.randint(1, size)}:
            assert tree.consistency_proof(size1) == full.consistency_proof(size1, size), (size1, size)
        assert len(set(reads)) <= 3 * 2 * len(edge(size)) + 16, f"O(log n) tiles read at size {size}: {len(reads)}"


def test_every_leaf_of_small_trees_has_the_same_proof_from_tiles_as_from_its_leaves() -> None:
    hashes = leaf_hashes(300, seed=3)
    kept, sizes = grown(hashes, [1] * 300)
    full = MerkleTree.build(hashes)
    for size in sizes:
        tree = TiledTree(size, kept.get).tree()
        assert tree.root() == full.root(size)
        for index in range(0, size, 1 if size in {1, 2, 3, 255, 256, 257, 300} else 97):
            assert tree.inclusion_proof(index) == full.inclusion_proof(index, size)


def test_a_tile_not_kept_or_of_the_wrong_length_is_named() -> None:
    hashes = leaf_hashes(600)
    kept, _ = grown(hashes, [600])
    del kept[Tile(0, 2, 88)]
    with pytest.raises(TileMissing, match=r"tile/8/0/002\.p/88: not kept"):
        TiledTree(600, kept.get).tree().inclusion_proof(599)
    assert TiledTree(512, kept.get).tree().inclusion_proof(3).path, "a smaller tree reads only its own tiles"
    kept[Tile(0, 2, 88)] = b"\x00" * 31
    with pytest.raises(ProofError, match="31 bytes, not 88 hashes"):
        TiledTree(600, kept.get).tree().root()


def test_a_full_tile_stands_for_the_partial_one_a_grown_tree_no_longer_needs() -> None:
    hashes = leaf_hashes(512)
    kept, _ = grown(hashes, [300, 212])
    assert Tile(0, 1, 44) in kept
    del kept[Tile(0, 1, 44)]
    assert TiledTree(300, kept.get).tree().root() == tree_hash(hashes[:300])
    assert (
        subtree_root(hashes[:WIDTH])
        == tree_hash(hashes[:WIDTH])
        == node_hash(tree_hash(hashes[:128]), tree_hash(hashes[128:256]))
    )


def test_a_wider_partial_tile_stands_for_a_narrower_one_not_kept() -> None:
    hashes = leaf_hashes(200)
    kept, _ = grown(hashes, [37, 37, 126])
    del kept[Tile(0, 0, 37)]
    with pytest.raises(TileMissing, match=r"tile/8/0/000\.p/37: not kept"):
        TiledTree(37, kept.get).tree().root()
    widths = sorted(t.width for t in kept if t.level == 0)
    tree = TiledTree(37, kept.get, lambda level, index: widths if (level, index) == (0, 0) else []).tree()
    assert tree.root() == tree_hash(hashes[:37])


@pytest.fixture
def signed(fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path) -> Settings:
    """70 settled hands archived in files of 25 rows (signed heads at 25, 50 and 70), with their tiles."""
    settings = signed_settings(make_settings, tmp_path)
    settle_and_archive(fake, settings, [("event", json.dumps(doc)) for doc in hands(ENTRIES)])
    return settings


def test_the_archiver_keeps_each_chain_s_tiles_write_once_beside_its_files(signed: Settings) -> None:
    url = Path(signed.archive_url)
    ((epoch, hashes),) = chain_leaves(str(url)).items()
    names = sorted(p.relative_to(url / "tiles" / "default" / epoch).as_posix()
                   for p in (url / "tiles").rglob("*") if p.is_file())  # fmt: skip
    assert names == ["tile/8/0/000.p/25", "tile/8/0/000.p/50", "tile/8/0/000.p/70"], "one partial tile per file"
    assert (url / "tiles" / "default" / epoch / "tile/8/0/000.p/70").read_bytes() == b"".join(hashes)


def test_showdown_proof_reads_the_tiles_and_never_the_leaves(
    signed: Settings, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def reread(*_args: Any) -> Any:
        raise AssertionError("a proof read the leaves")

    ((epoch, hashes),) = chain_leaves(signed.archive_url).items()
    monkeypatch.setattr(tlog, "leaves", reread)
    for size in (None, 25, 50):
        assert main(["proof", "h-3", "--json", "--archive", signed.archive_url,
                     *(["--size", str(size)] if size else [])]) == 0  # fmt: skip
        document = json.loads(capsys.readouterr().out)
        expected = MerkleTree.build(hashes).inclusion_proof(3, size or ENTRIES)
        assert [base64.b64decode(p) for p in document["inclusion_path"]] == list(expected.path)
    assert main(["proof", "--consistency", "25", "70", "--json", "--archive", signed.archive_url]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["epoch"] == epoch
    monkeypatch.undo()


def test_an_archive_kept_before_tiles_is_proven_from_its_files_and_its_tiles_made_on_resume(
    signed: Settings, fake: fakeredis.FakeRedis, capsys: pytest.CaptureFixture[str]
) -> None:
    url = Path(signed.archive_url)
    ((epoch, _),) = chain_leaves(str(url)).items()
    before = {p: p.read_bytes() for p in (url / "tiles").rglob("*") if p.is_file()}
    shutil.rmtree(url / "tiles")
    assert main(["proof", "h-3", "--archive", str(url)]) == 0
    assert "leaf 3 of tree size 70" in capsys.readouterr().out
    fake.delete(signed.keys("default").archive + ":lock")
    Archiver(signed, fake, open_store(str(url), signed)).step(signed.keys("default"))
    top = url / "tiles" / "default" / epoch / "tile/8/0/000.p/70"
    assert top.read_bytes() == before[top], "the tiles of the newest size made again from the files"
