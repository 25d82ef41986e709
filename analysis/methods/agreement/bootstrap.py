"""Bootstrap over items for figures that are functions of per-item sums.

Every agreement figure here is a function of column sums of a per-item contribution matrix
(items × cells): category counts, agreeing pairs, coincidences, cells of worker-pair contingency
tables. Resampling items with replacement therefore only re-weights those sums: a replicate is
``weights @ contributions`` with ``weights[i]`` = how often item ``i`` was drawn. That keeps a
1,000-replicate bootstrap of a million annotations to seconds, and every figure in one report
sees the same resampled items.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import sparse

Interval = tuple[float, float]
IntervalMethod = Literal["percentile", "basic"]
Finalize = Callable[[np.ndarray], dict[str, np.ndarray]]

# Floats held at once per chunk of replicates (weights, sums and per-replicate intermediates).
_CHUNK_BUDGET = 4_000_000


@dataclass(frozen=True, eq=False)
class ItemAdditive:
    """A figure computed from column sums of per-item contributions.

    ``totals`` are the sums over all items; ``build()`` returns the items × cells contribution
    matrix, built only when a bootstrap needs it. ``finalize`` maps sums of shape
    (replicates, cells) to named arrays of shape (replicates,), one of them ``"value"``.
    ``width`` is the largest per-replicate intermediate ``finalize`` allocates, so chunks of
    replicates stay within memory.
    """

    totals: np.ndarray
    build: Callable[[], sparse.csr_matrix]
    finalize: Finalize
    width: int = 0

    def point(self) -> dict[str, float]:
        parts = self.finalize(np.asarray(self.totals, dtype=float).reshape(1, -1))
        return {name: float(values[0]) for name, values in parts.items()}


def bootstrap_replicates(
    statistics: Mapping[str, ItemAdditive], n_items: int, *, n_boot: int, seed: int | None = None
) -> dict[str, np.ndarray]:
    """Each statistic on ``n_boot`` resamples of the items, drawn with replacement.

    Replicates are drawn in chunks as rows of ``rng.integers(0, n_items, size=(chunk, n_items))``
    with ``rng = np.random.default_rng(seed)``; a small problem is one chunk of ``n_boot`` rows.
    """
    rng = np.random.default_rng(seed)
    replicates = {name: np.empty(n_boot) for name in statistics}
    # Statistics built from one contribution matrix (Fleiss, AC1, percent agreement) share sums.
    matrices: dict[int, sparse.csr_matrix] = {}
    for statistic in statistics.values():
        if id(statistic.build) not in matrices:
            matrices[id(statistic.build)] = statistic.build().T.tocsr()
    widest = max(
        [n_items, *(m.shape[0] for m in matrices.values()), *(s.width for s in statistics.values())]
    )
    chunk = int(max(1, min(n_boot, _CHUNK_BUDGET // max(widest, 1))))
    for start in range(0, n_boot, chunk):
        size = min(chunk, n_boot - start)
        draws = rng.integers(0, n_items, size=(size, n_items))
        draws += (np.arange(size, dtype=np.int64) * n_items)[:, None]
        weights = np.bincount(draws.ravel(), minlength=size * n_items).reshape(size, n_items)
        weights = weights.T.astype(float)
        sums = {key: (matrix @ weights).T for key, matrix in matrices.items()}
        for name, statistic in statistics.items():
            values = statistic.finalize(sums[id(statistic.build)])["value"]
            replicates[name][start : start + size] = values
    return replicates


def bootstrap_intervals(
    statistics: Mapping[str, ItemAdditive],
    n_items: int,
    *,
    n_boot: int,
    seed: int | None = None,
    confidence: float = 0.95,
    method: IntervalMethod = "percentile",
) -> dict[str, Interval]:
    """Intervals of each statistic over ``n_boot`` resamples of the items (seedable).

    ``"percentile"``: the ``(1 ± confidence) / 2`` quantiles of the replicates. ``"basic"``:
    those quantiles reflected around the estimate, ``2·estimate − quantile`` (Davison & Hinkley
    1997, §5.2); it corrects a shift of the replicates away from the estimate, as happens for the
    mean of many per-pair kappas over few shared items, each biased downward. Replicates where a
    figure is undefined (NaN) are left out.
    """
    if method not in ("percentile", "basic"):
        raise ValueError(f"unknown interval method {method!r}; known: percentile, basic")
    if n_boot <= 0 or not statistics:
        return {}
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    replicates = bootstrap_replicates(statistics, n_items, n_boot=n_boot, seed=seed)
    tails = [(1 - confidence) / 2, (1 + confidence) / 2]
    intervals = {}
    for name, values in replicates.items():
        finite = values[np.isfinite(values)]
        low, high = np.quantile(finite, tails) if finite.size else (np.nan, np.nan)
        if method == "basic":
            estimate = statistics[name].point()["value"]
            low, high = 2 * estimate - high, 2 * estimate - low
        intervals[name] = (float(low), float(high))
    return intervals


def single_interval(
    statistic: ItemAdditive,
    n_items: int,
    *,
    n_boot: int,
    seed: int | None,
    confidence: float,
    method: IntervalMethod = "percentile",
) -> Interval | None:
    if n_boot <= 0:
        return None
    return bootstrap_intervals(
        {"value": statistic},
        n_items,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
        method=method,
    )["value"]


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """Elementwise division that gives NaN (not a warning) where the denominator is zero."""
    numerator, denominator = np.broadcast_arrays(
        np.asarray(numerator, dtype=float), np.asarray(denominator, dtype=float)
    )
    out = np.full(numerator.shape, np.nan)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out
