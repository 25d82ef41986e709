"""API of the worker page: a worker's figures in a project and the staff actions on them (the same
service and checks as the page)."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.parsers import SafeJSONParser, body_fields
from annotation.api.request_types import AuthenticatedApiRequest
from annotation.api.schema.errors import FieldErrors
from annotation.models import Project
from annotation.page_sections import WORKER_END, WORKER_HEADER, sections_data
from quality.api.schema import WorkerActionIn, WorkerActionOut, WorkerPageOut
from quality.selectors.worker_page import (
    CrowdFigures,
    WorkerPage,
    project_worker,
    worker_crowd_figures,
    worker_page,
)
from quality.services.worker_actions import ACTION_PERMS, ActionRefused, worker_action


class _Perm(BasePermission):
    perms: tuple[str, ...] = ()

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated and request.user.has_perms(self.perms))


class CanSeeProject(_Perm):
    message = "You need the permission annotation.view_project."
    perms = ("annotation.view_project",)


def _worker(slug: str, worker_id: int):
    project = get_object_or_404(Project, slug=slug)
    worker = project_worker(project=project, worker_id=worker_id)
    if worker is None:
        raise Http404("no such worker in this project")
    return project, worker


def worker_page_data(page: WorkerPage, crowd: CrowdFigures) -> dict[str, Any]:
    standing = page.standing
    competence = page.competence
    return {
        "worker": {"id": page.worker.pk, "username": page.worker.get_username(),
                   "blocked_everywhere": page.blocked_everywhere},
        "standing": {"state": standing.state if standing else "active", "reason": standing.reason if standing else ""},
        "assignments": page.counts,
        "gold": page.gold.as_dict(),
        "checks": [{"assignment": c.assignment_id, "item": c.external_id, "purpose": c.purpose,
                    "expected": c.expected, "given": c.given, "score": c.score, "right": c.right,
                    "method": c.method, "scored_at": c.scored_at.isoformat(), "round": c.round_id,
                    "given_as_seen": c.given_seen, "given_as_stored": c.given_stored,
                    "expected_as_seen": c.expected_seen, "expected_as_stored": c.expected_stored}
                   for c in page.checks],
        "agreement": crowd.agreement.as_dict(),
        "competence": None if competence is None else {"run": competence.run_id, "value": competence.value,
                                                       "low": competence.low, "high": competence.high},
        "signals": page.signals.as_dict(),
        "shared_reasons": [{"reason": r.reason, "other_workers": r.other_workers} for r in crowd.shared_reasons],
        "reason_review": crowd.reason_review_url,
        "flags": [{"item": f.item.external_id, "problem": f.problem, "reason": f.reason,
                   "created_at": f.created_at.isoformat(), "resolution": f.resolution} for f in page.flags],
        "rule_decisions": [{"kind": r.decision.kind, "action": r.decision.action, "evidence": r.decision.evidence,
                            "trigger": r.decision.trigger, "decided_at": r.decision.decided_at.isoformat(),
                            "words": r.words} for r in page.decision_rows],
        "first_shown": None if page.first_shown is None else {
            "answers": page.first_shown.n, "chose_first": page.first_shown.hits, "share": page.first_shown.share,
            "low": page.first_shown.interval[0] if page.first_shown.interval else None,
            "high": page.first_shown.interval[1] if page.first_shown.interval else None,
            "expected": page.first_shown.expected, "words": page.first_shown.words},
        "training_rounds": [{"kind": t.kind, "number": t.number, "items": t.items, "answered": t.answered,
                             "right": t.right, "passed": t.passed, "pass_mark": t.pass_mark} for t in page.training],
        "answers": {
            "count": page.answers.paginator.count, "page": page.answers.number,
            "pages": page.answers.paginator.num_pages,
            "rows": [{"assignment": a.assignment_id, "item": a.external_id, "purpose": a.purpose, "status": a.status,
                      "seconds": a.seconds, "label": a.label, "as_seen": a.seen, "as_stored": a.stored,
                      "reason": a.reason,
                      "submitted_at": a.submitted_at.isoformat() if a.submitted_at else None,
                      "signals": a.signals, "review_note": a.review_note} for a in page.answer_rows],
        },
    }


class WorkerDetail(APIView):
    """GET: the worker page's figures as JSON (``?page=`` pages the answers)."""

    permission_classes = [CanSeeProject]

    @extend_schema(tags=["workers"], operation_id="worker_retrieve", summary="A worker's figures in the project",
                   parameters=[OpenApiParameter("page", OpenApiTypes.INT, OpenApiParameter.QUERY, required=False,
                                                description="Page of the answers; out of range gives the last.")],
                   responses={200: WorkerPageOut})
    def get(self, request: Request, slug: str, worker_id: int) -> Response:
        project, worker = _worker(slug, worker_id)
        page = worker_page(project=project, worker=worker, page=request.query_params.get("page"))
        data = worker_page_data(page, worker_crowd_figures(project=project, worker=worker))
        # What the apps above add to the page (bonuses, a panel's submission), under their keys.
        for place in (WORKER_HEADER, WORKER_END):
            data.update(sections_data(place, project=project, worker=worker))
        return Response(data)


class WorkerAction(APIView):
    """POST block, unblock, approve, reject (``note`` required for the two), bonus (``amount``,
    ``currency``, ``reason``) or training (``note``): 200 with what was done, 400 naming the
    field at fault, 403 without the action's permission."""

    permission_classes = [CanSeeProject]
    parser_classes = [SafeJSONParser]

    @extend_schema(
        tags=["workers"], operation_id="worker_action", summary="Act on a worker: block, approve, bonus …",
        request=WorkerActionIn,
        parameters=[OpenApiParameter("action", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(ACTION_PERMS))],
        responses={200: WorkerActionOut,
                   400: OpenApiResponse(FieldErrors, "The field at fault, named (`{\"note\": \"...\"}`)."),
                   403: OpenApiResponse(FieldErrors, "Without the action's permission (`{\"action\": \"...\"}`), "
                                                     "or without seeing the project (`{\"detail\": \"...\"}`)."),
                   409: OpenApiResponse(FieldErrors, "The action does not apply now (`{\"action\": \"...\"}`: "
                                                     "e.g. unblocking a worker who is not blocked).")})
    def post(self, request: AuthenticatedApiRequest, slug: str, worker_id: int, action: str) -> Response:
        project, worker = _worker(slug, worker_id)
        try:
            done = worker_action(project=project, worker=worker, action=action, actor=request.user,
                                 data=body_fields(request, "the action's fields"))
        except ActionRefused as exc:
            if exc.status == 404:
                raise Http404(exc.message) from None
            return Response({exc.field: exc.message}, status=exc.status)
        return Response({"action": done.action, "detail": done.message, "count": done.count}, status=status.HTTP_200_OK)
