"""Relation of automatic to human scores, and agreement between raters, against reference packages."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from analysis.methods.content_scores import (
    fit_scale_mapping,
    partial_correlation,
    rater_agreement,
    score_relation,
)


@pytest.fixture
def scored():
    rng = np.random.default_rng(11)
    length = rng.normal(72, 29, size=400).clip(5)
    human = np.clip(np.rint(1 + 3 * rng.beta(2, 2, size=400) + 0.01 * (length - 72)), 1, 4)
    automatic = 0.1 * human + 0.002 * length + rng.normal(0, 0.08, size=400)
    return human, automatic, length


def test_the_mapping_is_least_squares_rounded_half_up_and_clipped(scored):
    human, automatic, _ = scored
    mapping = fit_scale_mapping(human, automatic)
    slope, intercept = np.polyfit(automatic, human, 1)
    assert (mapping.slope, mapping.intercept) == (pytest.approx(slope), pytest.approx(intercept))
    assert mapping.apply([-10.0, 10.0]).tolist() == [1, 4]
    half = (2.5 - mapping.intercept) / mapping.slope  # maps to 2.5 exactly: rounds up to 3
    assert mapping.apply([half + 1e-9]).tolist() == [3]
    assert set(mapping.apply(automatic).tolist()) <= {1, 2, 3, 4}


def test_relation_matches_scipy_sklearn_and_the_residual_method(scored):
    human, automatic, length = scored
    relation = score_relation(human, automatic, length)
    mapping = fit_scale_mapping(human, automatic)
    predicted = np.clip(np.floor(mapping.intercept + mapping.slope * automatic + 0.5), 1, 4)
    assert relation.n == 400
    assert relation.pearson_r == pytest.approx(np.corrcoef(human, automatic)[0, 1])
    assert relation.qwk_in_sample == pytest.approx(
        cohen_kappa_score(
            human.astype(int), predicted.astype(int), weights="quadratic", labels=[1, 2, 3, 4]
        )
    )

    def residual(y, x):
        slope, intercept = np.polyfit(x, y, 1)
        return y - (slope * x + intercept)

    by_residuals = np.corrcoef(residual(human, length), residual(automatic, length))[0, 1]
    assert relation.partial_r == pytest.approx(by_residuals)
    assert relation.partial_r < relation.pearson_r  # part of the relation goes through length


def test_partial_correlation_with_a_constant_control_is_undefined():
    x, y = np.array([1.0, 2, 3, 4]), np.array([1.0, 3, 2, 4])
    # A constant control leaves r undefined (NaN) rather than silently returning r.
    assert np.isnan(partial_correlation(x, y, np.ones(4)))


def test_human_scores_off_the_scale_or_missing_are_refused():
    with pytest.raises(ValueError, match="scale"):
        score_relation([0, 2, 3], [0.1, 0.2, 0.3], [10, 20, 30])
    with pytest.raises(ValueError, match="NaN"):
        score_relation([1, 2, np.nan], [0.1, 0.2, 0.3], [10, 20, 30])
    with pytest.raises(ValueError, match="same length"):
        score_relation([1, 2], [0.1, 0.2, 0.3], [10, 20, 30])


def test_rater_agreement_against_sklearn_and_krippendorff():
    rng = np.random.default_rng(5)
    truth = rng.integers(1, 5, size=60)
    rows = []
    for worker in ("ann", "bob", "cyd"):
        noisy = np.clip(truth + rng.integers(-1, 2, size=60), 1, 4)
        for item, label in enumerate(noisy):
            if worker != "cyd" or item % 2 == 0:  # cyd scores half the items
                rows.append((item, worker, int(label)))
    frame = pd.DataFrame(rows, columns=["item", "worker", "label"])
    result = rater_agreement(frame)
    wide = frame.pivot(index="item", columns="worker", values="label")
    assert len(result.pairs) == 3
    for pair in result.pairs.itertuples():
        both = wide[[pair.worker_a, pair.worker_b]].dropna().astype(int)
        a, b = both[pair.worker_a], both[pair.worker_b]
        assert pair.shared_items == len(both)
        assert pair.qwk == pytest.approx(
            cohen_kappa_score(a, b, weights="quadratic", labels=[1, 2, 3, 4])
        )
        assert pair.alpha == pytest.approx(
            krippendorff.alpha(
                reliability_data=np.vstack([a, b]).astype(float), level_of_measurement="ordinal"
            )
        )
        assert pair.pearson_r == pytest.approx(np.corrcoef(a, b)[0, 1])
    assert result.mean_qwk == pytest.approx(result.pairs["qwk"].mean())
    assert result.alpha == pytest.approx(
        krippendorff.alpha(
            reliability_data=wide.T.to_numpy(dtype=float), level_of_measurement="ordinal"
        )
    )
    assert (result.n_items, result.n_workers) == (60, 3)


def test_the_kappa_is_held_out_with_folds_by_speaker():
    # Six speakers, two responses each. The held-out kappa maps each speaker's responses with the
    # regression fitted on the other folds' speakers, as scikit-learn's GroupKFold splits them.
    human = np.array([1, 2, 2, 3, 3, 4, 4, 1, 2, 3, 4, 1], dtype=float)
    automatic = np.array([0.1, 0.3, 0.2, 0.5, 0.6, 0.9, 0.7, 0.2, 0.4, 0.4, 0.8, 0.3])
    length = np.arange(12, dtype=float) + 50
    speakers = np.repeat(["s1", "s2", "s3", "s4", "s5", "s6"], 2)
    from sklearn.model_selection import GroupKFold

    predicted = np.zeros(12, dtype=int)
    for fit, held in GroupKFold(n_splits=3).split(automatic, human, speakers):
        slope, intercept = np.polyfit(automatic[fit], human[fit], 1)
        predicted[held] = np.clip(np.floor(intercept + slope * automatic[held] + 0.5), 1, 4)
        # no speaker is both fitted and predicted
        assert not set(speakers[fit]) & set(speakers[held])
    relation = score_relation(human, automatic, length, groups=speakers, folds=3)
    assert relation.folds == 3
    held_out = cohen_kappa_score(human.astype(int), predicted, weights="quadratic", labels=[1, 2, 3, 4])
    assert relation.qwk == pytest.approx(held_out)
    in_sample = fit_scale_mapping(human, automatic).apply(automatic)
    assert relation.qwk_in_sample == pytest.approx(
        cohen_kappa_score(human.astype(int), in_sample, weights="quadratic", labels=[1, 2, 3, 4]))
    # fitted on the responses it scores, the mapping does better than held out
    assert relation.qwk_in_sample > relation.qwk
    # more folds than speakers: one per speaker; one speaker: no held-out figure
    assert score_relation(human, automatic, length, groups=speakers, folds=10).folds == 6
    alone = score_relation(human, automatic, length, groups=["s"] * 12)
    assert alone.folds == 0 and np.isnan(alone.qwk) and alone.qwk_in_sample == relation.qwk_in_sample
    with pytest.raises(ValueError, match="one value per response"):
        score_relation(human, automatic, length, groups=speakers[:5])
    with pytest.raises(ValueError, match="2 folds"):
        score_relation(human, automatic, length, folds=1)
