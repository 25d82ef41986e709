"""Cohen's kappa: two raters, and averaged over the pairs of crowd workers that share items.

Crowd workers each see a different subset of items, so a single Cohen's kappa does not exist;
the usual summary is the mean of Cohen's kappa over worker pairs (Light 1971's average pairwise
kappa, restricted to pairs that co-rated items). Only pairs that actually co-occur are touched:
they come from the pairs of annotations within each item, never from a workers × workers loop,
and a pair counts once it shares at least ``min_overlap`` items (kappa over two or three shared
items is mostly noise).

Kappa of one pair is ``(p_o - p_e) / (1 - p_e)`` with ``p_e`` from that pair's own marginals on
its shared items. With ``weights="quadratic"`` (Cohen 1968; Fleiss & Cohen 1973) disagreement
between category positions ``a`` and ``b`` costs ``(a - b)^2``: positions in the ordered
category list, as scikit-learn's ``cohen_kappa_score(..., labels=all categories)`` does. A pair
whose kappa is 0/0 (both workers used one and the same label throughout) is left out and counted
in ``n_pairs_undefined``.

Kappa over a pair's few shared items is biased downward (its chance term is estimated from the
same items), and a bootstrap over items compounds that: the replicates of the mean sit slightly
below the estimate (by about 0.003 for pairs sharing ~100 items). With thousands of pairs the
interval is narrower than that shift, so a percentile interval can exclude the estimate; the
``"basic"`` interval of :func:`~analysis.methods.agreement.bootstrap.bootstrap_intervals`
corrects for it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
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
    ensure_encoded,
    within_item_pairs,
)
from analysis.methods.codes import unique_inverse_counts

Weights = Literal["linear", "quadratic"] | None
PairWeighting = Literal["mean", "shared_items"]


@dataclass(frozen=True)
class CohenKappa:
    value: float
    p_observed: float  # (weighted) agreement, weights scaled to [0, 1]
    p_expected: float
    n_items: int
    weights: Weights


@dataclass(frozen=True)
class PairwiseKappa:
    """Cohen's kappa averaged over worker pairs sharing at least ``min_overlap`` items."""

    value: float
    weights: Weights
    weighting: PairWeighting  # "mean": each pair counts once; "shared_items": by items shared
    min_overlap: int
    n_pairs: int  # pairs averaged
    n_pairs_undefined: int  # pairs with enough overlap whose kappa is 0/0
    n_pairs_sharing: int  # pairs sharing at least one item
    interval: Interval | None = None


def cohen_kappa(
    first: ArrayLike,
    second: ArrayLike,
    *,
    weights: Weights = None,
    categories: Sequence[Hashable] | None = None,
) -> CohenKappa:
    """Cohen's kappa of two raters' labels on the same items (aligned arrays).

    ``categories`` gives the label order for weighted kappa (default: sorted labels seen).
    """
    first, second = np.asarray(first), np.asarray(second)
    if first.shape != second.shape or first.ndim != 1:
        raise ValueError("both raters need 1-D label arrays of the same length")
    if categories is None:
        categories = sorted(set(first.tolist()) | set(second.tolist()))
    position = {category: index for index, category in enumerate(categories)}
    try:
        a = np.array([position[v] for v in first.tolist()], dtype=np.int64)
        b = np.array([position[v] for v in second.tolist()], dtype=np.int64)
    except KeyError as error:
        raise ValueError(f"label {error.args[0]!r} is not one of the categories") from None
    k = len(categories)
    observed = np.bincount(a * k + b, minlength=k * k).reshape(k, k).astype(float)
    n = observed.sum()
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / n if n else observed
    cost = _disagreement_costs(k, weights)
    scale = cost.max() if cost.max() > 0 else 1.0
    d_observed, d_expected = (cost * observed).sum(), (cost * expected).sum()
    value = 1 - d_observed / d_expected if d_expected > 0 else np.nan
    return CohenKappa(
        value=float(value),
        p_observed=float(1 - d_observed / (n * scale)) if n else np.nan,
        p_expected=float(1 - d_expected / (n * scale)) if n else np.nan,
        n_items=int(n),
        weights=weights,
    )


def quadratic_weighted_kappa(
    first: ArrayLike, second: ArrayLike, *, categories: Sequence[Hashable] | None = None
) -> CohenKappa:
    return cohen_kappa(first, second, weights="quadratic", categories=categories)


def _disagreement_costs(k: int, weights: Weights) -> np.ndarray:
    positions = np.arange(k)
    gap: np.ndarray = np.abs(positions[:, None] - positions[None, :]).astype(float)
    if weights is None:
        return (gap > 0).astype(float)
    if weights == "linear":
        return gap
    if weights == "quadratic":
        return gap**2
    raise ValueError(f"unknown weights {weights!r}; known: None, 'linear', 'quadratic'")


