"""A directed acyclic graph that stays acyclic while edges are added and nodes are merged.

Keeps a topological order up to date after every insertion (Pearce & Kelly, "A dynamic
topological sort algorithm for directed acyclic graphs", JEA 2006). An edge ``tail -> head``
that agrees with the current order is accepted in O(1); only an edge that points backwards in
the order triggers a search, and that search is bounded by the window of positions between its
two endpoints. Asking "does this edge close a cycle?" therefore costs far less than a
reachability search over the whole graph on every insertion.

Nodes are the integers ``0 .. n_nodes - 1``; every edge carries an integer label (the caller's
row index) so that a rejected insertion can name the edges it conflicted with.
"""

from __future__ import annotations

from itertools import chain


class IncrementalTopologicalOrder:
    """Directed acyclic graph with an incrementally maintained topological order.

    ``add_edge`` and ``contract`` refuse changes that would create a cycle and return the
    existing path that the change would have closed; they return ``None`` when the change was
    applied.
    """

    def __init__(self, n_nodes: int) -> None:
        if n_nodes < 0:
            raise ValueError(f"n_nodes must be non-negative, got {n_nodes}")
        # Positions are unique integers but need not be contiguous: a contracted node leaves a
        # hole, which the reordering step never reuses because it only permutes the positions
        # of the nodes it touches.
        self._position: list[int] = list(range(n_nodes))
        self._succ: list[dict[int, int]] = [{} for _ in range(n_nodes)]
        self._pred: list[dict[int, int]] = [{} for _ in range(n_nodes)]
        self._alive: list[bool] = [True] * n_nodes
        self._n_edges = 0

    @property
    def n_nodes(self) -> int:
        return len(self._position)

    @property
    def n_edges(self) -> int:
        return self._n_edges

    def position(self, node: int) -> int:
        return self._position[node]

    def successors(self, node: int) -> dict[int, int]:
        """Successor -> edge label. A live view: do not modify."""
        return self._succ[node]

    def predecessors(self, node: int) -> dict[int, int]:
        """Predecessor -> edge label. A live view: do not modify."""
        return self._pred[node]

    def is_alive(self, node: int) -> bool:
        """False once the node has been merged into another one by ``contract``."""
        return self._alive[node]

    def edge_label(self, tail: int, head: int) -> int:
        return self._succ[tail][head]

    def edges(self) -> list[tuple[int, int, int]]:
        """All edges as ``(tail, head, label)``."""
        return [
            (tail, head, label)
            for tail, heads in enumerate(self._succ)
            for head, label in heads.items()
        ]

    def topological_order(self) -> list[int]:
        """Live nodes sorted by their current position."""
        return sorted(
            (node for node in range(self.n_nodes) if self._alive[node]),
            key=self._position.__getitem__,
        )

    def path(self, source: int, target: int) -> list[int] | None:
        """A shortest path ``source .. target`` (node list), or None when there is none."""
        if source == target:
            return [source]
        if self._position[source] > self._position[target]:
            return None
        found, _, _ = self._search(source, target)
        return found

    def add_edge(self, tail: int, head: int, label: int) -> list[int] | None:
        """Insert ``tail -> head`` unless it would close a cycle.

        Returns None when the edge is in the graph afterwards (an already present edge keeps
        its first label). Otherwise returns the shortest existing path ``head .. tail``; with the
        new edge it forms the shortest cycle, of ``len(path)`` edges (``[tail]`` for a
        self-loop).
        """
        if tail == head:
            return [tail]
        successors = self._succ[tail]
        if head in successors:
            return None
        if self._position[head] < self._position[tail]:
            found, forward, backward = self._search(head, tail)
            if found is not None:
                return found
            self._reorder(backward, forward)
        successors[head] = label
        self._pred[head][tail] = label
        self._n_edges += 1
        return None

    def contract(self, keep: int, drop: int) -> list[int] | None:
        """Merge node ``drop`` into node ``keep`` unless that would close a cycle.

        Merging two nodes of a DAG creates a cycle exactly when one reaches the other; the
        shortest such path is returned (the merged graph would contain a cycle of
        ``len(path) - 1`` edges). Parallel edges that the merge creates collapse into one,
        keeping ``keep``'s label.
        """
        if keep == drop:
            return None
        position = self._position
        low, high = (keep, drop) if position[keep] < position[drop] else (drop, keep)
        found, forward, backward = self._search(low, high)
        if found is not None:
            return found
        # With no path between them, ordering ancestors of `high` (inside the window) before
        # descendants of `low` is exactly the reordering that inserting `high -> low` would
        # perform. Afterwards every ancestor of either node precedes both slots and every
        # descendant follows them, so the merged node may keep either position.
        self._reorder(backward, forward)

        keep_succ, keep_pred = self._succ[keep], self._pred[keep]
        for head, label in self._succ[drop].items():
            head_pred = self._pred[head]
            del head_pred[drop]
            if head in keep_succ:
                self._n_edges -= 1
            else:
                keep_succ[head] = label
                head_pred[keep] = label
        for tail, label in self._pred[drop].items():
            tail_succ = self._succ[tail]
            del tail_succ[drop]
            if tail in keep_pred:
                self._n_edges -= 1
            else:
                keep_pred[tail] = label
                tail_succ[keep] = label
        self._succ[drop] = {}
        self._pred[drop] = {}
        self._alive[drop] = False
        return None

    def merged_edge_count(self, first: int, second: int) -> int:
        """Number of distinct edges the graph would have if the two nodes were merged (an edge
        between them becomes a self-loop, which still counts)."""
        shared_heads = self._succ[first].keys() & self._succ[second].keys()
        shared_tails = self._pred[first].keys() & self._pred[second].keys()
        return self._n_edges - len(shared_heads) - len(shared_tails)

    def _search(self, start: int, goal: int) -> tuple[list[int] | None, list[int], list[int]]:
        """Look for a path ``start .. goal``, where ``start`` is placed before ``goal``.

        Every node on such a path sits strictly between the two in the topological order, so
        only that window is searched. The search grows breadth-first balls from both ends, the
        smaller frontier first, and tests "does a successor of the forward frontier lie in the
        backward ball?" with set intersections, which run in C: in dense, nearly ordered graphs
        most cycles close within a few steps of both ends, long before a one-sided search has
        expanded its hundreds of neighbours.

        Returns ``(path, [], [])`` when a path exists. The path is a shortest one: meetings are
        tested after every level, so when the balls have radii ``f`` and ``b`` no path of
        length ``f + b`` or less exists, and any meeting found now has length ``f + 1 + b``.
        Otherwise returns ``(None, forward, backward)``: every node reachable from ``start``
        and every node reaching ``goal`` inside the window, as Pearce & Kelly's reordering needs.
        """
        position, succ, pred = self._position, self._succ, self._pred
        lower, upper = position[start], position[goal]
        forward_parent = {start: start}
        backward_parent = {goal: goal}
        forward_front = [start]
        backward_front = [goal]
        forward_done = backward_done = False
        while True:
            backward_ball = backward_parent.keys()
            for node in forward_front:
                common = succ[node].keys() & backward_ball
                for meet in common:
                    return self._joined(node, meet, forward_parent, backward_parent), [], []
            if forward_done or backward_done:
                break
            if len(forward_front) <= len(backward_front):
                forward_front = self._grow(forward_front, forward_parent, succ, upper, True)
                forward_done = not forward_front
            else:
                backward_front = self._grow(backward_front, backward_parent, pred, lower, False)
                backward_done = not backward_front
        # No path: finish whichever ball is incomplete (no meeting tests needed any more).
        while forward_front:
            forward_front = self._grow(forward_front, forward_parent, succ, upper, True)
        while backward_front:
            backward_front = self._grow(backward_front, backward_parent, pred, lower, False)
        return None, list(forward_parent), list(backward_parent)

    def _grow(
        self,
        front: list[int],
        parent: dict[int, int],
        adjacency: list[dict[int, int]],
        bound: int,
        below: bool,
    ) -> list[int]:
        """Next breadth-first level inside the window (positions below or above ``bound``)."""
        position = self._position
        grown = []
        for node in front:
            for nxt in adjacency[node]:
                if nxt not in parent and (
                    position[nxt] < bound if below else position[nxt] > bound
                ):
                    parent[nxt] = node
                    grown.append(nxt)
        return grown

    @staticmethod
    def _joined(
        node: int, meet: int, forward_parent: dict[int, int], backward_parent: dict[int, int]
    ) -> list[int]:
        """The path start .. node -> meet .. goal from the two parent maps."""
        head = [node]
        while forward_parent[node] != node:
            node = forward_parent[node]
            head.append(node)
        head.reverse()
        tail = [meet]
        while backward_parent[meet] != meet:
            meet = backward_parent[meet]
            tail.append(meet)
        return head + tail

    def _reorder(self, backward: list[int], forward: list[int]) -> None:
        """Give the ``backward`` set the lowest of the pooled positions, then ``forward``,
        each keeping its internal relative order (Pearce & Kelly's reassignment step)."""
        position = self._position
        backward.sort(key=position.__getitem__)
        forward.sort(key=position.__getitem__)
        slots = sorted([position[node] for node in backward] + [position[node] for node in forward])
        for node, slot in zip(chain(backward, forward), slots, strict=True):
            position[node] = slot
