"""Chance-corrected agreement of many raters from the items × categories counts: Fleiss' kappa,
Gwet's AC1, and the percent agreement they share.

Fleiss (1971) assumes every item has the same number of ratings ``n``. Crowd projects rarely do
(expired assignments, extra gold judgements), so the figures here use the generalisation to a
variable number of ratings ``r_i`` given by Gwet (2014, *Handbook of Inter-Rater Reliability*,
4th ed., ch. 2 and 5; the formulas of his irrCAC package, functions ``fleiss.kappa.raw`` and
``gwet.ac1.raw``), with ``r_ik`` ratings of item ``i`` in category ``k``, ``q`` categories and
``n`` items::

    p_a   = mean over items with r_i >= 2 of  sum_k r_ik (r_ik - 1) / (r_i (r_i - 1))
    pi_k  = mean over all items of  r_ik / r_i
    Fleiss' kappa:  p_e = sum_k pi_k^2                      kappa = (p_a - p_e) / (1 - p_e)
    Gwet's AC1:     p_e = sum_k pi_k (1 - pi_k) / (q - 1)   AC1   = (p_a - p_e) / (1 - p_e)

With a fixed ``r_i = m`` this is exactly Fleiss (1971): ``p_a`` is his mean ``P_i`` and
``pi_k = sum_i r_ik / (n m)`` his pooled ``p_j``. ``p_a`` is also the percent agreement (the
share of agreeing pairs of ratings per item, averaged over items with at least two ratings).
AC1's chance term shrinks when one label dominates (e.g. "None"), where kappa collapses although
raters agree (Gwet 2008, Br. J. Math. Stat. Psychol. 61:29-48).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import sparse

from analysis.methods.agreement.bootstrap import (
    Interval,
    ItemAdditive,
    safe_divide,
    single_interval,
)
from analysis.methods.agreement.frames import (
    EncodedFrame,
    ItemLabelCounts,
    counts_from_table,
    ensure_encoded,
    item_label_counts,
)

Coefficient = Literal["fleiss_kappa", "gwet_ac1"]


@dataclass(frozen=True)
class MultiRaterAgreement:
    """Fleiss' kappa or Gwet's AC1 with its parts (see the module docstring for formulas)."""

    coefficient: Coefficient
    value: float
    p_observed: float
    p_expected: float
    n_items: int  # items with at least two ratings (those that enter p_observed)
    n_categories: int
    fixed_ratings: bool  # every item has the same number of ratings: the Fleiss (1971) case
    interval: Interval | None = None


@dataclass(frozen=True)
class PercentAgreement:
    value: float
    n_items: int  # items with at least two ratings
    interval: Interval | None = None


def counts_statistics(counts: ItemLabelCounts) -> dict[str, ItemAdditive]:
    """Fleiss' kappa, Gwet's AC1 and percent agreement as sums of per-item contributions.

    Cells: [agreement of item i (0 when r_i < 2), 1 if r_i >= 2, 1, r_i1 / r_i, ..., r_iq / r_i].
    """
    q = counts.n_categories
    ratings = counts.ratings.astype(float)
    entry_ratings = ratings[counts.item]
    paired = ratings >= 2
    pairs = np.bincount(
        counts.item, weights=counts.count * (counts.count - 1.0), minlength=counts.n_items
    )
    agreement = safe_divide(pairs, ratings * (ratings - 1))
    agreement[~paired] = 0.0
    share = counts.count / entry_ratings
    totals = np.concatenate(
        [
            [agreement.sum(), paired.sum(), counts.n_items],
            np.bincount(counts.label, weights=share, minlength=q),
        ]
    )

    def build() -> sparse.csr_matrix:
        items = np.arange(counts.n_items)
        rows = np.concatenate([items, items, items, counts.item])
        columns = np.concatenate(
            [
                np.zeros(counts.n_items, int),
                np.ones(counts.n_items, int),
                np.full(counts.n_items, 2),
                3 + counts.label,
            ]
        )
        values = np.concatenate([agreement, paired.astype(float), np.ones(counts.n_items), share])
        return sparse.csr_matrix((values, (rows, columns)), shape=(counts.n_items, 3 + q))

    def parts(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p_observed = safe_divide(sums[:, 0], sums[:, 1])
        prevalence = safe_divide(sums[:, 3:], sums[:, 2:3])
        return p_observed, prevalence

    def fleiss(sums: np.ndarray) -> dict[str, np.ndarray]:
        p_observed, prevalence = parts(sums)
        p_expected = (prevalence**2).sum(axis=1)
        value = safe_divide(p_observed - p_expected, 1 - p_expected)
        return {"value": value, "p_observed": p_observed, "p_expected": p_expected}

    def ac1(sums: np.ndarray) -> dict[str, np.ndarray]:
        p_observed, prevalence = parts(sums)
        p_expected = safe_divide(
            (prevalence * (1 - prevalence)).sum(axis=1), np.full(len(sums), q - 1.0)
        )
        value = safe_divide(p_observed - p_expected, 1 - p_expected)
        return {"value": value, "p_observed": p_observed, "p_expected": p_expected}

    def percent(sums: np.ndarray) -> dict[str, np.ndarray]:
        return {"value": parts(sums)[0]}

    return {
        "fleiss_kappa": ItemAdditive(totals, build, fleiss, width=q),
        "gwet_ac1": ItemAdditive(totals, build, ac1, width=q),
        "percent_agreement": ItemAdditive(totals, build, percent, width=q),
    }


def multi_rater_result(
    coefficient: Coefficient,
    statistic: ItemAdditive,
    counts: ItemLabelCounts,
    interval: Interval | None,
) -> MultiRaterAgreement:
    point = statistic.point()
    rated = counts.ratings[counts.ratings > 0]
    return MultiRaterAgreement(
        coefficient=coefficient,
        value=point["value"],
        p_observed=point["p_observed"],
        p_expected=point["p_expected"],
        n_items=int((counts.ratings >= 2).sum()),
        n_categories=counts.n_categories,
        fixed_ratings=bool(rated.size and (rated == rated[0]).all()),
        interval=interval,
    )


def _multi_rater(
    coefficient: Coefficient,
    counts: ItemLabelCounts,
    n_boot: int,
    seed: int | None,
    confidence: float,
) -> MultiRaterAgreement:
    statistic = counts_statistics(counts)[coefficient]
    interval = single_interval(
        statistic, counts.n_items, n_boot=n_boot, seed=seed, confidence=confidence
    )
    return multi_rater_result(coefficient, statistic, counts, interval)


def fleiss_kappa(
    frame: pd.DataFrame | EncodedFrame,
    *,
    categories: Sequence[Hashable] | None = None,
    n_boot: int = 0,
    seed: int | None = None,
    confidence: float = 0.95,
) -> MultiRaterAgreement:
    """Fleiss' kappa of a long frame; items may have different numbers of ratings."""
    counts = item_label_counts(ensure_encoded(frame, categories=categories))
    return _multi_rater("fleiss_kappa", counts, n_boot, seed, confidence)


