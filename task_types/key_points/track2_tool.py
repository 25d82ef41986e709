"""The project tool for a system's track 2 output: its form (the admin's page and the API take
the same fields), and its two steps: *build* queues an import job that turns a seeded sample of
the system's top pairs into key-point matching items; *score* reads the files and scores the
system on the labels collected, at once (as track 1 did)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django import forms

from annotation.models import ImportJob, Project
from annotation.services.imports import files_import_upload
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


@dataclass(frozen=True)
class Track2Outcome:
    system: str
    # The build's import job, or the score's result.
    job: ImportJob | None = None
    score: dict[str, Any] | None = None


def track2_run(*, project: Project, data: Mapping[str, Any], user: Any) -> Track2Outcome:
    """Build or score with the form's cleaned ``data``; raises ImportFailed (bad files, a project
    of another type) or Track2Error (the system's output breaks the shared task's rules)."""
    key_points_project(project=project)
    if data["action"] == "score":
        arguments = read_table(data["arguments"], ARGUMENT_COLUMNS, name="arguments.csv")
        system = read_system(data["system"], data["key_points"].read(), data["predictions"].read())
        result = track2_score(project=project, arguments=arguments, system=system, ties=data["ties"] or "official")
        return Track2Outcome(system=system.name, score=result)
    job = files_import_upload(
        project=project, name="track2", user=user,
        files={key: data[key] for key in ("arguments", "key_points", "predictions")},
        options={"system": data["system"], "sample": data["sample"], "seed": data["seed"],
                 "show": data["show"], "counts": data["counts"] or "topic", "lift": ADMIN_LIFT})
    return Track2Outcome(system=data["system"], job=job)
