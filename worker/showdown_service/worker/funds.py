"""Jackpot funds in Redis: one hash per jackpot id, in its shard's hash tag (docs/jackpot.md).

``<prefix>:{<shard>}:jackpot:<jackpot_id>`` holds the fund as its ledger
(:class:`showdown_core.jackpot.Fund`), one field each, decimal or text:

* ``program``: the program the first hand declared it with; ``seed``: what the room put in then;
* ``balance``: the fund now (``seed + dropped - paid``, never negative);
* ``hands``, ``drops``, ``dropped``: hands settled with the jackpot, those that dropped, every drop summed;
* ``payouts``, ``paid``: bad beats paid, every payout summed;
* ``last_bad_beat``, ``last_paid``, ``last_at``: the last bad beat's hand id, what it paid and when (absent
  before the first).

The fund is written only by the commit script, with the hand that moved it
(:mod:`showdown_service.worker.commit`), and read by the worker together with
the audit chain's head (:data:`LOAD_LUA`): a fund it plans on is exactly the one
at that head, as a tournament ledger is (:mod:`.ledger`). A hand re-sent is a
duplicate by its dedupe key in that same commit, so a drop or a payout moves the
fund once, across kills and requeues.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import orjson

from showdown_core.jackpot import Fund
from showdown_service.infra.config import ShardKeys

LOAD_LUA: Final = """
local out = {redis.call('GET', KEYS[1]) or ''}
for i = 2, #KEYS do
  out[#out + 1] = redis.call('HGETALL', KEYS[i])
end
return out
"""
"""KEYS: the audit head, then each jackpot's hash. Returns the head and each hash's fields, atomically."""

_COUNTS: Final = ("seed", "balance", "hands", "drops", "dropped", "payouts", "paid", "last_paid")


def encode(fund: Fund) -> list[str]:
    """The fund's hash as ``[field, value, ...]`` (what the commit script HSETs)."""
    fields = ["program", fund.program_id]
    for name in _COUNTS:
        fields += (name, str(getattr(fund, name)))
    if fund.last_bad_beat is not None:
        fields += ("last_bad_beat", fund.last_bad_beat, "last_at", fund.last_at or "")
    return fields


def decode(jackpot_id: str, fields: Mapping[str, bytes | str]) -> Fund | None:
    """A fund from its hash's fields; ``None`` for an empty hash (a jackpot not declared on this shard)."""
    if "program" not in fields:
        return None

    def text(name: str) -> str | None:
        value = fields.get(name)
        return value.decode() if isinstance(value, bytes) else value

    counts = {name: int(text(name) or 0) for name in _COUNTS}
    return Fund(
        jackpot_id,
        text("program") or "",
        counts["seed"],
        counts["balance"],
        counts["hands"],
        counts["drops"],
        counts["dropped"],
        counts["payouts"],
        counts["paid"],
        text("last_bad_beat") or None,
        counts["last_paid"],
        text("last_at") or None,
    )


def writes(funds: Mapping[str, Fund]) -> list[tuple[str, bytes]]:
    """``(jackpot_id, fields)`` for every fund a batch moved: its hash's fields as one JSON array of strings."""
    return [(jackpot_id, orjson.dumps(encode(funds[jackpot_id]))) for jackpot_id in sorted(funds)]


def load_reply(jackpot_ids: Sequence[str], reply: Sequence[Any]) -> tuple[bytes, dict[str, Fund | None]]:
    """The head and the funds from a :data:`LOAD_LUA` reply for ``jackpot_ids`` (in the order given)."""
    funds = {}
    for jackpot_id, flat in zip(jackpot_ids, reply[1:], strict=True):
        funds[jackpot_id] = decode(jackpot_id, {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)})
    return reply[0], funds


def fund_document(shard: str, fund: Fund) -> dict[str, Any]:
    """A fund as ``showdown jackpot ID --json`` and ``GET /v1/jackpots/{id}`` give it (one per shard holding it)."""
    last = None
    if fund.last_bad_beat is not None:
        last = {"hand_id": fund.last_bad_beat, "paid": fund.last_paid, "at": fund.last_at}
    return {
        "shard": shard,
        "program": fund.program_id,
        "balance": fund.balance,
        "seed": fund.seed,
        "hands": fund.hands,
        "drops": fund.drops,
        "dropped": fund.dropped,
        "payouts": fund.payouts,
        "paid": fund.paid,
        "last_bad_beat": last,
    }


def read_fund(client: Any, keys: ShardKeys, jackpot_id: str) -> Fund | None:
    """The jackpot's fund on one shard (HGETALL of its hash: what the reader user may run), or ``None``."""
    reply: dict[bytes, bytes] = client.hgetall(keys.jackpot(jackpot_id))
    return decode(jackpot_id, {name.decode(): value for name, value in reply.items()})


def read_funds(client: Any, keys_of: Iterable[ShardKeys], jackpot_id: str) -> dict[str, Fund]:
    """The jackpot's fund on each shard that holds one, by shard."""
    out = {}
    for keys in keys_of:
        fund = read_fund(client, keys, jackpot_id)
        if fund is not None:
            out[keys.shard] = fund
    return out
