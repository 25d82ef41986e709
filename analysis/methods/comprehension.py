"""Listening-comprehension figures over binary questions (Mirkin et al., EMNLP 2018).

Annotators hear or read a speech and tick, among the argument titles of its motion and side,
those the speaker argued (or "None"). Each (speech, title) pair is one binary question; a
worker's answer gives 1 to the ticked titles and 0 to the others. The input is that binary long
frame — columns ``item`` (speech), ``option`` (title), ``worker``, ``label`` (0/1) and optionally
``mode`` ("listening"/"reading") — and, for the kappas by side, a series item → stance.

Rules that the paper leaves open, fixed here:

- majority: a question is positive when more than half of its ``m`` annotators ticked it; a tie
  (``votes == m / 2``) is negative — a title counts as argued only when most listeners heard it.
- high confidence: at least ``m - 1`` of ``m`` annotators agree. With binary answers and
  ``m <= 3`` that always holds, so the share counts only questions with ``m >= 4`` by default
  (``high_confidence_min_annotators``); the per-question flag of
  :func:`~analysis.methods.comprehension_votes.question_votes` is the bare rule.
- Fleiss' kappa uses the existing generalisation to a variable number of ratings per question
  (Gwet 2014, see :mod:`analysis.methods.agreement.counts`); with a fixed ``m`` it is exactly
  Fleiss (1971).
- kappas are averaged over worker pairs sharing at least ``min_overlap`` binary questions (a
  pair's shared questions may span several speeches); pairs whose kappa is 0/0 are left out.

- a title "labeled as positive at least once" (the paper's 248, ~56%) is one whose label, the
  majority of the speech's annotators, is positive in at least one speech that offered it
  (``titles_labelled_positive_once``); a title that at least one annotator ticked somewhere is
  its own figure (``titles_ticked_once``). Over speeches, ``speeches_with_positive`` counts a
  speech where some annotator ticked a title, ``speeches_with_majority`` one with a pair
  labelled positive.

Intervals come from a bootstrap over **speeches**: a speech is drawn with all its questions,
since questions of one speech share the listener and the speech and are not independent. Every
figure over pairs and speeches is a function of per-speech sums, so the item bootstrap of
:mod:`analysis.methods.agreement.bootstrap` runs on per-speech rows (per-question contributions
summed by speech). The shares of titles are over titles, whose unit is not the speech: they are
drawn by title group (see :mod:`analysis.methods.comprehension_counts`), with the same seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import sparse

from analysis.methods.agreement.bootstrap import (
    Interval,
    ItemAdditive,
    bootstrap_intervals,
)
from analysis.methods.agreement.counts import (
    MultiRaterAgreement,
    counts_statistics,
    fleiss_kappa,
    multi_rater_result,
)
from analysis.methods.agreement.frames import encode_frame, item_label_counts
from analysis.methods.agreement.kappa import (
    PairwiseKappa,
    WorkerPairs,
    pairwise_cohen_kappa,
    pairwise_result,
    pairwise_statistic,
    worker_pairs,
)
from analysis.methods.agreement.votes import (
    PositiveVotes,
    high_confidence_statistic,
    positive_votes,
)
from analysis.methods.comprehension_counts import speech_statistics, title_groups, title_statistics
from analysis.methods.comprehension_votes import binary_frame, question_frame, question_votes

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

STANCES = ("pro", "con")
MODES = ("listening", "reading")


@dataclass(frozen=True)
class Figure:
    """One figure; ``n`` counts the units it is a share or mean over; the interval comes from
    resampling ``unit`` ("speech", or "title group" for the shares of titles)."""

    value: float
    n: int
    interval: Interval | None = None
    unit: str = "speech"

    def to_dict(self) -> dict[str, object]:
        return _fields_dict(self)


@dataclass(frozen=True)
class ComprehensionFigures:
    n_speeches: int
    n_questions: int  # (speech, title) pairs
    n_titles: int  # distinct titles
    n_workers: int
    n_annotations: int  # binary rows
    n_title_groups: int  # titles linked through shared speeches (a motion's side in the paper)
    positive_share: Figure  # questions positive by majority, over questions
    titles_per_speech: Figure
    speeches_with_positive: Figure  # speeches where some annotator ticked a title (the paper's)
    speeches_with_majority: Figure  # speeches with at least one question positive by majority
    titles_ticked_once: Figure  # titles some annotator ticked in a speech that asked them
    titles_labelled_positive_once: Figure  # titles labelled positive (majority) in a speech that asked them: the paper's
    high_confidence_share: Figure  # over questions with m >= high_confidence_min_annotators
    cohen_kappa: PairwiseKappa
    cohen_kappa_pro: PairwiseKappa  # questions of supporting speeches only
    cohen_kappa_con: PairwiseKappa  # questions of opposing speeches only
    fleiss_kappa: MultiRaterAgreement
    positive_votes: PositiveVotes  # Figure 1: counts[m][k] questions with k of m positive votes
    high_confidence_min_annotators: int
    n_boot: int
    seed: int | None
    level: float

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: every field (figures as {value, n, interval, unit}, kappas with their pair
        counts, Figure 1 as {"counts": {m: [...]}, "shares": {m: [...]}}); undefined is None."""
        return _fields_dict(self)


