"""Top-1 accuracy and mean reciprocal rank of the baselines (Orbach et al., ACL 2020, section
5.1): a question is a supporting speech, its candidates and the indices of its true counters (one
or several); top-1 counts when the best-scored candidate is a true counter, and the reciprocal
rank is 1/r for r the rank of the best-ranked true counter. Ties are broken at random, in
expectation."""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.methods.counter_speech.scores import (
    METHODS,
    MIN_PAIR_SHARE,
    Terms,
    Tokens,
    check_method,
    pair_vocabulary,
    score,
)

ALL = "all"
KNOWN_SETTINGS = ("explicit", "implicit")
# Where js's and cosine's terms come from: the paper's (the training set's speech pairs, stop words
# kept) or the evaluated questions' own pairs without stop words (a variant).
TERMS = ("training", "evaluated")

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
    terms: str = "training"  # where they come from (TERMS)
    training_pairs: int = 0  # the speech pairs they were counted over

    def to_dict(self) -> dict[str, Any]:
        """``{"methods": {method: {"settings": {setting: RankingScore.to_dict()}}},
        "settings": {setting: {questions, random_accuracy, random_mrr}}, "all": {same for all},
        "vocabulary": n, "terms": "training"|"evaluated", "training_pairs": n}``"""
        first = self.scores[self.methods[0]] if self.methods else {}
        chance = {s: {k: v for k, v in first[s].to_dict().items() if k not in ("accuracy", "mrr")}
                  for s in self.settings}
        return {
            "methods": {m: {"settings": {s: self.scores[m][s].to_dict() for s in self.settings}}
                        for m in self.methods},
            "settings": chance,
            ALL: chance.get(ALL, {"questions": 0, "random_accuracy": None, "random_mrr": None}),
            "vocabulary": self.vocabulary, "terms": self.terms, "training_pairs": self.training_pairs,
        }


SPLIT = (("train", 0.6), ("validation", 0.2), ("test", 0.2))  # the paper's split of the motions


def motion_split(motions: Iterable[str], *, seed: int) -> dict[str, str]:
    """The paper's random split of the motions (section 5.1): 60% train, 20% validation, 20% test,
    drawn with ``seed`` from the distinct motions in sorted order (so the input order does not
    matter); the shares are rounded, the test set takes the rest."""
    order = sorted(set(motions))
    random.Random(seed).shuffle(order)
    n_train, n_validation = round(SPLIT[0][1] * len(order)), round(SPLIT[1][1] * len(order))
    return {m: "train" if i < n_train else "validation" if i < n_train + n_validation else "test"
            for i, m in enumerate(order)}


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
             min_pair_share: float = MIN_PAIR_SHARE, terms: str = "training",
             training: Sequence[Question] | None = None) -> BaselineResult:
    """Top-1 accuracy and MRR of each method per setting and over all questions.

    js and cosine keep the terms found in at least ``min_pair_share`` of the speech pairs of
    ``training`` with stop words counted (``terms="training"``, the paper's section 5.2: the
    training set's pairs; ``training`` is then required), or of the evaluated questions
    themselves without stop words (``terms="evaluated"``). The binary vectors of mi and cmi have
    one entry per term (stop words removed) of all the evaluated questions' speeches."""
    for m in methods:
        check_method(m)
    if terms not in TERMS:
        raise ValueError(f"terms must be one of {', '.join(TERMS)}, got {terms!r}")
    if terms == "training" and not training:
        raise ValueError("terms='training' needs the training set's questions (training=…); "
                         "terms='evaluated' takes the terms from the evaluated questions")
    tokens, trues = [], []
    for number, (supporting, candidates, true, _setting) in enumerate(questions):
        trues.append(_true_set(true, len(candidates), number))
        tokens.append(Tokens.of(supporting, candidates))
    if terms == "training":
        pairs = [p for supporting, candidates, _, _ in training or ()
                 for p in Tokens.of(supporting, candidates).pairs(stop_words=True)]
    else:
        pairs = [p for q in tokens for p in q.pairs()]
    counted = Terms(pair_vocabulary(pairs, min_share=min_pair_share), stop_words=terms == "training")
    corpus = frozenset(t for q in tokens for p in q.pairs() for t in p)  # the binary vectors' entries
    rows = []
    for number, ((_, candidates, _, setting), q, true) in enumerate(zip(questions, tokens, trues, strict=True)):
        for m in methods:
            rows.append((number, str(setting), len(candidates), len(true), m,
                         *tie_aware(score(m, q, terms=counted, entries=corpus), true)))
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
    return BaselineResult(tuple(methods), settings, scores, ranks, len(counted.vocabulary or ()), terms, len(pairs))
