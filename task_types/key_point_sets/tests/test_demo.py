"""The ranking demo: a KPA 2021 dev topic with two synthetic systems, one comparison per stance,
built once however often it runs."""

from pathlib import Path

import pytest
from django.conf import settings

from annotation.models import Project
from annotation.task_types import get_task_type
from task_types.key_point_sets.demo import EXPERT, SHORTEST, SLUG
from tests.factories import demo_context

pytestmark = pytest.mark.django_db
DATA = Path(settings.SHARED_DATA_DIR)


@pytest.mark.skipif(not (DATA / "kpa_2021" / "arguments_dev.csv").is_file(), reason="../shared/data/kpa_2021 absent")
def test_the_demo_compares_two_synthetic_systems_per_stance():
    task = get_task_type("key_point_sets")
    ctx = demo_context(DATA)
    task.demo(ctx)
    task.demo(ctx)
    project = Project.objects.get(slug=SLUG)
    items = list(project.items.all())
    assert len(items) == 2 and {i.payload["stance"] for i in items} == {1, -1}
    for item in items:
        assert set(item.gold["systems"].values()) == {EXPERT, SHORTEST}
        assert all(len(s["key_points"]) == 5 for s in item.payload["sets"])
