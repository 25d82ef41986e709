"""The vocabulary of the preference-graph filter and its result.

Gold labels of a pair (``a1``: arg1 is more convincing, ``a2``, ``equal``), the orders in which
pairs enter the graph (strategies), why a pair was kept or dropped (:class:`Reason`), and the
outcome of one topic (:class:`PreferenceGraphResult`, with the :class:`FirstCycle` statistics).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

import networkx as nx
import pandas as pd

A1, A2, EQUAL = "a1", "a2", "equal"
GOLD_LABELS = (A1, A2, EQUAL)
Strategy = Literal["random", "ascending", "descending"]
STRATEGIES: tuple[Strategy, ...] = ("random", "ascending", "descending")


class Reason(StrEnum):
    """Why a pair was kept or dropped."""

    KEPT = "kept"
    NO_GOLD = "no_gold"  # dropped a priori: aggregation gave no gold label
    EQUAL_REMOVED = "equal_removed"  # dropped a priori: equal pairs are not used (scenario a)
    WEAK_EQUAL = "weak_equal"  # dropped a priori: equal pair below the merge-weight guard
    CYCLE = "cycle"  # ignored: adding it would have closed a cycle
    CLUSTER_LIMIT = "cluster_limit"  # ignored: merging would exceed the cluster-size guard
    SKIPPED_FIRST = "skipped_first"  # ignored: reproduces the reference loop starting at 1


APRIORI_REASONS = frozenset({Reason.NO_GOLD, Reason.EQUAL_REMOVED, Reason.WEAK_EQUAL})


@dataclass(frozen=True)
class FirstCycle:
    """The first pair that would have closed a cycle, and the graph it would have produced.

    ``position`` is the number of pairs processed before it (the paper's "pairs sampled before
    the first cycle"). ``nodes`` and ``edges`` count the graph including that pair, as the
    reference implementation does; ``length`` is the shortest cycle in that graph (1 for a
    self-loop).
    """

    position: int
    pair: Hashable
    length: int
    nodes: int
    edges: int


@dataclass(frozen=True)
class PreferenceGraphResult:
    """Outcome of the DAG filter on one topic.

    provenance: one row per input pair, in input order: the input columns plus ``position``
        (processing order, -1 when dropped a priori), ``kept``, ``reason`` (a ``Reason``
        value), ``cycle_length`` (edges of the cycle the pair would have closed) and
        ``conflict_pairs`` (ids of kept pairs along the existing path that the pair
        contradicted: directed pairs on the path back, or the equal pairs that put both
        arguments into one node).
    edges: the DAG over nodes (clusters of arguments joined by kept equal pairs; a node is
        named by its first argument): ``source`` (more convincing), ``target``, ``pair``
        (the kept pair that created the edge).
    clusters: per argument of the input: ``cluster`` (its node) and ``in_graph`` (touched by a
        kept pair).
    """

    provenance: pd.DataFrame
    edges: pd.DataFrame
    clusters: pd.DataFrame
    first_cycle: FirstCycle | None
    strategy: Strategy
    keep_equal: bool
    seed: int

    @property
    def kept(self) -> pd.DataFrame:
        """Kept pairs in processing order."""
        kept = self.provenance[self.provenance["kept"]]
        return kept.sort_values("position").reset_index(drop=True)

    @property
    def nodes(self) -> pd.Index:
        nodes: pd.Index = pd.Index(self.clusters.loc[self.clusters["in_graph"], "cluster"].unique())
        return nodes

    @property
    def cluster_sizes(self) -> pd.Series:
        """Arguments per node of the graph, largest first."""
        in_graph = self.clusters[self.clusters["in_graph"]]
        return in_graph["cluster"].value_counts().rename("size")

    def count(self, reason: Reason) -> int:
        return int((self.provenance["reason"] == reason).sum())

    @property
    def n_pairs(self) -> int:
        return len(self.provenance)

    @property
    def n_removed_apriori(self) -> int:
        return int(self.provenance["reason"].isin(APRIORI_REASONS).sum())

    @property
    def n_processed(self) -> int:
        return self.n_pairs - self.n_removed_apriori

    @property
    def n_kept(self) -> int:
        return int(self.provenance["kept"].sum())

    def dag(self) -> nx.DiGraph:
        """The kept graph as a networkx DiGraph (isolated cluster nodes included)."""
        graph = nx.DiGraph()
        graph.add_nodes_from(self.nodes)
        graph.add_edges_from(
            (source, target, {"pair": pair})
            for source, target, pair in self.edges.itertuples(index=False, name=None)
        )
        return graph
