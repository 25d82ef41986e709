"""The generic page of a report that declares a template instead of a page of its own: the run's
state and settings, the report's own context, its figures (SVG) and its files (CSV)."""

from __future__ import annotations

import csv
from typing import cast

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from analysis.forms import param_groups
from analysis.models import AnalysisRun
from analysis.reports import Report, UnknownReport, get_report
from analysis.selectors import run_state
from analysis.services import analysis_runs_reap
from analysis.views.dashboard import svg_response
from annotation.models import Project
from annotation.selectors.progress import project_progress
from annotation.spreadsheet import safe_row
from annotation.views.permissions import permission_required


def _report(project: Project, kind: str) -> Report:
    try:
        report = get_report(kind)
    except UnknownReport:
        raise Http404(f"unknown report {kind!r}") from None
    if report.template is None or not report.applies_to(project.task_type):
        raise Http404(f"the report {kind!r} has no page for this project")
    return report


@permission_required("annotation.view_project")
def report_page(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    report = _report(project, kind)
    analysis_runs_reap(project=project)
    state = run_state(project=project, kind=kind, viewer=request.user)
    result = state.result or {}
    ctx = {
        "project": project, "report": report, "progress": project_progress(project=project),
        "state": state, "done": state.done, "running": state.running, "result": result,
        "kind": kind, "next_page": report.page_key,
        "param_groups": param_groups(report, state.done.params if state.done else None, project=project),
        **(report.page_context(result) if state.done else {}),
    }
    return render(request, cast(str, report.template), ctx)  # _report gives only reports with a template


def _done_run(slug: str, kind: str, run_id: int) -> tuple[Report, AnalysisRun]:
    run = get_object_or_404(AnalysisRun, pk=run_id, project__slug=slug, kind=kind, status=AnalysisRun.Status.DONE)
    return _report(run.project, kind), run


@permission_required("annotation.view_project")
def report_figure(request: HttpRequest, slug: str, kind: str, run_id: int, name: str) -> HttpResponse:
    report, run = _done_run(slug, kind, run_id)
    if name not in report.figures:
        raise Http404(f"unknown figure {name!r}")
    return svg_response(report.figure(name, run.result or {}))


@permission_required("annotation.export_annotations")
def report_file(request: HttpRequest, slug: str, kind: str, run_id: int, name: str) -> HttpResponse:
    report, run = _done_run(slug, kind, run_id)
    if name not in report.files:
        raise Http404(f"unknown file {name!r}")
    filename, columns, rows = report.file(name, run.result or {})
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-run{run.pk}-{filename}"'
    writer = csv.DictWriter(response, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow(safe_row(row))
    return response
