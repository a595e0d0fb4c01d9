"""The showdown command line, as an operator uses it."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from showdown_service.cli.commands import adjudicate_lines, main
from tests.helpers import BUNDLED_SHOWDOWNS, VARIANT_SHOWDOWNS, event, move_inboxes, read_cases, seat

GOOD = json.dumps(event(seat(1, "As Ad", 500), seat(2, "Kc Kd", 500), board="2c 7d 9h Js 3s", hand_id="good-1"))
GOOD_2 = GOOD.replace("good-1", "good-2")


def test_evaluate_prints_description_category_best_five_and_strength(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "As", "Kd", "7c", "7s", "2h", "Ah", "Ac"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Full house, Aces full of Sevens"
    assert lines[1].split() == ["category", "full_house"]
    assert lines[2].split() == ["best", "five", "As", "Ah", "Ac", "7s", "7c"]
    assert lines[3].split()[0] == "strength"


def test_evaluate_explains_a_bad_card_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "As", "Kd", "1s", "7s", "2h"]) == 2
    assert "cards[2]: '1s' is not a card" in capsys.readouterr().err


def test_adjudicate_keeps_order_and_reports_bad_lines_without_stopping() -> None:
    lines = [GOOD + "\n", "\n", '{"schema_version": 1\n', GOOD_2 + "\n", '{"schema_version": 9}\n']
    out, err = io.StringIO(), io.StringIO()
    assert adjudicate_lines(iter(lines), out, err) == 1
    results = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["hand_id"] for r in results] == ["good-1", "good-2"]
    rejections = [json.loads(line) for line in err.getvalue().splitlines()]
    assert [(r["line"], r["code"]) for r in rejections] == [(3, "malformed_json"), (5, "unsupported_schema_version")]
    assert all(r["message"] for r in rejections)


def test_adjudicate_exits_0_when_every_line_settles() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert adjudicate_lines(iter([GOOD, GOOD_2]), out, err) == 0
    assert err.getvalue() == ""


def test_adjudicate_reads_a_file_and_standard_input(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text(GOOD + "\n" + GOOD_2 + "\n", encoding="utf-8")
    run = [sys.executable, "-m", "showdown_service", "adjudicate"]
    from_file = subprocess.run([*run, str(path)], capture_output=True, text=True, check=True)
    from_stdin = subprocess.run([*run, "-"], input=path.read_text(), capture_output=True, text=True, check=True)
    assert len(from_file.stdout.splitlines()) == len(from_stdin.stdout.splitlines()) == 2


def test_the_bundled_examples_settle_readably(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["adjudicate", "--examples", "--summary"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == sum(1 for path in (BUNDLED_SHOWDOWNS, VARIANT_SHOWDOWNS) for _ in read_cases(path))
    assert any("side pot 1" in line for line in lines)
    assert any(" + " in line for line in lines), "some pot is split"


def test_a_closed_pipe_ends_the_output_quietly() -> None:
    with subprocess.Popen(
        [sys.executable, "-m", "showdown_service", "adjudicate", "--examples"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None
        assert proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()
        assert proc.wait(timeout=30) == 141
        assert b"Traceback" not in proc.stderr.read()


# --- what a misused command says -------------------------------------------------------------------------------


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for key in [k for k in os.environ if k.startswith("SHOWDOWN_")]:
        monkeypatch.delenv(key)
    return monkeypatch


def test_a_file_that_cannot_be_read_is_named_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.jsonl"
    assert main(["adjudicate", str(missing)]) == 2
    err = capsys.readouterr().err
    assert str(missing) in err
    assert "Traceback" not in err


def test_a_file_and_the_examples_together_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text(GOOD + "\n", encoding="utf-8")
    assert main(["adjudicate", str(path), "--examples"]) == 2
    assert "not both" in capsys.readouterr().err


def test_bad_settings_name_each_variable_and_never_echo_a_password(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clean_env.setenv("SHOWDOWN_BATCH_SIZE", "lots")
    clean_env.setenv("SHOWDOWN_LOG_LEVEL", "loud")
    clean_env.setenv("SHOWDOWN_REDIS_PASSWORD", "hunter2-secret")
    clean_env.setenv("SHOWDOWN_REDIS_URL", "redis://:hunter2-secret/0")  # the "@" forgotten: redis-py reads a port
    assert main(["health"]) == 2
    err = capsys.readouterr().err
    assert "SHOWDOWN_REDIS_URL: Value error, not a Redis URL" in err
    assert "SHOWDOWN_BATCH_SIZE" in err
    assert "SHOWDOWN_LOG_LEVEL" in err
    assert "hunter2-secret" not in err
    assert "Traceback" not in err


def test_an_unreachable_redis_is_one_line_and_exits_1(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clean_env.setenv("SHOWDOWN_REDIS_URL", "redis://127.0.0.1:1/0")
    assert main(["results"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("showdown: Redis: ConnectionError")
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["worker", "--processes", "0"],
        ["results", "--count", "-1"],
        ["dead-letters", "--count", "many"],
        ["dead-letters", "--requeue", "1718000000000"],  # a bare millisecond matches every entry in it
        ["dead-letters", "--requeue", "latest"],
    ],
)
def test_bad_numbers_and_entry_ids_are_refused_by_the_parser(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert "error: argument" in capsys.readouterr().err


def test_requeue_options_without_requeue_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dead-letters", "--shard", "t2"]) == 2
    assert "--requeue" in capsys.readouterr().err


def test_following_results_misses_nothing_that_lands_between_two_reads(
    clean_env: pytest.MonkeyPatch, fake: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty results stream is followed from its start: "$" would skip what arrived between two XREADs."""
    from showdown_service.infra.config import Settings
    from showdown_service.infra.streams import read_new as real_read_new

    key = Settings().keys("default").results
    result = json.dumps({"hand_id": "late", "pots": [], "awards": []})
    calls = 0

    def read_new(client: Any, after: Any, *, block: int) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:  # nothing yet; the result lands before the next read
            fake.xadd(key, {"result": result})
            return []
        if calls == 2:
            return real_read_new(client, after, block=block)
        raise KeyboardInterrupt  # Ctrl-C

    clean_env.setattr("showdown_service.cli.results.connect", lambda _settings: fake)
    clean_env.setattr("showdown_service.cli.results.read_new", read_new)
    assert main(["results", "--follow"]) == 130
    assert capsys.readouterr().out.splitlines() == ["late: "]


