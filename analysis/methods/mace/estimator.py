"""MACE over integer codes (:func:`mace`) or over a long frame (:func:`mace_frame`), and their
results. The model, its options and where it departs from the original tool are described in
the package docstring (:mod:`analysis.methods.mace`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TypedDict, Unpack

import numpy as np
import pandas as pd

from analysis.methods.codes import factorize
from analysis.methods.mace.checks import (
    check_options,
    code_array,
    code_count,
    controls_array,
    reject_duplicates,
)
from analysis.methods.mace.em import block_threads, run_restarts
from analysis.methods.mace.layout import (
    DEFAULT_MAX_MEMORY,
    build_layout,
    check_memory,
)
from analysis.methods.mace.sparse import SparseRows, sparse_rows

DEFAULT_ITERATIONS = 50
DEFAULT_RESTARTS = 10
DEFAULT_ALPHA = 0.5
DEFAULT_BETA = 0.5
NO_LABEL = -1


class MaceOptions(TypedDict, total=False):
    """The options of :func:`mace` that :func:`mace_frame` passes on."""

    em: bool
    alpha: float
    beta: float
    iterations: int
    restarts: int
    smoothing: float | None
    threshold: float
    seed: int | None
    threads: int | None
    max_memory: int | None


@dataclass(frozen=True)
class MaceResult:
    """MACE over integer codes. Arrays are read-only; items, workers, labels are 0-based codes."""

    labels: np.ndarray  # (n_items,) label code, NO_LABEL when thresholded or unannotated
    entropies: np.ndarray  # (n_items,) entropy of the posterior, in nats
    kept: np.ndarray  # (n_items,) bool: among the most certain `threshold` fraction
    competence: np.ndarray  # (n_workers,) P(knows the answer)
    # (n_workers,) P(guesses): 1 - competence under EM; under VB both are variational weights
    # (exp E[log p]) and sum to less than 1. With strategies, the full model:
    # P(answer k | truth l) = guessing * strategies[:, k] + competence * (k == l).
    guessing: np.ndarray
    ranking: np.ndarray  # (n_workers,) worker codes, most competent first
    log_likelihood: float  # of the chosen restart
    restart_log_likelihoods: np.ndarray  # (restarts,)
    best_restart: int
    # items x labels, P(true label | annotations): listed for the labels an item was given (and
    # a control's label), one shared value for the others.
    item_posteriors: SparseRows
    # workers x labels, the label distribution when guessing: listed for the labels a worker
    # gave, one shared value for the others (with iterations=0, the mean of their random
    # starting values).
    worker_strategies: SparseRows
    max_memory: int = field(default=DEFAULT_MAX_MEMORY, repr=False)

    @cached_property
    def posteriors(self) -> np.ndarray:
        """(n_items, n_labels), dense: MaceTooLarge beyond max_memory (use item_posteriors)."""
        return _frozen(self.item_posteriors.toarray(max_memory=self.max_memory))

    @cached_property
    def strategies(self) -> np.ndarray:
        """(n_workers, n_labels), dense: MaceTooLarge beyond max_memory (use worker_strategies)."""
        return _frozen(self.worker_strategies.toarray(max_memory=self.max_memory))


@dataclass(frozen=True)
class MaceFrameResult:
    """MACE keyed by the frame's own item, worker and label values."""

    labels: pd.Series  # item -> label, None when thresholded
    entropies: pd.Series  # item -> entropy (nats)
    kept: pd.Series  # item -> bool
    competence: pd.Series  # worker -> competence
    ranking: pd.Index  # workers, most competent first
    log_likelihood: float
    arrays: MaceResult  # the same result over codes (item_ids[code] etc.)
    label_ids: pd.Index  # label values by code

    @cached_property
    def posteriors(self) -> pd.DataFrame:
        """items x labels, dense (see MaceResult.posteriors)."""
        return pd.DataFrame(self.arrays.posteriors, index=self.labels.index, columns=self.label_ids)

    @cached_property
    def strategies(self) -> pd.DataFrame:
        """workers x labels, dense (see MaceResult.strategies)."""
        return pd.DataFrame(
            self.arrays.strategies, index=self.competence.index, columns=self.label_ids
        )


