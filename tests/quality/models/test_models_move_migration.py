"""Quality control's models moved from the engine app to the quality app with their tables as
they were: rows written before the move are read through the quality app's models after it, and
the content types (with the permissions and admin history that point at them) follow the models,
both ways."""

import pytest
from django.utils import timezone

from tests.support.migrations import data_migration, migration_named

# A historic data migration, run back and forth over the whole schema: slow (docs/development.md).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_rows_and_content_types_move_to_the_quality_app_and_back():
    with data_migration("annotation", "_quality_models_to_quality_app") as step:
        old = step.before()
        User, Permission = old.get_model("auth", "User"), old.get_model("auth", "Permission")
        ContentType = old.get_model("contenttypes", "ContentType")
        Project, Item = old.get_model("annotation", "Project"), old.get_model("annotation", "Item")
        project = Project.objects.create(name="Study", slug="study", task_type="pairwise", redundancy=2)
        item = Item.objects.create(project=project, external_id="g1", payload={}, position=1, redundancy=2, kind="gold")
        worker = User.objects.create(username="worker")
        now = timezone.now()
        old.get_model("annotation", "WorkerStanding").objects.create(project=project, worker=worker, state="blocked",
                                                                      changed_at=now, gold_answered=4, gold_right=1)
        old.get_model("annotation", "GoldAnswer").objects.create(item=item, answer={"label": "a1"})
        rule = old.get_model("annotation", "QualityRule").objects.create(project=project, kind="too_fast",
                                                                         threshold=0.1)
        # As post_migrate left them on a database made before the move.
        standing_type, _ = ContentType.objects.get_or_create(app_label="annotation", model="workerstanding")
        permission = Permission.objects.create(content_type=standing_type, codename="view_workerstanding_x",
                                               name="Can view standings")

        new = step.after(also=[migration_named(app="quality", suffix="_quality_models_from_engine")])
        standing = new.get_model("quality", "WorkerStanding").objects.get(project_id=project.pk, worker_id=worker.pk)
        assert (standing.state, standing.gold_answered, standing.gold_right) == ("blocked", 4, 1)
        assert new.get_model("quality", "GoldAnswer").objects.get(item_id=item.pk).answer == {"label": "a1"}
        assert new.get_model("quality", "QualityRule").objects.get(pk=rule.pk).kind == "too_fast"
        moved = new.get_model("contenttypes", "ContentType").objects.get(pk=standing_type.pk)
        assert (moved.app_label, moved.model) == ("quality", "workerstanding")
        assert new.get_model("auth", "Permission").objects.get(pk=permission.pk).content_type_id == standing_type.pk

        back = step.before()
        assert back.get_model("contenttypes", "ContentType").objects.get(pk=standing_type.pk).app_label == "annotation"
        assert back.get_model("annotation", "WorkerStanding").objects.get(pk=standing.pk).state == "blocked"
