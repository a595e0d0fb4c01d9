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

Every outcome is decided by :func:`showdown_service.decision.decide.decide` (the
same step every replay runs); this module only packs the decision into the
script's keys and arguments and reads the reply. The arguments are laid out
once, by name (:class:`Header`, :class:`EntryArgs`), and the script reads
them by those names: a new output is one name added here and used there.
Audit hashes are sha256 computed in Python, because Redis Lua has no sha256;
that is why the head is a precondition.

Over 400 lines because the script and the Python that packs its arguments
must change together (one named layout each side reads); splitting them
would put the two halves of one contract in two files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from string import Template
from typing import Any, Final, NamedTuple

from showdown_core.jackpot import Fund
from showdown_core.tournament import Book
from showdown_messages.protocol import (
    AUDIT_FIELD,
    DEAD_LETTER_FIELDS,
    ENTRY_ID_FIELD,
    PLACEMENT_FIELD,
    RESULT_FIELD,
    entry_order,
)
from showdown_service.decision.audit import Head
from showdown_service.decision.decide import Decided, Decision, LedgerInvariant, decide
from showdown_service.decision.settling import Prepared
from showdown_service.infra.config import ShardKeys
from showdown_service.worker.funds import writes as fund_writes
from showdown_service.worker.ledger import writes

__all__ = [
    "COMMIT_LUA", "Conflict", "Decision", "EntryArgs", "Header", "LedgerArgs", "LedgerInvariant", "Plan", "plan",
    "read_reply",
]  # fmt: skip


class ScriptKeys(NamedTuple):
    """The script's first keys, in order; then each hand's dedupe key, then (with tournaments) the standings
    stream, the shard's open-tournaments set and each ledger's hash."""

    events: str
    results: str
    audit: str
    dead: str
    head: str
    epoch: str
    """The chain's epoch id (written with the first record)."""
    reset: str
    """The shard's ``audit:reset`` hash: the first record of a chain restarted after a loss names itself there."""


class Header(NamedTuple):
    """The script's first arguments, in order."""

    group: str
    consumer: str
    expected_head: str
    """The stored head the records were chained on; ``""`` while the chain is empty."""
    new_head: str
    dedupe_ttl_s: int
    results_maxlen: int
    audit_maxlen: int
    dead_maxlen: int
    first_id: str
    last_id: str
    """The batch's lowest and highest entry id (the XPENDING range its ownership is checked in)."""
    worker: str
    at: str
    epoch: str
    """The first record's hash when the batch starts the chain (``expected_head`` is ``""``): the chain's epoch id,
    written to the shard's ``audit:epoch``; ``""`` otherwise."""


class EntryArgs(NamedTuple):
    """One entry's arguments, in order (after the header and the dedupe keys' expected values)."""

    entry_id: str
    seen_index: int
    """1-based index of the hand's dedupe key among the script's dedupe keys, when a newly settled hand sets it;
    0 otherwise."""
    digest: str
    """What that key takes (the event's digest), or ``""``."""
    result: bytes
    record: bytes
    code: str
    message: str
    raw: bytes
    raw_bytes: int
    hand_id: str


class LedgerArgs(NamedTuple):
    """One ledger's arguments, in order (after the ledgers' count and the open set's key index)."""

    key_index: int
    """1-based index of the ledger's hash among the script's keys."""
    fields: bytes
    """The fields it takes: one JSON array of strings ``[field, value, ...]`` (:func:`writes`)."""
    open: str
    """``"1"`` while the tournament is open (the script SADDs its id to the shard's ``tournaments:open`` set),
    ``"0"`` once its winner is placed (SREM): the set is what the ``showdown_tournaments_open`` gauge counts."""
    tournament_id: str


def _offsets(names: Sequence[str], first: int) -> str:
    return "{" + ", ".join(f"{name} = {first + i}" for i, name in enumerate(names)) + "}"


