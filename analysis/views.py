"""The agreement dashboard: progress, agreement figures with intervals, figures, worker table."""

from __future__ import annotations

import csv

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRefresh

from analysis import plots
from analysis.models import AnalysisRun
from analysis.reports import ParamError, UnknownReport
from analysis.selectors import (
    WORKER_COLUMNS,
    WORKER_SORTS,
    active_run,
    annotations_per_hour,
    annotations_since,
    figure_rows,
    latest_done,
    runs_of,
    sorted_workers,
)
from analysis.services import (
    analysis_recompute_all,
    analysis_run_create,
    analysis_run_restart,
    analysis_runs_reap,
)
from annotation.access import permission_required
from annotation.models import Project
from annotation.selectors import project_progress

DASHBOARD = "analysis/dashboard.html"
KIND = "agreement"
# The page that shows each kind's results.
PAGE_OF_KIND = {"agreement": "analysis-dashboard", "pairwise_gold": "gold-page"}


@permission_required("annotation.view_project")
def dashboard(request: HttpRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    analysis_runs_reap()
    done = latest_done(project=project, kind=KIND)
    running = active_run(project=project, kind=KIND)
    sort = request.GET.get("sort", "rank")
    descending = request.GET.get("dir") == "desc"
    result = done.result if done else {}
    ctx = {
        "project": project,
        "progress": project_progress(project=project),
        "done": done,
        "running": running,
        "failed": runs_of(project=project, kind=KIND).filter(status=AnalysisRun.Status.FAILED).order_by("-pk").first(),
        "new_annotations": annotations_since(run=done) if done else None,
        "figures": figure_rows(result),
        "result": result,
        "workers": Paginator(sorted_workers(result, sort=sort, descending=descending), 100).get_page(request.GET.get("page")),
        "sort": sort if sort in WORKER_SORTS else "rank",
        "descending": descending,
        "columns": WORKER_COLUMNS,
    }
    return render(request, DASHBOARD, ctx)


@permission_required("annotation.view_project")
def run_status(request: HttpRequest, slug: str, run_id: int) -> HttpResponse:
    """Polled by the progress bar; once the run has finished, the page reloads to show it."""
    run = get_object_or_404(AnalysisRun, pk=run_id, project__slug=slug)
    if run.is_finished:
        return HttpResponseClientRefresh() if request.htmx else redirect("analysis-dashboard", slug=slug)
    return render(request, "analysis/run_status.html", {"project": run.project, "running": run})


@permission_required("analysis.add_analysisrun")
@require_POST
def start(request: HttpRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    params = {k: v for k, v in request.POST.items() if k not in ("csrfmiddlewaretoken", "kind") and v != ""}
    try:
        run = analysis_run_create(project=project, kind=request.POST.get("kind", KIND), params=params, user=request.user)
    except (UnknownReport, ParamError) as exc:
        messages.error(request, str(exc))
        back = request.POST.get("next_page")
        return redirect(back if back in PAGE_OF_KIND.values() else "analysis-dashboard", slug=slug)
    return redirect(PAGE_OF_KIND.get(run.kind, "analysis-dashboard"), slug=slug)


@permission_required("analysis.add_analysisrun")
@require_POST
def recompute_all(request: HttpRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    runs = analysis_recompute_all(project=project, user=request.user)
    messages.success(request, f"Recomputing: {', '.join(r.kind for r in runs)}.")
    return redirect("analysis-dashboard", slug=slug)


@permission_required("analysis.change_analysisrun")
@require_POST
def restart(request: HttpRequest, slug: str, run_id: int) -> HttpResponse:
    run = get_object_or_404(AnalysisRun, pk=run_id, project__slug=slug)
    try:
        analysis_run_restart(run=run)
    except ValueError as exc:
        messages.error(request, str(exc))
    return redirect(PAGE_OF_KIND.get(run.kind, "analysis-dashboard"), slug=slug)


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
    return svg_response(plots.hourly_svg(annotations_per_hour(project=project)))


@permission_required("annotation.view_project")
def workers_csv(request: HttpRequest, slug: str, run_id: int) -> HttpResponse:
    run = get_object_or_404(AnalysisRun, pk=run_id, project__slug=slug, status=AnalysisRun.Status.DONE)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-workers-run{run.pk}.csv"'
    columns = ["rank", "worker", "annotations", "competence", "agreement_with_mace", "median_seconds", "flags"]
    writer = csv.DictWriter(response, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    for row in (run.result or {}).get("workers", []):
        writer.writerow({**row, "flags": ";".join(row["flags"])})
    return response
