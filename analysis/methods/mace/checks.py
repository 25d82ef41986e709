"""Checks of MACE's input: codes, counts, options and controls, each failing with a message
that names the offending value."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from analysis.methods.codes import stable_argsort


def code_array(name: str, values: ArrayLike) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        raise ValueError(
            f"{name} must hold integer codes, got dtype {array.dtype} (use mace_frame for ids)"
        )
    array = array.astype(np.int64, copy=False)
    if array.size and array.min() < 0:
        raise ValueError(f"{name} holds a negative code at position {int(np.argmax(array < 0))}")
    return array


def code_count(name: str, given: int | None, codes: np.ndarray) -> int:
    needed = int(codes.max()) + 1
    if given is None:
        return needed
    if given < needed:
        raise ValueError(f"{name}={given} but the codes go up to {needed - 1}")
    return int(given)


def reject_duplicates(items: np.ndarray, workers: np.ndarray, n_workers: int) -> None:
    # MACE's model has one answer per worker and item; a repeat is a data error upstream.
    keys = items * n_workers + workers
    order = stable_argsort(keys, bound=(int(items.max()) + 1) * n_workers)
    same = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    if same.size:
        first, second = order[same[0]], order[same[0] + 1]
        raise ValueError(
            f"worker {workers[first]} annotated item {items[first]} twice (annotations {first} and {second})"
        )


def check_options(
    *,
    em: bool,
    alpha: float,
    beta: float,
    iterations: int,
    restarts: int,
    smoothing: float,
    threshold: float,
) -> None:
    if not em and not (alpha > 0 and beta > 0):
        raise ValueError(f"alpha and beta must be positive, got {alpha} and {beta}")
    if iterations < 0:
        raise ValueError(f"iterations must be at least 0, got {iterations}")
    if restarts < 1:
        raise ValueError(f"restarts must be at least 1, got {restarts}")
    if not smoothing >= 0:
        raise ValueError(f"smoothing must be at least 0, got {smoothing}")
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be between 0 and 1, got {threshold}")


def controls_array(controls: ArrayLike, n_items: int, n_labels: int) -> np.ndarray:
    array = np.asarray(controls)
    if array.shape != (n_items,) or (array.size and not np.issubdtype(array.dtype, np.integer)):
        raise ValueError(
            f"controls must be {n_items} integer label codes (-1 for none), got shape {array.shape} dtype {array.dtype}"
        )
    bad = np.flatnonzero((array < -1) | (array >= n_labels))
    if bad.size:
        raise ValueError(
            f"control for item {bad[0]} is {array[bad[0]]}, not a label code below {n_labels} or -1"
        )
    return array.astype(np.int64)
