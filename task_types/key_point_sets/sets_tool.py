"""The project tool that builds key-point set comparisons from several systems' track 2 output:
its form (the admin's page and the API take the same fields: up to four systems, each a name, a
key_points.csv and a predictions JSON) and the step that queues the build as an import job (an
arguments file may take longer than a request)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms

from annotation.importers import ImportFailed, RowError
from annotation.models import ImportJob, Project
from annotation.services.imports import files_import_upload
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


def sets_build(*, project: Project, data: Mapping[str, Any], user: Any) -> ImportJob:
    """Queue the build with the form's cleaned ``data`` (the systems whose three fields are all
    given); ImportFailed for a project of another type."""
    slots = [n for n in range(1, SLOTS + 1) if data.get(f"name_{n}") and data.get(f"key_points_{n}")
             and data.get(f"predictions_{n}")]
    files = {"arguments": data["arguments"],
             **{f"{kind}_{n}": data[f"{kind}_{n}"] for n in slots for kind in ("key_points", "predictions")}}
    if project.task_type != SLUG:
        raise ImportFailed([RowError(None, "project", f"is a {project.get_task_type_display()} project, "
                                                      "not key-point set ranking")])
    return files_import_upload(
        project=project, name="sets", files=files, user=user,
        options={"systems": {str(n): data[f"name_{n}"] for n in slots}, "seed": data["seed"],
                 "min_score": data["min_score"], "counts": data["counts"] or "topic", "lift": ADMIN_LIFT})
