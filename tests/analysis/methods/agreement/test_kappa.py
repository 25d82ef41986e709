"""Cohen's kappa for two raters and averaged over worker pairs."""

from collections import defaultdict
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa

from analysis.methods.agreement import (
    cohen_kappa,
    pairwise_cohen_kappa,
    pairwise_kappa_table,
    quadratic_weighted_kappa,
)

# The SAS example statsmodels tests against: a 3×3 contingency table with kappa 0.4842.
SAS_TABLE = np.array([[0, 4, 1], [0, 8, 0], [0, 1, 5]])


def raters_from_table(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    first, second = np.nonzero(table)
    counts = table[first, second]
    return np.repeat(first, counts), np.repeat(second, counts)


def crowd_frame(seed, *, n_items=300, n_workers=12, ratings=(2, 5), categories=4) -> pd.DataFrame:
    """Workers of different accuracy on items with a variable number of ratings."""
    rng = np.random.default_rng(seed)
    accuracy = rng.uniform(0.3, 0.95, n_workers)
    rows = []
    for item in range(n_items):
        truth = rng.integers(categories)
        for worker in rng.choice(
            n_workers, size=rng.integers(ratings[0], ratings[1] + 1), replace=False
        ):
            label = truth if rng.random() < accuracy[worker] else rng.integers(categories)
            rows.append((item, f"w{worker:02d}", int(label) + 1))
    return pd.DataFrame(rows, columns=["item", "worker", "label"])


def pairs_by_brute_force(frame, *, weights=None, min_overlap=10):
    """Per worker pair sharing >= min_overlap items: (shared items, sklearn's kappa)."""
    labels = sorted(frame["label"].unique())
    by_worker = defaultdict(dict)
    for item, worker, label in frame.itertuples(index=False):
        by_worker[worker][item] = label
    result = {}
    for a, b in combinations(sorted(by_worker), 2):
        shared = sorted(by_worker[a].keys() & by_worker[b].keys())
        if len(shared) >= min_overlap:
            first = [by_worker[a][i] for i in shared]
            second = [by_worker[b][i] for i in shared]
            kappa = cohen_kappa_score(first, second, labels=labels, weights=weights)
            result[(a, b)] = (len(shared), kappa)
    return result


def test_two_raters_reproduce_published_sas_value():
    first, second = raters_from_table(SAS_TABLE)
    result = cohen_kappa(first, second)
    assert result.value == pytest.approx(0.4842, abs=5e-5)
    assert result.value == pytest.approx(
        sm_cohens_kappa(SAS_TABLE, return_results=False), abs=1e-12
    )
    assert result.n_items == SAS_TABLE.sum()


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_two_raters_match_scikit_learn(weights):
    rng = np.random.default_rng(5)
    first = rng.integers(1, 6, 400)
    second = np.clip(first + rng.integers(-2, 3, 400), 1, 5)
    labels = [1, 2, 3, 4, 5]
    expected = cohen_kappa_score(first, second, labels=labels, weights=weights)
    assert cohen_kappa(first, second, weights=weights, categories=labels).value == pytest.approx(
        expected, abs=1e-12
    )
    if weights == "quadratic":
        assert quadratic_weighted_kappa(first, second).value == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("weighting", ["mean", "shared_items"])
@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_pairwise_kappa_matches_a_scikit_learn_pair_loop(weights, weighting):
    frame = crowd_frame(11)
    reference = pairs_by_brute_force(frame, weights=weights, min_overlap=10)
    shared = np.array([n for n, _ in reference.values()])
    kappas = np.array([k for _, k in reference.values()])
    expected = np.average(kappas, weights=shared if weighting == "shared_items" else None)
    result = pairwise_cohen_kappa(frame, weights=weights, weighting=weighting, min_overlap=10)
    assert result.value == pytest.approx(expected, abs=1e-12)
    assert result.n_pairs == len(reference) > 30
    assert result.n_pairs_undefined == 0
    assert result.n_pairs_sharing == 66  # every pair of the 12 workers met at least once


def test_pairwise_table_lists_each_pair():
    frame = crowd_frame(12)
    reference = pairs_by_brute_force(frame, min_overlap=25)
    table = pairwise_kappa_table(frame, min_overlap=25)
    assert len(table) == len(reference)
    for row in table.itertuples(index=False):
        shared, kappa = reference[tuple(sorted((row.worker_a, row.worker_b)))]
        assert row.shared_items == shared
        assert row.kappa == pytest.approx(kappa, abs=1e-12)


def test_min_overlap_decides_which_pairs_count():
    # a and b share 9 items, a and c share 12; labels agree perfectly with some variety.
    rows = [(i, w, i % 3) for i in range(9) for w in ("a", "b")]
    rows += [(100 + i, w, i % 2) for i in range(12) for w in ("a", "c")]
    frame = pd.DataFrame(rows, columns=["item", "worker", "label"])
    assert pairwise_cohen_kappa(frame, min_overlap=10).n_pairs == 1
    assert pairwise_cohen_kappa(frame, min_overlap=9).n_pairs == 2
    none = pairwise_cohen_kappa(frame, min_overlap=13)
    assert none.n_pairs == 0 and np.isnan(none.value)


def test_pairs_with_undefined_kappa_are_left_out_and_counted():
    rows = [(i, w, "None") for i in range(10) for w in ("a", "b")]  # both constant: 0/0
    rows += [
        (100 + i, w, ["x", "y"][(i + (w == "d") * (i % 3 == 0)) % 2])
        for i in range(10)
        for w in ("c", "d")
    ]
    frame = pd.DataFrame(rows, columns=["item", "worker", "label"])
    result = pairwise_cohen_kappa(frame)
    first = [["x", "y"][i % 2] for i in range(10)]
    second = [["x", "y"][(i + (i % 3 == 0)) % 2] for i in range(10)]
    assert result.n_pairs == 1 and result.n_pairs_undefined == 1
    assert result.value == pytest.approx(cohen_kappa_score(first, second), abs=1e-12)


def test_weighted_kappa_needs_an_order():
    frame = pd.DataFrame({"item": [1, 1], "worker": ["a", "b"], "label": ["low", "high"]})
    with pytest.raises(ValueError, match="ordered"):
        pairwise_cohen_kappa(frame, weights="quadratic")
    ordered = pairwise_cohen_kappa(
        frame, weights="quadratic", categories=["low", "mid", "high"], min_overlap=1
    )
    expected = cohen_kappa_score([0], [2], weights="quadratic", labels=[0, 1, 2])
    assert ordered.n_pairs == 1 and ordered.value == pytest.approx(expected)


def test_quadratic_weights_use_the_category_order_given():
    rng = np.random.default_rng(2)
    levels = ["low", "mid", "high", "top"]
    first = rng.integers(0, 4, 200)
    second = np.clip(first + rng.integers(-1, 2, 200), 0, 3)
    rows = [(i, "a", levels[x]) for i, x in enumerate(first)] + [
        (i, "b", levels[x]) for i, x in enumerate(second)
    ]
    frame = pd.DataFrame(rows, columns=["item", "worker", "label"])
    result = pairwise_cohen_kappa(frame, weights="quadratic", categories=levels)
    assert result.value == pytest.approx(
        cohen_kappa_score(first, second, weights="quadratic", labels=[0, 1, 2, 3]), abs=1e-12
    )
