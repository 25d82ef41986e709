"""API of the dashboard's *Recompute all* button: queue one run of every report that applies to
the project, each with its latest run's parameters (``analysis.services``). The runs are jobs:
the answer comes at once with the runs to poll."""

from __future__ import annotations

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analysis.api import AnalysisRunSerializer
from analysis.reports import ParamError
from analysis.services import analysis_recompute_all
from annotation.api.lookups import project_or_404
from annotation.api.refusals import refusals
from annotation.api.views import has_perm


class AnalysisRecomputedSerializer(serializers.Serializer):
    runs = AnalysisRunSerializer(many=True)


class RecomputeAll(APIView):
    """POST: 202 with the queued runs (poll each at ``/api/analysis/ID/``); 400 when a latest
    run's parameters no longer hold (start that report on its own)."""

    permission_classes = [has_perm("annotation.view_project"), has_perm("analysis.add_analysisrun")]

    @extend_schema(operation_id="analysis_recompute_all", request=None,
                   responses={202: AnalysisRecomputedSerializer, **refusals(400, 404)})
    def post(self, request: Request, slug: str) -> Response:
        project = project_or_404(slug)
        try:
            runs = analysis_recompute_all(project=project, user=request.user)
        except ParamError as exc:
            raise ValidationError({"params": str(exc)}) from None
        for run in runs:
            run.refresh_from_db()
        return Response({"runs": AnalysisRunSerializer(runs, many=True).data}, status=status.HTTP_202_ACCEPTED)


urlpatterns = [
    path("projects/<slug:slug>/analysis/recompute/", RecomputeAll.as_view(), name="api-analysis-recompute-all"),
]
