"""API of the evaluation page's *Cancel* button: stop the project's queued or running scoring of
a system's predictions (``task_types.key_points.evaluation``). An evaluation of another project is
a 404 and is not touched."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.lookups import project_or_404
from annotation.api.refusals import refusals
from annotation.api.views import has_perm
from task_types.key_points.api import EvaluationSerializer
from task_types.key_points.evaluation import evaluation_cancel
from task_types.key_points.models import PredictionEvaluation


class EvaluationCancel(APIView):
    """POST: cancel the evaluation at once; 409 when it has ended."""

    permission_classes = [has_perm("annotation.view_project"), has_perm("analysis.add_analysisrun")]

    @extend_schema(operation_id="key_points_evaluation_cancel", request=None,
                   responses={200: EvaluationSerializer, **refusals(404, 409)})
    def post(self, request: Request, slug: str, pk: int) -> Response:
        job = PredictionEvaluation.objects.filter(project=project_or_404(slug), pk=pk).first()
        if job is None:
            raise NotFound("The project has no evaluation with this id.")
        try:
            job = evaluation_cancel(job=job, user=request.user)
        except ValueError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(EvaluationSerializer(job).data)
