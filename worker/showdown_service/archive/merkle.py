"""The Merkle log of a shard's audit records: RFC 6962 / RFC 9162 hashing, proofs and their verification.

Pure (hashlib only, no I/O). The leaf is an archived entry's audit record text exactly as stored (the archive's
``audit`` column, UTF-8); RFC 6962 section 2.1 hashes it:

- a leaf: ``SHA-256(0x00 || leaf)``;
- a node: ``SHA-256(0x01 || left || right)``;
- the tree hash MTH of n leaves: the empty string's SHA-256 for none, the leaf hash for one, and for more the
  node of the MTH of the first k leaves and of the MTH of the rest, k the largest power of two below n.

:class:`CompactRange` keeps a tree's frontier (the roots of its perfect subtrees, largest first): a leaf is
appended in O(log n) and the root is known at every size without the leaves, so an archiver never recomputes
the whole tree. :class:`MerkleTree` keeps every perfect subtree's hash and gives the proofs of RFC 9162
sections 2.1.3.1 and 2.1.4.1 (PATH and PROOF/SUBPROOF); :func:`verify_inclusion` and
:func:`verify_consistency` are the verification algorithms of sections 2.1.3.2 and 2.1.4.2, step by step.
:class:`StoredTree` gives the same proofs from any source of perfect subtree hashes (the archive's tiles).

Over 400 lines, deliberately: RFC 9162's hashing, proofs and their verification side by side, in one module.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

HASH_SIZE = 32
"""Bytes in every hash: SHA-256."""

EMPTY_ROOT = hashlib.sha256(b"").digest()
"""MTH({}): the root of the empty tree."""


class ProofError(ValueError):
    """A proof that does not hold, or a request no proof answers (an index or a size out of range)."""


def leaf_hash(leaf: bytes) -> bytes:
    """RFC 6962 section 2.1: ``SHA-256(0x00 || leaf)``."""
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """RFC 6962 section 2.1: ``SHA-256(0x01 || left || right)``."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def record_leaf(audit: str) -> bytes:
    """The leaf of an archived entry: its audit record text exactly as stored, as UTF-8 bytes."""
    return audit.encode("utf-8")


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


def _mth(hashes: Sequence[bytes], lo: int, hi: int) -> bytes:
    """MTH of the leaves ``lo..hi-1`` given their leaf hashes (hi > lo)."""
    n = hi - lo
    if n == 1:
        return hashes[lo]
    k = _split(n)
    return node_hash(_mth(hashes, lo, lo + k), _mth(hashes, lo + k, hi))


def tree_hash(leaf_hashes: Sequence[bytes]) -> bytes:
    """MTH of the leaves whose leaf hashes are ``leaf_hashes`` (in order)."""
    if not leaf_hashes:
        return EMPTY_ROOT
    return _mth(leaf_hashes, 0, len(leaf_hashes))


def root_of(leaves: Iterable[bytes]) -> bytes:
    """MTH of the leaves themselves (each hashed with :func:`leaf_hash`)."""
    return tree_hash([leaf_hash(leaf) for leaf in leaves])


