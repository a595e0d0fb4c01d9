"""Stream entry ids, read in one place (showdown_messages.protocol): what a client may send, what Redis stores."""

from __future__ import annotations

import pytest

from showdown_messages.protocol import (
    STREAM_ID_MAX,
    entry_id_shaped,
    entry_ms,
    entry_order,
    is_range_id,
    next_entry_id,
    parse_entry_id,
)


def test_ids_compare_as_numbers_not_as_text() -> None:
    assert entry_order("10-0") > entry_order("9-99")
    assert entry_order(b"1718000000000-7") == (1718000000000, 7)
    assert entry_order("5") == (5, 0)


def test_the_next_id_is_the_least_above_it_for_a_trim_that_keeps_nothing_up_to_it() -> None:
    assert next_entry_id("1718000000000-7") == "1718000000000-8"
    assert next_entry_id(b"9-99") == "9-100"


def test_an_id_s_milliseconds_are_when_redis_added_it() -> None:
    assert entry_ms(b"1718000000000-7") == 1718000000000


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("1718000000000-0", (1718000000000, 0)),
        (f"{STREAM_ID_MAX}-{STREAM_ID_MAX - 1}", (STREAM_ID_MAX, STREAM_ID_MAX - 1)),
        (f"{STREAM_ID_MAX}-{STREAM_ID_MAX}", None),  # the largest id of all: nothing can follow it
        (f"{STREAM_ID_MAX + 1}-0", None),
        ("12", None),
        ("١٢-٣", None),  # other scripts' digits: Redis refuses them
        ("1-2-3", None),
        (" 1-2", None),
    ],
)
def test_a_client_s_id_is_taken_only_as_redis_would_take_it(text: str, parsed: tuple[int, int] | None) -> None:
    assert parse_entry_id(text) == parsed


def test_shape_and_range_ids() -> None:
    assert entry_id_shaped(f"{STREAM_ID_MAX + 1}-0")  # written as an id, though Redis would refuse it
    assert not entry_id_shaped("2026-11-25T14:00:00Z")
    assert all(is_range_id(text) for text in ("1718000000000", "1718000000000-3"))
    assert not any(is_range_id(text) for text in ("x-1", "1-x", ""))
