"""Writes of the analysis side: creating, running, cancelling and restarting runs.

A run is a background job (``jobs.services``): idempotent by id (executing a finished run does
nothing), executed by one live worker at a time, guarded by its attempt's token, cancelled or
restarted at once from the pages, the API or the command line.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from django.db import transaction

from analysis.frames import annotation_frame
from analysis.item_frames import item_frame
from analysis.models import AnalysisRun, RunPart
from analysis.presentation import shown_first_frame
from analysis.reports import (
    PARTS,
    ParamError,
    Report,
    ReportInput,
    UnknownReport,
    get_report,
    report_kinds,
)
from annotation.models import Project
from annotation.services.audit import audit_record
from annotation.task_types import get_task_type
from jobs.healing import jobs_reap
from jobs.live import Attempt
from jobs.services import JobOutcome, job_cancel, job_enqueue, job_execute, job_restart
from jobs.tasks import task_send
from runtime.unavailable import ServiceUnavailable

# The Celery task that executes a run (analysis.tasks.run_analysis).
RUN_TASK = AnalysisRun.task_name
Status = AnalysisRun.Status
logger = logging.getLogger(__name__)
# The report the competence rule reads (``agreement_run_request``).
AGREEMENT = "agreement"


def _send(run_id: int) -> None:
    task_send(RUN_TASK, run_id)


def analysis_run_create(*, project: Project, kind: str, params: Mapping[str, Any] | None = None,
                        user=None, enqueue: bool = True) -> AnalysisRun:
    """Check the kind and parameters (raising UnknownReport or ParamError) and queue a run;
    with ``enqueue=False`` the caller executes it (a command running in its own process). Runs
    of the project whose worker died are marked failed first: the new run takes their place."""
    report = get_report(kind)
    if not report.applies_to(project.task_type):
        raise ParamError("kind", f"{kind} does not apply to {project.task_type} projects")
    clean = report.clean_params(params)
    for name, slug in _project_params(report, clean).items():
        _other_project(project=project, name=name, slug=slug, user=user)
    analysis_runs_reap(project=project)
    with transaction.atomic():
        run = AnalysisRun.objects.create(project=project, kind=kind, params=clean,
                                         created_by=user if user and user.is_authenticated else None)
        if user is not None:
            _audit(user=user, action="analysis:run", run=run, details={"params": clean})
        if enqueue:
            job_enqueue(job=run, send=_send)
    return run


def _audit(*, user, action: str, run: AnalysisRun, details: Mapping[str, Any] | None = None) -> None:
    """A staff member's run, re-run or cancel goes to the audit log (the command line's do not)."""
    audit_record(actor=user, action=action, project=Project(pk=run.project_id), target=f"{run.kind} run {run.pk}",
                 details={"kind": run.kind, **(details or {})})


def analysis_recompute_all(*, project: Project, user=None) -> list[AnalysisRun]:
    """Queue one run of every kind that applies to the project, each with the parameters of
    its latest run (or the defaults): what to do after new annotations arrive."""
    runs = []
    with transaction.atomic():
        for kind, _ in report_kinds(project.task_type):
            last = AnalysisRun.objects.filter(project=project, kind=kind).order_by("-pk").first()
            runs.append(analysis_run_create(project=project, kind=kind, params=last.params if last else {}, user=user))
    return runs


def analysis_run_restart(*, run: AnalysisRun, user=None) -> AnalysisRun:
    """Queue a failed or cancelled run again (or one whose worker died), with the same parameters."""
    try:
        restarted = job_restart(job=run, send=_send)
    except ServiceUnavailable:
        # The restart was stored (and the run failed again, the queue being away): audited too.
        if user is not None:
            _audit(user=user, action="analysis:rerun", run=run, details={"queued": False})
        raise
    if user is not None:
        _audit(user=user, action="analysis:rerun", run=run)
    return restarted


def analysis_run_cancel(*, run: AnalysisRun, user=None) -> AnalysisRun:
    cancelled = job_cancel(job=run, by=user.get_username() if user is not None and user.is_authenticated else "")
    if user is not None:
        _audit(user=user, action="analysis:cancel", run=run)
    return cancelled


def analysis_runs_reap(*, project: Project | None = None) -> int:
    """Mark running runs whose worker died as failed (a new run of the project does this first;
    the scheduler reaps every kind of job)."""
    runs = AnalysisRun.objects.filter(status=Status.RUNNING)
    if project is not None:
        runs = runs.filter(project=project)
    return jobs_reap(model=AnalysisRun, jobs=runs)


def _project_params(report: Report, params: Mapping[str, Any]) -> dict[str, str]:
    """Parameter name → slug, for the report's project parameters that name a project."""
    return {p.name: params[p.name] for p in report.params if p.project and params.get(p.name)}


