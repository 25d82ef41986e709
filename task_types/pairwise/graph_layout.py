"""Where to draw a topic's argument graph: the layout behind the SVG that the gold page shows.

The kept pairs of a topic form a DAG (an edge from the more to the less convincing argument).
It is drawn in layers from the most convincing arguments down, each argument in the layer of its
longest path from the top; only the edges of the transitive reduction are drawn (an edge implied
by a longer path is left out), and nodes are sized by out-degree, as Figure 3 of Habernal &
Gurevych (2016). Every label gets room for its full width, so none overlaps or is cut off; the
picture grows instead and the page scrolls it. Pure: networkx in, coordinates out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx

FONT_PX = 12
# Generous widths of characters, in ems, of common sans-serif faces (the widest of them, DejaVu
# Sans, sets digits at 0.64 em and "W" at 0.99 em): a label must never run into its neighbour.
WIDE, UPPER, NARROW, OTHER = 1.0, 0.8, 0.55, 0.66
LAYER_GAP = 46
MIN_RADIUS, MAX_RADIUS = 4.0, 12.0
MARGIN = 12
LABEL_GAP = 5
SLOT_GAP = 22


@dataclass(frozen=True)
class LaidNode:
    id: str
    x: float
    y: float
    r: float
    out_degree: int
    label_x: float
    label_y: float
    title: str  # the argument's id, rank and text, shown on hover
    rank: int | None


@dataclass(frozen=True)
class LaidEdge:
    source: str
    target: str
    path: str  # SVG path data, ending just above the target so the arrowhead shows


@dataclass(frozen=True)
class GraphLayout:
    width: int
    height: int
    nodes: list[LaidNode]
    edges: list[LaidEdge]
    pairs: int  # edges of the graph
    layers: int
    font_px: int = FONT_PX

    @property
    def arguments(self) -> int:
        return len(self.nodes)

    @property
    def drawn(self) -> int:
        return len(self.edges)


def label_width(text: str, font_px: float = FONT_PX) -> float:
    """An upper estimate of the width in px of ``text`` set at ``font_px``."""
    ems = 0.0
    for ch in text:
        if ch in "mwMW" or not ch.isascii():
            ems += WIDE
        elif ch.isupper():
            ems += UPPER
        elif ch in " -_.,:;'|!ijlft":
            ems += NARROW
        else:
            ems += OTHER
    return ems * font_px


def _graph(pairs: Sequence[Mapping[str, Any]]) -> nx.DiGraph:
    graph = nx.DiGraph()
    for p in pairs:
        winner, loser = (p["arg1"], p["arg2"]) if p["gold"] == "a1" else (p["arg2"], p["arg1"])
        graph.add_edge(str(winner), str(loser))
    return graph


def _ordered_layers(graph: nx.DiGraph, reduced: nx.DiGraph, out_degree: Mapping[str, int]) -> list[list[str]]:
    """Layers top-down; inside a layer, nodes follow the mean position of their drawn parents
    (the barycentre heuristic), which keeps most edges short and uncrossed."""
    place: dict[str, float] = {}

    def key(node: str) -> tuple:
        parents = [place[p] for p in reduced.predecessors(node) if p in place]
        centre = sum(parents) / len(parents) if parents else 0.5
        return (centre, -out_degree[node], node)

    ordered = []
    for layer in nx.topological_generations(graph):
        layer = sorted(layer, key=key)
        for i, node in enumerate(layer):
            place[node] = (i + 0.5) / len(layer)
        ordered.append(layer)
    return ordered


def preference_graph_layout(pairs: Sequence[Mapping[str, Any]], *, texts: Mapping[str, str] | None = None,
                            ranks: Mapping[str, int] | None = None) -> GraphLayout:
    """Coordinates (in px) of the graph of ``pairs`` (``arg1``, ``arg2``, ``gold`` a1 or a2),
    which must be acyclic, as the kept pairs of the transitivity filter are. ``texts`` and
    ``ranks`` (by argument id) go into each node's hover title."""
    texts, ranks = texts or {}, ranks or {}
    graph = _graph(pairs)
    if not graph:
        return GraphLayout(width=0, height=0, nodes=[], edges=[], pairs=0, layers=0)
    if not nx.is_directed_acyclic_graph(graph):
        raise ValueError("the pairs form a cycle; only the kept pairs of the transitivity filter can be drawn")
    out_degree = dict(graph.out_degree())
    reduced = nx.transitive_reduction(graph)
    layers = _ordered_layers(graph, reduced, out_degree)
    top = max(out_degree.values()) or 1
    radius = {n: MIN_RADIUS + (MAX_RADIUS - MIN_RADIUS) * (out_degree[n] / top) ** 0.5 for n in graph}
    label_px = max(label_width(n) for n in graph)
    slot = 2 * MAX_RADIUS + LABEL_GAP + label_px + SLOT_GAP
    widest = max(len(layer) for layer in layers)
    nodes, position = [], {}
    for depth, layer in enumerate(layers):
        offset = (widest - len(layer)) / 2
        for i, node in enumerate(layer):
            x = MARGIN + MAX_RADIUS + (offset + i) * slot
            y = MARGIN + MAX_RADIUS + depth * LAYER_GAP
            position[node] = (x, y)
            rank = ranks.get(node)
            title = node + (f" (rank {rank})" if rank is not None else "")
            if texts.get(node):
                title += ": " + " ".join(texts[node].split())
            nodes.append(LaidNode(id=node, x=round(x, 1), y=round(y, 1), r=round(radius[node], 1),
                                  out_degree=out_degree[node], label_x=round(x + radius[node] + LABEL_GAP, 1),
                                  label_y=round(y + FONT_PX * 0.35, 1), title=title, rank=rank))
    edges = []
    for source, target in sorted(reduced.edges):
        (x1, y1), (x2, y2) = position[source], position[target]
        start, end = y1 + radius[source], y2 - radius[target] - 2
        bend = (end - start) / 2
        edges.append(LaidEdge(source=source, target=target,
                              path=f"M{x1:.1f},{start:.1f} C{x1:.1f},{start + bend:.1f} {x2:.1f},{end - bend:.1f} {x2:.1f},{end:.1f}"))
    width = int(2 * MARGIN + (widest - 1) * slot + 2 * MAX_RADIUS + LABEL_GAP + label_px) + 1
    height = int(2 * MARGIN + (len(layers) - 1) * LAYER_GAP + 2 * MAX_RADIUS) + 1
    return GraphLayout(width=width, height=height, nodes=nodes, edges=edges, pairs=graph.number_of_edges(),
                       layers=len(layers))
