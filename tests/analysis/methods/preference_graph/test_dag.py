"""The incremental topological order behind the preference-graph filter (Pearce & Kelly 2006)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from analysis.methods.preference_graph.dag import IncrementalTopologicalOrder


class TestIncrementalTopologicalOrder:
    @pytest.mark.parametrize("seed", range(10))
    def test_order_stays_topological(self, seed):
        rng = np.random.default_rng(seed)
        dag = IncrementalTopologicalOrder(40)
        reference = nx.DiGraph()
        reference.add_nodes_from(range(40))
        for label in range(400):
            tail, head = (int(x) for x in rng.integers(0, 40, size=2))
            path = dag.add_edge(tail, head, label)
            closes = tail == head or nx.has_path(reference, head, tail)
            assert (path is not None) == closes
            if path is None:
                reference.add_edge(tail, head)
            else:
                assert path[0] == head and path[-1] == tail
            if label % 50 == 0:
                position = [dag.position(node) for node in range(40)]
                assert all(position[a] < position[b] for a, b in reference.edges)
        assert dag.n_edges == reference.number_of_edges()

    def test_contract_reorders_and_collapses_parallel_edges(self):
        dag = IncrementalTopologicalOrder(5)
        # 4 -> 0 and 1 -> 3 point backwards in the initial order; 2 is shared.
        for label, (tail, head) in enumerate([(4, 0), (0, 2), (1, 3), (1, 2), (4, 2)]):
            assert dag.add_edge(tail, head, label) is None
        assert dag.merged_edge_count(0, 1) == 4
        assert dag.contract(0, 1) is None
        assert not dag.is_alive(1)
        assert dag.successors(0) == {2: 1, 3: 2}
        assert dag.n_edges == 4
        order = dag.topological_order()
        assert order.index(4) < order.index(0) < order.index(3)
        assert dag.contract(4, 3) == [4, 0, 3]
