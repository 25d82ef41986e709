"""The migration that brings payment states keeps the ledger true: bonuses marked paid before it
are paid, the others owed."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)


def test_bonuses_paid_before_are_paid_and_the_rest_owed():
    executor = MigrationExecutor(connection)
    # Found by name: migrations of this app are renumbered when branches merge.
    target = next(k for k in executor.loader.graph.nodes if k[0] == "annotation" and k[1].endswith("bonus_payment_state"))
    parent = next(p.key for p in executor.loader.graph.node_map[target].parents if p.key[0] == "annotation")
    executor.migrate([parent])
    old = executor.loader.project_state([parent]).apps
    user = old.get_model("auth", "User").objects.create(username="w")
    project = old.get_model("annotation", "Project").objects.create(name="P", slug="p", task_type="pairwise")
    Bonus = old.get_model("annotation", "Bonus")
    paid = Bonus.objects.create(project=project, worker=user, amount="1.00", reason="r", paid_at=timezone.now())
    owed = Bonus.objects.create(project=project, worker=user, amount="2.00", reason="r")

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])
    new = executor.loader.project_state([target]).apps.get_model("annotation", "Bonus")
    assert new.objects.get(pk=paid.pk).payment_state == "paid"
    assert new.objects.get(pk=owed.pk).payment_state == "owed"
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
