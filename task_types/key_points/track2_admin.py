"""The admin page that turns a system's track 2 output into key-point matching items (a seeded
sample of its top pairs) and, once they are annotated, scores the system as in track 1."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import URLPattern, path, reverse

from analysis.methods.keypoint_track2 import Track2Error
from annotation.importers import ImportFailed, RowError
from annotation.models import Project
from annotation.uploads import upload_form_is_valid
from task_types.key_points.track2_tool import Track2Form, track2_run


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
            outcome = track2_run(project=project, data=data, user=request.user)
            if outcome.job is not None:
                return redirect(reverse("admin:annotation_project_import_job", args=[project.pk, outcome.job.pk]))
            result = outcome.score or {}
            messages.success(request, f"{outcome.system}: strict mAP {result['strict']:.4f}, relaxed "
                             f"{result['relaxed']:.4f}, mean {result['mean']:.4f}; "
                             f"{result['kept_pairs_labelled']} of {result['kept_pairs']} kept pairs labelled. "
                             + json.dumps({g['topic'] + ' ' + str(g['stance']): round(g['strict'], 4)
                                           for g in result["groups"]}))
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
