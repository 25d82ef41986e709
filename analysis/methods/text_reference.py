"""A machine reference for listening comprehension: does the speech mention an argument?

Mirkin et al. (EMNLP 2018) set unsupervised text-similarity baselines: the cosine of an argument
— its title or its full text — with the speech — the whole speech, or its best-matching sentence
(the largest cosine over its sentences) — where a text is a tf-idf-weighted average of word2vec
embeddings learned on Wikipedia (w2v), or a skip-thought vector (ST, argument text against
sentences only). Neither model ships with this project: this reference keeps the paper's four
configurations, threshold and metric but scores pairs by the **TF-IDF** cosine of the texts
themselves (bag of words, no embeddings), so its figures are not the paper's. A (speech,
argument) pair is predicted positive when the cosine reaches a threshold, tuned on a development
split of motions to maximise the mean per-speech accuracy and reported on the test split beside
the all-yes baseline. Splitting by motion keeps the arguments of a test motion unseen while
tuning. Beside the accuracy, precision, recall and F1 over the test pairs (micro-averaged, as the
paper's reference figures for its best configuration); precision is undefined (NaN) when nothing
is predicted positive.

Choices the paper leaves open, fixed here:

- one ``TfidfVectorizer`` (lowercase, English stop words removed, default smoothed idf and L2
  norm, so the cosine is a dot product) is fitted on every distinct text involved: whole
  speeches, their sentences, argument titles and full texts. A text repeated (an argument with
  no full text, a one-sentence speech) counts once, so the idf does not depend on such overlap.
- a speech given without sentences is split after ``.``, ``!`` or ``?`` followed by white
  space, and at line breaks.
- per-speech accuracy weighs every speech alike, so speeches with many titles do not dominate.
- candidate thresholds are the distinct dev scores plus +inf (predict all-no); among thresholds
  with the same best accuracy the smallest wins (ties within 1e-12, to absorb rounding).
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any, cast

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer

CONFIGURATIONS = ("title_whole", "title_sentence", "text_whole", "text_sentence")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\s*\n\s*")
_TIE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class ReferenceConfiguration:
    name: str  # one of CONFIGURATIONS
    threshold: float  # +inf: no pair reaches it (all-no)
    dev_accuracy: float  # mean per-speech accuracy
    test_accuracy: float
    test_precision: float = math.nan  # over the test pairs; NaN when none is predicted positive
    test_recall: float = math.nan  # NaN when no test pair is positive
    test_f1: float = math.nan


@dataclass(frozen=True)
class SplitSummary:
    n_motions: int
    n_speeches: int
    n_pairs: int
    positive_share: float  # pairs labelled positive


@dataclass(frozen=True)
class MachineReference:
    configurations: tuple[ReferenceConfiguration, ...]
    all_yes_dev: float  # mean per-speech accuracy of predicting every pair positive
    all_yes_test: float
    dev: SplitSummary
    test: SplitSummary
    all_yes_test_precision: float = math.nan
    all_yes_test_recall: float = math.nan
    all_yes_test_f1: float = math.nan

    def configuration(self, name: str) -> ReferenceConfiguration:
        for configuration in self.configurations:
            if configuration.name == name:
                return configuration
        known = ", ".join(c.name for c in self.configurations)
        raise KeyError(f"unknown configuration {name!r}; known: {known}")

    def to_dict(self) -> dict[str, object]:
        """JSON-ready; an infinite threshold (all-no) is written as None."""
        return {
            "configurations": {
                c.name: {
                    "threshold": c.threshold if math.isfinite(c.threshold) else None,
                    "dev_accuracy": c.dev_accuracy,
                    "test_accuracy": c.test_accuracy,
                    "test_precision": _defined(c.test_precision),
                    "test_recall": _defined(c.test_recall),
                    "test_f1": _defined(c.test_f1),
                }
                for c in self.configurations
            },
            "all_yes": {
                "dev": self.all_yes_dev,
                "test": self.all_yes_test,
                "test_precision": _defined(self.all_yes_test_precision),
                "test_recall": _defined(self.all_yes_test_recall),
                "test_f1": _defined(self.all_yes_test_f1),
            },
            "dev": {f.name: getattr(self.dev, f.name) for f in fields(self.dev)},
            "test": {f.name: getattr(self.test, f.name) for f in fields(self.test)},
        }


def split_sentences(text: str) -> list[str]:
    """Sentences of a text by the simple rule above; the whole text when nothing splits."""
    sentences = [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]
    return sentences or [text]


def similarities(
    speeches: pd.DataFrame, arguments: pd.DataFrame, pairs: pd.DataFrame
) -> pd.DataFrame:
    """``pairs`` (columns ``item``, ``option``, others kept) with the cosine of the four
    configurations added as columns ``title_whole``, ``title_sentence``, ``text_whole``,
    ``text_sentence``.

    ``speeches``: columns ``item``, ``text`` and optionally ``sentences`` (a list of strings per
    speech; missing or empty: split ``text``). ``arguments``: columns ``option``, ``title`` and
    optionally ``text`` (the full argument; missing or blank: the title).
    """
    speech = _indexed(speeches, "item", ["text"])
    argument = _indexed(arguments, "option", ["title"])
    for key, table in (("item", speech), ("option", argument)):
        absent = pd.Index(pairs[key].unique()).difference(table.index)
        if len(absent):
            raise ValueError(f"pairs name unknown {key}(s): {', '.join(map(str, absent[:5]))}")
    items = pd.Index(pairs["item"].unique())
    options = pd.Index(pairs["option"].unique())
    whole = [str(text) for text in speech.loc[items, "text"]]
    given = speech["sentences"] if "sentences" in speech.columns else None
    sentences = [
        list(given[item])
        if given is not None and _has_sentences(given[item])
        else split_sentences(text)
        for item, text in zip(items, whole, strict=True)
    ]
    titles = [str(title) for title in argument.loc[options, "title"]]
    full = argument["text"] if "text" in argument.columns else None
    texts = [
        str(full[option]) if full is not None and _filled(full[option]) else title
        for option, title in zip(options, titles, strict=True)
    ]
    flat_sentences = [sentence for group in sentences for sentence in group]
    corpus = sorted(set(whole) | set(flat_sentences) | set(titles) | set(texts))
    vectorizer = TfidfVectorizer(lowercase=True, stop_words="english")
    try:
        vectorizer.fit(corpus)
    except ValueError as error:  # every word is a stop word
        raise ValueError(f"no vocabulary to compare texts with: {error}") from None
    speech_vectors = vectorizer.transform(whole)
    sentence_vectors = vectorizer.transform(flat_sentences)
    bounds = np.cumsum([0, *(len(group) for group in sentences)])
    item_at = items.get_indexer(pairs["item"])
    option_at = options.get_indexer(pairs["option"])
    out = pairs.copy()
    for source, argument_texts in (("title", titles), ("text", texts)):
        argument_vectors = vectorizer.transform(argument_texts)
        out[f"{source}_whole"] = _row_dots(speech_vectors[item_at], argument_vectors[option_at])
        best = np.zeros(len(pairs))
        for group, rows in pd.Series(np.arange(len(pairs))).groupby(item_at).indices.items():
            position = cast(int, group)  # the groups are item_at's integers
            block = sentence_vectors[bounds[position] : bounds[position + 1]]
            cosines = (block @ argument_vectors[option_at[rows]].T).toarray()
            best[rows] = cosines.max(axis=0)
        out[f"{source}_sentence"] = best
    return out


def speech_accuracy(
    scores: ArrayLike, labels: ArrayLike, groups: ArrayLike, threshold: float
) -> float:
    """Mean over speeches (``groups``) of the accuracy of ``score >= threshold`` on their pairs."""
    scores, labels, groups = _checked(scores, labels, groups)
    correct = (scores >= threshold) == labels
    return float(pd.Series(correct).groupby(groups).mean().mean())


def all_yes_accuracy(labels: ArrayLike, groups: ArrayLike) -> float:
    """Mean per-speech accuracy of predicting every pair positive: the mean positive share."""
    labels = np.asarray(labels)
    return speech_accuracy(np.zeros(labels.size), labels, groups, -math.inf)


def precision_recall_f1(
    scores: ArrayLike, labels: ArrayLike, threshold: float
) -> tuple[float, float, float]:
    """Precision, recall and F1 of ``score >= threshold`` over all pairs (micro-average); NaN
    where a ratio's denominator is 0 (nothing predicted positive, no positive pair)."""
    scores, labels = np.asarray(scores, dtype=float), np.asarray(labels, dtype=np.int64)
    predicted = scores >= threshold
    hits = int(np.sum(predicted & (labels == 1)))
    precision = hits / int(predicted.sum()) if predicted.any() else math.nan
    recall = hits / int(labels.sum()) if labels.any() else math.nan
    if math.isnan(precision) or math.isnan(recall):
        return precision, recall, math.nan
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def tune_threshold(scores: ArrayLike, labels: ArrayLike, groups: ArrayLike) -> float:
    """The candidate threshold (a distinct score, or +inf) with the best mean per-speech
    accuracy; the smallest one on ties."""
    scores, labels, groups = _checked(scores, labels, groups)
    candidates, rank = np.unique(scores, return_inverse=True)
    group_codes, group_sizes = np.unique(groups, return_inverse=True, return_counts=True)[1:]
    # A pair adds 1 / (its speech's size × speeches) to the mean accuracy when it is right.
    weight = 1.0 / (group_sizes[group_codes] * group_sizes.size)
    k = candidates.size
    positive = np.bincount(rank, weights=weight * labels, minlength=k + 1)
    negative = np.bincount(rank, weights=weight * (1 - labels), minlength=k + 1)
    # Threshold j (candidates[j], or +inf for j = k): a positive is right when its rank >= j,
    # a negative when its rank < j.
    right_positive = np.cumsum(positive[::-1])[::-1]
    right_negative = np.concatenate([[0.0], np.cumsum(negative)[:-1]])
    accuracy = right_positive + right_negative
    best = int(np.flatnonzero(accuracy >= accuracy.max() - _TIE_TOLERANCE)[0])
    return float(candidates[best]) if best < k else math.inf


