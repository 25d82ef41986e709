"""How automatic content scores relate to human rubric scores, and how raters agree with each other.

:func:`score_relation` gives, for one automatic score:

- Pearson's ``r`` with the human score;
- the quadratic weighted kappa with the human score after mapping the automatic score onto the
  rubric by linear regression — least squares of human on automatic — rounded half up and
  clipped to the scale (:class:`ScaleMapping`); a human score that is not whole (a mean of
  raters) is rounded the same way for the kappa. The figure (``qwk``) is held out: the mapping is
  fitted in cross-validation, with folds by ``groups`` (the speakers: no speaker's responses are
  both fitted and predicted, as a held-out evaluation of a scoring model keeps them apart), each
  response predicted by the mapping fitted on the other folds, and the kappa taken over all the
  predictions; ``qwk_in_sample`` fits the mapping on the very responses it scores, which flatters
  it;
- the partial correlation with length held constant:
  ``(r_ha - r_hl r_al) / sqrt((1 - r_hl²)(1 - r_al²))``.

:func:`rater_agreement` gives the quadratic weighted kappa, Krippendorff's alpha (ordinal) and
Pearson's ``r`` per pair of raters over the items both scored, their means over pairs, and alpha
over all raters at once, through :mod:`analysis.methods.agreement`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.model_selection import GroupKFold

from analysis.methods.agreement import (
    cohen_kappa,
    krippendorff_alpha,
    pairwise_kappa_table,
)

Scale = tuple[int, int]


@dataclass(frozen=True)
class ScaleMapping:
    """``round_half_up(intercept + slope × automatic)`` clipped to ``[low, high]``."""

    slope: float
    intercept: float
    low: int
    high: int

    def apply(self, automatic: ArrayLike) -> np.ndarray:
        return _to_scale(
            self.intercept + self.slope * np.asarray(automatic, dtype=float), (self.low, self.high)
        )


FOLDS = 5


@dataclass(frozen=True)
class Relation:
    n: int
    pearson_r: float  # NaN when either score is constant
    qwk: float  # human (rounded) against the automatic score mapped in cross-validation (held out)
    qwk_in_sample: float  # the same with the mapping fitted on all the responses it maps
    partial_r: float  # with length held constant
    mapping: ScaleMapping  # fitted on all the responses
    folds: int  # folds of the cross-validation (0: too few groups, qwk is NaN)


def fit_scale_mapping(
    human: ArrayLike, automatic: ArrayLike, *, scale: Scale = (1, 4)
) -> ScaleMapping:
    h, a = _vectors(human, automatic)
    variance = float(np.var(a))
    slope = float(np.mean((a - a.mean()) * (h - h.mean())) / variance) if variance > 0 else 0.0
    return ScaleMapping(
        slope=slope, intercept=float(h.mean() - slope * a.mean()), low=scale[0], high=scale[1]
    )


def score_relation(
    human: ArrayLike,
    automatic: ArrayLike,
    length: ArrayLike,
    *,
    scale: Scale = (1, 4),
    groups: ArrayLike | None = None,
    folds: int = FOLDS,
) -> Relation:
    """Pearson's r, the held-out and in-sample kappas and the partial r of one automatic score.

    ``groups`` (one per response, e.g. its speaker; None: each response its own) decide the
    folds: ``min(folds, distinct groups)`` of them, by scikit-learn's ``GroupKFold`` (no
    shuffling: the same data give the same folds). With fewer than two groups the held-out kappa
    is NaN."""
    h, a, n_words = _vectors(human, automatic, length)
    low, high = scale
    if h.size and (h.min() < low or h.max() > high):
        raise ValueError(f"human scores must lie on the scale {low}–{high}")
    if folds < 2:
        raise ValueError("cross-validation needs at least 2 folds")
    labels = np.asarray(groups if groups is not None else np.arange(h.size), dtype=object)
    if labels.shape != h.shape:
        raise ValueError("groups need one value per response")
    categories = list(range(low, high + 1))
    mapping = fit_scale_mapping(h, a, scale=scale)
    in_sample = cohen_kappa(_to_scale(h, scale), mapping.apply(a), weights="quadratic", categories=categories)
    n_folds = min(folds, len(set(labels.tolist())))
    held_out = math.nan
    if n_folds >= 2:
        predicted = np.zeros(h.size, dtype=np.int64)
        for fit, held in GroupKFold(n_splits=n_folds).split(a, h, labels):
            predicted[held] = fit_scale_mapping(h[fit], a[fit], scale=scale).apply(a[held])
        held_out = cohen_kappa(_to_scale(h, scale), predicted, weights="quadratic", categories=categories).value
    return Relation(
        n=int(h.size),
        pearson_r=_pearson(h, a),
        qwk=held_out,
        qwk_in_sample=in_sample.value,
        partial_r=partial_correlation(h, a, n_words),
        mapping=mapping,
        folds=n_folds if n_folds >= 2 else 0,
    )


def partial_correlation(x: ArrayLike, y: ArrayLike, control: ArrayLike) -> float:
    """Pearson's r of x and y with ``control`` held constant (NaN when undefined)."""
    a, b, c = _vectors(x, y, control)
    r_ab, r_ac, r_bc = _pearson(a, b), _pearson(a, c), _pearson(b, c)
    denominator = math.sqrt(max((1 - r_ac**2) * (1 - r_bc**2), 0.0))
    return (r_ab - r_ac * r_bc) / denominator if denominator > 0 else math.nan


