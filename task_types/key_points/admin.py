"""The admin page that imports the shared task's files (arguments, key points, optional labels)
into a key-point project, mounted under the project admin by the task-type registry
(``TaskType.admin_urls``)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import URLPattern, path, reverse

from annotation.importers import ImportFailed
from annotation.models import Project
from annotation.uploads import upload_form_is_valid
from task_types.key_points.corpus_tool import ImportForm, corpus_import


def import_view(model_admin: Any, request: HttpRequest, pk: int) -> HttpResponse:
    """Queue the import as a job (a large arguments file takes longer than a request may) and
    follow it on the import job's page."""
    model_admin.require(request, "annotation.add_item")
    project = get_object_or_404(Project, pk=pk)
    form = ImportForm(request.POST or None, request.FILES or None)
    errors = None
    if request.method == "POST" and upload_form_is_valid(request, form):
        try:
            job = corpus_import(project=project, data=form.cleaned_data, user=request.user)
        except ImportFailed as exc:
            errors = exc
        else:
            return redirect(reverse("admin:annotation_project_import_job", args=[project.pk, job.pk]))
    title = f"Import key-point data (KPA 2021 files) into {project}"
    return model_admin.tool_page(request, project, title, form, errors=errors, submit="Import")


def admin_urls(model_admin: Any) -> list[URLPattern]:
    view = model_admin.admin_site.admin_view
    return [path("<int:pk>/key-points/", view(partial(import_view, model_admin)), name="annotation_project_key_points")]
