"""Top-1 accuracy and mean reciprocal rank of the baselines (Orbach et al., ACL 2020, section
5.1): a question is a supporting speech, its candidates and the indices of its true counters (one
or several); top-1 counts when the best-scored candidate is a true counter, and the reciprocal
rank is 1/r for r the rank of the best-ranked true counter. Ties are broken at random, in
expectation."""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.methods.counter_speech.scores import (
    METHODS,
    MIN_PAIR_SHARE,
    SCORERS,
    Tokens,
    check_method,
    pair_vocabulary,
)

ALL = "all"
BINARY = ("mi", "cmi")
KNOWN_SETTINGS = ("explicit", "implicit")

# (supporting text, candidate texts, index of the true counter or indices of all of them, setting)
Question = tuple[str, Sequence[str], int | Collection[int], str]


@dataclass(frozen=True)
class RankingScore:
    """One method on one group of questions; ``random_*`` are the expectations of a uniformly
    random ranking of the same questions."""

    questions: int
    accuracy: float
    mrr: float
    random_accuracy: float
    random_mrr: float

    def to_dict(self) -> dict[str, Any]:
        return {"questions": self.questions, "accuracy": self.accuracy, "mrr": self.mrr,
                "random_accuracy": self.random_accuracy, "random_mrr": self.random_mrr}


@dataclass(frozen=True)
class BaselineResult:
    """``scores[method][setting]`` (setting ``"all"`` first); ``ranks`` has one row per
    (question, method): question index, setting, n_candidates, n_true, method, the expected rank
    of the best-ranked true counter (1 = top), and its expected top-1 and reciprocal rank."""

    methods: tuple[str, ...]
    settings: tuple[str, ...]
    scores: Mapping[str, Mapping[str, RankingScore]]
    ranks: pd.DataFrame
    vocabulary: int  # terms kept for js and cosine

    def to_dict(self) -> dict[str, Any]:
        """``{"methods": {method: {"settings": {setting: RankingScore.to_dict()}}},
        "settings": {setting: {questions, random_accuracy, random_mrr}}, "all": {same for all},
        "vocabulary": n}``"""
        first = self.scores[self.methods[0]] if self.methods else {}
        chance = {s: {k: v for k, v in first[s].to_dict().items() if k not in ("accuracy", "mrr")}
                  for s in self.settings}
        return {
            "methods": {m: {"settings": {s: self.scores[m][s].to_dict() for s in self.settings}}
                        for m in self.methods},
            "settings": chance,
            ALL: chance.get(ALL, {"questions": 0, "random_accuracy": None, "random_mrr": None}),
            "vocabulary": self.vocabulary,
        }


def settings_order(settings: Iterable[str]) -> tuple[str, ...]:
    """"all" first, then the paper's two kinds of counter, then any other kind by name."""
    present = set(settings)
    return (ALL, *[s for s in KNOWN_SETTINGS if s in present], *sorted(present - {ALL, *KNOWN_SETTINGS}))


def first_true_rank(size: int, true: int) -> list[float]:
    """P(J = j), j = 1 … size, for J the position of the first of ``true`` marked elements in a
    uniformly random order of ``size``."""
    total = math.comb(size, true)
    return [math.comb(size - j, true - 1) / total for j in range(1, size + 1)]


def tie_aware(scores: np.ndarray, true: Collection[int]) -> tuple[float, float, float]:
    """(expected rank, top-1, reciprocal rank) of the best-ranked true counter when ties are broken
    at random: a method that cannot tell a true counter from others gets its share of a top-1,
    not the credit of whichever was shown first."""
    best = max(scores[i] for i in true)
    tied = np.isclose(scores, best, rtol=0, atol=1e-12)
    better = int(np.sum((scores > best) & ~tied))
    size, hits = int(np.sum(tied)), sum(1 for i in true if tied[i])
    chances = first_true_rank(size, hits)
    rank = better + sum(p * j for j, p in enumerate(chances, 1))
    rr = sum(p / (better + j) for j, p in enumerate(chances, 1))
    return rank, (hits / size if better == 0 else 0.0), rr


def _true_set(true: int | Collection[int], n: int, number: int) -> set[int]:
    out = {int(true)} if isinstance(true, int | np.integer) else {int(t) for t in true}
    if not out or any(not 0 <= t < n for t in out):
        raise ValueError(f"question {number}: true index {sorted(out)} outside its {n} candidates (or none)")
    return out


def _random_mrr(n: int, true: int) -> float:
    return sum(p / j for j, p in enumerate(first_true_rank(n, true), 1))


def evaluate(questions: Sequence[Question], *, methods: Sequence[str] = METHODS,
             min_pair_share: float = MIN_PAIR_SHARE) -> BaselineResult:
    """Top-1 accuracy and MRR of each method per setting and over all questions. js and cosine
    keep the terms found in at least ``min_pair_share`` of all the questions' speech pairs; the
    binary vectors of mi and cmi have one entry per term of all the questions' speeches."""
    for m in methods:
        check_method(m)
    tokens, trues = [], []
    for number, (supporting, candidates, true, _setting) in enumerate(questions):
        trues.append(_true_set(true, len(candidates), number))
        tokens.append(Tokens.of(supporting, candidates))
    vocabulary = pair_vocabulary((p for q in tokens for p in q.pairs()), min_share=min_pair_share)
    corpus = frozenset(t for q in tokens for p in q.pairs() for t in p)  # the binary vectors' entries
    rows = []
    for number, ((_, candidates, _, setting), q, true) in enumerate(zip(questions, tokens, trues, strict=True)):
        for m in methods:
            rows.append((number, str(setting), len(candidates), len(true), m,
                         *tie_aware(SCORERS[m](q, corpus if m in BINARY else vocabulary), true)))
    ranks = pd.DataFrame(rows, columns=["question", "setting", "n_candidates", "n_true", "method", "rank", "top1", "rr"])
    settings = settings_order(ranks["setting"])
    scores: dict[str, dict[str, RankingScore]] = {}
    for m in methods:
        mine = ranks[ranks["method"] == m]
        scores[m] = {}
        for s in settings:
            group = mine if s == ALL else mine[mine["setting"] == s]
            k, t = group["n_candidates"].to_numpy(), group["n_true"].to_numpy()
            scores[m][s] = RankingScore(
                questions=len(group),
                accuracy=float(group["top1"].mean()) if len(group) else math.nan,
                mrr=float(group["rr"].mean()) if len(group) else math.nan,
                random_accuracy=float(np.mean(t / k)) if len(k) else math.nan,
                random_mrr=float(np.mean([_random_mrr(int(n), int(x)) for n, x in zip(k, t, strict=True)]))
                if len(k) else math.nan,
            )
    return BaselineResult(tuple(methods), settings, scores, ranks, len(vocabulary))
