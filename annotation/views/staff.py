"""Pages for admins and researchers: project overview with live progress, and exports."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render

from annotation import page_sections
from annotation.exports import FORMATS, export_response
from annotation.models import Project
from annotation.selectors.counted import excluded_workers
from annotation.selectors.progress import project_progress
from annotation.selectors.staff import (
    ITEM_STATES,
    clean_worker_sort,
    item_table,
    open_flag_count,
    worker_table,
)
from annotation.selectors.tallies import is_large
from annotation.services.audit import audit_record
from annotation.staff_links import staff_links
from annotation.task_types import get_task_type
from annotation.views.permissions import permission_required
from annotation.views.request_types import AuthenticatedRequest, HtmxRequest

OVERVIEW = "annotation/overview.html"
# (sort key, heading, numeric) of the worker table's sortable columns.
WORKER_COLUMNS = (("worker", "Worker", False), ("submitted", "Submitted", True), ("open", "Open", True),
                  ("expired", "Expired", True), ("returned", "Skipped", True), ("rejected", "Rejected", True))


@dataclass(frozen=True)
class SortLink:
    key: str
    heading: str
    numeric: bool
    next_sort: str  # what selecting the heading sorts by
    arrow: str  # "↓", "↑" or "" when the table is not sorted by this column


def _sort_links(current: str, columns) -> list[SortLink]:
    links = []
    for key, heading, numeric in columns:
        if current.lstrip("-") == key:
            descending = current.startswith("-")
            links.append(SortLink(key, heading, numeric, key if descending else f"-{key}", "↓" if descending else "↑"))
        else:
            # Counts and times start with the largest, names with A.
            links.append(SortLink(key, heading, numeric, f"-{key}" if numeric else key, ""))
    return links


@permission_required("annotation.view_project")
def overview(request: HtmxRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    progress = project_progress(project=project)
    if request.htmx:
        # The poll refreshes the counts only: the tables change when someone pages or searches.
        return render(request, f"{OVERVIEW}#live", {"project": project, "progress": progress})
    q = request.GET
    wq, wsort = q.get("wq", "").strip(), clean_worker_sort(sort=q.get("wsort"))
    iq, istate = q.get("iq", "").strip(), q.get("istate", "")
    ctx = {
        "project": project,
        "task": get_task_type(project.task_type),
        "progress": progress,
        "staff_links": staff_links(project=project),
        "workers": worker_table(project=project, search=wq, sort=wsort, page=q.get("wpage"),
                                large=is_large(assignments=progress.submitted + progress.open)),
        "worker_columns": _sort_links(wsort, WORKER_COLUMNS),
        "last_sort": _sort_links(wsort, [("last", "Last answer", True)])[0],
        "items": item_table(project=project, search=iq, state=istate, page=q.get("ipage"), total=progress.items),
        "item_states": ITEM_STATES,
        "wq": wq, "wsort": wsort, "iq": iq, "istate": istate if istate in ITEM_STATES else "",
        "formats": list(FORMATS),
        "blocked_excluded": excluded_workers(project=project),
        "open_flags": open_flag_count(project=project),
        "sections": page_sections.sections_shown(page_sections.OVERVIEW, project=project),
    }
    return render(request, OVERVIEW, ctx)


@permission_required("annotation.export_annotations")
def export(request: AuthenticatedRequest, slug: str, fmt: str) -> StreamingHttpResponse:
    project = get_object_or_404(Project, slug=slug)
    if fmt not in FORMATS:
        raise Http404(f"unknown export format {fmt!r}")
    counted_only = request.GET.get("all") != "1"
    include_blocked = request.GET.get("include_blocked") == "1"
    audit_record(actor=request.user, action="export", project=project, target=f"annotations.{fmt}",
                 details={"format": fmt, "all": not counted_only, "include_blocked": include_blocked, "via": "page"})
    return export_response(project=project, fmt=fmt, counted_only=counted_only, include_blocked=include_blocked)
