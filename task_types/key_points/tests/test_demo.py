"""The key-point demo: one dev topic of the KPA 2021 data, both stances, the demo annotators as
members; loading it again adds nothing."""

from __future__ import annotations

import pytest

from annotation.models import Project
from annotation.task_types import get_task_type
from task_types.key_points.corpus import read_folder
from tests.factories import demo_context

pytestmark = [pytest.mark.django_db, pytest.mark.shared_data]


def test_the_demo_loads_one_dev_topic_with_both_stances(shared_data):
    task = get_task_type("key_points")
    ctx = demo_context(shared_data)
    task.demo(ctx)
    project = Project.objects.get(slug="key-points-demo")
    dev = read_folder(shared_data / "kpa_2021", "dev")
    topic = dev.arguments[0]["topic"]
    expected = [a["arg_id"] for a in dev.arguments if a["topic"] == topic]
    assert list(project.items.order_by("position").values_list("external_id", flat=True)) == expected
    assert {item.payload["stance"] for item in project.items.all()} == {1, -1}
    assert set(project.members.all()) >= set(ctx.annotators)
    task.demo(ctx)
    assert project.items.count() == len(expected)
    assert "0 new" in ctx.log.lines[-1]
