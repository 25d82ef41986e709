"""The annotator's page actions that the API had no twin for: give an item back unanswered
(skip), join a project by its join code, and accept a project's welcome and consent text. The
services are the page's; another worker's assignment, a project that does not exist and a private
one the caller is no member of are the one 404 of ``annotation.api.unseen``."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.parsers import SafeJSONParser
from annotation.api.refusals import refusals
from annotation.api.request_types import AuthenticatedApiRequest
from annotation.api.unseen import unseen
from annotation.models import Assignment, Project
from annotation.selectors.annotator import project_access
from annotation.services import WorkflowError
from annotation.services.accounts import AccountError, project_join
from annotation.services.engine import assignment_return
from annotation.services.workers import consent_accept
from annotation.throttles import JoinAddressThrottle, JoinThrottle, UserThrottle


class AssignmentSkippedSerializer(serializers.Serializer):
    assignment = serializers.IntegerField()
    status = serializers.CharField()


class ProjectJoinRequestSerializer(serializers.Serializer):
    code = serializers.CharField(max_length=100)


class ProjectJoinedSerializer(serializers.Serializer):
    project = serializers.CharField(help_text="The joined project's slug.")
    name = serializers.CharField()


class ConsentAcceptRequestSerializer(serializers.Serializer):
    accept = serializers.BooleanField(help_text="Must be true: the worker read the guidelines and agrees.")


class ConsentAcceptedSerializer(serializers.Serializer):
    project = serializers.CharField()
    accepted_at = serializers.DateTimeField()


class AssignmentSkip(APIView):
    """POST: give the worker's open assignment back unanswered; its item goes to someone else.
    Repeating it answers the same; 409 once the item was submitted."""

    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="assignment_skip", tags=["annotating"], request=None,
                   responses={200: AssignmentSkippedSerializer, **refusals(404, 409)})
    def post(self, request: AuthenticatedApiRequest, pk: int) -> Response:
        assignment = Assignment.objects.filter(pk=pk, worker=request.user).first()
        if assignment is None:
            raise unseen()
        try:
            returned = assignment_return(assignment=assignment, worker=request.user)
        except WorkflowError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response({"assignment": returned.pk, "status": returned.status})


class ProjectJoin(APIView):
    """POST ``{"code": …}``: become a member of the project with this join code (any case);
    400 naming ``code`` when no project has it. Throttled like the page."""

    permission_classes = [IsAuthenticated]
    throttle_classes = [UserThrottle, JoinThrottle, JoinAddressThrottle]
    parser_classes = [SafeJSONParser]

    @extend_schema(operation_id="project_join", tags=["annotating"], request=ProjectJoinRequestSerializer,
                   responses={200: ProjectJoinedSerializer, **refusals(400)})
    def post(self, request: AuthenticatedApiRequest) -> Response:
        form = ProjectJoinRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            project = project_join(code=form.validated_data["code"], worker=request.user)
        except AccountError as exc:
            return Response({"code": [str(exc)]}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"project": project.slug, "name": project.name})


class ConsentAccept(APIView):
    """POST ``{"accept": true}``: accept the project's welcome and consent text (once: the first
    acceptance stays on record), as a worker arriving from a marketplace must before items come."""

    permission_classes = [IsAuthenticated]
    parser_classes = [SafeJSONParser]

    @extend_schema(operation_id="consent_accept", request=ConsentAcceptRequestSerializer,
                   responses={200: ConsentAcceptedSerializer, **refusals(400, 404)})
    def post(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        project = Project.objects.filter(slug=slug).first()
        if project is None or project_access(project=project, user=request.user) != "worker":
            raise unseen()
        form = ConsentAcceptRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        if not form.validated_data["accept"]:
            return Response({"accept": ["must be true to start: read the guidelines and agree to take part"]},
                            status=status.HTTP_400_BAD_REQUEST)
        consent = consent_accept(project=project, worker=request.user)
        return Response({"project": project.slug, "accepted_at": consent.accepted_at})