def fleiss_kappa_from_counts(
    counts: ArrayLike, *, n_boot: int = 0, seed: int | None = None, confidence: float = 0.95
) -> MultiRaterAgreement:
    """Fleiss' kappa from a published items × categories table of rating counts."""
    return _multi_rater("fleiss_kappa", counts_from_table(counts), n_boot, seed, confidence)


def gwet_ac1(
    frame: pd.DataFrame | EncodedFrame,
    *,
    categories: Sequence[Hashable] | None = None,
    n_boot: int = 0,
    seed: int | None = None,
    confidence: float = 0.95,
) -> MultiRaterAgreement:
    """Gwet's AC1 of a long frame. ``q`` is the number of categories: pass ``categories`` when
    some offered labels were never chosen, or ``q`` counts only the labels seen."""
    counts = item_label_counts(ensure_encoded(frame, categories=categories))
    return _multi_rater("gwet_ac1", counts, n_boot, seed, confidence)


def gwet_ac1_from_counts(
    counts: ArrayLike, *, n_boot: int = 0, seed: int | None = None, confidence: float = 0.95
) -> MultiRaterAgreement:
    return _multi_rater("gwet_ac1", counts_from_table(counts), n_boot, seed, confidence)


def percent_agreement(
    frame: pd.DataFrame | EncodedFrame,
    *,
    n_boot: int = 0,
    seed: int | None = None,
    confidence: float = 0.95,
) -> PercentAgreement:
    """Share of agreeing pairs of ratings within an item, averaged over items with >= 2 ratings."""
    counts = item_label_counts(ensure_encoded(frame))
    statistic = counts_statistics(counts)["percent_agreement"]
    interval = single_interval(
        statistic, counts.n_items, n_boot=n_boot, seed=seed, confidence=confidence
    )
    return PercentAgreement(statistic.point()["value"], int((counts.ratings >= 2).sum()), interval)
