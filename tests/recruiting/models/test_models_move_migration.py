"""Recruiting's models moved from the engine app to the recruiting app with their tables as they
were: rows written before the move are read through the recruiting app's models after it, and the
content types (with the permissions and admin history that point at them) follow the models,
both ways."""

from decimal import Decimal

import pytest

from tests.support.migrations import data_migration, migration_named

# A historic data migration, run back and forth over the whole schema: slow (docs/development.md).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_rows_and_content_types_move_to_the_recruiting_app_and_back():
    with data_migration("annotation", "_recruiting_models_to_recruiting_app") as step:
        old = step.before()
        User, Permission = old.get_model("auth", "User"), old.get_model("auth", "Permission")
        ContentType = old.get_model("contenttypes", "ContentType")
        project = old.get_model("annotation", "Project").objects.create(name="Study", slug="study",
                                                                          task_type="pairwise", redundancy=2)
        worker = User.objects.create(username="prolific+w1")
        bonus = old.get_model("annotation", "Bonus").objects.create(project=project, worker=worker,
                                                                    amount=Decimal("0.50"), currency="GBP",
                                                                    reason="gold")
        study = old.get_model("annotation", "ProlificStudy").objects.create(project=project,
                                                                            study_id="64f1c0ffee0123456789abcd")
        # As post_migrate left them on a database made before the move.
        bonus_type, _ = ContentType.objects.get_or_create(app_label="annotation", model="bonus")
        permission = Permission.objects.create(content_type=bonus_type, codename="view_bonus_x",
                                               name="Can view bonuses")

        new = step.after(also=[migration_named(app="recruiting", suffix="_recruiting_models_from_engine")])
        moved_bonus = new.get_model("recruiting", "Bonus").objects.get(pk=bonus.pk)
        assert (moved_bonus.amount, moved_bonus.currency, moved_bonus.worker_id) == (Decimal("0.50"), "GBP", worker.pk)
        assert new.get_model("recruiting", "ProlificStudy").objects.get(pk=study.pk).study_id == "64f1c0ffee0123456789abcd"
        moved = new.get_model("contenttypes", "ContentType").objects.get(pk=bonus_type.pk)
        assert (moved.app_label, moved.model) == ("recruiting", "bonus")
        assert new.get_model("auth", "Permission").objects.get(pk=permission.pk).content_type_id == bonus_type.pk

        back = step.before(also=[("recruiting", None)])
        assert back.get_model("contenttypes", "ContentType").objects.get(pk=bonus_type.pk).app_label == "annotation"
        assert back.get_model("annotation", "Bonus").objects.get(pk=bonus.pk).reason == "gold"
