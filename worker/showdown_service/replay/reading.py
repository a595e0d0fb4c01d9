"""What the text room readers share beyond the :class:`~.builder.HandBuilder`: one way to split a file into hands
(:func:`split_hands`), each room giving only its own test of a hand's first line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from showdown_service.replay.errors import HandSyntaxError, ReplayError
from showdown_service.replay.hands import HandRecord


def split_hands(
    text: str,
    source: str,
    is_start: Callable[[list[str], int], bool],
    what: str,
    read: Callable[[list[str], int, int, str], HandRecord],
) -> Iterator[HandRecord | ReplayError]:
    """Each hand of a text history file's ``text``, read by the room's ``read(lines, start, end, source)``, or the
    error that stopped it (the lines stripped, no byte-order mark, a no-break space a space): a hand starts at each
    line ``k`` where ``is_start(lines, k)``; text before the first (``what`` names the line a hand starts with) is an
    error of its own, and the hands after it are still read."""
    lines = [line.strip().replace("\xa0", " ") for line in text.replace("\ufeff", "").splitlines()]
    starts = [k for k in range(len(lines)) if is_start(lines, k)]
    first = next((k for k, line in enumerate(lines) if line), 0)
    if not starts or first < starts[0]:
        yield HandSyntaxError(source, None, first + 1, f"text before the first '{what}' line")
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        try:
            yield read(lines, start, end, source)
        except ReplayError as exc:
            yield exc


def starting_with(
    prefix: str | tuple[str, ...], pattern: re.Pattern[str] | None = None
) -> Callable[[list[str], int], bool]:
    """The ``is_start`` of :func:`split_hands` for a room whose hands start with a line beginning ``prefix`` (and
    matching ``pattern``, when given)."""
    if pattern is None:
        return lambda lines, k: lines[k].startswith(prefix)
    return lambda lines, k: lines[k].startswith(prefix) and pattern.match(lines[k]) is not None


def numbered_or_banner(game_no: re.Pattern[str], banner: re.Pattern[str]) -> Callable[[list[str], int], bool]:
    """The ``is_start`` of :func:`split_hands` for 888poker and partypoker: a hand starts at its ``#Game No : N``
    line, or at its banner (``***** ... Hand History for Game N *****``) when no such line comes just before."""
    return lambda lines, k: bool(
        game_no.match(lines[k]) or (banner.match(lines[k]) and not (k and game_no.match(lines[k - 1])))
    )
