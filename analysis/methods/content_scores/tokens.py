"""Words of a text as the ``rouge-score`` package makes them, as integer ids for many texts at once.

A text is lower-cased and split into runs of ASCII letters and digits (``[a-z0-9]+`` after
``str.lower()``): everything else — punctuation, apostrophes, hyphens, accented letters — separates
words, exactly as ``rouge_score.tokenize.tokenize``. Options, applied to each lower-cased word in
this order — lemma, then stop-word removal, then stem:

- ``lemmatize``: the word's English lemma from ``simplemma`` (a dictionary of word forms shipped
  with the package, no download: ``went`` → ``go``, ``children`` → ``child``, ``studies`` →
  ``study``); a word the dictionary does not hold stays as it is. The lemma is lower-cased; a
  lemma that is then not a single run of letters and digits (``1850s`` → ``eighteen-fifties``)
  leaves the word as it is, so a word never becomes two.
- ``stopwords``: drop the words of scikit-learn's fixed English list
  (``sklearn.feature_extraction.text.ENGLISH_STOP_WORDS``, 318 words, the Glasgow list), matched
  on the lower-cased word before stemming; with ``lemmatize``, on its lemma (``did`` → ``do`` is
  dropped, ``made`` → ``make`` is kept, although ``made`` is on the list and ``did`` is not).
- ``stem``: Porter's stemmer (the original 1980 algorithm, ``snowballstemmer``'s ``"porter"``,
  the same stems as NLTK's ``PorterStemmer(mode=ORIGINAL_ALGORITHM)``) on words longer than three
  characters, as ``rouge-score``'s ``use_stemmer`` does; with ``lemmatize`` it stems the lemma.
  ``rouge-score`` stems with NLTK's default mode (NLTK's extensions), which differs on about 2 %
  of word forms (``plays``: ``plai`` here, ``play`` there).

Every text of a call shares one vocabulary, so word ids compare across texts; lemmas, the stop
list and stems act on the vocabulary, once per distinct word (lemmas are cached across calls).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
import simplemma
import snowballstemmer
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

_KEPT = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789")
_SEPARATORS = bytes(byte if byte in _KEPT else 0x20 for byte in range(256))
_MARKER = b" \x01 "
_CHUNK_TEXTS = 10_000
STOP_WORDS: frozenset[str] = frozenset(ENGLISH_STOP_WORDS)
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class TokenizedTexts:
    """The words of ``n_texts`` texts as ids into ``vocabulary``, text after text."""

    ids: np.ndarray  # int64, every word of every text in order
    offsets: np.ndarray  # int64, n_texts + 1: text t holds ids[offsets[t]:offsets[t + 1]]
    vocabulary: np.ndarray  # object array of the distinct words (lemmas, stems with the options)

    @property
    def n_texts(self) -> int:
        return int(self.offsets.size - 1)

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def text_of_token(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_texts, dtype=np.int64), self.lengths)

    def words(self, text: int) -> list[str]:
        return [
            str(w) for w in self.vocabulary[self.ids[self.offsets[text] : self.offsets[text + 1]]]
        ]


@lru_cache(maxsize=1 << 17)
def lemma(word: str) -> str:
    """The English lemma of a lower-cased word, or the word itself when the lemma is not one run
    of lower-case letters and digits."""
    found = simplemma.lemmatize(word, lang="en").lower()
    return found if _WORD.fullmatch(found) else word


def tokenize(
    text: str, *, stem: bool = False, stopwords: bool = False, lemmatize: bool = False
) -> list[str]:
    """The words of one text (see the module's rules)."""
    return tokenize_texts([text], stem=stem, stopwords=stopwords, lemmatize=lemmatize).words(0)


def tokenize_texts(
    texts: Iterable[str],
    *,
    stem: bool = False,
    stopwords: bool = False,
    lemmatize: bool = False,
) -> TokenizedTexts:
    # bytes.translate + split run in C, several times faster than a regular expression per text.
    # Lower-casing comes first (on str, as rouge-score does); a character it leaves outside
    # ASCII becomes "?" and then a space. A chunk of texts is joined around a marker byte that
    # no translated text holds, and split once; chunks bound the memory the word strings take.
    texts = list(texts)
    n_texts = len(texts)
    lengths = np.zeros(n_texts, dtype=np.int64)
    id_of: dict[str, int] = {}
    chunk_ids = []
    for start in range(0, n_texts, _CHUNK_TEXTS):
        chunk = texts[start : start + _CHUNK_TEXTS]
        translated = [t.lower().encode("ascii", "replace").translate(_SEPARATORS) for t in chunk]
        pieces = np.array(_MARKER.join(translated).decode("ascii").split(), dtype=object)
        is_marker = pieces == "\x01"
        text_of_piece = np.cumsum(is_marker)[~is_marker]
        lengths[start : start + len(chunk)] = np.bincount(text_of_piece, minlength=len(chunk))
        codes, uniques = pd.factorize(pieces[~is_marker])
        to_global = np.fromiter(
            (id_of.setdefault(word, len(id_of)) for word in uniques),
            dtype=np.int64,
            count=len(uniques),
        )
        chunk_ids.append(to_global[codes])
    ids = np.concatenate(chunk_ids) if chunk_ids else np.zeros(0, dtype=np.int64)
    vocabulary = np.array(list(id_of), dtype=object)
    if lemmatize and vocabulary.size:
        ids, vocabulary = _merge(ids, [lemma(word) for word in vocabulary])
    if stopwords and vocabulary.size:
        keep_word = np.fromiter(
            (word not in STOP_WORDS for word in vocabulary), dtype=bool, count=vocabulary.size
        )
        keep = keep_word[ids]
        text_of_token = np.repeat(np.arange(n_texts), lengths)
        lengths = np.bincount(text_of_token[keep], minlength=n_texts).astype(np.int64)
        ids = ids[keep]
    if stem and vocabulary.size:
        stemmer = snowballstemmer.stemmer("porter")
        ids, vocabulary = _merge(
            ids, [stemmer.stemWord(word) if len(word) > 3 else word for word in vocabulary]
        )
    offsets = np.zeros(n_texts + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return TokenizedTexts(ids=ids, offsets=offsets, vocabulary=vocabulary)


def _merge(ids: np.ndarray, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Word ids and vocabulary after replacing vocabulary word ``i`` by ``words[i]``: words that
    become the same share one id."""
    codes, vocabulary = pd.factorize(np.array(words, dtype=object))
    return codes.astype(np.int64)[ids], np.asarray(vocabulary, dtype=object)
