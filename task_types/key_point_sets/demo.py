"""The key-point set ranking demo: one dev topic of the KPA 2021 data and two systems, both
clearly synthetic: "expert key points" (the dev key points, with the dev labels as scores) and
"synthetic: shortest arguments" (the five shortest arguments of each stance taken as key points,
scored by word overlap). Neither is a shared-task submission."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pandas as pd

from annotation.task_types.base import DemoContext
from task_types.key_points.corpus import FOLDER, file_names
from task_types.key_points.system_files import SystemOutput

if TYPE_CHECKING:
    from annotation.task_types.base import TaskType

SLUG = "key-point-sets-demo"
SUBSET = "dev"
TOPIC = "We should abandon the use of school uniform"
EXPERT = "synthetic: expert key points scored by the labels"
SHORTEST = "synthetic: shortest arguments scored by word overlap"


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def demo_systems(arguments: pd.DataFrame, key_points: pd.DataFrame, labels: pd.DataFrame) -> list[SystemOutput]:
    expert_scores: dict[str, dict[str, float]] = {}
    for arg_id, kp, label in zip(labels["arg_id"], labels["key_point_id"], labels["label"], strict=True):
        expert_scores.setdefault(str(arg_id), {})[str(kp)] = float(label)
    rows, overlap = [], {}
    for (topic, stance), group in arguments.groupby(["topic", "stance"], sort=True):
        shortest = group.assign(n=group["argument"].str.len()).sort_values(["n", "arg_id"]).head(5)
        for i, text in enumerate(shortest["argument"]):
            rows.append({"key_point_id": f"short_{stance}_{i}", "key_point": text, "topic": topic, "stance": stance})
        for arg_id, text in zip(group["arg_id"], group["argument"], strict=True):
            words = _words(text)
            overlap[str(arg_id)] = {f"short_{stance}_{i}": len(words & _words(kp)) / max(len(words | _words(kp)), 1)
                                    for i, kp in enumerate(shortest["argument"])}
    return [SystemOutput(EXPERT, key_points, expert_scores), SystemOutput(SHORTEST, pd.DataFrame(rows), overlap)]


def demo_project(task: TaskType, ctx: DemoContext) -> None:
    # Imported here: task types are loaded before the models and services that use them.
    from annotation.models import Project
    from annotation.services.projects import project_create
    from task_types.key_point_sets.build import key_point_sets_build

    folder, names = ctx.data_dir / FOLDER, file_names(SUBSET)
    if not (folder / names["arguments"]).is_file():
        ctx.log(f"No key-point set ranking demo: {folder} was not found.")
        return
    arguments = pd.read_csv(folder / names["arguments"])
    arguments = arguments[arguments["topic"] == TOPIC]
    key_points = pd.read_csv(folder / names["key_points"])
    key_points = key_points[key_points["topic"] == TOPIC]
    labels = pd.read_csv(folder / names["labels"])
    project = Project.objects.filter(slug=SLUG).first()
    created = project is None
    if project is None:
        project = project_create(name="Which key points summarise best? (KPA 2021 dev, two synthetic systems)",
                                 slug=SLUG, task_type=task.slug, created_by=ctx.owner, redundancy=3,
                                 state=Project.State.ACTIVE)
    project.members.add(*ctx.annotators)
    built = key_point_sets_build(project=project, arguments=arguments,
                                 systems=demo_systems(arguments, key_points, labels), seed=2021)
    ctx.log(f"Demo project “{project.name}” ({'created' if created else 'already there'}): "
            f"{project.items.count()} items, {built.created} new.")
