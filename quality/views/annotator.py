"""The annotator's side of quality control: feedback after a training item or a gold question
(when the project gives it), the training round's note on the task area, the pages of a worker
who gets no items (blocked, paused for review, screened out, a failed qualification), and "Try again".

Feedback is kept in the session between the answer and the next page, which shows it with the
item it is about (as the worker answered it) and a Continue button, whether the page was sent
by htmx or reloaded; the next item comes only after Continue."""

from __future__ import annotations

from typing import Any, cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from annotation.models import Project, Purpose
from annotation.selectors.annotator import MARKETPLACE_PROJECT, project_access
from annotation.selectors.panel_exits import arrival_params, screened_out_exit
from annotation.services import NextResult, WorkflowError
from annotation.services.submission import SubmitResult
from annotation.task_types import get_task_type
from annotation.views.request_types import AuthenticatedRequest
from quality.models import CheckResult, QualityPolicy, TrainingRound
from quality.selectors.annotator import stop_facts
from quality.services.training import training_round_start

FEEDBACK = "check_feedback"
# Reasons for no item that the quality page explains.
STOPS = ("blocked", "review", "screened_out", "qualification_failed", "no_training", "left_study")


def feedback_keep(request: AuthenticatedRequest, project: Project, outcome: SubmitResult) -> None:
    """Keep what the worker is to be told about the answer just sent, if anything."""
    shown = outcome.feedback
    if shown is None:
        return
    task = get_task_type(project.task_type)
    # The engine passes quality control's own record back, seen through the port's fields.
    result = cast(CheckResult, shown.result)
    # In the words of the page the item was answered on (its options in their drawn order).
    order = outcome.assignment.shown_order
    kept: dict[str, Any] = {
        "project": project.slug, "assignment": outcome.assignment.pk, "right": result.right,
        "given": task.label_display_as_shown(outcome.annotation.answer, order=order),
        "expected_shown": shown.expected_shown,
        "training": outcome.assignment.purpose == Purpose.TRAINING,
    }
    if shown.expected_shown:
        kept.update(expected=task.label_display_as_shown(result.expected, order=order), why=shown.explanation)
    if shown.round_results:
        kept["round"] = {"right": sum(shown.round_results), "items": len(shown.round_results),
                         "results": list(shown.round_results)}
    request.session[FEEDBACK] = kept


def feedback_take(request: AuthenticatedRequest, project: Project) -> dict[str, Any] | None:
    """The feedback waiting for the worker in this project, taken from the session: shown once."""
    kept = request.session.get(FEEDBACK)
    if kept and kept.get("project") == project.slug:
        return dict(request.session.pop(FEEDBACK))
    return None


def quality_context(request: AuthenticatedRequest, project: Project, result: NextResult) -> dict[str, Any]:
    """The training round's note, and why no item came."""
    ctx: dict[str, Any] = {}
    training_round = cast(TrainingRound | None, result.round)  # quality control's own record, back from the engine
    if result.assignment is not None and training_round is not None:
        how = (QualityPolicy.objects.filter(project_id=project.pk).values_list("training_feedback", flat=True)
               .first() or QualityPolicy.TrainingFeedback.RIGHT_WRONG)
        ctx["training_round"] = {
            "qualification": training_round.kind == TrainingRound.Kind.QUALIFICATION,
            "position": min(training_round.answered + 1, training_round.items), "items": training_round.items,
            "note": training_round.note, "feedback": how,
        }
    if result.assignment is None and result.reason in STOPS:
        facts = stop_facts(project=project, worker=request.user)
        params = arrival_params(session=request.session, project=project)
        ctx["stop"] = {"account_blocked": facts.account_blocked, "policy": facts.policy,
                       "marketplace": request.session.get(MARKETPLACE_PROJECT) == project.slug,
                       "exit": screened_out_exit(project=project, policy=facts.policy, params=params),
                       "round": training_round, "attempts_left": result.attempts_left,
                       "pass_percent": round(100 * facts.policy.qualification_pass)}
    return ctx


@never_cache
@login_required
@require_POST
def qualification_retry(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    """Start another qualification round after a failed one, while attempts remain."""
    project = get_object_or_404(Project, slug=slug)
    if project_access(project=project, user=request.user) != "worker":
        raise Http404
    try:
        training_round_start(project=project, worker=request.user, kind=TrainingRound.Kind.QUALIFICATION)
    except WorkflowError as exc:
        messages.error(request, str(exc))
    return redirect("annotate", slug=project.slug)
