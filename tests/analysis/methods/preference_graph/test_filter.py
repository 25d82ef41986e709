"""DAG filter of the preference graph (Habernal & Gurevych 2016)."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from analysis.methods.preference_graph import (
    A1,
    A2,
    EQUAL,
    Reason,
    preference_graph_filter,
    processing_order,
)
from analysis.methods.preference_graph.ranking import preference_ranking
from analysis.methods.preference_graph.weights import pair_weights

UKP = Path("ukpconvarg1") / "assignments.tsv.gz"  # under the shared_data fixture


def frame(rows: list[tuple]) -> pd.DataFrame:
    """Pairs from (pair, arg1, arg2, gold, weight) tuples."""
    return pd.DataFrame(rows, columns=["pair", "arg1", "arg2", "gold", "weight"])


def random_topic(seed: int, *, n_arguments: int = 9, n_pairs: int = 30) -> pd.DataFrame:
    """Random distinct pairs with random labels (many cycles) and random, often tied, weights."""
    rng = np.random.default_rng(seed)
    all_pairs = [(i, j) for i in range(n_arguments) for j in range(i + 1, n_arguments)]
    chosen = rng.choice(len(all_pairs), size=min(n_pairs, len(all_pairs)), replace=False)
    rows = []
    for k, index in enumerate(chosen):
        i, j = all_pairs[index]
        if rng.random() < 0.5:
            i, j = j, i
        gold = rng.choice([A1, A2, EQUAL], p=[0.4, 0.4, 0.2])
        rows.append((f"p{k}", f"x{i}", f"x{j}", gold, float(rng.integers(0, 5)) / 4))
    return frame(rows)


def naive_filter(pairs: pd.DataFrame, *, strategy: str, keep_equal: bool, seed: int = 0):
    """Algorithm 1 as the reference implementation runs it: rebuild the clustered graph from
    the kept pairs plus the next one and keep that pair only if the graph has no cycle."""
    candidates = pairs[pairs["gold"].notna() & (keep_equal | (pairs["gold"] != EQUAL))]
    order = candidates.iloc[
        processing_order(candidates["weight"].to_numpy(), strategy=strategy, seed=seed)
    ]
    kept: list = []
    first_cycle = None

    def build(rows):
        union = nx.Graph()
        union.add_nodes_from(a for row in rows for a in (row.arg1, row.arg2))
        union.add_edges_from((row.arg1, row.arg2) for row in rows if row.gold == EQUAL)
        cluster = {a: min(c) for c in nx.connected_components(union) for a in c}
        graph = nx.DiGraph()
        graph.add_nodes_from(set(cluster.values()))
        for row in rows:
            if row.gold != EQUAL:
                win, lose = (row.arg1, row.arg2) if row.gold == A1 else (row.arg2, row.arg1)
                graph.add_edge(cluster[win], cluster[lose])
        return graph

    for position, row in enumerate(order.itertuples()):
        graph = build([*kept, row])
        if nx.is_directed_acyclic_graph(graph):
            kept.append(row)
        elif first_cycle is None:
            shortest = min(len(cycle) for cycle in nx.simple_cycles(graph))
            first_cycle = (
                position,
                row.pair,
                shortest,
                graph.number_of_nodes(),
                graph.number_of_edges(),
            )
    return [row.pair for row in kept], first_cycle, build(kept)


class TestCycleBreaking:
    # a > b (strong), b > c (medium), c > a (weak): a 3-cycle.
    TRIANGLE = frame(
        [("ab", "a", "b", A1, 0.9), ("bc", "b", "c", A1, 0.5), ("ca", "c", "a", A1, 0.1)]
    )

    def test_descending_drops_the_weakest_pair(self):
        result = preference_graph_filter(self.TRIANGLE, strategy="descending")
        row = result.provenance.set_index("pair").loc["ca"]
        assert list(result.kept["pair"]) == ["ab", "bc"]
        assert row["reason"] == Reason.CYCLE
        assert row["cycle_length"] == 3
        assert row["conflict_pairs"] == ("ab", "bc")

    def test_ascending_drops_the_strongest_pair(self):
        result = preference_graph_filter(self.TRIANGLE, strategy="ascending")
        row = result.provenance.set_index("pair").loc["ab"]
        assert list(result.kept["pair"]) == ["ca", "bc"]
        assert row["reason"] == Reason.CYCLE
        # a > b contradicts the existing path b > c > a.
        assert row["conflict_pairs"] == ("bc", "ca")

    @pytest.mark.parametrize("seed", range(12))
    def test_random_drops_whichever_pair_comes_last(self, seed):
        result = preference_graph_filter(self.TRIANGLE, strategy="random", seed=seed)
        last = self.TRIANGLE["pair"][
            processing_order(np.zeros(3), strategy="random", seed=seed)[-1]
        ]
        assert set(result.provenance.loc[~result.provenance["kept"], "pair"]) == {last}

    def test_first_cycle_statistics(self):
        pairs = frame(
            [
                ("ab", "a", "b", A1, 0.9),
                ("bc", "b", "c", A1, 0.8),
                ("cd", "c", "d", A1, 0.7),
                ("db", "d", "b", A1, 0.6),
                ("ae", "a", "e", A1, 0.5),
            ]
        )
        first = preference_graph_filter(pairs).first_cycle
        assert first is not None
        assert (first.position, first.pair, first.length) == (3, "db", 3)
        # Counted on the graph that includes the offending edge, as the reference does.
        assert (first.nodes, first.edges) == (4, 4)

    def test_equal_pair_is_not_an_edge_but_two_way_pairs_are_a_cycle(self):
        pairs = frame([("ab", "a", "b", A1, 0.9), ("ba", "b", "a", A1, 0.8)])
        result = preference_graph_filter(pairs)
        assert result.provenance["reason"].tolist() == [Reason.KEPT, Reason.CYCLE]
        assert result.provenance["cycle_length"].tolist()[1] == 2


class TestEqualMerging:
    CHAIN = frame(
        [
            ("ab", "a", "b", EQUAL, 0.9),
            ("bc", "b", "c", EQUAL, 0.8),
            ("cd", "c", "d", A1, 0.7),
            ("ac", "a", "c", A2, 0.6),  # inside the cluster {a, b, c}: a self-loop
            ("de", "d", "e", EQUAL, 0.2),
            ("ef", "e", "f", A1, 0.1),
        ]
    )

    def test_clusters_and_self_loop(self):
        result = preference_graph_filter(self.CHAIN, keep_equal=True)
        prov = result.provenance.set_index("pair")
        assert result.cluster_sizes.to_dict() == {"a": 3, "d": 2, "f": 1}
        assert result.clusters.loc[["a", "b", "c"], "cluster"].tolist() == ["a", "a", "a"]
        assert prov.loc["ac", "reason"] == Reason.CYCLE
        assert prov.loc["ac", "cycle_length"] == 1
        assert prov.loc["ac", "conflict_pairs"] == ("ab", "bc")
        assert set(result.edges.itertuples(index=False, name=None)) == {
            ("a", "d", "cd"),
            ("d", "f", "ef"),
        }
        assert len(result.nodes) == 3

    def test_scenario_a_drops_equal_pairs_up_front(self):
        result = preference_graph_filter(self.CHAIN, keep_equal=False)
        prov = result.provenance.set_index("pair")
        assert (prov.loc[["ab", "bc", "de"], "reason"] == Reason.EQUAL_REMOVED).all()
        assert (prov.loc[["ab", "bc", "de"], "position"] == -1).all()
        assert result.n_removed_apriori == 3
        assert result.cluster_sizes.max() == 1
        assert prov.loc["ac", "reason"] == Reason.KEPT

    def test_equal_pair_between_ordered_arguments_is_ignored(self):
        pairs = frame(
            [
                ("xy", "x", "y", A1, 0.9),
                ("yz", "y", "z", A1, 0.8),
                ("xz", "x", "z", EQUAL, 0.7),
                ("xy2", "y", "x", EQUAL, 0.6),
            ]
        )
        result = preference_graph_filter(pairs, keep_equal=True)
        prov = result.provenance.set_index("pair")
        # Merging x and z would turn x > y > z into a 2-cycle; x = y into a self-loop.
        assert prov.loc["xz", "reason"] == Reason.CYCLE
        assert prov.loc["xz", "cycle_length"] == 2
        assert prov.loc["xz", "conflict_pairs"] == ("xy", "yz")
        assert prov.loc["xy2", "cycle_length"] == 1
        assert prov.loc["xy2", "conflict_pairs"] == ("xy",)
        first = result.first_cycle
        assert (first.pair, first.length, first.nodes, first.edges) == ("xz", 2, 2, 2)

    def test_weight_guard_keeps_light_equal_pairs_out(self):
        result = preference_graph_filter(self.CHAIN, keep_equal=True, equal_min_weight=0.5)
        prov = result.provenance.set_index("pair")
        assert prov.loc["de", "reason"] == Reason.WEAK_EQUAL
        assert prov.loc["de", "position"] == -1
        assert result.cluster_sizes.to_dict() == {"a": 3, "d": 1, "e": 1, "f": 1}

    def test_size_guard_stops_chaining(self):
        pairs = frame([(f"e{i}", f"x{i}", f"x{i + 1}", EQUAL, 1.0 - i / 10) for i in range(6)])
        result = preference_graph_filter(pairs, keep_equal=True, max_cluster_size=3)
        reasons = result.provenance["reason"].tolist()
        assert reasons == [
            Reason.KEPT,
            Reason.KEPT,
            Reason.CLUSTER_LIMIT,
            Reason.KEPT,
            Reason.KEPT,
            Reason.CLUSTER_LIMIT,
        ]
        assert sorted(result.cluster_sizes) == [3, 3]
        unguarded = preference_graph_filter(pairs, keep_equal=True)
        assert unguarded.cluster_sizes.tolist() == [7]


class TestAgainstNaive:
    @pytest.mark.parametrize("seed", range(40))
    @pytest.mark.parametrize("keep_equal", [False, True])
    @pytest.mark.parametrize("strategy", ["random", "ascending", "descending"])
    def test_same_kept_pairs_and_first_cycle(self, seed, keep_equal, strategy):
        pairs = random_topic(seed)
        result = preference_graph_filter(pairs, strategy=strategy, keep_equal=keep_equal, seed=seed)
        kept, first_cycle, naive_graph = naive_filter(
            pairs, strategy=strategy, keep_equal=keep_equal, seed=seed
        )
        assert result.kept["pair"].tolist() == kept
        first = result.first_cycle
        observed = (
            None
            if first is None
            else (first.position, first.pair, first.length, first.nodes, first.edges)
        )
        assert observed == first_cycle
        assert nx.is_isomorphic(result.dag(), naive_graph)

    @pytest.mark.parametrize("seed", range(25))
    def test_kept_graph_is_acyclic_and_cycle_reports_are_true(self, seed):
        pairs = random_topic(seed, n_arguments=25, n_pairs=200)
        result = preference_graph_filter(pairs, strategy="random", seed=seed)
        graph = nx.DiGraph()
        for row in result.kept.itertuples():
            graph.add_edge(*((row.arg1, row.arg2) if row.gold == A1 else (row.arg2, row.arg1)))
        assert nx.is_directed_acyclic_graph(graph)
        assert result.n_kept > 0
        by_pair = pairs.set_index("pair")
        for row in result.provenance[result.provenance["reason"] == Reason.CYCLE].itertuples():
            # The reported path runs from the loser back to the winner through pairs kept
            # earlier, and is a shortest one in the graph as it stood.
            earlier = result.kept[result.kept["position"] < row.position]
            before = nx.DiGraph()
            for pair in earlier.itertuples():
                before.add_edge(
                    *((pair.arg1, pair.arg2) if pair.gold == A1 else (pair.arg2, pair.arg1))
                )
            win, lose = (row.arg1, row.arg2) if row.gold == A1 else (row.arg2, row.arg1)
            assert row.cycle_length == nx.shortest_path_length(before, lose, win) + 1
            assert len(row.conflict_pairs) == row.cycle_length - 1
            hops = [
                (by_pair.loc[p, "arg1"], by_pair.loc[p, "arg2"])
                if by_pair.loc[p, "gold"] == A1
                else (by_pair.loc[p, "arg2"], by_pair.loc[p, "arg1"])
                for p in row.conflict_pairs
            ]
            assert hops[0][0] == lose and hops[-1][1] == win
            assert all(a[1] == b[0] for a, b in pairwise(hops))

    @pytest.mark.parametrize("seed", range(10))
    def test_merged_graph_is_acyclic(self, seed):
        pairs = random_topic(seed, n_arguments=30, n_pairs=250)
        result = preference_graph_filter(pairs, keep_equal=True, strategy="descending")
        graph = result.dag()
        assert nx.is_directed_acyclic_graph(graph)
        assert set(graph.nodes) == set(result.nodes)
        assert result.cluster_sizes.sum() == result.clusters["in_graph"].sum()


class TestProvenanceAndOptions:
    def test_every_reason(self):
        pairs = frame(
            [
                ("ab", "a", "b", A1, 0.9),
                ("bc", "b", "c", A1, 0.8),
                ("ca", "c", "a", A1, 0.7),
                ("cd", "c", "d", None, np.nan),
                ("de", "d", "e", EQUAL, 0.6),
            ]
        )
        result = preference_graph_filter(pairs)
        assert result.provenance["reason"].tolist() == [
            Reason.KEPT,
            Reason.KEPT,
            Reason.CYCLE,
            Reason.NO_GOLD,
            Reason.EQUAL_REMOVED,
        ]
        assert result.provenance["kept"].tolist() == [True, True, False, False, False]
        assert result.provenance["position"].tolist() == [0, 1, 2, -1, -1]
        assert result.provenance["conflict_pairs"].tolist() == [(), (), ("ab", "bc"), (), ()]
        counts = (result.n_pairs, result.n_removed_apriori, result.n_processed, result.n_kept)
        assert counts == (5, 2, 3, 2)

    def test_skip_first_pair_reproduces_the_reference_loop(self):
        pairs = TestCycleBreaking.TRIANGLE
        result = preference_graph_filter(pairs, skip_first_pair=True)
        assert result.provenance["reason"].tolist() == [
            Reason.SKIPPED_FIRST,
            Reason.KEPT,
            Reason.KEPT,
        ]
        assert set(result.edges["pair"]) == {"bc", "ca"}

    def test_input_index_is_kept(self):
        pairs = TestCycleBreaking.TRIANGLE.set_axis([10, 20, 30])
        assert preference_graph_filter(pairs).provenance.index.tolist() == [10, 20, 30]

    @pytest.mark.parametrize("seed", [0, 7])
    def test_deterministic_with_a_seed(self, seed):
        pairs = random_topic(3, n_arguments=20, n_pairs=120)
        first = preference_graph_filter(pairs, strategy="random", seed=seed, keep_equal=True)
        again = preference_graph_filter(pairs, strategy="random", seed=seed, keep_equal=True)
        other = preference_graph_filter(pairs, strategy="random", seed=seed + 1, keep_equal=True)
        pd.testing.assert_frame_equal(first.provenance, again.provenance)
        assert first.first_cycle == again.first_cycle
        assert not first.provenance["position"].equals(other.provenance["position"])

    def test_ties_keep_input_order(self):
        order = processing_order(np.array([0.5, 0.9, 0.5, 0.9]), strategy="descending")
        assert order.tolist() == [1, 3, 0, 2]
        order = processing_order(np.array([0.5, 0.9, 0.5, 0.9]), strategy="ascending")
        assert order.tolist() == [0, 2, 1, 3]

    def test_invalid_input(self):
        with pytest.raises(ValueError, match="known: random, ascending, descending"):
            preference_graph_filter(TestCycleBreaking.TRIANGLE, strategy="best")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="unknown gold"):
            preference_graph_filter(frame([("p", "a", "b", "A1", 1.0)]))
        with pytest.raises(ValueError, match="duplicate pair"):
            preference_graph_filter(frame([("p", "a", "b", A1, 1.0), ("p", "b", "c", A1, 1.0)]))
        with pytest.raises(ValueError, match="needs a weight"):
            preference_graph_filter(frame([("p", "a", "b", A1, np.nan)]))
        with pytest.raises(ValueError, match="itself"):
            preference_graph_filter(frame([("p", "a", "a", A1, 1.0)]))

    def test_random_strategy_needs_no_weight(self):
        pairs = TestCycleBreaking.TRIANGLE.drop(columns="weight")
        assert preference_graph_filter(pairs, strategy="random").n_kept == 2


@pytest.mark.shared_data
def test_ukpconvarg1_strict_size_with_majority_gold(shared_data):
    """Sanity check on the real data with majority-vote gold and equal competence: the strict
    filter keeps a number of pairs near the published 11,650 and the ranking covers all
    1,052 arguments."""
    raw = pd.read_csv(
        shared_data / UKP, sep="\t", usecols=["topic", "pair_id", "arg1", "arg2", "worker", "label"]
    )
    counts = pd.crosstab(raw["pair_id"], raw["label"])
    top = counts.max(axis=1)
    gold = counts.idxmax(axis=1).where(counts.eq(top, axis=0).sum(axis=1) == 1)
    votes = raw.rename(columns={"pair_id": "item"})
    weights = pair_weights(votes, gold, pd.Series(1.0, index=raw["worker"].unique())).weight
    pairs = raw.drop_duplicates("pair_id").rename(columns={"pair_id": "pair"})
    pairs = pairs.assign(gold=pairs["pair"].map(gold), weight=pairs["pair"].map(weights))
    kept = ranked = 0
    for _, topic in pairs.groupby("topic"):
        kept += preference_graph_filter(topic, strategy="descending").n_kept
        merged = preference_graph_filter(topic, strategy="descending", keep_equal=True)
        ranked += len(preference_ranking(merged.kept).pagerank)
    assert pairs["topic"].nunique() == 32
    assert 0.9 * 11_650 < kept < 1.05 * 11_650
    assert ranked == 1_052
