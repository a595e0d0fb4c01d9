"""JSON lines in: the showdowns bundled with showdown (real hands, MIT, see ``showdown_service/data/LICENSES.md``;
and hands of every other game, written from the rules), or a file of one's own."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import cast

EXAMPLES = ("showdowns.jsonl", "variants.jsonl")
"""One JSON object a line: ``event``, ``expected_award`` (by seat), ``categories``. ``showdowns.jsonl``: 300
real hold'em and stud showdowns; ``variants.jsonl``: hands of every other game (Omaha, hi-lo, razz, draw, badugi,
short deck, runs), each showing one rule, its award worked out from the rules by hand."""

UNDECODED = "surrogateescape"
"""How :func:`file_lines` keeps a byte that is not UTF-8; ``line.encode("utf-8", UNDECODED)`` gives it back."""


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
