"""Statistics of the DAG filter: the paper's Table 1 (Habernal & Gurevych, ACL 2016, 3.3).

Definitions follow ``Step6GraphTransitivityCleaner.GraphCleaningResults`` of the reference
implementation:

* transitivity score: for every node pair ``A, B`` joined by a direct edge and by a longer path,
  the ratio longest / shortest path, i.e. the length (in edges) of the longest path ``A -> B``,
  measured on the final graph. The paper's "average" and "maximum" are the mean and the maximum
  over those pairs (the maximum as an integer).
* first cycle: pairs processed before the first pair that closes a cycle, the shortest cycle
  in the graph that pair would produce, and that graph's node and edge counts (they include the
  offending pair; see ``FirstCycle``).
* final graph: edges and nodes of the kept graph, kept and ignored pairs. Deviation: the
  reference reads these off the graph of the last loop iteration, which still contains the last
  pair even when that pair was ignored; here they describe the kept graph.

Topics without any cycle get NaN first-cycle fields (the reference leaves them at 0, which
pulls averages down) and averages skip NaN.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Unpack

import networkx as nx
import numpy as np
import pandas as pd

from analysis.methods.preference_graph.filter import FilterOptions, preference_graph_filter
from analysis.methods.preference_graph.result import (
    STRATEGIES,
    PreferenceGraphResult,
    Reason,
    Strategy,
)

# Cells of the longest-path table held at once (int32: 256 MB); large graphs are processed in
# chunks of target columns.
_COLUMN_BUDGET = 1 << 26
_UNREACHABLE = np.int32(-(1 << 30))


@dataclass(frozen=True)
class TransitivityScores:
    """Longest-path lengths over the edges that also have a longer path (one per such edge)."""

    sources: np.ndarray
    targets: np.ndarray
    scores: np.ndarray

    @property
    def n(self) -> int:
        return len(self.scores)

    @property
    def mean(self) -> float:
        return float(self.scores.mean()) if self.n else float("nan")

    @property
    def max(self) -> int:
        # The reference casts a NaN maximum (no samples) to int, which gives 0.
        return int(self.scores.max()) if self.n else 0


@dataclass(frozen=True)
class PreferenceGraphStats:
    """One topic, one strategy, one scenario: the fields of the paper's Table 1."""

    strategy: str
    keep_equal: bool
    pairs_total: int
    removed_apriori: int
    pairs_processed: int
    pairs_before_first_cycle: float
    first_cycle_length: float
    first_cycle_nodes: float
    first_cycle_edges: float
    transitivity_mean: float
    transitivity_max: int
    transitivity_samples: int
    final_nodes: int
    final_edges: int
    pairs_kept: int
    pairs_ignored: int
    pairs_cluster_limit: int
    largest_cluster: int


@dataclass(frozen=True)
class TransitivityTable:
    """Table 1 over topics: ``per_topic`` has one row per (topic, scenario, strategy); ``mean``
    averages the numeric columns per (scenario, strategy) over topics."""

    per_topic: pd.DataFrame
    mean: pd.DataFrame