def mace(
    items: np.ndarray,
    workers: np.ndarray,
    labels: np.ndarray,
    *,
    n_items: int | None = None,
    n_workers: int | None = None,
    n_labels: int | None = None,
    em: bool = False,
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
    iterations: int = DEFAULT_ITERATIONS,
    restarts: int = DEFAULT_RESTARTS,
    smoothing: float | None = None,
    threshold: float = 1.0,
    controls: np.ndarray | None = None,
    seed: int | None = None,
    threads: int | None = None,
    max_memory: int | None = None,
) -> MaceResult:
    """Run MACE on annotations given as three parallel arrays of 0-based codes.

    ``controls`` has one entry per item: the known label code, or -1. ``smoothing`` (EM only)
    defaults to 0.01 / n_labels. ``seed`` makes the restarts reproducible; ``threads`` caps the
    threads that run blocks of restarts (default: one per core). A run that would need more than
    ``max_memory`` bytes (default DEFAULT_MAX_MEMORY, 4 GiB; see :func:`memory_estimate`) raises
    MaceTooLarge before allocating anything large.
    """
    items = code_array("items", items)
    workers = code_array("workers", workers)
    labels = code_array("labels", labels)
    if not len(items) == len(workers) == len(labels):
        raise ValueError(
            f"items, workers and labels differ in length: {len(items)}, {len(workers)}, {len(labels)}"
        )
    if len(items) == 0:
        raise ValueError("no annotations")
    n_items = code_count("n_items", n_items, items)
    n_workers = code_count("n_workers", n_workers, workers)
    n_labels = code_count("n_labels", n_labels, labels)
    if smoothing is None:
        smoothing = 0.01 / n_labels
    check_options(
        em=em,
        alpha=alpha,
        beta=beta,
        iterations=iterations,
        restarts=restarts,
        smoothing=smoothing,
        threshold=threshold,
    )
    if controls is not None:
        controls = controls_array(controls, n_items, n_labels)
    max_memory = DEFAULT_MAX_MEMORY if max_memory is None else max_memory
    if not max_memory > 0:
        raise ValueError(f"max_memory must be a positive number of bytes, got {max_memory}")
    check_memory(
        n_annotations=len(items),
        n_items=n_items,
        n_workers=n_workers,
        n_labels=n_labels,
        restarts=restarts,
        threads=block_threads(threads, restarts),
        max_memory=max_memory,
        n_controls=0 if controls is None else int((controls >= 0).sum()),
    )
    reject_duplicates(items, workers, n_workers)

    layout = build_layout(items, workers, labels, n_items, n_workers, n_labels, controls)
    seeds = np.random.SeedSequence(seed).spawn(restarts)
    lls, best, state = run_restarts(
        layout,
        seeds,
        iterations=iterations,
        threads=threads,
        em=em,
        alpha=alpha,
        beta=beta,
        smoothing=smoothing,
    )
    # Back from the layout's order of items and workers to the caller's codes.
    item_order, worker_order = layout.items.order, layout.workers.order
    other = np.empty(n_items)
    other[item_order] = state.other_posterior
    # Divide once more, as the original does, so that a certain item is exactly 1 and 0s.
    posteriors = sparse_rows(
        (n_items, n_labels), layout.cell_item, layout.cell_label, state.posteriors, other
    ).normalised()
    entropies = posteriors.entropy()
    kept = threshold_mask(entropies, threshold)
    decided = np.bincount(items, minlength=n_items) > 0
    if controls is not None:
        decided |= controls >= 0
    codes = np.where(decided & kept, posteriors.argmax(), NO_LABEL)
    competence, guessing, other_theta = (np.empty(n_workers) for _ in range(3))
    competence[worker_order] = state.competence
    guessing[worker_order] = state.guessing
    other_theta[worker_order] = state.other_strategy
    strategies = sparse_rows(
        (n_workers, n_labels), layout.pair_worker, layout.pair_label, state.strategies, other_theta
    )
    return MaceResult(
        labels=_frozen(codes),
        entropies=_frozen(entropies),
        kept=_frozen(kept),
        competence=_frozen(competence),
        guessing=_frozen(guessing),
        ranking=_frozen(np.argsort(-competence, kind="stable")),
        log_likelihood=float(lls[best]),
        restart_log_likelihoods=_frozen(lls),
        best_restart=best,
        item_posteriors=posteriors,
        worker_strategies=strategies,
        max_memory=max_memory,
    )


