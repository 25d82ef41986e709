"""The API of a task type's project tools (the admin pages a type mounts under its projects,
``TaskType.admin_urls``): the same form, its fields sent as multipart (files) or JSON, and the
same step. A type's API module subclasses ``ProjectTool`` with its form and step; what takes
long (reading a corpus, building items) is an import job, answered at once with 202."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.urls import reverse
from rest_framework import status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.lookups import project_or_404
from annotation.api.parsers import SafeJSONParser, body_fields
from annotation.api.serializers import ImportJobSerializer
from annotation.api.views import has_perm
from annotation.importers import ImportFailed
from annotation.models import ImportJob, Project
from annotation.uploads import refuse_oversized_upload


def form_refusal(form: forms.Form) -> Response:
    """400 naming each field at fault; errors of the whole form come as ``detail``."""
    body = {("detail" if name == "__all__" else name): [str(m) for m in messages]
            for name, messages in form.errors.items()}
    return Response(body, status=status.HTTP_400_BAD_REQUEST)


def import_refusal(exc: ImportFailed) -> Response:
    """400 as the import endpoints answer it: nothing was imported, and every error with line and field."""
    return Response({"detail": "Nothing was imported.", "errors": [e.as_dict() for e in exc.errors],
                     "error_count": exc.total}, status=status.HTTP_400_BAD_REQUEST)


def job_accepted(request: Request, job: ImportJob) -> Response:
    url = reverse("api-import-job", args=[job.pk])
    return Response({**ImportJobSerializer(job).data, "url": request.build_absolute_uri(url)},
                    status=status.HTTP_202_ACCEPTED, headers={"Location": url})


class ProjectTool(APIView):
    """POST the tool's form fields: 202 with the queued import job (poll its ``url``), 400
    naming the fields at fault or listing the import's errors."""

    form_class: type[forms.Form]
    permission_classes = [has_perm("annotation.view_project"), has_perm("annotation.add_item")]
    parser_classes = [MultiPartParser, FormParser, SafeJSONParser]

    def run(self, *, project: Project, data: Mapping[str, Any], user: Any) -> ImportJob:
        raise NotImplementedError

    def answer(self, request: Request, outcome: Any) -> Response:
        return job_accepted(request, outcome)

    def post(self, request: Request, slug: str) -> Response:
        project = project_or_404(slug)
        refuse_oversized_upload(request)
        form = self.form_class(body_fields(request, "the tool's fields"), request.FILES)
        if not form.is_valid():
            return form_refusal(form)
        try:
            outcome = self.run(project=project, data=form.cleaned_data, user=request.user)
        except ImportFailed as exc:
            return import_refusal(exc)
        return self.answer(request, outcome)


def tool_schema(operation_id: str, form_class: type[forms.Form], **responses: Any):
    """The schema of a tool's POST: its form's fields (named in the description, with their help
    text), as multipart or JSON; 202 with the job, and the refusals."""
    from drf_spectacular.types import OpenApiTypes
    from drf_spectacular.utils import extend_schema, extend_schema_view

    from annotation.api.refusals import refusals

    fields = "\n".join(f"- `{name}`{' (required)' if f.required else ''}"
                       f"{' (file)' if isinstance(f, forms.FileField) else ''}: {f.help_text or f.label or ''}"
                       for name, f in form_class().fields.items())
    post = extend_schema(
        operation_id=operation_id, description=f"Fields (files as multipart):\n\n{fields}",
        request={"multipart/form-data": OpenApiTypes.OBJECT, "application/json": OpenApiTypes.OBJECT},
        responses={202: ImportJobSerializer, **{int(code): r for code, r in responses.items()}, **refusals(400, 404)})
    return extend_schema_view(post=post)
