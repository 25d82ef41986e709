"""Tokens of a speech for the counter-speech baselines: lowercase words, scikit-learn's English
stop words, Snowball English stems, and the stop-word-free n-grams of the ``ngrs`` method."""

from __future__ import annotations

import re
from collections.abc import Collection

import snowballstemmer
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

NGRAM_SIZES = (2, 3, 4)
_WORD = re.compile(r"(?:[^\W_]|')+")  # letters (any script), digits, apostrophes
_STEMMER = snowballstemmer.stemmer("english")
_STEMS: dict[str, str] = {}

Gram = tuple[str, ...]


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


def terms(text: str) -> set[str]:
    """The speech as a set of stemmed unigrams without stop words (the binary vectors of MI)."""
    return set(stems(text))


def ngrams(text: str) -> set[Gram]:
    """The 2-, 3- and 4-grams of a speech's lowercase words that contain no stop word: n-grams
    are taken inside each run of consecutive non-stop words."""
    grams: set[Gram] = set()
    run: list[str] = []
    for w in [*words(text), ""]:  # the empty word ends the last run
        if w and w not in ENGLISH_STOP_WORDS:
            run.append(w)
            continue
        grams |= {tuple(run[i : i + n]) for n in NGRAM_SIZES for i in range(len(run) - n + 1)}
        run = []
    return grams


def _inside(short: Gram, long: Gram) -> bool:
    n = len(short)
    return any(long[i : i + n] == short for i in range(len(long) - n + 1))


def maximal(grams: Collection[Gram]) -> set[Gram]:
    """The grams not contained (as a contiguous run) in a longer gram of the same set."""
    return {g for g in grams if not any(len(h) > len(g) and _inside(g, h) for h in grams)}