NOT_UTF8 = b'{"hand_id": "caf\xe9"}'  # Latin-1, as an old export might write it


def test_a_line_that_is_not_utf8_is_refused_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"\n".join([GOOD.encode(), NOT_UTF8, GOOD_2.encode()]) + b"\n")
    assert main(["adjudicate", str(path)]) == 1
    captured = capsys.readouterr()
    assert [json.loads(line)["hand_id"] for line in captured.out.splitlines()] == ["good-1", "good-2"]
    (refused,) = [json.loads(line) for line in captured.err.splitlines()]
    assert (refused["line"], refused["code"]) == (2, "malformed_json")


def test_publish_refuses_a_line_that_is_not_utf8_and_raw_sends_it_byte_for_byte(
    tmp_path: Path, clean_env: pytest.MonkeyPatch, fake: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from showdown_service.infra.config import Settings

    events = Settings().keys("default").events
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"\n".join([GOOD.encode(), NOT_UTF8, GOOD_2.encode()]) + b"\n")
    clean_env.setattr("showdown_service.cli.stream.connect", lambda _settings: fake)
    assert main(["publish", str(path)]) == 1
    captured = capsys.readouterr()
    assert "published 2 events; refused 1" in captured.out
    assert (json.loads(captured.err)["line"], json.loads(captured.err)["code"]) == (2, "malformed_json")
    assert move_inboxes(fake) == 2
    assert fake.xlen(events) == 2

    assert main(["publish", "--raw", str(path)]) == 0
    assert move_inboxes(fake) == 3
    sent = [fields[b"event"] for _, fields in fake.xrange(events)][2:]
    assert sent == [GOOD.encode(), NOT_UTF8, GOOD_2.encode()]


