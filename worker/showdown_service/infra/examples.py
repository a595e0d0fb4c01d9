"""JSON in: the showdowns bundled with showdown (real hands, MIT, see ``showdown_service/data/LICENSES.md``;
and hands of every other game, written from the rules), or a file of one's own: JSON lines, or JSON documents
spread over several lines (pretty-printed, as the README prints them), one after the other."""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterable, Iterator
from importlib import resources
from pathlib import Path
from typing import Final, cast

EXAMPLES = ("showdowns.jsonl", "variants.jsonl")
"""The bundled files (see :data:`EXAMPLE_KINDS`). One JSON object a line: ``event``, ``expected_award`` (by
seat), ``categories``. ``showdowns.jsonl``: 300 real hold'em and stud showdowns; ``variants.jsonl``: hands of
every other game (Omaha, hi-lo, razz, draw, badugi, short deck, runs), each showing one rule, its award worked
out from the rules by hand."""

UNDECODED = "surrogateescape"
"""How :func:`file_lines` keeps a byte that is not UTF-8; ``line.encode("utf-8", UNDECODED)`` gives it back."""


EXAMPLE_KINDS: Final = {
    "showdowns.jsonl": "real hold'em and stud showdowns",
    "variants.jsonl": "hands of the other games",
}
"""What each bundled file holds, for people: ``publish --examples`` counts them by it."""


def example_counts() -> dict[str, int]:
    """How many hands each bundled file holds, by what it holds: ``{"real hold'em and stud showdowns": 300, ...}``."""
    counts: dict[str, int] = {}
    for name in EXAMPLES:
        with resources.files("showdown_service").joinpath("data", name).open(encoding="utf-8") as f:
            counts[EXAMPLE_KINDS[name]] = sum(1 for line in f if line.strip())
    return counts


def example_lines() -> Iterator[str]:
    """Each non-blank line of the bundled files."""
    for name in EXAMPLES:
        with resources.files("showdown_service").joinpath("data", name).open(encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield line.strip()


def file_lines(path: str) -> Iterator[str]:
    """Each line of the file at ``path`` (``-``: standard input), as UTF-8.

    A byte that is not UTF-8 does not stop the reading: it is kept (see
    :data:`UNDECODED`), so that its line alone is refused, as a worker
    refuses such a payload (``malformed_json``).
    """
    if path == "-":
        cast(io.TextIOWrapper, sys.stdin).reconfigure(encoding="utf-8", errors=UNDECODED)
        yield from sys.stdin
        return
    with Path(path).open(encoding="utf-8", errors=UNDECODED) as f:
        yield from f


MAX_DOCUMENT_CHARS: Final = 1 << 20
"""A document still open after this many characters (1 MiB) is given as it is, to be refused: reading never
holds more of one."""

_STRINGS: Final = re.compile(r'"(?:[^"\\]|\\.)*"')
"""A JSON string (never spread over lines: JSON writes a newline in a string as an escape)."""


def documents(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """Each JSON document of ``lines`` with the number of the line it starts on (from 1): one a line (JSON
    lines), or spread over several (pretty-printed), one after the other; blank lines between them are skipped.

    A document runs from the line that opens it until its brackets close. A line opening a new one at its
    first column (``{`` or ``[``) while one is still open, or a blank line, ends the open one as it is, to be
    refused (``malformed_json``) alone: a broken line never takes the lines after it with it.
    """
    pending: list[str] = []
    start = depth = size = 0
    for number, line in enumerate(lines, start=1):
        text = line.rstrip("\r\n")
        if pending and (not text.strip() or text.startswith(("{", "["))):
            yield start, "\n".join(pending)
            pending = []
        if not text.strip():
            continue
        if not pending:
            start, depth, size = number, 0, 0
        pending.append(text)
        size += len(text)
        bare = _STRINGS.sub("", text)
        depth += bare.count("{") + bare.count("[") - bare.count("}") - bare.count("]")
        if depth <= 0 or size > MAX_DOCUMENT_CHARS:
            yield start, "\n".join(pending)
            pending = []
    if pending:
        yield start, "\n".join(pending)
