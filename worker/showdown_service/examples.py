"""The real showdowns bundled with showdown (MIT; see ``showdown_service/data/LICENSES.md``)."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources

EXAMPLES = "showdowns.jsonl"
"""300 real showdowns, one JSON object a line: ``event``, ``expected_award`` (by seat), ``categories``."""


def example_lines() -> Iterator[str]:
    """Each non-blank line of the bundled file."""
    with resources.files("showdown_service").joinpath("data", EXAMPLES).open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield line.strip()
