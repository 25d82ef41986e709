"""The agreement dashboard: progress, agreement figures with intervals, figures, worker table."""

from __future__ import annotations

import csv
from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils import timezone
from django.views import View
from django.views.decorators.http import require_POST

from analysis import plots
from analysis.models import AnalysisRun
from analysis.reports import ParamError, Report
from analysis.selectors import (
    MIN_ANNOTATIONS,
    WORKER_COLUMNS,
    WORKER_SORTS,
    RunState,
    annotations_per_hour,
    figure_rows,
    sorted_workers,
)
from analysis.services import analysis_recompute_all
from analysis.views.run_header import RunHeaderMixin
from annotation.models import Project
from annotation.spreadsheet import safe_row
from annotation.views.permissions import permission_required

DASHBOARD = "analysis/dashboard.html"
KIND = "agreement"


class Dashboard(RunHeaderMixin, View):
    """The agreement report's page: the project's progress, the figures with their intervals,
    the figures' pictures and the worker table."""

    kind = KIND
    template_name = DASHBOARD

    def results_context(self, *, project: Project, report: Report, state: RunState) -> dict[str, Any]:
        request = self.request
        sort = request.GET.get("sort", "rank")
        descending = request.GET.get("dir") == "desc"
        trusted = request.GET.get("trusted") == "1"
        result = state.result
        workers = sorted_workers(result=result, sort=sort, descending=descending, trusted_only=trusted)
        return {
            "figures": figure_rows(result=result),
            "set_figures": figure_rows(result=result["sets"]) if result.get("sets") else [],
            "workers": Paginator(workers, 100).get_page(request.GET.get("page")),
            "sort": sort if sort in WORKER_SORTS else "rank",
            "descending": descending,
            "trusted": trusted,
            "min_annotations": result.get("min_annotations", MIN_ANNOTATIONS),
            "columns": WORKER_COLUMNS,
            "time_zone": timezone.get_current_timezone_name(),
        }


dashboard = Dashboard.as_view()


@permission_required("analysis.add_analysisrun")
@require_POST
def recompute_all(request: HttpRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    try:
        runs = analysis_recompute_all(project=project, user=request.user)
    except ParamError as exc:  # a latest run named a project that is gone
        messages.error(request, f"Nothing was queued: {exc}. Start that report from its page.")
        return redirect("analysis-dashboard", slug=slug)
    messages.success(request, f"Queued: {', '.join(r.kind for r in runs)}. Each page shows its run's progress.")
    return redirect("analysis-dashboard", slug=slug)


# A figure is drawn with inline styles (matplotlib's SVG), which the site's policy forbids; it
# runs no script and loads nothing, so opened on its own it gets a policy allowing just that.
SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"


def svg_response(body: str) -> HttpResponse:
    response = HttpResponse(body, content_type="image/svg+xml")
    response["Content-Security-Policy"] = SVG_POLICY
    response["Cache-Control"] = "private, max-age=60"
    return response


@permission_required("annotation.view_project")
def figure(request: HttpRequest, slug: str, run_id: int, name: str) -> HttpResponse:
    run = get_object_or_404(AnalysisRun, pk=run_id, project__slug=slug, status=AnalysisRun.Status.DONE)
    if name not in plots.FIGURES:
        raise Http404(f"unknown figure {name!r}")
    return svg_response(plots.FIGURES[name](run.result or {}))


@permission_required("annotation.view_project")
def hourly(request: HttpRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    return svg_response(plots.hourly_svg(annotations_per_hour(project=project), tz=timezone.get_current_timezone(),
                                         tz_name=timezone.get_current_timezone_name()))


@permission_required("annotation.view_project")
def workers_csv(request: HttpRequest, slug: str, run_id: int) -> HttpResponse:
    run = get_object_or_404(AnalysisRun, pk=run_id, project__slug=slug, status=AnalysisRun.Status.DONE)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-workers-run{run.pk}.csv"'
    columns = ["rank", "worker", "annotations", "competence", "agreement_with_mace", "median_seconds", "flags"]
    writer = csv.DictWriter(response, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    for row in (run.result or {}).get("workers", []):
        writer.writerow(safe_row({**row, "flags": ";".join(row["flags"])}))
    return response
