"""Counter-speech detection (Orbach et al., "Out of the Echo Chamber", ACL 2020): given a
supporting speech and k opposing candidates on the same motion, which candidate was recorded in
response to it?

Automatic baselines of the paper's section 5, each a scorer ``score(supporting, candidates)``
returning one number per candidate, higher meaning "more likely the counter":

- ``js``: minus the Jensen–Shannon divergence (base 2, so in [0, 1]) between the stemmed unigram
  distributions of the speech and the candidate over their union vocabulary.
- ``cosine``: cosine of the stemmed unigram count vectors.
- ``mi``: the expected pointwise mutual information between a word of the speech and the
  candidate, in bits per word of the speech::

      mi(s, c) = sum_{w in s} p_s(w) * log2(p(w | c) / p(w | s+c))

  ``p_s`` is the speech's relative frequency; ``p(w | c)`` and ``p(w | s+c)`` (the pair pooled as
  one text) are add-one smoothed over the pair's vocabulary V: ``(n(w) + 1) / (N + |V|)``. The
  log term is PMI(word; candidate) in the two-text corpus {s, c}: how much better the candidate
  alone predicts the speech's words than the pair does. A candidate using the speech's words in
  its proportions scores about 0; one that avoids them scores below 0.
- ``cmi``: the same expected PMI conditioned on the question's candidate pool::

      cmi(s, c) = sum_{w in s} p_s(w) * log2(p(w | c) / p(w | C))

  ``C`` pools all k candidates; smoothing is over the vocabulary of the speech and all
  candidates. A word every candidate uses equally gives log 1 = 0, so only what sets the
  candidate apart from the others counts. The pool term is the same for every candidate, so
  cmi ranks candidates as the speech's log-likelihood under each candidate's smoothed unigram
  model; its value reads as bits per word gained over the pool.
- ``ngrs``: the number of distinct 2-, 3- and 4-grams of stemmed tokens found in the speech and
  in this candidate and in no other candidate. Stop words are kept for n-grams: phrases a
  speaker quotes back ("the right to choose") are mostly made of them.

Unigrams: lowercase words of letters, digits and apostrophes, minus scikit-learn's English stop
words, stemmed with the Snowball English stemmer.

Scoring people: ``annotator_accuracy`` (per worker and per setting, each beside the random-guess
baseline of the same answers) and ``reason_profile`` (the paper's Figure 2).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import snowballstemmer
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

METHODS = ("js", "cosine", "mi", "cmi", "ngrs")
NGRAM_SIZES = (2, 3, 4)
ALL = "all"
_WORD = re.compile(r"(?:[^\W_]|')+")  # letters (any script), digits, apostrophes
_STEMMER = snowballstemmer.stemmer("english")
_STEMS: dict[str, str] = {}


def words(text: str) -> list[str]:
    """Lowercase words; apostrophes stay inside words so "don't" is one token, stripped at the
    edges so quoting ('like this') does not make new words."""
    return [w for w in (m.strip("'") for m in _WORD.findall(text.lower())) if w]


def stems(text: str, *, stop_words: bool = False) -> list[str]:
    """Stemmed tokens in order; ``stop_words=False`` drops scikit-learn's English stop words
    (checked before stemming, as the list holds surface forms)."""
    out = []
    for w in words(text):
        if not stop_words and w in ENGLISH_STOP_WORDS:
            continue
        stem = _STEMS.get(w)
        if stem is None:  # the stemmer is pure Python; speeches repeat words a lot
            stem = _STEMS.setdefault(w, _STEMMER.stemWord(w))
        out.append(stem)
    return out


def _ngrams(tokens: Sequence[str]) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for n in NGRAM_SIZES for i in range(len(tokens) - n + 1)}


@dataclass(frozen=True)
class _Question:
    """A question tokenised once, so that every method reuses the same tokens."""

    supporting: Counter[str]
    candidates: tuple[Counter[str], ...]
    supporting_text: str
    candidate_texts: tuple[str, ...]

    @classmethod
    def of(cls, supporting: str, candidates: Sequence[str]) -> _Question:
        if isinstance(candidates, str):
            raise TypeError("candidates must be a sequence of texts, not one text")
        return cls(Counter(stems(supporting)), tuple(Counter(stems(c)) for c in candidates),
                   supporting, tuple(candidates))


def _vectors(counts: Sequence[Counter[str]]) -> np.ndarray:
    """Count matrix (one row per text) over the union vocabulary, in a fixed column order."""
    vocab = sorted(set().union(*counts))
    index = {w: i for i, w in enumerate(vocab)}
    out = np.zeros((len(counts), len(vocab)))
    for row, c in enumerate(counts):
        for w, n in c.items():
            out[row, index[w]] = n
    return out


def _js(q: _Question) -> np.ndarray:
    out = []
    for cand in q.candidates:
        s, c = _vectors([q.supporting, cand])
        if s.sum() == 0 or c.sum() == 0:
            out.append(-1.0)  # nothing to compare: the largest divergence base 2 allows
            continue
        p, r = s / s.sum(), c / c.sum()
        m = (p + r) / 2
        kl = [float(np.sum(x[x > 0] * np.log2(x[x > 0] / m[x > 0]))) for x in (p, r)]
        out.append(-(kl[0] + kl[1]) / 2)
    return np.array(out)


def _cosine(q: _Question) -> np.ndarray:
    out = []
    for cand in q.candidates:
        s, c = _vectors([q.supporting, cand])
        norm = float(np.linalg.norm(s) * np.linalg.norm(c))
        out.append(float(s @ c) / norm if norm else 0.0)
    return np.array(out)


def _expected_pmi(speech: Counter[str], cand: Counter[str], pool: Counter[str], vocab: int) -> float:
    """sum over the speech's words of p_s(w) * log2(p(w|cand) / p(w|pool)), add-one smoothed;
    the smoothing keeps words the candidate never says finite (and negative)."""
    n_s, n_c, n_pool = sum(speech.values()), sum(cand.values()), sum(pool.values())
    total = 0.0
    for w in speech:
        p_c = (cand[w] + 1) / (n_c + vocab)
        p_pool = (pool[w] + 1) / (n_pool + vocab)
        total += speech[w] / n_s * math.log2(p_c / p_pool)
    return total


def _mi(q: _Question) -> np.ndarray:
    return np.array([
        _expected_pmi(q.supporting, c, q.supporting + c, len(q.supporting.keys() | c.keys()))
        for c in q.candidates
    ])


def _cmi(q: _Question) -> np.ndarray:
    pool: Counter[str] = sum(q.candidates, Counter())
    vocab = len(q.supporting.keys() | pool.keys())
    return np.array([_expected_pmi(q.supporting, c, pool, vocab) for c in q.candidates])


def _ngrs(q: _Question) -> np.ndarray:
    speech = _ngrams(stems(q.supporting_text, stop_words=True))
    grams = [_ngrams(stems(c, stop_words=True)) & speech for c in q.candidate_texts]
    seen = Counter(g for cand in grams for g in cand)
    # a gram shared with the speech by two candidates tells them apart no more than none would
    return np.array([sum(1 for g in cand if seen[g] == 1) for cand in grams], dtype=float)


_SCORERS: dict[str, Callable[[_Question], np.ndarray]] = {
    "js": _js, "cosine": _cosine, "mi": _mi, "cmi": _cmi, "ngrs": _ngrs,
}


def _public(name: str) -> Callable[[str, Sequence[str]], np.ndarray]:
    def score(supporting: str, candidates: Sequence[str]) -> np.ndarray:
        return _SCORERS[name](_Question.of(supporting, candidates))

    score.__name__ = score.__qualname__ = name
    score.__doc__ = f"The ``{name}`` score of each candidate (see the module docstring); higher = the counter."
    return score


js, cosine, mi, cmi, ngrs = (_public(name) for name in METHODS)


def _check_method(method: str) -> None:
    if method not in _SCORERS:
        raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")


def _ranking(scores: np.ndarray) -> list[int]:
    # a stable sort on the negated score keeps tied candidates in their shown order
    return [int(i) for i in np.argsort(-scores, kind="stable")]


def rank_candidates(supporting: str, candidates: Sequence[str], *, method: str) -> list[int]:
    """Candidate indices, best first. Ties keep the candidates' order (the earlier shown first),
    so a method that cannot tell candidates apart scores like "always pick the first"."""
    _check_method(method)
    return _ranking(_SCORERS[method](_Question.of(supporting, candidates)))


def _harmonic(k: int) -> float:
    return sum(1 / i for i in range(1, k + 1))


@dataclass(frozen=True)
class RankingScore:
    """One method on one group of questions; ``random_*`` are the expectations of a uniformly
    random ranking of the same questions (mean 1/k for top-1, mean H_k/k for MRR)."""

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
    (question, method): question index, setting, n_candidates, method, the expected rank of the
    true counter (1 = top), and its expected top-1 and reciprocal rank under random tie-breaking."""

    methods: tuple[str, ...]
    settings: tuple[str, ...]
    scores: Mapping[str, Mapping[str, RankingScore]]
    ranks: pd.DataFrame

    def to_dict(self) -> dict[str, Any]:
        """``{"methods": {method: {"settings": {setting: RankingScore.to_dict()}}},
        "settings": {setting: {questions, random_accuracy, random_mrr}}, "all": {same for all}}``"""
        first = self.scores[self.methods[0]] if self.methods else {}
        chance = {s: {k: v for k, v in first[s].to_dict().items() if k not in ("accuracy", "mrr")}
                  for s in self.settings}
        return {
            "methods": {m: {"settings": {s: self.scores[m][s].to_dict() for s in self.settings}}
                        for m in self.methods},
            "settings": chance,
            ALL: chance.get(ALL, {"questions": 0, "random_accuracy": None, "random_mrr": None}),
        }


