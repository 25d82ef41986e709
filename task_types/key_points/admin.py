"""The admin page that imports the shared task's files (arguments, key points, optional labels)
into a key-point project, mounted under the project admin by the task-type registry
(``TaskType.admin_urls``)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import URLPattern, path, reverse

from annotation.importers import ImportFailed
from annotation.models import Project
from annotation.services.imports import files_import_upload
from annotation.uploads import upload_form_is_valid
from task_types.key_points.corpus import file_names
from task_types.key_points.services import key_points_project


class ImportForm(forms.Form):
    arguments = forms.FileField(required=False, help_text="arguments.csv: arg_id, argument, topic, stance (1 or -1).")
    key_points = forms.FileField(required=False, help_text="key_points.csv: key_point_id, key_point, topic, stance.")
    labels = forms.FileField(required=False, help_text="Optional labels.csv: arg_id, key_point_id, label (0 or 1), "
                                                       "kept as the items' gold.")
    subset = forms.ChoiceField(choices=[("dev", "dev"), ("train", "train")], initial="dev", required=False,
                               help_text="Without files: this subset of the KPA 2021 data in the shared data folder.")
    on_duplicate = forms.ChoiceField(
        choices=[("reject", "reject the import"), ("update", "update those items")], initial="reject",
        required=False, help_text="When an argument is already an item of this project.")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if bool(data.get("arguments")) != bool(data.get("key_points")):
            raise forms.ValidationError("Upload arguments.csv and key_points.csv together (or neither, to use the "
                                        "shared data's subset).")
        return data


def import_view(model_admin: Any, request: HttpRequest, pk: int) -> HttpResponse:
    """Queue the import as a job (a large arguments file takes longer than a request may) and
    follow it on the import job's page."""
    model_admin.require(request, "annotation.add_item")
    project = get_object_or_404(Project, pk=pk)
    form = ImportForm(request.POST or None, request.FILES or None)
    errors = None
    if request.method == "POST" and upload_form_is_valid(request, form):
        data = form.cleaned_data
        files = {key: data[key] for key in ("arguments", "key_points", "labels") if data.get(key)}
        subset = data.get("subset") or "dev"
        try:
            key_points_project(project=project)
            job = files_import_upload(project=project, name="corpus", files=files,
                                      options={"on_duplicate": data.get("on_duplicate") or "reject",
                                               **({} if files else {"subset": subset})},
                                      label=f"{file_names(subset)['arguments']} (shared data)", user=request.user)
        except ImportFailed as exc:
            errors = exc
        else:
            return redirect(reverse("admin:annotation_project_import_job", args=[project.pk, job.pk]))
    title = f"Import key-point data (KPA 2021 files) into {project}"
    return model_admin.tool_page(request, project, title, form, errors=errors, submit="Import")


def admin_urls(model_admin: Any) -> list[URLPattern]:
    view = model_admin.admin_site.admin_view
    return [path("<int:pk>/key-points/", view(partial(import_view, model_admin)), name="annotation_project_key_points")]
