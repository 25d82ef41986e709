"""Cleaning pairwise convincingness labels with a global acyclicity constraint.

Habernal & Gurevych, "Which argument is more convincing?" (ACL 2016), sections 3.3-3.4: the gold
labels of one topic form a graph with an edge ``more convincing -> less convincing`` per pair.
Pairs are added one by one in an order given by a strategy, and a pair that would close a cycle
is ignored; what remains is a DAG (UKPConvArgStrict when equal pairs are dropped up front and
the order is by descending weight). Definitions follow the authors' reference implementation
(``Step6GraphTransitivityCleaner`` in UKPLab/acl2016-convincing-arguments) where the paper leaves
details open; deviations are noted where they happen.

Input of one topic: a frame with one row per pair and the columns ``pair`` (id), ``arg1``,
``arg2``, ``gold`` (``a1`` = arg1 is more convincing, ``a2``, ``equal``, or missing) and
``weight`` (:func:`pair_weights`). The filter lives in :mod:`.filter` (on the incremental
topological order of :mod:`.dag`), its labels, reasons and result in :mod:`.result`, the ranking
in :mod:`.ranking`, the statistics of the paper's Table 1 in :mod:`.stats`.
"""

from analysis.methods.preference_graph.dag import IncrementalTopologicalOrder
from analysis.methods.preference_graph.filter import preference_graph_filter, processing_order
from analysis.methods.preference_graph.ranking import PreferenceRanking, preference_ranking
from analysis.methods.preference_graph.result import (
    A1,
    A2,
    APRIORI_REASONS,
    EQUAL,
    GOLD_LABELS,
    STRATEGIES,
    FirstCycle,
    PreferenceGraphResult,
    Reason,
    Strategy,
)
from analysis.methods.preference_graph.stats import (
    PreferenceGraphStats,
    TransitivityTable,
    preference_graph_stats,
    transitivity_table,
)
from analysis.methods.preference_graph.weights import PairWeights, pair_weights

__all__ = [
    "A1",
    "A2",
    "APRIORI_REASONS",
    "EQUAL",
    "GOLD_LABELS",
    "STRATEGIES",
    "FirstCycle",
    "IncrementalTopologicalOrder",
    "PairWeights",
    "PreferenceGraphResult",
    "PreferenceGraphStats",
    "PreferenceRanking",
    "Reason",
    "Strategy",
    "TransitivityTable",
    "pair_weights",
    "preference_graph_filter",
    "preference_graph_stats",
    "preference_ranking",
    "processing_order",
    "transitivity_table",
]
