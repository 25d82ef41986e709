"""The key-point summary chart: counts start at 0, also for a stance with no labelled argument."""

from __future__ import annotations

from analysis.plots import plt
from task_types.key_points.plots import summary_figure, summary_svg


def group(stance, counts, labelled):
    return {"topic": "We should ban boxing", "stance": stance, "n_labelled": labelled, "unmatched_share": None,
            "key_points": [{"key_point": f"point {n}", "matched": c} for n, c in enumerate(counts)]}


def test_a_stance_with_no_labelled_argument_has_an_x_axis_from_0():
    fig = summary_figure([group(1, [3, 1, 0], 4), group(-1, [0, 0, 0], 0)])
    try:
        pro, con = fig.axes
        assert con.get_xlim()[0] == 0 and con.get_xlim()[1] >= 1
        assert pro.get_xlim()[0] == 0 and pro.get_xlim()[1] >= 3
        for ax in (pro, con):
            ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
            assert ticks and all(t >= 0 and float(t).is_integer() for t in ticks)
    finally:
        plt.close(fig)


def test_the_svg_shows_no_negative_count():
    svg = summary_svg([group(-1, [0, 0], 0)])
    assert svg.startswith("<?xml") and "−0.04" not in svg and "\u22120" not in svg
