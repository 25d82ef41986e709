"""API of the site-wide staff actions: the user admin's *Block* and *Unblock* (a worker gets no
item in any project; ``annotation.services.workers``), and the whole site's audit log, which the
page gives superusers as CSV. A project's own block and audit log are ``api-worker-action`` and
``api-audit``."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.audit import audit_page
from annotation.api.parsers import SafeJSONParser
from annotation.api.refusals import refusals
from annotation.api.request_types import AuthenticatedApiRequest
from annotation.api.views import has_perm
from annotation.models import WorkerProfile
from annotation.selectors.audit import audit_entries
from annotation.services import worker_block, worker_unblock
from annotation.services.accounts import account_delete
from annotation.services.errors import WorkflowError

REASON_LENGTH = 300


class SiteBlockRequestSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=REASON_LENGTH, required=False, allow_blank=True,
                                   help_text="Kept on the worker's profile (block only); default: who blocked.")


class SiteBlockSerializer(serializers.Serializer):
    worker = serializers.IntegerField()
    blocked = serializers.BooleanField()
    returned = serializers.IntegerField(help_text="Open assignments given back to the pool (block).")


class SiteAuditEntrySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    at = serializers.CharField()
    actor = serializers.CharField()
    action = serializers.CharField()
    project = serializers.CharField()
    target = serializers.CharField()
    details = serializers.DictField()


class SiteAuditSerializer(serializers.Serializer):
    entries = SiteAuditEntrySerializer(many=True)
    next_before = serializers.IntegerField(allow_null=True, help_text="Pass as `before` for the next page.")


class WorkerSiteAction(APIView):
    """POST ``block`` (optional ``reason``) or ``unblock``: the worker everywhere, audited."""

    permission_classes = [has_perm("auth.change_user")]
    parser_classes = [SafeJSONParser]

    @extend_schema(operation_id="worker_site_action", request=SiteBlockRequestSerializer,
                   responses={200: SiteBlockSerializer, **refusals(400, 404)})
    def post(self, request: AuthenticatedApiRequest, worker_id: int, action: str) -> Response:
        worker = get_user_model().objects.filter(pk=worker_id).first()
        if worker is None or action not in ("block", "unblock"):
            raise NotFound("No such worker, or no such action (block, unblock).")
        form = SiteBlockRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        if action == "block":
            reason = form.validated_data.get("reason") or f"blocked by {request.user.get_username()}"
            returned = worker_block(worker=worker, reason=reason, actor=request.user)
        else:
            worker_unblock(worker=worker, actor=request.user)
            returned = 0
        return Response({"worker": worker.pk, "blocked": WorkerProfile.objects.filter(user=worker, blocked=True).exists(), "returned": returned})


class AccountDelete(APIView):
    """DELETE: the account, as the user admin deletes it: the deletion is recorded first, and the
    entries the account wrote keep its name."""

    permission_classes = [has_perm("auth.delete_user")]

    @extend_schema(operation_id="account_delete", tags=["workers"], request=None,
                   responses={204: None, **refusals(400, 404, 409)})
    def delete(self, request: AuthenticatedApiRequest, worker_id: int) -> Response:
        user = get_user_model().objects.filter(pk=worker_id).first()
        if user is None:
            raise NotFound("No such account.")
        if user.pk == request.user.pk:
            # A client would lose its own token halfway through whatever it is doing.
            raise ValidationError({"detail": "An account cannot delete itself; ask another admin."})
        try:
            account_delete(user=user, actor=request.user)
        except WorkflowError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(status=status.HTTP_204_NO_CONTENT)


class SiteAuditList(APIView):
    """GET: the whole site's audit entries, newest first, for superusers (``?action=`` keeps one
    kind or family, ``?limit=`` up to 500, ``?before=<id>`` pages on)."""

    permission_classes = [has_perm("annotation.view_auditentry")]

    @extend_schema(operation_id="audit_site_list", tags=["workers"], responses={200: SiteAuditSerializer, **refusals()},
                   parameters=[OpenApiParameter("action", OpenApiTypes.STR),
                               OpenApiParameter("limit", OpenApiTypes.INT),
                               OpenApiParameter("before", OpenApiTypes.INT)])
    def get(self, request: Request) -> Response:
        if not request.user.is_superuser:
            raise PermissionDenied("The whole site's audit log is for superusers.")
        entries = audit_entries(action=request.query_params.get("action", ""))
        return Response(audit_page(entries=entries, params=request.query_params))
