"""The event's jackpot drop through a worker (issue 39 item 1; decision/jackpot_live.py): checked against its
program (data/jackpot/), refused with its own code and dead-lettered otherwise, the bad beat named in the result."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import fakeredis
import orjson
import pytest

from showdown_core import InvalidEvent
from showdown_messages import ShowdownResult
from showdown_service.decision.audit import Head
from showdown_service.decision.jackpot_live import read_program, shipped_programs
from showdown_service.decision.render import describe_result
from showdown_service.decision.settling import prepare
from showdown_service.decision.twin import Twin
from showdown_service.infra.streams import read_range
from showdown_service.worker.loop import Worker
from tests.helpers import event, refusal, seat

HOLDEM = "ggpoker-bad-beat-holdem"


def ggpoker_kings(drop: int = 200, **jackpot: Any) -> dict[str, Any]:
    """../shared/data/rooms-more/GGPoker/.../HandActionTests/PaysCashoutFee.txt (HD149101, $1/$2): 'Total pot
    $251.86 | Rake $6 | Jackpot $2': a pot of 125 big blinds drops 1 big blind; `rake` counts both (800)."""
    return event(
        seat(1, None, 0, folded=True, stack=51243, player_id="vda35fd1"),
        seat(2, None, 440, folded=True, stack=5219, player_id="fma3fca1"),
        seat(3, "Kd Kc", 12273, stack=14639, player_id="oiesfcv1"),
        seat(4, None, 0, folded=True, stack=10300, player_id="Hero"),
        seat(5, "3d 3h", 12273, stack=12273, player_id="tyx36123"),
        seat(6, None, 200, folded=True, stack=10081, player_id="b6887901"),
        board="8d 9h 2c Ts Qh",
        button=4,
        rake=800,
        hand_id="HD149101",
        stakes={"small_blind": 100, "big_blind": 200},
        jackpot={"jackpot_id": "ggpoker-bbj-usd", "program": HOLDEM, "drop": drop} | jackpot,
    )


def bad_beat_hand(hand_id: str = "BB-1") -> dict[str, Any]:
    """Aces full of tens (seat 1, both hole cards playing) lose to four tens (seat 2); seat 3 folded, dealt in."""
    return event(
        seat(1, "Ad Ah", 3000),
        seat(2, "Tc Th", 3000),
        seat(3, None, 100, folded=True),
        board="Ac Td Ts 4h 2c",
        rake=400,
        hand_id=hand_id,
        stakes={"small_blind": 50, "big_blind": 100},
        jackpot={"jackpot_id": "ggpoker-bbj-usd", "program": HOLDEM, "drop": 100},
    )