def _other_project(*, project: Project, name: str, slug: str, user=None) -> Project:
    """The project that a project parameter names: another project of the same task type, which
    the user (None: the command line, or the worker executing a run) may see."""
    if user is not None and not (user.is_authenticated and user.has_perm("annotation.view_project")):
        raise ParamError(name, "you may not see other projects")
    other = Project.objects.filter(slug=slug).first()
    if other is None:
        raise ParamError(name, f"there is no project {slug!r} (was it deleted?)")
    if other.pk == project.pk:
        raise ParamError(name, "names this project itself; choose another project")
    if other.task_type != project.task_type:
        raise ParamError(name, f"{slug!r} is a {other.task_type} project; only {project.task_type} projects "
                               "can be named here")
    return other


def report_input(*, project: Project, frame, report: Report | None = None,
                 params: Mapping[str, Any] | None = None) -> ReportInput:
    """What a report gets of a project: its frames and what its task type declares, and, for
    each of the report's project parameters that names a project, that project's input."""
    task = get_task_type(project.task_type)
    others = {}
    if report is not None:
        for name, slug in _project_params(report, params or {}).items():
            other = _other_project(project=project, name=name, slug=slug)
            others[name] = report_input(project=other, frame=annotation_frame(project=other, reasons=report.reads_reasons).frame)
    return ReportInput(frame=frame, items=item_frame(project=project), task_type=project.task_type,
                       redundancy=project.redundancy, level=task.level,
                       categories=tuple(value for value, _ in task.categories),
                       options=task.clean_options(project.options), others=others)


def analysis_run_execute(*, run_id: int) -> AnalysisRun | None:
    """Execute a queued run and store its result or its failure; returns None if it was finished.
    Raises JobBusy when a live worker is executing it, TransientFault after requeueing it.
    A run that finishes is handed to what the apps above registered (``run_done_register``):
    the quality rules judge it."""
    run = job_execute(model=AnalysisRun, pk=run_id, work=_compute)
    if run is not None and run.status == Status.DONE:
        for done in _RUN_DONE:
            done(run=run)
    return run


# What a finished run is handed to: the apps above analysis register it (analysis never imports
# them). Each must not raise: the run is stored whatever it does.
_RUN_DONE: list[Any] = []


def run_done_register(*, done: Any) -> Any:
    """``done(run=…)`` is called with every run that finishes; registered once per callable."""
    if done not in _RUN_DONE:
        _RUN_DONE.append(done)
    return done


def _compute(run: AnalysisRun, attempt: Attempt) -> JobOutcome:
    report = get_report(run.kind)
    project = run.project
    attempt.progress(0.01, "loading annotations")
    loaded = annotation_frame(project=project, reasons=report.reads_reasons)
    frame = loaded.frame
    if report.reads_shown_order and not frame.empty:
        frame = frame.merge(shown_first_frame(project=project), on="annotation", how="left")
    attempt.progress(0.05, "computing")
    data = report_input(project=project, frame=frame, report=report, params=run.params)
    result = report.run(data, run.params, attempt.progress)
    parts = result.pop(PARTS, []) if isinstance(result, dict) else []

    def write_parts() -> dict:
        # Written with the outcome: a run given up meanwhile leaves none.
        RunPart.objects.filter(run=run).delete()
        RunPart.objects.bulk_create(
            [RunPart(run=run, name=p.name, key=p.key, position=n, rows=p.rows, indexes=p.indexes)
             for n, p in enumerate(parts)], batch_size=1)
        return {}

    return JobOutcome(fields={"result": result, "annotations_seen": loaded.annotations,
                              "last_annotation_id": loaded.last_annotation_id}, write=write_parts)


def agreement_run_request(*, project_id: int) -> AnalysisRun | None:
    """Queue an agreement run of the project for its competence rule, requested as answers arrive
    (every ``RUN_EVERY`` answers of a worker, ``quality.services.rules.judging``); None when
    one is queued or running already (so that the requests of many workers at once make one run)
    or the project is gone. The run is the report's own (its last parameters), and its end has
    the competence rule judge it (``quality.rules.checks.rules_after_run``)."""
    runs = AnalysisRun.objects.filter(project_id=project_id, kind=AGREEMENT)
    if runs.filter(status__in=AnalysisRun.ACTIVE).exists():
        return None
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        return None
    last = runs.filter(status=AnalysisRun.Status.DONE).order_by("-finished_at", "-pk").values_list("params", flat=True).first()
    try:
        return analysis_run_create(project=project, kind=AGREEMENT, params=last or {})
    except (UnknownReport, ParamError):
        logger.warning("no %s report to judge the competence rule of project %s", AGREEMENT, project_id)
        return None
