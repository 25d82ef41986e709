"""The admin page that adds key-point set comparisons, built from several systems' track 2
output, to a project; mounted under the project admin by the task-type registry."""

from __future__ import annotations

from functools import partial
from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import URLPattern, path, reverse

from analysis.methods.keypoint_track2 import Track2Error
from annotation.importers import ImportFailed, RowError
from annotation.models import Project
from annotation.uploads import upload_form_is_valid
from annotation.wording import count_of
from task_types.key_point_sets.build import key_point_sets_build
from task_types.key_points.system_files import ARGUMENT_COLUMNS, read_system, read_table
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
    model_admin.require(request, "annotation.add_item")
    project = get_object_or_404(Project, pk=pk)
    form = SetsForm(request.POST or None, request.FILES or None)
    errors = None
    if request.method == "POST" and upload_form_is_valid(request, form):
        data = form.cleaned_data
        try:
            arguments = read_table(data["arguments"].read(), ARGUMENT_COLUMNS, name="arguments.csv")
            systems = [read_system(data[f"name_{n}"], data[f"key_points_{n}"].read(), data[f"predictions_{n}"].read())
                       for n in range(1, SLOTS + 1) if data.get(f"name_{n}") and data.get(f"key_points_{n}")
                       and data.get(f"predictions_{n}")]
            built = key_point_sets_build(project=project, arguments=arguments, systems=systems, seed=data["seed"],
                                         min_score=data["min_score"], counts=data["counts"] or "topic", lift=ADMIN_LIFT)
        except Track2Error as exc:
            errors = ImportFailed([RowError(None, None, str(exc))])
        except ImportFailed as exc:
            errors = exc
        else:
            messages.success(request, f"{count_of(built.records, 'comparison', 'comparisons')} built: "
                             f"{count_of(built.created, 'new item', 'new items')}, {built.existing} already in the project.")
            return redirect(reverse("admin:annotation_project_change", args=[project.pk]))
    title = f"Build key-point set comparisons for {project} from systems' track 2 output"
    return model_admin.tool_page(request, project, title, form, errors=errors, submit="Build comparisons")


def admin_urls(model_admin: Any) -> list[URLPattern]:
    view = model_admin.admin_site.admin_view
    return [path("<int:pk>/key-point-sets/", view(partial(sets_view, model_admin)),
                 name="annotation_project_key_point_sets")]
