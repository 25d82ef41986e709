"""The worker page's position-bias figure (``annotation.worker_figures.FirstShown``), drawn here
because the crowd engine lies below analysis and its plotting: quality control registers it."""

from __future__ import annotations

from annotation.worker_figures import FirstShown


def first_shown_svg(share: FirstShown) -> str:
    """One row: the share of the worker's answers that chose the option shown first (a dot) with
    its 95% interval (a line), against the share the drawn orders predict with no position bias
    (an open diamond and a dashed line). Nothing to judge: the reason, in words."""
    # Imported when drawn: matplotlib is not needed to start the site.
    from analysis.plots import COLOURS, empty_svg, plt, svg_of

    if not share.n or share.expected is None or share.share is None:
        return empty_svg(f"Nothing to show: {share.why or 'no answers'}.")
    fig, ax = plt.subplots(figsize=(6, 1.2))
    if share.interval is not None:
        ax.plot(list(share.interval), [0, 0], color=COLOURS[0], linewidth=3, solid_capstyle="butt",
                label="95% interval")
    ax.plot([share.share], [0], "o", color=COLOURS[0], markersize=8, label=f"chose it: {share.hits} of {share.n}")
    ax.axvline(share.expected, color=COLOURS[5], linestyle="--", linewidth=1)
    ax.plot([share.expected], [0], "D", markerfacecolor="none", markeredgecolor=COLOURS[5], markersize=9,
            label=f"expected with no bias: {100 * share.expected:.0f}%")
    ax.set_xlim(-0.02, 1.02)  # a share of 0 or 1 keeps its whole dot
    ax.set_ylim(-0.4, 0.4)
    ax.set_xticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_yticks([])
    ax.spines["left"].set_visible(False)
    ax.xaxis.set_major_formatter(lambda x, _: f"{100 * x:.0f}%")
    ax.set_xlabel(f"share of answers that chose {share.first_shown}", fontsize=9)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 1.6), ncol=3, frameon=False, fontsize=8)
    return svg_of(fig)
