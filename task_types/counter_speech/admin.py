"""The admin page that adds counter-speech questions, built from the IBM Debater speeches, to a
project, mounted under the project admin by the task-type registry (``TaskType.admin_urls``)."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import URLPattern, path, reverse

from annotation.importers import ImportFailed
from annotation.models import Project
from annotation.wording import count_of
from task_types.counter_speech.corpus import SETTINGS
from task_types.counter_speech.services import ibm_folder, questions_build


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
    model_admin.require(request, "annotation.add_item")
    project = get_object_or_404(Project, pk=pk)
    form = BuildForm(request.POST or None)
    errors = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            built = questions_build(project=project, folder=ibm_folder(data_dir=Path(settings.SHARED_DATA_DIR)),
                                    setting=data["setting"], min_candidates=data["min_candidates"],
                                    max_candidates=data["max_candidates"], sample=data["sample"], seed=data["seed"])
        except ImportFailed as exc:
            errors = exc
        else:
            summary = (f"{count_of(built.report.questions, 'question', 'questions')} built, {built.sampled} kept: "
                       f"{count_of(built.created, 'new item', 'new items')}, {built.existing} already in the project.")
            # Which minimum would build (more) questions: the IBM release offers 2 candidates, the
            # form's default asks for the paper's 3.
            advice = built.report.advice(setting=f"“{BuildForm.base_fields['min_candidates'].label}”")
            if built.report.questions:
                messages.success(request, summary + (f" To build more, {advice}." if advice else ""))
            else:
                why = "; ".join(built.report.lines())
                messages.warning(request, f"{summary} Why: {why}." + (f" To build questions, {advice}." if advice else ""))
            return redirect(reverse("admin:annotation_project_change", args=[project.pk]))
    title = f"Build counter-speech questions for {project} from the IBM Debater speeches"
    return model_admin.tool_page(request, project, title, form, errors=errors, submit="Build questions")


def admin_urls(model_admin: Any) -> list[URLPattern]:
    view = model_admin.admin_site.admin_view
    return [path("<int:pk>/counter-speech/", view(partial(build_view, model_admin)),
                 name="annotation_project_counter_speech")]
