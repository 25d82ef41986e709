"""The project tool that builds counter-speech questions from the IBM Debater speeches: its
form (the admin's page and the API take the same fields) and the step that queues the build as an
import job (it reads the whole release)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms

from annotation.importers import ImportFailed, RowError
from annotation.models import ImportJob, Project
from annotation.services.imports import files_import_upload
from task_types.counter_speech.corpus import SETTINGS

LABEL = "IBM Debater speeches (shared data)"


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


def questions_build(*, project: Project, data: Mapping[str, Any], user: Any) -> ImportJob:
    """Queue the build with the form's cleaned ``data``; ImportFailed for a project of another type."""
    if project.task_type != "counter_speech":
        raise ImportFailed([RowError(None, "project", f"is a {project.get_task_type_display()} project, "
                                                      "not counter-speech")])
    return files_import_upload(project=project, name="questions", files={}, options=dict(data), label=LABEL,
                               user=user)
