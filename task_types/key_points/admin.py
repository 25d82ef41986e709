"""The admin page that imports the shared task's files (arguments, key points, optional labels)
into a key-point project, mounted under the project admin by the task-type registry
(``TaskType.admin_urls``)."""

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
from task_types.key_points.corpus import (
    FOLDER,
    KeyPointCorpus,
    file_names,
    read_corpus,
    read_folder,
)
from task_types.key_points.services import corpus_import


class ImportForm(forms.Form):
    arguments = forms.FileField(required=False, help_text="arguments.csv: arg_id, argument, topic, stance (1 or -1).")
    key_points = forms.FileField(required=False, help_text="key_points.csv: key_point_id, key_point, topic, stance.")
    labels = forms.FileField(required=False, help_text="Optional labels.csv: arg_id, key_point_id, label (0 or 1), "
                                                       "kept as the items' gold.")
    subset = forms.ChoiceField(choices=[("dev", "dev"), ("train", "train")], initial="dev", required=False,
                               help_text="Without files: this subset of the KPA 2021 data in the shared data folder.")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if bool(data.get("arguments")) != bool(data.get("key_points")):
            raise forms.ValidationError("Upload arguments.csv and key_points.csv together (or neither, to use the "
                                        "shared data's subset).")
        return data


def _corpus(data: dict[str, Any]) -> tuple[KeyPointCorpus, str]:
    """The corpus of the uploaded files, or of the shared data's subset; and its arguments file's name."""
    if data.get("arguments"):
        names = {key: data[key].name for key in ("arguments", "key_points", "labels") if data.get(key)}
        corpus = read_corpus(data["arguments"].read(), data["key_points"].read(),
                             data["labels"].read() if data.get("labels") else None, names=names)
        return corpus, names["arguments"]
    subset = data.get("subset") or "dev"
    return read_folder(Path(settings.SHARED_DATA_DIR) / FOLDER, subset), file_names(subset)["arguments"]


def import_view(model_admin: Any, request: HttpRequest, pk: int) -> HttpResponse:
    model_admin.require(request, "annotation.add_item")
    project = get_object_or_404(Project, pk=pk)
    form = ImportForm(request.POST or None, request.FILES or None)
    errors = None
    if request.method == "POST" and form.is_valid():
        try:
            corpus, arguments_file = _corpus(form.cleaned_data)
            result = corpus_import(project=project, corpus=corpus, arguments_file=arguments_file)
        except ImportFailed as exc:
            errors = exc
        else:
            messages.success(request, f"{count_of(result.created, 'argument', 'arguments')} imported as items"
                             f" ({count_of(len(corpus.key_points), 'key point', 'key points')}, "
                             f"{count_of(len(corpus.labels), 'gold label', 'gold labels')}).")
            return redirect(reverse("admin:annotation_project_change", args=[project.pk]))
    title = f"Import key-point data (KPA 2021 files) into {project}"
    return model_admin.tool_page(request, project, title, form, errors=errors, submit="Import")


def admin_urls(model_admin: Any) -> list[URLPattern]:
    view = model_admin.admin_site.admin_view
    return [path("<int:pk>/key-points/", view(partial(import_view, model_admin)), name="annotation_project_key_points")]
