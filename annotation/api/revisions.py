"""REST API: an assignment's answer with its earlier versions, and changing it."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.parsers import SafeJSONParser, body_fields
from annotation.api.request_types import AuthenticatedApiRequest
from annotation.api.schema.errors import conflict, error, field_errors
from annotation.api.schema.loop import AnswerRevisionIn, CurrentAnnotationOut, RevisedAnnotationOut
from annotation.api.unseen import unseen
from annotation.models import Annotation, AnnotationRevision, Assignment
from annotation.selectors.answers import annotation_history, revision_refusal
from annotation.services import WorkflowError
from annotation.services.revisions import annotation_revise
from annotation.task_types.base import AnswerInvalid


class RevisionSerializer(serializers.ModelSerializer):
    class Meta:
        model = AnnotationRevision
        fields = ["version", "answer", "reason", "seconds", "saved_at", "replaced_at"]


class CurrentAnnotationSerializer(serializers.ModelSerializer):
    assignment = serializers.IntegerField(source="assignment_id")

    class Meta:
        model = Annotation
        fields = ["id", "assignment", "answer", "reason", "seconds", "created_at", "version", "revised_at"]


def _body(annotation: Annotation) -> dict:
    assignment = annotation.assignment
    open_until = None if revision_refusal(assignment=assignment, now=timezone.now()) else assignment.expires_at
    return {
        **CurrentAnnotationSerializer(annotation).data,
        "revisable_until": serializers.DateTimeField().to_representation(open_until) if open_until else None,
        "history": RevisionSerializer(annotation_history(annotation=annotation), many=True).data,
    }


class AssignmentAnnotation(APIView):
    """``GET``: the answer in its current version, when it may still be changed, and every
    earlier version (its annotator, or anyone who may view annotations).

    ``PUT`` (its annotator): a new answer, fields as for submit, while the lease lasts and nobody
    reviewed it; optional ``version``, the version being replaced, refuses the change if the
    answer changed meanwhile. 200 with ``changed`` true, or false when the answer equals the
    stored one; 400 with errors per field; 409 when it can no longer be changed."""

    permission_classes = [IsAuthenticated]
    parser_classes = [SafeJSONParser, FormParser, MultiPartParser]

    def _annotation(self, request: Request, pk: int) -> Annotation:
        """The assignment's answer for its annotator, or for anyone who may view annotations;
        for everyone else a missing assignment, another worker's and one without an answer
        are the same 404 (``annotation.api.unseen``)."""
        user = request.user
        may_view = user.has_perm("annotation.view_annotation")
        # Through the assignment's key, not the column: Django checks the range of that lookup, so an
        # id beyond 64 bits is a 404, not an OverflowError in the SQLite driver.
        annotation = Annotation.objects.select_related("assignment").filter(assignment__pk=pk).first()
        if annotation is not None and (may_view or annotation.assignment.worker_id == user.pk):
            return annotation
        if annotation is None:
            owners = Assignment.objects.filter(pk=pk) if may_view else Assignment.objects.filter(pk=pk, worker_id=user.pk)
            if owners.exists():
                raise NotFound("This assignment has no answer yet.")
        raise unseen()

    @extend_schema(tags=["annotating"], operation_id="annotation_retrieve",
                   summary="The answer, until when it may change, and its earlier versions",
                   responses={200: CurrentAnnotationOut})
    def get(self, request: Request, pk: int) -> Response:
        return Response(_body(self._annotation(request, pk)))

    @extend_schema(tags=["annotating"], operation_id="annotation_revise", summary="Change the answer",
                   request=AnswerRevisionIn,
                   responses={200: RevisedAnnotationOut, 400: field_errors("The answer is invalid; each field named."),
                              403: error("Staff who may read it, but it is another worker's."),
                              409: conflict("the lease ran out, it was reviewed, or it changed meanwhile "
                                            "(`version`).")})
    def put(self, request: AuthenticatedApiRequest, pk: int) -> Response:
        annotation = self._annotation(request, pk)
        if annotation.assignment.worker_id != request.user.pk:
            # Only staff who may view it get here: they are told why they cannot change it.
            raise PermissionDenied("This assignment belongs to someone else.")
        data = body_fields(request, "the answer")
        version = data.get("version")
        if version not in (None, ""):
            try:
                version = int(version)
            except (TypeError, ValueError):
                raise ValidationError({"version": "must be a whole number"}) from None
        else:
            version = None
        client = {"elapsed_ms": data.get("client_elapsed_ms"), "api": True}
        try:
            outcome = annotation_revise(assignment=annotation.assignment, worker=request.user,
                                        data=data, client=client, version=version)
        except AnswerInvalid as exc:
            raise ValidationError(exc.errors) from None
        except WorkflowError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response({**_body(outcome.annotation), "changed": outcome.changed})
