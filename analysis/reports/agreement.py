"""The agreement report of any project: every agreement figure with bootstrap intervals, MACE
worker competence, a worker table with flags, label votes per item, and agreement as the
annotations accumulated.

The task type's label level decides how: nominal, ordinal and interval labels (in the order of
the type's categories) are items' labels as they are; set-valued answers ("set") are read as one
binary question per (item, option) for every figure, MACE and the worker table, and are also
measured as whole sets (alpha with MASI and Jaccard distances) and option by option.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from django.conf import settings

from analysis.methods.agreement import (
    agreement_report,
    krippendorff_alpha,
    percent_agreement,
    positive_votes,
)
from analysis.methods.agreement.alpha import AlphaLevel
from analysis.methods.mace import MaceFrameResult, MaceTooLarge, mace_frame
from analysis.methods.mace.bootstrap import competence_intervals_frame
from analysis.methods.mace.layout import RESTARTS_PER_BLOCK
from analysis.reports import Param, Progress, Report, ReportInput

# Separates item and option in the id of a binary question of a set-valued answer.
QUESTION_SEPARATOR = " · "
# Options listed one by one in a set-valued report: the most annotated ones.
OPTIONS_SHOWN = 200
# A worker is flagged when...
LOW_COMPETENCE = 0.25  # MACE thinks they mostly guess,
FAST_FACTOR = 1 / 3  # their median time is under a third of the project's median,
ONE_LABEL_SHARE = 0.9  # or one label makes up 90% of their (at least 10) answers.
# The flag of a rank that rests on fewer annotations than the report's ``min_annotations``.
FEW_ANNOTATIONS = "few annotations"
# Coverage of each worker's competence interval (the bootstrap's percentiles).
COMPETENCE_LEVEL = 0.95
# The result keeps the posterior of an item's MACE label only under this bar (the adjudication
# queue's "low posterior" reads them): confident items, most of a project, take no room.
POSTERIOR_KEPT_BELOW = 0.9


class MaceRefused(RuntimeError):
    """MACE would need more memory than a job may use: the run fails with this message instead
    of the worker being killed for memory."""


def run_mace(frame: pd.DataFrame, *, restarts: int, **options) -> MaceFrameResult:
    """mace_frame within the platform's memory limit (MACE_MAX_MEMORY_MB), turning a refusal
    into advice in the report's own terms (its parameters)."""
    try:
        return mace_frame(frame, restarts=restarts, max_memory=settings.MACE_MAX_MEMORY_BYTES, **options)
    except MaceTooLarge as refusal:
        advice = ("raise the platform's limit MACE_MAX_MEMORY_MB (now "
                  f"{settings.MACE_MAX_MEMORY_BYTES // 2**20:,} MB) if the machine has the memory, or export "
                  "the annotations and run python -m analysis.methods.mace with a higher --max-memory")
        if refusal.blocks > 1 and restarts > RESTARTS_PER_BLOCK:
            advice = (f"set mace_restarts to {RESTARTS_PER_BLOCK} or fewer (one block of restarts at a "
                      f"time needs less), or {advice}")
        raise MaceRefused(f"MACE was not run: {refusal.problem}. To go ahead, {advice}.") from None


def add_competence_intervals(workers: list[dict[str, Any]], labels: pd.DataFrame, *, replicates: int,
                             **options) -> None:
    """Give each worker row ``competence_low`` and ``competence_high``: the percentile interval
    of the worker's competence over MACE runs on items drawn with replacement (None for a worker
    no replicate saw)."""
    try:
        found = competence_intervals_frame(labels, replicates=replicates, level=COMPETENCE_LEVEL,
                                           max_memory=settings.MACE_MAX_MEMORY_BYTES, **options)
    except MaceTooLarge as refusal:
        raise MaceRefused(f"the competence intervals were not computed: {refusal.problem}. Set "
                          "competence_replicates to 0 or raise MACE_MAX_MEMORY_MB.") from None
    by_name = {str(k): (low, high) for k, low, high in zip(found.index, found["low"], found["high"], strict=True)}
    for row in workers:
        low, high = by_name.get(row["worker"], (None, None))
        row["competence_low"], row["competence_high"] = _number(low), _number(high)


