"""The key-point type's pages: uploading a system's predictions and following their evaluation,
and the shared task's files (the imported corpus, and a report run's derived labels) as zips."""

from __future__ import annotations

import io
import zipfile

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from analysis.models import AnalysisRun
from annotation.models import Project
from annotation.uploads import upload_form_is_valid
from annotation.views.permissions import permission_required
from annotation.views.request_types import HtmxRequest
from task_types.key_points.corpus import (
    ARGUMENT_COLUMNS,
    KEY_POINT_COLUMNS,
    LABEL_COLUMNS,
    csv_text,
)
from task_types.key_points.evaluation import evaluation_cancel, evaluation_upload
from task_types.key_points.models import PredictionEvaluation
from task_types.key_points.selectors import corpus_files
from task_types.key_points.services import SLUG

REPORT = "key_points"


class PredictionsForm(forms.Form):
    predictions = forms.FileField(help_text="A JSON object {\"arg_id\": {\"key_point_id\": score, …}, …}, "
                                            "as the shared task's track 1 asked for.")
    ties = forms.ChoiceField(choices=PredictionEvaluation.Ties.choices, initial=PredictionEvaluation.Ties.OFFICIAL,
                             required=False, label="Tied scores", help_text="How equal scores are settled. The first gives the "
                             "shared task's figures; the second depends on the files alone.")


def _project(slug: str) -> Project:
    project = get_object_or_404(Project, slug=slug)
    if project.task_type != SLUG:
        raise Http404(f"{project} is not a key-point project")
    return project


def _zip(files: dict[str, str], name: str) -> HttpResponse:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for filename, text in files.items():
            archive.writestr(filename, text)
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@permission_required("annotation.view_project")
def evaluations(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the upload form and the project's evaluations; POST: score an uploaded file."""
    project = _project(slug)
    form = PredictionsForm(request.POST or None, request.FILES or None)
    if request.method == "POST":
        if not request.user.has_perm("analysis.add_analysisrun"):
            messages.error(request, "You need the permission to start analyses to evaluate predictions.")
        elif upload_form_is_valid(request, form):
            upload = form.cleaned_data["predictions"]
            evaluation = evaluation_upload(project=project, upload=upload, filename=upload.name or "",
                                           size=upload.size or 0, user=request.user,
                                           ties=form.cleaned_data["ties"] or PredictionEvaluation.Ties.OFFICIAL)
            return redirect("key-points-evaluation", slug=slug, pk=evaluation.pk)
    shown = PredictionEvaluation.objects.filter(project=project)[:50]
    return render(request, "key_points/evaluations.html", {"project": project, "form": form, "evaluations": shown})


@permission_required("annotation.view_project")
def evaluation(request: HtmxRequest, slug: str, pk: int) -> HttpResponse:
    """One evaluation: its progress while it runs (the partial polls itself), then its result."""
    project = _project(slug)
    job = get_object_or_404(PredictionEvaluation, pk=pk, project=project)
    ctx = {"project": project, "job": job, "result": job.result or {}}
    if request.htmx:
        return render(request, "key_points/evaluation_status.html", ctx)
    return render(request, "key_points/evaluation.html", ctx)


@permission_required("analysis.add_analysisrun")
@require_POST
def evaluation_stop(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    job = get_object_or_404(PredictionEvaluation, pk=pk, project=_project(slug))
    try:
        evaluation_cancel(job=job, user=request.user)
    except ValueError as exc:
        messages.info(request, str(exc))
    return redirect("key-points-evaluation", slug=slug, pk=pk)


@permission_required("annotation.export_annotations")
def corpus_zip(request: HttpRequest, slug: str) -> HttpResponse:
    """The imported arguments, key points and gold labels, as the shared task's files."""
    project = _project(slug)
    return _zip(corpus_files(project=project), f"{slug}-kpa.zip")


@permission_required("annotation.export_annotations")
def labels_zip(request: HttpRequest, slug: str, run_id: int) -> HttpResponse:
    """A report run's labels.csv with the arguments.csv and key_points.csv it labels."""
    run = get_object_or_404(AnalysisRun, pk=run_id, project__slug=slug, kind=REPORT, status=AnalysisRun.Status.DONE)
    result = run.result or {}
    files = {"arguments.csv": csv_text(ARGUMENT_COLUMNS, result.get("arguments", [])),
             "key_points.csv": csv_text(KEY_POINT_COLUMNS, result.get("key_points", [])),
             "labels.csv": csv_text(LABEL_COLUMNS, result.get("labels", []))}
    return _zip(files, f"{slug}-run{run.pk}-labels.zip")
