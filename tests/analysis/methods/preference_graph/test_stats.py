"""Table 1 statistics of the preference-graph filter (Habernal & Gurevych 2016)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from analysis.methods.preference_graph import A1, A2, EQUAL, preference_graph_filter
from analysis.methods.preference_graph import stats as stats_module
from analysis.methods.preference_graph.stats import (
    preference_graph_stats,
    transitivity_scores,
    transitivity_table,
)


def frame(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["pair", "arg1", "arg2", "gold", "weight"])


def by_edge(scores) -> dict[tuple, int]:
    return dict(zip(zip(scores.sources, scores.targets, strict=True), scores.scores, strict=True))


def brute_force_scores(graph: nx.DiGraph) -> dict[tuple, int]:
    """Longest simple path for every edge that also has a longer path (by enumeration)."""
    scores = {}
    for a, b in graph.edges:
        longest = max(len(path) - 1 for path in nx.all_simple_paths(graph, a, b))
        if longest > 1:
            scores[a, b] = longest
    return scores


class TestTransitivityScores:
    def test_hand_computed_graph(self):
        # a > b > c > d plus the shortcuts a > c, a > d, b > d; e > d has no longer path.
        graph = nx.DiGraph(
            [("a", "b"), ("b", "c"), ("c", "d"), ("a", "c"), ("a", "d"), ("b", "d"), ("e", "d")]
        )
        scores = transitivity_scores(graph)
        found = by_edge(scores)
        assert found == {("a", "d"): 3, ("a", "c"): 2, ("b", "d"): 2}
        assert scores.n == 3
        assert scores.mean == pytest.approx(7 / 3)
        assert scores.max == 3

    def test_no_redundant_edge(self):
        scores = transitivity_scores(nx.DiGraph([("a", "b"), ("b", "c")]))
        assert scores.n == 0
        assert math.isnan(scores.mean)
        assert scores.max == 0  # the reference casts a NaN maximum to int

    @pytest.mark.parametrize("seed", range(8))
    def test_matches_path_enumeration_also_in_chunks(self, seed, monkeypatch):
        rng = np.random.default_rng(seed)
        graph = nx.DiGraph()
        graph.add_nodes_from(range(12))
        for _ in range(30):
            a, b = sorted(rng.choice(12, size=2, replace=False))
            graph.add_edge(int(a), int(b))
        expected = brute_force_scores(graph)
        for budget in (1 << 26, 12 * 2):  # one chunk, then two target columns at a time
            monkeypatch.setattr(stats_module, "_COLUMN_BUDGET", budget)
            scores = transitivity_scores(graph)
            assert by_edge(scores) == expected

    def test_cycle_is_rejected(self):
        with pytest.raises(ValueError, match="acyclic"):
            transitivity_scores(nx.DiGraph([("a", "b"), ("b", "a")]))


class TestGraphStats:
    PAIRS = frame(
        [
            ("ab", "a", "b", A1, 0.9),
            ("bc", "b", "c", A1, 0.8),
            ("ac", "a", "c", A1, 0.7),
            ("ca", "c", "a", A1, 0.6),
            ("cd", "c", "d", EQUAL, 0.5),
            ("de", "d", "e", A2, 0.4),
            ("xy", "x", "y", None, np.nan),
        ]
    )

    def test_strict_descending(self):
        stats = preference_graph_stats(preference_graph_filter(self.PAIRS))
        assert (stats.pairs_total, stats.removed_apriori, stats.pairs_processed) == (7, 2, 5)
        assert stats.pairs_before_first_cycle == 3
        assert stats.first_cycle_length == 2  # c > a against the direct edge a > c
        assert (stats.first_cycle_nodes, stats.first_cycle_edges) == (3, 4)
        transitivity = (stats.transitivity_mean, stats.transitivity_max, stats.transitivity_samples)
        assert transitivity == (2.0, 2, 1)
        assert (stats.final_nodes, stats.final_edges) == (5, 4)  # a, b, c and d, e
        assert (stats.pairs_kept, stats.pairs_ignored) == (4, 1)
        assert stats.largest_cluster == 1

    def test_equal_merged(self):
        stats = preference_graph_stats(preference_graph_filter(self.PAIRS, keep_equal=True))
        assert stats.removed_apriori == 1
        assert stats.largest_cluster == 2
        # c = d merges into one node: a, b, c+d, e.
        assert (stats.final_nodes, stats.final_edges) == (4, 4)
        assert (stats.pairs_kept, stats.pairs_ignored) == (5, 1)

    def test_no_cycle_gives_nan_first_cycle_fields(self):
        stats = preference_graph_stats(preference_graph_filter(self.PAIRS.iloc[:3]))
        assert math.isnan(stats.pairs_before_first_cycle)
        assert math.isnan(stats.first_cycle_length)


def test_table_over_topics():
    first = TestGraphStats.PAIRS.assign(topic="t1")
    second = TestGraphStats.PAIRS.assign(topic="t2", pair=lambda f: f["pair"] + "2")
    second.loc[second["pair"] == "ca2", "gold"] = A2  # a > c agrees with a > b > c: no cycle
    table = transitivity_table(pd.concat([first, second], ignore_index=True), seed=3)
    assert len(table.per_topic) == 2 * 2 * 3
    assert len(table.mean) == 2 * 3
    strict = table.per_topic.set_index(["topic", "keep_equal", "strategy"])
    assert strict.loc[("t1", False, "descending"), "pairs_ignored"] == 1
    assert strict.loc[("t2", False, "descending"), "pairs_ignored"] == 0
    mean = table.mean.set_index(["keep_equal", "strategy"])
    assert mean.loc[(False, "descending"), "pairs_ignored"] == 0.5
    # t2 has no cycle: its NaN is skipped, the mean is t1's value.
    assert mean.loc[(False, "descending"), "first_cycle_length"] == 2
    with pytest.raises(ValueError, match="topic"):
        transitivity_table(TestGraphStats.PAIRS)
