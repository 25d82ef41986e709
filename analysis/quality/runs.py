"""The agreement run the competence rule reads, requested as answers arrive: every
``RUN_EVERY`` answers of a worker (``annotation.services.rule_judging``) one run of the project
is queued, unless one is already queued or running, so that the requests of many workers at
once make one run. The run is the report's own (its last parameters), and its end has the
competence rule judge it (``analysis.quality.checks.rules_after_run``)."""

from __future__ import annotations

import logging

from analysis.models import AnalysisRun
from analysis.reports import ParamError, UnknownReport
from analysis.services import analysis_run_create
from annotation.models import Project

logger = logging.getLogger(__name__)
KIND = "agreement"


def agreement_run_request(project_id: int) -> AnalysisRun | None:
    """Queue an agreement run of the project for its competence rule; None when one is queued
    or running already (or the project is gone)."""
    runs = AnalysisRun.objects.filter(project_id=project_id, kind=KIND)
    if runs.filter(status__in=AnalysisRun.ACTIVE).exists():
        return None
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        return None
    last = runs.filter(status=AnalysisRun.Status.DONE).order_by("-finished_at", "-pk").values_list("params", flat=True).first()
    try:
        return analysis_run_create(project=project, kind=KIND, params=last or {})
    except (UnknownReport, ParamError):
        logger.warning("no %s report to judge the competence rule of project %s", KIND, project_id)
        return None
