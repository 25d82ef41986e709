"""Annotator pages: project list, guidelines, the annotation loop, changing the last answer,
joining and invites. A project's audio files are in ``annotation.views.media.files``. Marketplace arrivals are in
``recruiting.views.marketplace``."""

from __future__ import annotations

import logging

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import SetPasswordForm
from django.contrib.auth.models import User
from django.contrib.auth.views import PasswordChangeView
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse_lazy
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from annotation.authenticity import signals_from_form
from annotation.models import Annotation, Assignment, Project
from annotation.quality_port import page_context, page_feedback_keep, page_feedback_take
from annotation.selectors.annotator import (
    MARKETPLACE_PROJECT,
    consent_pending,
    holds_open_assignment,
    presentation,
    preview_item,
    project_access,
)
from annotation.selectors.answers import previous_answer, revisable_annotation, revision_refusal
from annotation.selectors.panel_exits import arrival_params, completion_exit, origin_of
from annotation.selectors.progress import projects_for_worker, worker_progress, worker_status
from annotation.services import (
    NextResult,
    WorkflowError,
    annotation_submit,
    assignment_next,
    assignment_return,
)
from annotation.services.accounts import (
    AccountError,
    invite_accept,
    invite_lookup,
    password_changed,
    project_join,
)
from annotation.services.errors import NotYours
from annotation.services.revisions import annotation_revise
from annotation.task_types import get_task_type
from annotation.task_types.base import AnswerInvalid
from annotation.throttles import JoinAddressThrottle, JoinThrottle, throttle
from annotation.views.nul_fields import refuse_nul_fields
from annotation.views.request_types import AuthenticatedRequest, HtmxRequest

logger = logging.getLogger(__name__)
ANNOTATE = "annotation/annotate.html"
AUTH_BACKEND = "django.contrib.auth.backends.ModelBackend"


def not_found(request: HttpRequest) -> HttpResponse:
    """A project the user may not see looks exactly like one that does not exist."""
    return render(request, "404.html", status=404)


def visible_project(user: User, slug: str) -> tuple[Project, str] | None:
    """The project and the user's access to it (see ``project_access``), or None when there is
    no such project or it is none of the user's business."""
    project = Project.objects.filter(slug=slug).first()
    if project is None:
        return None
    access = project_access(project=project, user=user)
    return (project, access) if access else None


@login_required
def home(request: AuthenticatedRequest) -> HttpResponse:
    slug = request.session.get(MARKETPLACE_PROJECT)
    if slug:
        return redirect("annotate", slug=slug)
    return redirect("projects")


@never_cache
@login_required
def projects(request: AuthenticatedRequest) -> HttpResponse:
    statuses = [worker_status(project=p, worker=request.user) for p in projects_for_worker(worker=request.user)]
    managed = Project.objects.order_by("name") if request.user.is_staff else Project.objects.none()
    return render(request, "annotation/projects.html", {"statuses": statuses, "managed": managed})


