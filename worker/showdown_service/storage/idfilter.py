"""A filter of each archive file's hand ids (a Bloom filter), so a lookup of a hand no file holds reads no file.

Issue 34 item 5: every lookup of an unknown hand scanned the whole archive (0.36 s on a tiny archive, 212-669 ms
at 10 million hands), and producers poll for a hand still in the inbox, which is unknown. An archive file is
written once and never changed (its name is its shard, day, epoch and first and last sequence number), so a
filter built from a file's ``hand_id`` column holds for as long as the file exists: :class:`HandFilters` builds
one per file the first time a lookup meets the file (one read of that column), keeps it, and a lookup then reads
only the files whose filter may hold the hand: usually none for an unknown hand, one for a known one.

**Never a false negative**: every hand id of a file is added to its filter, and :meth:`HandFilter.may_hold`
answers False only where a bit one of those ids set is clear, so a file that holds the hand is always read. A
file that does not is read anyway for about :data:`FALSE_POSITIVES` of the ids asked (it finds nothing there).
A file listed for the first time is filtered from then on; until its filter is built (on the lookup that first
lists it), nothing is concluded without it.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

FALSE_POSITIVES = 0.01
"""The share of the ids a file does not hold for which its filter still says it may (the filter's size follows)."""
FILES_KEPT = 100_000
"""Files whose filter a process keeps (all dropped at once when full, and built again as lookups meet them)."""


def _hashes(hand_ids: Iterable[str]) -> tuple[np.ndarray, np.ndarray]:
    """Two 64-bit hashes of each id (BLAKE2b, 16 bytes: keyless, the same in every process and on every run)."""
    digests = b"".join(hashlib.blake2b(hand_id.encode(), digest_size=16).digest() for hand_id in hand_ids)
    both = np.frombuffer(digests, dtype="<u8").reshape(-1, 2)
    return both[:, 0], both[:, 1] | np.uint64(1)  # the step odd: the k positions are distinct for a power of two


@dataclass(frozen=True, slots=True)
class HandFilter:
    """A Bloom filter of one file's hand ids: ``bits`` (``2**log2_bits`` of them), ``probes`` positions an id."""

    log2_bits: int
    probes: int
    bits: bytes

    @classmethod
    def of(cls, hand_ids: Sequence[str], false_positives: float = FALSE_POSITIVES) -> HandFilter:
        """The filter of ``hand_ids`` (sized for them, at ``false_positives``)."""
        n = max(len(hand_ids), 1)
        wanted = -n * math.log(false_positives) / math.log(2) ** 2
        log2_bits = max(6, math.ceil(math.log2(wanted)))
        probes = max(1, round((2**log2_bits) / n * math.log(2)))
        bits = np.zeros(2**log2_bits // 8, dtype=np.uint8)
        if hand_ids:
            positions = _positions(*_hashes(hand_ids), log2_bits, probes).ravel()
            masks = np.left_shift(1, positions & np.uint64(7)).astype(np.uint8)
            np.bitwise_or.at(bits, positions >> np.uint64(3), masks)
        return cls(log2_bits, probes, bits.tobytes())

    def may_hold(self, hand_id: str) -> bool:
        """False only where ``hand_id`` is certainly not among the ids the filter was built from."""
        h1, h2 = _hashes([hand_id])
        for position in _positions(h1, h2, self.log2_bits, self.probes).ravel().tolist():
            if not self.bits[position >> 3] & (1 << (position & 7)):
                return False
        return True


def _positions(h1: np.ndarray, h2: np.ndarray, log2_bits: int, probes: int) -> np.ndarray:
    """Each id's ``probes`` bit positions (double hashing: ``h1 + i * h2`` modulo the filter's size)."""
    steps = np.arange(probes, dtype=np.uint64)
    mask = np.uint64(2**log2_bits - 1)
    with np.errstate(over="ignore"):  # modulo 2**64, then the mask: wrap-around is the arithmetic intended
        positions: np.ndarray = (h1[:, None] + steps[None, :] * h2[:, None]) & mask
    return positions


class HandFilters:
    """The filters of the files a process's lookups met (thread-safe: the API looks up from several threads)."""

    def __init__(self) -> None:
        self._filters: dict[str, HandFilter] = {}
        self._lock = threading.Lock()
        self.built = 0
        """Filters built so far (for tests and logs)."""

    def files_for(self, hand_id: str, paths: Sequence[str], read_ids: Callable[[str], list[str]]) -> list[str]:
        """Of ``paths`` (every file of the archive, as listed now), those that may hold ``hand_id``; a file met the
        first time has its filter built from ``read_ids(path)`` (its hand ids) first."""
        with self._lock:
            missing = [path for path in paths if path not in self._filters]
        for path in missing:  # outside the lock: reading a file's ids is I/O; two threads may build one twice
            built = HandFilter.of(read_ids(path))
            with self._lock:
                if len(self._filters) >= FILES_KEPT:
                    self._filters.clear()
                self._filters[path] = built
                self.built += 1
        with self._lock:
            filters = [(path, self._filters.get(path)) for path in paths]
        return [path for path, kept in filters if kept is None or kept.may_hold(hand_id)]


FILTERS = HandFilters()
"""The process's filters (the read API's lookups share them)."""
