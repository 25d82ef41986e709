"""Bradley–Terry strengths from pairwise preferences, with bootstrap intervals.

The input is a list of *choices*: one judge shown several alternatives picked one of them. A
choice among ``k`` alternatives counts as ``k - 1`` pairwise wins of the chosen one, one over
each other alternative shown (the usual reduction of a "best of k" judgement to pairs).

Under the model, ``P(i beats j) = p_i / (p_i + p_j)``. The strengths are fitted by maximum
likelihood with Hunter's MM algorithm (Hunter 2004, "MM algorithms for generalized
Bradley–Terry models", eq. 3): ``p_i ← W_i / Σ_j n_ij / (p_i + p_j)``, where ``W_i`` is the
number of wins of ``i`` and ``n_ij`` the number of comparisons of ``i`` with ``j``.

An alternative that never wins (or never loses) has no finite maximum-likelihood strength, which
happens easily with few judgements and in bootstrap samples. ``prior`` adds that many virtual
wins in each direction to every pair that was compared; 0 gives the plain maximum-likelihood
fit. Strengths are reported on the log scale, centred so that their mean is 0.

Intervals come from a bootstrap over choices (a judge's choice is drawn with all its pairwise
wins): percentile intervals of each log-strength and of each rank (1 = strongest).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Choice:
    """One judgement: ``chosen`` was picked among ``shown`` (which includes it)."""

    chosen: str
    shown: tuple[str, ...]


@dataclass(frozen=True)
class RankedItem:
    name: str
    strength: float  # log-strength, centred (mean 0 over the alternatives)
    low: float  # bootstrap percentile interval of the log-strength
    high: float
    rank: int  # 1 = strongest, by the fitted strength
    rank_low: int  # bootstrap percentile interval of the rank
    rank_high: int
    wins: int  # pairwise wins in the data
    comparisons: int  # pairwise comparisons in the data
    chosen: int  # judgements where it was picked
    shown: int  # judgements where it was shown


@dataclass(frozen=True)
class BradleyTerryResult:
    items: tuple[RankedItem, ...]  # strongest first
    n_choices: int
    n_boot: int
    level: float
    prior: float
    iterations: int

    def to_dict(self) -> dict[str, object]:
        return {"items": [asdict(i) for i in self.items], "n_choices": self.n_choices, "n_boot": self.n_boot,
                "level": self.level, "prior": self.prior, "iterations": self.iterations}


def win_matrix(choices: Sequence[Choice], names: Sequence[str]) -> FloatArray:
    """``W[i, j]``: how often ``names[i]`` was chosen while ``names[j]`` was shown beside it."""
    index = {name: i for i, name in enumerate(names)}
    wins = np.zeros((len(names), len(names)))
    for choice in choices:
        winner = index[choice.chosen]
        for other in set(choice.shown) - {choice.chosen}:
            wins[winner, index[other]] += 1
    return wins


def fit_strengths(wins: FloatArray, *, prior: float = 0.0, tol: float = 1e-10,
                  max_iter: int = 10_000) -> tuple[FloatArray, int]:
    """Maximum-likelihood Bradley–Terry strengths (on the log scale, mean 0) of the win matrix
    ``wins`` and the number of MM iterations taken. Alternatives never compared get 0."""
    if wins.ndim != 2 or wins.shape[0] != wins.shape[1]:
        raise ValueError("the win matrix must be square")
    if prior < 0:
        raise ValueError("prior must be at least 0")
    games = wins + wins.T
    compared = games > 0
    w = wins + prior * compared
    n = w + w.T
    total_wins = w.sum(axis=1)
    active = n.sum(axis=1) > 0
    p = np.ones(len(wins))
    iterations = 0
    for iterations in range(1, max_iter + 1):  # noqa: B007 (the count is returned)
        denominator = (n / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(active, total_wins / np.where(denominator > 0, denominator, 1.0), 1.0)
        # Keep a never-winning alternative at a tiny positive strength: its log is then very
        # negative but finite, and the others still converge.
        new = np.maximum(new, 1e-300)
        new = new / np.exp(np.mean(np.log(new[active]))) if active.any() else new
        done = bool(np.max(np.abs(np.log(new) - np.log(p))) < tol)
        p = new
        if done:
            break
    log_p = np.log(p)
    log_p[active] -= log_p[active].mean()
    log_p[~active] = 0.0
    return log_p, iterations


def _ranks(strengths: FloatArray) -> npt.NDArray[np.int64]:
    order = np.argsort(-strengths, kind="stable")
    ranks = np.empty(len(strengths), dtype=np.int64)
    ranks[order] = np.arange(1, len(strengths) + 1)
    return ranks


def bradley_terry(choices: Sequence[Choice], *, prior: float = 0.5, n_boot: int = 1000, level: float = 0.95,
                  seed: int = 0) -> BradleyTerryResult:
    """Rank the alternatives of ``choices`` by Bradley–Terry strength, with bootstrap intervals
    over the choices. Raises ValueError for a choice whose pick is not among those shown."""
    for number, choice in enumerate(choices, 1):
        if choice.chosen not in choice.shown or len(set(choice.shown)) < 2:
            raise ValueError(f"choice {number}: {choice.chosen!r} must be one of two or more alternatives shown")
    if not 0 < level < 1:
        raise ValueError("level must be between 0 and 1")
    names = sorted({name for c in choices for name in c.shown})
    wins = win_matrix(choices, names)
    strengths, iterations = fit_strengths(wins, prior=prior)
    ranks = _ranks(strengths)
    k = len(names)
    boot_strengths = np.empty((n_boot if choices else 0, k))
    boot_ranks = np.empty((n_boot if choices else 0, k))
    rng = np.random.default_rng(seed)
    # Each choice's own win matrix, so that a bootstrap sample is a weighted sum of them.
    per_choice = np.stack([win_matrix([c], names) for c in choices]) if choices else np.zeros((0, k, k))
    for b in range(n_boot if choices else 0):
        counts = np.bincount(rng.integers(0, len(choices), len(choices)), minlength=len(choices)).astype(float)
        boot_strengths[b], _ = fit_strengths(np.tensordot(counts, per_choice, axes=1), prior=prior)
        boot_ranks[b] = _ranks(boot_strengths[b])
    n_boot = n_boot if choices else 0
    alpha = (1 - level) / 2
    low, high = (np.quantile(boot_strengths, [alpha, 1 - alpha], axis=0) if n_boot
                 else (strengths.copy(), strengths.copy()))
    rank_low, rank_high = (np.quantile(boot_ranks, [alpha, 1 - alpha], axis=0, method="nearest") if n_boot
                           else (ranks.astype(float), ranks.astype(float)))
    chosen = {name: sum(c.chosen == name for c in choices) for name in names}
    shown = {name: sum(name in c.shown for c in choices) for name in names}
    items = [RankedItem(name=name, strength=float(strengths[i]), low=float(low[i]), high=float(high[i]),
                        rank=int(ranks[i]), rank_low=int(rank_low[i]), rank_high=int(rank_high[i]),
                        wins=int(wins[i].sum()), comparisons=int(wins[i].sum() + wins[:, i].sum()),
                        chosen=chosen[name], shown=shown[name])
             for i, name in enumerate(names)]
    items.sort(key=lambda item: item.rank)
    return BradleyTerryResult(items=tuple(items), n_choices=len(choices), n_boot=n_boot, level=level, prior=prior,
                              iterations=iterations)
