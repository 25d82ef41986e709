"""The admin page that adds key-point set comparisons, built from several systems' track 2
output, to a project; mounted under the project admin by the task-type registry."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import URLPattern, path, reverse

from annotation.importers import ImportFailed
from annotation.models import Project
from annotation.uploads import upload_form_is_valid
from task_types.key_point_sets.sets_tool import SetsForm, sets_build


def sets_view(model_admin: Any, request: HttpRequest, pk: int) -> HttpResponse:
    """The files go to an import job (an arguments file may take longer than a request), whose
    page follows it."""
    model_admin.require(request, "annotation.add_item")
    project = get_object_or_404(Project, pk=pk)
    form = SetsForm(request.POST or None, request.FILES or None)
    errors = None
    if request.method == "POST" and upload_form_is_valid(request, form):
        try:
            job = sets_build(project=project, data=form.cleaned_data, user=request.user)
        except ImportFailed as exc:
            errors = exc
        else:
            return redirect(reverse("admin:annotation_project_import_job", args=[project.pk, job.pk]))
    title = f"Build key-point set comparisons for {project} from systems' track 2 output"
    return model_admin.tool_page(request, project, title, form, errors=errors, submit="Build comparisons")


def admin_urls(model_admin: Any) -> list[URLPattern]:
    view = model_admin.admin_site.admin_view
    return [path("<int:pk>/key-point-sets/", view(partial(sets_view, model_admin)),
                 name="annotation_project_key_point_sets")]
