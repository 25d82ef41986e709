"""Reads of the analysis side: runs, what changed since a run, activity over time."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from analysis.frames import annotations_queryset
from analysis.models import AnalysisRun
from analysis.reports.agreement import FEW_ANNOTATIONS
from annotation.models import Project
from annotation.selectors.progress import project_progress
from annotation.selectors.tallies import HOURS, count_per_hour, project_is_large, tally_of
from jobs.selectors import dead_job_error, is_dead

Status = AnalysisRun.Status
# (result key, label, what it means) in display order.
FIGURES = (
    ("krippendorff_alpha", "Krippendorff's alpha", "chance-corrected; the level is named in the result"),
    ("krippendorff_alpha_masi", "Krippendorff's alpha, MASI distance", "sets: partial credit for overlapping answers"),
    ("krippendorff_alpha_jaccard", "Krippendorff's alpha, Jaccard distance", "sets: partial credit for overlapping answers"),
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
    return (runs_of(project=project, kind=kind).filter(status__in=[Status.QUEUED, Status.RUNNING])
            .defer("result").order_by("-pk").first())


@dataclass(frozen=True)
class RunState:
    """Where a project's analysis of one kind stands, for a result page to explain itself."""

    done: AnalysisRun | None  # the latest finished run, whose results the page shows
    running: AnalysisRun | None
    # The latest run, when it failed after the latest finished one; a running run whose worker
    # died counts as failed (read from its heartbeat: only the scheduler and writes mark it).
    failed: AnalysisRun | None
    new_annotations: int | None  # counted annotations the finished run did not see
    # Counted annotations in the project; counted only when there is no finished run to show
    # (the page then says how many there are), otherwise None.
    annotations: int | None
    has_annotations: bool
    starters: list[str]  # who may start runs (a few user names), for those who may not

    @property
    def result(self) -> dict:
        return (self.done.result or {}) if self.done else {}

    @property
    def failure(self) -> str:
        """Why the failed run ended: its error, or, when its worker died and nothing has marked
        it failed yet, what marking it will store."""
        if self.failed is None:
            return ""
        return dead_job_error() if self.failed.status == Status.RUNNING else self.failed.error


STARTERS_SHOWN = 5


def run_starters(*, limit: int = STARTERS_SHOWN) -> list[str]:
    """Names of active users allowed to start analysis runs: ``limit`` of them, and one more
    when there are more (so a page can say "and others")."""
    # Permissions live in the model backend (the other one only locks out password guessing).
    users = get_user_model().objects.with_perm("analysis.add_analysisrun", include_superusers=True,
                                               backend="django.contrib.auth.backends.ModelBackend")
    return list(users.order_by("username").values_list("username", flat=True)[: limit + 1])


def comparable_projects(*, project: Project) -> QuerySet[Project]:
    """The other projects of the project's task type, by name: what a report's project parameter
    (``Param.project``) may name."""
    return Project.objects.filter(task_type=project.task_type).exclude(pk=project.pk).order_by("name", "slug")


def run_state(*, project: Project, kind: str, viewer=None) -> RunState:
    """Where the project's runs of ``kind`` stand. ``viewer`` is who looks: when they may not
    start runs and the page has to explain a missing or failed result, ``starters`` names who
    may (otherwise it stays empty: looking them up reads every user's permissions)."""
    done = latest_done(project=project, kind=kind)
    running = active_run(project=project, kind=kind)
    # The latest run that ended without a result (failed, or cancelled), unless a newer one ran.
    failed = (runs_of(project=project, kind=kind).filter(status__in=[Status.FAILED, Status.CANCELLED])
              .defer("result").order_by("-pk").first())
    if running is not None and is_dead(job=running):
        stopped, running = running, None
        if failed is None or stopped.pk > failed.pk:
            failed = stopped
    if failed is not None and (running is not None or (done is not None and done.pk > failed.pk)):
        failed = None
    # Counted answers from the items' slot counters: counting the annotations reads every one.
    annotations = None if done else project_progress(project=project).submitted
    explains = failed is not None or (done is None and running is None)
    may_start = viewer is not None and viewer.has_perm("analysis.add_analysisrun")
    return RunState(
        done=done, running=running, failed=failed,
        new_annotations=annotations_since(run=done) if done else None,
        annotations=annotations,
        has_annotations=bool(annotations) if annotations is not None else annotations_queryset(project=project).exists(),
        starters=run_starters() if explains and not may_start else [],
    )