@dataclass(frozen=True, slots=True)
class CompactRange:
    """A tree of ``size`` leaves by its frontier: the roots of its perfect subtrees, largest first.

    One hash per set bit of ``size`` (a tree of 6 = 4 + 2 leaves keeps two). Appending merges the equal
    subtrees at the end, as a binary counter carries. Persisted as ``{"size", "hashes": [hex...]}``.
    """

    size: int = 0
    hashes: tuple[bytes, ...] = ()

    def __post_init__(self) -> None:
        if self.size < 0:
            raise ValueError(f"a tree size is never negative, got {self.size}")
        if len(self.hashes) != self.size.bit_count():
            raise ValueError(
                f"a compact range of size {self.size} holds {self.size.bit_count()} hashes, not {len(self.hashes)}"
            )
        if any(len(h) != HASH_SIZE for h in self.hashes):
            raise ValueError(f"every hash of a compact range is {HASH_SIZE} bytes")

    def append(self, leaf_hash_: bytes) -> CompactRange:
        """The tree with one more leaf (given by its leaf hash): O(log n) node hashes."""
        if len(leaf_hash_) != HASH_SIZE:
            raise ValueError(f"a leaf hash is {HASH_SIZE} bytes, got {len(leaf_hash_)}")
        stack = list(self.hashes)
        merged = leaf_hash_
        size = self.size
        while size & 1:
            merged = node_hash(stack.pop(), merged)
            size >>= 1
        stack.append(merged)
        return CompactRange(self.size + 1, tuple(stack))

    def extend(self, leaf_hashes: Iterable[bytes]) -> CompactRange:
        """The tree with every leaf of ``leaf_hashes`` appended, in order."""
        stack = list(self.hashes)
        size = self.size
        for given in leaf_hashes:
            if len(given) != HASH_SIZE:
                raise ValueError(f"a leaf hash is {HASH_SIZE} bytes, got {len(given)}")
            merged = given
            carry = size
            while carry & 1:
                merged = node_hash(stack.pop(), merged)
                carry >>= 1
            stack.append(merged)
            size += 1
        return CompactRange(size, tuple(stack))

    def root(self) -> bytes:
        """MTH of the tree: the frontier folded from the right (the smallest subtree is the deepest right)."""
        if not self.hashes:
            return EMPTY_ROOT
        root = self.hashes[-1]
        for left in reversed(self.hashes[:-1]):
            root = node_hash(left, root)
        return root

    def to_json(self) -> dict[str, object]:
        return {"size": self.size, "hashes": [h.hex() for h in self.hashes]}

    @classmethod
    def from_json(cls, data: object) -> CompactRange:
        """A persisted compact range, checked (its size and hash count agree, every hash 32 bytes of hex)."""
        if not isinstance(data, dict) or set(data) != {"size", "hashes"}:
            raise ValueError('a compact range is {"size": int, "hashes": [hex, ...]}')
        size, hashes = data["size"], data["hashes"]
        if not isinstance(size, int) or isinstance(size, bool) or not isinstance(hashes, list):
            raise ValueError('a compact range is {"size": int, "hashes": [hex, ...]}')
        try:
            decoded = tuple(bytes.fromhex(h) for h in hashes if isinstance(h, str))
        except ValueError as exc:
            raise ValueError(f"a compact range's hash is not hex: {exc}") from exc
        if len(decoded) != len(hashes):
            raise ValueError("a compact range's hashes are hex strings")
        return cls(size, decoded)


def roots_at(leaf_hashes: Iterable[bytes], sizes: Iterable[int]) -> dict[int, bytes]:
    """The root of the tree at each of ``sizes``, in one pass over the leaves (a compact range, nothing kept).

    What a replay needs to check every signed head it holds against the leaves it re-reads: a head whose root
    is not the one at its size is a rewritten log, and two heads of one size cannot both hold. A size past the
    last leaf raises :class:`ProofError` naming how many leaves there were.
    """
    wanted = sorted(set(sizes))
    if wanted and wanted[0] < 0:
        raise ProofError(f"a tree size is never negative, got {wanted[0]}")
    roots: dict[int, bytes] = {}
    pending = iter(wanted)
    target = next(pending, None)
    while target == 0:
        roots[0] = EMPTY_ROOT
        target = next(pending, None)
    if target is None:
        return roots
    stack: list[bytes] = []
    size = 0
    for given in leaf_hashes:
        if len(given) != HASH_SIZE:
            raise ValueError(f"a leaf hash is {HASH_SIZE} bytes, got {len(given)}")
        merged, carry = given, size
        while carry & 1:
            merged = node_hash(stack.pop(), merged)
            carry >>= 1
        stack.append(merged)
        size += 1
        if size == target:
            roots[size] = CompactRange(size, tuple(stack)).root()
            target = next(pending, None)
            if target is None:
                return roots
    raise ProofError(f"no tree of {target} leaves: there are {size}")


