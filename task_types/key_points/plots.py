"""The key-point summary as a bar chart (SVG): one panel per topic and stance, each key point's
number of matched arguments, most matched on top."""

from __future__ import annotations

import io
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from analysis.plots import COLOURS, plt

MAX_GROUPS = 24


def _svg(fig: Any) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def summary_svg(groups: Sequence[Mapping[str, Any]]) -> str:
    shown = [g for g in groups if g["key_points"]][:MAX_GROUPS]
    if not shown:
        fig, ax = plt.subplots(figsize=(6, 1.2))
        ax.axis("off")
        ax.text(0.5, 0.5, "No labels yet.", ha="center", va="center", color="#5d6475")
        return _svg(fig)
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
        for y, k in enumerate(kps):
            ax.text(k["matched"], y, f" {k['matched']}", va="center", fontsize=8)
        unmatched = group.get("unmatched_share")
        tail = f"; no key point: {unmatched:.0%}" if unmatched is not None else ""
        title = textwrap.shorten(group["topic"], 70, placeholder="…")
        ax.set_title(f"{title} ({'pro' if group['stance'] == 1 else 'con'}, "
                     f"{group['n_labelled']} arguments labelled{tail})", fontsize=9, loc="left")
    axes[-1, 0].set_xlabel("matched arguments (label 1)")
    fig.tight_layout()
    return _svg(fig)