@dataclass(frozen=True)
class ModeFigures:
    mode: str
    n_speeches: int
    n_questions: int
    n_workers: int
    n_annotations: int
    positive_share: float  # questions positive by majority in this mode
    cohen_kappa: PairwiseKappa
    fleiss_kappa: MultiRaterAgreement

    def to_dict(self) -> dict[str, object]:
        return _fields_dict(self)


@dataclass(frozen=True)
class ModeComparison:
    """Listening vs reading on the speeches annotated in both modes."""

    listening: ModeFigures
    reading: ModeFigures
    n_speeches: int  # speeches annotated in both modes
    n_questions: int  # questions asked in both modes
    same_majority_share: float  # of those questions, the share with one majority label in both

    def to_dict(self) -> dict[str, object]:
        return _fields_dict(self)


def comprehension_figures(
    frame: pd.DataFrame,
    stance: pd.Series,
    *,
    min_overlap: int = 1,
    high_confidence_min_annotators: int = 4,
    n_boot: int = 200,
    seed: int | None = 0,
    level: float = 0.95,
) -> ComprehensionFigures:
    """Every figure of the comprehension study, with percentile intervals over speeches.

    ``stance`` maps each item to "pro" or "con" (any case). A frame may hold one mode only:
    listeners and readers are different studies (:func:`mode_comparison` compares them).
    """
    data = binary_frame(frame)
    questions = question_votes(data)
    speech_of_question, speeches = pd.factorize(questions["item"])
    title_of_question, titles = pd.factorize(questions["option"])
    n_speeches = len(speeches)
    sides = speech_stances(stance, speeches)
    long = question_frame(data)
    encoded = encode_frame(long, categories=[0, 1])
    counts = item_label_counts(encoded)

    def by_speech(statistic: ItemAdditive, question_codes: pd.Index) -> ItemAdditive:
        return per_speech(
            statistic, speech_of_question[question_codes.to_numpy(np.int64)], n_speeches
        )

    statistics = speech_statistics(questions, speech_of_question, n_speeches)
    statistics["fleiss_kappa"] = by_speech(counts_statistics(counts)["fleiss_kappa"], encoded.items)
    statistics["high_confidence_share"] = by_speech(
        high_confidence_statistic(counts, slack=1, min_ratings=high_confidence_min_annotators),
        encoded.items,
    )
    kappa_pairs: dict[str, WorkerPairs | None] = {}
    question_side = sides[speech_of_question]
    for name, keep in (
        ("cohen_kappa", np.ones(len(questions), bool)),
        ("cohen_kappa_pro", question_side == "pro"),
        ("cohen_kappa_con", question_side == "con"),
    ):
        subset = long[keep[long["item"].to_numpy()]]
        if subset.empty:
            kappa_pairs[name] = None
            continue
        sub_encoded = encode_frame(subset, categories=[0, 1])
        pairs = worker_pairs(sub_encoded, min_overlap=min_overlap)
        statistic = pairwise_statistic(pairs, weights=None, weighting="mean")
        statistics[name] = by_speech(statistic, sub_encoded.items)
        kappa_pairs[name] = pairs
    intervals = bootstrap_intervals(
        statistics, n_speeches, n_boot=n_boot, seed=seed, confidence=level
    )
    group = title_groups(speech_of_question, title_of_question, n_speeches, len(titles))
    n_groups = int(group.max()) + 1
    by_title = title_statistics(questions, title_of_question, group)
    statistics.update(by_title)
    intervals.update(
        bootstrap_intervals(by_title, n_groups, n_boot=n_boot, seed=seed, confidence=level)
    )

    def figure(name: str, n: int) -> Figure:
        unit = "title group" if name in by_title else "speech"
        return Figure(statistics[name].point()["value"], n, intervals.get(name), unit)

    def kappa(name: str) -> PairwiseKappa:
        pairs, interval = kappa_pairs[name], intervals.get(name)
        if pairs is None:  # no speech on that side
            return PairwiseKappa(math.nan, None, "mean", min_overlap, 0, 0, 0)
        return pairwise_result(
            pairs,
            statistics[name],
            weights=None,
            weighting="mean",
            min_overlap=min_overlap,
            interval=interval,
        )

    eligible = int(statistics["high_confidence_share"].totals[1])
    return ComprehensionFigures(
        n_speeches=n_speeches,
        n_questions=len(questions),
        n_titles=len(titles),
        n_workers=encoded.n_workers,
        n_annotations=encoded.n_annotations,
        n_title_groups=n_groups,
        positive_share=figure("positive_share", len(questions)),
        titles_per_speech=figure("titles_per_speech", n_speeches),
        speeches_with_positive=figure("speeches_with_positive", n_speeches),
        speeches_with_majority=figure("speeches_with_majority", n_speeches),
        titles_ticked_once=figure("titles_ticked_once", len(titles)),
        titles_labelled_positive_once=figure("titles_labelled_positive_once", len(titles)),
        high_confidence_share=figure("high_confidence_share", eligible),
        cohen_kappa=kappa("cohen_kappa"),
        cohen_kappa_pro=kappa("cohen_kappa_pro"),
        cohen_kappa_con=kappa("cohen_kappa_con"),
        fleiss_kappa=multi_rater_result(
            "fleiss_kappa", statistics["fleiss_kappa"], counts, intervals.get("fleiss_kappa")
        ),
        positive_votes=positive_votes(encoded),
        high_confidence_min_annotators=high_confidence_min_annotators,
        n_boot=n_boot,
        seed=seed,
        level=level,
    )


