"""The API's side of quality control, as the annotator's page shows it: the training round a
worker is in (they know they are in training; a gold question is never marked), why no item
comes (blocked, screened out, a failed qualification with its attempts left), feedback after
an answer when the page would show it, and starting another qualification round."""

from __future__ import annotations

from typing import Any, cast

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.request_types import AuthenticatedApiRequest
from annotation.api.schema.errors import conflict
from annotation.api.unseen import unseen
from annotation.models import Project, Purpose
from annotation.selectors.annotator import MARKETPLACE_PROJECT, project_access
from annotation.selectors.panel_exits import arrival_params, screened_out_exit
from annotation.services import NextResult, WorkflowError
from annotation.services.submission import SubmitResult
from annotation.task_types import get_task_type
from quality.api.schema import QualificationRoundOut
from quality.models import CheckResult, TrainingRound
from quality.selectors.annotator import stop_facts
from quality.services.training import training_round_start


def next_quality(request: AuthenticatedApiRequest, project: Project, result: NextResult) -> dict[str, Any]:
    """Fields ``assignments/next/`` adds: ``training`` for an item of the worker's training
    round; for no item, what the page says about a failed qualification or a screened-out
    worker from a marketplace."""
    r = cast(TrainingRound | None, result.round)  # quality control's own record, back from the engine
    if result.assignment is not None:
        if r is None or result.assignment.purpose != Purpose.TRAINING:
            return {}
        return {"training": {"kind": r.kind, "round": r.number, "item": min(r.answered + 1, r.items),
                             "of": r.items, "note": r.note}}
    if result.reason == "qualification_failed":
        return {"attempts_left": result.attempts_left,
                "last_round": {"right": r.right, "answered": r.answered, "pass_mark": r.pass_mark} if r else None}
    if result.reason == "screened_out" and request.session.get(MARKETPLACE_PROJECT) == project.slug:
        policy = stop_facts(project=project, worker=request.user).policy
        way_out = screened_out_exit(project=project, policy=policy,
                                    params=arrival_params(session=request.session, project=project))
        return {"completion_code": policy.screened_out_code, "completion_url": way_out.url if way_out else ""}
    return {}


def feedback_data(outcome: SubmitResult) -> dict[str, Any] | None:
    """What the page shows after a training item, or after a gold question when the project
    gives feedback: whether the answer was right, with the expected one (as fields and as
    text) and why where the project shows them; under feedback after the round, only on the
    round's last answer, each of its items right or not."""
    shown = outcome.feedback
    if shown is None:
        return None
    if shown.round_results:
        return {"round": round_data(shown.round_results)}
    task = get_task_type(outcome.assignment.project.task_type)
    result = cast(CheckResult, shown.result)  # quality control's own record, back from the engine
    # The texts in the words of the item as served (its options in their drawn order); the
    # answers themselves name options by id, as ever.
    order = outcome.assignment.shown_order
    data: dict[str, Any] = {"right": result.right, "score": result.score, "method": result.method,
                            "your_answer_text": task.label_display_as_shown(outcome.annotation.answer, order=order)}
    if shown.expected_shown:
        data.update(expected=result.expected, expected_text=task.label_display_as_shown(result.expected, order=order),
                    why=shown.explanation)
    return data


def round_data(results: tuple[bool, ...]) -> dict[str, Any]:
    return {"right": sum(results), "items": len(results), "results": list(results)}


class QualificationRetry(APIView):
    """POST: start another qualification round after a failed one, while attempts remain
    (409 saying why not)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(tags=["annotating"], operation_id="qualification_retry", request=None,
                   summary="Start another qualification round after a failed one",
                   responses={201: QualificationRoundOut,
                              409: conflict("no attempt is left, or no qualification round is due.")})
    def post(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        project = Project.objects.filter(slug=slug).first()
        if project is None or project_access(project=project, user=request.user) != "worker":
            raise unseen()
        try:
            r = training_round_start(project=project, worker=request.user, kind=TrainingRound.Kind.QUALIFICATION)
        except WorkflowError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response({"round": r.number, "items": r.items, "pass_mark": r.pass_mark},
                        status=status.HTTP_201_CREATED)
