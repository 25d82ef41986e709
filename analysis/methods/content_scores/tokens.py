"""Words of a text as the ``rouge-score`` package makes them, as integer ids for many texts at once.

A text is lower-cased and split into runs of ASCII letters and digits (``[a-z0-9]+`` after
``str.lower()``): everything else — punctuation, apostrophes, hyphens, accented letters — separates
words, exactly as ``rouge_score.tokenize.tokenize``. Options:

- ``stopwords``: drop the words of scikit-learn's fixed English list
  (``sklearn.feature_extraction.text.ENGLISH_STOP_WORDS``, 318 words, the Glasgow list), matched
  on the lower-cased word before stemming.
- ``stem``: Porter's stemmer (the original 1980 algorithm, ``snowballstemmer``'s ``"porter"``,
  the same stems as NLTK's ``PorterStemmer(mode=ORIGINAL_ALGORITHM)``) on words longer than three
  characters, as ``rouge-score``'s ``use_stemmer`` does. ``rouge-score`` stems with NLTK's default
  mode (NLTK's extensions), which differs on about 2 % of word forms (``plays``: ``plai`` here,
  ``play`` there).

Lemmatisation is not offered: the usual lemmatiser (NLTK's WordNet) needs data files that are
not shipped with the platform.

Every text of a call shares one vocabulary, so word ids compare across texts; stemming and the
stop list act on the vocabulary, once per distinct word.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import snowballstemmer
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

_KEPT = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789")
_SEPARATORS = bytes(byte if byte in _KEPT else 0x20 for byte in range(256))
_MARKER = b" \x01 "
STOP_WORDS: frozenset[str] = frozenset(ENGLISH_STOP_WORDS)


@dataclass(frozen=True)
class TokenizedTexts:
    """The words of ``n_texts`` texts as ids into ``vocabulary``, text after text."""

    ids: np.ndarray  # int64, every word of every text in order
    offsets: np.ndarray  # int64, n_texts + 1: text t holds ids[offsets[t]:offsets[t + 1]]
    vocabulary: np.ndarray  # object array of the distinct (stemmed) words

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


def tokenize(text: str, *, stem: bool = False, stopwords: bool = False) -> list[str]:
    """The words of one text (see the module's rules)."""
    return tokenize_texts([text], stem=stem, stopwords=stopwords).words(0)


def tokenize_texts(
    texts: Iterable[str], *, stem: bool = False, stopwords: bool = False
) -> TokenizedTexts:
    # bytes.translate + split run in C, several times faster than a regular expression per text.
    # Lower-casing comes first (on str, as rouge-score does); a character it leaves outside
    # ASCII becomes "?" and then a space. Texts are joined around a marker byte that no
    # translated text holds, and split once.
    translated = [text.lower().encode("ascii", "replace").translate(_SEPARATORS) for text in texts]
    pieces = np.array(_MARKER.join(translated).decode("ascii").split(), dtype=object)
    is_marker = pieces == "\x01"
    n_texts = len(translated)
    text_of_piece = np.cumsum(is_marker)
    words = pieces[~is_marker]
    lengths = np.bincount(text_of_piece[~is_marker], minlength=n_texts).astype(np.int64)
    codes, uniques = pd.factorize(words)
    ids = codes.astype(np.int64, copy=False)
    vocabulary = np.asarray(uniques, dtype=object)
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
        stems = np.array(
            [stemmer.stemWord(word) if len(word) > 3 else word for word in vocabulary], dtype=object
        )
        stem_codes, vocabulary = pd.factorize(stems)
        ids = stem_codes.astype(np.int64)[ids]
        vocabulary = np.asarray(vocabulary, dtype=object)
    offsets = np.zeros(n_texts + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return TokenizedTexts(ids=ids, offsets=offsets, vocabulary=vocabulary)
