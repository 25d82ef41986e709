"""The distribution of questions by number of positive votes (Figure 1 of Mirkin et al., EMNLP
2018), with a bootstrap interval for every share: speeches are resampled with all their
questions, as for the other comprehension figures."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse

from analysis.methods.agreement.bootstrap import ItemAdditive, bootstrap_intervals, safe_divide


def vote_distribution(votes: pd.DataFrame, *, n_boot: int = 200, seed: int | None = 0,
                      confidence: float = 0.95) -> dict[str, dict[str, list]]:
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

        def finalize(sums: np.ndarray, j=j, same_m=same_m) -> dict[str, np.ndarray]:
            return {"value": safe_divide(sums[:, j], sums[:, same_m].sum(axis=1))}

        statistics[f"{m}:{_k}"] = ItemAdditive(totals=totals, build=build, finalize=finalize)
    intervals = bootstrap_intervals(statistics, n_speeches, n_boot=n_boot, seed=seed, confidence=confidence)
    out: dict[str, dict[str, list]] = {}
    for m in sorted({m for m, _ in cells}):
        counts = [int(totals[index[(m, k)]]) for k in range(m + 1)]
        total = sum(counts)
        out[str(m)] = {
            "counts": counts,
            "shares": [c / total if total else None for c in counts],
            "intervals": [list(intervals[f"{m}:{k}"]) if f"{m}:{k}" in intervals else None for k in range(m + 1)],
        }
    return out
