"""Review of the reasons workers give with their labels (the manual check of Habernal & Gurevych,
made systematic).

A reason is suspicious when it is
- **reused**: the same or a near-identical reason (Jaccard similarity of word bigrams at least
  ``near``) given by the same worker for another item;
- **copied**: at least ``copy_share`` of its word 4-grams occur in the item's argument texts;
- **nonsense**: fewer than two words, mostly not letters, mostly words without a vowel, or (in
  a project of at least ``VOCABULARY_MIN_REASONS`` reasons) mostly words seen nowhere else: in
  no argument text and in the reasons of at most one worker;
- **off-task**: it shares no content word with the arguments and uses none of the words people
  use to compare arguments (``COMPARISON_WORDS``).
A worker is flagged when at least ``flag_share`` of their (at least ``min_reasons``) reasons are
suspicious for one of these causes.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

CAUSES = ("reused", "copied", "nonsense", "off_task")
COMPARISON_WORDS = frozenset(
    "a1 a2 arg arg1 arg2 argument arguments first second both neither either one other convincing "
    "convince convinces convinced persuasive more less better worse stronger weaker strong weak "
    "evidence example examples fact facts point points reason reasons reasoning source sources "
    "logic logical explain explains explained opinion opinions claim claims support supports "
    "proof proves clear clearer detail details detailed valid relevant statistics data "
    "cites cite mentions mention states state says say argues argue talks talk addresses address "
    "shows show gives give uses use makes make provides provide lists backs focuses discusses "
    "answers answer describes prefer prefers preferred winner wins win loses agree agrees disagree "
    "persuades persuade compelling credible".split()
)
STOPWORDS = frozenset(
    "the a an and or but of to in on for with is are was were be been it its this that these those "
    "as at by from not no yes so if than then there their they them he she his her i you we our "
    "your my me do does did has have had can could would should will just about what which who "
    "all any some very also only more most much many".split()
)
VOCABULARY_MIN_REASONS = 1000
_VOWEL = re.compile(r"[aeiouy]")
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_A_LABEL = re.compile(r"\ba\s*([12])\b")


def _words(text: str) -> list[str]:
    return _WORD.findall(_A_LABEL.sub(r"a\1", text.lower()))


def _ngrams(words: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


@dataclass(frozen=True)
class ReasonReview:
    """``per_reason`` is aligned with the input rows (one boolean column per cause);
    ``per_worker`` has the number of reasons, the share per cause, and the flags."""

    per_reason: pd.DataFrame
    per_worker: pd.DataFrame
    near: float
    copy_share: float
    flag_share: float
    min_reasons: int


def _reused(workers: np.ndarray, words: list[list[str]], near: float) -> np.ndarray:
    """Whether each reason has a near-identical one from the same worker (word bigram Jaccard).

    A worker's exact repeats are grouped first, so a worker who pastes one reason a thousand
    times costs a thousand rows, not a million pairs. Among each worker's distinct reasons, only
    pairs that share one of the rarest bigrams of both are compared (the prefix filter of
    set-similarity joins: two sets with Jaccard at least ``near`` share one of the first
    ``size - ceil(near * size) + 1`` of their tokens in any one global order), so common bigrams
    such as "a1 is" pair nothing by themselves. The candidates' Jaccard is then computed exactly.
    """
    out = np.zeros(len(words), dtype=bool)
    if not words:
        return out
    codes, _ = pd.factorize(pd.Series([f"{w}\x00{' '.join(ws)}" for w, ws in zip(workers, words, strict=True)],
                                      dtype=object))
    out |= np.bincount(codes)[codes] > 1
    _, first = np.unique(codes, return_index=True)
    # Shingles keyed by (worker, bigram): tokens of different workers never meet.
    shingles = [sorted({f"{workers[i]}\x00{a} {b}" for a, b in _ngrams(["^", *words[i], "$"], 2)}) for i in first]
    sizes = np.array([len(s) for s in shingles])
    rows = np.repeat(np.arange(len(first)), sizes)
    tokens, _ = pd.factorize(pd.Series([t for s in shingles for t in s], dtype=object))
    # Rarest first, ties by token: one global order for every set.
    frequency = np.bincount(tokens)
    order = np.lexsort((tokens, frequency[tokens], rows))
    rows, tokens = rows[order], tokens[order]
    rank = np.arange(len(rows)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    prefix = sizes - np.ceil(near * sizes - 1e-9).astype(int) + 1
    keep = rank < prefix[rows]
    shape = (len(first), int(tokens.max()) + 1)
    full = sparse.csr_matrix((np.ones(len(rows), dtype=np.int32), (rows, tokens)), shape=shape)
    head = sparse.csr_matrix((np.ones(int(keep.sum()), dtype=np.int32), (rows[keep], tokens[keep])), shape=shape)
    candidates = sparse.triu(head @ head.T, k=1).tocoo()
    a, b = candidates.row, candidates.col
    # A Jaccard of at least near needs the smaller set to be at least near times the larger.
    fits = np.minimum(sizes[a], sizes[b]) >= near * np.maximum(sizes[a], sizes[b]) - 1e-9
    a, b = a[fits], b[fits]
    similar_rep = np.zeros(len(first), dtype=bool)
    for start in range(0, len(a), 1_000_000):
        x, y = a[start:start + 1_000_000], b[start:start + 1_000_000]
        inter = np.asarray(full[x].multiply(full[y]).sum(axis=1)).ravel()
        hit = inter >= near * (sizes[x] + sizes[y] - inter) - 1e-9
        similar_rep[x[hit]] = True
        similar_rep[y[hit]] = True
    out |= similar_rep[codes]
    return out


def review_reasons(
    votes: pd.DataFrame,
    texts: pd.Series,
    *,
    near: float = 0.8,
    copy_share: float = 0.5,
    flag_share: float = 0.5,
    min_reasons: int = 5,
) -> ReasonReview:
    """Review the ``reason`` of each row of ``votes`` (columns ``item``, ``worker``, ``reason``);
    ``texts`` maps an item to the text of its arguments (joined)."""
    missing = {"item", "worker", "reason"} - set(votes.columns)
    if missing:
        raise ValueError(f"votes lack column(s) {sorted(missing)}")
    reasons = votes["reason"].fillna("").astype(str).tolist()
    words = [_words(r) for r in reasons]
    workers = votes["worker"].astype(str).to_numpy()
    item_words = {item: _words(str(text)) for item, text in texts.items()}
    item_grams = {item: _ngrams(w, 4) for item, w in item_words.items()}
    item_vocab = {item: set(w) for item, w in item_words.items()}
    # Words used by at least two workers, or found in any argument, count as real words.
    argument_vocab = set().union(*item_vocab.values()) if item_vocab else set()
    users: dict[str, set[str]] = {}
    for worker, ws in zip(workers, words, strict=True):
        for w in set(ws):
            users.setdefault(w, set()).add(worker)
    known = argument_vocab | {w for w, who in users.items() if len(who) > 1}
    # "Seen nowhere else" means something only in a corpus large enough to have a vocabulary.
    judge_vocabulary = len(reasons) >= VOCABULARY_MIN_REASONS

    reused = _reused(workers, words, near)
    copied = np.zeros(len(reasons), dtype=bool)
    nonsense = np.zeros(len(reasons), dtype=bool)
    off_task = np.zeros(len(reasons), dtype=bool)
    for i, (item, text, ws) in enumerate(zip(votes["item"].tolist(), reasons, words, strict=True)):
        grams = _ngrams(ws, 4)
        if grams:
            copied[i] = len(grams & item_grams.get(item, set())) / len(grams) >= copy_share
        letters = sum(map(str.isalpha, text))
        visible = len(text) - sum(map(str.isspace, text))
        alpha_words = [w for w in ws if w.isalpha()]
        unknown = sum(w not in known for w in alpha_words) if judge_vocabulary else 0
        voweless = sum(len(w) >= 3 and not _VOWEL.search(w) for w in alpha_words)
        nonsense[i] = (
            len(alpha_words) < 2
            or letters < 0.5 * max(visible, 1)
            or voweless >= 0.5 * len(alpha_words)
            or (judge_vocabulary and unknown >= 0.6 * len(alpha_words))
        )
        content = {w for w in ws if len(w) >= 4 and w not in STOPWORDS}
        off_task[i] = not (content & item_vocab.get(item, set())) and not (
            set(ws) & COMPARISON_WORDS
        )
    per_reason = pd.DataFrame(
        {"reused": reused, "copied": copied, "nonsense": nonsense, "off_task": off_task},
        index=votes.index,
    )
    grouped = per_reason.groupby(workers)
    per_worker = grouped.mean().add_suffix("_share")
    per_worker.insert(0, "reasons", grouped.size())
    counts = Counter(workers)
    flags = []
    for worker, row in per_worker.iterrows():
        hit = [
            c for c in CAUSES if counts[worker] >= min_reasons and row[f"{c}_share"] >= flag_share
        ]
        flags.append(hit)
    per_worker["flagged"] = flags
    per_worker.index.name = "worker"
    return ReasonReview(
        per_reason=per_reason,
        per_worker=per_worker,
        near=near,
        copy_share=copy_share,
        flag_share=flag_share,
        min_reasons=min_reasons,
    )


def best_worker_accuracy(
    votes: pd.DataFrame, gold: pd.Series, competence: pd.Series
) -> tuple[float | None, int]:
    """Human performance as the paper estimates it: on each pair with a gold label, the vote of
    its most competent worker (by MACE) against the gold label. Returns (accuracy, pairs)."""
    labelled = votes[votes["item"].isin(gold.dropna().index)]
    if labelled.empty:
        return None, 0
    ranked = labelled.assign(competence=competence.reindex(labelled["worker"]).to_numpy())
    best = ranked.sort_values(
        ["item", "competence"], ascending=[True, False], kind="stable"
    ).drop_duplicates("item")
    correct = best["label"].to_numpy() == gold.reindex(best["item"]).to_numpy()
    return float(correct.mean()), int(len(best))
