"""The event's jackpot drop through a worker (issue 39 item 1; decision/jackpot_live.py): checked against its
program (data/jackpot/), refused with its own code and dead-lettered otherwise, the bad beat named in the result."""

from __future__ import annotations

import json
from typing import Any

import fakeredis
import pytest

from showdown_core import InvalidEvent
from showdown_messages import ShowdownResult
from showdown_service.decision.jackpot_live import read_program, shipped_programs
from showdown_service.decision.render import describe_result
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
    worker.prepare_groups()
    worker.step()
    worker.flush()
    results = [json.loads(fields[b"result"]) for _, fields in read_range(fake, keys.results)]
    return results, [fields for _, fields in read_range(fake, keys.dead)]


def test_a_real_ggpoker_drop_settles_and_a_wrong_one_is_a_dead_letter(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    wrong = ggpoker_kings(drop=100) | {"hand_id": "HD149101-bad"}
    results, dead = _run(fake, make_settings, ggpoker_kings(), wrong)
    [result] = results
    ShowdownResult.model_validate(result)
    assert result["jackpot"] == {"jackpot_id": "ggpoker-bbj-usd", "program": HOLDEM, "drop": 200, "bad_beat": False}
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
    assert describe_result(result).endswith(
        "jackpot 100 dropped to ggpoker-bbj-usd; bad beat: Full house, Aces full of Tens loses to Four of a kind, "
        "Tens, Ace kicker (p1 loser 10%, p2 winner 3%, p3 other 0.8% of the fund)"
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
