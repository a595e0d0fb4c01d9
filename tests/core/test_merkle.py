"""The Merkle log's hashing and proofs: Certificate Transparency's published vectors, every leaf of trees of
1..300 leaves and every pair of sizes up to 64, checked both by archive/merkle.py and by the standalone
verifier (scripts/verify_proof.py, which shares no code with it)."""

from __future__ import annotations

import random

import pytest

from scripts import verify_proof
from showdown_service.archive.merkle import (
    EMPTY_ROOT,
    CompactRange,
    MerkleTree,
    ProofError,
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    node_hash,
    record_leaf,
    root_of,
    roots_at,
    tree_hash,
    verify_consistency,
    verify_inclusion,
)

# transparency-dev/merkle testonly/constants.go (the RFC 6962 reference tree of the CT implementations)
CT_LEAVES = [bytes.fromhex(h) for h in ("", "00", "10", "2021", "3031", "40414243", "5051525354555657",
                                         "606162636465666768696a6b6c6d6e6f")]  # fmt: skip
CT_ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
CT_LEAF_HASHES = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
    "0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7",
    "07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7",
    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    "4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658",
    "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
    "46f6ffadd3d06a09ff3c5860d2755c8b9819db7df44251788c7d8e3180de8eb1",
]
# transparency-dev/merkle proof/verify_test.go: (leaf index, tree size, audit path) and (size1, size2, proof)
CT_INCLUSION = [
    (0, 1, []),
    (0, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (5, 8, ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (1, 5, ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
]  # fmt: skip
CT_CONSISTENCY = [
    (1, 1, []),
    (1, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (6, 8, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 5, ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
    (6, 7, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
]  # fmt: skip


def h(hexes: list[str]) -> list[bytes]:
    return [bytes.fromhex(x) for x in hexes]


def records(rng: random.Random, n: int) -> list[bytes]:
    """Leaves shaped like the archive's audit column: distinct JSON texts of varied length, some non-ASCII."""
    return [
        record_leaf(f'{{"hand_id":"h-{i}-{"é" * rng.randrange(3)}","seq":{i + 1},"hash":"{rng.randbytes(32).hex()}"}}')
        for i in range(n)
    ]


def test_the_certificate_transparency_roots_and_leaf_hashes() -> None:
    assert [leaf_hash(leaf).hex() for leaf in CT_LEAVES] == CT_LEAF_HASHES
    for size, want in enumerate(CT_ROOTS):
        assert root_of(CT_LEAVES[:size]).hex() == want, size
        assert CompactRange().extend(map(leaf_hash, CT_LEAVES[:size])).root().hex() == want, size
        assert MerkleTree.build([leaf_hash(x) for x in CT_LEAVES]).root(size).hex() == want, size
    assert EMPTY_ROOT.hex() == CT_ROOTS[0]


@pytest.mark.parametrize(("index", "size", "path"), CT_INCLUSION)
def test_the_certificate_transparency_inclusion_proofs(index: int, size: int, path: list[str]) -> None:
    hashes = [leaf_hash(x) for x in CT_LEAVES[:size]]
    assert list(inclusion_proof(hashes, index).path) == h(path)
    root = bytes.fromhex(CT_ROOTS[size])
    verify_inclusion(index, size, hashes[index], h(path), root)
    verify_proof.verify_inclusion(index, size, hashes[index], h(path), root)


@pytest.mark.parametrize(("size1", "size2", "path"), CT_CONSISTENCY)
def test_the_certificate_transparency_consistency_proofs(size1: int, size2: int, path: list[str]) -> None:
    hashes = [leaf_hash(x) for x in CT_LEAVES[:size2]]
    assert list(consistency_proof(hashes, size1).path) == h(path)
    root1, root2 = bytes.fromhex(CT_ROOTS[size1]), bytes.fromhex(CT_ROOTS[size2])
    verify_consistency(size1, size2, h(path), root1, root2)
    verify_proof.verify_consistency(size1, size2, h(path), root1, root2)
    if path:
        with pytest.raises(ProofError):
            verify_consistency(size1, size2, h(path), root2, root1)


def test_the_compact_range_root_is_the_tree_hash_at_every_size() -> None:
    hashes = [leaf_hash(x) for x in records(random.Random(1), 600)]
    compact = CompactRange()
    assert compact.root() == EMPTY_ROOT == tree_hash([])
    for size in range(1, len(hashes) + 1):
        compact = compact.append(hashes[size - 1])
        assert compact.size == size
        assert len(compact.hashes) == bin(size).count("1")
        assert compact.root() == tree_hash(hashes[:size]), size
    assert CompactRange().extend(hashes) == compact
    assert CompactRange.from_json(compact.to_json()) == compact
    assert CompactRange().extend(hashes[:250]).extend(hashes[250:]) == compact


def test_a_compact_range_that_does_not_add_up_is_refused() -> None:
    good = CompactRange().extend([leaf_hash(b"a"), leaf_hash(b"b"), leaf_hash(b"c")]).to_json()
    for bad in (
        {**good, "size": 4},  # 4 leaves have one subtree, not two
        {**good, "hashes": good["hashes"][:1]},  # type: ignore[index]
        {**good, "hashes": ["00" * 31, "00" * 32]},
        {**good, "hashes": ["zz" * 32, "00" * 32]},
        {**good, "size": True},
        {"size": 3},
    ):
        with pytest.raises(ValueError, match="compact range"):
            CompactRange.from_json(bad)


def test_inclusion_proofs_of_every_leaf_of_trees_of_1_to_300_leaves() -> None:
    rng = random.Random(37)
    leaves = records(rng, 300)
    for size in range(1, 301):
        hashes = [leaf_hash(x) for x in leaves[:size]]
        tree = MerkleTree.build(hashes)
        root = CompactRange().extend(hashes).root()
        assert tree.root() == root == tree_hash(hashes)
        for index in range(size):
            path = list(tree.inclusion_proof(index).path)
            assert len(path) == len(verify_proof_path_length(index, size))
            verify_inclusion(index, size, hashes[index], path, root)
            assert standalone_holds(index, size, hashes[index], path, root)
            edited = bytearray(leaves[index])
            edited[rng.randrange(len(edited))] ^= 1 << rng.randrange(8)
            assert not standalone_holds(index, size, leaf_hash(bytes(edited)), path, root), (size, index)
            if size > 1:
                wrong = (index + rng.randrange(1, size)) % size
                assert not standalone_holds(wrong, size, hashes[index], path, root), (size, index, wrong)
                assert not standalone_holds(index, size, hashes[index], path[:-1], root), (size, index)
            assert not standalone_holds(index, size, hashes[index], [*path, root], root), (size, index)


def standalone_holds(index: int, size: int, leaf: bytes, path: list[bytes], root: bytes) -> bool:
    """Whether the standalone verifier accepts the proof (its refusals are VerifyError and nothing else)."""
    try:
        verify_proof.verify_inclusion(index, size, leaf, path, root)
    except verify_proof.VerifyError:
        return False
    return True


def verify_proof_path_length(index: int, size: int) -> list[None]:
    """The audit path's length by RFC 9162: one node per level below the root on the leaf's way up."""
    length, lo, hi = 0, 0, size
    while hi - lo > 1:
        k = 1 << ((hi - lo - 1).bit_length() - 1)
        lo, hi = (lo, lo + k) if index < lo + k else (lo + k, hi)
        length += 1
    return [None] * length


@pytest.mark.parametrize("size", [2**16, 2**16 + 1, 100_003])
def test_inclusion_proofs_in_large_trees_verify_against_the_compact_range(size: int) -> None:
    rng = random.Random(size)
    hashes = [leaf_hash(i.to_bytes(4, "big")) for i in range(size)]
    root = CompactRange().extend(hashes).root()
    tree = MerkleTree.build(hashes)
    assert tree.root() == root
    for index in (0, 1, size // 2, size - 2, size - 1, rng.randrange(size), rng.randrange(size)):
        path = list(tree.inclusion_proof(index).path)
        verify_proof.verify_inclusion(index, size, hashes[index], path, root)
        with pytest.raises(verify_proof.VerifyError):
            verify_proof.verify_inclusion(index, size, leaf_hash(b"edited"), path, root)
        with pytest.raises(verify_proof.VerifyError):
            verify_proof.verify_inclusion(index ^ 1, size, hashes[index], path, root)


def test_consistency_proofs_between_every_pair_of_sizes_up_to_64() -> None:
    rng = random.Random(64)
    leaves = records(rng, 64)
    hashes = [leaf_hash(x) for x in leaves]
    tree = MerkleTree.build(hashes)
    roots = [tree_hash(hashes[:size]) for size in range(65)]
    for size2 in range(65):
        for size1 in range(size2 + 1):
            path = list(tree.consistency_proof(size1, size2).path)
            assert path == list(consistency_proof(hashes[:size2], size1).path)
            verify_consistency(size1, size2, path, roots[size1], roots[size2])
            verify_proof.verify_consistency(size1, size2, path, roots[size1], roots[size2])
            if size1 == 0:
                continue  # every tree extends the empty one: nothing to alter in it
            # the first tree altered (a leaf of it edited): the second no longer extends it
            altered = list(hashes[:size1])
            altered[rng.randrange(size1)] = leaf_hash(b"rewritten")
            with pytest.raises(verify_proof.VerifyError):
                verify_proof.verify_consistency(size1, size2, path, tree_hash(altered), roots[size2])
            with pytest.raises(ProofError):
                verify_consistency(size1, size2, path, tree_hash(altered), roots[size2])
            # the second tree altered anywhere (its history rewritten, or other leaves after size1)
            altered = list(hashes[:size2])
            altered[rng.randrange(size2)] = leaf_hash(b"rewritten")
            with pytest.raises(verify_proof.VerifyError):
                verify_proof.verify_consistency(size1, size2, path, roots[size1], tree_hash(altered))
            with pytest.raises(ProofError):
                verify_consistency(size1, size2, path, roots[size1], tree_hash(altered))
            if path:
                with pytest.raises(verify_proof.VerifyError):
                    verify_proof.verify_consistency(size1, size2, path[:-1], roots[size1], roots[size2])


def test_two_heads_of_one_size_with_different_roots_are_a_fork() -> None:
    root, other = tree_hash([leaf_hash(b"a")]), tree_hash([leaf_hash(b"b")])
    with pytest.raises(ProofError, match="fork"):
        verify_consistency(1, 1, [], root, other)
    with pytest.raises(verify_proof.VerifyError, match="fork"):
        verify_proof.verify_consistency(1, 1, [], root, other)


def test_proofs_refuse_what_no_tree_holds() -> None:
    hashes = [leaf_hash(bytes([i])) for i in range(5)]
    with pytest.raises(ProofError, match="not in a tree of 5"):
        inclusion_proof(hashes, 5)
    with pytest.raises(ProofError, match="no consistency proof"):
        consistency_proof(hashes, 6)
    with pytest.raises(ProofError, match="32"):
        verify_inclusion(0, 5, hashes[0], [b"short"], tree_hash(hashes))
    with pytest.raises(ProofError, match="prefix"):
        verify_consistency(5, 4, [], tree_hash(hashes), tree_hash(hashes[:4]))
    with pytest.raises(ValueError, match="32 bytes"):
        CompactRange().append(b"short")


def test_node_hash_orders_its_children() -> None:
    a, b = leaf_hash(b"a"), leaf_hash(b"b")
    assert node_hash(a, b) != node_hash(b, a)
    assert root_of([b"a", b"b"]) == node_hash(a, b)


def test_roots_at_many_sizes_in_one_pass() -> None:
    hashes = [leaf_hash(x) for x in records(random.Random(5), 300)]
    sizes = [0, 1, 2, 3, 64, 65, 199, 300, 3]
    assert roots_at(iter(hashes), sizes) == {size: tree_hash(hashes[:size]) for size in sizes}
    assert roots_at(hashes, []) == {}
    with pytest.raises(ProofError, match="no tree of 301 leaves: there are 300"):
        roots_at(hashes, [5, 301])
    with pytest.raises(ProofError, match="negative"):
        roots_at(hashes, [-1])
