"""Crowd workers arriving from a marketplace: the study link, MTurk's preview of a HIT, and the
welcome step (guidelines and consent) before their first item."""

from __future__ import annotations

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache

from annotation.models import Project
from annotation.selectors.annotator import (
    MARKETPLACE_PROJECT,
    consent_needed,
    presentation,
    preview_item,
    project_access,
)
from annotation.services.accounts import AccountError
from annotation.services.marketplace import (
    consent_accept,
    is_mturk_preview,
    marketplace_account,
    marketplace_check,
    marketplace_identity,
    worker_from_marketplace,
)
from annotation.throttles import StartThrottle, throttle
from annotation.views.annotator import (
    ANNOTATE,
    AUTH_BACKEND,
    not_found,
    task_page_context,
)
from annotation.views.nul_fields import refuse_nul_fields
from annotation.views.request_types import AuthenticatedRequest

# Marketplace parameters kept with each answer, for matching payments to work.
MARKETPLACE_KEYS = ("STUDY_ID", "SESSION_ID", "assignmentId", "hitId", "PROLIFIC_PID", "workerId")
MARKETPLACE_NAMES = {"prolific": "Prolific", "mturk": "Amazon Mechanical Turk"}


def _message(request: HttpRequest, title: str, text: str, *, status: int) -> HttpResponse:
    return render(request, "annotation/message.html", {"title": title, "text": text}, status=status)


@never_cache
@throttle(StartThrottle)
@refuse_nul_fields
def start(request: HttpRequest, slug: str) -> HttpResponse:
    """Entry from a marketplace link such as ``/start/<project>/?PROLIFIC_PID=…``."""
    project = Project.objects.filter(slug=slug).first()
    if project is None or not project.external_entry:
        # A link to a project that takes nobody from marketplaces says no more than one to a
        # project that does not exist: private projects' names stay unknown to strangers.
        return not_found(request)
    if is_mturk_preview(params=request.GET):
        # MTurk shows the HIT before the worker accepts it: no account, no item taken.
        try:
            marketplace_check(project=project, source="mturk")
        except AccountError as exc:
            return _message(request, "Cannot start", str(exc), status=400)
        sample = preview_item(project=project)
        return render(request, ANNOTATE, {**task_page_context(project), "preview": "mturk", "sample": sample,
                                          **presentation(project=project, worker=None, item=sample)})
    identity = marketplace_identity(params=request.GET)
    if identity is None:
        return _message(request, "This link is incomplete",
                        "The link has no worker id. Please open the study again from the marketplace.", status=400)
    source, external_id = identity
    try:
        marketplace_check(project=project, source=source, external_id=external_id)
    except AccountError as exc:
        return _message(request, "Cannot start", str(exc), status=400)
    if request.user.is_authenticated:
        if request.user.is_staff:
            # A researcher testing a link must not lose their session to a worker account.
            return render(request, "annotation/marketplace_staff.html", {"project": project}, status=409)
        linked = marketplace_account(source=source, external_id=external_id)
        switching = linked is None or linked.pk != request.user.pk
        if switching and not (request.method == "POST" and request.POST.get("switch") == "yes"):
            return render(request, "annotation/marketplace_switch.html", {
                "project": project, "external_id": external_id,
                "marketplace": MARKETPLACE_NAMES.get(source, source),
            })
    try:
        user = worker_from_marketplace(project=project, source=source, external_id=external_id)
    except AccountError as exc:
        return _message(request, "Cannot start", str(exc), status=400)
    if request.user != user:
        login(request, user, backend=AUTH_BACKEND)
    request.session["marketplace"] = {k: request.GET[k][:100] for k in MARKETPLACE_KEYS if k in request.GET}
    request.session[MARKETPLACE_PROJECT] = project.slug
    return redirect("annotate", slug=project.slug)


@never_cache
@login_required
def welcome(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    """Guidelines and consent before the first item; the worker must accept to start."""
    project = Project.objects.filter(slug=slug).first()
    if project is None or project_access(project=project, user=request.user) != "worker":
        return not_found(request)
    error = ""
    if request.method == "POST":
        if request.POST.get("accept") == "yes":
            consent_accept(project=project, worker=request.user)
            return redirect("annotate", slug=project.slug)
        error = "Please tick the box to confirm that you read the guidelines and agree to take part."
    elif not consent_needed(project=project, worker=request.user):
        return redirect("annotate", slug=project.slug)
    return render(request, "annotation/welcome.html", {**task_page_context(project), "error": error},
                  status=400 if error else 200)
