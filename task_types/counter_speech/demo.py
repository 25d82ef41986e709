"""The counter-speech demo: questions built from the IBM Debater Recorded Debating Dataset V4,
where each CON speech names the PRO speaker it responds to. Every motion there has two opposing
speeches, so a question has at most two candidates: the demo asks for two, and says so."""

from __future__ import annotations

from typing import TYPE_CHECKING

from annotation.task_types.base import DemoContext
from task_types.counter_speech.corpus import IBM_FOLDER, build_questions, ibm_speeches

if TYPE_CHECKING:
    from annotation.task_types.base import TaskType

SLUG = "counter-speech-demo"
# The release allows no more: two opposing speeches per motion, at most two candidates.
DEMO_MIN_CANDIDATES = 2


def demo_projects(task: TaskType, ctx: DemoContext) -> None:
    # Imported here: task types are loaded before the models and services that use them.
    from annotation.importers import ParsedItem
    from annotation.models import Project
    from annotation.services import items_import, items_remove_unused
    from annotation.services.projects import project_create

    folder = ctx.data_dir / IBM_FOLDER
    if not (folder / "speech-transcripts.csv").is_file():
        ctx.log(f"No counter-speech demo: {folder} was not found.")
        return
    records, report = build_questions(ibm_speeches(folder), min_candidates=DEMO_MIN_CANDIDATES, seed=2020)
    project = Project.objects.filter(slug=SLUG).first()
    created = project is None
    if project is None:
        project = project_create(name="Which speech answers this one? (IBM Debater speeches)", slug=SLUG,
                                 task_type=task.slug, options={"bonus_per_correct": "0.10"}, created_by=ctx.owner,
                                 redundancy=3, state=Project.State.ACTIVE)
    project.members.add(*ctx.annotators)
    parsed = [ParsedItem(i, task.clean_item(r)) for i, r in enumerate(records, 1)]
    # Questions an earlier build made (e.g. with speaker names unmasked) go, unless someone was
    # already given them: answers are never dropped.
    removed, kept = items_remove_unused(project=project, keep=[p.item.external_id for p in parsed])
    if removed or kept:
        ctx.log(f"Counter-speech demo: {removed} questions of an earlier build removed"
                + (f", {kept} kept because they were already handed out" if kept else "") + ".")
    existing = set(project.items.values_list("external_id", flat=True))
    fresh = [p for p in parsed if p.item.external_id not in existing]
    result = items_import(project=project, parsed=fresh) if fresh else None
    ctx.log(f"Demo project “{project.name}” ({'created' if created else 'already there'}): "
            f"{project.items.count()} items, {result.created if result else 0} new; "
            + "; ".join(report.lines()) + ".")
