"""The long frame (item, worker, label) as integer codes, and the matrices agreement figures need.

Every figure in the agreement modules starts from an :class:`EncodedFrame`: items, workers and
labels become dense integer codes (``pd.factorize``), rows are sorted once by (item, worker), and
counts are built with ``np.bincount`` — no Python loop touches single annotations, so a project
with a million annotations encodes in well under a second.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import sparse

from analysis.methods.codes import factorize, stable_argsort

LONG_COLUMNS = ("item", "worker", "label")
LabelKind = Literal["plain", "sets"]
# The label behind each code: a value, or a frozenset of options for set-valued answers. Any
# type a frame holds; order and conversion to float are tried (TypeError says they fail).
Categories = tuple[Any, ...]

_SET_TYPES = (frozenset, set, tuple, list)
# A dense items × categories table above this many cells would cost more than 400 MB.
_DENSE_CELL_LIMIT = 50_000_000


class FrameError(ValueError):
    """Input that is not a usable long frame; ``row`` (0-based position) and ``column`` say where."""

    def __init__(self, message: str, *, row: int | None = None, column: str | None = None):
        super().__init__(message)
        self.row = row
        self.column = column


@dataclass(frozen=True, eq=False)
class EncodedFrame:
    """A long frame as codes: row ``r`` is worker ``worker[r]`` giving ``label[r]`` to ``item[r]``.

    ``categories[c]`` is the label behind code ``c``; for set-valued answers each category is a
    frozenset of options. ``ordered`` says whether code order is a meaningful order of the labels
    (numbers, or an order the caller gave), which ordinal and weighted figures need.
    """

    item: np.ndarray
    worker: np.ndarray
    label: np.ndarray
    items: pd.Index
    workers: pd.Index
    categories: Categories
    kind: LabelKind
    ordered: bool

    @property
    def n_annotations(self) -> int:
        return int(self.item.size)

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_workers(self) -> int:
        return len(self.workers)

    @property
    def n_categories(self) -> int:
        return len(self.categories)

    @cached_property
    def ratings(self) -> np.ndarray:
        """Number of annotations per item code."""
        return np.bincount(self.item, minlength=self.n_items)

    @cached_property
    def by_item(self) -> np.ndarray:
        """Row positions sorted by item, then worker (so pairs within an item come out ordered)."""
        return stable_argsort(
            self.item * np.int64(self.n_workers) + self.worker,
            bound=self.n_items * self.n_workers,
        )

    def category_values(self) -> np.ndarray:
        """Categories as floats, for interval and ratio distances."""
        try:
            return np.array([float(c) for c in self.categories], dtype=float)
        except (TypeError, ValueError):
            raise ValueError(
                "interval and ratio levels need numeric labels; got "
                f"{', '.join(repr(c) for c in self.categories[:5])}"
            ) from None


def encode_frame(
    frame: pd.DataFrame, *, categories: Sequence[Hashable] | None = None
) -> EncodedFrame:
    """Encode a long frame with columns item, worker, label (extra columns are ignored).

    ``categories`` fixes the label domain and its order (e.g. ``["low", "mid", "high"]``); labels
    outside it are an error. Without it the domain is the sorted set of labels seen. Labels that
    are frozensets, sets, tuples or lists are set-valued answers (order and repeats inside one
    answer do not matter). One annotation per (item, worker) is required: a repeated pair would
    count a worker as agreeing with themself.
    """
    missing = [column for column in LONG_COLUMNS if column not in frame.columns]
    if missing:
        raise FrameError(
            f"missing column(s) {', '.join(missing)}; the long frame needs item, worker, label",
            column=missing[0],
        )
    if len(frame) == 0:
        raise FrameError("no annotations: the frame has no rows")
    item, items = _factorize(frame["item"], "item")
    worker, workers = _factorize(frame["worker"], "worker")
    label, label_categories, kind, ordered = _encode_labels(frame["label"], categories)
    encoded = EncodedFrame(
        item=item,
        worker=worker,
        label=label,
        items=pd.Index(items),
        workers=pd.Index(workers),
        categories=label_categories,
        kind=kind,
        ordered=ordered,
    )
    _reject_repeated_annotations(encoded)
    return encoded


def ensure_encoded(
    frame: pd.DataFrame | EncodedFrame, *, categories: Sequence[Hashable] | None = None
) -> EncodedFrame:
    if isinstance(frame, EncodedFrame):
        if categories is not None and tuple(categories) != frame.categories:
            raise ValueError(
                "categories are fixed when the frame is encoded; pass them to encode_frame"
            )
        return frame
    return encode_frame(frame, categories=categories)


def _factorize(column: pd.Series, name: str) -> tuple[np.ndarray, np.ndarray | pd.Index]:
    codes, uniques = factorize(column)
    if (codes < 0).any():
        raise FrameError(f"missing {name}", row=int(np.flatnonzero(codes < 0)[0]), column=name)
    return codes.astype(np.int64, copy=False), uniques


def _encode_labels(
    column: pd.Series, categories: Sequence[Hashable] | None
) -> tuple[np.ndarray, Categories, LabelKind, bool]:
    try:
        codes, found = factorize(column)
    except TypeError:  # lists and sets are unhashable: one pass to make them frozensets
        column = column.map(lambda v: frozenset(v) if isinstance(v, list | set) else v)
        codes, found = factorize(column)
    if (codes < 0).any():
        raise FrameError("missing label", row=int(np.flatnonzero(codes < 0)[0]), column="label")
    uniques: list[Any] = list(found)
    is_set = np.array([isinstance(value, _SET_TYPES) for value in uniques])
    if is_set.any() and not is_set.all():
        minority = is_set if is_set.sum() * 2 < is_set.size else ~is_set
        odd = int(np.flatnonzero(minority)[0])
        raise FrameError(
            f"labels mix set-valued answers and single values (e.g. {uniques[odd]!r})",
            row=int(np.flatnonzero(codes == odd)[0]),
            column="label",
        )
    if is_set.all():
        if categories is not None:
            raise ValueError("categories cannot be given for set-valued labels")
        return _encode_sets(codes, uniques)
    if categories is not None:
        position = {category: index for index, category in enumerate(categories)}
        if len(position) != len(categories):
            raise ValueError("categories contain duplicates")
        mapping = np.array([position.get(value, -1) for value in uniques], dtype=np.int64)
        if (mapping < 0).any():
            unknown = int(np.flatnonzero(mapping < 0)[0])
            raise FrameError(
                f"label {uniques[unknown]!r} is not one of the categories {list(categories)!r}",
                row=int(np.flatnonzero(codes == unknown)[0]),
                column="label",
            )
        return mapping[codes], tuple(categories), "plain", True
    try:
        order = sorted(range(len(uniques)), key=uniques.__getitem__)
        numeric = all(isinstance(value, int | float | np.number) for value in uniques)
    except TypeError:  # mixed types have no order: keep first appearance, usable as nominal only
        order, numeric = list(range(len(uniques))), False
    mapping = np.empty(len(uniques), dtype=np.int64)
    mapping[order] = np.arange(len(uniques))
    labels = tuple(_plain(uniques[index]) for index in order)
    return mapping[codes], labels, "plain", numeric


def _encode_sets(
    codes: np.ndarray, uniques: list[Any]
) -> tuple[np.ndarray, Categories, LabelKind, bool]:
    canonical = [frozenset(value) for value in uniques]
    # Tuples ('a', 'b') and ('b', 'a') are one answer; sort for a stable, readable order.
    distinct = sorted(set(canonical), key=lambda s: (len(s), sorted(map(str, s))))
    position = {value: index for index, value in enumerate(distinct)}
    mapping = np.array([position[value] for value in canonical], dtype=np.int64)
    return mapping[codes], tuple(distinct), "sets", False


def _plain(value: Hashable) -> Hashable:
    return value.item() if isinstance(value, np.generic) else value


def _reject_repeated_annotations(encoded: EncodedFrame) -> None:
    order = encoded.by_item
    sorted_item, sorted_worker = encoded.item[order], encoded.worker[order]
    repeated = np.flatnonzero(
        (sorted_item[1:] == sorted_item[:-1]) & (sorted_worker[1:] == sorted_worker[:-1])
    )
    if repeated.size:
        first, second = int(order[repeated[0]]), int(order[repeated[0] + 1])
        raise FrameError(
            f"worker {encoded.workers[encoded.worker[first]]!r} annotated item "
            f"{encoded.items[encoded.item[first]]!r} twice (rows {first} and {second}); "
            "agreement needs one annotation per (item, worker)",
            row=max(first, second),
        )


@dataclass(frozen=True)
class ItemLabelCounts:
    """Sparse items × categories counts: ``count[t]`` annotations gave ``label[t]`` to ``item[t]``.

    Entries are sorted by item; ``ratings`` holds the annotations per item (all items).
    """

    item: np.ndarray
    label: np.ndarray
    count: np.ndarray
    ratings: np.ndarray
    n_categories: int

    @property
    def n_items(self) -> int:
        return int(self.ratings.size)


def item_label_counts(encoded: EncodedFrame) -> ItemLabelCounts:
    """Count annotations per (item, category) without materialising empty cells."""
    n_items, n_categories = encoded.n_items, encoded.n_categories
    key = encoded.item * np.int64(n_categories) + encoded.label
    if n_items * n_categories <= _DENSE_CELL_LIMIT:
        flat = np.bincount(key, minlength=n_items * n_categories)
        present = np.flatnonzero(flat)
        cells, counts = present, flat[present]
    else:
        cells, counts = np.unique(key, return_counts=True)
    return ItemLabelCounts(
        item=cells // n_categories,
        label=cells % n_categories,
        count=counts.astype(np.int64, copy=False),
        ratings=encoded.ratings,
        n_categories=n_categories,
    )


def counts_from_table(counts: ArrayLike) -> ItemLabelCounts:
    """The sparse counts of a published items × categories table (rows with no ratings dropped)."""
    table = np.asarray(counts)
    if table.ndim != 2:
        raise ValueError(f"counts must be a 2-D items × categories table, got shape {table.shape}")
    if (table < 0).any():
        raise ValueError("counts must not be negative")
    table = table[table.sum(axis=1) > 0]
    item, label = np.nonzero(table)
    return ItemLabelCounts(
        item=item,
        label=label,
        count=table[item, label],
        ratings=table.sum(axis=1),
        n_categories=table.shape[1],
    )


def item_category_counts(encoded: EncodedFrame) -> np.ndarray:
    """Dense items × categories count matrix (the input of statsmodels' ``fleiss_kappa``)."""
    if encoded.n_items * encoded.n_categories > _DENSE_CELL_LIMIT:
        raise ValueError(
            f"{encoded.n_items} items × {encoded.n_categories} categories is too large to hold "
            "densely; use item_category_counts_sparse"
        )
    flat = np.bincount(
        encoded.item * np.int64(encoded.n_categories) + encoded.label,
        minlength=encoded.n_items * encoded.n_categories,
    )
    return flat.reshape(encoded.n_items, encoded.n_categories)


def item_category_counts_sparse(encoded: EncodedFrame) -> sparse.csr_matrix:
    counts = item_label_counts(encoded)
    return sparse.csr_matrix(
        (counts.count, (counts.item, counts.label)), shape=(encoded.n_items, encoded.n_categories)
    )


def reliability_matrix(encoded: EncodedFrame) -> np.ndarray:
    """Dense workers × items matrix of category codes, NaN where a worker did not rate an item.

    This is the ``reliability_data`` layout of the krippendorff package. It grows with
    workers × items (2,000 × 200,000 is 3.2 GB), so the figures here never build it.
    """
    matrix = np.full((encoded.n_workers, encoded.n_items), np.nan)
    matrix[encoded.worker, encoded.item] = encoded.label
    return matrix


def within_item_pairs(encoded: EncodedFrame) -> tuple[np.ndarray, np.ndarray]:
    """Row positions ``(first, second)`` of every unordered pair of annotations on the same item.

    ``worker[first] < worker[second]`` always holds.
    """
    order = encoded.by_item
    first, second = pairs_within_runs(encoded.item[order])
    return order[first], order[second]


def pairs_within_runs(sorted_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions ``(i, j)``, ``i < j``, of every pair of equal entries in a sorted array.

    The work is proportional to the number of pairs: the loop runs once per offset within a run,
    each pass over only the entries that still have a partner that far ahead.
    """
    n = sorted_keys.size
    if n == 0:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty
    run_starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    run_sizes = np.diff(np.r_[run_starts, n])
    run_of = np.repeat(np.arange(run_starts.size), run_sizes)
    partners_ahead = run_sizes[run_of] - (np.arange(n) - run_starts[run_of]) - 1
    candidates = np.flatnonzero(partners_ahead > 0)
    firsts, seconds = [np.empty(0, dtype=np.int64)], [np.empty(0, dtype=np.int64)]
    offset = 1
    while candidates.size:
        firsts.append(candidates)
        seconds.append(candidates + offset)
        offset += 1
        candidates = candidates[partners_ahead[candidates] >= offset]
    return np.concatenate(firsts), np.concatenate(seconds)
