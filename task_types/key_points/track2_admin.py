"""The admin page that turns a system's track 2 output into key-point matching items (a seeded
sample of its top pairs) and, once they are annotated, scores the system as in track 1."""

from __future__ import annotations

import json
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
from annotation.services.imports import files_import_upload
from annotation.uploads import upload_form_is_valid
from task_types.key_points.models import PredictionEvaluation
from task_types.key_points.services import key_points_project
from task_types.key_points.system_files import ARGUMENT_COLUMNS, read_system, read_table
from task_types.key_points.track2 import ADMIN_LIFT, COUNT_CHOICES, SHOW, track2_score


class Track2Form(forms.Form):
    action = forms.ChoiceField(choices=[("build", "Build matching items from the sample"),
                                        ("score", "Score the system on the labels collected")], initial="build")
    system = forms.CharField(max_length=100, help_text="The system's name.")
    arguments = forms.FileField(help_text="arguments.csv: arg_id, argument, topic, stance.")
    key_points = forms.FileField(help_text="The system's key_points.csv: 5 to 10 per topic (the shared task's "
                                 "rule), unless Key-point counts says otherwise.")
    predictions = forms.FileField(help_text="The system's predictions JSON: {arg_id: {key_point_id: score}}.")
    sample = forms.IntegerField(required=False, min_value=1, help_text="Pairs to label, drawn from the top half "
                                "(empty: all of them, which the shared task's score needs).")
    seed = forms.IntegerField(initial=0, help_text="Decides ties and the sample.")
    show = forms.ChoiceField(choices=[(s, s) for s in SHOW], initial="all",
                             help_text="all: every key point of the system for the topic and stance; predicted: "
                                       "only the argument's best one (and any tied with it).")
    counts = forms.ChoiceField(choices=COUNT_CHOICES, initial="topic", required=False, label="Key-point counts",
                               help_text="Checked when building the items.")
    ties = forms.ChoiceField(choices=PredictionEvaluation.Ties.choices, initial=PredictionEvaluation.Ties.OFFICIAL,
                             required=False, label="Tied scores", help_text="How equal scores are settled when scoring.")


def track2_view(model_admin: Any, request: HttpRequest, pk: int) -> HttpResponse:
    """Build: the files go to an import job (an arguments file may take longer than a request),
    whose page follows it. Score: reads the files and scores the system at once."""
    model_admin.require(request, "annotation.add_item")
    project = get_object_or_404(Project, pk=pk)
    form = Track2Form(request.POST or None, request.FILES or None)
    errors = None
    if request.method == "POST" and upload_form_is_valid(request, form):
        data = form.cleaned_data
        try:
            key_points_project(project=project)
            if data["action"] == "score":
                arguments = read_table(data["arguments"], ARGUMENT_COLUMNS, name="arguments.csv")
                system = read_system(data["system"], data["key_points"].read(), data["predictions"].read())
                result = track2_score(project=project, arguments=arguments, system=system, ties=data["ties"] or "official")
                messages.success(request, f"{system.name}: strict mAP {result['strict']:.4f}, relaxed "
                                 f"{result['relaxed']:.4f}, mean {result['mean']:.4f}; "
                                 f"{result['kept_pairs_labelled']} of {result['kept_pairs']} kept pairs labelled. "
                                 + json.dumps({g['topic'] + ' ' + str(g['stance']): round(g['strict'], 4)
                                               for g in result["groups"]}))
            else:
                job = files_import_upload(
                    project=project, name="track2", user=request.user,
                    files={key: data[key] for key in ("arguments", "key_points", "predictions")},
                    options={"system": data["system"], "sample": data["sample"], "seed": data["seed"],
                             "show": data["show"], "counts": data["counts"] or "topic", "lift": ADMIN_LIFT})
                return redirect(reverse("admin:annotation_project_import_job", args=[project.pk, job.pk]))
        except Track2Error as exc:
            errors = ImportFailed([RowError(None, None, str(exc))])
        except ImportFailed as exc:
            errors = exc
        else:
            return redirect(reverse("admin:annotation_project_change", args=[project.pk]))
    title = f"Track 2: a system's key points as matching items in {project}, and its score"
    return model_admin.tool_page(request, project, title, form, errors=errors, submit="Run")


def admin_urls(model_admin: Any) -> list[URLPattern]:
    view = model_admin.admin_site.admin_view
    return [path("<int:pk>/key-points-track2/", view(partial(track2_view, model_admin)),
                 name="annotation_project_key_points_track2")]
