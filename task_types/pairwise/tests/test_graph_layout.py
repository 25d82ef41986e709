"""Layout of the argument graph: every argument drawn and labelled, no label on another label or
on a node, nothing outside the picture, only the edges of the transitive reduction."""

import itertools

import networkx as nx
import pytest

from task_types.pairwise.graph_layout import FONT_PX, preference_graph_layout


def pairs_of(edges):
    return [{"arg1": a, "arg2": b, "gold": "a1"} if i % 2 else {"arg1": b, "arg2": a, "gold": "a2"}
            for i, (a, b) in enumerate(edges)]


# Widths in px of characters at 12 px as Chromium sets them in the page's font stack here
# (DejaVu Sans): the widest lowercase letters and digits, and the rest of each class at most.
MEASURED = {"m": 11.7, "w": 9.8, "W": 11.9, "M": 10.4}


def measured_width(text):
    return sum(MEASURED.get(c, 9.4 if c.isupper() else 7.64) for c in text)


def label_box(node):
    return (node.label_x, node.label_y - FONT_PX, node.label_x + measured_width(node.id), node.label_y + FONT_PX * 0.3)


def overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def assert_readable(layout):
    boxes = [label_box(n) for n in layout.nodes]
    circles = [(n.x - n.r, n.y - n.r, n.x + n.r, n.y + n.r) for n in layout.nodes]
    for i, j in itertools.combinations(range(len(boxes)), 2):
        assert not overlap(boxes[i], boxes[j]), (layout.nodes[i].id, layout.nodes[j].id)
    for i, box in enumerate(boxes):
        assert box[0] >= 0 and box[1] >= 0 and box[2] <= layout.width and box[3] <= layout.height, layout.nodes[i].id
        for j, circle in enumerate(circles):
            assert not overlap(box, circle), (layout.nodes[i].id, layout.nodes[j].id)


def test_a_topic_of_ukpconvarg1_size_is_readable():
    # 35 arguments with long ids: a chain on top, then a layer of 14 that all beat one last node.
    ids = [f"argument-with-a-long-id-{n:03d}" for n in range(35)]
    chain = list(zip(ids[:20], ids[1:20], strict=False))
    wide = [(ids[19], x) for x in ids[20:34]] + [(x, ids[34]) for x in ids[20:34]]
    transitive = [(ids[0], ids[5]), (ids[2], ids[30])]  # implied by longer paths
    layout = preference_graph_layout(pairs_of(chain + wide + transitive))
    assert layout.arguments == 35 and {n.id for n in layout.nodes} == set(ids)
    assert layout.pairs == len(chain + wide + transitive) and layout.drawn == len(chain + wide)
    assert layout.layers == 22
    assert_readable(layout)
    # The most convincing argument is on top, the least at the bottom.
    y = {n.id: n.y for n in layout.nodes}
    assert y[ids[0]] == min(y.values()) and y[ids[34]] == max(y.values())


def test_wide_letters_get_their_room():
    ids = ["WWWWMMMMwwww", "mmmmWWWWMMMM", "0123456789ab", "QQQQOOOODDDD"]
    layout = preference_graph_layout(pairs_of([("top", x) for x in ids]))
    assert_readable(layout)


def test_random_dags_stay_readable():
    for seed in range(5):
        graph = nx.gnp_random_graph(30, 0.15, seed=seed, directed=True)
        dag = [(f"a{u}", f"a{v}") for u, v in graph.edges if u < v]
        layout = preference_graph_layout(pairs_of(dag))
        assert layout.drawn == nx.transitive_reduction(nx.DiGraph(dag)).number_of_edges()
        assert_readable(layout)


def test_titles_carry_rank_and_text_and_sizes_follow_out_degree():
    layout = preference_graph_layout(pairs_of([("a", "b"), ("a", "c"), ("b", "c")]),
                                     texts={"a": "Uniforms\n  save money."}, ranks={"a": 1, "c": 3})
    nodes = {n.id: n for n in layout.nodes}
    assert nodes["a"].title == "a (rank 1): Uniforms save money."
    assert nodes["b"].title == "b" and nodes["c"].title == "c (rank 3)"
    assert nodes["a"].r > nodes["b"].r > nodes["c"].r


def test_cycles_and_empty_topics():
    with pytest.raises(ValueError, match="cycle"):
        preference_graph_layout(pairs_of([("a", "b"), ("b", "a")]))
    empty = preference_graph_layout([])
    assert empty.arguments == 0 and empty.drawn == 0
