"""The comprehension demo: the IBM release's reading questions and four synthesised clips, or the
four built-in speeches when the shared data is missing."""

import pytest

from annotation.models import Item, Project
from annotation.task_types import get_task_type
from tests.factories import demo_context

pytestmark = pytest.mark.django_db


def test_demo_from_the_shared_data(shared_data):
    ctx = demo_context(shared_data)
    get_task_type("comprehension").demo(ctx)
    log = "\n".join(ctx.log.lines)
    assert "150 items from the IBM Debater" in log and "4 items from four clips" in log
    listening = Project.objects.get(slug="comprehension-listening-demo")
    assert listening.media_files.count() == 4 and listening.options["mode"] == "listening"


def test_demo_falls_back_to_the_built_in_speeches(tmp_path):
    ctx = demo_context(tmp_path / "missing")
    get_task_type("comprehension").demo(ctx)
    assert "4 items from the four built-in speeches" in "\n".join(ctx.log.lines)
    assert Item.objects.count() == 4 + 4
