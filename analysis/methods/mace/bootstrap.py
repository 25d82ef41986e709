"""An interval for each worker's MACE competence, by a bootstrap over items.

Items are drawn with replacement (as many as were annotated), every annotation of a drawn item
comes along (an item drawn twice enters twice, as two items), and MACE is run again on the
draw; a worker's interval is the percentile interval of their competence over the replicates in
which they answered something. A worker of few items gets a wide interval, one of many a narrow
one: the width says how much the point estimate rests on.

Replicates are many runs of MACE: each gets fewer restarts than a full run (one by default) and
its own seed drawn from ``seed``, so that the whole is reproducible.

The plain percentile interval under-covers: MACE's estimate is drawn toward its prior, so the
replicates are centred off the true competence. In simulated studies of MACE's own model (20
workers, 100 items of 3 labels, 5 answers each) the 2.5th–97.5th percentiles held the true
competence for 92.2% of 400 workers at 200 replicates (``bench/quality/rules_simulation.py
--plain``). An interval of nominal level ``level`` therefore reads the percentiles of the wider
level ``percentile_level(level)`` (0.95: the 1st–99th percentiles), calibrated by that
simulation: 95.8% (``bench/quality/rules_simulation.py``).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.methods.codes import factorize
from analysis.methods.mace.checks import code_array, code_count
from analysis.methods.mace.estimator import DEFAULT_ITERATIONS, mace

# Enough for the 1st and 99th percentiles to rest on two replicates each.
DEFAULT_REPLICATES = 200
DEFAULT_REPLICATE_RESTARTS = 1
DEFAULT_LEVEL = 0.95
# How much of the nominal tail mass the calibrated interval leaves out (see the module's text).
TAIL_SHARE = 0.4


def percentile_level(level: float) -> float:
    """The level of the percentile interval that a competence interval of nominal ``level``
    reads: its tails shrunk to ``TAIL_SHARE`` of the nominal ones (0.95 → 0.98)."""
    return 1 - (1 - level) * TAIL_SHARE


@dataclass(frozen=True)
class CompetenceIntervals:
    """Per worker code: the interval's ends (NaN for a worker absent from every replicate) and
    the replicates the worker took part in."""

    low: np.ndarray  # (n_workers,)
    high: np.ndarray  # (n_workers,)
    present: np.ndarray  # (n_workers,) replicates in which the worker answered a drawn item
    replicates: int
    level: float  # nominal
    percentile_level: float = 0.0  # the percentiles read (``percentile_level(level)``)


def _replicates(items: np.ndarray, workers: np.ndarray, labels: np.ndarray, *, n_workers: int, n_labels: int,
                replicates: int, restarts: int, iterations: int, em: bool, seed: int | None,
                max_memory: int | None) -> Iterator[np.ndarray]:
    """Each replicate's competence per worker code (NaN for a worker the draw left out), in the
    order ``competence_intervals`` reads them: whoever stops early has seen the same draws."""
    # The annotations grouped by item: item k's are order[starts[k]:starts[k] + sizes[k]].
    order = np.argsort(items, kind="stable")
    annotated, sizes = np.unique(items[order], return_counts=True)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    n_drawn = len(annotated)
    rng = np.random.default_rng(seed)
    for _ in range(replicates):
        drawn = rng.integers(0, n_drawn, size=n_drawn)
        counts = sizes[drawn]
        total = int(counts.sum())
        # Position of each annotation within its drawn item, laid out without a Python loop.
        within = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
        rows = order[np.repeat(starts[drawn], counts) + within]
        sample_items = np.repeat(np.arange(n_drawn), counts)
        sample_workers = workers[rows]
        # Only the workers of the draw enter the run: an absent worker's competence would be its prior.
        present = np.bincount(sample_workers, minlength=n_workers) > 0
        recode = np.cumsum(present) - 1
        result = mace(sample_items, recode[sample_workers], labels[rows], n_items=n_drawn,
                      n_workers=int(present.sum()), n_labels=n_labels, em=em, iterations=iterations,
                      restarts=restarts, seed=int(rng.integers(0, 2**32)), threads=1, max_memory=max_memory)
        values = np.full(n_workers, np.nan)
        values[present] = result.competence
        yield values


def _checked(items: np.ndarray, workers: np.ndarray, labels: np.ndarray, *, n_workers: int | None,
             n_labels: int | None, replicates: int, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    items, workers, labels = (code_array(name, values) for name, values in
                              (("items", items), ("workers", workers), ("labels", labels)))
    if not len(items) == len(workers) == len(labels):
        raise ValueError(f"items, workers and labels differ in length: {len(items)}, {len(workers)}, {len(labels)}")
    if len(items) == 0:
        raise ValueError("no annotations")
    if replicates < 1:
        raise ValueError(f"replicates must be at least 1, got {replicates}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    return (items, workers, labels, code_count("n_workers", n_workers, workers),
            code_count("n_labels", n_labels, labels))


def _ends(values: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The interval's ends over replicates (rows) per worker (columns): NaN where none saw them."""
    seen = np.sum(~np.isnan(values), axis=0)
    low, high = np.full(values.shape[1], np.nan), np.full(values.shape[1], np.nan)
    if seen.any():
        tail = 100 * (1 - percentile_level(level)) / 2
        low[seen > 0], high[seen > 0] = np.nanpercentile(values[:, seen > 0], [tail, 100 - tail], axis=0)
    return low, high


