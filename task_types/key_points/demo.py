"""The key-point demo: one topic of the KPA 2021 dev set (both stances), its arguments as items
with their key points, and the release's labels as the items' gold."""

from __future__ import annotations

from typing import TYPE_CHECKING

from annotation.task_types.base import DemoContext
from task_types.key_points.corpus import FOLDER, KeyPointCorpus, read_folder

if TYPE_CHECKING:
    from annotation.task_types.base import TaskType

SLUG = "key-points-demo"
SUBSET = "dev"


def demo_corpus(corpus: KeyPointCorpus, topic: str | None = None) -> KeyPointCorpus:
    """The part of a corpus on one topic (the first one by default), both stances."""
    topic = topic or corpus.arguments[0]["topic"]
    arguments = [a for a in corpus.arguments if a["topic"] == topic]
    ids = {a["arg_id"] for a in arguments}
    return KeyPointCorpus(arguments=arguments, key_points=[k for k in corpus.key_points if k["topic"] == topic],
                          labels={pair: v for pair, v in corpus.labels.items() if pair[0] in ids})


def demo_project(task: TaskType, ctx: DemoContext) -> None:
    # Imported here: task types are loaded before the models and services that use them.
    from annotation.models import Project
    from annotation.services.projects import project_create
    from task_types.key_points.services import corpus_import

    folder = ctx.data_dir / FOLDER
    if not (folder / f"arguments_{SUBSET}.csv").is_file():
        ctx.log(f"No key-point demo: {folder} was not found.")
        return
    corpus = demo_corpus(read_folder(folder, SUBSET))
    project = Project.objects.filter(slug=SLUG).first()
    created = project is None
    if project is None:
        project = project_create(name=f"Which key points does the argument make? ({corpus.arguments[0]['topic']})",
                                 slug=SLUG, task_type=task.slug, created_by=ctx.owner, redundancy=3,
                                 state=Project.State.ACTIVE)
    project.members.add(*ctx.annotators)
    existing = set(project.items.values_list("external_id", flat=True))
    fresh = KeyPointCorpus(arguments=[a for a in corpus.arguments if a["arg_id"] not in existing],
                           key_points=corpus.key_points, labels=corpus.labels)
    made = corpus_import(project=project, corpus=fresh, arguments_file=f"arguments_{SUBSET}.csv").created \
        if fresh.arguments else 0
    ctx.log(f"Demo project “{project.name}” ({'created' if created else 'already there'}): "
            f"{project.items.count()} items, {made} new; {len(corpus.key_points)} key points, "
            f"{len(corpus.labels)} gold labels.")
