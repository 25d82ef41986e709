"""Bootstrap over items: replicates equal the figures recomputed on explicitly resampled items."""

from collections import defaultdict
from itertools import combinations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from analysis.methods.agreement import (
    agreement_report,
    encode_frame,
    fleiss_kappa,
    item_category_counts,
)
from analysis.methods.agreement.alpha import alpha_distance, alpha_statistic
from analysis.methods.agreement.bootstrap import bootstrap_intervals, bootstrap_replicates
from analysis.methods.agreement.counts import counts_statistics
from analysis.methods.agreement.frames import item_label_counts
from analysis.methods.agreement.kappa import pairwise_statistic, worker_pairs

SEED, N_BOOT = 123, 25


def crowd_frame(seed=0, *, n_items=80, n_workers=6, m=3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for item in range(n_items):
        truth = rng.integers(3)
        for worker in rng.choice(n_workers, size=m, replace=False):
            rows.append((item, f"w{worker}", int(truth if rng.random() < 0.7 else rng.integers(3))))
    return pd.DataFrame(rows, columns=["item", "worker", "label"])


def resampled_items() -> np.ndarray:
    """The items each replicate draws (one chunk: rows of one ``integers`` call)."""
    return np.random.default_rng(SEED).integers(0, 80, size=(N_BOOT, 80))


def test_fleiss_and_alpha_replicates_equal_recomputation_on_resampled_items():
    encoded = encode_frame(crowd_frame())
    counts = item_label_counts(encoded)
    statistics = dict(counts_statistics(counts))
    statistics["alpha"] = alpha_statistic(counts, alpha_distance(encoded, "ordinal"), fixed=False)
    replicates = bootstrap_replicates(statistics, encoded.n_items, n_boot=N_BOOT, seed=SEED)
    table = item_category_counts(encoded)
    for r, items in enumerate(resampled_items()):
        assert replicates["fleiss_kappa"][r] == pytest.approx(
            sm_fleiss_kappa(table[items]), abs=1e-12
        )
        expected_alpha = krippendorff.alpha(
            value_counts=table[items], level_of_measurement="ordinal"
        )
        assert replicates["alpha"][r] == pytest.approx(expected_alpha, abs=1e-10)


def test_pairwise_kappa_replicates_weight_shared_items_by_draws():
    frame = crowd_frame()
    encoded = encode_frame(frame)
    pairs = worker_pairs(encoded, min_overlap=10)
    statistic = pairwise_statistic(pairs, weights=None, weighting="mean")
    replicates = bootstrap_replicates(
        {"kappa": statistic}, encoded.n_items, n_boot=N_BOOT, seed=SEED
    )["kappa"]
    by_worker = defaultdict(dict)
    for item, worker, label in frame.itertuples(index=False):
        by_worker[worker][item] = label
    chosen = [
        (a, b, sorted(by_worker[a].keys() & by_worker[b].keys()))
        for a, b in combinations(sorted(by_worker), 2)
        if len(by_worker[a].keys() & by_worker[b].keys()) >= 10
    ]
    for r, items in enumerate(resampled_items()):
        draws = np.bincount(items, minlength=80)
        kappas = []
        for a, b, shared in chosen:
            weight = draws[shared]
            if weight.sum():
                kappas.append(
                    cohen_kappa_score(
                        [by_worker[a][i] for i in shared],
                        [by_worker[b][i] for i in shared],
                        labels=[0, 1, 2],
                        sample_weight=weight,
                    )
                )
        assert replicates[r] == pytest.approx(np.nanmean(kappas), abs=1e-12)


def test_intervals_are_seedable_and_bracket_the_estimate():
    frame = crowd_frame(1, n_items=400)
    first = fleiss_kappa(frame, n_boot=200, seed=7)
    assert first.interval == fleiss_kappa(frame, n_boot=200, seed=7).interval
    assert first.interval != fleiss_kappa(frame, n_boot=200, seed=8).interval
    low, high = first.interval
    assert low < first.value < high
    assert 0.02 < high - low < 0.2


def test_basic_interval_reflects_the_percentile_interval_around_the_estimate():
    encoded = encode_frame(crowd_frame(2, n_items=200))
    statistic = counts_statistics(item_label_counts(encoded))["gwet_ac1"]
    estimate = statistic.point()["value"]
    kwargs = dict(n_boot=100, seed=3, confidence=0.9)
    low, high = bootstrap_intervals({"ac1": statistic}, encoded.n_items, **kwargs)["ac1"]
    basic = bootstrap_intervals({"ac1": statistic}, encoded.n_items, method="basic", **kwargs)[
        "ac1"
    ]
    assert basic == pytest.approx((2 * estimate - high, 2 * estimate - low))


def test_report_intervals_use_one_set_of_resamples():
    frame = crowd_frame(3, n_items=300)
    report = agreement_report(frame, n_boot=50, seed=11)
    alone = fleiss_kappa(frame, n_boot=50, seed=11)
    assert report.fleiss_kappa.interval == pytest.approx(alone.interval)
    intervals = report.to_dict()["bootstrap"]["intervals"]
    assert set(intervals) == {
        "cohen_kappa",
        "fleiss_kappa",
        "gwet_ac1",
        "krippendorff_alpha",
        "percent_agreement",
        "high_confidence_share",
    }
    assert all(low <= high for low, high in intervals.values())
