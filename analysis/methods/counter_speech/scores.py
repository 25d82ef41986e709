"""The automatic baselines of Orbach et al. (ACL 2020), section 5.2. Each scorer takes a
supporting speech and its candidates and returns one number per candidate, higher meaning "more
likely the counter".

- ``js`` and ``cosine`` (the paper's "document similarity"): bag-of-terms vectors of stemmed
  unigrams, each count divided by the speech's total count of kept terms; the terms are those
  found in at least 1% of the (supporting, candidate) speech pairs *of the training set*
  (``pair_vocabulary``: a term is in a pair when either speech has it). The paper removes no stop
  words here (it says so for MI and n-grams only), so stop words are terms too unless
  ``stop_words=False`` (the variant that drops them). ``js`` is minus the Jensen–Shannon
  divergence (base 2, in [0, 1]); ``cosine`` the cosine similarity. Scored alone, without a
  vocabulary, every term of the question's own pairs is kept.
- ``mi``: the mutual information (bits) between the binary vectors of the supporting speech and
  the candidate: I(v_s; v_c) over the entries of the vectors, one per term (stemmed unigrams,
  stop words removed) of the corpus: every speech of the questions evaluated together
  (``evaluate``), or of the one question when scored alone. The paper's "bag-of-terms binary
  vectors" live in the corpus's space, where most entries are 0 in both and MI measures shared
  presence. MI is symmetric, though: a candidate that shares *fewer* terms with the speech than
  independence predicts carries information too, and indexed by one question's terms only (the
  entries where both are 0 being just the other candidates' own words) a candidate sharing no
  word at all can score highest. The paper ranks by information *shared*, so a candidate whose
  presence is negatively associated with the speech's (p(1,1) < p_s(1) p_c(1)) scores minus its
  MI: a sign, not a new measure; in the corpus's space same-motion speeches share far more terms
  than chance and the sign never applies (``evaluate`` on the demo: no candidate).
- ``cmi``: the paper's conditional MI, ``sum_k p(k) I(v_s|k; v_c|k)`` for k in {0, 1}, where o_c
  stands for the *other* candidates: entry i of o_c is 1 when any other candidate has term i
  (their vectors combined by "or"), v_s|k and v_c|k are the entries where o_c is k, and p(k) the
  share of entries where it is; each I carries the sign of its association, as for ``mi``. The
  paper calls o_c the "concatenation" of the other vectors; a concatenation end to end would be
  n-1 times longer than v_c and could not pick entries of it, so it is read as the vectors laid
  over each other: a term the others use is "observed" in them. With two candidates the readings
  agree.
- ``ngrs``: 2- to 4-grams of lowercase words without stop words; those found in the supporting
  speech and this candidate and in no other candidate, minus those inside a longer such gram,
  scored by their total length in words. The containment is checked among the shared grams, so a
  quoted two-word phrase still counts when the speeches go on differently around it, and a
  quoted four-word phrase counts 4, not 4 plus its parts.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from analysis.methods.counter_speech.text import maximal, ngrams, stems

METHODS = ("js", "cosine", "mi", "cmi", "ngrs")
MIN_PAIR_SHARE = 0.01  # the paper: terms in at least 1% of the speech pairs


@dataclass(frozen=True)
class Tokens:
    """A question tokenised once, so that every method reuses the same tokens: stems without stop
    words (MI, c-MI and the variant of js and cosine) and with them (the paper's js and cosine)."""

    supporting: Counter[str]
    candidates: tuple[Counter[str], ...]
    supporting_grams: frozenset[tuple[str, ...]]
    candidate_grams: tuple[frozenset[tuple[str, ...]], ...]
    supporting_all: Counter[str]
    candidates_all: tuple[Counter[str], ...]

    @classmethod
    def of(cls, supporting: str, candidates: Sequence[str]) -> Tokens:
        if isinstance(candidates, str):
            raise TypeError("candidates must be a sequence of texts, not one text")
        return cls(Counter(stems(supporting)), tuple(Counter(stems(c)) for c in candidates),
                   frozenset(ngrams(supporting)), tuple(frozenset(ngrams(c)) for c in candidates),
                   Counter(stems(supporting, stop_words=True)),
                   tuple(Counter(stems(c, stop_words=True)) for c in candidates))

    def pairs(self, *, stop_words: bool = False) -> list[set[str]]:
        """The terms of each (supporting, candidate) pair, with stop words or without."""
        s, cs = (self.supporting_all, self.candidates_all) if stop_words else (self.supporting, self.candidates)
        return [set(s) | set(c) for c in cs]

    def counts(self, *, stop_words: bool) -> tuple[Counter[str], tuple[Counter[str], ...]]:
        return (self.supporting_all, self.candidates_all) if stop_words else (self.supporting, self.candidates)


def pair_vocabulary(pairs: Iterable[set[str]], *, min_share: float = MIN_PAIR_SHARE) -> frozenset[str]:
    """The terms found in at least ``min_share`` of the speech pairs (each pair a set of terms)."""
    counts: Counter[str] = Counter()
    total = 0
    for terms in pairs:
        counts.update(terms)
        total += 1
    return frozenset(t for t, n in counts.items() if n >= min_share * total)


def _vectors(counts: Sequence[Counter[str]], vocabulary: Iterable[str]) -> np.ndarray:
    """Count matrix (one row per text) over ``vocabulary``, in a fixed column order."""
    index = {w: i for i, w in enumerate(sorted(vocabulary))}
    out = np.zeros((len(counts), len(index)))
    for row, c in enumerate(counts):
        for w, n in c.items():
            if w in index:
                out[row, index[w]] = n
    return out


@dataclass(frozen=True)
class Terms:
    """What js and cosine count: ``vocabulary`` (None: every term of the question's own pairs)
    and whether stop words are terms."""

    vocabulary: frozenset[str] | None = None
    stop_words: bool = True


def _terms(q: Tokens, terms: Terms) -> tuple[Counter[str], tuple[Counter[str], ...], frozenset[str]]:
    s, cs = q.counts(stop_words=terms.stop_words)
    vocab = pair_vocabulary(q.pairs(stop_words=terms.stop_words)) if terms.vocabulary is None else terms.vocabulary
    return s, cs, vocab


def _js(q: Tokens, terms: Terms) -> np.ndarray:
    supporting, candidates, vocab = _terms(q, terms)
    out = []
    for cand in candidates:
        s, c = _vectors([supporting, cand], vocab)
        if s.sum() == 0 or c.sum() == 0:
            out.append(-1.0)  # nothing to compare: the largest divergence base 2 allows
            continue
        p, r = s / s.sum(), c / c.sum()
        m = (p + r) / 2
        kl = [float(np.sum(x[x > 0] * np.log2(x[x > 0] / m[x > 0]))) for x in (p, r)]
        out.append(-(kl[0] + kl[1]) / 2)
    return np.array(out)


def _cosine(q: Tokens, terms: Terms) -> np.ndarray:
    supporting, candidates, vocab = _terms(q, terms)
    out = []
    for cand in candidates:
        s, c = _vectors([supporting, cand], vocab)
        if s.sum():
            s = s / s.sum()
        if c.sum():
            c = c / c.sum()
        norm = float(np.linalg.norm(s) * np.linalg.norm(c))
        out.append(float(s @ c) / norm if norm else 0.0)
    return np.array(out)


def mutual_information(x: np.ndarray, y: np.ndarray) -> float:
    """I(x; y) in bits between two binary vectors of the same length, from their empirical joint
    distribution over the entries (0 for no entries)."""
    n = len(x)
    if n == 0:
        return 0.0
    total = 0.0
    for a in (0, 1):
        for b in (0, 1):
            joint = float(np.sum((x == a) & (y == b))) / n
            if joint:
                total += joint * math.log2(joint / (float(np.mean(x == a)) * float(np.mean(y == b))))
    return total


def shared_information(x: np.ndarray, y: np.ndarray) -> float:
    """I(x; y) with the sign of the association: minus the mutual information when x and y are 1
    together less often than independence predicts (see the module docstring)."""
    info = mutual_information(x, y)
    n = len(x)
    if n == 0 or info == 0.0:
        return info
    together = float(np.sum((x == 1) & (y == 1))) / n
    return -info if together < float(np.mean(x == 1)) * float(np.mean(y == 1)) else info


def _binary(q: Tokens, vocabulary: frozenset[str] | None) -> tuple[np.ndarray, np.ndarray]:
    vocab = sorted(set(q.supporting).union(*q.candidates) if vocabulary is None else vocabulary)
    s = np.array([w in q.supporting for w in vocab], dtype=int)
    c = np.array([[w in cand for w in vocab] for cand in q.candidates], dtype=int).reshape(len(q.candidates), len(vocab))
    return s, c


def _mi(q: Tokens, vocabulary: frozenset[str] | None = None) -> np.ndarray:
    s, c = _binary(q, vocabulary)
    return np.array([shared_information(s, row) for row in c])


def _cmi(q: Tokens, vocabulary: frozenset[str] | None = None) -> np.ndarray:
    s, c = _binary(q, vocabulary)
    out = []
    for i, row in enumerate(c):
        others = np.delete(c, i, axis=0)
        o = others.max(axis=0) if len(others) else np.zeros_like(row)
        total = 0.0
        for k in (0, 1):
            where = o == k
            if where.any():
                total += float(np.mean(where)) * shared_information(s[where], row[where])
        out.append(total)
    return np.array(out)


def _ngrs(q: Tokens, vocabulary: frozenset[str] | None = None) -> np.ndarray:
    out = []
    for i, grams in enumerate(q.candidate_grams):
        others = frozenset().union(*(g for j, g in enumerate(q.candidate_grams) if j != i))
        distinct = maximal((grams & q.supporting_grams) - others)
        out.append(float(sum(len(g) for g in distinct)))
    return np.array(out)


SIMILARITY = ("js", "cosine")  # scored over Terms; the others over the binary vectors' entries (or none)
SCORERS: dict[str, Callable[[Tokens, Any], np.ndarray]] = {
    "js": _js, "cosine": _cosine, "mi": _mi, "cmi": _cmi, "ngrs": _ngrs}


def check_method(method: str) -> None:
    if method not in SCORERS:
        raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")


def score(method: str, q: Tokens, *, terms: Terms | None = None, entries: frozenset[str] | None = None) -> np.ndarray:
    """One method's scores of a tokenised question: js and cosine over ``terms``, mi and cmi over
    the binary vectors' ``entries`` (None: the question's own)."""
    check_method(method)
    if method in SIMILARITY:
        return SCORERS[method](q, terms or Terms())
    return SCORERS[method](q, entries)


def _public(name: str) -> Callable[..., np.ndarray]:
    def scorer(supporting: str, candidates: Sequence[str], *, vocabulary: Iterable[str] | None = None,
               stop_words: bool = True) -> np.ndarray:
        vocab = None if vocabulary is None else frozenset(vocabulary)
        return score(name, Tokens.of(supporting, candidates), terms=Terms(vocab, stop_words), entries=vocab)

    scorer.__name__ = scorer.__qualname__ = name
    scorer.__doc__ = (f"The ``{name}`` score of each candidate (see the module docstring); higher = the counter. "
                      "``vocabulary``: the terms js and cosine keep (default: this question's pairs'), "
                      "or the entries of mi's and cmi's vectors (default: this question's terms); "
                      "``stop_words``: whether js and cosine count stop words (the paper: yes).")
    return scorer


js, cosine, mi, cmi, ngrs = (_public(name) for name in METHODS)


def rank_candidates(supporting: str, candidates: Sequence[str], *, method: str) -> list[int]:
    """Candidate indices, best first. Ties keep the candidates' order (the earlier shown first)."""
    check_method(method)
    scores = score(method, Tokens.of(supporting, candidates))
    return [int(i) for i in np.argsort(-scores, kind="stable")]