@dataclass(frozen=True)
class RaterAgreement:
    pairs: pd.DataFrame  # worker_a, worker_b, shared_items, qwk, alpha, pearson_r
    mean_qwk: float  # over pairs with a defined kappa
    mean_alpha: float
    mean_pearson_r: float
    alpha: float  # ordinal, all raters at once
    n_items: int
    n_workers: int


def rater_agreement(
    frame: pd.DataFrame, *, scale: Scale = (1, 4), min_overlap: int = 2
) -> RaterAgreement:
    """Agreement of the raters in ``frame`` (``item, worker, label``; labels on the scale)."""
    categories: list[Hashable] = list(range(scale[0], scale[1] + 1))
    labels = frame[["item", "worker", "label"]]
    table = pairwise_kappa_table(
        labels, weights="quadratic", min_overlap=min_overlap, categories=categories
    )
    wide = labels.pivot(index="item", columns="worker", values="label")
    alphas, correlations = [], []
    for first, second in zip(table["worker_a"], table["worker_b"], strict=True):
        both = wide[[first, second]].dropna()
        long = both.reset_index().melt(id_vars="item", var_name="worker", value_name="label")
        alphas.append(krippendorff_alpha(long, level="ordinal", categories=categories).value)
        correlations.append(_pearson(both[first].to_numpy(float), both[second].to_numpy(float)))
    pairs = pd.DataFrame(
        {
            "worker_a": table["worker_a"],
            "worker_b": table["worker_b"],
            "shared_items": table["shared_items"],
            "qwk": table["kappa"],
            "alpha": np.asarray(alphas, dtype=float),
            "pearson_r": np.asarray(correlations, dtype=float),
        }
    )
    return RaterAgreement(
        pairs=pairs,
        mean_qwk=_mean(pairs["qwk"]),
        mean_alpha=_mean(pairs["alpha"]),
        mean_pearson_r=_mean(pairs["pearson_r"]),
        alpha=krippendorff_alpha(labels, level="ordinal", categories=categories).value,
        n_items=int(labels["item"].nunique()),
        n_workers=int(labels["worker"].nunique()),
    )


def _mean(values: pd.Series) -> float:
    defined = values.dropna()
    return float(defined.mean()) if len(defined) else math.nan


def _to_scale(values: np.ndarray, scale: Scale) -> np.ndarray:
    return np.clip(np.floor(values + 0.5), scale[0], scale[1]).astype(np.int64)


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    if x.size < 2:
        return math.nan
    dx, dy = x - x.mean(), y - y.mean()
    denominator = math.sqrt(float((dx * dx).sum()) * float((dy * dy).sum()))
    return float((dx * dy).sum()) / denominator if denominator > 0 else math.nan


def _vectors(*arrays: ArrayLike) -> tuple[np.ndarray, ...]:
    vectors = tuple(np.asarray(array, dtype=float) for array in arrays)
    if any(vector.ndim != 1 or vector.shape != vectors[0].shape for vector in vectors):
        raise ValueError("the scores need 1-D arrays of the same length")
    if any(np.isnan(vector).any() for vector in vectors):
        raise ValueError("the scores hold a missing value (NaN)")
    return vectors