def annotations_since(*, run: AnalysisRun) -> int:
    """Counted annotations the run did not see: new ones, and ones their worker changed after the
    run began (it read the version before). Two counts that each read an index range: the
    annotations after the last one seen, and the few changed ones."""
    qs = annotations_queryset(project=run.project)
    if run.last_annotation_id is None:  # the run saw none: every counted answer is new
        return project_progress(project=run.project).submitted
    new = qs.filter(pk__gt=run.last_annotation_id).count()
    changed = (qs.filter(pk__lte=run.last_annotation_id, revised_at__isnull=False, revised_at__gt=run.started_at)
               .count() if run.started_at else 0)
    return new + changed


def annotations_per_hour(*, project: Project, hours: int = HOURS) -> list[tuple[Any, int]]:
    """Counted answers per hour over the ``hours`` up to the latest one (for imported data that
    is not now); a large project's from its tally (``annotation.selectors.tallies``), which counts the
    default span."""
    if hours == HOURS and project_is_large(project=project):
        tally = tally_of(project=project)
        return tally.per_hour if tally else []
    return count_per_hour(project=project, hours=hours)


@dataclass(frozen=True)
class FigureRow:
    key: str
    label: str
    note: str
    value: float | None
    low: float | None
    high: float | None


def figure_rows(*, result: dict) -> list[FigureRow]:
    figures = result.get("figures", {})
    intervals = figures.get("bootstrap", {}).get("intervals", {})
    rows = []
    for key, label, note in FIGURES:
        if key not in figures:
            continue
        low, high = intervals.get(key, (None, None))
        rows.append(FigureRow(key, label, note, figures[key], low, high))
    return rows


# The least annotations behind a trusted rank, for runs made before the report had the parameter.
MIN_ANNOTATIONS = 10


def sorted_workers(*, result: dict, sort: str, descending: bool, trusted_only: bool = False) -> list[dict]:
    """The worker rows of an agreement result, each marked ``few`` when its rank rests on fewer
    annotations than the run's minimum (shown apart from the ``other_flags``); ``trusted_only``
    leaves those out."""
    minimum = result.get("min_annotations", MIN_ANNOTATIONS)
    workers = [{**w, "few": w["annotations"] < minimum,
                "other_flags": [f for f in w.get("flags", []) if f != FEW_ANNOTATIONS]}
               for w in result.get("workers", [])]
    if trusted_only:
        workers = [w for w in workers if not w["few"]]
    if sort not in WORKER_SORTS:
        sort = "rank"
    present = [w for w in workers if w.get(sort) is not None]
    missing = [w for w in workers if w.get(sort) is None]
    return sorted(present, key=lambda w: w[sort], reverse=descending) + missing


@dataclass(frozen=True)
class MacePosteriors:
    """Per-item posteriors of the MACE label from a finished run, for the items under ``below``."""

    run_id: int
    below: float
    items: Mapping[str, float]  # external id -> posterior


def agreement_posteriors(*, project: Project) -> MacePosteriors | None:
    """The MACE label posteriors the project's last finished agreement run kept (items under its
    bar), for the adjudication queue and gold promotion; None when no run has them (runs made
    before they were kept, or none at all)."""
    run = latest_done(project=project, kind="agreement")
    found = (run.result or {}).get("posterior") if run is not None else None
    if run is None or not isinstance(found, dict) or "items" not in found:
        return None
    return MacePosteriors(run_id=run.pk, below=float(found.get("below", 1.0)), items=found["items"])