def machine_reference(
    pairs_frame: pd.DataFrame,
    *,
    dev_motions: Iterable[Hashable],
    test_motions: Iterable[Hashable],
    configurations: Sequence[str] = CONFIGURATIONS,
) -> MachineReference:
    """Tune each configuration's threshold on the dev motions and score it on the test motions.

    ``pairs_frame``: one row per (speech, argument) pair with columns ``item``, ``motion``,
    ``label`` (0/1, e.g. the crowd majority) and one score column per configuration (as
    :func:`similarities` adds them). Pairs of motions in neither split are left out.
    """
    dev_motions, test_motions = set(dev_motions), set(test_motions)
    if dev_motions & test_motions:
        raise ValueError(f"motions in both splits: {sorted(map(str, dev_motions & test_motions))}")
    needed = ["item", "motion", "label", *configurations]
    missing = [column for column in needed if column not in pairs_frame.columns]
    if missing:
        raise ValueError(f"missing column(s) {', '.join(missing)}")
    if (pairs_frame.groupby("item")["motion"].nunique() > 1).any():
        raise ValueError("a speech belongs to one motion; some items have several")
    dev = pairs_frame[pairs_frame["motion"].isin(dev_motions)]
    test = pairs_frame[pairs_frame["motion"].isin(test_motions)]
    if dev.empty or test.empty:
        raise ValueError("both the dev and the test split need pairs")
    results = []
    for name in configurations:
        threshold = tune_threshold(dev[name], dev["label"], dev["item"])
        precision, recall, f1 = precision_recall_f1(test[name], test["label"], threshold)
        results.append(
            ReferenceConfiguration(
                name=name,
                threshold=threshold,
                dev_accuracy=speech_accuracy(dev[name], dev["label"], dev["item"], threshold),
                test_accuracy=speech_accuracy(test[name], test["label"], test["item"], threshold),
                test_precision=precision,
                test_recall=recall,
                test_f1=f1,
            )
        )
    yes_precision, yes_recall, yes_f1 = precision_recall_f1(
        np.zeros(len(test)), test["label"], -math.inf
    )
    return MachineReference(
        configurations=tuple(results),
        all_yes_dev=all_yes_accuracy(dev["label"], dev["item"]),
        all_yes_test=all_yes_accuracy(test["label"], test["item"]),
        dev=_summary(dev),
        test=_summary(test),
        all_yes_test_precision=yes_precision,
        all_yes_test_recall=yes_recall,
        all_yes_test_f1=yes_f1,
    )


