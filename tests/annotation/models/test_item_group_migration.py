"""The migration that stores each item's group fills it in for the items already there, as their
task type names it, so that gold questions imported before it are drawn by group at once."""

import pytest

from tests.support.migrations import data_migration

pytestmark = pytest.mark.django_db(transaction=True)


def test_existing_items_get_their_group():
    with data_migration("annotation", "_item_group") as step:
        old = step.before()
        Project = old.get_model("annotation", "Project")
        Item = old.get_model("annotation", "Item")
        pairwise = Project.objects.create(name="p", slug="p", task_type="pairwise")
        gone = Project.objects.create(name="g", slug="g", task_type="no-longer-installed")
        for n, topic in enumerate(["uniforms", "uniforms", "wind"]):
            Item.objects.create(project=pairwise, external_id=f"i{n}", payload={"topic": topic}, position=n,
                                redundancy=3)
        Item.objects.create(project=gone, external_id="x", payload={"topic": "kept"}, position=0, redundancy=3)

        new = step.after().get_model("annotation", "Item")
        got = {(i.project.slug, i.external_id): i.group for i in new.objects.select_related("project")}
        assert got == {("p", "i0"): "uniforms", ("p", "i1"): "uniforms", ("p", "i2"): "wind", ("g", "x"): None}