@dataclass(frozen=True)
class WorkerPairs:
    """Worker pairs with enough overlap and the cells of their contingency tables.

    Cell ``c`` is pair ``cell_pair[c]`` with labels ``(cell_first[c], cell_second[c])``;
    ``cell_count[c]`` shared items fall in it.
    """

    first_worker: np.ndarray
    second_worker: np.ndarray
    shared: np.ndarray
    n_sharing: int
    cell_pair: np.ndarray
    cell_first: np.ndarray
    cell_second: np.ndarray
    cell_count: np.ndarray
    cell_of_row: np.ndarray  # cell of each annotation pair kept
    item_of_row: np.ndarray
    n_categories: int
    n_items: int


def worker_pairs(encoded: EncodedFrame, *, min_overlap: int) -> WorkerPairs:
    first, second = within_item_pairs(encoded)
    k = np.int64(encoded.n_categories)
    pair_key = encoded.worker[first] * np.int64(encoded.n_workers) + encoded.worker[second]
    # One sort of the cell keys gives the cells and, as runs of cells, the worker pairs.
    cells, cell_of_row, cell_count = unique_inverse_counts(
        (pair_key * k + encoded.label[first]) * k + encoded.label[second],
        bound=int(encoded.n_workers) ** 2 * int(k) ** 2,
    )
    cell_pair_key = cells // (k * k)
    # With no item rated twice there are no cells, and no pairs.
    new_pair = (
        np.r_[True, cell_pair_key[1:] != cell_pair_key[:-1]] if cells.size else np.zeros(0, bool)
    )
    pair_starts = np.flatnonzero(new_pair)
    pair_of_cell = np.cumsum(new_pair) - 1
    shared = np.add.reduceat(cell_count, pair_starts) if cells.size else np.empty(0, np.int64)
    kept = shared >= min_overlap
    kept_cell = kept[pair_of_cell]
    new_cell = np.cumsum(kept_cell) - 1
    row_kept = kept_cell[cell_of_row]
    pair_keys = cell_pair_key[pair_starts[kept]]
    return WorkerPairs(
        first_worker=pair_keys // encoded.n_workers,
        second_worker=pair_keys % encoded.n_workers,
        shared=shared[kept],
        n_sharing=int(shared.size),
        cell_pair=(np.cumsum(kept) - 1)[pair_of_cell[kept_cell]],
        cell_first=(cells[kept_cell] // k) % k,
        cell_second=cells[kept_cell] % k,
        cell_count=cell_count[kept_cell],
        cell_of_row=new_cell[cell_of_row[row_kept]],
        item_of_row=encoded.item[first[row_kept]],
        n_categories=int(k),
        n_items=encoded.n_items,
    )


PairKappas = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def pair_kappas(pairs: WorkerPairs, *, weights: Literal["quadratic"] | None) -> PairKappas:
    """A function from contingency-cell counts (replicates × cells) to per-pair kappa and
    shared items (replicates × pairs); undefined kappas are NaN."""
    n_pairs, k = pairs.shared.size, pairs.n_categories
    n_cells = pairs.cell_pair.size
    cells = np.arange(n_cells)
    columns = max(n_pairs, 1)

    def to_pairs(
        values: np.ndarray, column: np.ndarray = pairs.cell_pair, width: int = columns
    ) -> sparse.csr_matrix:
        return sparse.csr_matrix((values, (cells, column)), shape=(n_cells, width))

    to_total = to_pairs(np.ones(n_cells))
    if weights == "quadratic":
        a, b = pairs.cell_first.astype(float), pairs.cell_second.astype(float)
        moments = [
            to_pairs((a - b) ** 2),
            to_pairs(a),
            to_pairs(a * a),
            to_pairs(b),
            to_pairs(b * b),
        ]
    elif weights is None:
        to_agreeing = to_pairs((pairs.cell_first == pairs.cell_second).astype(float))
        margins = [
            to_pairs(np.ones(n_cells), pairs.cell_pair * k + labels, columns * k)
            for labels in (pairs.cell_first, pairs.cell_second)
        ]
    else:
        raise ValueError(f"pairwise kappa supports weights None or 'quadratic', not {weights!r}")

    def kappas(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # Sums are counts, so the products below are exact integers in floating point and a
        # 0/0 kappa (both workers constant on one label) shows as an exact zero.
        shared = np.asarray(sums @ to_total)
        if weights == "quadratic":
            disagreement, a1, a2, b1, b2 = (np.asarray(sums @ m) for m in moments)
            chance = shared * (a2 + b2) - 2 * a1 * b1  # shared × expected disagreement
            value = 1 - safe_divide(shared * disagreement, chance)
        else:
            agreeing = np.asarray(sums @ to_agreeing)
            row, column = (np.asarray(sums @ m).reshape(len(sums), -1, k) for m in margins)
            chance = (row * column).sum(axis=2)  # shared² × expected agreement
            value = safe_divide(shared * agreeing - chance, shared**2 - chance)
        return value[:, :n_pairs], shared[:, :n_pairs]

    return kappas


def pairwise_statistic(
    pairs: WorkerPairs, *, weights: Literal["quadratic"] | None, weighting: PairWeighting
) -> ItemAdditive:
    """Mean pairwise kappa as a function of contingency-cell counts (the cells of all pairs)."""
    if weighting not in ("mean", "shared_items"):
        raise ValueError(f"unknown weighting {weighting!r}; known: 'mean', 'shared_items'")
    kappas = pair_kappas(pairs, weights=weights)

    def finalize(sums: np.ndarray) -> dict[str, np.ndarray]:
        value, shared = kappas(sums)
        defined = np.isfinite(value)
        weight = np.where(defined, shared if weighting == "shared_items" else 1.0, 0.0)
        total = (np.where(defined, value, 0.0) * weight).sum(axis=1)
        return {"value": safe_divide(total, weight.sum(axis=1)), "n_pairs": defined.sum(axis=1)}

    def build() -> sparse.csr_matrix:
        return sparse.csr_matrix(
            (np.ones(pairs.item_of_row.size), (pairs.item_of_row, pairs.cell_of_row)),
            shape=(pairs.n_items, pairs.cell_pair.size),
        )

    width = max(pairs.shared.size * (pairs.n_categories + 6), pairs.cell_pair.size)
    return ItemAdditive(pairs.cell_count.astype(float), build, finalize, width=width)


def pairwise_cohen_kappa(
    frame: pd.DataFrame | EncodedFrame,
    *,
    weights: Literal["quadratic"] | None = None,
    min_overlap: int = 10,
    weighting: PairWeighting = "mean",
    categories: Sequence[Hashable] | None = None,
    n_boot: int = 0,
    seed: int | None = None,
    confidence: float = 0.95,
) -> PairwiseKappa:
    """Cohen's kappa averaged over worker pairs that share at least ``min_overlap`` items.

    Bootstrap replicates keep the pairs chosen on the full data and drop a pair from a
    replicate's mean where its kappa is undefined there.
    """
    encoded = ensure_encoded(frame, categories=categories)
    _check_weights(encoded, weights)
    pairs = worker_pairs(encoded, min_overlap=min_overlap)
    statistic = pairwise_statistic(pairs, weights=weights, weighting=weighting)
    interval = single_interval(
        statistic, encoded.n_items, n_boot=n_boot, seed=seed, confidence=confidence
    )
    return pairwise_result(
        pairs,
        statistic,
        weights=weights,
        weighting=weighting,
        min_overlap=min_overlap,
        interval=interval,
    )


def pairwise_result(
    pairs: WorkerPairs,
    statistic: ItemAdditive,
    *,
    weights: Literal["quadratic"] | None,
    weighting: PairWeighting,
    min_overlap: int,
    interval: Interval | None,
) -> PairwiseKappa:
    point = statistic.point()
    return PairwiseKappa(
        value=point["value"],
        weights=weights,
        weighting=weighting,
        min_overlap=min_overlap,
        n_pairs=int(point["n_pairs"]),
        n_pairs_undefined=int(pairs.shared.size - point["n_pairs"]),
        n_pairs_sharing=pairs.n_sharing,
        interval=interval,
    )


def pairwise_kappa_table(
    frame: pd.DataFrame | EncodedFrame,
    *,
    weights: Literal["quadratic"] | None = None,
    min_overlap: int = 10,
    categories: Sequence[Hashable] | None = None,
) -> pd.DataFrame:
    """One row per worker pair with enough overlap: worker_a, worker_b, shared_items, kappa."""
    encoded = ensure_encoded(frame, categories=categories)
    _check_weights(encoded, weights)
    pairs = worker_pairs(encoded, min_overlap=min_overlap)
    kappa, _ = pair_kappas(pairs, weights=weights)(pairs.cell_count.astype(float).reshape(1, -1))
    return pd.DataFrame(
        {
            "worker_a": encoded.workers[pairs.first_worker],
            "worker_b": encoded.workers[pairs.second_worker],
            "shared_items": pairs.shared,
            "kappa": kappa[0],
        }
    )


def _check_weights(encoded: EncodedFrame, weights: str | None) -> None:
    if weights is not None and not encoded.ordered:
        raise ValueError(
            "weighted kappa needs ordered labels: numbers, or `categories` listing the labels in order"
        )
