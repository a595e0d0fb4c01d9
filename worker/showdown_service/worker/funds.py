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
fund once, across kills and requeues. After a Redis loss the restore writes each
fund back as the archive's results leave it (:func:`fold_archived`, called by
:func:`showdown_service.worker.restore.restore_after_loss`) before the new chain's
first commit: a fund never starts again at its seed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import orjson

from showdown_core import InvariantViolation
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


def fold_archived(rows: Iterable[tuple[str, str, str]]) -> dict[str, Fund]:
    """Each jackpot's fund as the archived results leave it: ``rows`` are ``(hand_id, settled_at, result JSON)`` of
    the shard's settled hands with a fund (their ``jackpot`` section has ``fund_before``/``fund_after``), in the order
    the chain settled them. The first hand of a fund declared it (its ``fund_before`` is the seed); each later one
    must start where the one before left it. Raises :class:`~showdown_core.InvariantViolation` naming the hand
    where the archive's funds do not follow on (money in != out), or a fund that ends negative: never restored."""
    funds: dict[str, Fund] = {}
    for hand_id, at, text in rows:
        jackpot = orjson.loads(text)["jackpot"]
        jackpot_id, before, after = jackpot["jackpot_id"], jackpot["fund_before"], jackpot["fund_after"]
        fund = funds.get(jackpot_id) or Fund(jackpot_id, jackpot["program"], before, before)
        if before != fund.balance:
            raise InvariantViolation(
                f"jackpot {jackpot_id!r}: hand {hand_id} found the fund at {before}, the one before left {fund.balance}"
            )
        beat, paid = bool(jackpot["bad_beat"]), sum(role.get("amount", 0) for role in jackpot.get("roles", ()))
        funds[jackpot_id] = Fund(
            jackpot_id,
            fund.program_id,
            fund.seed,
            after,
            fund.hands + 1,
            fund.drops + (jackpot["drop"] > 0),
            fund.dropped + jackpot["drop"],
            fund.payouts + beat,
            fund.paid + paid,
            hand_id if beat else fund.last_bad_beat,
            paid if beat else fund.last_paid,
            at if beat else fund.last_at,
        ).check()
    return funds
