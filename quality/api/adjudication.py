"""REST API of adjudication and flagged items: a worker flags their own open assignment; staff
read the adjudication queue and decide items, list flagged items and withdraw or dismiss them.
Another project's ids are 404 and change nothing."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.parsers import SafeJSONParser, body_fields
from annotation.api.request_types import AuthenticatedApiRequest
from annotation.api.schema.errors import conflict, field_errors
from annotation.api.unseen import unseen
from annotation.api.views import has_perm
from annotation.models import Assignment, Item, Project
from annotation.services import WorkflowError
from annotation.services.errors import NotYours
from quality.api.schema import (
    AdjudicationIn,
    AdjudicationOut,
    AdjudicationQueueOut,
    DismissedOut,
    FlagIn,
    FlagOut,
    FlagsOut,
    NoteIn,
    WithdrawnOut,
)
from quality.models import Adjudication, ItemFlag
from quality.selectors.adjudication import (
    POSTERIOR_BELOW,
    REASONS,
    SPLIT_SHARE,
    adjudication_queue,
    item_contests,
)
from quality.selectors.flags import flagged_items
from quality.services.adjudication import AdjudicationInvalid, item_adjudicate
from quality.services.flags import (
    FlagInvalid,
    item_flag,
    item_flags_dismiss,
    item_withdraw,
    item_withdrawal_undo,
)


def _when(value) -> str | None:
    return value.isoformat() if value is not None else None


def flag_data(flag: ItemFlag) -> dict[str, Any]:
    """A flag as its worker sees it: nothing of the item but the assignment it came from."""
    return {"id": flag.pk, "assignment": flag.assignment_id, "problem": flag.problem, "reason": flag.reason,
            "created_at": _when(flag.created_at)}


def adjudication_data(a: Adjudication) -> dict[str, Any]:
    return {"item": a.item.external_id, "item_id": a.item_id, "answer": a.answer, "why": a.why,
            "contested": a.contested, "decided_by": a.decided_by.get_username() if a.decided_by else None,
            "decided_at": _when(a.decided_at)}


def _query_share(request: Request, name: str, default: float, high: float = 1.0) -> float:
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValidationError({name: f"must be a number from 0 to {high:g}"}) from None
    if not 0 <= value <= high:
        raise ValidationError({name: f"must be from 0 to {high:g}"})
    return value


class AssignmentFlag(APIView):
    """POST ``problem`` (media, text, options, other) and ``reason`` (up to 500 characters):
    the item of the worker's open assignment is reported as broken and the assignment given
    back. Repeating it returns the flag recorded first."""

    permission_classes = [IsAuthenticated]
    parser_classes = [SafeJSONParser, FormParser, MultiPartParser]

    @extend_schema(tags=["annotating"], operation_id="assignment_flag", summary="Report the item as broken",
                   request=FlagIn, responses={
                       201: FlagOut, 400: field_errors("`problem` unknown or `reason` too long."),
                       409: conflict("the assignment is no longer open.")})
    def post(self, request: AuthenticatedApiRequest, pk: int) -> Response:
        data = body_fields(request, "the report")
        try:
            flag = item_flag(assignment=Assignment(pk=pk), worker=request.user, problem=data.get("problem", ""),
                             reason=data.get("reason", ""))
        except (Assignment.DoesNotExist, NotYours):
            raise unseen() from None
        except FlagInvalid as exc:
            raise ValidationError(exc.errors) from None
        except WorkflowError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(flag_data(flag), status=status.HTTP_201_CREATED)


class FlagList(APIView):
    """The project's flagged items, open ones first (``?page=``), each with its flags."""

    permission_classes = [has_perm("annotation.view_project")]

    @extend_schema(tags=["adjudication"], operation_id="flags_list", summary="Flagged items, open ones first",
                   parameters=[OpenApiParameter("page", OpenApiTypes.INT, OpenApiParameter.QUERY, required=False,
                                                description="Page number; out of range gives the last.")], responses={200: FlagsOut})
    def get(self, request: Request, slug: str) -> Response:
        project = get_object_or_404(Project, slug=slug)
        page, rows = flagged_items(project=project, page=request.query_params.get("page"))
        return Response({
            "count": page.paginator.count, "page": page.number, "pages": page.paginator.num_pages,
            "items": [{"item": r.external_id, "item_id": r.item_id, "kind": r.kind, "open": r.open, "total": r.total,
                       "flags": [{"id": f.pk, "problem": f.problem, "reason": f.reason, "created_at": _when(f.created_at),
                                  "resolved_at": _when(f.resolved_at), "resolution": f.resolution} for f in r.flags]}
                      for r in rows],
        })


class FlagResolve(APIView):
    """POST: withdraw the flag's item (served to nobody; open assignments back to the pool) or
    dismiss its open flags; ``note`` is kept in the audit log."""

    permission_classes = [has_perm("annotation.view_project"), has_perm("quality.change_itemflag")]
    parser_classes = [SafeJSONParser, FormParser, MultiPartParser]
    action = "dismiss"

    def post(self, request: AuthenticatedApiRequest, slug: str, pk: int) -> Response:
        flag = get_object_or_404(ItemFlag.objects.select_related("item__project"), pk=pk, project__slug=slug)
        note = str(body_fields(request, "the note").get("note") or "")
        if self.action == "withdraw":
            item = item_withdraw(item=flag.item, actor=request.user, note=note)
            return Response({"item": item.external_id, "kind": item.kind, "n_active": item.n_active})
        if self.action == "undo":
            try:
                item = item_withdrawal_undo(item=flag.item, actor=request.user, note=note)
            except WorkflowError as exc:
                return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
            return Response({"item": item.external_id, "kind": item.kind, "n_active": item.n_active})
        resolved = item_flags_dismiss(item=flag.item, actor=request.user, note=note)
        return Response({"item": flag.item.external_id, "dismissed": resolved})


