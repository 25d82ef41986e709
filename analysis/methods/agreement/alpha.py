"""Krippendorff's alpha for nominal, ordinal, interval and ratio labels and for set-valued answers.

``alpha = 1 - D_o / D_e`` in the coincidence formulation (Krippendorff 2011, "Computing
Krippendorff's Alpha-Reliability"): an item with ``m_u >= 2`` pairable values contributes
``n_uc n_uk / (m_u - 1)`` to the coincidence ``o_ck`` of every ordered pair of values it holds,
``n_c = sum_k o_ck`` are the pairable values per category and ``n = sum_c n_c``::

    D_o = sum_ck o_ck d_ck / n        D_e = sum_ck n_c n_k d_ck / (n (n - 1))

Alpha comes from the coincidences directly: only the coincidence cells that occur are summed,
and ``D_e`` is accumulated in blocks of the distance matrix, for every level and for set-valued
answers. ``backend="krippendorff"`` computes the point estimate of the four standard levels
through the ``krippendorff`` package instead (fed its ``value_counts`` form: pairable items ×
categories), as a reference the tests compare against. That package is GPL-3.0-licensed, so the
platform's runtime never needs it: it is installed with the test and benchmark dependencies only.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
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
    ensure_encoded,
    item_label_counts,
    pairs_within_runs,
)
from analysis.methods.agreement.sets import SET_DISTANCES, SetDistances
from analysis.methods.codes import unique_inverse_counts

AlphaLevel = Literal["nominal", "ordinal", "interval", "ratio", "masi", "jaccard"]
PackageLevel = Literal["nominal", "ordinal", "interval", "ratio"]
PACKAGE_LEVELS: tuple[PackageLevel, ...] = ("nominal", "ordinal", "interval", "ratio")
ALPHA_LEVELS: tuple[AlphaLevel, ...] = (*PACKAGE_LEVELS, *SET_DISTANCES)
Backend = Literal["auto", "krippendorff", "coincidences"]
UsedBackend = Literal["krippendorff", "coincidences"]
_BLOCK_CELLS = 4_000_000

Distance = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class KrippendorffAlpha:
    value: float
    level: AlphaLevel
    n_items: int  # items with at least two ratings
    n_pairable: int  # ratings on those items
    backend: UsedBackend
    interval: Interval | None = None


def krippendorff_alpha(
    frame: pd.DataFrame | EncodedFrame,
    *,
    level: AlphaLevel = "nominal",
    categories: Sequence[Hashable] | None = None,
    backend: Backend = "auto",
    n_boot: int = 0,
    seed: int | None = None,
    confidence: float = 0.95,
) -> KrippendorffAlpha:
    """Krippendorff's alpha of a long frame.

    ``level``: nominal, ordinal (needs ordered labels: numbers or ``categories`` in order),
    interval or ratio (numeric labels), or — for set-valued labels — ``"masi"`` or ``"jaccard"``
    distance between answers (``"nominal"`` on sets counts only identical answers as agreeing).
    """
    encoded = ensure_encoded(frame, categories=categories)
    counts = item_label_counts(encoded)
    statistic = alpha_statistic(counts, alpha_distance(encoded, level), fixed=level != "ordinal")
    value, used = alpha_point(encoded, counts, statistic, level=level, backend=backend)
    interval = single_interval(
        statistic, counts.n_items, n_boot=n_boot, seed=seed, confidence=confidence
    )
    return alpha_result(value, level, counts, used, interval)


def alpha_point(
    encoded: EncodedFrame,
    counts: ItemLabelCounts,
    statistic: ItemAdditive,
    *,
    level: str,
    backend: Backend,
) -> tuple[float, UsedBackend]:
    """Alpha from the coincidences, or through the krippendorff package when asked for."""
    if backend not in ("auto", "krippendorff", "coincidences"):
        raise ValueError(f"unknown backend {backend!r}; known: auto, krippendorff, coincidences")
    if backend == "krippendorff":
        if level not in PACKAGE_LEVELS:
            raise ValueError(f"the krippendorff package has no {level!r} level for set-valued answers")
        return package_alpha(encoded, counts, level), "krippendorff"
    return statistic.point()["value"], "coincidences"


def alpha_result(
    value: float,
    level: AlphaLevel,
    counts: ItemLabelCounts,
    backend: UsedBackend,
    interval: Interval | None,
) -> KrippendorffAlpha:
    pairable = counts.ratings >= 2
    return KrippendorffAlpha(
        value=float(value),
        level=level,
        n_items=int(pairable.sum()),
        n_pairable=int(counts.ratings[pairable].sum()),
        backend=backend,
        interval=interval,
    )


def value_counts(counts: ItemLabelCounts) -> np.ndarray:
    """The krippendorff package's ``value_counts``: pairable items × categories (others add nothing)."""
    pairable = counts.ratings >= 2
    row = np.cumsum(pairable) - 1
    keep = pairable[counts.item]
    table = np.zeros((int(pairable.sum()), counts.n_categories))
    table[row[counts.item[keep]], counts.label[keep]] = counts.count[keep]
    return table


