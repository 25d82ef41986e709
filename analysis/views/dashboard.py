"""The agreement dashboard: progress, agreement figures with intervals, figures, worker table."""

from __future__ import annotations

import csv

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRefresh

from analysis import plots
from analysis.forms import param_groups
from analysis.models import AnalysisRun
from analysis.reports import ParamError, UnknownReport, get_report, page_url, report_pages
from analysis.selectors import (
    MIN_ANNOTATIONS,
    WORKER_COLUMNS,
    WORKER_SORTS,
    annotations_per_hour,
    figure_rows,
    run_state,
    sorted_workers,
)
from analysis.services import (
    analysis_recompute_all,
    analysis_run_cancel,
    analysis_run_create,
    analysis_run_restart,
    analysis_runs_reap,
)
from annotation.models import Project
from annotation.selectors.progress import project_progress
from annotation.spreadsheet import safe_row
from annotation.views.permissions import permission_required
from annotation.views.request_types import HtmxRequest

DASHBOARD = "analysis/dashboard.html"
KIND = "agreement"
# The page that shows each kind's results.
# Form fields that carry a run's parameters; other fields (kind, next, the CSRF token) are not.
PARAM_PREFIX = "param_"


@permission_required("annotation.view_project")
def dashboard(request: HttpRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    analysis_runs_reap(project=project)
    state = run_state(project=project, kind=KIND, viewer=request.user)
    sort = request.GET.get("sort", "rank")
    descending = request.GET.get("dir") == "desc"
    trusted = request.GET.get("trusted") == "1"
    result = state.result
    workers = sorted_workers(result=result, sort=sort, descending=descending, trusted_only=trusted)
    ctx = {
        "project": project,
        "progress": project_progress(project=project),
        "state": state,
        "done": state.done,
        "running": state.running,
        "figures": figure_rows(result=result),
        "set_figures": figure_rows(result=result["sets"]) if result.get("sets") else [],
        "result": result,
        "workers": Paginator(workers, 100).get_page(request.GET.get("page")),
        "sort": sort if sort in WORKER_SORTS else "rank",
        "descending": descending,
        "trusted": trusted,
        "min_annotations": result.get("min_annotations", MIN_ANNOTATIONS),
        "columns": WORKER_COLUMNS,
        "kind": KIND,
        "next_page": "analysis-dashboard",
        "param_groups": param_groups(get_report(KIND), state.done.params if state.done else None, project=project),
        "time_zone": timezone.get_current_timezone_name(),
    }
    return render(request, DASHBOARD, ctx)


@permission_required("annotation.view_project")
def run_status(request: HtmxRequest, slug: str, run_id: int) -> HttpResponse:
    """Polled by the progress bar; once the run has ended, the page reloads to show it."""
    run = get_object_or_404(AnalysisRun, pk=run_id, project__slug=slug)
    if analysis_runs_reap(project=run.project):
        run.refresh_from_db()
    if run.is_finished:
        return HttpResponseClientRefresh() if request.htmx else redirect(_page_of(run.kind, None, slug))
    return render(request, "analysis/run_status.html", {"project": run.project, "running": run})


def _page_of(kind: str, asked: str | None, slug: str) -> str:
    """The page to go back to: the one that asked, if it is a report's page, else the kind's own."""
    pages = {page for page, _ in report_pages(None)}
    if asked in pages:
        return page_url(asked, slug)
    try:
        return page_url(get_report(kind).page_key, slug)
    except UnknownReport:
        return page_url("analysis-dashboard", slug)


@permission_required("analysis.add_analysisrun")
@require_POST
def start(request: HttpRequest, slug: str) -> HttpResponse:
    """Queue a run and go back at once; its progress bar shows on the page. Parameters come
    from the fields named ``param_<name>`` only."""
    project = get_object_or_404(Project, slug=slug)
    kind = request.POST.get("kind", KIND)
    params = {key.removeprefix(PARAM_PREFIX): value for key, value in request.POST.items()
              if key.startswith(PARAM_PREFIX) and value != ""}
    try:
        analysis_run_create(project=project, kind=kind, params=params, user=request.user)
    except (UnknownReport, ParamError) as exc:
        messages.error(request, str(exc))
    return redirect(_page_of(kind, request.POST.get("next"), slug))


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


@permission_required("analysis.change_analysisrun")
@require_POST
def restart(request: HttpRequest, slug: str, run_id: int) -> HttpResponse:
    run = get_object_or_404(AnalysisRun, pk=run_id, project__slug=slug)
    try:
        analysis_run_restart(run=run)
    except ValueError as exc:
        messages.error(request, str(exc))
    return redirect(_page_of(run.kind, request.POST.get("next"), slug))


@permission_required("analysis.change_analysisrun")
@require_POST
def cancel(request: HtmxRequest, slug: str, run_id: int) -> HttpResponse:
    run = get_object_or_404(AnalysisRun, pk=run_id, project__slug=slug)
    try:
        analysis_run_cancel(run=run, user=request.user)
    except ValueError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Run #{run.pk} was cancelled.")
    if request.htmx:
        return HttpResponseClientRefresh()
    return redirect(_page_of(run.kind, request.POST.get("next"), slug))


def svg_response(body: str) -> HttpResponse:
    response = HttpResponse(body, content_type="image/svg+xml")
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
