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
from django.db.models import Count, Q

from analysis.methods.position_bias import wilson
from analysis.models import AnalysisRun
from annotation.models import Annotation, Project, Purpose, QualityRule, WorkerStanding


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


def task_answers(*, project: Project):
    """The project's answers to real items (task assignments) that record their time."""
    return Annotation.objects.filter(assignment__project=project, assignment__purpose=Purpose.TASK,
                                     seconds__isnull=False)


def median_seconds(*, project: Project) -> float | None:
    seconds = np.fromiter(task_answers(project=project).values_list("seconds", flat=True), dtype=float)
    return float(np.median(seconds)) if seconds.size else None


def too_fast(*, project: Project, rules: list[QualityRule]) -> dict[int, list[Finding]]:
    """Per rule (by id): workers whose share of answers faster than the rule's share of the
    project's median time has a Wilson interval wholly above the bar, after ``min_answers``
    answers. One pass over the answers serves every too-fast rule."""
    if not rules:
        return {}
    median = median_seconds(project=project)
    if median is None:
        return {rule.pk: [] for rule in rules}
    cutoffs = {rule.pk: median * rule.share_of_median for rule in rules}
    counts = {f"fast_{pk}": Count("pk", filter=Q(seconds__lt=cutoff)) for pk, cutoff in cutoffs.items()}
    rows = task_answers(project=project).values("assignment__worker_id").annotate(answers=Count("pk"), **counts)
    found: dict[int, list[Finding]] = {rule.pk: [] for rule in rules}
    for row in rows:
        for rule in rules:
            answers, fast = row["answers"], row[f"fast_{rule.pk}"]
            if answers < rule.min_answers or not fast:
                continue
            figures = _share(fast, answers, rule)
            if figures["low"] > rule.threshold:
                found[rule.pk].append(Finding(row["assignment__worker_id"], {
                    "median": round(median, 3), "cutoff": round(cutoffs[rule.pk], 3),
                    "share_of_median": rule.share_of_median, "too_fast": fast, "answers": answers, **figures,
                    **_bar(rule), "basis": f"{answers} answers"}))
    return found


def automation(*, project: Project, rules: list[QualityRule]) -> dict[int, list[Finding]]:
    """Per rule (by id): workers with at least ``min_answers`` answers sent from a browser that
    said it was automated (``client["signals"]["webdriver"]``)."""
    if not rules:
        return {}
    rows = (Annotation.objects.filter(assignment__project=project)
            .values("assignment__worker_id")
            .annotate(answers=Count("pk"), automated=Count("pk", filter=Q(client__signals__webdriver=True)))
            .filter(automated__gte=min(rule.min_answers for rule in rules)))
    found: dict[int, list[Finding]] = {rule.pk: [] for rule in rules}
    for row in rows:
        for rule in rules:
            if row["automated"] >= rule.min_answers:
                found[rule.pk].append(Finding(row["assignment__worker_id"], {
                    "automated": row["automated"], "answers": row["answers"], "min_answers": rule.min_answers,
                    "basis": f"{row['automated']} automated answers"}))
    return found