@dataclass(frozen=True, slots=True)
class InclusionProof:
    """The audit path of leaf ``leaf_index`` in the tree of ``tree_size`` leaves (RFC 9162 section 2.1.3)."""

    leaf_index: int
    tree_size: int
    path: tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class ConsistencyProof:
    """That the tree of ``size1`` leaves is a prefix of the tree of ``size2`` (RFC 9162 section 2.1.4)."""

    size1: int
    size2: int
    path: tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class MerkleTree:
    """Every perfect subtree's hash of a tree: ``levels[j][i]`` is the root of leaves ``i*2**j .. (i+1)*2**j-1``.

    About 2n hashes, built in O(n); then the hash of any subtree a proof names is O(log n) node hashes, so an
    inclusion or a consistency proof costs O(log^2 n), not the O(n) of hashing the leaves again.
    """

    levels: tuple[tuple[bytes, ...], ...]

    @classmethod
    def build(cls, leaf_hashes: Sequence[bytes]) -> MerkleTree:
        level = tuple(leaf_hashes)
        if any(len(h) != HASH_SIZE for h in level):
            raise ValueError(f"every leaf hash is {HASH_SIZE} bytes")
        levels = [level]
        while len(level) > 1:
            level = tuple(node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2))
            levels.append(level)
        return cls(tuple(levels))

    @property
    def size(self) -> int:
        return len(self.levels[0])

    def stored(self, height: int, index: int) -> bytes:
        """The root of leaves ``index*2**height .. (index+1)*2**height-1``."""
        return self.levels[height][index]

    def root(self, size: int | None = None) -> bytes:
        """MTH of the first ``size`` leaves (all of them by default)."""
        return StoredTree(self.size, self.stored).root(size)

    def inclusion_proof(self, leaf_index: int, tree_size: int | None = None) -> InclusionProof:
        """The audit path of ``leaf_index`` in the tree of the first ``tree_size`` leaves (all by default)."""
        return StoredTree(self.size, self.stored).inclusion_proof(leaf_index, tree_size)

    def consistency_proof(self, size1: int, size2: int | None = None) -> ConsistencyProof:
        """PROOF(size1, D[size2]): empty when size1 is 0 or size2 (nothing to prove)."""
        return StoredTree(self.size, self.stored).consistency_proof(size1, size2)


@dataclass(frozen=True, slots=True)
class StoredTree:
    """A tree of ``size`` leaves known by its perfect subtrees' hashes: ``stored(height, index)`` is the root of
    leaves ``index*2**height .. (index+1)*2**height-1`` (kept in memory by :class:`MerkleTree`, read from the
    archive's tiles by :mod:`.tiles`). Any other subtree's hash is O(log n) of them, so a proof reads
    O(log n) stored hashes and never the leaves.
    """

    size: int
    stored: Callable[[int, int], bytes]

    def _hash(self, lo: int, hi: int) -> bytes:
        """MTH of leaves ``lo..hi-1``: a stored perfect subtree when aligned, else split as MTH splits."""
        n = hi - lo
        height = n.bit_length() - 1
        if n == 1 << height and lo % n == 0:
            return self.stored(height, lo >> height)
        k = _split(n)
        return node_hash(self._hash(lo, lo + k), self._hash(lo + k, hi))

    def root(self, size: int | None = None) -> bytes:
        """MTH of the first ``size`` leaves (all of them by default)."""
        size = self.size if size is None else size
        if not 0 <= size <= self.size:
            raise ProofError(f"no tree of {size} leaves in a tree of {self.size}")
        return self._hash(0, size) if size else EMPTY_ROOT

    def _path(self, index: int, lo: int, hi: int) -> list[bytes]:
        """PATH(m, D[lo:hi]) of RFC 9162 section 2.1.3.1, nearest sibling first."""
        n = hi - lo
        if n == 1:
            return []
        k = _split(n)
        if index < k:
            return [*self._path(index, lo, lo + k), self._hash(lo + k, hi)]
        return [*self._path(index - k, lo + k, hi), self._hash(lo, lo + k)]

    def inclusion_proof(self, leaf_index: int, tree_size: int | None = None) -> InclusionProof:
        """The audit path of ``leaf_index`` in the tree of the first ``tree_size`` leaves (all by default)."""
        size = self.size if tree_size is None else tree_size
        if not 0 <= leaf_index < size <= self.size:
            raise ProofError(f"leaf {leaf_index} is not in a tree of {size} leaves (of {self.size} known)")
        return InclusionProof(leaf_index, size, tuple(self._path(leaf_index, 0, size)))

    def _subproof(self, m: int, lo: int, hi: int, whole: bool) -> list[bytes]:
        """SUBPROOF(m, D[lo:hi], b) of RFC 9162 section 2.1.4.1."""
        n = hi - lo
        if m == n:
            return [] if whole else [self._hash(lo, hi)]
        k = _split(n)
        if m <= k:
            return [*self._subproof(m, lo, lo + k, whole), self._hash(lo + k, hi)]
        return [*self._subproof(m - k, lo + k, hi, False), self._hash(lo, lo + k)]

    def consistency_proof(self, size1: int, size2: int | None = None) -> ConsistencyProof:
        """PROOF(size1, D[size2]): empty when size1 is 0 or size2 (nothing to prove)."""
        size2 = self.size if size2 is None else size2
        if not 0 <= size1 <= size2 <= self.size:
            raise ProofError(f"no consistency proof from a tree of {size1} leaves to one of {size2}")
        if size1 in (0, size2):
            return ConsistencyProof(size1, size2, ())
        return ConsistencyProof(size1, size2, tuple(self._subproof(size1, 0, size2, True)))


