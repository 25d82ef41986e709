"""The response-scoring demo: a transcript project over the SAMPLE prompt set shipped in
``data/`` (three prompts, four references each, twelve responses with ASR and manual
transcripts), all of it written for the demo: it is not the study's data."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from annotation.task_types.base import DemoContext

if TYPE_CHECKING:
    from annotation.task_types.base import TaskType

DATA = Path(__file__).resolve().parent / "data"
DEMO_SLUG = "response-scoring-demo"


def demo_project(task: TaskType, ctx: DemoContext) -> None:
    # Imported here: task types are loaded before the models and services that use them.
    from annotation.models import Project
    from annotation.services.projects import project_create
    from task_types.response_scoring.services import responses_import

    project = Project.objects.filter(slug=DEMO_SLUG).first()
    created = project is None
    if project is None:
        project = project_create(name="Content accuracy of spoken responses (SAMPLE prompts made up for the demo)",
                                 slug=DEMO_SLUG, task_type=task.slug,
                                 options={"presentation": "reading", "transcript": "manual"}, created_by=ctx.owner,
                                 redundancy=3, state=Project.State.ACTIVE)
    project.members.add(*ctx.annotators)
    new = responses_import(project=project, folder=DATA).items if not project.items.exists() else 0
    ctx.log(f"Demo project “{project.name}” ({'created' if created else 'already there'}): "
            f"{project.items.count()} responses from the SAMPLE prompt set, {new} new.")