_LUA: Final = Template("""
local K = $keys
local H = $header
local E = $entry
local F = $width
local L = $ledger
local LW = $lwidth
local events, results, audit, dead = KEYS[K.events], KEYS[K.results], KEYS[K.audit], KEYS[K.dead]
local head_key = KEYS[K.head]
local group, consumer = ARGV[H.group], ARGV[H.consumer]
local expected_head, new_head = ARGV[H.expected_head], ARGV[H.new_head]
local ttl = tonumber(ARGV[H.dedupe_ttl_s])
local results_maxlen = tonumber(ARGV[H.results_maxlen])
local audit_maxlen, dead_maxlen = tonumber(ARGV[H.audit_maxlen]), tonumber(ARGV[H.dead_maxlen])
local first_id, last_id, worker, at = ARGV[H.first_id], ARGV[H.last_id], ARGV[H.worker], ARGV[H.at]
-- each entry's offsets as locals (read per entry: a local is a register, a table field a lookup)
local E_ID, E_SEEN, E_DIGEST, E_RESULT, E_RECORD = E.entry_id, E.seen_index, E.digest, E.result, E.record
local E_CODE, E_MESSAGE, E_RAW, E_RAW_BYTES, E_HAND = E.code, E.message, E.raw, E.raw_bytes, E.hand_id
local NH, NK = $nheader, $nkeys
local nseen = tonumber(ARGV[NH + 1])
local base = NH + 1 + nseen
local n = tonumber(ARGV[base + 1])

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
  local id = ARGV[base + 2 + i * F + E_ID]
  inbatch[id] = true
  if not pending[id] then gone[#gone + 1] = id end
end
local w = base + 2 + n * F
local s = w + 2 + tonumber(ARGV[w]) * LW
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
  local value = redis.call('GET', KEYS[NK + i]) or ''
  seen_now[i] = value
  if value ~= ARGV[NH + 1 + i] then stale = true end
end
if stale then
  return {0, head, gone, seen_now}
end

-- 2. effects
local ids = {}
for i = 0, n - 1 do
  local o = base + 2 + i * F
  local id, seen_index, result, record, code = ARGV[o + E_ID], tonumber(ARGV[o + E_SEEN]),
    ARGV[o + E_RESULT], ARGV[o + E_RECORD], ARGV[o + E_CODE]
  if seen_index > 0 then
    redis.call('SET', KEYS[NK + seen_index], ARGV[o + E_DIGEST], 'EX', ttl)
  end
  if result ~= '' then
    xadd(results, results_maxlen, '$result', result, '$entry_id', id, '$d_hand_id', ARGV[o + E_HAND])
  end
  if code ~= '' then
    xadd(dead, dead_maxlen, '$d_code', code, '$d_message', ARGV[o + E_MESSAGE], '$d_entry_id', id,
         '$d_raw', ARGV[o + E_RAW], '$d_raw_bytes', ARGV[o + E_RAW_BYTES], '$d_hand_id', ARGV[o + E_HAND],
         '$d_worker', worker, '$d_at', at)
  end
  xadd(audit, audit_maxlen, '$audit', record)
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
--    time) and its membership of the shard's open set (SADD while open, SREM once finished: a set, so a
--    re-applied commit counts nothing twice), then the placements on the standings stream
local nledgers = tonumber(ARGV[w])
local open_set = nledgers > 0 and KEYS[tonumber(ARGV[w + 1])] or nil
for g = 0, nledgers - 1 do
  local o = w + 2 + g * LW
  local key, fields = KEYS[tonumber(ARGV[o + L.key_index])], cjson.decode(ARGV[o + L.fields])
  for i = 1, #fields, 400 do
    redis.call('HSET', key, unpack(fields, i, math.min(i + 399, #fields)))
  end
  if ARGV[o + L.open] == '1' then
    redis.call('SADD', open_set, ARGV[o + L.tournament_id])
  else
    redis.call('SREM', open_set, ARGV[o + L.tournament_id])
  end
end
local nplaced, standings = tonumber(ARGV[s]), tonumber(ARGV[s + 1])
for i = 1, nplaced do
  xadd(KEYS[standings], 0, '$placement', ARGV[s + 1 + i])
end
if expected_head == '' then
  -- the chain's first record: its hash is the chain's epoch id; a chain restarted after a loss says when it began
  redis.call('SET', KEYS[K.epoch], ARGV[H.epoch])
  if redis.call('EXISTS', KEYS[K.reset]) == 1 then
    redis.call('HSET', KEYS[K.reset], 'epoch', ARGV[H.epoch], 'began_at', at)
  end
end
-- 4. jackpot funds (only when the batch moved one): each fund's hash, its fields as one JSON array of strings
local f = s + 3 + nplaced
if ARGV[f] then
  for j = 0, tonumber(ARGV[f]) - 1 do
    redis.call('HSET', KEYS[tonumber(ARGV[f + 1 + 2 * j])], unpack(cjson.decode(ARGV[f + 2 + 2 * j])))
  end
end
redis.call('SET', head_key, new_head)
return {1, n}
""")

