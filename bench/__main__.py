"""Every benchmark in one run: ``python -m bench`` (or ``make bench``).

Writes ``docs/benchmarks.md`` (every figure, as ratios measured in this one
run) and ``docs/benchmarks.png`` (the ratios against their targets, at a
glance), and prints the markdown. Bounded in time: a few minutes. The page's
summary, written by hand from a run (between ``<!-- summary -->`` and
``<!-- /summary -->``), is kept as it is: update it from the new figures.
"""

from __future__ import annotations

import platform
import time
from datetime import UTC, datetime
from pathlib import Path

import matplotlib as mpl

mpl.use("Agg")
import matplotlib.pyplot as plt

from bench import (
    Figure,
    Section,
    ab_worker,
    aof,
    api,
    archive,
    cluster,
    equity,
    evaluator,
    kept_summary,
    pipeline,
    play,
    rake_schedule,
    replay,
    scale,
    tlog,
    tournament,
    variants,
    worker,
)

DOCS = Path(__file__).resolve().parents[1] / "docs"


def chart(figures: list[Figure], path: Path) -> None:
    """Horizontal bars: each ratio (log scale), its target marked; green where the target is met."""
    fig, ax = plt.subplots(figsize=(9, 0.55 * len(figures) + 1.2))
    labels = [f.label for f in figures]
    values = [f.value for f in figures]
    colours = ["#2e7d32" if f.value >= f.target else "#c62828" for f in figures]
    bars = ax.barh(labels, values, color=colours)
    for bar, f in zip(bars, figures, strict=True):
        y = bar.get_y() + bar.get_height() / 2
        ax.plot([f.target, f.target], [y - 0.4, y + 0.4], color="black", linewidth=2)
        ax.annotate(f"{f.value:.2f}x (target {f.target:g}x)", (f.value, y), xytext=(4, 0),
                    textcoords="offset points", va="center", fontsize=8)  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlabel("times the reference (log scale); black tick: the target")
    ax.invert_yaxis()
    ax.set_title("showdown: ratios measured in one run (green: target met)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    started = time.monotonic()
    sections: list[Section] = []
    for name, run in (("evaluator", evaluator.section), ("variants", variants.section), ("equity", equity.section),
                      ("worker", worker.section), ("stream vs inbox", ab_worker.section),
                      ("tournament", tournament.section), ("rake schedule", rake_schedule.section),
                      ("play", play.section), ("replay", replay.section),
                      ("persistence", aof.section), ("cluster", cluster.section),
                      ("archive", archive.section), ("merkle log", tlog.section), ("scale", scale.section),
                      ("api", api.section), ("pipeline", pipeline.section)):  # fmt: skip
        print(f"running the {name} benchmark...", flush=True)
        sections.append(run())
    figures = [f for s in sections for f in s.figures]
    header = [
        "# Benchmarks",
        "",
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.machine()}, Python "
        f"{platform.python_version()}, in {time.monotonic() - started:.0f} s, by `make bench` "
        "(`python -m bench`). The machine is shared and noisy: compare ratios, which are measured in one run "
        "with rounds interleaved, not absolute times.",
        "",
        "![ratios against targets](benchmarks.png)",
        "",
    ]
    DOCS.mkdir(exist_ok=True)
    text = "\n".join([*header, kept_summary(DOCS / "benchmarks.md"), "\n\n".join(s.markdown for s in sections), ""])
    (DOCS / "benchmarks.md").write_text(text, encoding="utf-8")
    chart(figures, DOCS / "benchmarks.png")
    print(text)


if __name__ == "__main__":
    main()
