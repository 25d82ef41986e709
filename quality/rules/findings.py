"""What each kind of rule finds in stored data: the workers below its bar, each with the
evidence it judged on. Reads only; the decisions are made in ``quality.rules.checks``.

Every finding carries a ``basis``: what the evidence rests on (a run, a count of answers). A
rule never decides twice about a worker on the same basis, so a worker whom staff moved back to
active is judged again only once there is new evidence.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.contrib.auth import get_user_model
from django.db.models import Count

from analysis.models import AnalysisRun
from annotation.models import Annotation, Project
from annotation.selectors.counted import counted_as_data
from annotation.task_types import get_task_type
from quality.models import QualityRule, WorkerStanding
from quality.services.rules.verdicts import (
    IMPORT_ORDER,
    automation_evidence,
    gold_accuracy_evidence,
    position_bias_evidence,
    position_bias_increment,
    position_bias_observation,
    too_fast_evidence,
)


@dataclass(frozen=True)
class Finding:
    worker_id: int
    evidence: dict[str, Any]

    @property
    def basis(self) -> str:
        return str(self.evidence["basis"])


def _bar(rule: QualityRule) -> dict[str, Any]:
    return {"threshold": rule.threshold, "min_answers": rule.min_answers}


def gold_accuracy(*, project: Project, rule: QualityRule) -> list[Finding]:
    """Workers whose running gold counts (of their standing) the rule's sequential test finds
    below the bar (``quality.services.rules.verdicts.gold_accuracy_evidence``, as on each gold
    answer)."""
    rows = (WorkerStanding.objects.filter(project=project, gold_answered__gte=rule.min_answers)
            .values_list("worker_id", "gold_answered", "gold_right"))
    found = []
    for worker_id, answered, right in rows:
        evidence = gold_accuracy_evidence(rule=rule, right=right, answered=answered)
        if evidence is not None:
            found.append(Finding(worker_id, evidence))
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


def position_bias(*, project: Project, rule: QualityRule) -> list[Finding]:
    """Workers whose answers to real items, in the order they came, the rule's sequential test
    finds choosing the option shown first more than ``1/k`` (``quality.services.rules.verdicts``,
    as on each answer). Nobody under import order: the rule cannot judge it (``position_bias_unjudged``)."""
    task = get_task_type(project.task_type)
    if project.keep_import_order or not task.shown_order_parts:
        return []
    rows = (Annotation.objects.filter(counted_as_data(project=project, prefix="assignment__"),
                                      assignment__project=project)
            .order_by("assignment__submitted_at", "pk")
            .values_list("assignment__worker_id", "assignment__shown_order", "answer")
            .iterator(chunk_size=5000))
    running: dict[int, list[float]] = {}  # worker -> [ratio, chose first, answers]
    for worker_id, shown, answer in rows:
        seen = position_bias_observation(task=task, shown=shown, answer=answer or {})
        if seen is None:
            continue
        options, first = seen
        tally = running.setdefault(worker_id, [0.0, 0, 0])
        tally[0] += position_bias_increment(rule=rule, options=options, chose_first=first)
        tally[1] += int(first)
        tally[2] += 1
    found = []
    for worker_id, (llr, chose, answers) in sorted(running.items()):
        evidence = position_bias_evidence(rule=rule, llr=llr, chose_first=int(chose), answers=int(answers))
        if evidence is not None:
            found.append(Finding(worker_id, evidence))
    return found


def position_bias_unjudged(*, project: Project) -> str | None:
    """Why the position-bias rule cannot judge the project's workers, or None when it can."""
    return IMPORT_ORDER if project.keep_import_order else None


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
    """Per rule (by id): workers whose answers to real items faster than the rule's share of
    the project's median time its sequential test finds above the bar
    (``quality.services.rules.verdicts.too_fast_evidence``, as on each answer)."""
    found: dict[int, list[Finding]] = {rule.pk: [] for rule in rules}
    median = table.median_seconds() if rules else None
    if median is None:
        return found
    for rule in rules:
        cutoff = median * rule.share_of_median
        ids, (answers, fast) = _per_worker(table.workers, np.ones(len(table.workers)), table.seconds < cutoff)
        for at in np.flatnonzero((answers >= rule.min_answers) & (fast > 0)):
            evidence = too_fast_evidence(rule=rule, fast=int(fast[at]), answers=int(answers[at]), median=median,
                                         cutoff=cutoff)
            if evidence is not None:
                found[rule.pk].append(Finding(int(ids[at]), evidence))
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
            evidence = automation_evidence(rule=rule, automated=n, answers=totals.get(worker_id, n))
            if evidence is not None:
                found[rule.pk].append(Finding(worker_id, evidence))
    return found
