"""SVG figures (matplotlib) drawn from stored results, readable without JavaScript."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
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


def _svg(fig) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def _empty(message: str) -> str:
    fig, ax = plt.subplots(figsize=(6, 1.2))
    ax.axis("off")
    ax.text(0.5, 0.5, message, ha="center", va="center", color="#5d6475")
    return _svg(fig)


def curve_svg(curve: Sequence[Mapping[str, Any]]) -> str:
    """Agreement as annotations accumulate."""
    if not curve:
        return _empty("No annotations yet")
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
    return _svg(fig)


def votes_svg(label_votes: Mapping[str, Mapping[str, Sequence[int]]]) -> str:
    """For each label: items with the most common number of answers m, by votes 0..m for it."""
    if not label_votes:
        return _empty("No annotations yet")
    ms = {}
    for per_m in label_votes.values():
        for m, row in per_m.items():
            ms[int(m)] = ms.get(int(m), 0) + sum(row)
    m = max(ms, key=ms.get)
    labels = list(label_votes)
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    width = 0.8 / len(labels)
    for i, label in enumerate(labels):
        row = list(label_votes[label].get(str(m), [0] * (m + 1)))
        ax.bar([k + i * width - 0.4 + width / 2 for k in range(m + 1)], row, width=width,
               label=label, color=COLOURS[i % len(COLOURS)])
    ax.set_xticks(range(m + 1))
    ax.set_xlabel(f"votes for the label, of {m} answers per item")
    ax.set_ylabel("items")
    ax.legend(frameon=False, title="label")
    ax.grid(axis="y", alpha=0.3)
    return _svg(fig)


def competence_svg(workers: Sequence[Mapping[str, Any]]) -> str:
    values = [w["competence"] for w in workers if w.get("competence") is not None]
    if not values:
        return _empty("No competence estimates")
    fig, ax = plt.subplots(figsize=(6.4, 2.8))
    ax.hist(values, bins=20, range=(0, 1), color=COLOURS[0])
    ax.set_xlabel("MACE competence")
    ax.set_ylabel("workers")
    ax.grid(axis="y", alpha=0.3)
    return _svg(fig)


def hourly_svg(per_hour: Sequence[tuple[Any, int]]) -> str:
    if not per_hour:
        return _empty("No annotations yet")
    fig, ax = plt.subplots(figsize=(6.4, 2.6))
    ax.bar([h for h, _ in per_hour], [n for _, n in per_hour], width=1 / 24 * 0.9, color=COLOURS[2])
    ax.set_ylabel("annotations per hour")
    fig.autofmt_xdate()
    ax.grid(axis="y", alpha=0.3)
    return _svg(fig)


FIGURES = {
    "curve": lambda result: curve_svg(result.get("curve", [])),
    "votes": lambda result: votes_svg(result.get("label_votes", {})),
    "competence": lambda result: competence_svg(result.get("workers", [])),
}


def preference_graph_svg(pairs: Sequence[Mapping[str, Any]], *, title: str = "") -> str:
    """The argument graph of one topic, nodes sized by out-degree (as Figure 3 of Habernal &
    Gurevych 2016). The kept pairs form a DAG; it is drawn in layers from the most convincing
    argument down, with only the edges of its transitive reduction (an edge implied by a longer
    path is left out), so the order stays readable."""
    import networkx as nx

    graph = nx.DiGraph()
    for p in pairs:
        winner, loser = (p["arg1"], p["arg2"]) if p["gold"] == "a1" else (p["arg2"], p["arg1"])
        graph.add_edge(winner, loser)
    if not graph:
        return _empty("No kept pairs in this topic")
    out_degree = dict(graph.out_degree())
    reduced = nx.transitive_reduction(graph)
    layers = list(nx.topological_generations(graph))
    position = {}
    for depth, layer in enumerate(layers):
        layer = sorted(layer, key=lambda n: (-out_degree[n], str(n)))
        for i, node in enumerate(layer):
            position[node] = ((i - (len(layer) - 1) / 2) * 1.0, -depth)
    fig, ax = plt.subplots(figsize=(7.5, max(3.0, 0.45 * len(layers) + 1)))
    sizes = [30 + 12 * out_degree[n] for n in reduced.nodes]
    nx.draw_networkx_edges(reduced, position, ax=ax, alpha=0.35, arrowsize=7, width=0.7, node_size=sizes)
    nx.draw_networkx_nodes(reduced, position, ax=ax, node_size=sizes, node_color=COLOURS[0], alpha=0.9)
    nx.draw_networkx_labels(reduced, {n: (x + 0.12, y) for n, (x, y) in position.items()},
                            labels={n: str(n) for n in reduced.nodes}, font_size=6, ax=ax,
                            horizontalalignment="left")
    ax.set_title(title or "", fontsize=9)
    ax.text(0.0, -0.02, f"{graph.number_of_nodes()} arguments, {graph.number_of_edges()} kept pairs "
            f"({reduced.number_of_edges()} drawn); most convincing on top",
            transform=ax.transAxes, fontsize=7, color="#5d6475", va="top")
    ax.axis("off")
    return _svg(fig)
