"""Benchmarks: showdown side by side with its peers, in one run, reported as ratios.

The machine is shared and noisy, so absolute times wander; ratios measured
in the same run, with rounds interleaved, are what we compare.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
