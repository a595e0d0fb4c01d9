"""The atomic commit of a batch: one Lua script, all or nothing.

For a batch of prepared entries the script, atomically:

1. checks its preconditions: every entry is still pending for this
   consumer (nobody acked or claimed it meanwhile), the audit chain's head
   is the one the records were chained to, and each dedupe key
   (``seen:<hand_id>``) holds what the outcomes were decided against;
2. if any fails, changes nothing and returns what it found, so the worker
   re-plans with the facts (dropping entries that are gone) and tries again;
3. otherwise sets the dedupe keys of newly settled hands (with TTL), XADDs
   results, dead letters and audit records, advances the chain head and
   XACKs every entry.

So a crash, a lost reply or a redis-py re-send of the same script leaves
either everything or nothing, and a re-sent script whose first copy did
run finds its entries no longer pending and writes nothing twice.

Dedupe outcomes (decided by :func:`plan` against the keys' values):
``settled`` (no key), ``duplicate`` (key holds this event's digest: no
second result), ``rejected`` / ``conflicting_duplicate`` (key holds another
digest: dead letter). Audit hashes are sha256 computed here in Python,
because Redis Lua has no sha256; that is why the head is a precondition.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

import orjson

from showdown_core import InvariantViolation
from showdown_service.audit import Head, make_record, sha256_hex
from showdown_service.config import ShardKeys
from showdown_service.settling import Prepared
from showdown_service.tournament.book import SETTLED, Applied, Book
from showdown_service.tournament.store import writes
from showdown_service.wire import encode_result

COMMIT_LUA = """
local events, results, audit, dead, head_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local group, consumer, expected_head, new_head = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local ttl = tonumber(ARGV[5])
local results_maxlen, audit_maxlen, dead_maxlen = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local first_id, last_id, worker, at = ARGV[9], ARGV[10], ARGV[11], ARGV[12]
local nseen = tonumber(ARGV[13])
local base = 13 + nseen
local n = tonumber(ARGV[base + 1])
local F = 10

local function xadd(key, maxlen, ...)
  if maxlen > 0 then
    return redis.call('XADD', key, 'MAXLEN', '~', maxlen, '*', ...)
  end
  return redis.call('XADD', key, '*', ...)
end

-- 1. preconditions: ownership, stream order for tournaments, chain head, dedupe keys
local pending = {}
for _, row in ipairs(redis.call('XPENDING', events, group, first_id, last_id, 1000000, consumer)) do
  pending[row[1]] = true