def _settings_order(settings: Iterable[str]) -> tuple[str, ...]:
    """"all" first, then the paper's two kinds of counter, then any other kind by name."""
    known = ("explicit", "implicit")
    present = set(settings)
    return (ALL, *[s for s in known if s in present], *sorted(present - {ALL, *known}))


Question = tuple[str, Sequence[str], int, str]


def _tie_aware(scores: np.ndarray, true: int) -> tuple[float, float, float]:
    """(expected rank, top-1, reciprocal rank) of the true candidate when ties are broken at
    random: a method that cannot tell the true counter from t others gets 1/t of a top-1, not the
    credit of whichever was shown first."""
    target = scores[true]
    tied = np.isclose(scores, target, rtol=0, atol=1e-12)
    better = int(np.sum((scores > target) & ~tied))
    ties = int(np.sum(tied))
    top1 = 1 / ties if better == 0 else 0.0
    rr = float(np.mean([1 / (better + j) for j in range(1, ties + 1)]))
    return better + (ties + 1) / 2, top1, rr


def evaluate(questions: Sequence[Question], *, methods: Sequence[str] = METHODS) -> BaselineResult:
    """Top-1 accuracy and MRR of each method per setting and over all questions, ties broken at
    random in expectation (see ``_tie_aware``).

    ``questions``: (supporting text, candidate texts, index of the true counter, setting)."""
    for m in methods:
        _check_method(m)
    rows = []
    for number, (supporting, candidates, true, setting) in enumerate(questions):
        if not 0 <= true < len(candidates):
            raise ValueError(f"question {number}: true index {true} outside its {len(candidates)} candidates")
        q = _Question.of(supporting, candidates)
        for m in methods:
            rows.append((number, str(setting), len(candidates), m, *_tie_aware(_SCORERS[m](q), true)))
    ranks = pd.DataFrame(rows, columns=["question", "setting", "n_candidates", "method", "rank", "top1", "rr"])
    settings = _settings_order(ranks["setting"])
    scores: dict[str, dict[str, RankingScore]] = {}
    for m in methods:
        mine = ranks[ranks["method"] == m]
        scores[m] = {}
        for s in settings:
            group = mine if s == ALL else mine[mine["setting"] == s]
            k = group["n_candidates"].to_numpy()
            scores[m][s] = RankingScore(
                questions=len(group),
                accuracy=float(group["top1"].mean()) if len(group) else math.nan,
                mrr=float(group["rr"].mean()) if len(group) else math.nan,
                random_accuracy=float(np.mean(1 / k)) if len(k) else math.nan,
                random_mrr=float(np.mean([_harmonic(int(n)) / n for n in k])) if len(k) else math.nan,
            )
    return BaselineResult(tuple(methods), settings, scores, ranks)