@extend_schema_view(post=extend_schema(
    tags=["adjudication"], operation_id="flag_withdraw_undo", request=NoteIn,
    responses={200: WithdrawnOut, 409: conflict("The item is not withdrawn.")},
    summary="Undo the withdrawal of a flagged item: served again as what it was, its reports open again"))
class FlagWithdrawUndo(FlagResolve):
    action = "undo"


@extend_schema_view(post=extend_schema(
    tags=["adjudication"], operation_id="flag_withdraw", request=NoteIn, responses={200: WithdrawnOut},
    summary="Withdraw a flagged item: served to nobody, its open assignments back to the pool"))
class FlagWithdraw(FlagResolve):
    action = "withdraw"


@extend_schema_view(post=extend_schema(
    tags=["adjudication"], operation_id="flag_dismiss", request=NoteIn, responses={200: DismissedOut},
    summary="Dismiss the item's open flags"))
class FlagDismiss(FlagResolve):
    action = "dismiss"


class AdjudicationQueue(APIView):
    """Contested items not yet adjudicated: ``?reason=`` (split, low_posterior,
    gold_disagreement), ``split_share``, ``posterior_below``, ``page``."""

    permission_classes = [has_perm("annotation.view_project")]

    @extend_schema(
        tags=["adjudication"], operation_id="adjudication_queue", summary="Contested items not yet adjudicated",
        parameters=[
            OpenApiParameter("reason", OpenApiTypes.STR, OpenApiParameter.QUERY, required=False, enum=list(REASONS),
                             description="Only items contested for this reason."),
            OpenApiParameter("split_share", OpenApiTypes.NUMBER, OpenApiParameter.QUERY, required=False,
                             description=f"0 to 1 (default {SPLIT_SHARE}): the majority's share at or below which "
                                         "an item counts as split."),
            OpenApiParameter("posterior_below", OpenApiTypes.NUMBER, OpenApiParameter.QUERY, required=False,
                             description=f"0 to 0.9 (default {POSTERIOR_BELOW}): MACE posteriors below it count "
                                         "as low."),
            OpenApiParameter("page", OpenApiTypes.INT, OpenApiParameter.QUERY, required=False,
                                                description="Page number; out of range gives the last."),
        ],
        responses={200: AdjudicationQueueOut, 400: field_errors("An unknown `reason`, or a share out of range.")})
    def get(self, request: Request, slug: str) -> Response:
        project = get_object_or_404(Project, slug=slug)
        reason = request.query_params.get("reason", "")
        if reason and reason not in REASONS:
            raise ValidationError({"reason": f"unknown reason {reason!r}; use one of {', '.join(REASONS)}"})
        queue = adjudication_queue(project=project, reason=reason, page=request.query_params.get("page"),
                                   split_share=_query_share(request, "split_share", SPLIT_SHARE),
                                   posterior_below=_query_share(request, "posterior_below", POSTERIOR_BELOW, 0.9))
        return Response({
            "count": queue.page.paginator.count, "page": queue.page.number, "pages": queue.page.paginator.num_pages,
            "counts": queue.counts, "posterior_run": queue.posteriors.run_id if queue.posteriors else None,
            "items": [{"item": r.external_id, "item_id": r.item_id, "kind": r.kind, "summary": r.summary,
                       "contested": [{"reason": c.reason, "text": c.text} for c in r.contests]} for r in queue.rows],
        })


class ItemAdjudication(APIView):
    """POST ``answer`` (the task type's gold fields), ``why`` and optionally ``make_gold`` (a
    gold question's gold answer becomes the decision): 201 with the decision, which replaces an
    earlier one."""

    permission_classes = [has_perm("annotation.view_project"), has_perm("quality.add_adjudication")]
    parser_classes = [SafeJSONParser]

    @extend_schema(tags=["adjudication"], operation_id="item_adjudicate", summary="Decide an item",
                   request=AdjudicationIn,
                   responses={201: AdjudicationOut, 400: field_errors("The answer or the reason is invalid.")})
    def post(self, request: AuthenticatedApiRequest, slug: str, item_id: int) -> Response:
        item = get_object_or_404(Item.objects.select_related("project"), pk=item_id, project__slug=slug)
        data = body_fields(request, "the decision")
        try:
            decision = item_adjudicate(item=item, answer=data.get("answer"), why=data.get("why", ""),
                                       actor=request.user, make_gold=bool(data.get("make_gold")),
                                       contested=[c.reason for c in item_contests(project=item.project, item=item)])
        except AdjudicationInvalid as exc:
            raise ValidationError(exc.errors) from None
        return Response(adjudication_data(decision), status=status.HTTP_201_CREATED)
