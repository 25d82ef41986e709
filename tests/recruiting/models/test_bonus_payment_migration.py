"""The migration that brings payment states keeps the ledger true: bonuses marked paid before it
are paid, the others owed."""

import pytest
from django.utils import timezone

from tests.support.migrations import data_migration

# A historic data migration, run back and forth over the whole schema: slow (docs/development.md).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_bonuses_paid_before_are_paid_and_the_rest_owed():
    with data_migration("annotation", "_bonus_payment_state") as step:
        old = step.before()
        user = old.get_model("auth", "User").objects.create(username="w")
        project = old.get_model("annotation", "Project").objects.create(name="P", slug="p", task_type="pairwise")
        Bonus = old.get_model("annotation", "Bonus")
        paid = Bonus.objects.create(project=project, worker=user, amount="1.00", reason="r", paid_at=timezone.now())
        owed = Bonus.objects.create(project=project, worker=user, amount="2.00", reason="r")

        new = step.after().get_model("annotation", "Bonus")
        assert new.objects.get(pk=paid.pk).payment_state == "paid"
        assert new.objects.get(pk=owed.pk).payment_state == "owed"