COMMIT_LUA: Final = _LUA.substitute(
    keys=_offsets(ScriptKeys._fields, 1),
    header=_offsets(Header._fields, 1),
    entry=_offsets(EntryArgs._fields, 0),
    width=len(EntryArgs._fields),
    ledger=_offsets(LedgerArgs._fields, 0),
    lwidth=len(LedgerArgs._fields),
    nheader=len(Header._fields),
    nkeys=len(ScriptKeys._fields),
    result=RESULT_FIELD,
    entry_id=ENTRY_ID_FIELD,
    audit=AUDIT_FIELD,
    placement=PLACEMENT_FIELD,
    **{f"d_{name}": name for name in DEAD_LETTER_FIELDS},
)
"""The commit script. Arguments: :class:`Header`; the count of dedupe keys and the value each must still hold;
the count of entries and each entry's :class:`EntryArgs`; the count of ledgers, the open set's key index and
each ledger's :class:`LedgerArgs`; the count of placements, the standings key's index and each placement; the id a
tournament's order is checked below (``""``: none); then, only when the batch moved a jackpot fund, the count of funds
and each fund's key index and fields (a JSON array of strings, :func:`showdown_service.worker.funds.writes`). Keys:
:class:`ScriptKeys`, the dedupe keys, then (with tournaments) the standings stream, the shard's open set and the
ledgers, then (with funds) each fund's hash."""


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
    funds: dict[str, Fund] = field(default_factory=dict)
    """The jackpot funds this commit moves, as it leaves them (empty: none)."""
    lost: frozenset[str] = frozenset()
    """The batch's tournaments whose ledgers Redis lost (refused ``ledger_lost``): never held by the worker (their
    ledgers are read again until restored)."""


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
    lost: frozenset[str] = frozenset(),
    funds: Mapping[str, Fund | None] | None = None,
) -> Plan:
    """Decide ``batch`` (:func:`showdown_service.decision.decide.decide`) and pack the decision into a commit.

    ``batch`` must be non-empty and in stream order. ``seen`` maps dedupe
    keys to the digest they hold (None or missing: absent). ``book`` holds
    the ledgers of the batch's tournaments as they stand at ``head`` (None
    when the batch has no tournament entry); ``lost``: the batch's tournaments whose ledgers Redis lost; ``funds``: the
    batch's jackpot funds as they stand at ``head`` (None or absent: not declared). Raises
    :class:`~showdown_service.decision.decide.LedgerInvariant` as :func:`decide` does.
    """
    prefix = keys.seen_prefix
    by_hand = {name[len(prefix) :]: value for name, value in seen.items() if name.startswith(prefix)}
    decided = decide(batch, by_hand, head, worker=consumer, at=at, book=book, lost=lost, funds=funds)
    planned = pack(keys, decided, start=head, seen=by_hand, group=group, consumer=consumer, at=at,
                   dedupe_ttl_s=dedupe_ttl_s, maxlens=maxlens, dead_raw_max_bytes=dead_raw_max_bytes)  # fmt: skip
    planned.lost = lost
    return planned


