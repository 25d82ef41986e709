"""The API of a project's Prolific study: its link (read, set, remove), "sync now", its
submissions with each participant's work, approving and rejecting them (one or many), and the
webhook Prolific calls.

Staff endpoints check the project's staff permissions as the other staff endpoints do; a
submission id of another project's study is 404 and changes nothing.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import AllowAny, BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from annotation.api.parsers import SafeJSONParser, body_fields
from annotation.api.request_types import AuthenticatedApiRequest
from annotation.api.schema.errors import ErrorDetail, FieldErrors
from annotation.models import Project
from annotation.throttles import AnonThrottle, SignedDeliveryThrottle
from recruiting.api.prolific.serializers import (
    DecisionInputSerializer,
    DecisionResultSerializer,
    SingleDecisionInputSerializer,
    StudyLinkInputSerializer,
    StudyLinkSerializer,
    SubmissionListSerializer,
    SyncJobSerializer,
    job_data,
    study_data,
    submission_data,
)
from recruiting.models import ProlificStudy, ProlificSubmission
from recruiting.selectors.prolific import study_of, study_state, submission_rows
from recruiting.services.prolific.decisions import (
    DecisionRefused,
    prolific_submission_decide,
    prolific_submissions_approve,
    prolific_submissions_reject,
)
from recruiting.services.prolific.link import (
    LinkRefused,
    prolific_study_link,
    prolific_study_unlink,
)
from recruiting.services.prolific.sync import prolific_sync_queue
from recruiting.services.prolific.webhook import prolific_webhook_receive, prolific_webhook_refusal

VIEW, LINK, DECIDE = "annotation.view_project", "recruiting.change_prolificstudy", "recruiting.change_prolificsubmission"
NOT_LINKED = "This project is not linked to a Prolific study."
ERRORS = {400: OpenApiResponse(FieldErrors, description="A field at fault, named."),
          403: OpenApiResponse(ErrorDetail, description="Without the permission."),
          404: OpenApiResponse(ErrorDetail, description="No such project, study or submission.")}


class StaffPerms(BasePermission):
    """``annotation.view_project`` to read; writes need the method's permission too."""

    message = "You need the permissions to see the project and change its Prolific study."
    write_perm = LINK

    def has_permission(self, request, view) -> bool:
        user = request.user
        if not (user and user.is_authenticated and user.has_perm(VIEW)):
            return False
        return request.method in ("GET", "HEAD", "OPTIONS") or user.has_perm(getattr(view, "write_perm", LINK))


def _study(slug: str) -> tuple[Project, ProlificStudy]:
    project = get_object_or_404(Project, slug=slug)
    study = study_of(project=project)
    if study is None:
        raise NotFound(NOT_LINKED)
    return project, study


def _refused(exc: DecisionRefused) -> Response:
    return Response({exc.field: exc.message}, status=status.HTTP_400_BAD_REQUEST)


