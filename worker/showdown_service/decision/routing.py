"""Routing that cannot lose a tournament: which shard holds each tournament, and refusing what went elsewhere.

Producers route every message with one rule (:func:`showdown_messages.publish.shard_for` of
:func:`~showdown_messages.publish.route`): a tournament's hands and messages by its ``tournament_id``, any other
hand by its ``table_id``. A producer that routes otherwise (by table, or with another list of shards) would
split a tournament over shards; this module makes that a refusal, never a hand settled as if the tournament
did not exist.

**The registry.** The hash ``<prefix>:{registry}:tournaments`` maps a tournament id to the shard that opened
it. A worker claims a tournament for its shard (``HSETNX``) when it reads the tournament's ``open``, before
planning the commit: the claim is outside the shard's single-slot commit script (the registry has a slot of
its own on Redis Cluster), and a claim never changes once made. A worker also claims a tournament whose
ledger its shard already holds (one opened before the registry existed).

**What is refused.** A hand or tournament message naming a tournament the registry gives to another shard is
dead-lettered ``wrong_shard``, naming that shard, and never reaches the ledger or the evaluator's plain path;
an ``open`` on a second shard is refused the same way.

**What is guaranteed.** Of two shards opening one id, exactly one wins (``HSETNX`` is atomic); the other's
``open`` and everything after it on that shard is ``wrong_shard``. A hand read by a shard's worker after the
tournament was claimed is never settled as a plain hand there. A hand read before any shard claimed the
tournament (its ``open`` not yet read anywhere) settles as a plain hand, as a hand of a tournament no shard has
opened always did: the order is that of the claim and the read. A claim made by a worker that crashed before
committing the ``open`` stays with its shard, where the ``open`` is delivered again.

**Hands, whatever the route.** Each shard's dedupe key (``seen:<hand_id>``) lives in its shard's slot, so on its
own it holds per shard: a hand that reached a second shard (re-sent with a corrected ``table_id``, sent to both
shards around a change of the shard list, a tournament hand re-sent without its ``tournament_id``) would be
paid there too. So every hand is also claimed in the registry's slot: ``<prefix>:{registry}:hand:<hand_id>``
names the shard that took it (``SET NX``, with the dedupe TTL), before its batch is planned. A hand whose key
names another shard is refused ``wrong_shard``, naming that shard, and is never settled here; a hand claimed by
this shard goes on to its shard's dedupe key (``duplicate``, ``conflicting_duplicate``) as before.

**A jackpot's fund, on one shard.** A jackpot's fund is a hash in its shard's slot, moved by that shard's commit:
hands of one jackpot settled on two shards would keep two funds under one id (each paying its bad beats from half
the money). Producers route a hand with a jackpot by its ``jackpot_id`` (:func:`showdown_messages.publish.route`),
and the registry's hash ``<prefix>:{registry}:jackpots`` names the shard that holds each fund: the first shard to
read a valid hand naming the jackpot claims it (``HSETNX``, before the batch is planned), and a hand naming a
jackpot another shard holds is refused ``wrong_shard``, naming that shard; its drop never reaches a second fund.

Crash safety: a claim is made before the commit and never released, so of two shards exactly one ever takes a
hand (``SET NX`` is atomic) and the other refuses every copy it reads after the claim. A worker that dies
between its claim and its commit leaves the entry pending on its own shard, whose workers claim the entry,
find the hand theirs and commit it: the claim waits for that commit, never for a shard that will not settle
the hand. A claim whose hand that shard then refuses (the tournament ledger says no) holds for the dedupe TTL,
as the hand's dedupe key would have: its copies are for that shard (a tournament hand routes there by its
tournament). The claim is not read again inside the commit script: on Redis Cluster the registry's slot is
not the shard's, and a script's keys share one slot. It need not be, since it never changes once made; what it
cannot survive is the loss of the registry's own writes (a failover that drops acknowledged writes).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from showdown_service.decision.settling import Prepared

REGISTRY_TAG = "registry"
"""The registry's hash tag (its own slot on Redis Cluster, apart from every shard's)."""

WRONG_SHARD = "wrong_shard"
_HELD_BY = re.compile(r" is held by shard '([^']*)', not ")
"""What :func:`misrouted` writes before the holder (shard names hold no quote: config refuses them)."""
CLAIM_LUA = """
local shard, ttl = ARGV[1], ARGV[2]
local elsewhere = {}
for i, key in ipairs(KEYS) do
  local holder = redis.call('SET', key, shard, 'NX', 'EX', ttl, 'GET')
  if holder and holder ~= shard then
    elsewhere[#elsewhere + 1] = i
    elsewhere[#elsewhere + 1] = holder
  end
end
return elsewhere
"""
"""KEYS: each hand's ``<prefix>:{registry}:hand:<hand_id>`` (one slot); ARGV: the shard, the dedupe TTL (s). Claims
each hand no shard holds for the shard (``SET NX GET``: nothing before, so taken now) and returns ``{index, holder,
...}`` for the hands another shard holds (1-based index into KEYS): empty when the batch's hands are all this
shard's."""
HOLDERS_KEPT = 100_000
"""Tournaments whose holder a worker remembers (a holder never changes, so it need not be read again)."""


def registry_key(prefix: str = "showdown") -> str:
    """``showdown:{registry}:tournaments``: tournament id -> the shard that opened it."""
    return f"{prefix}:{{{REGISTRY_TAG}}}:tournaments"


def registry_epoch_key(prefix: str = "showdown") -> str:
    """``showdown:{registry}:epoch``: when the registry was begun (or restored from the archive). Written by a
    worker's first check, it goes only with the registry's own data: on Redis Cluster, the node holding the
    registry's slot restarted empty while the shards' nodes kept theirs (:func:`.worker.restore.restore_registry`)."""
    return f"{prefix}:{{{REGISTRY_TAG}}}:epoch"


def jackpot_registry_key(prefix: str = "showdown") -> str:
    """``showdown:{registry}:jackpots``: jackpot id -> the shard that holds its fund."""
    return f"{prefix}:{{{REGISTRY_TAG}}}:jackpots"


def hand_key(hand_id: str, prefix: str = "showdown") -> str:
    """``showdown:{registry}:hand:<hand_id>``: the shard that took the hand (the registry's slot)."""
    return f"{prefix}:{{{REGISTRY_TAG}}}:hand:{hand_id}"


def _elsewhere(
    shard: str, batch: Sequence[Prepared], held: Callable[[Prepared], str | None], why: Callable[[Prepared, str], str],
    **cleared: Any,
) -> list[Prepared]:  # fmt: skip
    """``batch`` with each valid entry whose ``held(entry)`` is another shard refused ``wrong_shard``, its message
    ``why(entry, holder)``, nothing settled (and ``cleared`` fields reset) (pure)."""
    out = []
    for entry in batch:
        holder = held(entry)
        if not entry.valid or holder is None or holder == shard:
            out.append(entry)
            continue
        out.append(replace(entry, code=WRONG_SHARD, message=why(entry, holder), result=None, result_sha256=None,
                           settlement=None, **cleared))  # fmt: skip
    return out


def hand_elsewhere(shard: str, batch: Sequence[Prepared], holders: Mapping[str, str]) -> list[Prepared]:
    """``batch`` with each valid hand another shard took (``holders``: hand id -> shard) refused ``wrong_shard``
    (pure)."""

    def why(entry: Prepared, holder: str) -> str:
        return (
            f"hand_id {entry.hand_id!r} is held by shard {holder!r}, not {shard!r}: a hand settles on the one "
            f"shard that took it first, whatever the route (its table_id or tournament_id changed, or the shard "
            f"list did); this copy is not settled: look for the hand on shard {holder!r}"
        )

    return _elsewhere(shard, batch, lambda e: holders.get(e.hand_id) if e.hand_id is not None and
                      e.tournament_message is None else None, why)  # fmt: skip


def jackpot_elsewhere(shard: str, batch: Sequence[Prepared], holders: Mapping[str, str]) -> list[Prepared]:
    """``batch`` with each valid hand naming a jackpot whose fund another shard holds (``holders``: jackpot id ->
    shard) refused ``wrong_shard``, its drop not taken (pure)."""

    def why(entry: Prepared, holder: str) -> str:
        return (
            f"jackpot {entry.jackpot_id!r} is held by shard {holder!r}, not {shard!r}: its fund is kept on one shard; "
            f"send hand {entry.hand_id!r} to shard {holder!r} (route a hand with a jackpot by its jackpot_id: "
            f"shard_for(route(event), shards)); this copy is not settled and its drop is not taken"
        )

    return _elsewhere(shard, batch, lambda e: holders.get(e.jackpot_id) if e.jackpot_id is not None else None, why,
                      jackpot_id=None)  # fmt: skip


def as_recorded(shard: str, entry: Prepared, message: str) -> Prepared:
    """``entry`` refused ``wrong_shard`` as a worker's recorded refusal ``message`` says (a tournament another
    shard held, or a hand another shard took): how an audit replay, which has no registry, routes it again."""
    holder = holder_named(message)
    if holder is None:
        return entry
    if message.startswith("hand_id ") and entry.hand_id is not None:
        return hand_elsewhere(shard, [entry], {entry.hand_id: holder})[0]
    if message.startswith("jackpot ") and entry.jackpot_id is not None:
        return jackpot_elsewhere(shard, [entry], {entry.jackpot_id: holder})[0]
    if entry.tournament_id is not None:
        return misrouted(shard, [entry], {entry.tournament_id: holder})[0]
    return entry


def _opens(entry: Prepared) -> bool:
    """The entry is a tournament's ``open`` (the contract's model, or the core's value once converted)."""
    message = entry.tournament_message
    if message is None:
        return False
    return getattr(message, "type", None) == "open" or type(message).__name__ == "TournamentOpened"


def holder_named(message: str) -> str | None:
    """The shard a ``wrong_shard`` refusal's message names as the tournament's holder (see :func:`misrouted`), or
    None. The audit replay reads it back: the registry was read at read time, and an archive does not keep it."""
    found = _HELD_BY.search(message)
    return found.group(1) if found else None


def misrouted(shard: str, batch: Sequence[Prepared], holders: Mapping[str, str]) -> list[Prepared]:
    """``batch`` with each valid entry naming a tournament another shard holds refused ``wrong_shard`` (pure)."""

    def why(entry: Prepared, holder: str) -> str:
        what = f"hand {entry.hand_id!r}" if entry.hand_id is not None else "this tournament message"
        return (
            f"tournament {entry.tournament_id!r} is held by shard {holder!r}, not {shard!r}: send {what} "
            f"to shard {holder!r} (route by tournament_id: shard_for(tournament_id, shards))"
        )

    return _elsewhere(shard, batch, lambda e: holders.get(e.tournament_id) if e.tournament_id is not None else None,
                      why)  # fmt: skip


class Router:
    """A worker's view of the registry: it claims what its shards open and refuses what other shards hold."""

    def __init__(self, client: Any, prefix: str = "showdown") -> None:
        self.client = client
        self.prefix = prefix
        self.key = registry_key(prefix)
        self.holders: dict[str, str] = {}
        """Holders read or claimed so far (final: a claim never changes)."""
        self.jackpot_key = jackpot_registry_key(prefix)
        self.funds: dict[str, str] = {}
        """The shard holding each jackpot's fund, read or claimed so far (final, as :attr:`holders`)."""
        self._claim = client.register_script(CLAIM_LUA)

    def route(self, shard: str, ledger_key: Any, batch: list[Prepared]) -> list[Prepared]:
        """``batch`` with its misrouted entries refused. One round trip when it names a tournament whose holder
        this worker does not know yet (a tournament new to it, or one no shard has opened), none otherwise.
        ``ledger_key(tournament_id)``: the key of that tournament's ledger on ``shard``."""
        named = {e.tournament_id for e in batch if e.tournament_id is not None and e.valid}
        unknown = sorted(named - self.holders.keys())
        if unknown:
            opened_here = {e.tournament_id for e in batch if e.valid and _opens(e)}
            self._learn(shard, unknown, opened_here, ledger_key)
        routed = misrouted(shard, batch, self.holders) if named else batch
        jackpots = {e.jackpot_id for e in routed if e.jackpot_id is not None and e.valid}
        if not jackpots:
            return routed
        if new := sorted(jackpots - self.funds.keys()):
            self._learn_funds(shard, new)
        return jackpot_elsewhere(shard, routed, self.funds)

    def _learn_funds(self, shard: str, ids: list[str]) -> None:
        """Claim each jackpot no shard holds for ``shard`` and learn every holder: one round trip."""
        pipe = self.client.pipeline(transaction=False)
        for jackpot_id in ids:
            pipe.hsetnx(self.jackpot_key, jackpot_id, shard)
        pipe.hmget(self.jackpot_key, ids)
        *_, held = pipe.execute()
        if len(self.funds) > HOLDERS_KEPT:
            self.funds.clear()
        for jackpot_id, holder in zip(ids, held, strict=True):
            self.funds[jackpot_id] = holder.decode() if isinstance(holder, bytes) else str(holder)

    def _learn(self, shard: str, ids: list[str], opened_here: Iterable[str | None], ledger_key: Any) -> None:
        pipe = self.client.pipeline(transaction=False)
        pipe.hmget(self.key, ids)
        for tid in ids:
            pipe.exists(ledger_key(tid))
        held, *here = pipe.execute()
        claims = [tid for tid, holder, exists in zip(ids, held, here, strict=True)
                  if holder is None and (exists or tid in set(opened_here))]  # fmt: skip
        if claims:
            pipe = self.client.pipeline(transaction=False)
            for tid in claims:
                pipe.hsetnx(self.key, tid, shard)
            pipe.hmget(self.key, claims)
            *_, after = pipe.execute()
            held = [dict(zip(claims, after, strict=True)).get(t, h) for t, h in zip(ids, held, strict=True)]
        if len(self.holders) > HOLDERS_KEPT:
            self.holders.clear()
        for tid, holder in zip(ids, held, strict=True):
            if holder is not None:
                self.holders[tid] = holder.decode() if isinstance(holder, bytes) else str(holder)

    def claim_hands(self, shard: str, batch: list[Prepared], ttl_s: int) -> list[Prepared]:
        """``batch`` with each valid hand another shard took refused ``wrong_shard``; each hand no shard held is
        claimed for ``shard`` (for ``ttl_s``, the dedupe TTL) first. One round trip, one script a batch
        (:data:`CLAIM_LUA`, in the registry's slot: ``SET NX GET`` a hand, Redis 7.0+, answering only the hands
        another shard holds; loaded once, and again where a node answers NOSCRIPT), none for a batch without a
        valid hand."""
        hands = list(dict.fromkeys([e.hand_id for e in batch if e.code is None and e.hand_id is not None
                                    and e.tournament_message is None]))  # fmt: skip  # the valid (a list, no generator)
        if not hands:
            return batch
        key = hand_key("", self.prefix)  # each hand's key is this and its id
        reply = self._claim(keys=[key + hand_id for hand_id in hands], args=[shard, ttl_s])
        if not reply:  # the usual answer: every hand this shard's (taken now, or by an earlier copy)
            return batch
        holders = {hands[int(index) - 1]: holder.decode() if isinstance(holder, bytes) else str(holder)
                   for index, holder in zip(reply[::2], reply[1::2], strict=True)}  # fmt: skip
        return hand_elsewhere(shard, batch, holders)
