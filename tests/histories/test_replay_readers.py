"""The history readers behind one interface (issue 35, item 4): each reader module exports its ``READER`` (name,
its own detection predicate, read function), :mod:`showdown_service.histories.run` asks them in a stated order;
every reader accepts its own fixtures (tests/fixtures/replay, the rooms' excerpts) and no other reader's."""

from __future__ import annotations

from pathlib import Path

import pytest

from showdown_service.histories.reader import Head, Reader
from showdown_service.histories.run import READERS, REGISTERED, decode, detect, find_files
from tests.helpers import FIXTURES

FIXTURES = FIXTURES / "replay"

_BY_FOLDER = {"malformed": "phh", "tournament": "pokerstars"}
"""The folders not named after their reader: malformed PHH files, PokerStars tournaments."""


def _expected(path: Path) -> str | None:
    """The reader a fixture is written for, from its place alone: a room's excerpt is named ``ROOM_...``, the other
    folders are named after their reader; a tournament summary, ``.ots`` finishes, licences and READMEs are no hand
    histories."""
    name = path.name
    if name.startswith("LICENSE") or name.endswith(("summary.txt", ".ots", ".md")):
        return None
    if path.parent.name == "rooms":
        return name.split("_")[0]
    if path == FIXTURES / "fulltilt" / "pokerstars_platform.txt":
        return "pokerstars"  # Full Tilt on the PokerStars platform writes the PokerStars format
    folder = path.relative_to(FIXTURES).parts[0]
    return _BY_FOLDER.get(folder, folder)


FILES = [Path(f) for f in find_files([str(FIXTURES)])[0]]


def _head(path: Path) -> Head:
    head = Head.of(decode(path.read_bytes())[0])
    assert head is not None, f"{path} has no line to detect by"
    return head


@pytest.mark.parametrize("path", FILES, ids=[str(f.relative_to(FIXTURES)) for f in FILES])
def test_every_reader_detects_its_own_fixtures_and_no_other_reader_s(path: Path) -> None:
    head = _head(path)
    accepting = {reader.name for reader in REGISTERED if reader.detect(head)}
    expected = _expected(path)
    assert accepting == ({expected} if expected else set()), f"{path.name}: {head.line!r}"
    assert detect(head.text) == expected


def test_every_registered_reader_has_fixtures_and_each_format_one_reader() -> None:
    names = [reader.name for reader in REGISTERED]
    assert len(names) == len(set(names)) == 19
    assert {_expected(f) for f in FILES} - {None} == set(names)
    assert all(isinstance(reader, Reader) for reader in REGISTERED)


def test_an_unknown_file_s_error_lists_the_formats_in_the_order_they_were_added() -> None:
    assert list(READERS) == [
        "phh", "pokerstars", "888poker", "winamax", "partypoker", "fulltilt", "wpn", "ipoker", "ohh", "ggpoker",
        "acr", "bovada", "microgaming", "ongame", "bossmedia", "entraction", "merge", "igt", "pkr",
    ]  # fmt: skip
    assert all(READERS[reader.name] is reader.read for reader in REGISTERED)


@pytest.mark.parametrize(
    ("text", "accepting", "chosen"),
    [
        # an XML opening with an iPoker <session> and a Microgaming <Game hhversion=...>: iPoker is asked first
        ('<Game hhversion="4">\n<session>\n', {"ipoker", "microgaming"}, "ipoker"),
        # OnGame's first line that also carries the banner 888poker and partypoker share: OnGame is asked first
        (
            "***** History for hand 1 Hand History for Game 2 *****\n$1 USD NL Hold'em - Sunday, May 1\n",
            {"ongame", "partypoker"},
            "ongame",
        ),
    ],
)
def test_where_two_readers_accept_a_file_the_stated_order_decides(text: str, accepting: set[str], chosen: str) -> None:
    head = Head.of(text)
    assert head is not None
    assert {reader.name for reader in REGISTERED if reader.detect(head)} == accepting
    assert detect(text) == chosen


def test_under_the_shared_banner_the_first_stakes_line_tells_888poker_from_partypoker() -> None:
    banner = "***** 888poker Hand History for Game 1 *****\n"
    party_then_pacific = banner + "$1 USD NL Hold'em - Sunday, May 1\n$0.50/$1 Blinds No Limit Holdem - *** 06 01\n"
    pacific_then_party = banner + "$0.50/$1 Blinds No Limit Holdem - *** 06 01\n$1 USD NL Hold'em - Sunday, May 1\n"
    for text, room in ((party_then_pacific, "partypoker"), (pacific_then_party, "888poker")):
        head = Head.of(text)
        assert head is not None
        assert [reader.name for reader in REGISTERED if reader.detect(head)] == [room]
    assert detect(banner + "Table Oslo\n") is None  # neither stakes line in the first five: no reader's


def test_the_head_skips_blank_lines_comments_and_separators_and_a_summary_is_no_reader_s() -> None:
    head = Head.of("\ufeff\n# exported\n********** # 1 **********\n  PokerStars Tournament #1, Hold'em  \n")
    assert head is not None
    assert head.line == "PokerStars Tournament #1, Hold'em"
    assert not any(reader.detect(head) for reader in REGISTERED)
    assert Head.of("\n# only a comment\n**********\n") is None
