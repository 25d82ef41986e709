"""The migration that brings the standing options takes the answers of workers already blocked in
a project out of its data, as a block does from then on: each item they answered gets one more
slot, and one audit entry per project says how many answers left."""

import pytest
from django.utils import timezone

from tests.support.migrations import data_migration

# A historic data migration, run back and forth over the whole schema: slow (docs/development.md).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_workers_blocked_before_the_option_have_their_answers_leave_the_data():
    with data_migration("annotation", "_standing_options") as step:
        old = step.before()
        User = old.get_model("auth", "User")
        Project, Item = old.get_model("annotation", "Project"), old.get_model("annotation", "Item")
        Assignment = old.get_model("annotation", "Assignment")
        WorkerStanding = old.get_model("annotation", "WorkerStanding")
        project = Project.objects.create(name="Study", slug="study", task_type="pairwise", redundancy=2)
        items = [Item.objects.create(project=project, external_id=f"i{n}", payload={}, position=n, redundancy=2)
                 for n in range(3)]
        now = timezone.now()
        cheater, honest = User.objects.create(username="cheater"), User.objects.create(username="honest")
        for worker, answered in ((cheater, items[:2]), (honest, items)):
            for item in answered:
                Assignment.objects.create(item=item, project=project, worker=worker, status="submitted",
                                          assigned_at=now, expires_at=now + timezone.timedelta(minutes=30),
                                          submitted_at=now)
                Item.objects.filter(pk=item.pk).update(n_active=item.n_active + 1)
                item.n_active += 1
        WorkerStanding.objects.create(project=project, worker=cheater, state="blocked", changed_at=now)
        WorkerStanding.objects.create(project=project, worker=honest, state="active", changed_at=now)

        new = step.after()
        assert list(new.get_model("annotation", "Item").objects.filter(project_id=project.pk).order_by("position")
                    .values_list("redundancy", flat=True)) == [3, 3, 2]
        entry = new.get_model("annotation", "AuditEntry").objects.get(project_id=project.pk)
        assert entry.action == "answers_excluded" and entry.actor_id is None
        assert entry.details["answers"] == 2 and entry.details["workers"] == 1 and entry.details["items_changed"] == 2
