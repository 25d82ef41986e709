"""API of the import job page's restart button: queue a failed, cancelled or stuck import of the
project again (``annotation.services.imports``); cancelling is ``imports/<id>/cancel/``. A job of
another project is a 404 and is not touched."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.lookups import project_or_404
from annotation.api.refusals import refusals
from annotation.api.schema.errors import restart_conflict
from annotation.api.serializers import ImportJobSerializer
from annotation.api.views import has_perm
from annotation.models import ImportJob
from annotation.services.imports import import_job_restart


class ImportJobRestart(APIView):
    """POST: queue the project's import ``pk`` again while its upload is still stored: 202 with
    the job to poll; 409 when it is queued (and not yet past JOB_QUEUED_SECONDS), running on a live
    worker or done, or when its file is gone."""

    permission_classes = [has_perm("annotation.view_importjob"), has_perm("annotation.change_importjob")]

    @extend_schema(operation_id="import_job_restart", request=None,
                   responses={202: ImportJobSerializer, **refusals(404),
                              409: restart_conflict("import", also=", or its uploaded file is gone")})
    def post(self, request: Request, slug: str, pk: int) -> Response:
        job = ImportJob.objects.filter(project=project_or_404(slug), pk=pk).first()
        if job is None:
            raise NotFound("The project has no import with this id.")
        try:
            job = import_job_restart(job=job)
        except ValueError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        url = reverse("api-import-job", args=[job.pk])
        return Response(ImportJobSerializer(job).data, status=status.HTTP_202_ACCEPTED, headers={"Location": url})
