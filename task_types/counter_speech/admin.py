"""The admin page that adds counter-speech questions, built from the IBM Debater speeches, to a
project, mounted under the project admin by the task-type registry (``TaskType.admin_urls``)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import URLPattern, path, reverse

from annotation.importers import ImportFailed
from annotation.models import Project
from task_types.counter_speech.build_tool import BuildForm, questions_build


def build_view(model_admin: Any, request: HttpRequest, pk: int) -> HttpResponse:
    """Queue the build as an import job (it reads the whole release) and follow it on the job's
    page: new questions, those already in the project, or why none was built."""
    model_admin.require(request, "annotation.add_item")
    project = get_object_or_404(Project, pk=pk)
    form = BuildForm(request.POST or None)
    errors = None
    if request.method == "POST" and form.is_valid():
        try:
            job = questions_build(project=project, data=form.cleaned_data, user=request.user)
        except ImportFailed as exc:
            errors = exc
        else:
            return redirect(reverse("admin:annotation_project_import_job", args=[project.pk, job.pk]))
    title = f"Build counter-speech questions for {project} from the IBM Debater speeches"
    return model_admin.tool_page(request, project, title, form, errors=errors, submit="Build questions")


def admin_urls(model_admin: Any) -> list[URLPattern]:
    view = model_admin.admin_site.admin_view
    return [path("<int:pk>/counter-speech/", view(partial(build_view, model_admin)),
                 name="annotation_project_counter_speech")]
