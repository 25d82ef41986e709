"""The pairwise demo: all pairs of eight arguments of each stance of one UKPConvArg1 topic (or of
the built-in sample of one stance when the shared data is missing)."""

from __future__ import annotations

from pathlib import Path

from annotation.models import Project
from annotation.services.projects import project_create
from annotation.task_types.base import DemoContext
from task_types.pairwise.arguments_file import parse_arguments
from task_types.pairwise.corpus import arguments_import, pairs_generate
from task_types.pairwise.models import Topic

# The demo: two stances of one UKPConvArg1 topic (or the built-in sample of one of them).
DEMO_TOPICS = ("is-the-school-uniform-a-good-or-bad-idea-_good", "is-the-school-uniform-a-good-or-bad-idea-_bad")
DEMO_FIXTURE = Path(__file__).resolve().parent / "data" / "demo_arguments.tsv"
DEMO_SLUG = "ukpconvarg-demo"
DEMO_ARGUMENTS = 8  # arguments per topic; all their pairs are items
# What a marketplace worker agrees to before the first item of the demo.
DEMO_CONSENT = (
    "This demo study stores your answers, the time you spend on each item and your marketplace "
    "ids, for research on argument convincingness. It takes about 10 minutes; you may stop at any "
    "time. The arguments come from the UKPConvArg1 corpus (CC BY-SA 4.0)."
)


def demo_project(ctx: DemoContext, *, slug: str) -> None:
    """Create (idempotently) the demo project of the task type ``slug``."""
    source = ctx.data_dir / "ukpconvarg1" / "arguments.tsv"
    topics: tuple[str, ...]
    if source.is_file():
        topics, origin = DEMO_TOPICS, f"UKPConvArg1 ({source})"
    else:
        origin = f"the built-in sample ({DEMO_FIXTURE.name}); {source} was not found"
        source, topics = DEMO_FIXTURE, DEMO_TOPICS[:1]
    arguments_import(rows=[r for r in parse_arguments(source.read_bytes()) if r.topic in topics])
    project = Project.objects.filter(slug=DEMO_SLUG).first()
    created = project is None
    if project is None:
        project = project_create(name="Which argument is more convincing? (UKPConvArg demo)", slug=DEMO_SLUG,
                                 task_type=slug, created_by=ctx.owner, redundancy=3, state=Project.State.ACTIVE,
                                 join_code="DEMO-2016", external_entry=True, panel="prolific", completion_code="C1A2B3D4",
                                 consent_text=DEMO_CONSENT)
    project.members.add(*ctx.annotators)
    made = 0
    for topic in Topic.objects.filter(external_id__in=topics):
        result = pairs_generate(project=project, topic=topic, seed=2016, min_words=10, max_words=110,
                                sample=DEMO_ARGUMENTS)
        made += result.imported.created
    ctx.log(f"Demo project “{project.name}” ({'created' if created else 'already there'}): "
            f"{project.items.count()} items from {origin}, {made} new. Join code: {project.join_code}; "
            f"marketplace link: /start/{project.slug}/?PROLIFIC_PID=<worker id>")