def _native(value: Any) -> Any:
    """numpy scalars become Python ones so that ``to_dict`` output goes straight to JSON."""
    return value.item() if isinstance(value, np.generic) else value


def _tally(frame: pd.DataFrame) -> dict[str, Any]:
    answers = len(frame)
    correct = int(frame["correct"].sum())
    return {"answers": answers, "correct": correct,
            "accuracy": correct / answers if answers else None,
            "random_baseline": float(np.mean(1 / frame["n_candidates"].to_numpy(float))) if answers else None}


@dataclass(frozen=True)
class AnnotatorAccuracy:
    """``workers``: worker, answers, correct, accuracy, random_baseline (sorted by worker);
    ``settings``: the same counts plus distinct items, indexed by setting ("all" first)."""

    workers: pd.DataFrame
    settings: pd.DataFrame

    def to_dict(self) -> dict[str, Any]:
        """``{"workers": [{worker, answers, correct, accuracy, random_baseline}],
        "settings": {setting: {answers, items, correct, accuracy, random_baseline}}}``"""
        return {
            "workers": [{k: _native(v) for k, v in row.items()} for row in self.workers.to_dict("records")],
            "settings": {name: {k: _native(v) for k, v in row.items()}
                         for name, row in self.settings.to_dict("index").items()},
        }


