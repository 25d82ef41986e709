"""Reads of the analysis side: runs, what changed since a run, activity over time."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db.models import Count, Max, QuerySet
from django.db.models.functions import TruncHour
from django.utils import timezone

from analysis.frames import annotations_queryset
from analysis.models import AnalysisRun
from annotation.models import Project

Status = AnalysisRun.Status
# (result key, label, what it means) in display order.
FIGURES = (
    ("krippendorff_alpha", "Krippendorff's alpha", "chance-corrected; the level is named in the result"),
    ("fleiss_kappa", "Fleiss' kappa", "chance-corrected, any number of answers per item"),
    ("cohen_kappa", "Cohen's kappa (mean over worker pairs)", "pairs sharing at least the minimum overlap"),
    ("quadratic_weighted_kappa", "Quadratic weighted kappa (mean over pairs)", "ordered labels only"),
    ("gwet_ac1", "Gwet's AC1", "robust when one label dominates"),
    ("percent_agreement", "Percent agreement", "share of agreeing answer pairs within items"),
    ("high_confidence_share", "High-confidence items", "share of items where all but one answer agree"),
)
WORKER_COLUMNS = (("rank", "Rank"), ("worker", "Worker"), ("annotations", "Annotations"),
                  ("competence", "Competence"), ("agreement_with_mace", "Agrees with MACE"),
                  ("median_seconds", "Median s"))
WORKER_SORTS = tuple(key for key, _ in WORKER_COLUMNS)


def runs_of(*, project: Project, kind: str | None = None) -> QuerySet[AnalysisRun]:
    qs = AnalysisRun.objects.filter(project=project)
    return qs.filter(kind=kind) if kind else qs


def latest_done(*, project: Project, kind: str) -> AnalysisRun | None:
    return runs_of(project=project, kind=kind).filter(status=Status.DONE).order_by("-finished_at", "-pk").first()


def active_run(*, project: Project, kind: str) -> AnalysisRun | None:
    return runs_of(project=project, kind=kind).filter(status__in=[Status.QUEUED, Status.RUNNING]).order_by("-pk").first()


def annotations_since(*, run: AnalysisRun) -> int:
    """Counted annotations the run did not see."""
    qs = annotations_queryset(project=run.project)
    if run.last_annotation_id is not None:
        qs = qs.filter(pk__gt=run.last_annotation_id)
    return qs.count()


def annotations_per_hour(*, project: Project, hours: int = 72) -> list[tuple[Any, int]]:
    """Counts per hour over the ``hours`` up to the latest annotation (for imported data that
    is not now)."""
    qs = annotations_queryset(project=project)
    latest = qs.aggregate(latest=Max("assignment__submitted_at"))["latest"]
    if latest is None:
        return []
    since = min(latest, timezone.now()) - timedelta(hours=hours)
    rows = (
        qs.filter(assignment__submitted_at__gte=since)
        .annotate(hour=TruncHour("assignment__submitted_at"))
        .values("hour").annotate(n=Count("pk")).order_by("hour")
    )
    return [(r["hour"], r["n"]) for r in rows]


@dataclass(frozen=True)
class FigureRow:
    key: str
    label: str
    note: str
    value: float | None
    low: float | None
    high: float | None


def figure_rows(result: dict) -> list[FigureRow]:
    figures = result.get("figures", {})
    intervals = figures.get("bootstrap", {}).get("intervals", {})
    rows = []
    for key, label, note in FIGURES:
        if key not in figures:
            continue
        low, high = intervals.get(key, (None, None))
        rows.append(FigureRow(key, label, note, figures[key], low, high))
    return rows


def sorted_workers(result: dict, *, sort: str, descending: bool) -> list[dict]:
    workers = list(result.get("workers", []))
    if sort not in WORKER_SORTS:
        sort = "rank"
    present = [w for w in workers if w.get(sort) is not None]
    missing = [w for w in workers if w.get(sort) is None]
    return sorted(present, key=lambda w: w[sort], reverse=descending) + missing
