"""The audit log through the API: a project's entries (the site's are in ``staff.site``), newest
first, a page at a time."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.schema.staff import AuditOut
from annotation.models import Project
from annotation.selectors.audit import audit_entries, audit_row

PER_PAGE_LIMIT = 500


class CanSeeAudit(BasePermission):
    message = "You need the permissions annotation.view_project and annotation.view_auditentry."
    perms = ("annotation.view_project", "annotation.view_auditentry")

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated and request.user.has_perms(self.perms))


class AuditList(APIView):
    """GET: the project's audit entries, newest first (``?action=`` keeps one kind or family,
    ``?limit=`` up to 500, ``?before=<id>`` pages on)."""

    permission_classes = [CanSeeAudit]

    @extend_schema(
        tags=["workers"], operation_id="audit_list", summary="The project's audit log, newest first",
        parameters=[
            OpenApiParameter("action", OpenApiTypes.STR, OpenApiParameter.QUERY, required=False,
                             description="One kind of entry (`worker.block`) or a family (`worker`)."),
            OpenApiParameter("limit", OpenApiTypes.STR, OpenApiParameter.QUERY, required=False,
                             description="Entries per page, 1 to 500 (default 100; anything else gives 100)."),
            OpenApiParameter("before", OpenApiTypes.STR, OpenApiParameter.QUERY, required=False,
                             description="An entry id: the entries older than it (`next_before` of the last page); "
                                         "anything but digits is ignored."),
        ],
        responses={200: AuditOut})
    def get(self, request: Request, slug: str) -> Response:
        project = get_object_or_404(Project, slug=slug)
        entries = audit_entries(project=project, action=request.query_params.get("action", ""))
        return Response(audit_page(entries=entries, params=request.query_params))


def audit_page(*, entries, params) -> dict:
    """One page of audit entries, newest first: ``limit`` of them (100, at most PER_PAGE_LIMIT)
    older than the id ``before``, and the ``next_before`` that asks for the page after."""
    before = params.get("before", "")
    if before.isdigit():
        entries = entries.filter(pk__lt=int(before))
    limit = params.get("limit", "100")
    n = min(int(limit), PER_PAGE_LIMIT) if limit.isdigit() and int(limit) > 0 else 100
    rows = list(entries[:n])
    return {"entries": [{"id": e.pk, **audit_row(entry=e)} for e in rows],
            "next_before": rows[-1].pk if len(rows) == n else None}
