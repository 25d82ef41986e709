"""REST API of a project's quality rules: list and add rules, read, change and delete one,
check them all now, and read the decisions with their evidence. Staff only; a rule of another
project is a 404 and changes nothing; the checks and the audit log are the staff page's."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.parsers import body_fields
from annotation.api.schema.errors import field_errors
from annotation.models import Project
from quality.api.schema_rules import DecisionsPageOut, RuleFields, RuleIn, RuleOut, RulesCheckOut
from quality.models import QualityRule, RuleDecision
from quality.rules.checks import rules_check
from quality.rules.selectors import decisions_page, rules_of
from quality.rules.words import decision_words
from quality.services.rules.settings import RuleInvalid, rule_add, rule_change, rule_delete
from quality.views.rules import check_rows, worker_url


def perms_by_method(**perms: str) -> type[BasePermission]:
    """Staff permission per HTTP method (``get``, ``post``, ``patch``, ``delete``)."""

    class ByMethod(BasePermission):
        def has_permission(self, request, view) -> bool:
            needed = perms.get(request.method.lower())
            self.message = f"You need the permission {needed}."
            return bool(needed and request.user and request.user.is_authenticated and request.user.has_perm(needed))

    return ByMethod


def rule_data(rule: QualityRule) -> dict[str, Any]:
    return {"id": rule.pk, "kind": rule.kind, "action": rule.action, "threshold": rule.threshold,
            "min_answers": rule.min_answers, "share_of_median": rule.share_of_median, "confidence": rule.confidence,
            "enabled": rule.enabled, "created_at": rule.created_at, "updated_at": rule.updated_at}


def decision_data(decision: RuleDecision, slug: str) -> dict[str, Any]:
    return {"id": decision.pk, "worker": decision.worker.get_username(), "worker_id": decision.worker_id,
            "worker_url": worker_url(slug, decision.worker_id), "rule": decision.rule_id, "kind": decision.kind,
            "action": decision.action, "evidence": decision.evidence, "words": decision_words(decision),
            "trigger": decision.trigger, "decided_at": decision.decided_at}


def _refused(refusal: RuleInvalid) -> ValidationError:
    return ValidationError({name: [message] for name, message in refusal.errors.items()})


class RuleList(APIView):
    """GET: the project's rules. POST ``{"kind": "gold_accuracy", "threshold": 0.7, ...}``: 201
    with the new rule; 400 naming each field out of range."""

    permission_classes = [perms_by_method(get="annotation.view_project", post="quality.add_qualityrule")]

    @extend_schema(tags=["rules"], operation_id="rules_list", summary="The project's quality rules",
                   responses={200: RuleOut(many=True)})
    def get(self, request: Request, slug: str) -> Response:
        project = get_object_or_404(Project, slug=slug)
        return Response([rule_data(rule) for rule in rules_of(project=project)])

    @extend_schema(tags=["rules"], operation_id="rule_create", summary="Add a quality rule", request=RuleIn,
                   responses={201: RuleOut, 400: field_errors("Each field out of range, named.")})
    def post(self, request: Request, slug: str) -> Response:
        project = get_object_or_404(Project, slug=slug)
        try:
            rule = rule_add(project=project, actor=request.user, data=body_fields(request, "the rule"))  # type: ignore[arg-type]
        except RuleInvalid as refusal:
            raise _refused(refusal) from None
        return Response(rule_data(rule), status=status.HTTP_201_CREATED)


class RuleDetail(APIView):
    """GET, PATCH (any settings but the kind) or DELETE one rule of the project."""

    permission_classes = [perms_by_method(get="annotation.view_project", patch="quality.change_qualityrule",
                                          delete="quality.delete_qualityrule")]

    def _rule(self, slug: str, pk: int) -> QualityRule:
        return get_object_or_404(QualityRule, project__slug=slug, pk=pk)

    @extend_schema(tags=["rules"], operation_id="rule_retrieve", summary="A quality rule", responses={200: RuleOut})
    def get(self, request: Request, slug: str, pk: int) -> Response:
        return Response(rule_data(self._rule(slug, pk)))

    @extend_schema(tags=["rules"], operation_id="rule_update", summary="Change a rule's settings (not its kind)",
                   request=RuleFields, responses={200: RuleOut, 400: field_errors("Each field out of range, named.")})
    def patch(self, request: Request, slug: str, pk: int) -> Response:
        rule = self._rule(slug, pk)
        try:
            rule = rule_change(rule=rule, actor=request.user, data=body_fields(request, "the changes"))  # type: ignore[arg-type]
        except RuleInvalid as refusal:
            raise _refused(refusal) from None
        return Response(rule_data(rule))

    @extend_schema(tags=["rules"], operation_id="rule_delete", summary="Delete a rule", responses={204: None})
    def delete(self, request: Request, slug: str, pk: int) -> Response:
        rule_delete(rule=self._rule(slug, pk), actor=request.user)  # type: ignore[arg-type]
        return Response(status=status.HTTP_204_NO_CONTENT)


class RulesCheck(APIView):
    """POST: judge every enabled rule over every worker now; the new decisions, how many workers
    each rule found, and the findings one by one as the page lists them."""

    permission_classes = [perms_by_method(post="quality.change_qualityrule")]

    @extend_schema(tags=["rules"], operation_id="rules_check", summary="Judge every enabled rule now", request=None,
                   responses={200: RulesCheckOut})
    def post(self, request: Request, slug: str) -> Response:
        project = get_object_or_404(Project, slug=slug)
        check = rules_check(project=project, actor=request.user)  # type: ignore[arg-type]
        findings = [{"worker": row["worker"], "worker_id": row["worker_id"], "worker_url": row["url"],
                     "rule": row["rule"].pk, "kind": row["rule"].kind, "evidence": row["evidence"],
                     "words": row["words"], "decision": row["decision"].pk if row["decision"] else None,
                     "decided": row["decided"]} for row in check_rows(project=project, check=check)]
        return Response({"decisions": [decision_data(d, slug) for d in check.decisions],
                         "found": {str(pk): n for pk, n in check.found.items()}, "runs": check.runs,
                         "findings": findings,
                         "unjudged": [{"rule": rule.pk, "kind": rule.kind, "why": why} for rule, why in check.unjudged]})


class DecisionList(APIView):
    """GET ``?page=N``: the project's rule decisions, newest first, 50 a page."""

    permission_classes = [perms_by_method(get="annotation.view_project")]

    @extend_schema(tags=["rules"], operation_id="rule_decisions_list", summary="Rule decisions, newest first",
                   parameters=[OpenApiParameter("page", OpenApiTypes.INT, OpenApiParameter.QUERY, required=False,
                                                description="Page number (50 a page); out of range gives the last.")],
                   responses={200: DecisionsPageOut})
    def get(self, request: Request, slug: str) -> Response:
        project = get_object_or_404(Project, slug=slug)
        page = decisions_page(project=project, page=request.query_params.get("page"))
        return Response({"count": page.paginator.count, "page": page.number, "pages": page.paginator.num_pages,
                         "results": [decision_data(d, slug) for d in page.object_list]})


urlpatterns = [
    path("projects/<slug:slug>/rules/", RuleList.as_view(), name="api-rules"),
    path("projects/<slug:slug>/rules/check/", RulesCheck.as_view(), name="api-rules-check"),
    path("projects/<slug:slug>/rules/<int:pk>/", RuleDetail.as_view(), name="api-rule"),
    path("projects/<slug:slug>/rule-decisions/", DecisionList.as_view(), name="api-rule-decisions"),
]
