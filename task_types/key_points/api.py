"""REST API of the key-point type: score a system's predictions, follow the evaluation."""

from __future__ import annotations

import json

from django.core.files.base import ContentFile
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.parsers import SafeJSONParser
from annotation.api.schema.errors import field_errors
from annotation.api.serializers import JobFieldsMixin
from annotation.api.views import has_perm
from annotation.importers import ImportFailed
from annotation.models import Project
from annotation.uploads import refuse_oversized_upload
from task_types.key_points.evaluation import evaluation_upload
from task_types.key_points.models import PredictionEvaluation


class EvaluationSerializer(JobFieldsMixin, serializers.ModelSerializer):
    project: serializers.SlugRelatedField[Project] = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = PredictionEvaluation
        fields = ["id", "project", "filename", "size", "labels", "ties", "status", "progress", "stage", "heartbeat_at",
                  "error", "result", "attempts", "created_at", "started_at", "finished_at"]


class PredictionsUpload(serializers.Serializer):
    predictions = serializers.FileField(help_text="The predictions file (JSON).")


class Evaluations(APIView):
    """GET: the project's evaluations, newest first. POST: a predictions file (multipart field
    ``predictions``) or the predictions as the JSON body; 201 with the finished evaluation when it
    was scored at once, 202 with the queued one otherwise (poll ``/api/key-points/evaluations/ID/``).
    ``?ties=file-order`` settles tied scores in the files' order instead of the shared task's way."""

    permission_classes = [has_perm("analysis.add_analysisrun")]
    parser_classes = [MultiPartParser, FormParser, SafeJSONParser]

    @extend_schema(tags=["key points"], operation_id="key_point_evaluations_list",
                   summary="The project's prediction evaluations, newest first (up to 100)",
                   responses={200: EvaluationSerializer(many=True)})
    def get(self, request: Request, slug: str) -> Response:
        project = get_object_or_404(Project, slug=slug)
        shown = PredictionEvaluation.objects.filter(project=project)[:100]
        return Response(EvaluationSerializer(shown, many=True).data)

    @extend_schema(
        tags=["key points"], operation_id="key_point_evaluation_create", summary="Score a system's predictions",
        request={"multipart/form-data": PredictionsUpload, "application/json": OpenApiTypes.OBJECT},
        parameters=[OpenApiParameter("ties", OpenApiTypes.STR, OpenApiParameter.QUERY, required=False,
                                     enum=list(PredictionEvaluation.Ties.values),
                                     description="How tied scores are settled (default: the shared task's way).")],
        responses={201: OpenApiResponse(EvaluationSerializer, "Scored at once."),
                   202: OpenApiResponse(EvaluationSerializer, "Queued: poll it."),
                   400: field_errors("No predictions, an unknown `ties`, or the project cannot be scored.")})
    def post(self, request: Request, slug: str) -> Response:
        project = get_object_or_404(Project, slug=slug)
        refuse_oversized_upload(request)  # a file dropped for its size: said so, on its field
        upload = request.FILES.get("predictions")
        if upload is not None:
            source, name, size = upload, upload.name or "predictions.json", upload.size or 0
        elif request.content_type.startswith("application/json") and isinstance(request.data, dict):
            raw = json.dumps(request.data).encode()
            source, name, size = ContentFile(raw), "predictions.json", len(raw)
        else:
            raise ValidationError({"predictions": "send the file as the multipart field 'predictions', "
                                                  "or the predictions as a JSON body"})
        ties = request.query_params.get("ties", PredictionEvaluation.Ties.OFFICIAL)
        if ties not in PredictionEvaluation.Ties.values:
            raise ValidationError({"ties": f"must be one of {', '.join(PredictionEvaluation.Ties.values)}"})
        try:
            job = evaluation_upload(project=project, upload=source, filename=name, size=size, user=request.user,
                                    ties=ties)
        except ImportFailed as exc:
            raise ValidationError({"project": str(exc)}) from None
        job.refresh_from_db()
        code = status.HTTP_202_ACCEPTED if job.is_active else status.HTTP_201_CREATED
        return Response(EvaluationSerializer(job).data, status=code)


class EvaluationDetail(APIView):
    permission_classes = [has_perm("analysis.view_analysisrun")]

    @extend_schema(tags=["key points"], operation_id="key_point_evaluation_retrieve",
                   summary="A prediction evaluation", responses={200: EvaluationSerializer})
    def get(self, request: Request, pk: int) -> Response:
        return Response(EvaluationSerializer(get_object_or_404(PredictionEvaluation, pk=pk)).data)
