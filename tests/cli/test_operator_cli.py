"""`showdown dead-letters` and `showdown results` as an operator repairs a tournament: filters, tournament messages
listed with their tournament and type, several letters requeued in stream order and marked once, and results that
say each bust's place and the bounty it paid."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
import redis

from showdown_service.cli.commands import main
from showdown_service.infra.config import Settings
from showdown_service.infra.streams import read_range
from tests.api_support import commit, knockout, publish_lines, second_bust
from tests.helpers import event, seat
from tests.tournament_builders import all_in, entry


@pytest.fixture
def env(redis_url: str, monkeypatch: pytest.MonkeyPatch, make_settings: Any) -> Settings:
    """The command line pointed at the test server (and the same settings for a worker)."""
    for key in [k for k in os.environ if k.startswith("SHOWDOWN_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("SHOWDOWN_REDIS_URL", redis_url)
    settings: Settings = make_settings(redis_url)
    return settings


def dead_ids(client: redis.Redis, settings: Settings) -> list[str]:
    return [entry_id.decode() for entry_id, _ in read_range(client, settings.keys("default").dead)]


def refused_tournament(client: redis.Redis, settings: Settings) -> None:
    """A knockout whose first entries came before its open (a producer's bug): entries b and c are refused
    (tournament_not_open); the open and the entries of a and d come after, registration still open."""
    lines = knockout()
    publish_lines(client, settings.keys("default").events, [lines[2], lines[3]])  # entries before the open
    commit(settings)
    publish_lines(client, settings.keys("default").events, [lines[0], lines[1], lines[4]])
    commit(settings)


def test_dead_letters_list_tournament_messages_with_their_tournament_and_type_and_filter(
    env: Settings, client: redis.Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    refused_tournament(client, env)
    bad = {"schema_version": 1, "hand_id": "odd-1", "table_id": "t", "players": []}
    client.xadd(env.keys("default").events, {"event": json.dumps(bad)})
    commit(env)
    assert main(["dead-letters"]) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if not line.startswith("    ")]
    assert len(listed) == 3
    assert "tournament_not_open tournament=T type=entry" in listed[0]
    assert "hand=odd-1" in listed[2]
    assert main(["dead-letters", "--tournament", "T"]) == 0
    assert capsys.readouterr().out.count("tournament=T type=entry") == 2
    assert main(["dead-letters", "--code", "no_players"]) == 0
    out = capsys.readouterr().out
    assert "hand=odd-1" in out
    assert "tournament=" not in out
    assert main(["dead-letters", "--hand", "odd-1", "--code", "tournament_not_open"]) == 0
    assert capsys.readouterr().out == ""


def test_requeue_by_filter_sends_a_tournaments_letters_back_in_stream_order_and_marks_each_once(
    env: Settings, client: redis.Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    refused_tournament(client, env)
    first, second = dead_ids(client, env)
    assert main(["dead-letters", "--requeue", "--tournament", "T"]) == 0
    said = capsys.readouterr().out.splitlines()
    assert [line.split()[1] for line in said] == [first, second]
    requeued = [fields for _, fields in read_range(client, env.keys("default").events)][-2:]
    assert [f[b"requeued_from"].decode() for f in requeued] == [first, second]
    assert [json.loads(f[b"tournament"])["player_id"] for f in requeued] == ["b", "c"]
    commit(env)
    assert main(["dead-letters"]) == 0
    listed = capsys.readouterr().out
    new_ids = [line.rsplit(" as ", 1)[1].split()[0] for line in said]
    assert f"[requeued as {new_ids[0]}]" in listed
    assert f"[requeued as {new_ids[1]}]" in listed

    assert main(["dead-letters", "--requeue", first, second]) == 1
    refused = capsys.readouterr().err.splitlines()
    events = env.keys("default").events
    assert [line.split("; ")[0] for line in refused] == [
        f"not requeued: dead letter {first} was requeued already, as {new_ids[0]} on {events}",
        f"not requeued: dead letter {second} was requeued already, as {new_ids[1]} on {events}",
    ], "each refused by the one requeue (showdown_service.read.requeue), naming the entry it became"
    assert len(read_range(client, env.keys("default").events)) == 7, "nothing sent twice"
    assert main(["results", "--tournament", "T"]) == 0
    assert main(["tournament", "standings", "T"]) == 0
    assert "still playing (4)" in capsys.readouterr().out, "the requeued entries joined the tournament"


def test_requeue_of_several_refuses_a_settled_hand_as_one_requeue_does_and_still_sends_the_others(
    env: Settings, client: redis.Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 24 item 4 through the multi-id requeue: there is one requeue (showdown_service.read.requeue), so a
    letter of a hand settled already is refused here too (past its dedupe TTL it would be paid twice)."""
    refused_tournament(client, env)
    keys = env.keys("default")
    hand = event(seat(1, "As Ad", 100, player_id="ann"), seat(2, "Kc Kd", 100, player_id="bo"),
                 board="2c 7d 9h Js 3s", hand_id="cash-9", table_id="cash-1")  # fmt: skip
    client.xadd(keys.events, {"event": json.dumps(hand)})
    client.xadd(keys.events, {"event": json.dumps({**hand, "table_id": "cash-2"})})  # same hand id, other body
    commit(env)
    first, second, duplicate = dead_ids(client, env)
    client.delete(keys.seen("cash-9"))  # the dedupe TTL ran out
    assert main(["dead-letters", "--requeue", duplicate, first, second]) == 1
    said = capsys.readouterr()
    assert "hand 'cash-9' was settled already" in said.err
    assert [line.split()[1] for line in said.out.splitlines()] == [first, second], "the others sent, in order"
    assert client.xlen(keys.results) == 1, "the settled hand not sent again"
    assert client.hmget(f"{keys.dead}:resolved", [first, second, duplicate])[2] is None, "nor marked"


def test_requeue_without_ids_needs_a_filter_and_names_ids_it_cannot_find(
    env: Settings, client: redis.Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    refused_tournament(client, env)
    assert main(["dead-letters", "--requeue"]) == 2
    assert "needs a filter" in capsys.readouterr().err
    assert main(["dead-letters", "--requeue", "1-1", dead_ids(client, env)[0]]) == 2
    assert "no dead letter 1-1" in capsys.readouterr().err
    assert main(["dead-letters", "--requeue", "--code", "no_such_code"]) == 1
    assert "no dead letter matches" in capsys.readouterr().err


def test_results_say_each_busts_place_and_the_bounty_it_paid_and_filter(
    env: Settings, client: redis.Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    publish_lines(client, env.keys("default").events, [*knockout(), *second_bust()])
    other = all_in("cash-1", [(1, "zed", 500, 100), (2, "amy", 500, 100)], tid=None, table="cash-table")
    publish_lines(client, env.keys("default").events, [other])
    commit(env)
    assert main(["results"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3
    assert out[0].endswith("d busts in 4th place, bounty 1000: a 1000 (500 cash + 500 added)")
    assert out[1].endswith("c busts in 3rd place, bounty 1000: a 1000 (500 cash + 500 added)")
    for flags, hands in [
        (["--hand", "T-h2"], ["T-h2"]),
        (["--player", "d"], ["T-h1"]),
        (["--player", "a"], ["T-h1", "T-h2"]),
        (["--table", "cash-table"], ["cash-1"]),
        (["--tournament", "T"], ["T-h1", "T-h2"]),
        (["--tournament", "T", "--count", "1"], ["T-h2"]),
        (["--player", "nobody"], []),
    ]:
        assert main(["results", *flags]) == 0
        assert [line.split(":")[0] for line in capsys.readouterr().out.splitlines()] == hands, flags
    assert main(["results", "--json", "--hand", "T-h1"]) == 0
    assert json.loads(capsys.readouterr().out)["bounties"][0]["player_id"] == "d"


def test_a_cash_hand_that_empties_a_stack_has_no_bust_line(
    env: Settings, client: redis.Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 42 item 6: a cash hand that sends `stack` (amy puts in all her 500 and loses) is not a bust."""
    cash = all_in("cash-2", [(1, "zed", 500, 500), (2, "amy", 500, 500)], tid=None, table="cash-table")
    publish_lines(client, env.keys("default").events, [cash])
    commit(env)
    assert main(["results"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line == "cash-2: main pot 1000: zed 1000 (Pair of Aces)"
    assert "busts" not in line


def test_a_late_entry_of_a_refused_tournament_is_listed_with_its_player(
    env: Settings, client: redis.Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    publish_lines(client, env.keys("default").events, [entry("x", tid="Q")])
    commit(env)
    assert main(["dead-letters", "--tournament", "Q"]) == 0
    assert "tournament_not_open tournament=Q type=entry" in capsys.readouterr().out
