"""The in-memory twin of a shard: what :func:`~showdown_service.decision.decide.decide` needs between entries when
no Redis holds it, kept the way the worker's Redis keeps it.

A shard's Redis holds, for the decision, four things: the dedupe keys (``hand_id`` -> the digest of the event that
settled it, each for ``SHOWDOWN_DEDUPE_TTL_S``), the audit chain's head, the tournaments' ledgers and the jackpot
funds. The worker
reads them for each batch; every re-decision outside it (``showdown tournament replay``, ``audit replay``'s
re-settlement) keeps them here instead, in one place, so the dedupe keys expire the same way everywhere (a key
``dedupe_ttl_s`` or more old, on the deciding clock, is gone: Redis's ``EX``) and a broken ledger invariant (a bug)
is met the same way: the entry it names is refused as ``invariant_violation`` and the batch decided again, as the
worker's planning does (:attr:`Twin.broken` lists each).

The worker's planning keeps its own loop (its book is re-read from Redis after a broken invariant, where the twin's
copy-on-write view is dropped); the ledger restore (:mod:`showdown_service.archive.ledger_restore`) refuses to
restore at all when re-deciding breaks an invariant, and so reads :attr:`Twin.broken` after each decision.
"""

from __future__ import annotations

from collections.abc import Sequence

from showdown_core.jackpot import Fund
from showdown_core.tournament import Book
from showdown_service.decision.audit import EMPTY, Head
from showdown_service.decision.decide import Decided, LedgerInvariant, decide, refuse_broken
from showdown_service.decision.settling import Prepared


class Twin:
    """One shard's dedupe keys, chain head and ledgers, in memory; :meth:`decide` as the worker decides."""

    __slots__ = ("book", "broken", "dedupe_ttl_s", "funds", "head", "seen")

    def __init__(self, book: Book | None = None, *, dedupe_ttl_s: float | None, head: Head = EMPTY) -> None:
        self.book = book if book is not None else Book()
        """The ledgers. Copy-on-write (the default): a decision's changes are kept once it stands, dropped when it
        broke an invariant. In place (``Book(in_place=True)``): faster, but a broken invariant leaves what it half
        changed (a bug's path: audit replay then reports the differences it causes)."""
        self.dedupe_ttl_s = dedupe_ttl_s
        """``None``: the keys never lapse (a tournament replay remembers every hand of its file)."""
        self.head = head
        self.seen: dict[str, tuple[str | None, float]] = {}
        """hand_id -> (the digest of the event that settled it, when, on the deciding clock)."""
        self.broken: list[LedgerInvariant] = []
        """Every broken invariant met, in order (each refused its entry)."""
        self.funds: dict[str, Fund] = {}
        """The jackpot funds, by jackpot id, folded from the first hand of each (as the shard's Redis keeps them)."""

    def held(self, hand_ids: Sequence[str], now: float) -> dict[str, str | None]:
        """The live dedupe keys of ``hand_ids`` at ``now`` (a lapsed key is dropped, as Redis expires it)."""
        out: dict[str, str | None] = {}
        ttl = self.dedupe_ttl_s
        for hand_id in hand_ids:
            key = self.seen.get(hand_id)
            if key is None:
                continue
            if ttl is not None and now - key[1] >= ttl:
                del self.seen[hand_id]
                continue
            out[hand_id] = key[0]
        return out

    def remember(self, hand_id: str, digest: str | None, now: float) -> None:
        """Set a dedupe key (the commit's ``SET ... EX``)."""
        self.seen[hand_id] = (digest, now)

    def decide(
        self,
        batch: Sequence[Prepared],
        *,
        worker: str,
        at: str,
        now: float,
        head: Head | None = None,
        ledgers: bool = True,
        remember: bool = True,
    ) -> Decided:
        """Decide ``batch`` as the worker does, chained on ``head`` (default: the twin's own), at ``at`` by
        ``worker``; keep the chain's new head, the ledgers' changes and the dedupe keys the decisions set (at
        ``now``). ``ledgers=False``: decide without the book (entries of no tournament). ``remember=False``: set no
        dedupe key (the audit replay sets the one its chain's record proves, :meth:`remember`)."""
        batch = list(batch)
        seen = self.held([p.hand_id or "" for p in batch], now)
        start = self.head if head is None else head
        book = self.book if ledgers else None
        while True:
            try:
                decided = decide(batch, seen, start, worker=worker, at=at, book=book, funds=self.funds)
            except LedgerInvariant as broken:  # a copy-on-write view it half changed is dropped with it
                self.broken.append(broken)
                batch = refuse_broken(batch, broken)
                continue
            break
        if decided.book is not None and decided.book is not self.book:
            self.book.adopt(decided.book)
        for d in decided.decisions if remember else ():
            if d.remembers:
                self.remember(d.prepared.hand_id or "", d.prepared.event_sha256, now)
        self.funds.update(decided.funds)
        self.head = decided.head
        return decided