def _run(fake: fakeredis.FakeRedis, make_settings: Any, *docs: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    settings = make_settings()
    keys = settings.keys("default")
    for doc in docs:
        fake.xadd(keys.events, {"event": json.dumps(doc)})
    worker = Worker(settings, fake)
    worker.run(until_idle=True)
    results = [json.loads(fields[b"result"]) for _, fields in read_range(fake, keys.results)]
    return results, [fields for _, fields in read_range(fake, keys.dead)]


def test_a_real_ggpoker_drop_settles_and_a_wrong_one_is_a_dead_letter(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    wrong = ggpoker_kings(drop=100) | {"hand_id": "HD149101-bad"}
    results, dead = _run(fake, make_settings, ggpoker_kings(), wrong)
    [result] = results
    ShowdownResult.model_validate(result)
    assert result["jackpot"] == {"jackpot_id": "ggpoker-bbj-usd", "program": HOLDEM, "drop": 200, "bad_beat": False,
                                 "fund_before": 0, "fund_after": 200}  # fmt: skip
    [letter] = dead
    assert letter[b"code"] == b"jackpot_drop_mismatch"
    assert b"drops 200 from a pot of 25186" in letter[b"message"]
    assert b"stated 100" in letter[b"message"]


def test_a_bad_beat_names_the_hands_and_every_seats_share(fake: fakeredis.FakeRedis, make_settings: Any) -> None:
    # GGPoker: 10% to the losing hand, 3% to the winner, 0.8% to each other seat dealt in
    [result], dead = _run(fake, make_settings, bad_beat_hand())
    assert dead == []
    jackpot = result["jackpot"]
    assert jackpot["bad_beat"] is True
    assert jackpot["losing_hand"] == "Full house, Aces full of Tens"
    assert [(r["seat"], r["role"], r["ppm"]) for r in jackpot["roles"]] == [
        (1, "loser", 100_000),
        (2, "winner", 30_000),
        (3, "other", 8_000),
    ]
    # the fund was declared by this hand (no seed): its 100 drop, then 10% = 10, 3% = 3, 0.8% = 0 (rounded down)
    assert describe_result(result).endswith(
        "jackpot 100 dropped to ggpoker-bbj-usd (fund 0 -> 87); bad beat: Full house, Aces full of Tens loses to "
        "Four of a kind, Tens, Ace kicker (p1 loser 10% 10, p2 winner 3% 3, p3 other 0.8% 0 of the fund)"
    )
    raked = sum(pot["rake"] for pot in result["pots"])
    assert (raked, sum(a["amount"] for a in result["awards"]) + raked) == (400, 6100)  # the drop is in the rake


def test_an_unknown_program_or_one_of_another_game_is_refused(fake: fakeredis.FakeRedis, make_settings: Any) -> None:
    unknown = ggpoker_kings(program="nobody-knows") | {"hand_id": "U-1"}
    other_game = ggpoker_kings(program="ggpoker-bad-beat-plo") | {"hand_id": "U-2"}
    results, dead = _run(fake, make_settings, unknown, other_game)
    assert results == []
    assert [d[b"code"] for d in dead] == [b"unknown_jackpot_program"] * 2
    assert b"'nobody-knows': no worker knows it" in dead[0][b"message"]
    assert b"does not run in holdem" in dead[1][b"message"]


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"stakes": None}, "needs `stakes`"),
        ({"rake": 100}, "more than the rake of 100"),
        ({"tournament_id": "T-9"}, "tournament"),
    ],
)
def test_a_drop_the_contract_cannot_hold_is_refused_bad_jackpot(change: dict[str, Any], why: str) -> None:
    doc = {k: v for k, v in (ggpoker_kings() | change).items() if v is not None}
    caught = refusal(doc)
    assert caught.code == "bad_jackpot"
    assert why in caught.message


def test_the_shipped_programs_load_and_a_bad_file_is_refused_naming_it() -> None:
    programs = shipped_programs()
    assert set(programs) >= {HOLDEM, "ggpoker-bad-beat-plo"}
    holdem, variants = programs[HOLDEM]
    assert variants == {"holdem"}
    assert (holdem.drop_big_blinds, holdem.minimum_pot_big_blinds, holdem.loser_ppm) == (1, 30, 100_000)
    with pytest.raises(InvalidEvent) as caught:
        read_program(json.dumps({"format": "showdown.jackpot_program", "format_version": 1}), "x.json")
    assert caught.value.code == "bad_jackpot_program"
    assert caught.value.field == "x.json"


@pytest.mark.parametrize(("first", "second", "beat"), [
    ("Kd 7s 4h 2c 9c", "Ac Td Ts 3h 5c", False),
    ("Ac Td Ts 3h 5c", "Kd 7s 4h 2c 9c", True),
])  # fmt: skip
def test_only_the_first_run_out_is_a_bad_beat(
    fake: fakeredis.FakeRedis, make_settings: Any, first: str, second: str, beat: bool
) -> None:
    # GGPoker: "first run-out only"; the second board's bad beat pays nothing
    doc = bad_beat_hand() | {"boards": [first.split(), second.split()]}
    del doc["board"]
    [result], dead = _run(fake, make_settings, doc)
    assert dead == []
    assert result["jackpot"]["bad_beat"] is beat


