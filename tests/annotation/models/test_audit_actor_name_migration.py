"""The migration that keeps the actor's name on audit entries fills it in for the entries already
written, and gives each withdrawn item the kind its withdrawal recorded, so that it can be undone."""

import pytest
from django.utils import timezone

from tests.support.migrations import data_migration

# A historic data migration, run back and forth over the whole schema: slow (docs/development.md).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_old_entries_get_their_actors_name_and_withdrawn_items_their_kind():
    with data_migration("annotation", "_audit_actor_name") as step:
        old = step.before()
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

        new = step.after()
        names = dict(new.get_model("annotation", "AuditEntry").objects.values_list("target", "actor_name"))
        assert names == {"item g": "boss", "item r": ""}
        kinds = dict(new.get_model("annotation", "Item").objects.values_list("external_id", "kind_before_withdrawal"))
        assert kinds == {"g": "gold", "r": "real"}
