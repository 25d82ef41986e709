"""The comprehension demo: a reading project over the IBM Debater Recorded Debating Dataset V4
(the iDebate points as titles), and a listening project over four short clips synthesised from
its transcripts (shipped in ``task_types/comprehension/data``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from annotation.task_types.base import DemoContext
from task_types.comprehension.corpus import (
    FIXTURES,
    IBM_FOLDER,
    fixture_questions,
    ibm_questions,
)

if TYPE_CHECKING:
    from annotation.task_types.base import TaskType

READING_SLUG = "comprehension-reading-demo"
LISTENING_SLUG = "comprehension-listening-demo"


def demo_projects(task: TaskType, ctx: DemoContext) -> None:
    # Imported here: task types are loaded before the models and services that use them.
    from annotation.importers import ParsedItem
    from annotation.models import Project
    from annotation.services import items_import
    from annotation.services.media.files import media_import_folder
    from annotation.services.projects import project_create

    folder = ctx.data_dir / IBM_FOLDER
    if (folder / "speech-transcripts.csv").is_file():
        reading_records, origin = ibm_questions(folder), f"the IBM Debater Recorded Debating Dataset V4 ({folder})"
    else:
        # Read, not heard: the reading project needs no audio files.
        reading_records = [{**r, "speech": {**r["speech"], "audio": ""}} for r in fixture_questions()]
        origin = f"the four built-in speeches; {folder} was not found"
    projects = [
        (READING_SLUG, "Which arguments did the speaker make? (reading, IBM Debater speeches)",
         {"mode": "reading"}, reading_records, origin),
        (LISTENING_SLUG, "Which arguments did the speaker make? (listening demo)",
         {"mode": "listening"}, fixture_questions(), "four clips synthesised from the IBM Debater transcripts"),
    ]
    for slug, name, options, records, source in projects:
        project = Project.objects.filter(slug=slug).first()
        created = project is None
        if project is None:
            project = project_create(name=name, slug=slug, task_type=task.slug, options=options,
                                     created_by=ctx.owner, redundancy=3, state=Project.State.ACTIVE)
        project.members.add(*ctx.annotators)
        if slug == LISTENING_SLUG:
            if not project.media_files.exists():
                media_import_folder(project=project, folder=FIXTURES)
        parsed = [ParsedItem(line=i, item=task.clean_item(r)) for i, r in enumerate(records, 1)]
        fresh = [p for p in parsed if not project.items.filter(external_id=p.item.external_id).exists()]
        result = items_import(project=project, parsed=fresh) if fresh else None
        ctx.log(f"Demo project “{project.name}” ({'created' if created else 'already there'}): "
                f"{project.items.count()} items from {source}, {result.created if result else 0} new.")