def split_motions(
    motions: Iterable[Hashable], *, dev_share: float = 0.5, seed: int = 0
) -> tuple[tuple[Hashable, ...], tuple[Hashable, ...]]:
    """Distinct motions split into (dev, test), each sorted; the same for the same seed.

    Motions are sorted first (so input order does not matter), then shuffled with
    ``np.random.default_rng(seed)``; dev takes ``round(dev_share × n)`` of them (halves round
    up), at least one and, with two motions or more, leaving one for test.
    """
    if not 0 < dev_share < 1:
        raise ValueError(f"dev_share must be between 0 and 1, got {dev_share}")
    # Any ids: sorting them is tried, and their text sorts when they have no order.
    distinct: list[Any] = list(dict.fromkeys(motions))
    try:
        distinct.sort()
    except TypeError:  # mixed id types have no order; their text does
        distinct.sort(key=str)
    n = len(distinct)
    if n < 2:
        raise ValueError("splitting needs at least two motions")
    n_dev = min(max(int(math.floor(dev_share * n + 0.5)), 1), n - 1)
    order = np.random.default_rng(seed).permutation(n)
    dev = sorted(order[:n_dev].tolist())
    test = sorted(order[n_dev:].tolist())
    return tuple(distinct[i] for i in dev), tuple(distinct[i] for i in test)


