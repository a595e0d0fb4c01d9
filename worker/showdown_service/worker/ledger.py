"""Tournament ledgers in Redis: one hash per tournament, in its shard's hash tag.

``<prefix>:{<shard>}:tournament:<tournament_id>`` holds:

* ``rules``: the tournament's settings and counters (JSON object; with a
  mystery-bounty stage, its pool and the envelopes left; with a deal, the
  deal and each entry's amount);
* ``e:<entry>:<player_id>``: one entry (JSON array: order, chips, bounty,
  bounty put up, stack at entry, bounty cash, status, place, tied, prize,
  held, purchases as ``[chips, bounty]`` pairs, mystery-bounty cash);
* ``c:<entry>:<player_id>``: the entry's chips (decimal), which win over
  the array's: the usual hand moves chips alone, and writes only these short
  fields (the array is written again when anything else of the entry moves,
  with its ``c:`` field beside it).

A finished tournament's ledger may be *expired* (:func:`expired_fields`,
:data:`EXPIRE_LUA`): its ``e:``/``c:`` fields give way to one short
``f:<entry>:<player_id>`` field per entry (JSON array: stack at entry, bounty
put up, purchases as ``[chips, bounty]`` pairs), all a finished ledger reads
to decide a late message (a repeated ``entry`` or ``chips`` message is a
duplicate or a conflict by these figures; every other late line is refused
from ``rules`` alone): the decisions stay the same, byte for byte.

The worker writes these fields only inside its commit script (with the
hand or message that changed them) and reads them together with the audit
chain's head (:data:`LOAD_LUA`), so a ledger it plans on is exactly the one
at that head: any other commit on the shard moves the head, and the commit's
check of the head then refuses the plan.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

import orjson

from showdown_core.tournament import Book, Deal, Entry, Ledger, Rules
from showdown_service.infra.config import ShardKeys

LOAD_LUA: Final = """
local out = {redis.call('GET', KEYS[1]) or ''}
local lost = {}
for i = 3, #KEYS do
  local fields = redis.call('HGETALL', KEYS[i])
  out[#out + 1] = fields
  if #fields == 0 and redis.call('SISMEMBER', KEYS[2], ARGV[i - 2]) == 1 then
    lost[#lost + 1] = ARGV[i - 2]
  end
end
out[#out + 1] = lost
return out
"""
"""KEYS: the audit head, the shard's ``tournaments:lost`` set, then each tournament's hash; ARGV: each tournament's
id. Returns the head, each hash's fields, and the ids among them whose ledger Redis lost (no hash, and in the
set), atomically."""

RULES_FIELD: Final = "rules"
_STATUS: Final = {"playing": 0, "held": 1, "finished": 2}
_STATUS_NAME: Final = {v: k for k, v in _STATUS.items()}


EXPIRE_LUA: Final = """
if redis.call('HGET', KEYS[1], 'rules') ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
for i = 2, #ARGV, 1000 do
  redis.call('HSET', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
return 1
"""
"""KEYS: a tournament's hash; ARGV: its ``rules`` field as read, then the expired ledger's fields and values (from
:func:`expired_fields`). Replaces the hash by them, atomically, only if ``rules`` is still the one read (a finished
ledger's never changes: a ledger that moved meanwhile is left whole). Returns 1 if replaced, else 0. The fields
go in 500 at a time: Lua's ``unpack`` refuses some 8,000 values at once (a tournament of 4,000 entries)."""


def expire(client: Any, keys: ShardKeys, tournament_ids: Iterable[str]) -> list[str]:
    """Expire each finished ledger of ``tournament_ids`` (one HGETALL, then :data:`EXPIRE_LUA`); returns those
    expired. The archiver calls it once the entry that finished them is archived."""
    script = client.register_script(EXPIRE_LUA)
    done = []
    for tournament_id in sorted(tournament_ids):
        key = keys.tournament(tournament_id)
        fields = {name.decode(): value for name, value in client.hgetall(key).items()}
        if any(name.startswith("f:") for name in fields):
            continue  # expired already
        kept = expired_fields(fields)
        if kept is not None and script(keys=[key], args=[fields[RULES_FIELD], *(x for pair in kept for x in pair)]):
            done.append(tournament_id)
    return done


def figures_field(player_id: str, entry: int) -> str:
    return f"f:{entry}:{player_id}"


def expired_fields(fields: dict[str, bytes]) -> list[tuple[str, bytes]] | None:
    """The fields of a finished ledger once expired (``rules`` first, then one ``f:`` field per entry), from its
    hash's fields; ``None`` when it is not finished (or not there): only a finished ledger expires."""
    ledger = decode_ledger(fields)
    if ledger is None or not ledger.over:
        return None
    figures = [
        (figures_field(e.player_id, e.entry), orjson.dumps([e.stack_in, e.bounty_in, e.bought]))
        for e in ledger.entries.values()
    ]
    return [(RULES_FIELD, fields[RULES_FIELD]), *figures]


def entry_field(player_id: str, entry: int) -> str:
    return f"e:{entry}:{player_id}"


def chips_field(player_id: str, entry: int) -> str:
    return f"c:{entry}:{player_id}"


def encode_entry(e: Entry) -> bytes:
    return orjson.dumps(
        [
            e.order,
            e.chips,
            e.bounty,
            e.bounty_in,
            e.stack_in,
            e.bounty_cash,
            _STATUS[e.status],
            e.place,
            e.tied,
            e.prize,
            e.held,
            e.bought,
            e.mystery_cash,
        ]
    )


def decode_entry(name: str, raw: bytes) -> Entry:
    _, number, player_id = name.split(":", 2)
    order, chips, bounty, bounty_in, stack_in, cash, status, place, tied, prize, held, *rest = orjson.loads(raw)
    bought = tuple((c, b) for c, b in rest[0]) if rest else ()  # written before rebuys were kept: none
    mystery_cash = rest[1] if len(rest) > 1 else 0  # written before mystery bounties: none
    return Entry(
        player_id,
        int(number),
        order,
        chips,
        bounty,
        bounty_in,
        stack_in,
        cash,
        _STATUS_NAME[status],  # type: ignore[arg-type]
        place,
        tied,
        prize,
        tuple(held) if held is not None else None,
        bought,
        mystery_cash,
    )


def encode_rules(ledger: Ledger) -> bytes:
    r = ledger.rules
    extra: dict[str, Any] = {}
    if r.mystery_from is not None:
        extra["mystery_from"] = r.mystery_from
        extra["mystery_pool"] = r.mystery_pool
        extra["envelopes_left"] = sorted(ledger.envelopes_left.items())
    if ledger.rounds_seen:
        extra["rounds_seen"] = ledger.rounds_seen
    if ledger.deal is not None:
        d = ledger.deal
        extra["deal"] = [d.method, d.left_to_play_for, [[*key, amount] for key, amount in d.amounts], d.custom]
    return orjson.dumps(
        {
            **extra,
            "tournament_id": r.tournament_id,
            "payouts": r.payouts,
            "opened_payouts": ledger.opened_payouts,
            "bounty_cash_ppm": r.bounty_cash_ppm,
            "equal_stacks": r.equal_stacks,
            "hand_for_hand": r.hand_for_hand,
            "satellite": r.satellite,
            "registration_open": ledger.registration_open,
            "next_order": ledger.next_order,
            "rounds_done": ledger.rounds_done,
            "over": ledger.over,
        }
    )


def decode_ledger(fields: dict[str, bytes]) -> Ledger | None:
    """A ledger from its hash's fields; ``None`` for an empty hash (a tournament never opened)."""
    raw = fields.get(RULES_FIELD)
    if raw is None:
        return None
    doc = orjson.loads(raw)
    ledger = Ledger(
        Rules(
            doc["tournament_id"],
            tuple(doc["payouts"]),
            doc["bounty_cash_ppm"],
            doc["equal_stacks"],
            doc["hand_for_hand"],
            doc["satellite"],
            doc.get("mystery_from"),
            tuple((amount, count) for amount, count in doc.get("mystery_pool", ())),
        ),
        registration_open=doc["registration_open"],
        next_order=doc["next_order"],
        rounds_done=doc["rounds_done"],
        over=doc["over"],
        opened_payouts=tuple(doc["opened_payouts"]),
        rounds_seen=doc.get("rounds_seen", 0),
        envelopes_left=dict(doc.get("envelopes_left", ())),
    )
    if "deal" in doc:
        method, kept, amounts, custom = doc["deal"]
        ledger.deal = Deal(method, kept, tuple(((p, e), a) for p, e, a in amounts), custom)
    for name, value in fields.items():
        if name.startswith("e:"):
            e = decode_entry(name, value)
            ledger.entries[e.key] = e
            if e.status != "finished":
                ledger.live[e.player_id] = e
            ledger.entered[e.player_id] = max(ledger.entered.get(e.player_id, 0), e.entry)
        elif name.startswith("f:"):  # an expired ledger's entry: finished, its figures at entry and purchases only
            _, number, player_id = name.split(":", 2)
            stack_in, bounty_in, bought = orjson.loads(value)
            e = Entry(player_id, int(number), 0, 0, 0, bounty_in, stack_in, status="finished",
                      bought=tuple((c, b) for c, b in bought))  # fmt: skip
            ledger.entries[e.key] = e
            ledger.entered[player_id] = max(ledger.entered.get(player_id, 0), e.entry)
            ledger.expired = True
    for name, value in fields.items():
        if name.startswith("c:"):
            _, number, player_id = name.split(":", 2)
            ledger.entries[(player_id, int(number))].chips = int(value)
    ledger.count()
    return ledger


def pairs(reply: Sequence[bytes]) -> dict[str, bytes]:
    """An HGETALL reply (RESP2: a flat list) as ``{field: value}``."""
    return {reply[i].decode(): reply[i + 1] for i in range(0, len(reply), 2)}


def writes(view: Book) -> list[tuple[str, bytes]]:
    """``(tournament_id, fields)`` for every tournament a book view changed: the fields its hash takes, as one JSON
    array of strings ``[field, value, field, value, ...]`` (the commit script decodes it and HSETs them).

    Whole entries (``e:`` and ``c:``) where more than chips moved, the ``c:`` field alone where only chips did
    (each entry once, however many of the view's hands it played), the ``rules`` field when settings or counters
    moved.
    """
    out: list[tuple[str, bytes]] = []
    chips_changed = view.chips_changed
    for tournament_id in sorted(view.changed.keys() | view.meta_changed | chips_changed.keys()):
        ledger = view.ledgers[tournament_id]
        assert ledger is not None
        entries = ledger.entries
        fields: list[str] = []
        if tournament_id in view.meta_changed:
            fields += (RULES_FIELD, encode_rules(ledger).decode())
        whole: set[int] = set()
        for key in view.changed.get(tournament_id, ()):
            entry = entries[key]
            whole.add(id(entry))
            fields += (entry_field(*key), encode_entry(entry).decode(), chips_field(*key), str(entry.chips))
        moved = chips_changed.get(tournament_id, ())
        for tag, entry in dict(zip(map(id, moved), moved, strict=True)).items():  # each once (in place: one object)
            if tag not in whole:
                fields += (f"c:{entry.entry}:{entry.player_id}", str(entry.chips))
        out.append((tournament_id, orjson.dumps(fields)))
    return out


def read_book(client: Any, keys: ShardKeys, tournament_id: str) -> Book | None:
    """The tournament's ledger on one shard (HGETALL of its hash: what the reader user may run), or ``None`` when
    it is not there. For reading standings; the worker reads ledgers with the audit head (:data:`LOAD_LUA`)."""
    reply: dict[bytes, bytes] = client.hgetall(keys.tournament(tournament_id))
    ledger = decode_ledger({name.decode(): value for name, value in reply.items()})
    return None if ledger is None else Book({tournament_id: ledger})


def load_reply(
    tournament_ids: Iterable[str], reply: Sequence[Any]
) -> tuple[bytes, dict[str, Ledger | None], frozenset[str]]:
    """The head, the ledgers and the lost ones' ids from a :data:`LOAD_LUA` reply for ``tournament_ids`` (in the
    order given)."""
    head = reply[0]
    ledgers = {tid: decode_ledger(pairs(fields)) for tid, fields in zip(tournament_ids, reply[1:-1], strict=True)}
    lost = frozenset(t.decode() if isinstance(t, bytes) else str(t) for t in reply[-1])
    return head, ledgers, lost