end
local gone = {}
local inbatch = {}
for i = 0, n - 1 do
  local id = ARGV[base + 2 + i * F]
  inbatch[id] = true
  if not pending[id] then gone[#gone + 1] = id end
end
local w = base + 2 + n * F
local s = w + 1 + tonumber(ARGV[w]) * 2
local order_id = ARGV[s + 2 + tonumber(ARGV[s])]
if order_id ~= '' then
  -- a tournament's entries apply in stream order: none below the batch's last one may be pending elsewhere
  local blocked = {}
  for _, row in ipairs(redis.call('XPENDING', events, group, '-', order_id, 1000000)) do
    if not inbatch[row[1]] then blocked[#blocked + 1] = row[1] end
  end
  if #blocked > 0 then
    return {2, redis.call('GET', head_key) or '', blocked}
  end
end
local head = redis.call('GET', head_key) or ''
local stale = head ~= expected_head or #gone > 0
local seen_now = {}
for i = 1, nseen do
  local value = redis.call('GET', KEYS[5 + i]) or ''
  seen_now[i] = value
  if value ~= ARGV[13 + i] then stale = true end
end
if stale then
  return {0, head, gone, seen_now}
end

-- 2. effects
local ids = {}
for i = 0, n - 1 do
  local o = base + 2 + i * F
  local id, seen_index, result, record, code = ARGV[o], tonumber(ARGV[o + 1]), ARGV[o + 3], ARGV[o + 4], ARGV[o + 5]
  if seen_index > 0 then
    redis.call('SET', KEYS[5 + seen_index], ARGV[o + 2], 'EX', ttl)
  end
  if result ~= '' then
    xadd(results, results_maxlen, 'result', result)
  end
  if code ~= '' then
    xadd(dead, dead_maxlen, 'code', code, 'message', ARGV[o + 6], 'entry_id', id, 'raw', ARGV[o + 7],
         'raw_bytes', ARGV[o + 8], 'hand_id', ARGV[o + 9], 'worker', worker, 'at', at)
  end
  xadd(audit, audit_maxlen, 'audit', record)
  ids[#ids + 1] = id
  if #ids == 1000 then
    redis.call('XACK', events, group, unpack(ids))
    ids = {}
  end
end
if #ids > 0 then
  redis.call('XACK', events, group, unpack(ids))
end

-- 3. tournaments: each ledger's fields (one argument: a JSON array of strings field, value, ...; HSET 200 at a
--    time), then the placements on the standings stream
for g = 0, tonumber(ARGV[w]) - 1 do
  local key, fields = KEYS[tonumber(ARGV[w + 1 + g * 2])], cjson.decode(ARGV[w + 2 + g * 2])
  for i = 1, #fields, 400 do
    redis.call('HSET', key, unpack(fields, i, math.min(i + 399, #fields)))
  end
end
local nplaced, standings = tonumber(ARGV[s]), tonumber(ARGV[s + 1])
for i = 1, nplaced do
  xadd(KEYS[standings], 0, 'placement', ARGV[s + 1 + i])
end
redis.call('SET', head_key, new_head)
return {1, n}
"""


class LedgerInvariant(Exception):
    """The tournament ledger broke a rule it must never break while taking entry ``entry_id`` (a bug). The plan
    is abandoned (the worker's book is untouched: plans change a copy); the caller refuses that entry as
    ``invariant_violation`` and plans again."""

    def __init__(self, entry_id: str, reason: str) -> None:
        super().__init__(f"entry {entry_id}: {reason}")
        self.entry_id = entry_id
        self.reason = reason


class Decision(NamedTuple):
    """What happens to one entry if the commit goes through (a NamedTuple: one is built per entry)."""

    prepared: Prepared
    outcome: str
    """settled, rejected, duplicate or poison."""
    code: str | None
    message: str | None
    record: dict[str, Any]


@dataclass(slots=True)
class Plan:
    """One commit: the script's keys and arguments, and what it will do."""

    keys: list[str]
    args: list[Any]
    decisions: list[Decision]
    head: Head
    """The chain head after this commit."""
    seen_keys: list[str] = field(default_factory=list)
    book: Book | None = None
    """The tournament ledgers as this commit leaves them (a view of the worker's book), when it touched any."""


@dataclass(frozen=True, slots=True)
class Conflict:
    """A commit refused because the world moved: the facts to re-plan with."""

    head: Head
    gone: frozenset[str]
    """Entry ids no longer pending for this consumer (acked, or claimed by another)."""
    seen: dict[str, str | None]
    """Current value of each dedupe key the plan looked at (None: absent)."""
    blocked: tuple[str, ...] = ()
    """Entries below the batch's last tournament entry still pending outside the batch (another worker holds
    them, or they wait to be claimed): the batch may not overtake them. Nothing else was checked then."""


def plan(
    keys: ShardKeys,
    batch: Sequence[Prepared],
    seen: dict[str, str | None],
    head: Head,
    *,
    group: str,
    consumer: str,
    at: str,
    dedupe_ttl_s: int,
    maxlens: tuple[int, int, int],
    dead_raw_max_bytes: int,
    book: Book | None = None,
) -> Plan:
    """Decide every entry's outcome against ``seen`` (the dedupe keys' values) and chain its audit record.

    ``batch`` must be non-empty and in stream order. ``seen`` maps dedupe
    keys to the digest they hold (None or missing: absent); entries of the
    same hand within the batch see each other.

    ``book`` holds the ledgers of the batch's tournaments as they stand at
    ``head`` (None when the batch has no tournament entry): a view of it
    takes each tournament message and each newly settled hand of an opened
    tournament, in order; what the ledger refuses is dead-lettered, and what
    it changes is written by the same script (ledger fields, placements).
    """
    view = book.begin() if book is not None else None
    placed: list[bytes] = []
    order_id = ""
    """The last entry that a tournament's ledger took (it must not overtake an earlier entry held elsewhere)."""
    start = head
    seen_keys: list[str] = []
    index_of: dict[str, int] = {}
    state: dict[str, str | None] = {}
    decisions: list[Decision] = []
    entry_args: list[Any] = []
    for p in batch:
        seen_index = 0
        code, message = p.code, p.message
        result, result_sha256 = p.result, p.result_sha256
        placements: tuple[dict[str, Any], ...] = ()
        if code is None and p.tournament_message is not None:
            assert view is not None
            try:
                applied = view.apply_message(p.tournament_message)
            except InvariantViolation as exc:
                raise LedgerInvariant(p.entry_id, str(exc)) from exc
            outcome, code, message, placements = _read(applied)
            order_id = p.entry_id
        elif code is None:
            assert p.hand_id is not None
            if p.tournament_id is not None:  # even untracked: its `open` may be an earlier entry held elsewhere
                order_id = p.entry_id
            key = keys.seen(p.hand_id)
            if key not in index_of:
                seen_keys.append(key)
                index_of[key] = len(seen_keys)
                state[key] = seen.get(key)
            current = state[key]
            if current is None:
                outcome = "settled"
                if view is not None and p.settlement is not None:  # a tournament hand: the ledger may refuse it
                    try:
                        applied = view.apply_hand(p.settlement, p.hand_for_hand_round, p.bounties_given)
                    except InvariantViolation as exc:
                        raise LedgerInvariant(p.entry_id, str(exc)) from exc
                    if applied is not SETTLED:  # the usual hand is SETTLED: chips moved, nothing else
                        outcome, code, message, placements = _read(applied)
                    if applied.settlement is not None:  # bounties settled from the ledger's heads
                        result = encode_result(applied.settlement, _parse_at(at))
                        result_sha256 = sha256_hex(result)
                if outcome == "settled":
                    seen_index = index_of[key]
                    state[key] = p.event_sha256
            elif current == p.event_sha256:
                outcome = "duplicate"
            else:
                outcome, code = "rejected", "conflicting_duplicate"
                message = (
                    f"hand_id {p.hand_id!r} was already settled from a different event "
                    f"(sha256 {current[:16]}...; this one {p.event_sha256[:16]}...)"
                )
        else:
            outcome = "poison" if code == "poison" else "rejected"
        standings_sha256 = None
        if placements:
            texts = [orjson.dumps(placement) for placement in placements]
            placed += texts
            standings_sha256 = sha256_hex(b"[" + b",".join(texts) + b"]")
        record, record_json, head = make_record(
            head,
            hand_id=p.hand_id,
            entry_id=p.entry_id,
            outcome=outcome,
            code=code,
            event_sha256=p.event_sha256,
            result_sha256=result_sha256 if outcome == "settled" else None,
            worker=consumer,
            at=at,
            standings_sha256=standings_sha256,
        )
        decisions.append(Decision(p, outcome, code, message, record))
        entry_args += (  # the script reads these 10 per entry (F in COMMIT_LUA), in this order
            p.entry_id,
            seen_index,
            p.event_sha256 if seen_index else "",
            result if outcome == "settled" and result is not None else b"",
            record_json,
            code or "",
            message or "",
            p.raw[:dead_raw_max_bytes] if code else b"",
            len(p.raw) if code else 0,
            p.hand_id or "",
        )
    args: list[Any] = [
        group,
        consumer,
        "" if start.seq == 0 else start.encode(),  # the stored head, "" while the chain is empty
        head.encode(),
        dedupe_ttl_s,
        *maxlens,
        *_id_range(batch),
        consumer,
        at,
        len(seen_keys),
        *[seen.get(key) or "" for key in seen_keys],
        len(batch),
        *entry_args,
    ]
    script_keys = [keys.events, keys.results, keys.audit, keys.dead, keys.audit_head, *seen_keys]
    ledgers = writes(view) if view is not None else []
    if ledgers or placed:
        standings = len(script_keys) + 1  # KEYS are numbered from 1 in Lua
        script_keys.append(keys.standings)
        args.append(len(ledgers))
        for tournament_id, fields in ledgers:  # one argument per ledger: redis-py packs each argument
            script_keys.append(keys.tournament(tournament_id))
            args += (len(script_keys), fields)
        args += (len(placed), standings, *placed, order_id)
    else:
        args += (0, 0, 0, order_id)
    return Plan(
        keys=script_keys,
        args=args,
        decisions=decisions,
        head=head,
        seen_keys=seen_keys,
        book=view,
    )


def _read(applied: Applied) -> tuple[str, str | None, str | None, tuple[dict[str, Any], ...]]:
    if applied.refused is not None:
        return "rejected", applied.refused.code, applied.refused.message, ()
    outcome = "settled" if applied.outcome == "untracked" else applied.outcome
    return outcome, None, None, applied.placements


def _parse_at(at: str) -> datetime:
    return datetime.fromisoformat(at)


def read_reply(reply: list[Any], plan: Plan) -> Conflict | None:
    """``None`` if the commit went through, else the :class:`Conflict` it reported."""
    if int(reply[0]) == 1:
        return None
    if int(reply[0]) == 2:
        _, head, blocked = reply
        return Conflict(
            Head.decode(head), frozenset(), {}, tuple(b.decode() if isinstance(b, bytes) else b for b in blocked)
        )
    _, head, gone, seen_now = reply
    return Conflict(
        head=Head.decode(head),
        gone=frozenset(g.decode() if isinstance(g, bytes) else g for g in gone),
        seen={
            key: (value.decode() if isinstance(value, bytes) else value) or None
            for key, value in zip(plan.seen_keys, seen_now, strict=True)
        },
    )


def _id_range(batch: Sequence[Prepared]) -> tuple[str, str]:
    """The lowest and highest entry id of ``batch``: its first and last, since a batch is in stream order
    (XREADGROUP and XAUTOCLAIM return ids ascending, and a re-plan keeps the order); one whose first id is
    above its last is searched the long way."""
    first, last = batch[0], batch[-1]
    if _entry_order(first) <= _entry_order(last):
        return first.entry_id, last.entry_id
    return min(batch, key=_entry_order).entry_id, max(batch, key=_entry_order).entry_id


def _entry_order(p: Prepared) -> tuple[int, int]:
    ms, _, seq = p.entry_id.partition("-")
    return int(ms), int(seq or 0)
