"""Loading the counter-speech demo again over an earlier build of its questions."""

import pytest

from annotation.models import Item, Project
from annotation.services import assignment_next
from annotation.task_types import get_task_type
from tests.factories import ItemFactory, UserFactory, demo_context


@pytest.mark.django_db
@pytest.mark.shared_data
def test_reloading_the_demo_replaces_questions_of_an_earlier_build_but_keeps_answered_ones(shared_data):
    task = get_task_type("counter_speech")
    ctx = demo_context(shared_data)
    task.demo(ctx)
    project = Project.objects.get(slug="counter-speech-demo")
    built = set(project.items.values_list("external_id", flat=True))
    example = project.items.first().payload
    # Two questions as an earlier build named them (their ids held a speaker's name).
    unused = ItemFactory(project=project, external_id="old-build-unused", payload=example)
    handed_out = ItemFactory(project=project, external_id="old-build-handed-out", payload=example)
    # Only the old question is open, so the worker is handed it.
    project.items.exclude(pk=handed_out.pk).update(n_active=project.redundancy)
    worker = UserFactory()
    project.members.add(worker)
    assert assignment_next(project=project, worker=worker).assignment.item_id == handed_out.pk
    project.items.exclude(pk=handed_out.pk).update(n_active=0)

    task.demo(ctx)

    ids = set(project.items.values_list("external_id", flat=True))
    assert not Item.objects.filter(pk=unused.pk).exists()
    assert ids == built | {"old-build-handed-out"}
    assert any("1 questions of an earlier build removed, 1 kept" in line for line in ctx.log.lines)