def _number(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return None if np.isnan(value) else round(value, 6)


def worker_table(frame: pd.DataFrame, mace_labels: pd.Series, competence: pd.Series,
                 ranking: pd.Index, n_labels: int, *, min_annotations: int = 10,
                 answers: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """One row per worker: volume, MACE competence and rank, agreement with the MACE label,
    median seconds, and flags that deserve a look. A rank from fewer than ``min_annotations``
    annotations is flagged: MACE's competence for such a worker is mostly its prior.

    ``answers`` (columns ``worker``, ``label``: one row per answer) counts whole answers when the
    frame holds several rows per answer (binary questions of sets): the volume, the "few" flag
    and the "one label" flag then read answers, not rows."""
    gold = frame["item"].map(mace_labels)
    match = (frame["label"] == gold).where(gold.notna()).astype(float)
    by_worker = frame.assign(match=match).groupby("worker", sort=False)
    table = pd.DataFrame({
        "annotations": by_worker.size(),
        "median_seconds": by_worker["seconds"].median(),
        "agreement_with_mace": by_worker["match"].mean(),
    })
    volume = frame if answers is None else answers
    if answers is not None:
        table["annotations"] = answers.groupby("worker", sort=False).size().reindex(table.index).fillna(0)
    top = volume.groupby(["worker", "label"], sort=False).size().groupby(level=0).max()
    table["top_share"] = top.reindex(table.index) / table["annotations"]
    table["competence"] = competence.reindex(table.index)
    table["rank"] = pd.Series(np.arange(1, len(ranking) + 1), index=ranking).reindex(table.index)
    overall_median = frame["seconds"].median()
    low = table["competence"] < LOW_COMPETENCE
    fast = table["median_seconds"] < FAST_FACTOR * overall_median if pd.notna(overall_median) else low & False
    one_label = (table["annotations"] >= 10) & (table["top_share"] >= ONE_LABEL_SHARE) & (n_labels > 1)
    few = table["annotations"] < min_annotations
    table = table.sort_values("rank", na_position="last")
    rows = []
    for worker, r in table.iterrows():
        flags = [name for name, hit in (("low competence", low.at[worker]), ("fast", fast.at[worker]),
                                        ("one label", one_label.at[worker]), (FEW_ANNOTATIONS, few.at[worker])) if hit]
        rows.append({
            "worker": str(worker),
            "annotations": int(r["annotations"]),
            "competence": _number(r["competence"]),
            "rank": None if pd.isna(r["rank"]) else int(r["rank"]),
            "agreement_with_mace": _number(r["agreement_with_mace"]),
            "median_seconds": _number(r["median_seconds"]),
            "flags": flags,
        })
    return rows


def label_posteriors(mace: MaceFrameResult) -> pd.Series:
    """Item -> the posterior of its MACE label (the largest of its posteriors), read from the
    sparse posteriors without making them dense."""
    sparse = mace.arrays.item_posteriors
    n = sparse.shape[0]
    best = np.where(sparse.others() > 0, sparse.other, -np.inf).astype(float)
    present = sparse.listed() > 0
    if sparse.values.size:
        starts = np.searchsorted(sparse.rows, np.arange(n))
        best[present] = np.maximum(best[present], np.maximum.reduceat(sparse.values, starts[present]))
    return pd.Series(best, index=mace.labels.index).where(mace.labels.notna())


def low_posteriors(mace: MaceFrameResult, *, questions: pd.DataFrame | None = None,
                   frame: pd.DataFrame | None = None) -> dict[str, Any]:
    """The compact ``posterior`` of the result: items whose MACE label has a posterior under
    POSTERIOR_KEPT_BELOW, rounded to 3 places. For sets (``questions``: the binary frame, row
    for row with the item ``frame``) an item's posterior is the lowest of its options'."""
    posterior = label_posteriors(mace)
    if questions is not None and frame is not None:
        item_of = pd.Series(frame["item"].to_numpy(), index=questions["item"].to_numpy())
        item_of = item_of[~item_of.index.duplicated()]
        posterior = posterior.groupby(item_of.reindex(posterior.index).to_numpy()).min()
    low = posterior[posterior < POSTERIOR_KEPT_BELOW].dropna()
    return {"below": POSTERIOR_KEPT_BELOW, "items": {str(k): round(float(v), 3) for k, v in low.items()}}


def accumulation_curve(frame: pd.DataFrame, *, points: int, level: AlphaLevel,
                       categories: list | None = None) -> list[dict[str, Any]]:
    """Agreement on the first k annotations in submission order, for ``points`` values of k."""
    n = len(frame)
    if n == 0:
        return []
    sizes = sorted({int(round(n * (i + 1) / points)) for i in range(points)} - {0})
    curve = []
    for k in sizes:
        head = frame.iloc[:k]
        alpha = krippendorff_alpha(head, level=level, categories=categories)
        pct = percent_agreement(head)
        curve.append({
            "annotations": k,
            "items": int(head["item"].nunique()),
            "krippendorff_alpha": _number(alpha.value),
            "percent_agreement": _number(pct.value),
        })
    return curve


def label_votes(frame: pd.DataFrame) -> dict[str, dict[str, list[int]]]:
    """For each label, how many items with m answers got 0..m votes for it (each (item, label)
    is a binary question)."""
    labels = sorted(frame["label"].unique(), key=str)
    out = {}
    for label in labels:
        binary = frame.assign(label=(frame["label"] == label).astype(int))
        out[str(label)] = positive_votes(binary).to_dict()
    return out


def binary_questions(frame: pd.DataFrame) -> pd.DataFrame:
    """A set-valued long frame (``option`` and a 0/1 ``label`` per row) as binary questions: the
    item of each row becomes "item · option", made unique by a number when two (item, option)
    pairs would read the same (ids may hold the separator)."""
    question = frame["item"].astype(str) + QUESTION_SEPARATOR + frame["option"].astype(str)
    pairs = frame.groupby(["item", "option"], sort=False).ngroup()
    clashing = pairs.groupby(question).transform("nunique") > 1
    if clashing.any():
        question = question.where(~clashing, question + " #" + pairs.astype(str))
    return frame.assign(item=question, label=frame["label"].astype(int))


def answer_sets(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (item, worker) whose label is the set of options chosen (empty for None)."""
    chosen = frame[frame["label"].astype(int) == 1]
    # The stub's aggregate types leave out frozenset, which pandas keeps as an object value.
    sets = chosen.groupby(["item", "worker"], sort=False)["option"].agg(lambda s: frozenset(map(str, s)))  # type: ignore[type-var]
    everyone = frame[["item", "worker"]].drop_duplicates()
    out = everyone.merge(sets.rename("label").reset_index(), on=["item", "worker"], how="left")
    out["label"] = pd.Series([v if isinstance(v, frozenset) else frozenset() for v in out["label"]], index=out.index,
                             dtype=object)
    return out


def answer_shapes(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per set-valued answer, labelled by its shape: "none" (no option chosen), "all" or
    "some", so that a worker who always says none (or always all) stands out as "one label"."""
    per = frame.assign(label=frame["label"].astype(int)).groupby(["item", "worker"], sort=False)["label"]
    chosen, offered = per.sum(), per.size()
    shape = np.where(chosen == 0, "none", np.where(chosen == offered, "all", "some"))
    return pd.DataFrame({"worker": chosen.index.get_level_values("worker"), "label": shape})


def option_texts(items: pd.DataFrame) -> dict[str, str]:
    """What each option says, from the ``options`` item column ({option: text}) a set-valued
    task type may give."""
    if "options" not in items.columns:
        return {}
    return {str(k): str(v) for options in items["options"] if isinstance(options, dict) for k, v in options.items()}


def option_table(frame: pd.DataFrame, *, limit: int = OPTIONS_SHOWN, texts: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """Per option of a set-valued answer: items it was offered on, answers, the share that chose
    it, and agreement on its binary questions (percent agreement, alpha) where it has two or more
    answers on some item. The ``limit`` most answered options, most answered first."""
    rows = []
    counts = frame.groupby("option", sort=False).size().sort_values(ascending=False, kind="stable")
    for option in counts.index[:limit]:
        part = frame[frame["option"] == option]
        binary = part.assign(label=part["label"].astype(int))[["item", "worker", "label"]]
        multi = binary.groupby("item").size().max() >= 2
        rows.append({
            "option": str(option),
            "text": (texts or {}).get(str(option), ""),
            "items": int(part["item"].nunique()),
            "answers": int(len(part)),
            "chosen_share": _number(binary["label"].mean()),
            "percent_agreement": _number(percent_agreement(binary).value) if multi else None,
            "krippendorff_alpha": _number(krippendorff_alpha(binary, level="nominal").value) if multi else None,
        })
    return rows


class AgreementReport(Report):
    kind = "agreement"
    title = "Agreement and worker competence"
    page = "analysis-dashboard"
    page_label = "Agreement and workers"
    params = (
        Param("level", str, "auto", "Krippendorff's alpha level; auto: nominal, or ordinal for ordered labels",
              choices=("auto", "nominal", "ordinal", "interval", "ratio"), label="Level of measurement", group="Agreement"),
        Param("n_boot", int, 200, "bootstrap resamples of items for the intervals (0: none)", minimum=0, maximum=5000,
              label="Bootstrap resamples", group="Agreement"),
        Param("min_overlap", int, 10, "items two workers must share to enter the averaged Cohen's kappa", minimum=1,
              label="Shared items for Cohen's kappa", group="Agreement"),
        Param("curve_points", int, 12, "points of the agreement-as-annotations-accumulate curve", minimum=2, maximum=100,
              label="Points of the accumulation curve", group="Agreement"),
        Param("mace_em", bool, False, "MACE by EM instead of variational Bayes", label="Estimate MACE by EM",
              group="Worker competence (MACE)"),
        Param("mace_iterations", int, 50, "MACE iterations per restart", minimum=1, maximum=5000,
              label="Iterations per restart", group="Worker competence (MACE)"),
        Param("mace_restarts", int, 10, "MACE restarts (the best log-likelihood wins)", minimum=1, maximum=500,
              label="Restarts", group="Worker competence (MACE)"),
        Param("competence_replicates", int, 200, "bootstrap resamples of items for each worker's competence interval "
              "(0: none); each reruns MACE with one restart", minimum=0, maximum=1000,
              label="Resamples for competence intervals", group="Worker competence (MACE)"),
        Param("min_annotations", int, 10, "a rank resting on fewer of the worker's annotations is marked 'few' (flag 'few annotations')",
              minimum=1, label="Annotations for a trusted rank", group="Worker competence (MACE)"),
        Param("seed", int, 0, "seed of the bootstrap and of MACE's restarts", label="Random seed", group="Reproducibility"),
    )

    def run(self, data: ReportInput, params: Mapping[str, Any], progress: Progress) -> dict[str, Any]:
        frame = data.frame
        if frame.empty:
            return {"empty": True, "n_annotations": 0}
        level = params["level"]
        sets = data.level == "set" and "option" in frame.columns
        if level == "auto":
            level = data.level if data.level in ("ordinal", "interval") else "nominal"
        if sets:
            frame = binary_questions(data.frame)
        labels = frame[["item", "worker", "label"]]
        if level in ("interval", "ratio") and not sets:
            # Answers sent as form fields are text; distances need their numbers.
            labels = labels.assign(label=pd.to_numeric(labels["label"], errors="raise"))
        # Ordered levels rank labels by the task type's categories.
        categories = (list(data.categories) if level == "ordinal" and data.categories and not sets else None)
        progress(0.1, "agreement figures")
        figures = agreement_report(labels, level=level, categories=categories, min_overlap=params["min_overlap"],
                                   n_boot=params["n_boot"], seed=params["seed"]).to_dict()
        set_figures = None
        if sets:
            progress(0.3, "agreement on whole answers and per option")
            # Point estimates only: alpha with set distances has a category per distinct answer,
            # and its bootstrap grows with their square (34 s for 20 resamples of 25,000 answers
            # with 2,988 distinct sets); the intervals above are those of the binary questions.
            whole_report = agreement_report(answer_sets(data.frame), level="nominal",
                                            min_overlap=params["min_overlap"], n_boot=0)
            whole = whole_report.to_dict()
            set_figures = {"figures": whole, "options": option_table(data.frame, texts=option_texts(data.items)),
                           "n_options": int(data.frame["option"].nunique()),
                           "n_answers": int(whole_report.n_annotations)}
        progress(0.5, "MACE worker competence")
        mace = run_mace(labels, em=params["mace_em"], iterations=params["mace_iterations"],
                        restarts=params["mace_restarts"], seed=params["seed"])
        progress(0.7, "worker table")
        n_labels = int(labels["label"].nunique())
        shapes = answer_shapes(data.frame) if sets else None
        workers = worker_table(frame, mace.labels, mace.competence, mace.ranking,
                               n_labels if shapes is None else int(shapes["label"].nunique()),
                               min_annotations=params["min_annotations"], answers=shapes)
        replicates = params["competence_replicates"]
        if replicates:
            progress(0.75, "competence intervals")
            add_competence_intervals(workers, labels, replicates=replicates, em=params["mace_em"],
                                     iterations=params["mace_iterations"], seed=params["seed"])
        else:
            for row in workers:
                row["competence_low"] = row["competence_high"] = None
        progress(0.8, "agreement as annotations accumulate")
        curve = accumulation_curve(labels, points=params["curve_points"], level=level, categories=categories)
        mace_counts = mace.labels.dropna().value_counts()
        return {
            "figures": figures,
            "label_votes": label_votes(labels),
            "mace": {
                "method": "EM" if params["mace_em"] else "variational Bayes",
                "log_likelihood": _number(mace.log_likelihood),
                "labels": {str(k): int(v) for k, v in mace_counts.items()},
                "items_labelled": int(mace.labels.notna().sum()),
            },
            "posterior": low_posteriors(mace, questions=frame if sets else None, frame=data.frame if sets else None),
            "workers": workers,
            "competence_replicates": replicates,
            "competence_level": COMPETENCE_LEVEL,
            "min_annotations": params["min_annotations"],
            "curve": curve,
            "items_in_project": len(data.items),
            "redundancy": data.redundancy,
            "level": data.level,
            "sets": set_figures,
        }