def _defined(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _summary(split: pd.DataFrame) -> SplitSummary:
    return SplitSummary(
        n_motions=int(split["motion"].nunique()),
        n_speeches=int(split["item"].nunique()),
        n_pairs=len(split),
        positive_share=float(np.mean(split["label"])),
    )


def _checked(
    scores: ArrayLike, labels: ArrayLike, groups: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    scores = np.asarray(scores, dtype=float)
    labels, groups = np.asarray(labels), np.asarray(groups)
    if not scores.shape == labels.shape == groups.shape or scores.ndim != 1:
        raise ValueError("scores, labels and groups need the same 1-D length")
    if scores.size == 0:
        raise ValueError("no pairs")
    if np.isnan(scores).any():
        raise ValueError("scores must not be NaN")
    if not np.isin(labels, [0, 1]).all():
        raise ValueError("labels must be 0/1")
    return scores, labels.astype(np.int64), groups


def _indexed(table: pd.DataFrame, key: str, required: list[str]) -> pd.DataFrame:
    missing = [column for column in [key, *required] if column not in table.columns]
    if missing:
        raise ValueError(f"missing column(s) {', '.join(missing)}")
    if table[key].duplicated().any():
        raise ValueError(f"{key} {table[key][table[key].duplicated()].iloc[0]!r} is listed twice")
    if table[required].isna().any().any():
        raise ValueError(f"{', '.join(required)} must not be missing")
    return table.set_index(key)


def _row_dots(first: sparse.csr_matrix, second: sparse.csr_matrix) -> np.ndarray:
    return np.asarray(first.multiply(second).sum(axis=1)).ravel()


def _filled(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _has_sentences(value: object) -> bool:
    return isinstance(value, list | tuple | np.ndarray) and len(value) > 0
