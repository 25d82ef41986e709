"""Crowd workers arriving from a marketplace: the study link, MTurk's preview of a HIT, and the
welcome step (guidelines and consent) before their first item."""

from __future__ import annotations

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache

from annotation.models import Project
from annotation.providers import provider_of
from annotation.selectors.annotator import (
    MARKETPLACE_PROJECT,
    consent_needed,
    presentation,
    preview_item,
    project_access,
)
from annotation.services.accounts import AccountError
from annotation.services.workers import consent_accept
from annotation.throttles import StartThrottle, throttle
from annotation.views.annotator import (
    ANNOTATE,
    AUTH_BACKEND,
    not_found,
    task_page_context,
)
from annotation.views.nul_fields import refuse_nul_fields
from annotation.views.request_types import AuthenticatedRequest
from recruiting.services.marketplace import (
    foreign_panel,
    is_preview,
    link_setup,
    marketplace_account,
    marketplace_check,
    marketplace_identity,
    marketplace_params,
    worker_from_marketplace,
)


def _message(request: HttpRequest, title: str, text: str, *, status: int) -> HttpResponse:
    return render(request, "annotation/message.html", {"title": title, "text": text}, status=status)


@never_cache
@throttle(StartThrottle)
@refuse_nul_fields
def start(request: HttpRequest, slug: str) -> HttpResponse:
    """Entry from a panel's study link such as ``/start/<project>/?PROLIFIC_PID=…``: the worker id
    is read from the parameter of the project's panel (``recruiting.panels``)."""
    project = Project.objects.filter(slug=slug).first()
    if project is None or not project.external_entry or provider_of(project) is None:
        # A link to a project that takes nobody from marketplaces says no more than one to a
        # project that does not exist: private projects' names stay unknown to strangers.
        return not_found(request)
    setup = link_setup(project)
    if is_preview(project=project, params=request.GET):
        # MTurk shows the HIT before the worker accepts it: no account, no item taken.
        sample = preview_item(project=project)
        return render(request, ANNOTATE, {**task_page_context(project), "preview": setup.source, "sample": sample,
                                          **presentation(project=project, worker=None, item=sample)})
    identity = marketplace_identity(project=project, params=request.GET)
    if identity is None:
        other = foreign_panel(project=project, params=request.GET)
        if other is not None:
            return _message(request, "Cannot start", (
                f"This project does not accept workers from {other.name} ({other.worker_param}=…): it takes workers "
                f"from {setup.name}, whose link carries {setup.worker_param}=…. Please open the study again from "
                "the marketplace that sent you."), status=400)
        return _message(request, "This link is incomplete",
                        f"The link has no worker id ({setup.worker_param}=…). Please open the study again from the "
                        "marketplace.", status=400)
    source, external_id = identity
    try:
        marketplace_check(project=project, source=source, external_id=external_id)
    except AccountError as exc:
        return _message(request, "Cannot start", str(exc), status=400)
    if request.user.is_authenticated:
        if request.user.is_staff:
            # A researcher testing a link must not lose their session to a worker account.
            return render(request, "recruiting/marketplace_staff.html", {"project": project}, status=409)
        linked = marketplace_account(source=source, external_id=external_id)
        switching = linked is None or linked.pk != request.user.pk
        if switching and not (request.method == "POST" and request.POST.get("switch") == "yes"):
            return render(request, "recruiting/marketplace_switch.html", {
                "project": project, "external_id": external_id,
                "marketplace": setup.name,
            })
    try:
        user = worker_from_marketplace(project=project, source=source, external_id=external_id)
    except AccountError as exc:
        return _message(request, "Cannot start", str(exc), status=400)
    if request.user != user:
        login(request, user, backend=AUTH_BACKEND)
    request.session["marketplace"] = marketplace_params(project=project, params=request.GET)
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