class StudyLink(APIView):
    permission_classes = [StaffPerms]
    parser_classes = [SafeJSONParser]
    write_perm = LINK

    @extend_schema(operation_id="prolific_study_retrieve", tags=["prolific"], summary="The project's Prolific study link", responses={200: StudyLinkSerializer, **ERRORS})
    def get(self, request: Request, slug: str) -> Response:
        _, study = _study(slug)
        return Response(study_data(study_state(study=study)))

    @extend_schema(operation_id="prolific_study_link", tags=["prolific"], summary="Link the project to a study, or change the link", request=StudyLinkInputSerializer,
                   responses={200: StudyLinkSerializer, **ERRORS})
    def put(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        project = get_object_or_404(Project, slug=slug)
        try:
            study = prolific_study_link(project=project, data=dict(body_fields(request, "the link")),
                                        actor=request.user)
        except LinkRefused as exc:
            raise ValidationError(exc.errors) from None
        return Response(study_data(study_state(study=study)))

    @extend_schema(operation_id="prolific_study_unlink", tags=["prolific"], summary="Unlink the project's study", request=None,
                   responses={204: OpenApiResponse(description="Unlinked."), **ERRORS})
    def delete(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        project = get_object_or_404(Project, slug=slug)
        if not prolific_study_unlink(project=project, actor=request.user):
            raise NotFound(NOT_LINKED)
        return Response(status=status.HTTP_204_NO_CONTENT)


class StudySync(APIView):
    permission_classes = [StaffPerms]
    write_perm = LINK

    @extend_schema(operation_id="prolific_sync", tags=["prolific"], summary="Queue a sync of the study's submissions now", request=None,
                   responses={202: SyncJobSerializer, **ERRORS})
    def post(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        _, study = _study(slug)
        job = prolific_sync_queue(study=study, actor=request.user)
        return Response(job_data(job), status=status.HTTP_202_ACCEPTED)


class SubmissionList(APIView):
    permission_classes = [StaffPerms]

    @extend_schema(operation_id="prolific_submissions_list", tags=["prolific"], summary="The study's submissions with each participant's work",
                   parameters=[OpenApiParameter("status", str, description="Keep one Prolific status.",
                                                enum=list(ProlificSubmission.Status.values))],
                   responses={200: SubmissionListSerializer, **ERRORS})
    def get(self, request: Request, slug: str) -> Response:
        _, study = _study(slug)
        wanted = request.query_params.get("status", "")
        if wanted and wanted not in ProlificSubmission.Status.values:
            raise ValidationError({"status": f"unknown status; known: {', '.join(ProlificSubmission.Status.values)}"})
        return Response({"submissions": [submission_data(r) for r in submission_rows(study=study, status=wanted)]})


def _own_submissions(study: ProlificStudy, ids: list[str]) -> list[ProlificSubmission]:
    """The study's submissions ``ids``, all of them or 404 (nothing is decided then)."""
    found = {s.submission_id: s for s in study.submissions.select_related("worker", "project")
             .filter(submission_id__in=ids)}
    if len(found) != len(set(ids)):
        raise NotFound("No such submission in this project's study.")
    return [found[i] for i in dict.fromkeys(ids)]


class SubmissionDecisions(APIView):
    permission_classes = [StaffPerms]
    parser_classes = [SafeJSONParser]
    write_perm = DECIDE

    @extend_schema(operation_id="prolific_submissions_decide", tags=["prolific"], summary="Approve or reject many submissions awaiting review", request=DecisionInputSerializer,
                   responses={200: DecisionResultSerializer, **ERRORS})
    def post(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        _, study = _study(slug)
        given = DecisionInputSerializer(data=body_fields(request, "the decision"))
        given.is_valid(raise_exception=True)
        data = given.validated_data
        submissions = _own_submissions(study, data["submissions"])
        try:
            if data["action"] == "approve":
                outcome = prolific_submissions_approve(submissions=submissions, actor=request.user)
            else:
                outcome = prolific_submissions_reject(submissions=submissions, actor=request.user,
                                                      message=data.get("message", ""),
                                                      rejection_category=data.get("rejection_category", ""))
        except DecisionRefused as exc:
            return _refused(exc)
        return Response({"decided": outcome.decided, "refused": outcome.refused})


class SubmissionDecision(APIView):
    permission_classes = [StaffPerms]
    parser_classes = [SafeJSONParser]
    write_perm = DECIDE
    action = "approve"

    @extend_schema(operation_id="prolific_submission_decide", tags=["prolific"], summary="Approve or reject one submission awaiting review", request=SingleDecisionInputSerializer,
                   responses={200: DecisionResultSerializer, **ERRORS})
    def post(self, request: AuthenticatedApiRequest, slug: str, submission_id: str) -> Response:
        _, study = _study(slug)
        submission = _own_submissions(study, [submission_id])[0]
        given = SingleDecisionInputSerializer(data=body_fields(request, "the decision") if request.data else {})
        given.is_valid(raise_exception=True)
        try:
            prolific_submission_decide(submission=submission, approve=self.action == "approve", actor=request.user,
                                       message=given.validated_data.get("message", ""),
                                       rejection_category=given.validated_data.get("rejection_category", ""))
        except DecisionRefused as exc:
            return _refused(exc)
        return Response({"decided": [submission.submission_id], "refused": {}})


class Webhook(APIView):
    """Prolific's deliveries: signed, checked here (no login: the signature is the proof)."""

    permission_classes = [AllowAny]
    authentication_classes: list = []

    def get_throttles(self) -> list[BaseThrottle]:
        # Checked over the raw bytes (at most 64 KB without a login: annotation.body_limits)
        # before any throttle counts: signed deliveries have a limit of their own, which forged
        # ones (held to the anonymous rate) cannot use up.
        request = self.request
        signed = prolific_webhook_refusal(body=request.body, headers=request.headers) is None
        return [SignedDeliveryThrottle()] if signed else [AnonThrottle()]

    @extend_schema(operation_id="prolific_webhook", tags=["prolific"], summary="Prolific's webhook (signed deliveries only)", request={"application/json": dict},
                   responses={200: ErrorDetail, 400: ErrorDetail, 403: ErrorDetail, 413: ErrorDetail, 429: ErrorDetail})
    def post(self, request: Request) -> Response:
        answer = prolific_webhook_receive(body=request.body, headers=request.headers)
        return Response({"detail": answer.detail}, status=answer.status)


@extend_schema_view(post=extend_schema(operation_id="prolific_submission_approve",
                                       summary="Approve one submission awaiting review"))
class SubmissionApprove(SubmissionDecision):
    action = "approve"


@extend_schema_view(post=extend_schema(operation_id="prolific_submission_reject",
                                       summary="Reject one submission awaiting review"))
class SubmissionReject(SubmissionDecision):
    action = "reject"
