"""Votes on the binary questions of the comprehension study (Mirkin et al., EMNLP 2018).

The checked binary frame (:func:`binary_frame`), its votes per question (:func:`question_votes`,
with the majority and high-confidence rules of :mod:`analysis.methods.comprehension`), and the
distribution of questions by number of positive votes (:func:`vote_distribution`, Figure 1 of
the paper) with a bootstrap interval for every share: speeches are resampled with all their
questions, as for the other comprehension figures."""

from __future__ import annotations

from typing import TypedDict

import numpy as np
import pandas as pd
from scipy import sparse

from analysis.methods.agreement.bootstrap import ItemAdditive, bootstrap_intervals, safe_divide

QUESTION_COLUMNS = ("item", "option", "worker", "label")


def question_votes(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (item, option), sorted: ``votes`` (positive), ``annotators`` (m), ``share``,
    ``majority`` (1 when votes > m / 2; a tie is 0) and ``high_confidence``
    (max(votes, m - votes) >= m - 1)."""
    data = binary_frame(frame)
    votes = (
        data.groupby(["item", "option"], sort=True)["label"]
        .agg(votes="sum", annotators="size")
        .reset_index()
    )
    m = votes["annotators"]
    votes["share"] = votes["votes"] / m
    votes["majority"] = (2 * votes["votes"] > m).astype(np.int64)
    votes["high_confidence"] = np.maximum(votes["votes"], m - votes["votes"]) >= m - 1
    return votes


def binary_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The columns item, option, worker, label of one mode, checked; labels as 0/1 integers."""
    missing = [column for column in QUESTION_COLUMNS if column not in frame.columns]
    if missing:
        raise ValueError(
            f"missing column(s) {', '.join(missing)}; need {', '.join(QUESTION_COLUMNS)}"
        )
    if "mode" in frame.columns and frame["mode"].nunique() > 1:
        raise ValueError("the frame holds several modes; select one (listeners and readers differ)")
    data = frame.loc[:, list(QUESTION_COLUMNS)]
    if data.empty:
        raise ValueError("no annotations: the frame has no rows")
    if data.isna().any().any():
        raise ValueError("item, option, worker and label must not be missing")
    label = data["label"]
    if not label.isin([0, 1]).all():
        raise ValueError(f"labels must be 0/1, got {sorted(map(str, set(label) - {0, 1}))[:5]}")
    if data.duplicated(["item", "option", "worker"]).any():
        row = data[data.duplicated(["item", "option", "worker"])].iloc[0]
        raise ValueError(
            f"worker {row['worker']!r} answered question ({row['item']!r}, {row['option']!r}) twice"
        )
    return data.assign(label=label.astype(np.int64))


def question_frame(data: pd.DataFrame) -> pd.DataFrame:
    """The long frame ``item, worker, label`` with one item per binary question, numbered in
    the sorted (item, option) order of :func:`question_votes` (``ngroup`` follows that order)."""
    question = data.groupby(["item", "option"], sort=True).ngroup().to_numpy()
    return pd.DataFrame({"item": question, "worker": data["worker"], "label": data["label"]})


class VoteShares(TypedDict):
    """Questions with m annotators by number of positive votes k = 0 … m."""

    counts: list[int]
    shares: list[float | None]  # None when no question has m annotators
    intervals: list[list[float] | None]  # [low, high] per share; None without a bootstrap


def vote_distribution(votes: pd.DataFrame, *, n_boot: int = 200, seed: int | None = 0,
                      confidence: float = 0.95) -> dict[str, VoteShares]:
    """``votes``: one row per question with ``item`` (speech), ``votes`` and ``annotators``
    (m), as ``question_votes`` gives it. Returns, per m (as text), the ``counts`` and ``shares``
    of questions with 0 … m positive votes and an ``intervals`` list ([low, high] per share, or
    None without a bootstrap)."""
    if votes.empty:
        return {}
    speech, _ = pd.factorize(votes["item"])
    ms = votes["annotators"].to_numpy(dtype=np.int64)
    ks = votes["votes"].to_numpy(dtype=np.int64)
    cells = sorted({(int(m), k) for m in np.unique(ms) for k in range(int(m) + 1)})
    index = {cell: j for j, cell in enumerate(cells)}
    column = np.array([index[(int(m), int(k))] for m, k in zip(ms, ks, strict=True)])
    n_speeches = int(speech.max()) + 1
    matrix = sparse.csr_matrix((np.ones(len(column)), (speech, column)), shape=(n_speeches, len(cells)))
    totals = np.asarray(matrix.sum(axis=0)).ravel()

    def build() -> sparse.csr_matrix:
        return matrix

    statistics = {}
    for j, (m, _k) in enumerate(cells):
        same_m = [i for i, (other, _) in enumerate(cells) if other == m]

        def finalize(
            sums: np.ndarray, j: int = j, same_m: list[int] = same_m
        ) -> dict[str, np.ndarray]:
            return {"value": safe_divide(sums[:, j], sums[:, same_m].sum(axis=1))}

        statistics[f"{m}:{_k}"] = ItemAdditive(totals=totals, build=build, finalize=finalize)
    intervals = bootstrap_intervals(statistics, n_speeches, n_boot=n_boot, seed=seed, confidence=confidence)
    out: dict[str, VoteShares] = {}
    for m in sorted({m for m, _ in cells}):
        counts = [int(totals[index[(m, k)]]) for k in range(m + 1)]
        total = sum(counts)
        out[str(m)] = {
            "counts": counts,
            "shares": [c / total if total else None for c in counts],
            "intervals": [list(intervals[f"{m}:{k}"]) if f"{m}:{k}" in intervals else None for k in range(m + 1)],
        }
    return out
