"""API of a project's quality settings: ``GET`` them (staff who may see the project), ``PATCH``
any of them (staff who may change it), with the checks and the audit entry the page makes."""

from __future__ import annotations

from django.core.exceptions import ValidationError as ModelValidationError
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.parsers import FormParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.parsers import SafeJSONParser, body_fields
from annotation.api.request_types import AuthenticatedApiRequest
from annotation.api.schema.errors import field_errors
from annotation.api.views import has_perm
from annotation.models import Project
from annotation.services.errors import WorkflowError
from quality.api.schema import (
    GoldPromoteIn,
    NoteIn,
    PromotedOut,
    QualityOut,
    RoundsOpenedOut,
)
from quality.selectors.settings import quality_policy_values, quality_summary
from quality.services.gold_items import items_promote_gold
from quality.services.settings import quality_policy_update
from quality.services.training import training_rounds_send


def _summary(project: Project) -> dict:
    s = quality_summary(project=project)
    return {"items_by_kind": s.items_by_kind, "workers_by_state": s.workers_by_state,
            "gold_answered": s.gold_answered, "gold_right": s.gold_right, "open_flags": s.open_flags,
            "rules": s.rules, "enabled_rules": s.enabled_rules, "decisions": s.decisions}


class QualitySettings(APIView):
    permission_classes = [has_perm("annotation.view_project")]
    parser_classes = [SafeJSONParser, FormParser]

    @extend_schema(tags=["quality"], operation_id="quality_retrieve", summary="Quality settings and counts",
                   responses={200: QualityOut})
    def get(self, request: Request, slug: str) -> Response:
        project = get_object_or_404(Project, slug=slug)
        return Response({"settings": quality_policy_values(project=project), "summary": _summary(project)})

    @extend_schema(tags=["quality"], operation_id="quality_update",
                   summary="Change quality settings (any of them, by name)", request=OpenApiTypes.OBJECT,
                   responses={200: QualityOut, 400: field_errors("A setting out of range or unknown, named.")})
    def patch(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        project = get_object_or_404(Project, slug=slug)
        if not request.user.has_perm("annotation.change_project"):
            raise PermissionDenied("You need the permission annotation.change_project.")
        try:
            quality_policy_update(project=project, values=dict(body_fields(request, "the settings")),
                                  actor=request.user)
        except ModelValidationError as exc:
            raise ValidationError(exc.message_dict) from None
        return Response({"settings": quality_policy_values(project=project), "summary": _summary(project)})


class TrainingForEveryone(APIView):
    """``POST {"note": …}``: send every worker of the project back through a re-calibration
    round; answers how many rounds were opened."""

    permission_classes = [has_perm("annotation.view_project"), has_perm("quality.add_traininground")]
    parser_classes = [SafeJSONParser, FormParser]

    @extend_schema(tags=["quality"], operation_id="training_send_everyone",
                   summary="Send every worker to a re-calibration round", request=NoteIn,
                   responses={200: RoundsOpenedOut})
    def post(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        project = get_object_or_404(Project, slug=slug)
        note = body_fields(request, "the note").get("note", "")
        if not isinstance(note, str):
            raise ValidationError({"note": "must be text"})
        opened = training_rounds_send(project=project, actor=request.user, note=" ".join(note.split())[:500])
        return Response({"rounds_opened": opened})


class GoldPromotion(APIView):
    """``POST {"min_answers": n, "limit": n, "posterior": p}`` (all optional; ``min_answers``
    defaults to the project's N): promote unanimously answered real items to gold questions, as
    the admin action does; answers how many were promoted."""

    permission_classes = [has_perm("annotation.view_project"), has_perm("annotation.change_project")]
    parser_classes = [SafeJSONParser, FormParser]

    @extend_schema(tags=["quality"], operation_id="gold_promote",
                   summary="Promote unanimously answered items to gold questions", request=GoldPromoteIn,
                   responses={200: PromotedOut, 400: field_errors("A setting that is not a number, or "
                                                                  "`detail` saying why nothing can be promoted.")})
    def post(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        project = get_object_or_404(Project, slug=slug)
        data = body_fields(request, "the promotion's settings")
        values: dict[str, int | float | None] = {}
        for name, kind in (("min_answers", int), ("limit", int), ("posterior", float)):
            raw = data.get(name)
            if raw in (None, ""):
                values[name] = None
                continue
            try:
                values[name] = kind(raw)
            except (TypeError, ValueError):
                raise ValidationError({name: f"must be a{'n integer' if kind is int else ' number'}"}) from None
        try:
            promoted = items_promote_gold(
                project=project, actor=request.user, min_answers=int(values["min_answers"] or project.redundancy),
                limit=None if values["limit"] is None else int(values["limit"]), posterior=values["posterior"])
        except WorkflowError as exc:
            raise ValidationError({"detail": str(exc)}) from None
        return Response({"promoted": promoted})
