"""The worker page: one worker's work and figures in one project, and the staff actions on them
(block, unblock, approve, reject, bonus, training), for staff who may see the project."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotation.models import Project
from annotation.page_sections import WORKER_END, WORKER_HEADER, sections_shown
from annotation.task_types import get_task_type
from annotation.views.permissions import permission_required
from annotation.views.request_types import AuthenticatedRequest
from annotation.worker_figures import first_shown_figure
from quality.selectors.first_shown import worker_first_shown
from quality.selectors.shared_devices import accounts_sharing_device
from quality.selectors.worker_page import project_worker, worker_crowd_figures, worker_page
from quality.services.worker_actions import (
    ACTION_PERMS,
    ActionRefused,
    action_forms,
    worker_action,
)

PAGE_PERM = "annotation.view_project"
TEMPLATE = "annotation/worker.html"
# matplotlib's SVG carries inline styles, which the site's policy forbids; a figure runs no script
# and loads nothing, so opened on its own it gets a policy allowing just that (as analysis's figures).
SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"


def _worker(slug: str, worker_id: int):
    project = get_object_or_404(Project, slug=slug)
    worker = project_worker(project=project, worker_id=worker_id)
    if worker is None:
        raise Http404("no such worker in this project")
    return project, worker


@permission_required(PAGE_PERM)
def worker_detail(request: AuthenticatedRequest, slug: str, worker_id: int) -> HttpResponse:
    project, worker = _worker(slug, worker_id)
    # The comparison with the other workers reads far more than the rest: the page asks for it
    # once it is shown (htmx); without JavaScript, its link opens the page with it.
    crowd = worker_crowd_figures(project=project, worker=worker) if request.GET.get("part") == "crowd" else None
    if crowd is not None and request.htmx:
        return render(request, f"{TEMPLATE}#crowd", {"project": project, "worker": worker, "crowd": crowd})
    figures = worker_page(project=project, worker=worker, page=request.GET.get("page"))
    allowed = {action for action, perm in ACTION_PERMS.items() if request.user.has_perm(perm)}
    return render(request, TEMPLATE, {
        "project": project, "task": get_task_type(project.task_type), "page": figures, "worker": worker,
        "allowed": allowed, "crowd": crowd,
        "header_sections": sections_shown(WORKER_HEADER, project=project, worker=worker),
        "end_sections": sections_shown(WORKER_END, project=project, worker=worker),
        "action_forms": [form for name, form in action_forms() if name in allowed],
        "shared_browser": accounts_sharing_device(project=project, worker=worker),
    })


@permission_required(PAGE_PERM)
def worker_first_shown_figure(request: AuthenticatedRequest, slug: str, worker_id: int) -> HttpResponse:
    """The position-bias figure of the page (its words stand beside it on the page)."""
    project, worker = _worker(slug, worker_id)
    share = worker_first_shown(project=project, worker=worker)
    body = first_shown_figure(share) if share is not None else None
    if body is None:
        raise Http404("no position-bias figure for this project")
    response = HttpResponse(body, content_type="image/svg+xml")
    response["Content-Security-Policy"] = SVG_POLICY
    response["Cache-Control"] = "private, max-age=60"
    return response


@permission_required(PAGE_PERM)
@require_POST
def worker_act(request: AuthenticatedRequest, slug: str, worker_id: int, action: str) -> HttpResponse:
    project, worker = _worker(slug, worker_id)
    try:
        done = worker_action(project=project, worker=worker, action=action, actor=request.user, data=request.POST)
    except ActionRefused as exc:
        if exc.status == 404:
            raise Http404(exc.message) from None
        messages.error(request, f"Nothing was done: {exc.message}.")
    else:
        messages.success(request, done.message)
    return redirect("quality-worker", slug=project.slug, worker_id=worker.pk)
