"""Counter-speech detection (Orbach et al., "Out of the Echo Chamber", ACL 2020): given a
supporting speech and opposing candidates on the same motion, which candidates were recorded in
response to it? The paper's baselines of section 5.2 (``scores``), their top-1 accuracy and MRR
(``evaluation``), and the scoring of annotators (``people``)."""

from analysis.methods.counter_speech.evaluation import (
    ALL,
    TERMS,
    BaselineResult,
    Question,
    RankingScore,
    evaluate,
    motion_split,
    tie_aware,
)
from analysis.methods.counter_speech.people import (
    AnnotatorAccuracy,
    annotator_accuracy,
    reason_profile,
)
from analysis.methods.counter_speech.scores import (
    METHODS,
    MIN_PAIR_SHARE,
    cmi,
    cosine,
    js,
    mi,
    mutual_information,
    ngrs,
    pair_vocabulary,
    rank_candidates,
    shared_information,
)
from analysis.methods.counter_speech.text import NGRAM_SIZES, maximal, ngrams, stems, terms, words

__all__ = [
    "ALL", "METHODS", "MIN_PAIR_SHARE", "NGRAM_SIZES", "AnnotatorAccuracy", "BaselineResult", "Question",
    "RankingScore", "TERMS", "annotator_accuracy", "cmi", "cosine", "evaluate", "js", "maximal", "mi", "motion_split",
    "mutual_information", "ngrams", "ngrs", "pair_vocabulary", "rank_candidates", "reason_profile",
    "shared_information", "stems", "terms", "tie_aware", "words",
]
