"""Content scores of spoken responses against reference responses, and their relation to human scores.

Pure (numpy, pandas, scikit-learn); the command line ``python -m analysis.methods.content_scores``
is in :mod:`.cli`.

- :func:`content_scores` — per response ``base`` (ROUGE-1 recall over tokens against the first
  reference), ``new`` (ROUGE-1 over word types against the first ``k`` references) and ``cva``
  (TF-IDF cosine with the references); :mod:`.scores` holds the definitions.
- :func:`tokenize` / :func:`tokenize_texts` — the words, as ``rouge-score`` makes them, with
  lemmatisation, stop-word removal and stemming as options (:mod:`.tokens`).
- :func:`word_error_rate`, :func:`corpus_word_error_rate` — ASR against manual transcripts.
- :func:`score_relation` — Pearson's r, quadratic weighted kappa after mapping onto the rubric by
  linear regression fitted in cross-validation by speaker (and, labelled so, in-sample), partial r
  with length held constant; :func:`rater_agreement` — QWK,
  ordinal alpha and r per rater pair and averaged.
- :mod:`.study` — the published figures of the study, to lay beside ours.
"""

from __future__ import annotations

from analysis.methods.content_scores.relation import (
    FOLDS,
    RaterAgreement,
    Relation,
    ScaleMapping,
    fit_scale_mapping,
    partial_correlation,
    rater_agreement,
    score_relation,
)
from analysis.methods.content_scores.scores import (
    REFERENCE_COLUMNS,
    RESPONSE_COLUMNS,
    SCORE_COLUMNS,
    ContentScoreError,
    content_scores,
)
from analysis.methods.content_scores.tokens import (
    STOP_WORDS,
    TokenizedTexts,
    tokenize,
    tokenize_texts,
)
from analysis.methods.content_scores.wer import corpus_word_error_rate, word_edits, word_error_rate

__all__ = [
    "FOLDS",
    "REFERENCE_COLUMNS",
    "RESPONSE_COLUMNS",
    "SCORE_COLUMNS",
    "STOP_WORDS",
    "ContentScoreError",
    "RaterAgreement",
    "Relation",
    "ScaleMapping",
    "TokenizedTexts",
    "content_scores",
    "corpus_word_error_rate",
    "fit_scale_mapping",
    "partial_correlation",
    "rater_agreement",
    "score_relation",
    "tokenize",
    "tokenize_texts",
    "word_edits",
    "word_error_rate",
]