def mace_frame(
    frame: pd.DataFrame,
    *,
    item: str = "item",
    worker: str = "worker",
    label: str = "label",
    controls: Mapping[Hashable, Hashable] | pd.Series | None = None,
    **options: Unpack[MaceOptions],
) -> MaceFrameResult:
    """Run MACE on a long frame (one row per annotation); ``options`` are those of :func:`mace`.

    ``controls`` maps item ids to their known labels.
    """
    missing = [c for c in (item, worker, label) if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks column(s) {missing}; it has {list(frame.columns)}")
    # Missing values get code -1: factorizing finds them, without a pass of its own.
    (item_codes, item_ids), (worker_codes, worker_ids), (label_codes, label_ids) = (
        _factorize(frame, column) for column in (item, worker, label)
    )
    control_codes = None
    if controls is not None:
        control_codes = np.full(len(item_ids), NO_LABEL, dtype=np.int64)
        for known_item, known_label in dict(controls).items():
            at, code = (
                item_ids.get_indexer(pd.Index([known_item]))[0],
                label_ids.get_indexer(pd.Index([known_label]))[0],
            )
            if at < 0:
                raise ValueError(f"control item {known_item!r} has no annotations in the frame")
            if code < 0:
                raise ValueError(
                    f"control label {known_label!r} for item {known_item!r} is not among the labels {list(label_ids)}"
                )
            control_codes[at] = code
    result = mace(
        item_codes,
        worker_codes,
        label_codes,
        n_items=len(item_ids),
        n_workers=len(worker_ids),
        n_labels=len(label_ids),
        controls=control_codes,
        **options,
    )
    named = np.full(len(item_ids), None, dtype=object)
    has = result.labels != NO_LABEL
    named[has] = np.asarray(label_ids, dtype=object)[result.labels[has]]
    return MaceFrameResult(
        labels=pd.Series(named, index=item_ids, name=label, dtype=object),
        entropies=pd.Series(result.entropies, index=item_ids, name="entropy"),
        kept=pd.Series(result.kept, index=item_ids, name="kept"),
        competence=pd.Series(result.competence, index=worker_ids, name="competence"),
        ranking=worker_ids[result.ranking],
        log_likelihood=result.log_likelihood,
        arrays=result,
        label_ids=label_ids,
    )


def entropy(posteriors: np.ndarray) -> np.ndarray:
    """Entropy (nats) of each row of a matrix of probabilities."""
    p = np.asarray(posteriors, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(p), 0.0)
    entropies: np.ndarray = 0.0 - terms.sum(axis=1)  # 0.0 - 0.0 is +0.0, as the original writes it
    return entropies


def threshold_mask(entropies: np.ndarray, threshold: float) -> np.ndarray:
    """The original tool's cut: keep entropies <= the one at sorted position int(n * threshold).

    Callers may mark rows that are certain by construction with -inf; they count in n.
    """
    entropies = np.asarray(entropies, dtype=np.float64)
    n = len(entropies)
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be between 0 and 1, got {threshold}")
    if n == 0:
        return np.zeros(0, dtype=bool)
    pivot = n - 1 if threshold == 1.0 else int(n * threshold)
    kept: np.ndarray = entropies <= np.partition(entropies, pivot)[pivot]
    return kept


def _factorize(frame: pd.DataFrame, column: str) -> tuple[np.ndarray, pd.Index]:
    values = frame[column]
    try:
        codes, uniques = factorize(values, sort=True)
    except TypeError:  # ids of mixed, unorderable types keep their order of appearance
        codes, uniques = factorize(values)
    empty = codes < 0
    if empty.any():
        raise ValueError(f"column {column!r} is empty in row {frame.index[int(np.argmax(empty))]!r}")
    return codes, pd.Index(uniques)


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.asarray(array)
    array.flags.writeable = False
    return array

