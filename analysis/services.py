"""Writes of the analysis side: creating, running, failing, reaping and restarting runs.

A run is idempotent by id: executing a finished run does nothing, and a run that another worker
is executing (its deadline not yet passed) is left alone. Every progress report pushes the
deadline forward, so a run is stuck when it has reported nothing for ``STALL_SECONDS``.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from django.db import (
    InterfaceError,
    OperationalError,
    close_old_connections,
    connection,
    transaction,
)
from django.utils import timezone

from analysis.frames import annotation_frame, item_frame
from analysis.models import AnalysisRun
from analysis.reports import ParamError, ReportInput, get_report, report_kinds
from annotation.models import Project

logger = logging.getLogger(__name__)
Status = AnalysisRun.Status
STALL_SECONDS = 300
TRANSIENT = (OperationalError, InterfaceError)


class TransientFault(Exception):
    """A fault worth retrying (the database went away); the run was put back in the queue."""


class RunBusy(Exception):
    """Another worker is executing this run; try again after ``retry_in`` seconds."""

    def __init__(self, retry_in: float) -> None:
        super().__init__(f"run is being executed elsewhere; retry in {retry_in:.0f} s")
        self.retry_in = retry_in


def _enqueue(run_id: int) -> None:
    from analysis.tasks import run_analysis

    transaction.on_commit(lambda: run_analysis.delay(run_id))


def analysis_run_create(*, project: Project, kind: str, params: Mapping[str, Any] | None = None,
                        user=None, enqueue: bool = True) -> AnalysisRun:
    """Check the kind and parameters (raising UnknownReport or ParamError) and queue a run;
    with ``enqueue=False`` the caller executes it (a command running in its own process)."""
    report = get_report(kind)
    if not report.applies_to(project.task_type):
        raise ParamError("kind", f"{kind} does not apply to {project.task_type} projects")
    clean = report.clean_params(params)
    with transaction.atomic():
        run = AnalysisRun.objects.create(project=project, kind=kind, params=clean,
                                         created_by=user if user and user.is_authenticated else None)
        if enqueue:
            _enqueue(run.pk)
    return run


def analysis_recompute_all(*, project: Project, user=None) -> list[AnalysisRun]:
    """Queue one run of every kind that applies to the project, each with the parameters of
    its latest run (or the defaults): what to do after new annotations arrive."""
    runs = []
    with transaction.atomic():
        for kind, _ in report_kinds(project.task_type):
            last = AnalysisRun.objects.filter(project=project, kind=kind).order_by("-pk").first()
            runs.append(analysis_run_create(project=project, kind=kind, params=last.params if last else {}, user=user))
    return runs


def analysis_run_restart(*, run: AnalysisRun) -> AnalysisRun:
    """Queue a failed run again, with the same parameters."""
    with transaction.atomic():
        run = AnalysisRun.objects.select_for_update().get(pk=run.pk)
        if run.status != Status.FAILED:
            raise ValueError(f"only failed runs can be restarted; this one is {run.status}")
        run.status, run.progress, run.stage, run.error = Status.QUEUED, 0.0, "", ""
        run.started_at = run.finished_at = run.deadline_at = run.heartbeat_at = None
        run.save()
        _enqueue(run.pk)
    return run


def analysis_run_fail(*, run_id: int, error: str) -> None:
    AnalysisRun.objects.filter(pk=run_id).exclude(status=Status.DONE).update(
        status=Status.FAILED, error=error[:10000], finished_at=timezone.now()
    )


def analysis_runs_reap(*, now: datetime | None = None) -> int:
    """Mark runs that stopped reporting progress as failed (their worker died or hung)."""
    now = now or timezone.now()
    return AnalysisRun.objects.filter(status=Status.RUNNING, deadline_at__lt=now).update(
        status=Status.FAILED, finished_at=now,
        error=f"no progress for {STALL_SECONDS} s: the worker stopped or hung. Restart the run.",
    )


def _claim(run_id: int, now: datetime) -> AnalysisRun | None:
    with transaction.atomic():
        run = AnalysisRun.objects.select_for_update().select_related("project").get(pk=run_id)
        if run.is_finished:
            return None
        if run.status == Status.RUNNING and run.deadline_at and run.deadline_at > now:
            raise RunBusy((run.deadline_at - now).total_seconds())
        run.status, run.started_at, run.heartbeat_at = Status.RUNNING, now, now
        run.deadline_at = now + timedelta(seconds=STALL_SECONDS)
        run.attempts += 1
        run.progress, run.stage, run.error = 0.0, "loading annotations", ""
        run.save()
        return run


def _progress(run_id: int):
    def report(fraction: float, stage: str) -> None:
        now = timezone.now()
        AnalysisRun.objects.filter(pk=run_id, status=Status.RUNNING).update(
            progress=max(0.0, min(float(fraction), 1.0)), stage=stage[:200], heartbeat_at=now,
            deadline_at=now + timedelta(seconds=STALL_SECONDS),
        )

    return report


def analysis_run_execute(*, run_id: int) -> AnalysisRun | None:
    """Execute a queued run and store its result or its failure; returns None if it was finished."""
    now = timezone.now()
    run = _claim(run_id, now)
    if run is None:
        return None
    report = get_report(run.kind)
    progress = _progress(run.pk)
    try:
        project = run.project
        loaded = annotation_frame(project=project)
        progress(0.05, "computing")
        data = ReportInput(frame=loaded.frame, items=item_frame(project=project),
                           task_type=project.task_type, redundancy=project.redundancy)
        result = report.run(data, run.params, progress)
    except TRANSIENT as exc:
        if not connection.in_atomic_block:
            close_old_connections()  # drop a broken connection before writing the status
        AnalysisRun.objects.filter(pk=run.pk).update(status=Status.QUEUED, stage="", error=f"retrying after: {exc}")
        raise TransientFault(str(exc)) from exc
    except Exception as exc:
        logger.exception("analysis run %s failed", run.pk)
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        analysis_run_fail(run_id=run.pk, error=detail)
        run.refresh_from_db()
        return run
    AnalysisRun.objects.filter(pk=run.pk).update(
        status=Status.DONE, progress=1.0, stage="done", result=result, finished_at=timezone.now(),
        annotations_seen=loaded.annotations, last_annotation_id=loaded.last_annotation_id,
    )
    run.refresh_from_db()
    return run