def annotator_accuracy(frame: pd.DataFrame) -> AnnotatorAccuracy:
    """Accuracy against the true counters known by design.

    ``frame``: one row per answer with worker, item, correct (bool), n_candidates, setting. The
    random-guess baseline of a group is the mean of 1/k over its answers, so workers who saw
    more candidates are held to a lower chance level."""
    frame = frame.assign(correct=frame["correct"].astype(bool), setting=frame["setting"].astype(str))
    workers = pd.DataFrame(
        [{"worker": w, **_tally(g)} for w, g in frame.groupby("worker", sort=True)],
        columns=["worker", "answers", "correct", "accuracy", "random_baseline"],
    )
    rows = {}
    for s in _settings_order(frame["setting"]):
        group = frame if s == ALL else frame[frame["setting"] == s]
        tally = _tally(group)
        rows[s] = {"answers": tally["answers"], "items": int(group["item"].nunique()),
                   **{k: tally[k] for k in ("correct", "accuracy", "random_baseline")}}
    return AnnotatorAccuracy(workers, pd.DataFrame.from_dict(rows, orient="index"))


def _codes(reasons: Any) -> set[str]:
    """One answer's reason codes; an answer citing a code twice still cites it once."""
    if reasons is None or (isinstance(reasons, float) and math.isnan(reasons)):
        return set()
    if isinstance(reasons, str):
        return {reasons} if reasons else set()
    return {str(r) for r in reasons}


def reason_profile(frame: pd.DataFrame, *, min_accuracy: float = 0.6) -> dict[str, Any]:
    """The share of correct and of wrong answers citing each reason, among the workers whose
    accuracy over all their answers is at least ``min_accuracy`` (the paper's Figure 2 keeps the
    annotators above 60% so that the reasons come from people who did the task).

    Returns ``{"correct": {reason: share}, "wrong": {reason: share}, "n_correct", "n_wrong",
    "workers"}``; both share dicts list every reason cited by the kept answers (sorted), and a
    share is 0.0 when there are no answers of that kind."""
    correct = frame["correct"].astype(bool)
    accuracy = correct.groupby(frame["worker"]).mean()
    kept_workers = sorted(accuracy.index[accuracy >= min_accuracy], key=str)
    kept = frame["worker"].isin(kept_workers)
    codes = [_codes(r) for r in frame.loc[kept, "reasons"]]
    right = correct[kept].to_numpy()
    reasons = sorted(set().union(*codes)) if codes else []

    def shares(mask: np.ndarray) -> dict[str, float]:
        chosen = [c for c, m in zip(codes, mask, strict=True) if m]
        return {r: (sum(r in c for c in chosen) / len(chosen) if chosen else 0.0) for r in reasons}

    return {"correct": shares(right), "wrong": shares(~right), "n_correct": int(right.sum()),
            "n_wrong": int((~right).sum()), "workers": [_native(w) for w in kept_workers]}
