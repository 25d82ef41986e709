"""The project's Prolific page for staff: the study link (token and webhook secret shown only as
configured or not), the last poll and "Sync now", and the submissions with each participant's
work, to approve or reject one by one or many at once."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from annotation.models import Project
from annotation.views.permissions import permission_required
from annotation.views.request_types import AuthenticatedRequest
from recruiting.models import ProlificSubmission
from recruiting.providers.prolific.client import REJECTION_CATEGORIES
from recruiting.selectors.prolific import study_of, study_state, submission_rows
from recruiting.services.prolific.decisions import (
    DecisionRefused,
    prolific_submissions_approve,
    prolific_submissions_reject,
)
from recruiting.services.prolific.link import (
    LinkRefused,
    prolific_study_link,
    prolific_study_unlink,
)
from recruiting.services.prolific.sync import prolific_sync_queue

TEMPLATE = "recruiting/prolific.html"
LINK, DECIDE = "recruiting.change_prolificstudy", "recruiting.change_prolificsubmission"


@never_cache
@permission_required("annotation.view_project")
def prolific_page(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    study = study_of(project=project)
    wanted = request.GET.get("status", "")
    wanted = wanted if wanted in ProlificSubmission.Status.values else ""
    return render(request, TEMPLATE, {
        "project": project, "state": study_state(study=study) if study else None,
        "rows": submission_rows(study=study, status=wanted) if study else [], "status": wanted,
        "statuses": ProlificSubmission.Status.choices, "categories": REJECTION_CATEGORIES,
    })


def _link_data(post) -> dict:
    data: dict = {"study_id": post.get("study_id", ""), "auto_approve": post.get("auto_approve") == "on",
                  "auto_reject": post.get("auto_reject") == "on"}
    seconds = post.get("poll_seconds", "").strip()
    data["poll_seconds"] = int(seconds) if seconds.isdigit() and len(seconds) < 10 else seconds
    return data


@permission_required("annotation.view_project")
@require_POST
def prolific_act(request: AuthenticatedRequest, slug: str, action: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    if action not in ("link", "unlink", "sync", "approve", "reject"):
        raise Http404("unknown action")
    if not request.user.has_perm(DECIDE if action in ("approve", "reject") else LINK):
        raise PermissionDenied("You may not change this project's Prolific study.")
    study = study_of(project=project)
    if action == "link":
        try:
            prolific_study_link(project=project, data=_link_data(request.POST), actor=request.user)
        except LinkRefused as exc:
            messages.error(request, f"Nothing was changed: {exc}.")
        else:
            messages.success(request, "The study link is saved.")
    elif study is None:
        raise Http404("This project is not linked to a Prolific study.")
    elif action == "unlink":
        prolific_study_unlink(project=project, actor=request.user)
        messages.success(request, "The project is no longer linked to a Prolific study.")
    elif action == "sync":
        prolific_sync_queue(study=study, actor=request.user)
        messages.success(request, "A sync of the study's submissions is queued; this page shows its outcome.")
    else:
        ids = request.POST.getlist("submission")
        chosen = list(study.submissions.select_related("worker", "project").filter(submission_id__in=ids))
        if len(chosen) != len(set(ids)):
            raise Http404("No such submission in this project's study.")
        if not chosen:
            messages.error(request, "Nothing was decided: select the submissions first.")
            return redirect("prolific", slug=project.slug)
        try:
            if action == "approve":
                outcome = prolific_submissions_approve(submissions=chosen, actor=request.user)
            else:
                outcome = prolific_submissions_reject(submissions=chosen, actor=request.user,
                                                      message=request.POST.get("message", ""),
                                                      rejection_category=request.POST.get("rejection_category", ""))
        except DecisionRefused as exc:
            messages.error(request, f"Nothing was decided: {exc.message}")
        else:
            verb = "approved" if action == "approve" else "rejected"
            messages.success(request, f"{len(outcome.decided)} submission(s) {verb}.")
            for sid, why in outcome.refused.items():
                messages.error(request, f"{sid} was not {verb}: {why}")
    return redirect("prolific", slug=project.slug)
