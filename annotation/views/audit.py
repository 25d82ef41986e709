"""The audit log as CSV: a project's entries for its staff, the whole site's for superusers."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404

from annotation.exports import stream
from annotation.models import Project
from annotation.selectors.audit import AUDIT_COLUMNS, audit_entries, audit_rows
from annotation.services.audit import audit_record
from annotation.views.permissions import permission_required
from annotation.views.request_types import AuthenticatedRequest


def _csv(entries, filename: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(stream(audit_rows(entries=entries), fmt="csv", columns=list(AUDIT_COLUMNS)),
                                     content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@permission_required(("annotation.view_project", "annotation.view_auditentry"))
def project_audit_csv(request: AuthenticatedRequest, slug: str) -> StreamingHttpResponse:
    project = get_object_or_404(Project, slug=slug)
    audit_record(actor=request.user, action="export", project=project, target="audit.csv", details={"via": "page"})
    return _csv(audit_entries(project=project, action=request.GET.get("action", "")), f"{project.slug}-audit.csv")


@permission_required("annotation.view_auditentry")
def site_audit_csv(request: AuthenticatedRequest) -> StreamingHttpResponse:
    if not request.user.is_superuser:
        raise PermissionDenied("The whole site's audit log is for superusers.")
    audit_record(actor=request.user, action="export", target="audit.csv (whole site)", details={"via": "page"})
    return _csv(audit_entries(action=request.GET.get("action", "")), "audit.csv")
