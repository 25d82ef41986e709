"""Vote-share figures per item: the share of high-confidence items (at least ``m - slack`` of
``m`` ratings agree) and, for binary questions, how many got 0, 1, ..., m positive votes.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

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
    Categories,
    EncodedFrame,
    ItemLabelCounts,
    ensure_encoded,
    item_label_counts,
)


@dataclass(frozen=True)
class HighConfidence:
    """Share of items where at least ``m - slack`` of their ``m`` ratings agree (``m >= min_ratings``)."""

    share: float
    n_high: int
    n_items: int  # items with at least min_ratings ratings
    slack: int
    min_ratings: int
    interval: Interval | None = None


@dataclass(frozen=True)
class PositiveVotes:
    """For binary questions: ``counts[m][k]`` questions with ``m`` ratings got ``k`` positive votes."""

    counts: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    n_questions: int = 0

    def to_dict(self) -> dict[str, list[int]]:
        return {str(m): list(row) for m, row in sorted(self.counts.items())}


def high_confidence_statistic(
    counts: ItemLabelCounts, *, slack: int, min_ratings: int
) -> ItemAdditive:
    if slack < 0 or min_ratings < 1:
        raise ValueError("slack must be >= 0 and min_ratings >= 1")
    starts = np.flatnonzero(np.r_[True, counts.item[1:] != counts.item[:-1]])
    majority = np.zeros(counts.n_items, dtype=np.int64)
    majority[counts.item[starts]] = np.maximum.reduceat(counts.count, starts)
    eligible = counts.ratings >= min_ratings
    high = eligible & (majority >= counts.ratings - slack)
    totals = np.array([high.sum(), eligible.sum()], dtype=float)

    def build() -> sparse.csr_matrix:
        return sparse.csr_matrix(np.column_stack([high, eligible]).astype(float))

    def finalize(sums: np.ndarray) -> dict[str, np.ndarray]:
        return {"value": safe_divide(sums[:, 0], sums[:, 1])}

    return ItemAdditive(totals, build, finalize)


def high_confidence_share(
    frame: pd.DataFrame | EncodedFrame,
    *,
    slack: int = 1,
    min_ratings: int = 3,
    n_boot: int = 0,
    seed: int | None = None,
    confidence: float = 0.95,
) -> HighConfidence:
    """Share of items on which at least ``m - slack`` of their ``m`` ratings agree.

    Only items with ``m >= min_ratings`` count: with two ratings "at least one of two agrees"
    holds trivially.
    """
    counts = item_label_counts(ensure_encoded(frame))
    return high_confidence_result(
        counts,
        slack=slack,
        min_ratings=min_ratings,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
    )


def high_confidence_result(
    counts: ItemLabelCounts,
    *,
    slack: int,
    min_ratings: int,
    n_boot: int = 0,
    seed: int | None = None,
    confidence: float = 0.95,
    interval: Interval | None = None,
) -> HighConfidence:
    statistic = high_confidence_statistic(counts, slack=slack, min_ratings=min_ratings)
    if interval is None:
        interval = single_interval(
            statistic, counts.n_items, n_boot=n_boot, seed=seed, confidence=confidence
        )
    high, eligible = statistic.totals
    return HighConfidence(
        share=statistic.point()["value"],
        n_high=int(high),
        n_items=int(eligible),
        slack=slack,
        min_ratings=min_ratings,
        interval=interval,
    )


def positive_votes(
    frame: pd.DataFrame | EncodedFrame, *, options: Sequence[Hashable] | None = None
) -> PositiveVotes:
    """How many binary questions with ``m`` ratings got ``0, 1, ..., m`` positive votes.

    With 0/1 or boolean labels each item is one binary question. With set-valued labels each
    (item, option) is a question whose positive votes are the annotations that chose the option;
    ``options`` lists the options offered (default: every option chosen anywhere in the frame),
    so options nobody chose on an item count as questions with zero positive votes.
    """
    encoded = ensure_encoded(frame)
    if encoded.kind == "sets":
        universe = (
            list(options)
            if options is not None
            else sorted(set().union(*encoded.categories), key=str)
        )
        index = {option: position for position, option in enumerate(universe)}
        unknown = set().union(*encoded.categories) - index.keys()
        if unknown:
            raise ValueError(f"options {sorted(map(str, unknown))} are chosen but not in `options`")
        # A sparse product gives votes per (item, option) without expanding annotations to rows.
        member_rows = [code for code, answer in enumerate(encoded.categories) for _ in answer]
        member_cols = [index[option] for answer in encoded.categories for option in answer]
        membership = sparse.csr_matrix(
            (np.ones(len(member_rows)), (member_rows, member_cols)),
            shape=(encoded.n_categories, len(universe)),
        )
        label_counts = item_label_counts(encoded)
        per_item = sparse.csr_matrix(
            (label_counts.count.astype(float), (label_counts.item, label_counts.label)),
            shape=(label_counts.n_items, encoded.n_categories),
        )
        chosen = (per_item @ membership).tocoo()
        question_ratings = encoded.ratings[chosen.row]
        positives = chosen.data.astype(np.int64)
        # Options never chosen on an item are questions with zero positive votes.
        unchosen = len(universe) - np.bincount(chosen.row, minlength=encoded.n_items)
        zero_ratings, zero_weights = encoded.ratings, unchosen
    else:
        positive = _positive_codes(encoded.categories)
        positives = np.bincount(
            encoded.item, weights=positive[encoded.label], minlength=encoded.n_items
        ).astype(np.int64)
        question_ratings = encoded.ratings
        zero_ratings, zero_weights = np.empty(0, np.int64), np.empty(0, np.int64)
    # Sparse over (m, k): an item rated by thousands (a gold question) must not size a table.
    stride = np.int64(encoded.ratings.max()) + 1
    keys, where = np.unique(
        np.concatenate([question_ratings * stride + positives, zero_ratings * stride]),
        return_inverse=True,
    )
    totals = np.bincount(
        where, weights=np.concatenate([np.ones(question_ratings.size), zero_weights])
    ).astype(np.int64)
    rows: dict[int, list[int]] = {}
    for key, total in zip(keys.tolist(), totals.tolist(), strict=True):
        m, k = divmod(key, int(stride))
        rows.setdefault(m, [0] * (m + 1))[k] += total
    counts = {m: tuple(row) for m, row in rows.items() if any(row)}
    return PositiveVotes(counts=counts, n_questions=int(totals.sum()))


def _positive_codes(categories: Categories) -> np.ndarray:
    values = [
        bool(c) if isinstance(c, bool | np.bool_) or c in (0, 1) else None for c in categories
    ]
    if any(v is None for v in values):
        raise ValueError(
            "positive votes need binary labels (0/1 or True/False) or set-valued labels; "
            f"got {list(categories)[:5]!r}"
        )
    return np.array(values, dtype=float)


def has_binary_labels(categories: Categories) -> bool:
    try:
        _positive_codes(categories)
    except ValueError:
        return False
    return True
