"""Pages for admins and researchers: project overview with live progress, and exports."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from annotation.access import permission_required
from annotation.exports import FORMATS, export_response
from annotation.models import Project
from annotation.selectors import items_progress, project_progress, workers_progress
from annotation.task_types import get_task_type

OVERVIEW = "annotation/overview.html"


@permission_required("annotation.view_project")
def overview(request: HttpRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    page = Paginator(items_progress(project=project), 100).get_page(request.GET.get("page"))
    ctx = {
        "project": project,
        "task": get_task_type(project.task_type),
        "progress": project_progress(project=project),
        "workers": workers_progress(project=project),
        "items_page": page,
        "formats": list(FORMATS),
    }
    # The live part is polled by htmx; the page itself works without JavaScript.
    template = f"{OVERVIEW}#live" if request.htmx else OVERVIEW
    return render(request, template, ctx)


@permission_required("annotation.export_annotations")
def export(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    if fmt not in FORMATS:
        raise Http404(f"unknown export format {fmt!r}")
    return export_response(project=project, fmt=fmt, counted_only=request.GET.get("all") != "1")
