"""The admin page that adds counter-speech questions, built from the IBM Debater speeches, to a
project, mounted under the project admin by the task-type registry (``TaskType.admin_urls``)."""

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
from task_types.counter_speech.corpus import SETTINGS


class BuildForm(forms.Form):
    setting = forms.ChoiceField(choices=[(s, s) for s in SETTINGS], initial="all",
                                help_text="Which counters count: all, or explicit or implicit ones only.")
    min_candidates = forms.IntegerField(min_value=2, max_value=5, initial=3, label="Minimum candidates",
                                        help_text="Leave out questions with fewer candidates (the paper: 3; "
                                                  "the IBM release allows 2).")
    max_candidates = forms.IntegerField(min_value=2, max_value=5, initial=5, help_text="The paper: 5.")
    sample = forms.IntegerField(required=False, min_value=1, initial=60,
                                help_text="Keep this many questions, drawn at random (the paper: 60); empty for all.")
    seed = forms.IntegerField(initial=2020, help_text="Decides the sample and each question's order of candidates.")


def build_view(model_admin: Any, request: HttpRequest, pk: int) -> HttpResponse:
    """Queue the build as an import job (it reads the whole release) and follow it on the job's
    page: new questions, those already in the project, or why none was built."""
    model_admin.require(request, "annotation.add_item")
    project = get_object_or_404(Project, pk=pk)
    form = BuildForm(request.POST or None)
    errors = None
    if request.method == "POST" and form.is_valid():
        try:
            if project.task_type != "counter_speech":
                raise ImportFailed([RowError(None, "project", f"is a {project.get_task_type_display()} project, "
                                                              "not counter-speech")])
            job = files_import_upload(project=project, name="questions", files={}, options=dict(form.cleaned_data),
                                      label="IBM Debater speeches (shared data)", user=request.user)
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
