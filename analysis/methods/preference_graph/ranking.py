"""Ranking arguments by PageRank over the kept preference pairs.

Habernal & Gurevych (ACL 2016), section 3.4 and ``Step7bConvArgRankProducer`` of the reference
implementation: UKPConvArgRank is the PageRank of the kept pairs of the equal-merging scenario
with the descending-weight strategy.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import pandas as pd

from analysis.methods.preference_graph.result import A1, A2, GOLD_LABELS


@dataclass(frozen=True)
class PreferenceRanking:
    """PageRank of every argument in the given pairs.

    Edges point from the more to the less convincing argument, so rank accumulates at
    arguments that lose: a higher ``pagerank`` means LESS convincing (as in UKPConvArgRank).
    ``rank`` is 1 for the most convincing argument (lowest PageRank; ties share the best rank).
    Both series are sorted from most to least convincing.
    """

    pagerank: pd.Series
    rank: pd.Series


def preference_ranking(
    pairs: pd.DataFrame,
    *,
    damping: float = 0.85,
    tol: float = 1e-10,
    max_iter: int = 1000,
) -> PreferenceRanking:
    """PageRank over the mixed graph of ``pairs`` (columns ``arg1``, ``arg2``, ``gold``).

    A directed pair is an edge from the more to the less convincing argument; an equal pair is
    an undirected edge, i.e. an edge each way (GraphStream lets rank flow both ways along an
    undirected edge and counts it in the out-degree of both ends). Pass the kept pairs of
    ``preference_graph_filter(..., keep_equal=True, strategy="descending")`` to reproduce
    UKPConvArgRank; the defaults match GraphStream's damping factor of 0.85.
    """
    missing = {"arg1", "arg2", "gold"} - set(pairs.columns)
    if missing:
        raise ValueError(f"pairs lack column(s) {sorted(missing)}")
    gold = pairs["gold"]
    if gold.isna().any() or not gold.isin(GOLD_LABELS).all():
        raise ValueError(f"every pair needs a gold label in {GOLD_LABELS}")
    graph = nx.DiGraph()
    graph.add_nodes_from(pd.unique(pd.concat([pairs["arg1"], pairs["arg2"]], ignore_index=True)))
    for first, second, label in zip(pairs["arg1"], pairs["arg2"], gold, strict=True):
        if label == A1:
            graph.add_edge(first, second)
        elif label == A2:
            graph.add_edge(second, first)
        else:
            graph.add_edge(first, second)
            graph.add_edge(second, first)
    if graph.number_of_nodes() == 0:
        empty = pd.Series(dtype=float, name="pagerank")
        return PreferenceRanking(pagerank=empty, rank=empty.astype(int).rename("rank"))
    scores = nx.pagerank(graph, alpha=damping, tol=tol, max_iter=max_iter)
    pagerank = pd.Series(scores, name="pagerank", dtype=float)
    pagerank.index.name = "argument"
    pagerank = pagerank.sort_values(kind="stable")
    rank = pagerank.rank(method="min").astype(int).rename("rank")
    return PreferenceRanking(pagerank=pagerank, rank=rank)
