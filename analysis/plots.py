"""SVG figures (matplotlib) drawn from stored results, readable without JavaScript."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from datetime import tzinfo
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams.update({
    "svg.fonttype": "none",  # text stays text: smaller files, selectable labels
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
})
COLOURS = ["#2455c3", "#d9822b", "#1d7a3a", "#b42318", "#7a4bc2", "#5d6475"]


def svg_of(fig) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def empty_svg(message: str) -> str:
    fig, ax = plt.subplots(figsize=(6, 1.2))
    ax.axis("off")
    ax.text(0.5, 0.5, message, ha="center", va="center", color="#5d6475")
    return svg_of(fig)


def curve_svg(curve: Sequence[Mapping[str, Any]]) -> str:
    """Agreement as annotations accumulate."""
    if not curve:
        return empty_svg("No annotations yet")
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    x = [p["annotations"] for p in curve]
    for key, name, colour in (("krippendorff_alpha", "Krippendorff's alpha", COLOURS[0]),
                              ("percent_agreement", "percent agreement", COLOURS[1])):
        ax.plot(x, [p[key] for p in curve], marker="o", ms=3, label=name, color=colour)
    ax.set_xlabel("annotations (in submission order)")
    ax.set_ylabel("agreement")
    ax.set_ylim(min(0.0, *(p["krippendorff_alpha"] or 0 for p in curve)), 1.0)
    ax.grid(alpha=0.3)
    ax.legend(frameon=False)
    return svg_of(fig)


def votes_svg(label_votes: Mapping[str, Mapping[str, Sequence[int]]]) -> str:
    """For each number of answers m that items have, one panel: how many of those items got
    0..m votes for each label. Items with different m never share a panel, so none is left out
    and none is compared on the wrong scale."""
    if not label_votes:
        return empty_svg("No annotations yet")
    labels = list(label_votes)
    items_per_m: dict[int, int] = {}
    for per_m in label_votes.values():
        for m_text, row in per_m.items():
            # Every item with m answers appears once in each label's row.
            items_per_m[int(m_text)] = max(items_per_m.get(int(m_text), 0), sum(row))
    ms = sorted(items_per_m)
    columns = min(len(ms), 3)
    rows = -(-len(ms) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.6 * columns + 0.6, 2.9 * rows), squeeze=False)
    width = 0.8 / len(labels)
    for ax, m in zip(axes.flat, ms, strict=False):
        for i, label in enumerate(labels):
            row = list(label_votes[label].get(str(m), [0] * (m + 1)))
            ax.bar([k + i * width - 0.4 + width / 2 for k in range(m + 1)], row, width=width,
                   label=label, color=COLOURS[i % len(COLOURS)])
        ax.set_xticks(range(m + 1))
        ax.set_title(f"{items_per_m[m]:,} item{'s' if items_per_m[m] != 1 else ''} with {m} answer{'s' if m != 1 else ''}",
                     fontsize=9)
        ax.set_xlabel(f"votes for the label (of {m})")
        ax.set_ylabel("items")
        ax.grid(axis="y", alpha=0.3)
    for ax in list(axes.flat)[len(ms):]:
        ax.axis("off")
    axes.flat[0].legend(frameon=False, title="label", fontsize=8, title_fontsize=8)
    fig.tight_layout()
    return svg_of(fig)


def competence_svg(workers: Sequence[Mapping[str, Any]]) -> str:
    values = [w["competence"] for w in workers if w.get("competence") is not None]
    if not values:
        return empty_svg("No competence estimates")
    fig, ax = plt.subplots(figsize=(6.4, 2.8))
    ax.hist(values, bins=20, range=(0, 1), color=COLOURS[0])
    ax.set_xlabel("MACE competence")
    ax.set_ylabel("workers")
    ax.grid(axis="y", alpha=0.3)
    return svg_of(fig)


def hourly_svg(per_hour: Sequence[tuple[Any, int]], *, tz: tzinfo | None = None, tz_name: str = "UTC") -> str:
    """Annotations per hour; the hours are shown in ``tz`` and the axis names it."""
    if not per_hour:
        return empty_svg("No annotations yet")
    import matplotlib.dates as mdates

    fig, ax = plt.subplots(figsize=(6.4, 2.8))
    ax.bar([h for h, _ in per_hour], [n for _, n in per_hour], width=1 / 24 * 0.9, color=COLOURS[2])
    ax.set_ylabel("annotations per hour")
    ax.set_xlabel(f"hour of submission ({tz_name})")
    locator = mdates.AutoDateLocator(tz=tz, minticks=3, maxticks=8)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator, tz=tz))
    ax.grid(axis="y", alpha=0.3)
    return svg_of(fig)


def votes_by_m_svg(series: Mapping[str, Mapping[Any, Sequence[int]]]) -> str:
    """Binary questions by number of positive votes: one panel per number of answers m, one bar
    colour per series (e.g. two ways the same questions were asked). A series is keyed by m as
    text (as stored) or as a number."""
    ms = sorted({int(m) for counts in series.values() for m in counts})
    if not ms:
        return empty_svg("No question has answers yet.")
    fig, axes = plt.subplots(1, len(ms), figsize=(min(3.2 * len(ms), 12), 2.6), squeeze=False)
    width = 0.8 / max(len(series), 1)
    for ax, m in zip(axes[0], ms, strict=True):
        for i, (name, counts) in enumerate(series.items()):
            values = list(counts.get(str(m), counts.get(m, [])))
            if not values:
                continue
            total = sum(values) or 1
            xs = [k + (i - (len(series) - 1) / 2) * width for k in range(len(values))]
            ax.bar(xs, [v / total for v in values], width=width, color=COLOURS[i % len(COLOURS)], label=f"{name} ({total})")
        ax.set_xticks(range(m + 1))
        ax.set_xlabel(f"positive votes of m = {m}")
        ax.set_ylabel("share of questions")
        ax.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return svg_of(fig)


def paired_shares_svg(labels: Sequence[str], series: Mapping[str, Sequence[float]], *, ylabel: str) -> str:
    """Horizontal bars: for each label, one bar per series (e.g. correct and wrong answers)."""
    if not labels or not any(any(v for v in values) for values in series.values()):
        return empty_svg("Nothing to show yet.")
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(labels) + 1))
    height = 0.8 / max(len(series), 1)
    for i, (name, values) in enumerate(series.items()):
        ys = [k + (i - (len(series) - 1) / 2) * height for k in range(len(labels))]
        ax.barh(ys, values, height=height, color=COLOURS[i % len(COLOURS)], label=name)
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlabel(ylabel)
    ax.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return svg_of(fig)


# Rows of the position-bias figure besides "all answers": the workers furthest from what the shown
# orders predict (a figure of thousands of rows reads as nothing).
FIRST_SHOWN_ROWS = 30


def first_shown_svg(overall: Mapping[str, Any] | None, workers: Sequence[Mapping[str, Any]]) -> str:
    """Position bias: per row (all answers, then the workers furthest from the expectation), the
    share that chose the option shown first with its interval (a line), and the share the shown
    orders predict with no bias (an open diamond). Flagged rows are red."""
    if not overall or not overall.get("answers"):
        return empty_svg("No answer to an item that someone else answered too: nothing to show yet.")
    ranked = sorted((w for w in workers if w.get("answers")),
                    key=lambda w: -abs((w["share"] or 0) - (w["expected"] or 0)))[:FIRST_SHOWN_ROWS]
    rows = [{**overall, "worker": f"all answers ({overall['answers']})"}] + [
        {**w, "worker": f"{w['worker']} ({w['answers']})"} for w in ranked]
    fig, ax = plt.subplots(figsize=(7, 0.32 * len(rows) + 1.2))
    for y, row in enumerate(rows):
        colour = COLOURS[3] if row.get("flagged") else COLOURS[0]
        ax.plot([row["low"], row["high"]], [y, y], color=colour, linewidth=2, solid_capstyle="butt")
        ax.plot([row["share"]], [y], "o", color=colour, markersize=5)
        ax.plot([row["expected"]], [y], "D", markerfacecolor="none", markeredgecolor=COLOURS[5], markersize=6)
    ax.set_yticks(range(len(rows)), [str(row["worker"]) for row in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of answers that chose the option shown first (dot: observed, line: interval, "
                  "diamond: expected with no bias)", fontsize=8)
    if len(workers) > len(ranked):
        ax.set_title(f"all answers and the {len(ranked)} of {len(workers)} workers furthest from the expectation",
                     fontsize=9)
    fig.tight_layout()
    return svg_of(fig)


FIGURES = {
    "curve": lambda result: curve_svg(result.get("curve", [])),
    "votes": lambda result: votes_svg(result.get("label_votes", {})),
    "competence": lambda result: competence_svg(result.get("workers", [])),
}