def pack(
    keys: ShardKeys,
    decided: Decided,
    *,
    start: Head,
    seen: dict[str, str | None],
    group: str,
    consumer: str,
    at: str,
    dedupe_ttl_s: int,
    maxlens: tuple[int, int, int],
    dead_raw_max_bytes: int,
) -> Plan:
    """The commit script's keys and arguments for ``decided`` (chained on ``start``; ``seen`` by hand id)."""
    seen_keys = [keys.seen(hand_id) for hand_id in decided.hands]
    index_of = {hand_id: i for i, hand_id in enumerate(decided.hands, 1)}
    decisions = decided.decisions
    entry_args: list[Any] = []
    for d in decisions:  # each entry's EntryArgs, as a plain tuple (the hot path: no NamedTuple built per entry)
        p = d.prepared
        code = d.code
        remembers = d.remembers
        entry_args += (
            p.entry_id,
            index_of[p.hand_id] if remembers else 0,  # type: ignore[index]  # a settled hand has its id
            p.event_sha256 if remembers else "",
            d.result or b"",
            d.record_json,
            code or "",
            d.message or "",
            p.raw[:dead_raw_max_bytes] if code else b"",
            len(p.raw) if code else 0,
            p.hand_id or "",
        )
    first_id, last_id = _id_range([d.prepared for d in decisions])
    header = Header(
        group,
        consumer,
        "" if start.seq == 0 else start.encode(),  # the stored head, "" while the chain is empty
        decided.head.encode(),
        dedupe_ttl_s,
        *maxlens,
        first_id,
        last_id,
        consumer,
        at,
        str(decisions[0].record["hash"]) if start.seq == 0 else "",
    )
    args: list[Any] = [
        *header,
        len(seen_keys),
        *[seen.get(hand_id) or "" for hand_id in decided.hands],
        len(decisions),
        *entry_args,
    ]
    script_keys = [
        *ScriptKeys(keys.events, keys.results, keys.audit, keys.dead, keys.audit_head, keys.audit_epoch,
                    keys.audit_reset),
        *seen_keys,
    ]  # fmt: skip
    view = decided.book
    ledgers = writes(view) if view is not None else []
    placed = [text for d in decisions for text in d.placement_texts]
    if ledgers or placed:
        standings = len(script_keys) + 1  # KEYS are numbered from 1 in Lua
        script_keys += (keys.standings, keys.tournaments_open)
        args += (len(ledgers), len(script_keys))
        for tournament_id, fields in ledgers:  # one argument per field list: redis-py packs each argument
            script_keys.append(keys.tournament(tournament_id))
            ledger = view.ledgers[tournament_id] if view is not None else None
            assert ledger is not None  # writes() lists only a view's ledgers
            args += LedgerArgs(len(script_keys), fields, "0" if ledger.over else "1", tournament_id)
        args += (len(placed), standings, *placed, decided.order_id)
    else:
        args += (0, 0, 0, 0, decided.order_id)
    if decided.funds:  # absent otherwise: the script reads no argument more for a batch without a jackpot
        funds = fund_writes(decided.funds)
        args.append(len(funds))
        for jackpot_id, fields in funds:
            script_keys.append(keys.jackpot(jackpot_id))
            args += (len(script_keys), fields)
    return Plan(keys=script_keys, args=args, decisions=decisions, head=decided.head, seen_keys=seen_keys, book=view,
                funds=decided.funds)  # fmt: skip


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
    first, last = batch[0].entry_id, batch[-1].entry_id
    if entry_order(first) <= entry_order(last):
        return first, last
    ids = [p.entry_id for p in batch]
    return min(ids, key=entry_order), max(ids, key=entry_order)