def transitivity_scores(graph: nx.DiGraph) -> TransitivityScores:
    """Transitivity scores of a DAG (the reference's ``computeTransitivityScores``).

    The reference runs Bellman-Ford from every node with out-degree > 1 and keeps target nodes
    with in-degree > 1 whose shortest path is a single edge and whose longest path is longer;
    that is exactly the set of edges with a longer parallel path, scored by the longest path.
    Here longest paths come from one dynamic programme over a topological order, vectorised over
    target columns.
    """
    if not nx.is_directed_acyclic_graph(graph):
        raise ValueError("transitivity scores need a directed acyclic graph")
    order = list(nx.topological_sort(graph))
    index = {node: i for i, node in enumerate(order)}
    n = len(order)
    successors = [
        np.fromiter((index[s] for s in graph.successors(node)), dtype=np.intp) for node in order
    ]
    edge_sources = np.fromiter((index[a] for a, _ in graph.edges()), dtype=np.intp)
    edge_targets = np.fromiter((index[b] for _, b in graph.edges()), dtype=np.intp)
    out_degree = np.bincount(edge_sources, minlength=n)
    in_degree = np.bincount(edge_targets, minlength=n)
    candidate = (out_degree[edge_sources] > 1) & (in_degree[edge_targets] > 1)
    edge_sources, edge_targets = edge_sources[candidate], edge_targets[candidate]

    targets = np.unique(edge_targets)
    longest = np.empty(len(edge_sources), dtype=np.int64)
    chunk = max(1, _COLUMN_BUDGET // max(n, 1))
    for begin in range(0, len(targets), chunk):
        columns = targets[begin : begin + chunk]
        column_of = {int(t): c for c, t in enumerate(columns)}
        table = np.full((n, len(columns)), _UNREACHABLE, dtype=np.int32)
        # Reverse topological order: every successor's row is final before it is read.
        for node in range(n - 1, -1, -1):
            following = successors[node]
            if len(following):
                row = table[following].max(axis=0)
                reachable = row > _UNREACHABLE
                table[node, reachable] = row[reachable] + 1
            if node in column_of:
                table[node, column_of[node]] = 0
        in_chunk = np.isin(edge_targets, columns)
        longest[in_chunk] = table[
            edge_sources[in_chunk], [column_of[int(t)] for t in edge_targets[in_chunk]]
        ]
    redundant = longest > 1
    return TransitivityScores(
        sources=np.asarray(order, dtype=object)[edge_sources[redundant]],
        targets=np.asarray(order, dtype=object)[edge_targets[redundant]],
        scores=longest[redundant],
    )


def preference_graph_stats(result: PreferenceGraphResult) -> PreferenceGraphStats:
    """Table 1 fields of one filter run."""
    first = result.first_cycle
    nan = float("nan")
    scores = transitivity_scores(result.dag())
    sizes = result.cluster_sizes
    return PreferenceGraphStats(
        strategy=result.strategy,
        keep_equal=result.keep_equal,
        pairs_total=result.n_pairs,
        removed_apriori=result.n_removed_apriori,
        pairs_processed=result.n_processed,
        pairs_before_first_cycle=nan if first is None else first.position,
        first_cycle_length=nan if first is None else first.length,
        first_cycle_nodes=nan if first is None else first.nodes,
        first_cycle_edges=nan if first is None else first.edges,
        transitivity_mean=scores.mean,
        transitivity_max=scores.max,
        transitivity_samples=scores.n,
        final_nodes=len(result.nodes),
        final_edges=len(result.edges),
        pairs_kept=result.n_kept,
        pairs_ignored=result.count(Reason.CYCLE),
        pairs_cluster_limit=result.count(Reason.CLUSTER_LIMIT),
        largest_cluster=int(sizes.max()) if len(sizes) else 0,
    )


def transitivity_table(
    pairs: pd.DataFrame,
    *,
    strategies: Sequence[Strategy] = STRATEGIES,
    keep_equal: Iterable[bool] = (False, True),
    seed: int = 1,
    topic_column: str = "topic",
    **filter_options: Unpack[FilterOptions],
) -> TransitivityTable:
    """Run the filter for every topic x scenario x strategy and tabulate the statistics.

    ``pairs`` is the per-pair frame of ``preference_graph_filter`` plus ``topic_column``;
    ``filter_options`` go to ``preference_graph_filter`` (e.g. ``max_cluster_size``).
    """
    if topic_column not in pairs.columns:
        raise ValueError(f"pairs lack the topic column {topic_column!r}")
    rows = []
    for topic, topic_pairs in pairs.groupby(topic_column, sort=True):
        for scenario in keep_equal:
            for strategy in strategies:
                result = preference_graph_filter(
                    topic_pairs,
                    strategy=strategy,
                    keep_equal=scenario,
                    seed=seed,
                    **filter_options,
                )
                stats = preference_graph_stats(result)
                rows.append(
                    {topic_column: topic}
                    | {field.name: getattr(stats, field.name) for field in fields(stats)}
                )
    per_topic = pd.DataFrame(rows)
    keys = ["keep_equal", "strategy"]
    numeric = [c for c in per_topic.columns if c not in (topic_column, *keys)]
    mean = per_topic.groupby(keys, sort=False)[numeric].mean().reset_index()
    return TransitivityTable(per_topic=per_topic, mean=mean)
