"""Algorithm 1 of Habernal & Gurevych (ACL 2016): keep the pairs of a topic that can be added to
its preference graph without closing a cycle.

Pairs enter in the order a strategy gives (:func:`processing_order`); a pair that would close a
cycle is ignored, and with ``keep_equal`` an equal pair merges its two arguments into one node.
The incremental topological order of :mod:`.dag` answers "does this edge close a cycle?" without
a search over the whole graph at every insertion.
"""

from __future__ import annotations

from collections import deque
from itertools import pairwise
from typing import TypedDict

import numpy as np
import pandas as pd

from analysis.methods.preference_graph.dag import IncrementalTopologicalOrder
from analysis.methods.preference_graph.result import (
    A1,
    EQUAL,
    GOLD_LABELS,
    STRATEGIES,
    FirstCycle,
    PreferenceGraphResult,
    Reason,
    Strategy,
)


class FilterOptions(TypedDict, total=False):
    """The guards and quirks of :func:`preference_graph_filter` beyond strategy, scenario, seed."""

    equal_min_weight: float | None
    max_cluster_size: int | None
    skip_first_pair: bool


def processing_order(weights: np.ndarray, *, strategy: Strategy, seed: int = 0) -> np.ndarray:
    """Indices of ``weights`` in the order in which pairs enter the graph.

    ``ascending`` / ``descending`` sort stably by weight (ties keep input order, like the
    reference implementation's ``Collections.sort``); ``random`` is a seeded permutation (the
    reference shuffles with ``java.util.Random(1)`` and a file order we do not have, so random
    runs agree with it in distribution only).
    """
    weights = np.asarray(weights, dtype=float)
    if strategy == "random":
        return np.random.default_rng(seed).permutation(len(weights))
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; known: {', '.join(STRATEGIES)}")
    if np.isnan(weights).any():
        raise ValueError(f"strategy {strategy!r} needs a weight for every pair")
    if strategy == "ascending":
        return np.argsort(weights, kind="stable")
    return np.argsort(-weights, kind="stable")