def plo_hand(hand_id: str, **jackpot: Any) -> dict[str, Any]:
    """A PLO pot of 40 big blinds (rake 200, the 100 drop in it) naming the hold'em hands' jackpot id."""
    return event(
        seat(1, "As Ks Qd Jd", 2000),
        seat(2, "2c 2d 7h 8h", 2000),
        board="3c 4d 9s Th 5s",
        variant="omaha",
        rake=200,
        hand_id=hand_id,
        stakes={"small_blind": 50, "big_blind": 100},
        jackpot={"jackpot_id": "ggpoker-bbj-usd", "program": "ggpoker-bad-beat-plo", "drop": 100} | jackpot,
    )


def _fund(fake: fakeredis.FakeRedis, make_settings: Any, jackpot_id: str = "ggpoker-bbj-usd") -> dict[str, str]:
    key = make_settings().keys("default").jackpot(jackpot_id)
    stored: dict[bytes, bytes] = fake.hgetall(key)  # type: ignore[assignment]  # a client without decode_responses
    return {k.decode(): v.decode() for k, v in stored.items()}


def test_the_fund_is_a_ledger_in_redis_and_a_bad_beat_pays_amounts_from_it(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    # the first hand declares the fund with its seed (1,000,000) and drops 200; the bad beat drops 100, then pays
    # GGPoker's shares of the 1,000,300 that leaves: 10% = 100,030, 3% = 30,009, 0.8% = 8,002 (rounded down)
    declared = ggpoker_kings(seed=1_000_000)
    results, dead = _run(fake, make_settings, declared, bad_beat_hand())
    assert dead == []
    first, beat = (r["jackpot"] for r in results)
    assert (first["fund_before"], first["fund_after"]) == (1_000_000, 1_000_200)
    assert [(r["seat"], r["role"], r["amount"]) for r in beat["roles"]] == [
        (1, "loser", 100_030),
        (2, "winner", 30_009),
        (3, "other", 8_002),
    ]
    assert (beat["fund_before"], beat["fund_after"]) == (1_000_200, 1_000_300 - 138_041)
    for result in results:
        ShowdownResult.model_validate(result)
    fund = _fund(fake, make_settings)
    assert fund == {
        "program": HOLDEM, "seed": "1000000", "balance": "862259", "hands": "2", "drops": "2", "dropped": "300",
        "payouts": "1", "paid": "138041", "last_paid": "138041", "last_bad_beat": "BB-1",
        "last_at": fund["last_at"],
    }  # fmt: skip
    assert int(fund["seed"]) + int(fund["dropped"]) - int(fund["paid"]) == int(fund["balance"])  # money in == out


def test_a_hand_sent_again_moves_the_fund_once(fake: fakeredis.FakeRedis, make_settings: Any) -> None:
    # the dedupe key is set in the commit that moves the fund: a re-sent hand is a duplicate and moves nothing
    settings = make_settings()
    keys = settings.keys("default")
    worker = Worker(settings, fake)
    worker.prepare_groups()
    for docs in ([ggpoker_kings(seed=500), bad_beat_hand(), ggpoker_kings(seed=500)], [bad_beat_hand()]):
        for doc in docs:
            fake.xadd(keys.events, {"event": json.dumps(doc)})
        worker.step()
        worker.flush()
    assert len(read_range(fake, keys.results)) == 2
    fund = _fund(fake, make_settings)
    assert (fund["hands"], fund["dropped"], fund["payouts"]) == ("2", "300", "1")
    # 500 + 200 + 100 = 800: 80 + 24 + 6 paid
    assert (fund["balance"], fund["paid"]) == ("690", "110")


def test_a_jackpot_declared_again_with_other_rules_is_refused_jackpot_program_changed(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    # issue 39, "Bad input": a jackpot declared twice with other rules; nothing paid, the fund untouched
    other_program = plo_hand("PLO-1")
    other_seed = ggpoker_kings(seed=7) | {"hand_id": "HD149101-b"}
    results, dead = _run(fake, make_settings, ggpoker_kings(seed=1000), other_program, other_seed)
    assert len(results) == 1
    assert [d[b"code"] for d in dead] == [b"jackpot_program_changed"] * 2
    assert (
        b"declared with program 'ggpoker-bad-beat-holdem'; this hand names 'ggpoker-bad-beat-plo'"
        in dead[0][b"message"]
    )
    assert b"declared with a seed of 1000; this hand states 7" in dead[1][b"message"]
    assert json.loads(dead[0][b"raw"])["hand_id"] == "PLO-1"  # never lost: the dead letter holds the event
    fund = _fund(fake, make_settings)
    assert (fund["balance"], fund["hands"]) == ("1200", "1")


def test_a_plo_fund_of_its_own_settles_and_a_drop_under_the_minimum_has_its_own_code(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    small = plo_hand("PLO-small", jackpot_id="plo-fund") | {
        "players": [seat(1, "As Ks Qd Jd", 1000), seat(2, "2c 2d 7h 8h", 1000)]
    }
    results, dead = _run(fake, make_settings, plo_hand("PLO-1", jackpot_id="plo-fund"), small)
    assert [r["jackpot"]["fund_after"] for r in results] == [100]
    assert [d[b"code"] for d in dead] == [b"jackpot_pot_under_minimum"]
    assert b"drops nothing from a pot of 2000, under its minimum of 3000" in dead[0][b"message"]


def test_a_batch_without_a_jackpot_commits_as_before(fake: fakeredis.FakeRedis, make_settings: Any) -> None:
    # no jackpot: no fund read, no argument more for the commit script (it ends with the tournament order id)
    settings = make_settings()
    keys = settings.keys("default")
    plain = bad_beat_hand()
    del plain["jackpot"], plain["stakes"]
    fake.xadd(keys.events, {"event": json.dumps(plain)})
    worker = Worker(settings, fake)
    worker.prepare_groups()
    sent: list[Any] = []
    real = worker.pipeline.commit_now

    def spy(keys: Any, planned: Any) -> Any:
        sent.append(planned)
        return real(keys, planned)

    worker.pipeline.commit_now = spy  # type: ignore[method-assign]
    worker._fund_script = None  # type: ignore[assignment]  # never called: a call would raise
    worker.step()
    worker.flush()
    [planned] = sent
    assert planned.args[-1] == ""  # the order id: the last argument
    assert not any(k.startswith(keys.jackpot_prefix) for k in planned.keys)
    assert "jackpot" not in json.loads(read_range(fake, keys.results)[0][1][b"result"])


def test_a_replay_re_decides_each_hand_through_the_fund_as_the_worker_did(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    # audit replay's re-settlement (archive/resettle.py) decides through the twin, which folds the funds from each
    # one's first hand: its results are the worker's, byte for byte
    results, _ = _run(fake, make_settings, ggpoker_kings(seed=1000), bad_beat_hand(), plo_hand("PLO-1"))
    keys = make_settings().keys("default")
    records = [orjson.loads(fields[b"audit"]) for _, fields in read_range(fake, keys.audit)]
    stored = [fields[b"result"] for _, fields in read_range(fake, keys.results)]
    twin = Twin(dedupe_ttl_s=None)
    replayed = []
    for (entry_id, fields), record in zip(read_range(fake, keys.events), records, strict=True):
        at = record["at"]
        prepared = prepare(entry_id.decode(), fields, failures=0, max_deliveries=5, max_payload_bytes=1 << 20,
                           now=datetime.fromisoformat(at), started=0.0)  # fmt: skip
        head = Head(record["seq"] - 1, record["prev_hash"] or "")
        decision = twin.decide([prepared], worker=record["worker"], at=at, now=0.0, head=head).decisions[0]
        assert (decision.outcome, decision.code) == (record["outcome"], record["code"])
        if decision.result is not None:
            replayed.append(decision.result)
    assert replayed == stored
    assert len(results) == 2  # the PLO hand refused: jackpot_program_changed, in the replay too
    assert twin.funds["ggpoker-bbj-usd"].balance == int(_fund(fake, make_settings)["balance"])