@login_required
def guidelines(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    visible = visible_project(request.user, slug)
    if visible is None:
        return not_found(request)
    project, _ = visible
    task = get_task_type(project.task_type)
    return render(request, "annotation/guidelines.html", {
        "project": project, "task": task, "text": project.guidelines or task.default_guidelines,
        "shortcuts": presentation(project=project, worker=request.user)["shortcuts"],
        "guidelines_notes": task.guidelines_notes(options=task.clean_options(project.options)),
    })


def task_page_context(project: Project) -> dict:
    task = get_task_type(project.task_type)
    return {"project": project, "task": task, "guidelines": project.guidelines or task.default_guidelines,
            "guidelines_notes": task.guidelines_notes(options=task.clean_options(project.options))}


def _task_context(request: AuthenticatedRequest, project: Project, result: NextResult, *,
                  errors: dict | None = None, values=None, notice: str = "", notice_kind: str = "info") -> dict:
    task = get_task_type(project.task_type)
    assignment = result.assignment
    ctx = {"project": project, "task": task, "result": result,
           "progress": worker_progress(project=project, worker=request.user, holding=assignment is not None),
           "errors": errors or {}, "notice": notice, "notice_kind": notice_kind,
           "revisable": revisable_annotation(project=project, worker=request.user),
           **page_context(request, project, result)}
    if assignment is None:
        ctx.update(presentation(project=project, worker=request.user),
                   exit=completion_exit(project=project, params=arrival_params(session=request.session,
                                                                               project=project)))
    else:
        payload = assignment.item.payload
        initial = task.initial_answer(payload=payload, previous=previous_answer(project=project, worker=request.user))
        # Seconds left as the server counts them: the page counts down from these, whatever
        # the browser's clock says.
        left = max(int((assignment.expires_at - timezone.now()).total_seconds()), 0)
        # The page gets the payload as the type lets this worker see it (``presentation``).
        ctx.update(assignment=assignment, values=values if values is not None else initial,
                   lease_seconds=left,
                   **presentation(project=project, worker=request.user, item=assignment.item, assignment=assignment,
                                   media=True))
    return ctx


def _edit_context(request: AuthenticatedRequest, project: Project, annotation: Annotation, *,
                  errors: dict | None = None, values=None, notice: str = "", notice_kind: str = "info") -> dict:
    """The task area showing an answer already given, to change it."""
    assignment = annotation.assignment
    stored = {**annotation.answer, "reason": annotation.reason}
    return {
        "project": project, "task": get_task_type(project.task_type), "result": NextResult(assignment),
        "progress": worker_progress(project=project, worker=request.user),
        "notice": notice, "notice_kind": notice_kind,
        "errors": errors or {}, "assignment": assignment,
        "values": values if values is not None else stored, "editing": annotation,
        "item_held": holds_open_assignment(project=project, worker=request.user),
        **presentation(project=project, worker=request.user, item=assignment.item, assignment=assignment),
    }


def _render_task(request: AuthenticatedRequest, ctx: dict) -> HttpResponse:
    if request.htmx:
        response = render(request, f"{ANNOTATE}#task-area", ctx)
    else:
        response = render(request, ANNOTATE, {**task_page_context(ctx["project"]), **ctx})
    # A panel that takes the worker back by a form (MTurk) is the one other place forms may post to.
    posts = [e.url for e in (ctx.get("exit"), (ctx.get("stop") or {}).get("exit")) if e is not None and e.post]
    if posts:
        response._csp_update = {"form-action": [origin_of(url=u) for u in posts]}  # type: ignore[attr-defined]
    return response


def after_action(request: AuthenticatedRequest, project: Project, notice: str, kind: str) -> HttpResponse:
    """After submit, skip, change or a report of a broken item (``quality.views.flags``):
    the next item in place (htmx), or a redirect to it."""
    if not request.htmx:
        messages.add_message(request, {"success": messages.SUCCESS, "warning": messages.WARNING,
                                       "error": messages.ERROR}.get(kind, messages.INFO), notice)
        return redirect("annotate", slug=project.slug)
    answered = _feedback_context(request, project, notice=notice, notice_kind=kind)
    if answered is not None:
        return _render_task(request, answered)
    result = assignment_next(project=project, worker=request.user)
    return _render_task(request, _task_context(request, project, result, notice=notice, notice_kind=kind))


def _feedback_context(request: AuthenticatedRequest, project: Project, *, notice: str = "",
                      notice_kind: str = "info") -> dict | None:
    """The item the worker just answered, as they answered it, with what they are told about
    it (a training item, or a gold question where the project gives feedback) and a Continue
    button: feedback is read beside the item it is about, not above the next one. None when
    no feedback waits; the next item is handed out only after Continue."""
    kept = page_feedback_take(request, project)
    if kept is None or not isinstance(kept.get("assignment"), int):
        return None
    a = (Assignment.objects.select_related("item", "annotation")
         .filter(pk=kept["assignment"], project=project, worker=request.user).first())
    annotation = getattr(a, "annotation", None) if a is not None else None
    if a is None or annotation is None:
        return None
    return {
        "project": project, "task": get_task_type(project.task_type), "result": NextResult(a),
        "progress": worker_progress(project=project, worker=request.user),
        "notice": notice, "notice_kind": notice_kind, "errors": {}, "assignment": a,
        "values": {**annotation.answer, "reason": annotation.reason}, "answered": annotation, "feedback": kept,
        **presentation(project=project, worker=request.user, item=a.item, assignment=a),
    }


@never_cache
@login_required
def annotate(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    visible = visible_project(request.user, slug)
    if visible is None:
        return not_found(request)
    project, access = visible
    if access == "staff":
        # Researchers and admins see what annotators see, without taking an item.
        sample = preview_item(project=project)
        return render(request, ANNOTATE, {**task_page_context(project), "preview": "staff", "sample": sample,
                                          **presentation(project=project, worker=None, item=sample, staff=True)})
    if consent_pending(project=project, worker=request.user, session=request.session):
        return redirect("welcome", slug=project.slug)
    answered = _feedback_context(request, project)
    if answered is not None:
        return _render_task(request, answered)
    result = assignment_next(project=project, worker=request.user)
    return _render_task(request, _task_context(request, project, result))


@never_cache
@login_required
@require_POST
def submit(request: AuthenticatedRequest, slug: str, assignment_id: int) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    try:
        # The service reads the assignment (of this project) once, under its lock.
        outcome = annotation_submit(assignment=Assignment(pk=assignment_id), project=project, worker=request.user,
                                    data=request.POST, client=client_meta(request))
    except (Assignment.DoesNotExist, NotYours):
        raise Http404 from None
    except AnswerInvalid as exc:
        # The form again, with the messages: read the assignment for it (a refusal's path only).
        assignment = Assignment.objects.select_related("item").get(pk=assignment_id)
        values = get_task_type(project.task_type).form_values(request.POST)
        ctx = _task_context(request, project, NextResult(assignment), errors=exc.errors, values=values)
        return _render_task(request, ctx)
    except WorkflowError as exc:
        return after_action(request, project, str(exc), "error")
    page_feedback_keep(request, project, outcome)
    if not outcome.created and not outcome.same_answer:
        return _different_answer(request, project, outcome.annotation)
    if not outcome.created:
        return after_action(request, project, "This answer was already saved.", "info")
    if not outcome.counted:
        return after_action(request, project, "Saved but not counted: your time for that item had run out and others "
                                               "completed it meanwhile. Your answer is kept.", "warning")
    if outcome.late:
        return after_action(request, project, "Saved. Your time for that item had run out, but nobody else had taken "
                                               "its place, so your answer counts.", "success")
    return after_action(request, project, "Saved.", "success")


def _different_answer(request: AuthenticatedRequest, project: Project, stored: Annotation) -> HttpResponse:
    """A different answer to an item already answered (a second tab or window): it was not
    saved. While the stored answer may still be changed, the change form opens with the answer
    just sent filled in, so one click replaces it; otherwise the worker is told why not."""
    lead = "Your answer was not saved: you had already answered this item differently, in another tab or window."
    refusal = revision_refusal(assignment=stored.assignment, now=timezone.now())
    if refusal:
        return after_action(request, project, f"{lead} That answer stays. {refusal}", "error")
    values = get_task_type(project.task_type).form_values(request.POST)
    notice = f"{lead} The answer you just sent is below: Save changes to replace the saved one, or Cancel to keep it."
    return _render_task(request, _edit_context(request, project, stored, values=values, notice=notice,
                                               notice_kind="warning"))


@never_cache
@login_required
@require_POST
def skip(request: AuthenticatedRequest, slug: str, assignment_id: int) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    assignment = get_object_or_404(Assignment, pk=assignment_id, project=project, worker=request.user)
    try:
        assignment_return(assignment=assignment, worker=request.user)
    except WorkflowError as exc:
        return after_action(request, project, str(exc), "error")
    return after_action(request, project, "Skipped; this item goes to someone else.", "info")


def _own_annotation(request: AuthenticatedRequest, project: Project, assignment_id: int) -> Annotation:
    return get_object_or_404(
        Annotation.objects.select_related("assignment__item"),
        assignment_id=assignment_id, assignment__project=project, assignment__worker=request.user,
    )


@never_cache
@login_required
def edit(request: AuthenticatedRequest, slug: str, assignment_id: int) -> HttpResponse:
    """The answer the worker gave to an item, in the form again, to change it."""
    project = get_object_or_404(Project, slug=slug)
    annotation = _own_annotation(request, project, assignment_id)
    refusal = revision_refusal(assignment=annotation.assignment, now=timezone.now())
    if refusal:
        return after_action(request, project, refusal, "error")
    return _render_task(request, _edit_context(request, project, annotation))


@never_cache
@login_required
@require_POST
def revise(request: AuthenticatedRequest, slug: str, assignment_id: int) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    annotation = _own_annotation(request, project, assignment_id)
    try:
        version = int(request.POST.get("version", ""))
    except ValueError:
        version = None
    try:
        outcome = annotation_revise(assignment=annotation.assignment, worker=request.user, data=request.POST,
                                    client=client_meta(request), version=version)
    except AnswerInvalid as exc:
        values = get_task_type(project.task_type).form_values(request.POST)
        return _render_task(request, _edit_context(request, project, annotation, errors=exc.errors, values=values))
    except WorkflowError as exc:
        return after_action(request, project, str(exc), "error")
    if not outcome.changed:
        return after_action(request, project, "Your answer is unchanged.", "info")
    return after_action(request, project, "Your answer was changed.", "success")


@never_cache
@login_required
@throttle(JoinThrottle, JoinAddressThrottle)
@refuse_nul_fields
def join(request: AuthenticatedRequest) -> HttpResponse:
    if request.method == "POST":
        try:
            project = project_join(code=request.POST.get("code", ""), worker=request.user)
        except AccountError as exc:
            messages.error(request, str(exc))
            return redirect("projects")
        messages.success(request, f"You joined “{project.name}”.")
        return redirect("annotate", slug=project.slug)
    return redirect("projects")


def client_meta(request: HtmxRequest) -> dict:
    meta: dict[str, object] = {
        "elapsed_ms": request.POST.get("client_elapsed_ms"),
        "input": request.POST.get("client_input", "")[:20],
        "viewport": request.POST.get("client_viewport", "")[:20],
        "user_agent": request.headers.get("User-Agent", "")[:300],
        "htmx": bool(request.htmx),
    }
    if signals := signals_from_form(request.POST):
        meta["signals"] = signals
    marketplace = request.session.get("marketplace")
    if marketplace:
        meta["marketplace"] = marketplace
    return meta


@never_cache
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
        if pending.project is not None:
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
