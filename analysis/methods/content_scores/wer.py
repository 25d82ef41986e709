"""Word error rate of a hypothesis (an ASR transcript) against a reference (the manual transcript).

Both texts are split into words as :mod:`.tokens` does (lower case, runs of letters and digits),
so case and punctuation never count as errors. The edits are the Levenshtein distance over words
(substitutions, deletions and insertions, each costing 1); ``WER = edits / reference words``. Over
many responses the corpus WER sums the edits and divides by the summed reference words (longer
responses weigh more, as in the usual reporting of ASR error rates).

The distance comes from rapidfuzz (C++, on sequences of word ids), which a test checks against
a textbook dynamic programme.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import pandas as pd
from rapidfuzz.distance import Levenshtein

from analysis.methods.content_scores.tokens import tokenize_texts


def word_edits(
    reference: Sequence[int] | np.ndarray, hypothesis: Sequence[int] | np.ndarray
) -> int:
    """Levenshtein distance between two sequences of word ids (rapidfuzz's C++ implementation:
    a report scores every response's ASR transcript against its manual one)."""
    ref = reference.tolist() if isinstance(reference, np.ndarray) else list(reference)
    hyp = hypothesis.tolist() if isinstance(hypothesis, np.ndarray) else list(hypothesis)
    return int(Levenshtein.distance(ref, hyp))


def word_error_rate(reference: str, hypothesis: str) -> float:
    """Edits / reference words. Raises ``ValueError`` when the reference has no word."""
    tokens = tokenize_texts([reference, hypothesis])
    n_reference = int(tokens.lengths[0])
    if n_reference == 0:
        raise ValueError("the reference transcript has no word; its word error rate is undefined")
    edits = word_edits(tokens.ids[: tokens.offsets[1]], tokens.ids[tokens.offsets[1] :])
    return edits / n_reference


def corpus_word_error_rate(
    *,
    references: Sequence[str],
    hypotheses: Sequence[str],
    groups: Sequence[Hashable] | None = None,
) -> pd.DataFrame:
    """``group, n_responses, reference_words, edits, wer`` per group (one row ``group=None``
    without ``groups``): summed edits over summed reference words, NaN for a group without
    reference words."""
    if len(references) != len(hypotheses) or (
        groups is not None and len(groups) != len(references)
    ):
        raise ValueError("references, hypotheses and groups need one entry per response")
    tokens = tokenize_texts([*references, *hypotheses])
    n = len(references)
    offsets = tokens.offsets
    edits = np.fromiter(
        (
            word_edits(
                tokens.ids[offsets[i] : offsets[i + 1]],
                tokens.ids[offsets[n + i] : offsets[n + i + 1]],
            )
            for i in range(n)
        ),
        dtype=np.int64,
        count=n,
    )
    frame = pd.DataFrame(
        {
            "group": list(groups) if groups is not None else [None] * n,
            "reference_words": tokens.lengths[:n],
            "edits": edits,
        }
    )
    summary = frame.groupby("group", sort=True, dropna=False).agg(
        n_responses=("edits", "size"),
        reference_words=("reference_words", "sum"),
        edits=("edits", "sum"),
    )
    words = summary["reference_words"].to_numpy(dtype=float)
    summary["wer"] = np.divide(
        summary["edits"].to_numpy(dtype=float),
        words,
        out=np.full(words.shape, np.nan),
        where=words > 0,
    )
    return summary.reset_index()