def competence_intervals(
    items: np.ndarray,
    workers: np.ndarray,
    labels: np.ndarray,
    *,
    n_workers: int | None = None,
    n_labels: int | None = None,
    replicates: int = DEFAULT_REPLICATES,
    level: float = DEFAULT_LEVEL,
    restarts: int = DEFAULT_REPLICATE_RESTARTS,
    iterations: int = DEFAULT_ITERATIONS,
    em: bool = False,
    seed: int | None = 0,
    max_memory: int | None = None,
) -> CompetenceIntervals:
    """Intervals of nominal ``level`` of each worker's competence over ``replicates`` MACE runs
    on items drawn with replacement: the percentiles of ``percentile_level(level)``. Codes as
    for :func:`analysis.methods.mace.mace`."""
    items, workers, labels, n_workers, n_labels = _checked(items, workers, labels, n_workers=n_workers,
                                                           n_labels=n_labels, replicates=replicates, level=level)
    values = np.stack(list(_replicates(items, workers, labels, n_workers=n_workers, n_labels=n_labels,
                                       replicates=replicates, restarts=restarts, iterations=iterations, em=em,
                                       seed=seed, max_memory=max_memory)))
    low, high = _ends(values, level)
    return CompetenceIntervals(low=low, high=high, present=np.sum(~np.isnan(values), axis=0),
                               replicates=replicates, level=level, percentile_level=percentile_level(level))


def competence_high_below(
    items: np.ndarray,
    workers: np.ndarray,
    labels: np.ndarray,
    *,
    worker: int,
    threshold: float,
    n_workers: int | None = None,
    n_labels: int | None = None,
    replicates: int = DEFAULT_REPLICATES,
    level: float = DEFAULT_LEVEL,
    restarts: int = DEFAULT_REPLICATE_RESTARTS,
    iterations: int = DEFAULT_ITERATIONS,
    em: bool = False,
    seed: int | None = 0,
    max_memory: int | None = None,
) -> bool:
    """Whether worker code ``worker``'s interval from :func:`competence_intervals` (same
    arguments) ends below ``threshold``: what the competence rule decides on. Stops drawing as
    soon as enough replicates reach ``threshold`` to put the upper percentile there, which the
    rest cannot undo; the answer is always the full computation's."""
    items, workers, labels, n_workers, n_labels = _checked(items, workers, labels, n_workers=n_workers,
                                                           n_labels=n_labels, replicates=replicates, level=level)
    if not 0 <= worker < n_workers:
        raise ValueError(f"worker must be a code below {n_workers}, got {worker}")
    # The upper percentile of n values sits at sorted position floor((n - 1) q) or above: once
    # n - floor((n - 1) q) values reach the threshold it does too. That count never falls as n
    # grows, so the count for all the replicates is enough for however many see the worker.
    needed = replicates - math.floor((replicates - 1) * (1 - (1 - percentile_level(level)) / 2))
    kept: list[float] = []
    for values in _replicates(items, workers, labels, n_workers=n_workers, n_labels=n_labels,
                              replicates=replicates, restarts=restarts, iterations=iterations, em=em,
                              seed=seed, max_memory=max_memory):
        kept.append(float(values[worker]))
        if sum(value >= threshold for value in kept) >= needed:
            return False
    high = _ends(np.array(kept)[:, None], level)[1][0]
    return bool(high < threshold)


def competence_intervals_frame(frame: pd.DataFrame, *, item: str = "item", worker: str = "worker",
                               label: str = "label", **options: Any) -> pd.DataFrame:
    """:func:`competence_intervals` over a long frame: one row per worker (indexed by the
    frame's worker ids) with ``low``, ``high`` and ``present``; ``options`` are the function's."""
    missing = [c for c in (item, worker, label) if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks column(s) {missing}; it has {list(frame.columns)}")
    codes: list[np.ndarray] = []
    worker_ids: pd.Index = pd.Index([])
    for column in (item, worker, label):
        found, uniques = factorize(frame[column])
        if (found < 0).any():
            raise ValueError(f"column {column!r} is empty in row {frame.index[int(np.argmax(found < 0))]!r}")
        codes.append(found)
        if column == worker:
            worker_ids = pd.Index(uniques)
    result = competence_intervals(*codes, n_workers=len(worker_ids), **options)
    ids: list[Hashable] = list(worker_ids)
    return pd.DataFrame({"low": result.low, "high": result.high, "present": result.present},
                        index=pd.Index(ids, name=worker))