def inclusion_proof(leaf_hashes: Sequence[bytes], leaf_index: int) -> InclusionProof:
    """The audit path of ``leaf_index`` in the tree of all of ``leaf_hashes``."""
    if not 0 <= leaf_index < len(leaf_hashes):
        raise ProofError(f"leaf {leaf_index} is not in a tree of {len(leaf_hashes)} leaves")
    return MerkleTree.build(leaf_hashes).inclusion_proof(leaf_index)


def consistency_proof(leaf_hashes: Sequence[bytes], size1: int) -> ConsistencyProof:
    """PROOF(size1, D[n]) for the tree of all ``leaf_hashes``."""
    if not 0 <= size1 <= len(leaf_hashes):
        raise ProofError(f"no consistency proof from a tree of {size1} leaves to one of {len(leaf_hashes)}")
    if size1 in (0, len(leaf_hashes)):
        return ConsistencyProof(size1, len(leaf_hashes), ())
    return MerkleTree.build(leaf_hashes).consistency_proof(size1)


def _check_hashes(path: Sequence[bytes], *named: tuple[str, bytes]) -> None:
    for name, value in named:
        if len(value) != HASH_SIZE:
            raise ProofError(f"the {name} is {len(value)} bytes, not {HASH_SIZE}")
    for i, element in enumerate(path):
        if len(element) != HASH_SIZE:
            raise ProofError(f"element {i} of the proof is {len(element)} bytes, not {HASH_SIZE}")


def root_from_inclusion(leaf_index: int, tree_size: int, leaf_hash_: bytes, path: Sequence[bytes]) -> bytes:
    """The root an inclusion proof leads to: RFC 9162 section 2.1.3.2 steps 1 to 4 (raises when malformed)."""
    _check_hashes(path, ("leaf hash", leaf_hash_))
    if not 0 <= leaf_index < tree_size:
        raise ProofError(f"leaf {leaf_index} is not in a tree of {tree_size} leaves")
    fn, sn = leaf_index, tree_size - 1
    r = leaf_hash_
    for p in path:
        if sn == 0:
            raise ProofError("the proof is longer than the path of this leaf in a tree of this size")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while fn and not fn & 1:
                fn >>= 1
                sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError("the proof is shorter than the path of this leaf in a tree of this size")
    return r


def verify_inclusion(leaf_index: int, tree_size: int, leaf_hash_: bytes, path: Sequence[bytes], root: bytes) -> None:
    """RFC 9162 section 2.1.3.2: raises :class:`ProofError` unless the leaf is at ``leaf_index`` under ``root``."""
    _check_hashes((), ("root", root))
    if root_from_inclusion(leaf_index, tree_size, leaf_hash_, path) != root:
        raise ProofError(f"the proof of leaf {leaf_index} leads to another root than the tree of {tree_size}'s")


def verify_consistency(size1: int, size2: int, path: Sequence[bytes], root1: bytes, root2: bytes) -> None:
    """RFC 9162 section 2.1.4.2: raises :class:`ProofError` unless the tree ``root1`` of ``size1`` leaves is a
    prefix of the tree ``root2`` of ``size2`` leaves.

    Equal sizes need equal roots and an empty proof; from the empty tree every tree follows (empty proof).
    """
    _check_hashes(path, ("first root", root1), ("second root", root2))
    if not 0 <= size1 <= size2:
        raise ProofError(f"a tree of {size1} leaves cannot be a prefix of one of {size2}")
    if size1 in (0, size2):
        if path:
            raise ProofError(f"a consistency proof from size {size1} to {size2} is empty")
        if size1 == size2 and root1 != root2:
            raise ProofError(f"two trees of {size1} leaves with different roots: a fork")
        return
    if not path:
        raise ProofError("an empty consistency proof between different sizes")
    proof = list(path)
    if size1 & (size1 - 1) == 0:  # an exact power of two: the first tree is a subtree of the second
        proof.insert(0, root1)
    fn, sn = size1 - 1, size2 - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = proof[0]
    for c in proof[1:]:
        if sn == 0:
            raise ProofError("the consistency proof is longer than these sizes need")
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while fn and not fn & 1:
                fn >>= 1
                sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError("the consistency proof is shorter than these sizes need")
    if fr != root1:
        raise ProofError(f"the consistency proof leads to another root for the tree of {size1} leaves")
    if sr != root2:
        raise ProofError(f"the consistency proof leads to another root for the tree of {size2} leaves")
