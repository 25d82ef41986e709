"""The migration that stores each item's group fills it in for the items already there, as their
task type names it, so that gold questions imported before it are drawn by group at once."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)


def group_migration(executor) -> tuple[str, str]:
    # Found by name: migrations of this app are renumbered when branches merge.
    names = [key for key in executor.loader.graph.nodes if key[0] == "annotation" and key[1].endswith("item_group")]
    assert len(names) == 1
    return names[0]


def test_existing_items_get_their_group():
    executor = MigrationExecutor(connection)
    target = group_migration(executor)
    parent = next(p.key for p in executor.loader.graph.node_map[target].parents if p.key[0] == "annotation")
    executor.migrate([parent])
    old = executor.loader.project_state([parent]).apps
    Project = old.get_model("annotation", "Project")
    Item = old.get_model("annotation", "Item")
    pairwise = Project.objects.create(name="p", slug="p", task_type="pairwise")
    gone = Project.objects.create(name="g", slug="g", task_type="no-longer-installed")
    for n, topic in enumerate(["uniforms", "uniforms", "wind"]):
        Item.objects.create(project=pairwise, external_id=f"i{n}", payload={"topic": topic}, position=n, redundancy=3)
    Item.objects.create(project=gone, external_id="x", payload={"topic": "kept"}, position=0, redundancy=3)

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])
    new = executor.loader.project_state([target]).apps.get_model("annotation", "Item")
    got = {(i.project.slug, i.external_id): i.group for i in new.objects.select_related("project")}
    assert got == {("p", "i0"): "uniforms", ("p", "i1"): "uniforms", ("p", "i2"): "wind", ("g", "x"): None}
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
