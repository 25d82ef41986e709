"""The key-point summary as a bar chart (SVG): one panel per topic and stance, each key point's
number of matched arguments, most matched on top. Counts start at 0: the x axis of a panel begins
at 0 and shows whole numbers, also when no argument of the stance is labelled."""

from __future__ import annotations

import io
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.ticker import MaxNLocator

from analysis.plots import COLOURS, plt

MAX_GROUPS = 24


def _svg(fig: Any) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def summary_svg(groups: Sequence[Mapping[str, Any]]) -> str:
    return _svg(summary_figure(groups))


def summary_figure(groups: Sequence[Mapping[str, Any]]) -> Any:
    """The chart as a matplotlib figure (``summary_svg`` renders and closes it)."""
    shown = [g for g in groups if g["key_points"]][:MAX_GROUPS]
    if not shown:
        fig, ax = plt.subplots(figsize=(6, 1.2))
        ax.axis("off")
        ax.text(0.5, 0.5, "No labels yet.", ha="center", va="center", color="#5d6475")
        return fig
    heights = [0.42 * len(g["key_points"]) + 0.9 for g in shown]
    fig, axes = plt.subplots(len(shown), 1, figsize=(9, sum(heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ax, group in zip(axes[:, 0], shown, strict=True):
        kps = group["key_points"]
        labels = [textwrap.shorten(k["key_point"], 70, placeholder="…") for k in kps]
        colour = COLOURS[0] if group["stance"] == 1 else COLOURS[1]
        ax.barh(range(len(kps)), [k["matched"] for k in kps], color=colour)
        ax.set_yticks(range(len(kps)), labels, fontsize=8)
        ax.invert_yaxis()
        # A count axis from 0; with every count 0 matplotlib would centre it on 0 (−0.04 to 0.04).
        ax.set_xlim(0, max(1, max(k["matched"] for k in kps)) * 1.1)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        for y, k in enumerate(kps):
            ax.text(k["matched"], y, f" {k['matched']}", va="center", fontsize=8)
        unmatched = group.get("unmatched_share")
        tail = f"; no key point: {unmatched:.0%}" if unmatched is not None else ""
        title = textwrap.shorten(group["topic"], 70, placeholder="…")
        ax.set_title(f"{title} ({'pro' if group['stance'] == 1 else 'con'}, "
                     f"{group['n_labelled']} arguments labelled{tail})", fontsize=9, loc="left")
    axes[-1, 0].set_xlabel("matched arguments (label 1)")
    fig.tight_layout()
    return fig
