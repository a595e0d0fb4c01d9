"""Benchmarks: showdown side by side with its peers, in one run, reported as ratios.

The machine is shared and noisy, so absolute times wander; ratios measured
in the same run, with rounds interleaved, are what we compare.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

SUMMARY = re.compile(r"^<!-- summary -->\n.*?^<!-- /summary -->\n", re.DOTALL | re.MULTILINE)


def kept_summary(page: Path) -> str:
    """The hand-written summary of docs/benchmarks.md as it is (with its markers), or nothing: ``make bench``
    rewrites every figure of the page below it."""
    found = SUMMARY.search(page.read_text(encoding="utf-8")) if page.exists() else None
    return f"{found.group(0)}\n" if found else ""


@dataclass(frozen=True)
class Figure:
    """One ratio for the summary chart: ``value`` against ``target`` (both 'times the reference')."""

    label: str
    value: float
    target: float


@dataclass(frozen=True)
class Section:
    """A benchmark's markdown, and the ratios it contributes to the chart."""

    markdown: str
    figures: list[Figure] = field(default_factory=list)
