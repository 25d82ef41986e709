"""PageRank ranking of arguments from kept preference pairs (Habernal & Gurevych 2016)."""

from __future__ import annotations

import networkx as nx
import pandas as pd
import pytest

from analysis.methods.preference_graph import A1, A2, EQUAL, preference_graph_filter
from analysis.methods.preference_graph.ranking import preference_ranking


def frame(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["pair", "arg1", "arg2", "gold", "weight"])


EQUAL_CHAIN = frame(
    [
        ("ab", "a", "b", EQUAL, 0.9),
        ("bc", "b", "c", EQUAL, 0.8),
        ("cd", "c", "d", A1, 0.7),
        ("ac", "a", "c", A2, 0.6),
        ("de", "d", "e", EQUAL, 0.2),
        ("ef", "e", "f", A1, 0.1),
    ]
)


class TestRanking:
    def test_chain_direction(self):
        pairs = frame([("ab", "a", "b", A1, 1.0), ("cb", "c", "b", A2, 1.0)])
        ranking = preference_ranking(pairs)
        # Rank flows from winners to losers: the least convincing argument has most PageRank.
        assert ranking.pagerank["a"] < ranking.pagerank["b"] < ranking.pagerank["c"]
        assert ranking.rank.to_dict() == {"a": 1, "b": 2, "c": 3}
        assert ranking.pagerank.index.tolist() == ["a", "b", "c"]
        assert ranking.pagerank.sum() == pytest.approx(1.0)

    def test_equal_pair_is_undirected(self):
        pairs = frame(
            [("ab", "a", "b", EQUAL, 1.0), ("bc", "b", "c", A1, 1.0), ("ac", "a", "c", A1, 1.0)]
        )
        ranking = preference_ranking(pairs)
        assert ranking.pagerank["a"] == pytest.approx(ranking.pagerank["b"])
        assert ranking.rank["c"] == 3
        reference = nx.pagerank(nx.DiGraph([("a", "b"), ("b", "a"), ("b", "c"), ("a", "c")]))
        assert ranking.pagerank.to_dict() == pytest.approx(reference)

    def test_kept_pairs_rank_every_argument(self):
        result = preference_graph_filter(EQUAL_CHAIN, keep_equal=True)
        ranking = preference_ranking(result.kept)
        assert set(ranking.pagerank.index) == set("abcdef")

    def test_missing_gold_is_an_error(self):
        with pytest.raises(ValueError, match="gold label"):
            preference_ranking(frame([("ab", "a", "b", None, 1.0)]))
