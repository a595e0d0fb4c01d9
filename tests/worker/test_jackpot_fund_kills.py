"""Issue 39's done-when for jackpots: thousands of hands with drops and qualifying bad beats through real `showdown
worker` processes on a real local Redis, SIGKILLed at random mid-run and restarted; every fund equal to an
independent fold of the same hands (written here from the rules, not by calling the service), money in == money out.

The hands are generated so that which of them is a bad beat is known by construction, without an evaluator:

* a plain hand's board has five different ranks and at most two cards of a suit, so no seat can make a full house
  or better (no flush, no paired board for a boat or quads): never the program's bad beat (AAATT or better loses);
* a bad beat is four of a kind from a pocket pair (both hole cards play) losing to a straight flush whose five ranks
  are apart from the quads' rank (so neither the board's quads cards nor the loser's can make it), suits permuted.

The rules folded (GGPoker's Bad Beat Jackpot, issue 39; docs/jackpot.md): 1 big blind dropped from a pot of 30 big
blinds or more; a bad beat pays 10% of the fund (after the hand's own drop) to the losing hand, 3% to the winner,
0.8% to each other seat dealt in, each rounded down; the first hand of a fund declares its seed.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis

from showdown_service.infra.streams import read_range
from tests.helpers import event, seat

SHOWDOWN = [sys.executable, "-m", "showdown_service.cli.commands"]
HOLDEM = "ggpoker-bad-beat-holdem"
RANKS = "23456789TJQKA"
SUITS = "cdhs"
BIG_BLIND = 100
HANDS = 3000
RESENT = 150
"""Hands sent twice (a producer's retry): the second copy is a duplicate and moves no fund."""
FUNDS = {"bbj-a": 50_000, "bbj-b": None, "bbj-c": 1_000_000}
"""Each fund's seed, stated by every hand of it (None: no seed, the fund starts at 0)."""
PPM = 1_000_000
LOSER, WINNER, OTHER = 100_000, 30_000, 8_000


@dataclass(frozen=True, slots=True)
class Spec:
    """What the test knows of a hand it made: its fund, its drop, and the bad beat's seats (by construction)."""

    jackpot_id: str
    drop: int
    losers: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    others: tuple[int, ...] = ()


@dataclass(slots=True)
class Folded:
    """One fund folded from the results in commit order."""

    balance: int
    seed: int
    dropped: int = 0
    paid: int = 0
    hands: int = 0
    payouts: int = 0


def _deck(rng: random.Random) -> list[str]:
    cards = [r + s for r in RANKS for s in SUITS]
    rng.shuffle(cards)
    return cards


def _plain_board(rng: random.Random) -> list[str]:
    """Five different ranks, at most two of a suit: no seat makes a full house, quads or a flush."""
    while True:
        ranks = rng.sample(RANKS, 5)
        suits = [rng.choice(SUITS) for _ in ranks]
        if max(Counter(suits).values()) <= 2:
            return [r + s for r, s in zip(ranks, suits, strict=True)]


def _amounts(rng: random.Random, live: int, folded: int) -> tuple[list[int], list[int], int, int]:
    """Each live seat's (equal) contribution, each folded seat's, the rake (the drop in it) and the drop."""
    each = rng.choice([500, 1000, 1400, 1600, 2500, 4000])
    blinds = [rng.choice([0, 50, 100]) for _ in range(folded)]
    pot = each * live + sum(blinds)
    drop = BIG_BLIND if pot >= 30 * BIG_BLIND else 0  # GGPoker: 1 big blind from pots of 30 big blinds or more
    return [each] * live, blinds, drop + min(300, pot * 5 // 100), drop


def plain_hand(rng: random.Random, hand_id: str, jackpot_id: str) -> tuple[dict[str, Any], Spec]:
    board = _plain_board(rng)
    deck = [c for c in _deck(rng) if c not in board]
    live, folded = rng.choice([(2, 0), (2, 1), (3, 0), (2, 3)])
    stakes, blinds, rake, drop = _amounts(rng, live, folded)
    seats = [seat(n, f"{deck[2 * n]} {deck[2 * n + 1]}", stakes[n - 1]) for n in range(1, live + 1)]
    seats += [seat(live + k + 1, None, put_in, folded=True) for k, put_in in enumerate(blinds)]
    return _event(hand_id, jackpot_id, seats, board, rake, drop), Spec(jackpot_id, drop)


def bad_beat_hand(rng: random.Random, hand_id: str, jackpot_id: str) -> tuple[dict[str, Any], Spec]:
    """Quads from a pocket pair (seat 1 or 2) lose to a straight flush (the other); folded seats dealt in."""
    low = rng.randrange(0, 9)  # the straight flush's lowest rank: 2-6 up to T-A
    quads = rng.choice([i for i in range(13) if i < low - 1 or i > low + 5])
    flush_suit = rng.choice(SUITS)
    straight = [RANKS[low + k] + flush_suit for k in range(5)]
    held = rng.sample(straight, 2)
    q_suits = rng.sample(SUITS, 4)
    quad_cards = [RANKS[quads] + s for s in q_suits]
    board = [c for c in straight if c not in held] + quad_cards[:2]
    rng.shuffle(board)
    loser, winner = rng.sample([1, 2], 2)
    live, blinds, rake, drop = _amounts(rng, 2, rng.choice([0, 1, 2, 4]))
    hole = {loser: " ".join(quad_cards[2:]), winner: " ".join(held)}
    seats = [seat(n, hole[n], live[n - 1]) for n in (1, 2)]
    seats += [seat(3 + k, None, put_in, folded=True) for k, put_in in enumerate(blinds)]
    folded = tuple(range(3, 3 + len(blinds)))
    spec = Spec(jackpot_id, drop, (loser,), (winner,), folded)
    return _event(hand_id, jackpot_id, seats, board, rake, drop), spec


def _event(
    hand_id: str, jackpot_id: str, seats: list[dict[str, Any]], board: list[str], rake: int, drop: int
) -> dict[str, Any]:
    jackpot: dict[str, Any] = {"jackpot_id": jackpot_id, "program": HOLDEM, "drop": drop}
    if FUNDS[jackpot_id] is not None:
        jackpot["seed"] = FUNDS[jackpot_id]
    return event(*seats, board=" ".join(board), rake=rake, hand_id=hand_id, table_id=f"table-{hand_id[-1]}",
                 stakes={"small_blind": BIG_BLIND // 2, "big_blind": BIG_BLIND}, jackpot=jackpot)  # fmt: skip


def hands(rng: random.Random) -> tuple[list[dict[str, Any]], dict[str, Spec]]:
    """HANDS hands over the three funds, about one in twelve a bad beat; then RESENT of them sent again."""
    docs: list[dict[str, Any]] = []
    specs: dict[str, Spec] = {}
    for i in range(HANDS):
        hand_id, jackpot_id = f"J-{i}", rng.choice(sorted(FUNDS))
        make = bad_beat_hand if rng.random() < 1 / 12 else plain_hand
        doc, spec = make(rng, hand_id, jackpot_id)
        docs.append(doc)
        specs[hand_id] = spec
    for doc in rng.sample(docs, RESENT):
        docs.insert(rng.randrange(docs.index(doc) + 1, len(docs) + 1), doc)  # after its first copy
    return docs, specs


def fold(results: list[dict[str, Any]], specs: dict[str, Spec]) -> dict[str, Folded]:
    """Each fund folded from the rules over the results in commit order, checking each result's figures."""
    funds: dict[str, Folded] = {}
    for result in results:
        spec = specs[result["hand_id"]]
        seed = FUNDS[spec.jackpot_id] or 0
        fund = funds.setdefault(spec.jackpot_id, Folded(seed, seed))
        jackpot = result["jackpot"]
        before = fund.balance
        balance = before + spec.drop
        paid: dict[int, int] = {}
        if spec.losers:
            for seats, ppm in ((spec.losers, LOSER), (spec.winners, WINNER)):
                paid |= {s: balance * ppm // PPM // len(seats) for s in seats}
            paid |= dict.fromkeys(spec.others, balance * OTHER // PPM)
            fund.payouts += 1
        after = balance - sum(paid.values())
        assert after >= 0, "a fund is never negative"
        got = {r["seat"]: r["amount"] for r in jackpot.get("roles", ())}
        assert (jackpot["drop"], jackpot["bad_beat"], got) == (spec.drop, bool(spec.losers), paid), result["hand_id"]
        assert (jackpot["fund_before"], jackpot["fund_after"]) == (before, after), result["hand_id"]
        fund.balance = after
        fund.dropped += spec.drop
        fund.paid += sum(paid.values())
        fund.hands += 1
    return funds


@pytest.mark.parametrize("seed", [39])
def test_funds_through_killed_workers_equal_an_independent_fold_and_money_in_equals_money_out(
    redis_url: str, client: redis.Redis, make_settings: Any, tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    docs, specs = hands(rng)
    keys = make_settings(redis_url).keys("default")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOWDOWN_")}
    env.update(SHOWDOWN_REDIS_URL=redis_url, SHOWDOWN_METRICS_PORT="0", SHOWDOWN_BLOCK_MS="50",
               SHOWDOWN_CLAIM_IDLE_MS="500", SHOWDOWN_LOG_LEVEL="warning", SHOWDOWN_BATCH_SIZE="40")  # fmt: skip

    def start(slot: int, name: str) -> subprocess.Popen[bytes]:
        with (tmp_path / f"{name}.log").open("wb") as log:  # what a worker that died says (the assertion names it)
            return subprocess.Popen([*SHOWDOWN, "worker"], stdout=log, stderr=subprocess.STDOUT,
                                    env={**env, "SHOWDOWN_CONSUMER": name,
                                         "SHOWDOWN_HEARTBEAT_FILE": str(tmp_path / f"hb-{slot}")})  # fmt: skip

    workers = [start(0, "w0"), start(1, "w1")]  # two at once: their commits race on the shard's head
    kills = 0
    started = time.monotonic()
    try:
        for chunk in range(0, len(docs), 150):
            pipe = client.pipeline(transaction=False)
            for doc in docs[chunk : chunk + 150]:
                pipe.xadd(keys.events, {"event": json.dumps(doc)})
            pipe.execute()
            time.sleep(rng.uniform(0.05, 0.3))  # mid-batch, mid-commit: wherever the kill lands
            if rng.random() < 0.4:
                victim = rng.randrange(len(workers))
                workers[victim].send_signal(signal.SIGKILL)
                workers[victim].wait(10)
                kills += 1
                workers[victim] = start(victim, f"w{victim}-{kills}")
        deadline = time.monotonic() + 240
        while client.xlen(keys.audit) < len(docs):
            assert time.monotonic() < deadline, f"{client.xlen(keys.audit)} of {len(docs)} entries audited in 240 s"
            died = [w for w in workers if w.poll() is not None]
            assert not died, f"a worker died without being killed: {[w.args for w in died]}, logs in {tmp_path}"
            time.sleep(0.1)
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
                worker.wait(30)
    assert kills >= 3, kills
    assert time.monotonic() - started < 300
    outcomes = Counter(orjson.loads(f[b"audit"])["outcome"] for _, f in read_range(client, keys.audit))
    assert outcomes == {"settled": HANDS, "duplicate": RESENT}, outcomes
    assert client.xlen(keys.dead) == 0
    results = [orjson.loads(f[b"result"]) for _, f in read_range(client, keys.results)]  # in commit order
    assert sorted(r["hand_id"] for r in results) == sorted(specs), "every hand settled exactly once"
    folded = fold(results, specs)
    assert sum(f.payouts for f in folded.values()) >= HANDS // 20, "bad beats paid, on every fund"
    for jackpot_id, expected in folded.items():
        held: dict[bytes, bytes] = client.hgetall(keys.jackpot(jackpot_id))  # type: ignore[assignment]  # RESP2 bytes
        stored = {k.decode(): v.decode() for k, v in held.items()}
        assert int(stored["balance"]) == expected.balance, jackpot_id
        assert (int(stored["dropped"]), int(stored["paid"])) == (expected.dropped, expected.paid), jackpot_id
        assert (int(stored["hands"]), int(stored["payouts"])) == (expected.hands, expected.payouts), jackpot_id
        # money in == money out: every drop is a payout or still in the fund (less the seed the room put in)
        assert expected.dropped == expected.paid + expected.balance - expected.seed, jackpot_id
        assert expected.payouts > 0, jackpot_id
