"""The admin page that adds key-point set comparisons, built from several systems' track 2
output, to a project; mounted under the project admin by the task-type registry."""

from __future__ import annotations

from functools import partial
from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import URLPattern, path, reverse

from annotation.importers import ImportFailed, RowError
from annotation.models import Project
from annotation.services.imports import files_import_upload
from annotation.uploads import upload_form_is_valid
from task_types.key_point_sets.limits import SLUG
from task_types.key_points.track2 import ADMIN_LIFT, COUNT_CHOICES

SLOTS = 4


class SetsForm(forms.Form):
    arguments = forms.FileField(help_text="arguments.csv: arg_id, argument, topic, stance.")
    seed = forms.IntegerField(initial=0, help_text="Decides the order of the sets in each comparison and ties.")
    min_score = forms.FloatField(initial=0.0, help_text="An argument counts for its best key point only with at "
                                 "least this score.")
    counts = forms.ChoiceField(choices=COUNT_CHOICES, initial="topic", required=False, label="Key-point counts")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for n in range(1, SLOTS + 1):
            required = n <= 2
            self.fields[f"name_{n}"] = forms.CharField(required=required, max_length=100, label=f"System {n}: name")
            self.fields[f"key_points_{n}"] = forms.FileField(required=required, label=f"System {n}: key_points.csv")
            self.fields[f"predictions_{n}"] = forms.FileField(required=required, label=f"System {n}: predictions JSON")


def sets_view(model_admin: Any, request: HttpRequest, pk: int) -> HttpResponse:
    """The files go to an import job (an arguments file may take longer than a request), whose
    page follows it."""
    model_admin.require(request, "annotation.add_item")
    project = get_object_or_404(Project, pk=pk)
    form = SetsForm(request.POST or None, request.FILES or None)
    errors = None
    if request.method == "POST" and upload_form_is_valid(request, form):
        data = form.cleaned_data
        slots = [n for n in range(1, SLOTS + 1) if data.get(f"name_{n}") and data.get(f"key_points_{n}")
                 and data.get(f"predictions_{n}")]
        files = {"arguments": data["arguments"],
                 **{f"{kind}_{n}": data[f"{kind}_{n}"] for n in slots for kind in ("key_points", "predictions")}}
        try:
            if project.task_type != SLUG:
                raise ImportFailed([RowError(None, "project", f"is a {project.get_task_type_display()} project, "
                                                              "not key-point set ranking")])
            job = files_import_upload(
                project=project, name="sets", files=files, user=request.user,
                options={"systems": {str(n): data[f"name_{n}"] for n in slots}, "seed": data["seed"],
                         "min_score": data["min_score"], "counts": data["counts"] or "topic", "lift": ADMIN_LIFT})
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