def test_dead_letters_show_a_hostile_payload_escaped_not_as_terminal_controls(
    clean_env: pytest.MonkeyPatch, fake: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from showdown_service.infra.config import Settings

    dead = Settings().keys("default").dead
    hostile = b"\x1b]0;owned\x07{\n"  # retitles the terminal, then a newline
    fake.xadd(dead, {"code": "malformed_json", "message": "not valid JSON", "raw": hostile, "raw_bytes": len(hostile)})
    clean_env.setattr("showdown_service.cli.dead_letters.connect", lambda _settings: fake)
    assert main(["dead-letters"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "\x07" not in out
    assert r"\x1b]0;owned\x07{\n" in out


PRETTY = json.dumps(json.loads(GOOD), indent=2)
"""An event as the README prints one: a JSON document over several lines."""


def test_adjudicate_settles_pretty_printed_events_one_after_another_naming_the_line_each_starts_on() -> None:
    text = f"{PRETTY}\n\n{PRETTY.replace('good-1', 'good-2')}\n{json.dumps({'schema_version': 9}, indent=2)}\n"
    out, err = io.StringIO(), io.StringIO()
    assert adjudicate_lines(iter(text.splitlines(keepends=True)), out, err) == 1
    assert [json.loads(line)["hand_id"] for line in out.getvalue().splitlines()] == ["good-1", "good-2"]
    (refused,) = [json.loads(line) for line in err.getvalue().splitlines()]
    starts = 2 * (PRETTY.count("\n") + 1) + 2  # two events and the blank line between them, then this one
    assert (refused["line"], refused["code"]) == (starts, "unsupported_schema_version")


def test_a_broken_line_in_json_lines_is_refused_alone_and_takes_no_line_after_it() -> None:
    lines = [GOOD + "\n", '{"schema_version": 1, "players": [\n', GOOD_2 + "\n", "  \n", '{"hand_id": {\n', GOOD]
    out, err = io.StringIO(), io.StringIO()
    assert adjudicate_lines(iter(lines), out, err) == 1
    assert [json.loads(line)["hand_id"] for line in out.getvalue().splitlines()] == ["good-1", "good-2", "good-1"]
    refused = [json.loads(line) for line in err.getvalue().splitlines()]
    assert [(r["line"], r["code"]) for r in refused] == [(2, "malformed_json"), (5, "malformed_json")]


def test_a_pretty_printed_bundled_case_settles_its_event_and_a_key_given_twice_in_it_is_still_refused() -> None:
    case = {"event": json.loads(GOOD), "expected_award": {"1": 1000}}
    doubled = json.dumps(case, indent=2).replace('"hand_id": "good-1"', '"hand_id": "good-1", "hand_id": "x"', 1)
    out, err = io.StringIO(), io.StringIO()
    text = json.dumps(case, indent=2) + "\n" + doubled + "\n"
    assert adjudicate_lines(iter(text.splitlines(keepends=True)), out, err) == 1
    assert [json.loads(line)["hand_id"] for line in out.getvalue().splitlines()] == ["good-1"]
    assert json.loads(err.getvalue())["code"] == "duplicate_key"


def test_publish_sends_pretty_printed_events_as_one_entry_each(
    tmp_path: Path, clean_env: pytest.MonkeyPatch, fake: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from showdown_service.infra.config import Settings

    events = Settings().keys("default").events
    path = tmp_path / "events.json"
    path.write_text(PRETTY + "\n" + PRETTY.replace("good-1", "good-2") + "\n", encoding="utf-8")
    clean_env.setattr("showdown_service.cli.stream.connect", lambda _settings: fake)
    assert main(["publish", str(path)]) == 0
    assert "published 2 events" in capsys.readouterr().out
    move_inboxes(fake)
    sent = [json.loads(fields[b"event"])["hand_id"] for _, fields in fake.xrange(events)]
    assert sent == ["good-1", "good-2"]


def test_publish_examples_says_how_many_hands_of_each_kind_it_sent(
    clean_env: pytest.MonkeyPatch, fake: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    real, variants = len(list(read_cases(BUNDLED_SHOWDOWNS))), len(list(read_cases(VARIANT_SHOWDOWNS)))
    clean_env.setattr("showdown_service.cli.stream.connect", lambda _settings: fake)
    assert main(["publish", "--examples"]) == 0
    assert capsys.readouterr().out == (
        f"published {real + variants} events (the bundled hands: {real} real hold'em and stud showdowns, "
        f"{variants} hands of the other games)\n"
    )
