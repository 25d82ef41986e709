"""The project tool that imports the shared task's files (arguments, key points, optional
labels) into a key-point project: its form (the admin's page and the API take the same fields)
and the step that queues the import as a job (a large arguments file takes longer than a request
may)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms

from annotation.models import ImportJob, Project
from annotation.services.imports import files_import_upload
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


def corpus_import(*, project: Project, data: Mapping[str, Any], user: Any) -> ImportJob:
    """Queue the import of the form's cleaned ``data``; ImportFailed for a project of another type."""
    files = {key: data[key] for key in ("arguments", "key_points", "labels") if data.get(key)}
    subset = data.get("subset") or "dev"
    key_points_project(project=project)
    return files_import_upload(project=project, name="corpus", files=files,
                               options={"on_duplicate": data.get("on_duplicate") or "reject",
                                        **({} if files else {"subset": subset})},
                               label=f"{file_names(subset)['arguments']} (shared data)", user=user)
