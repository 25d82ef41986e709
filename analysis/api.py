"""REST API of the analysis side: start a run, follow it, read its result."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analysis.models import AnalysisRun
from analysis.reports import ParamError, UnknownReport
from analysis.services import analysis_run_cancel, analysis_run_create, analysis_run_restart
from annotation.api.parsers import body_fields
from annotation.api.schema.errors import conflict, field_errors, restart_conflict
from annotation.api.serializers import JobFieldsMixin
from annotation.api.views import has_perm
from annotation.models import Project
from jobs.selectors import dead_job_error, is_dead


# What starting a run takes, as the OpenAPI schema describes it (the view reads the body itself).
class RunCreateIn(serializers.Serializer):
    kind = serializers.CharField(required=False, default="agreement",
                                 help_text="A report kind of the project's task type (agreement, pairwise_gold …).")
    params = serializers.DictField(child=serializers.JSONField(), required=False,
                                   help_text="The report's parameters.")


class AnalysisRunSerializer(JobFieldsMixin, serializers.ModelSerializer):
    project: serializers.SlugRelatedField[Project] = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    # A run whose worker died reads as failed, with the reason, from its heartbeat: reading
    # writes nothing (the scheduler, a restart or a new run marks it failed).
    status = serializers.SerializerMethodField()
    error = serializers.SerializerMethodField()

    class Meta:
        model = AnalysisRun
        fields = ["id", "project", "kind", "params", "status", "progress", "stage", "heartbeat_at", "error",
                  "result", "annotations_seen", "last_annotation_id", "attempts", "created_at", "started_at",
                  "finished_at"]

    def get_status(self, obj: AnalysisRun) -> str:
        return AnalysisRun.Status.FAILED.value if is_dead(job=obj) else obj.status

    def get_error(self, obj: AnalysisRun) -> str:
        return dead_job_error() if is_dead(job=obj) else obj.error


class RunCreate(APIView):
    """POST ``{"kind": "agreement", "params": {...}}``; 201 with the queued run (poll
    ``/api/analysis/ID/``); 400 naming an unknown kind or a bad parameter."""

    permission_classes = [has_perm("analysis.add_analysisrun")]

    @extend_schema(tags=["analysis"], operation_id="analysis_run_create", summary="Start an analysis run",
                   request=RunCreateIn,
                   responses={201: AnalysisRunSerializer, 400: field_errors("An unknown `kind` or a bad parameter.")})
    def post(self, request: Request, slug: str) -> Response:
        project = get_object_or_404(Project, slug=slug)
        body = body_fields(request, "the run")
        params = body.get("params") or {}
        if not isinstance(params, dict):
            raise ValidationError({"params": "must be an object"})
        try:
            run = analysis_run_create(project=project, kind=body.get("kind", "agreement"),
                                      params=params, user=request.user)
        except UnknownReport as exc:
            raise ValidationError({"kind": str(exc)}) from None
        except ParamError as exc:
            raise ValidationError({"params": str(exc)}) from None
        run.refresh_from_db()
        return Response(AnalysisRunSerializer(run).data, status=status.HTTP_201_CREATED)


class RunDetail(APIView):
    permission_classes = [has_perm("analysis.view_analysisrun")]

    @extend_schema(tags=["analysis"], operation_id="analysis_run_retrieve", summary="An analysis run",
                   responses={200: AnalysisRunSerializer})
    def get(self, request: Request, pk: int) -> Response:
        return Response(AnalysisRunSerializer(get_object_or_404(AnalysisRun, pk=pk)).data)


class RunCancel(APIView):
    """POST: cancel a queued or running run at once (409 if it has ended)."""

    permission_classes = [has_perm("analysis.change_analysisrun")]

    @extend_schema(tags=["analysis"], operation_id="analysis_run_cancel", summary="Cancel a run", request=None,
                   responses={200: AnalysisRunSerializer, 409: conflict("the run has ended.")})
    def post(self, request: Request, pk: int) -> Response:
        try:
            run = analysis_run_cancel(run=get_object_or_404(AnalysisRun, pk=pk), user=request.user)
        except ValueError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(AnalysisRunSerializer(run).data)


class RunRestart(APIView):
    """POST: queue a failed or cancelled run again, one whose worker died, or one queued past
    JOB_QUEUED_SECONDS (409 otherwise)."""

    permission_classes = [has_perm("analysis.change_analysisrun")]

    @extend_schema(tags=["analysis"], operation_id="analysis_run_restart", summary="Queue a failed, cancelled or stuck run again",
                   request=None, responses={200: AnalysisRunSerializer, 409: restart_conflict("run")})
    def post(self, request: Request, pk: int) -> Response:
        try:
            run = analysis_run_restart(run=get_object_or_404(AnalysisRun, pk=pk), user=request.user)
        except ValueError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(AnalysisRunSerializer(run).data)


urlpatterns = [
    path("projects/<slug:slug>/analysis/", RunCreate.as_view(), name="api-analysis-create"),
    path("analysis/<int:pk>/", RunDetail.as_view(), name="api-analysis-run"),
    path("analysis/<int:pk>/cancel/", RunCancel.as_view(), name="api-analysis-cancel"),
    path("analysis/<int:pk>/restart/", RunRestart.as_view(), name="api-analysis-restart"),
]
