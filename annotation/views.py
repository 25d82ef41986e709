"""Annotator pages: project list, guidelines, the annotation loop, joining and invites."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import SetPasswordForm
from django.contrib.auth.views import PasswordChangeView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse_lazy
from django.views.decorators.http import require_POST

from annotation.accounts import (
    AccountError,
    invite_accept,
    invite_lookup,
    marketplace_identity,
    password_changed,
    project_join,
    worker_from_marketplace,
)
from annotation.models import Assignment, Project
from annotation.request_text import refuse_nul_fields
from annotation.selectors import previous_answer, projects_for_worker, worker_status
from annotation.services import (
    NextResult,
    WorkflowError,
    annotation_submit,
    assignment_next,
    assignment_return,
)
from annotation.task_types import get_task_type
from annotation.task_types.base import AnswerInvalid
from annotation.throttles import JoinAddressThrottle, JoinThrottle, StartThrottle, throttle

ANNOTATE = "annotation/annotate.html"
AUTH_BACKEND = "django.contrib.auth.backends.ModelBackend"
# Marketplace parameters kept with each answer, for matching payments to work.
MARKETPLACE_KEYS = ("STUDY_ID", "SESSION_ID", "assignmentId", "hitId", "PROLIFIC_PID", "workerId")


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return redirect("projects")


@login_required
def projects(request: HttpRequest) -> HttpResponse:
    statuses = [worker_status(project=p, worker=request.user) for p in projects_for_worker(worker=request.user)]
    managed = Project.objects.order_by("name") if request.user.is_staff else Project.objects.none()
    return render(request, "annotation/projects.html", {"statuses": statuses, "managed": managed})


@login_required
def guidelines(request: HttpRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    task = get_task_type(project.task_type)
    return render(request, "annotation/guidelines.html", {
        "project": project, "task": task, "text": project.guidelines or task.default_guidelines,
    })


def _client_meta(request: HttpRequest) -> dict:
    meta = {
        "elapsed_ms": request.POST.get("client_elapsed_ms"),
        "input": request.POST.get("client_input", "")[:20],
        "viewport": request.POST.get("client_viewport", "")[:20],
        "user_agent": request.headers.get("User-Agent", "")[:300],
        "htmx": bool(request.htmx),
    }
    marketplace = request.session.get("marketplace")
    if marketplace:
        meta["marketplace"] = marketplace
    return meta


def _task_context(request: HttpRequest, project: Project, result: NextResult, *,
                  errors: dict | None = None, values=None, notice: str = "") -> dict:
    task = get_task_type(project.task_type)
    status = worker_status(project=project, worker=request.user)
    ctx = {"project": project, "task": task, "result": result, "status": status,
           "errors": errors or {}, "notice": notice}
    assignment = result.assignment
    if assignment is not None:
        payload = assignment.item.payload
        initial = task.initial_answer(payload=payload, previous=previous_answer(project=project, worker=request.user))
        ctx.update(assignment=assignment, payload=payload, values=values if values is not None else initial)
    return ctx


def _render_task(request: HttpRequest, ctx: dict) -> HttpResponse:
    template = f"{ANNOTATE}#task-area" if request.htmx else ANNOTATE
    return render(request, template, ctx)


@login_required
def annotate(request: HttpRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    result = assignment_next(project=project, worker=request.user)
    return _render_task(request, _task_context(request, project, result))


@login_required
@require_POST
def submit(request: HttpRequest, slug: str, assignment_id: int) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    assignment = get_object_or_404(
        Assignment.objects.select_related("item"), pk=assignment_id, project=project, worker=request.user
    )
    try:
        outcome = annotation_submit(assignment=assignment, worker=request.user, data=request.POST,
                                    client=_client_meta(request))
    except AnswerInvalid as exc:
        ctx = _task_context(request, project, NextResult(assignment), errors=exc.errors, values=request.POST)
        return _render_task(request, ctx)
    except WorkflowError as exc:
        notice = str(exc)
    else:
        if not outcome.created:
            notice = "This answer was already saved."
        elif not outcome.counted:
            notice = "Saved, but your time on that item ran out and others completed it meanwhile."
        else:
            notice = "Saved."
    if not request.htmx:
        messages.info(request, notice)
        return redirect("annotate", slug=slug)
    result = assignment_next(project=project, worker=request.user)
    return _render_task(request, _task_context(request, project, result, notice=notice))


@login_required
@require_POST
def skip(request: HttpRequest, slug: str, assignment_id: int) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    assignment = get_object_or_404(Assignment, pk=assignment_id, project=project, worker=request.user)
    try:
        assignment_return(assignment=assignment, worker=request.user)
        notice = "Skipped; this item goes to someone else."
    except WorkflowError as exc:
        notice = str(exc)
    if not request.htmx:
        messages.info(request, notice)
        return redirect("annotate", slug=slug)
    result = assignment_next(project=project, worker=request.user)
    return _render_task(request, _task_context(request, project, result, notice=notice))


@login_required
@throttle(JoinThrottle, JoinAddressThrottle)
@refuse_nul_fields
def join(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        try:
            project = project_join(code=request.POST.get("code", ""), worker=request.user)
        except AccountError as exc:
            messages.error(request, str(exc))
            return redirect("projects")
        messages.success(request, f"You joined “{project.name}”.")
        return redirect("annotate", slug=project.slug)
    return redirect("projects")


@throttle(StartThrottle)
@refuse_nul_fields
def start(request: HttpRequest, slug: str) -> HttpResponse:
    """Entry from a marketplace link such as ``/start/<project>/?PROLIFIC_PID=…``."""
    project = get_object_or_404(Project, slug=slug)
    identity = marketplace_identity(request.GET)
    if identity is None:
        return render(request, "annotation/message.html", {
            "title": "This link is incomplete",
            "text": "The link has no worker id. Please open the study again from the marketplace.",
        }, status=400)
    source, external_id = identity
    try:
        user = worker_from_marketplace(project=project, source=source, external_id=external_id)
    except AccountError as exc:
        return render(request, "annotation/message.html", {"title": "Cannot start", "text": str(exc)}, status=400)
    if request.user != user:
        login(request, user, backend=AUTH_BACKEND)
    request.session["marketplace"] = {k: request.GET[k][:100] for k in MARKETPLACE_KEYS if k in request.GET}
    return redirect("annotate", slug=project.slug)


def invite(request: HttpRequest, token: str) -> HttpResponse:
    pending = invite_lookup(token=token)
    if pending is None:
        return render(request, "annotation/message.html", {
            "title": "Invite not valid",
            "text": "This invite link is not valid, was already used or has expired. Ask for a new one.",
        }, status=404)
    form = SetPasswordForm(pending.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = invite_accept(token=token, password=form.cleaned_data["new_password1"])
        except AccountError as exc:
            messages.error(request, str(exc))
            return redirect("login")
        login(request, user, backend=AUTH_BACKEND)
        if pending.project_id:
            return redirect("annotate", slug=pending.project.slug)
        return redirect("projects")
    return render(request, "annotation/invite.html", {"form": form, "invite": pending})


class PasswordChange(PasswordChangeView):
    template_name = "registration/password_change.html"
    success_url = reverse_lazy("projects")

    def form_valid(self, form):
        response = super().form_valid(form)
        password_changed(user=self.request.user)
        messages.success(self.request, "Your password was changed.")
        return response
