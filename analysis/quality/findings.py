"""What each kind of rule finds in stored data: the workers below its bar, each with the
evidence it judged on. Reads only; the decisions are made in ``analysis.quality.checks``.

Every finding carries a ``basis``: what the evidence rests on (a run, a count of answers). A
rule never decides twice about a worker on the same basis, so a worker whom staff moved back to
active is judged again only once there is new evidence.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.contrib.auth import get_user_model
from django.db.models import Count

from analysis.methods.position_bias import wilson
from analysis.models import AnalysisRun
from annotation.models import Annotation, Project, QualityRule, WorkerStanding
from annotation.selectors.counted import counted_as_data


@dataclass(frozen=True)
class Finding:
    worker_id: int
    evidence: dict[str, Any]

    @property
    def basis(self) -> str:
        return str(self.evidence["basis"])


def z_of(confidence: float) -> float:
    """The normal quantile of a two-sided interval of this coverage."""
    return statistics.NormalDist().inv_cdf(1 - (1 - confidence) / 2)


def _share(part: int, whole: int, rule: QualityRule) -> dict[str, Any]:
    low, high = wilson(part, whole, z=z_of(rule.confidence))
    return {"share": round(part / whole, 6) if whole else None, "low": round(low, 6), "high": round(high, 6),
            "confidence": rule.confidence}


def _bar(rule: QualityRule) -> dict[str, Any]:
    return {"threshold": rule.threshold, "min_answers": rule.min_answers}


def gold_accuracy(*, project: Project, rule: QualityRule) -> list[Finding]:
    """Workers whose gold accuracy's Wilson interval lies wholly below the bar, after
    ``min_answers`` gold answers (from the running counts of their standing)."""
    rows = (WorkerStanding.objects.filter(project=project, gold_answered__gte=rule.min_answers)
            .values_list("worker_id", "gold_answered", "gold_right"))
    found = []
    for worker_id, answered, right in rows:
        figures = _share(right, answered, rule)
        if figures["high"] < rule.threshold:
            found.append(Finding(worker_id, {
                "right": right, "answered": answered, "accuracy": figures["share"], "low": figures["low"],
                "high": figures["high"], "confidence": rule.confidence, **_bar(rule),
                "basis": f"{answered} gold answers"}))
    return found


def _user_ids(names: Iterable[str]) -> dict[str, int]:
    wanted = list({str(name) for name in names})
    return dict(get_user_model().objects.filter(username__in=wanted).values_list("username", "pk"))


def _result_rows(run: AnalysisRun) -> list[Mapping[str, Any]]:
    result = run.result if isinstance(run.result, dict) else {}
    rows = result.get("workers") or []
    return [row for row in rows if isinstance(row, Mapping) and row.get("worker") is not None]


def competence(*, run: AnalysisRun, rule: QualityRule) -> list[Finding]:
    """From an agreement run: workers with ``min_answers`` answers whose MACE competence interval
    lies wholly below the bar (a run without intervals judges nobody)."""
    hits = [row for row in _result_rows(run)
            if row.get("competence_high") is not None and (row.get("annotations") or 0) >= rule.min_answers
            and row["competence_high"] < rule.threshold]
    ids = _user_ids(row["worker"] for row in hits)
    return [Finding(ids[str(row["worker"])], {
        "competence": row.get("competence"), "low": row.get("competence_low"), "high": row["competence_high"],
        "answers": row["annotations"], "run": run.pk, "replicates": (run.result or {}).get("competence_replicates"),
        **_bar(rule), "basis": f"run {run.pk}"}) for row in hits if str(row["worker"]) in ids]


def position_bias(*, run: AnalysisRun, rule: QualityRule) -> list[Finding]:
    """From a position-bias run: flagged workers with ``min_answers`` answers whose interval's
    low end exceeds the share the drawn orders predict by more than the bar."""
    hits = [row for row in _result_rows(run)
            if row.get("flagged") and row.get("low") is not None and row.get("expected") is not None
            and (row.get("answers") or 0) >= rule.min_answers and row["low"] - row["expected"] > rule.threshold]
    ids = _user_ids(row["worker"] for row in hits)
    return [Finding(ids[str(row["worker"])], {
        "share": row.get("share"), "low": row["low"], "high": row.get("high"), "expected": row["expected"],
        "excess": round(row["low"] - row["expected"], 6), "answers": row["answers"],
        "chose_first": row.get("chose_first"), "run": run.pk, "level": (run.result or {}).get("worker_level"),
        **_bar(rule), "basis": f"run {run.pk}"}) for row in hits if str(row["worker"]) in ids]


@dataclass(frozen=True)
class TimedAnswers:
    """The project's answers to real items (task assignments) that record their time, one
    entry per answer: read in one query, counted per worker here."""

    workers: np.ndarray  # the worker's user id
    seconds: np.ndarray

    def median_seconds(self) -> float | None:
        return float(np.median(self.seconds)) if self.seconds.size else None


def timed_answers(*, project: Project) -> TimedAnswers:
    # The answers that are data and count (not rejected, not to a withdrawn item), as the median
    # of a project's time per item should be read.
    rows = (Annotation.objects.filter(counted_as_data(project=project, prefix="assignment__"),
                                      assignment__project=project, seconds__isnull=False).order_by()
            .values_list("assignment__worker_id", "seconds"))
    table = np.array(list(rows), dtype=float).reshape(-1, 2)
    return TimedAnswers(workers=table[:, 0].astype(np.int64), seconds=table[:, 1])


def _per_worker(workers: np.ndarray, *masks: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    ids, codes = np.unique(workers, return_inverse=True)
    return ids, [np.bincount(codes, weights=mask, minlength=len(ids)).astype(np.int64) for mask in masks]


def too_fast(*, table: TimedAnswers, rules: list[QualityRule]) -> dict[int, list[Finding]]:
    """Per rule (by id): workers whose share of answers to real items faster than the rule's
    share of the project's median time has a Wilson interval wholly above the bar, after
    ``min_answers`` timed answers."""
    found: dict[int, list[Finding]] = {rule.pk: [] for rule in rules}
    median = table.median_seconds() if rules else None
    if median is None:
        return found
    for rule in rules:
        cutoff = median * rule.share_of_median
        ids, (answers, fast) = _per_worker(table.workers, np.ones(len(table.workers)), table.seconds < cutoff)
        for at in np.flatnonzero((answers >= rule.min_answers) & (fast > 0)):
            figures = _share(int(fast[at]), int(answers[at]), rule)
            if figures["low"] > rule.threshold:
                found[rule.pk].append(Finding(int(ids[at]), {
                    "median": round(median, 3), "cutoff": round(cutoff, 3), "share_of_median": rule.share_of_median,
                    "too_fast": int(fast[at]), "answers": int(answers[at]), **figures, **_bar(rule),
                    "basis": f"{int(answers[at])} answers"}))
    return found


def automation(*, project: Project, rules: list[QualityRule]) -> dict[int, list[Finding]]:
    """Per rule (by id): workers with at least ``min_answers`` answers sent from a browser that
    said it was automated (``client["signals"]["webdriver"]``)."""
    found: dict[int, list[Finding]] = {rule.pk: [] for rule in rules}
    if not rules:
        return found
    # One query on both databases: the JSON key read the same way (the ORM's key transform).
    automated: dict[int, int] = dict(
        Annotation.objects.filter(assignment__project=project, client__signals__webdriver=True).order_by()
        .values("assignment__worker_id").annotate(n=Count("pk")).values_list("assignment__worker_id", "n"))
    automated = {w: n for w, n in automated.items() if n >= min(rule.min_answers for rule in rules)}
    if not automated:
        return found
    answers = Annotation.objects.filter(assignment__project=project).order_by()
    totals = dict(answers.filter(assignment__worker_id__in=list(automated)).values("assignment__worker_id")
                  .annotate(n=Count("pk")).values_list("assignment__worker_id", "n"))
    for rule in rules:
        for worker_id, n in sorted(automated.items()):
            if n >= rule.min_answers:
                found[rule.pk].append(Finding(worker_id, {
                    "automated": n, "answers": totals.get(worker_id, n), "min_answers": rule.min_answers,
                    "basis": f"{n} automated answers"}))
    return found