def preference_graph_filter(
    pairs: pd.DataFrame,
    *,
    strategy: Strategy = "descending",
    keep_equal: bool = False,
    seed: int = 0,
    equal_min_weight: float | None = None,
    max_cluster_size: int | None = None,
    skip_first_pair: bool = False,
) -> PreferenceGraphResult:
    """Algorithm 1 of the paper: keep the pairs that can be added without closing a cycle.

    keep_equal: False drops equal pairs up front (scenario a, UKPConvArgStrict); True merges the
        two arguments of an equal pair into one node (scenario b, the input of the ranking). An
        equal pair is itself ignored if its arguments are already ordered by a path, and a
        directed pair between two arguments of one node is a self-loop and is ignored.
    equal_min_weight / max_cluster_size: guards against transitive merging chaining many
        arguments into one node: equal pairs lighter than the threshold are dropped up front,
        and a merge that would create a node of more than ``max_cluster_size`` arguments is
        ignored. Neither exists in the paper; both default to off.
    skip_first_pair: the reference implementation's loop starts at index 1, so the first pair
        of the order is never added; True reproduces that (to match the released corpus),
        False adds every pair as the paper describes.

    A pair whose gold label is missing is dropped up front; duplicate pair ids are rejected.
    """
    pairs = _validated_pairs(
        pairs,
        needs_weight=strategy != "random" or (keep_equal and equal_min_weight is not None),
    )
    n_pairs = len(pairs)
    gold = pairs["gold"].to_numpy(dtype=object)
    weight = pairs["weight"].to_numpy(dtype=float)

    reasons = np.full(n_pairs, Reason.KEPT, dtype=object)
    reasons[pd.isna(pairs["gold"]).to_numpy()] = Reason.NO_GOLD
    is_equal = gold == EQUAL
    if not keep_equal:
        reasons[is_equal] = Reason.EQUAL_REMOVED
    elif equal_min_weight is not None:
        reasons[is_equal & ~(weight >= equal_min_weight)] = Reason.WEAK_EQUAL
    candidates = np.flatnonzero(reasons == Reason.KEPT)
    order = candidates[processing_order(weight[candidates], strategy=strategy, seed=seed)]

    codes, arguments = pd.factorize(pd.concat([pairs["arg1"], pairs["arg2"]], ignore_index=True))
    run = _FilterRun(
        first=codes[:n_pairs].tolist(),
        second=codes[n_pairs:].tolist(),
        gold=gold.tolist(),
        n_arguments=len(arguments),
        max_cluster_size=max_cluster_size,
    )
    positions = np.full(n_pairs, -1, dtype=np.int64)
    positions[order] = np.arange(len(order))
    start = 0
    if skip_first_pair and len(order):
        reasons[order[0]] = Reason.SKIPPED_FIRST
        start = 1
    run.process(order[start:].tolist(), reasons)

    pair_ids = pairs["pair"].to_numpy(dtype=object)
    provenance = pairs.assign(
        position=positions,
        kept=reasons == Reason.KEPT,
        reason=[str(reason) for reason in reasons],
        cycle_length=pd.array([run.cycle_lengths.get(i) for i in range(n_pairs)], dtype="Int64"),
        conflict_pairs=pd.Series(
            [tuple(pair_ids[j] for j in run.conflicts.get(i, ())) for i in range(n_pairs)],
            index=pairs.index,
            dtype=object,
        ),
    )
    node_names = run.node_names(arguments)
    edge_rows = run.dag.edges()
    edges = pd.DataFrame(
        {
            "source": pd.Series([node_names[t] for t, _, _ in edge_rows], dtype=object),
            "target": pd.Series([node_names[h] for _, h, _ in edge_rows], dtype=object),
            "pair": pd.Series([pair_ids[label] for _, _, label in edge_rows], dtype=object),
        }
    )
    clusters = pd.DataFrame(
        {
            "cluster": pd.Series([node_names[r] for r in run.rep], dtype=object).to_numpy(),
            "in_graph": np.asarray(run.touched, dtype=bool),
        },
        index=pd.Index(arguments, name="argument"),
    )
    first_cycle = None
    if run.first_cycle is not None:
        index, length, nodes, n_edges = run.first_cycle
        first_cycle = FirstCycle(
            position=int(positions[index]),
            pair=pair_ids[index],
            length=length,
            nodes=nodes,
            edges=n_edges,
        )
    return PreferenceGraphResult(
        provenance=provenance,
        edges=edges,
        clusters=clusters,
        first_cycle=first_cycle,
        strategy=strategy,
        keep_equal=keep_equal,
        seed=seed,
    )


