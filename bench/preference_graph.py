"""Benchmark: DAG filter of the preference graph vs a per-insertion reachability check.

Generates one large synthetic topic (a noisy total order: latent scores, labels flipped with
some probability, some equal pairs), runs ``preference_graph_filter`` on it, and runs the naive
filter (networkx: for every pair, ``has_path(loser, winner)`` on the graph so far, then
``add_edge``) in the same process. Where the naive filter would take too long it runs on a
prefix of the order and its full-size time is extrapolated (labelled as such). Both filters must
keep the same pairs wherever both run.

    .venv/bin/python bench/preference_graph.py [--arguments 2000] [--pairs 200000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis.methods.preference_graph import (  # noqa: E402
    A1,
    A2,
    EQUAL,
    preference_graph_filter,
    processing_order,
)
from analysis.methods.preference_graph.stats import preference_graph_stats  # noqa: E402


def noisy_order_topic(
    n_arguments: int, n_pairs: int, *, flip: float = 0.1, equal: float = 0.05, seed: int = 0
) -> pd.DataFrame:
    """Distinct random argument pairs labelled by latent scores, with label noise.

    A pair is ``equal`` with probability ``equal``; otherwise its label follows the latent
    scores and is flipped with probability ``flip``. Weights are random, higher for pairs whose
    latent scores are far apart (as crowd agreement would be).
    """
    rng = np.random.default_rng(seed)
    max_pairs = n_arguments * (n_arguments - 1) // 2
    if n_pairs > max_pairs:
        raise ValueError(f"{n_arguments} arguments have only {max_pairs} distinct pairs")
    keys = np.empty(0, dtype=np.int64)
    while len(keys) < n_pairs:
        # Rejection sampling of unordered pairs i < j, keyed as i * n + j.
        i = rng.integers(0, n_arguments, size=2 * n_pairs)
        j = rng.integers(0, n_arguments, size=2 * n_pairs)
        low, high = np.minimum(i, j), np.maximum(i, j)
        fresh = low[low != high] * n_arguments + high[low != high]
        keys = pd.unique(np.concatenate([keys, fresh]))
    keys = rng.permutation(keys[:n_pairs])
    i, j = keys // n_arguments, keys % n_arguments
    swap = rng.random(n_pairs) < 0.5
    first, second = np.where(swap, j, i), np.where(swap, i, j)
    latent = rng.normal(size=n_arguments)
    gap = latent[first] - latent[second]
    label = np.where(gap > 0, A1, A2).astype(object)
    flipped = rng.random(n_pairs) < flip
    label[flipped] = np.where(label[flipped] == A1, A2, A1)
    label[rng.random(n_pairs) < equal] = EQUAL
    weight = 1.0 / (1.0 + np.exp(-(np.abs(gap) * 2 + rng.normal(scale=1.0, size=n_pairs))))
    return pd.DataFrame(
        {
            "pair": np.arange(n_pairs),
            "arg1": first,
            "arg2": second,
            "gold": label,
            "weight": weight,
        }
    )


def naive_filter(pairs: pd.DataFrame, order: np.ndarray) -> tuple[set[int], int]:
    """Strict scenario with a full reachability search per insertion.

    Returns the kept pair ids and the number of pairs processed (all of ``order``).
    """
    graph = nx.DiGraph()
    kept: set[int] = set()
    gold = pairs["gold"].to_numpy()
    first = pairs["arg1"].to_numpy()
    second = pairs["arg2"].to_numpy()
    ids = pairs["pair"].to_numpy()
    for index in order:
        winner, loser = (
            (first[index], second[index]) if gold[index] == A1 else (second[index], first[index])
        )
        if graph.has_node(winner) and graph.has_node(loser) and nx.has_path(graph, loser, winner):
            continue
        graph.add_edge(winner, loser)
        kept.add(int(ids[index]))
    return kept, len(order)


def strict_order(pairs: pd.DataFrame) -> np.ndarray:
    """Processing order of the strict scenario (equal pairs dropped, descending weight)."""
    candidates = np.flatnonzero(pairs["gold"].to_numpy() != EQUAL)
    weights = pairs["weight"].to_numpy()[candidates]
    return candidates[processing_order(weights, strategy="descending")]


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arguments", type=int, default=2000)
    parser.add_argument("--pairs", type=int, default=200_000)
    parser.add_argument("--flip", type=float, default=0.1)
    parser.add_argument("--equal", type=float, default=0.05)
    parser.add_argument(
        "--naive-budget",
        type=float,
        default=60.0,
        help="seconds the naive filter may run before it is cut off",
    )
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()

    topic, seconds = timed(
        noisy_order_topic,
        options.arguments,
        options.pairs,
        flip=options.flip,
        equal=options.equal,
        seed=options.seed,
    )
    print(
        f"topic: {options.arguments} arguments, {options.pairs} pairs "
        f"(flip {options.flip}, equal {options.equal}); generated in {seconds:.2f}s"
    )

    print("\nours (incremental topological order):")
    results = {}
    for keep_equal in (False, True):
        for strategy in ("descending", "ascending", "random"):
            result, seconds = timed(
                preference_graph_filter,
                topic,
                strategy=strategy,
                keep_equal=keep_equal,
                seed=options.seed,
            )
            results[keep_equal, strategy] = (result, seconds)
            sizes = result.cluster_sizes
            print(
                f"  {'equal merged' if keep_equal else 'strict      '} {strategy:10s} "
                f"{seconds:6.2f}s  kept {result.n_kept:7d}  ignored "
                f"{result.n_processed - result.n_kept:6d}  largest node {sizes.max():5d} args"
            )
    strict, ours_seconds = results[False, "descending"]
    _, stats_seconds = timed(preference_graph_stats, strict)
    print(f"  Table 1 statistics of the strict run (transitivity scores): {stats_seconds:.2f}s")

    order = strict_order(topic)
    ours_kept = set(strict.kept["pair"].astype(int))
    print("\nnaive (networkx has_path per insertion), strict scenario:")
    # Time a growing prefix until the budget would be exceeded, then extrapolate linearly in
    # the number of insertions (an underestimate: each search grows with the graph).
    prefix = min(len(order), 2000)
    while True:
        (naive_kept, processed), naive_seconds = timed(naive_filter, topic, order[:prefix])
        ours_prefix, ours_prefix_seconds = timed(
            preference_graph_filter, topic.iloc[order[:prefix]], strategy="descending"
        )
        same = naive_kept == set(ours_prefix.kept["pair"].astype(int))
        print(
            f"  prefix {prefix:7d} pairs: naive {naive_seconds:7.2f}s, ours "
            f"{ours_prefix_seconds:6.3f}s, ratio {naive_seconds / ours_prefix_seconds:7.1f}x, "
            f"same kept set: {same}"
        )
        if not same:
            raise SystemExit("kept sets differ")
        if prefix == len(order) or naive_seconds * 4 > options.naive_budget:
            break
        prefix = min(len(order), prefix * 4)
    if prefix == len(order):
        print(
            f"  full size: naive {naive_seconds:.2f}s measured, ours {ours_seconds:.2f}s, "
            f"ratio {naive_seconds / ours_seconds:.1f}x; same kept set: "
            f"{naive_kept == ours_kept}"
        )
    else:
        estimate = naive_seconds * len(order) / prefix
        print(
            f"  full size ({len(order)} pairs): naive EXTRAPOLATED >= {estimate:.0f}s "
            f"(linear from the {prefix}-pair prefix), ours {ours_seconds:.2f}s measured, "
            f"ratio >= {estimate / ours_seconds:.0f}x (extrapolated)"
        )


if __name__ == "__main__":
    main()
