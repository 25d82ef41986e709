"""The migration that keeps the actor's name on audit entries fills it in for the entries already
written, and gives each withdrawn item the kind its withdrawal recorded, so that it can be undone."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)


def actor_name_migration(executor) -> tuple[str, str]:
    # Found by name: migrations of this app are renumbered when branches merge.
    names = [key for key in executor.loader.graph.nodes
             if key[0] == "annotation" and key[1].endswith("audit_actor_name")]
    assert len(names) == 1
    return names[0]


def test_old_entries_get_their_actors_name_and_withdrawn_items_their_kind():
    executor = MigrationExecutor(connection)
    target = actor_name_migration(executor)
    parent = next(p.key for p in executor.loader.graph.node_map[target].parents if p.key[0] == "annotation")
    executor.migrate([parent])
    old = executor.loader.project_state([parent]).apps
    User = old.get_model("auth", "User")
    Project = old.get_model("annotation", "Project")
    Item = old.get_model("annotation", "Item")
    AuditEntry = old.get_model("annotation", "AuditEntry")
    boss = User.objects.create(username="boss")
    project = Project.objects.create(name="p", slug="p", task_type="pairwise")
    gold = Item.objects.create(project=project, external_id="g", payload={}, redundancy=1, kind="withdrawn")
    plain = Item.objects.create(project=project, external_id="r", payload={}, redundancy=1, kind="withdrawn")
    now = timezone.now()
    AuditEntry.objects.create(at=now, actor=boss, project=project, action="item_withdraw", target="item g",
                              details={"item": gold.pk, "kind_before": "gold"})
    AuditEntry.objects.create(at=now, actor=None, project=project, action="item_withdraw", target="item r",
                              details={"item": plain.pk, "kind_before": "real"})

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])
    new = executor.loader.project_state([target]).apps
    names = dict(new.get_model("annotation", "AuditEntry").objects.values_list("target", "actor_name"))
    assert names == {"item g": "boss", "item r": ""}
    kinds = dict(new.get_model("annotation", "Item").objects.values_list("external_id", "kind_before_withdrawal"))
    assert kinds == {"g": "gold", "r": "real"}
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