def package_alpha(encoded: EncodedFrame, counts: ItemLabelCounts, level: PackageLevel) -> float:
    try:
        import krippendorff
    except ImportError:
        raise ValueError(
            "backend='krippendorff' needs the krippendorff package (GPL-3.0), which only the test "
            "and benchmark requirements install; backend='auto' needs nothing"
        ) from None
    table = value_counts(counts)
    if encoded.n_categories < 2 or not (table.sum(axis=1) >= 2).any():
        return float("nan")  # the package raises: one category, or nothing pairable
    if level in ("interval", "ratio"):
        domain = encoded.category_values()
    else:  # nominal and ordinal distances use only category positions and counts
        domain = np.arange(encoded.n_categories)
    # No expected disagreement (every pairable answer alike) leaves alpha undefined: NaN, quietly.
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(
            krippendorff.alpha(value_counts=table, value_domain=domain, level_of_measurement=level)
        )


def alpha_distance(encoded: EncodedFrame, level: str) -> Distance:
    """``d(c, k, n)`` between category codes; ``n`` (pairable values per category) is used by
    the ordinal metric only."""
    if level not in ALPHA_LEVELS:
        raise ValueError(f"unknown level {level!r}; known: {', '.join(ALPHA_LEVELS)}")
    if level in SET_DISTANCES:
        if encoded.kind != "sets":
            raise ValueError(f"{level} distance needs set-valued labels")
        between = SetDistances(encoded.categories, level)
        return lambda c, k, n: between(c, k)
    if level == "nominal":
        return lambda c, k, n: (np.asarray(c) != np.asarray(k)).astype(float)
    if encoded.kind == "sets" or not encoded.ordered:
        raise ValueError(
            f"{level} alpha needs ordered labels: numbers, or `categories` listing the labels in order"
        )
    if level == "ordinal":
        return _ordinal_distance
    values = encoded.category_values()
    if level == "interval":
        return lambda c, k, n: (values[c] - values[k]) ** 2
    if (values < 0).any():
        raise ValueError("ratio alpha needs non-negative labels")

    def ratio(c: np.ndarray, k: np.ndarray, n: np.ndarray) -> np.ndarray:
        # Two zeros are identical values: distance 0, as in the krippendorff package.
        distance: np.ndarray = np.nan_to_num(
            safe_divide(values[c] - values[k], values[c] + values[k]) ** 2
        )
        return distance

    return ratio


def _ordinal_distance(c: np.ndarray, k: np.ndarray, n: np.ndarray) -> np.ndarray:
    # Krippendorff's ordinal metric: (values from c to k, counting c and k half each)^2.
    cumulative = np.concatenate([[0.0], np.cumsum(n)])
    low, high = np.minimum(c, k), np.maximum(c, k)
    distance: np.ndarray = (cumulative[high + 1] - cumulative[low] - (n[low] + n[high]) / 2) ** 2
    return distance


def alpha_statistic(counts: ItemLabelCounts, distance: Distance, *, fixed: bool) -> ItemAdditive:
    """Alpha as a function of per-item sums: pairable values per category, then the coincidences
    ``2 n_uc n_uk / (m_u - 1)`` of every pair of categories ``c < k`` some item holds.

    ``fixed`` says the distance does not depend on the category counts (all but ordinal).
    """
    q = counts.n_categories
    pairable = (counts.ratings >= 2)[counts.item]
    item, label, count = (
        counts.item[pairable],
        counts.label[pairable],
        counts.count[pairable].astype(float),
    )
    first, second = pairs_within_runs(item)  # entries are sorted by item, then label: c < k
    weight = 2 * count[first] * count[second] / (counts.ratings[item[first]] - 1)
    cells, cell_of_pair, _ = unique_inverse_counts(label[first] * np.int64(q) + label[second], bound=q * q)
    cell_first, cell_second = cells // q, cells % q
    totals = np.concatenate(
        [
            np.bincount(label, weights=count, minlength=q),
            np.bincount(cell_of_pair, weights=weight, minlength=cells.size),
        ]
    )
    codes = np.arange(q)
    cell_distances = distance(cell_first, cell_second, np.zeros(q)) if fixed else None
    dense_distances = (
        distance(codes[:, None], codes[None, :], np.zeros(q)) if fixed and q <= 2048 else None
    )

    def expected(n_values: np.ndarray) -> float:
        """sum_ck n_c n_k d_ck over categories with values, in blocks of rows."""
        used = np.flatnonzero(n_values)
        step = max(1, _BLOCK_CELLS // max(used.size, 1))
        total = 0.0
        for start in range(0, used.size, step):
            block = used[start : start + step]
            total += (
                n_values[block] @ distance(block[:, None], used[None, :], n_values) @ n_values[used]
            )
        return total

    def finalize(sums: np.ndarray) -> dict[str, np.ndarray]:
        n_values, coincidences = sums[:, :q], sums[:, q:]
        n = n_values.sum(axis=1)
        if fixed:
            observed = coincidences @ cell_distances
            if dense_distances is not None:
                chance = np.einsum("bi,ij,bj->b", n_values, dense_distances, n_values)
            else:
                chance = np.array([expected(row) for row in n_values])
        else:
            observed = np.array(
                [
                    row @ distance(cell_first, cell_second, values)
                    for row, values in zip(coincidences, n_values, strict=True)
                ]
            )
            chance = np.array([expected(values) for values in n_values])
        return {"value": 1 - safe_divide((n - 1) * observed, chance)}

    def build() -> sparse.csr_matrix:
        rows = np.concatenate([item, item[first]])
        columns = np.concatenate([label, q + cell_of_pair])
        return sparse.csr_matrix(
            (np.concatenate([count, weight]), (rows, columns)),
            shape=(counts.n_items, q + cells.size),
        )

    return ItemAdditive(totals, build, finalize, width=q + cells.size)