class _FilterRun:
    """Mutable state of one pass of the filter over integer-coded arguments."""

    def __init__(
        self,
        *,
        first: list[int],
        second: list[int],
        gold: list[object],
        n_arguments: int,
        max_cluster_size: int | None,
    ) -> None:
        self.first, self.second, self.gold = first, second, gold
        self.max_cluster_size = max_cluster_size
        self.dag = IncrementalTopologicalOrder(n_arguments)
        # Union-find without path compression: members move small-to-large, so `rep` is
        # always exact and each argument moves O(log n) times.
        self.rep = list(range(n_arguments))
        self.members: list[list[int]] = [[argument] for argument in range(n_arguments)]
        self.present = [False] * n_arguments  # per node: in the graph (the reference node set)
        self.touched = [False] * n_arguments  # per argument: in a kept pair
        self.n_nodes = 0
        self.equal_links: dict[int, list[tuple[int, int]]] = {}
        self.cycle_lengths: dict[int, int] = {}
        self.conflicts: dict[int, list[int]] = {}
        self.first_cycle: tuple[int, int, int, int] | None = None

    def process(self, order: list[int], reasons: np.ndarray) -> None:
        first, second, gold, rep = self.first, self.second, self.gold, self.rep
        add_edge = self.dag.add_edge
        for index in order:
            label = gold[index]
            u, v = first[index], second[index]
            if label == EQUAL:
                reason = self._merge(index, u, v)
                if reason is not None:
                    reasons[index] = reason
                continue
            # An edge points from the more to the less convincing node, as in the reference.
            tail, head = (rep[u], rep[v]) if label == A1 else (rep[v], rep[u])
            path = add_edge(tail, head, index)
            if path is None:
                self._mark(u, tail)
                self._mark(v, head)
                continue
            reasons[index] = Reason.CYCLE
            self.cycle_lengths[index] = len(path)
            if len(path) == 1:
                self.conflicts[index] = self._equal_chain(u, v)
            else:
                self.conflicts[index] = self._path_labels(path)
            if self.first_cycle is None:
                nodes = (
                    self.n_nodes
                    + (not self.present[tail])
                    + (head != tail and not self.present[head])
                )
                self.first_cycle = (index, len(path), nodes, self.dag.n_edges + 1)

    def node_names(self, arguments: pd.Index) -> list[object]:
        """Name of each node: the argument of its cluster that appeared first in the input."""
        names: list[object] = [None] * len(self.rep)
        for node, members in enumerate(self.members):
            if members:
                names[node] = arguments[min(members)]
        return names

    def _mark(self, argument: int, node: int) -> None:
        self.touched[argument] = True
        if not self.present[node]:
            self.present[node] = True
            self.n_nodes += 1

    def _merge(self, index: int, u: int, v: int) -> Reason | None:
        rep, members = self.rep, self.members
        a, b = rep[u], rep[v]
        if a == b:
            # Already one node: the pair adds nothing and closes no cycle, so it is kept.
            self._link(index, u, v)
            return None
        if (
            self.max_cluster_size is not None
            and len(members[a]) + len(members[b]) > self.max_cluster_size
        ):
            return Reason.CLUSTER_LIMIT
        keep, drop = (a, b) if (len(members[a]), -a) >= (len(members[b]), -b) else (b, a)
        merged_edges = self.dag.merged_edge_count(keep, drop) if self.first_cycle is None else 0
        path = self.dag.contract(keep, drop)
        if path is not None:
            self.cycle_lengths[index] = len(path) - 1
            self.conflicts[index] = self._path_labels(path)
            if self.first_cycle is None:
                # Both ends lie on a path, so both are in the graph; merging them removes one.
                self.first_cycle = (index, len(path) - 1, self.n_nodes - 1, merged_edges)
            return Reason.CYCLE
        self.n_nodes += 1 - self.present[keep] - self.present[drop]
        self.present[keep], self.present[drop] = True, False
        for argument in members[drop]:
            rep[argument] = keep
        members[keep].extend(members[drop])
        members[drop] = []
        self._link(index, u, v)
        return None

    def _link(self, index: int, u: int, v: int) -> None:
        self.touched[u] = self.touched[v] = True
        self.equal_links.setdefault(u, []).append((v, index))
        self.equal_links.setdefault(v, []).append((u, index))

    def _path_labels(self, path: list[int]) -> list[int]:
        label = self.dag.edge_label
        return [label(tail, head) for tail, head in pairwise(path)]

    def _equal_chain(self, source: int, target: int) -> list[int]:
        """Kept equal pairs linking two arguments of one node (breadth-first, so shortest)."""
        if source == target:
            return []
        parent: dict[int, tuple[int, int]] = {source: (source, -1)}
        queue = deque([source])
        while queue:
            node = queue.popleft()
            for neighbour, index in self.equal_links.get(node, ()):
                if neighbour in parent:
                    continue
                parent[neighbour] = (node, index)
                if neighbour == target:
                    chain = []
                    while neighbour != source:
                        neighbour, index = parent[neighbour]
                        chain.append(index)
                    return chain[::-1]
                queue.append(neighbour)
        return []


def _validated_pairs(pairs: pd.DataFrame, *, needs_weight: bool) -> pd.DataFrame:
    required = {"pair", "arg1", "arg2", "gold"} | ({"weight"} if needs_weight else set())
    missing = required - set(pairs.columns)
    if missing:
        raise ValueError(f"pairs lack column(s) {sorted(missing)}")
    if "weight" not in pairs.columns:
        pairs = pairs.assign(weight=np.nan)
    if pairs["pair"].duplicated().any():
        duplicated = pairs.loc[pairs["pair"].duplicated(), "pair"].unique()[:5]
        raise ValueError(f"duplicate pair ids, e.g. {list(duplicated)}")
    labels = pairs["gold"].dropna()
    unknown = set(labels.unique()) - set(GOLD_LABELS)
    if unknown:
        raise ValueError(f"unknown gold label(s) {sorted(map(str, unknown))}; known: {GOLD_LABELS}")
    if (pairs["arg1"] == pairs["arg2"]).any():
        raise ValueError("a pair compares an argument with itself")
    return pairs