def mode_comparison(frame: pd.DataFrame, *, min_overlap: int = 1) -> ModeComparison:
    """Kappas per mode and agreement of the majority labels, on speeches done in both modes."""
    modes = set(frame["mode"]) if "mode" in frame.columns else {"(no `mode` column)"}
    if not modes <= set(MODES):
        raise ValueError(f"unknown mode(s) {sorted(map(str, modes - set(MODES)))}; known: {MODES}")
    both = set.intersection(*(set(frame.loc[frame["mode"] == mode, "item"]) for mode in MODES))
    if not both:
        raise ValueError("no speech was annotated in both modes")
    shared = frame[frame["item"].isin(both)]
    votes = {mode: question_votes(shared[shared["mode"] == mode]) for mode in MODES}
    joined = votes[MODES[0]].merge(votes[MODES[1]], on=["item", "option"], suffixes=MODES)
    same = (joined[f"majority{MODES[0]}"] == joined[f"majority{MODES[1]}"]).mean()
    figures = {}
    for mode in MODES:
        data = binary_frame(shared[shared["mode"] == mode])
        encoded = encode_frame(question_frame(data), categories=[0, 1])
        figures[mode] = ModeFigures(
            mode=mode,
            n_speeches=int(data["item"].nunique()),
            n_questions=len(votes[mode]),
            n_workers=encoded.n_workers,
            n_annotations=encoded.n_annotations,
            positive_share=float(votes[mode]["majority"].mean()),
            cohen_kappa=pairwise_cohen_kappa(encoded, min_overlap=min_overlap),
            fleiss_kappa=fleiss_kappa(encoded),
        )
    return ModeComparison(
        listening=figures["listening"],
        reading=figures["reading"],
        n_speeches=len(both),
        n_questions=len(joined),
        same_majority_share=float(same) if len(joined) else math.nan,
    )


def speech_stances(stance: pd.Series, speeches: pd.Index) -> np.ndarray:
    """The stance ("pro"/"con") of each speech, in the order of ``speeches``."""
    sides = stance.reindex(speeches)
    if sides.isna().any():
        absent = [str(s) for s in speeches[sides.isna().to_numpy()][:5]]
        raise ValueError(f"no stance for speech(es) {', '.join(absent)}")
    sides = sides.astype(str).str.strip().str.lower()
    odd = sorted(set(sides) - set(STANCES))
    if odd:
        raise ValueError(f"unknown stance(s) {odd}; known: {', '.join(STANCES)}")
    return sides.to_numpy(dtype=object)


def per_speech(statistic: ItemAdditive, speech_of_row: np.ndarray, n_speeches: int) -> ItemAdditive:
    """The same figure with per-question contributions summed into per-speech rows."""

    def build() -> sparse.csr_matrix:
        rows = speech_of_row.size
        gather = sparse.csr_matrix(
            (np.ones(rows), (speech_of_row, np.arange(rows))), shape=(n_speeches, rows)
        )
        return (gather @ statistic.build()).tocsr()

    return ItemAdditive(statistic.totals, build, statistic.finalize, width=statistic.width)


def _fields_dict(record: DataclassInstance) -> dict[str, object]:
    return {field.name: _jsonable(getattr(record, field.name)) for field in fields(record)}


def _jsonable(value: object) -> object:
    if isinstance(value, Figure | ModeFigures):
        return value.to_dict()
    if isinstance(value, PairwiseKappa | MultiRaterAgreement):
        return _fields_dict(value)
    if isinstance(value, tuple):  # a bootstrap interval
        return [_jsonable(bound) for bound in value]
    if isinstance(value, PositiveVotes):
        rows = sorted(value.counts.items())
        return {
            "counts": value.to_dict(),
            "shares": {str(m): [count / sum(row) for count in row] for m, row in rows},
        }
    return _number(value) if isinstance(value, float) else value


def _number(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else float(value)
