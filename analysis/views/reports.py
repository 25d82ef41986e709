"""The generic page of a report that declares a template instead of a page of its own: the run
header (``analysis.views.run_header``), the report's own context, its figures (SVG) and its
files (CSV)."""

from __future__ import annotations

import csv
from typing import Any, cast

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.views import View

from analysis.models import AnalysisRun
from analysis.reports import Report, UnknownReport, get_report
from analysis.selectors import RunState
from analysis.views.dashboard import svg_response
from analysis.views.run_header import RunHeaderMixin
from annotation.models import Project
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


class ReportPage(RunHeaderMixin, View):
    """The page of a report that declares a ``template``: the run header and the report's
    ``page_context`` of the latest finished run."""

    def kind_of(self, **kwargs: Any) -> str:
        return kwargs["kind"]

    def report_of(self, project: Project, kind: str) -> Report:
        return _report(project, kind)

    def template_of(self, report: Report) -> str:
        return cast(str, report.template)  # _report gives only reports with a template

    def results_context(self, *, project: Project, report: Report, state: RunState) -> dict[str, Any]:
        return report.page_context(state.result) if state.done else {}


report_page = ReportPage.as_view()


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
