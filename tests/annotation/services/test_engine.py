"""The assignment engine: who gets which item, leases, blocking and quotas."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Assignment, Item, Project
from annotation.services import (
    annotation_submit,
    assignment_next,
    assignment_return,
    leases_expire,
    project_set_redundancy,
    worker_block,
    worker_unblock,
)
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
S = Assignment.Status


def slot_counts_are_consistent(project):
    for item in Item.objects.filter(project=project):
        held = item.assignments.filter(status__in=Assignment.SLOT_STATUSES).count()
        assert item.n_active == held, item.external_id
        assert held <= item.redundancy


def do_item(project, worker):
    result = assignment_next(project=project, worker=worker)
    if result.assignment is None:
        return None
    annotation_submit(assignment=result.assignment, worker=worker, data=answer())
    return result.assignment


def test_each_item_gets_n_distinct_workers_then_nothing_is_left():
    project = ProjectFactory(redundancy=3)
    items = ItemFactory.create_batch(4, project=project)
    workers = UserFactory.create_batch(5)
    for _ in range(4):
        for w in workers:
            do_item(project, w)
    for item in items:
        done = item.assignments.filter(status=S.SUBMITTED)
        assert done.count() == 3
        assert len(set(done.values_list("worker", flat=True))) == 3
    for w in workers:
        assert assignment_next(project=project, worker=w).reason == "done"
    slot_counts_are_consistent(project)


def test_worker_never_gets_an_item_twice():
    project = ProjectFactory(redundancy=5)
    ItemFactory.create_batch(3, project=project)
    w = UserFactory()
    seen = [do_item(project, w).item_id for _ in range(3)]
    assert len(set(seen)) == 3
    assert assignment_next(project=project, worker=w).assignment is None


def test_open_assignment_is_resumed_not_duplicated():
    project = ProjectFactory()
    ItemFactory.create_batch(3, project=project)
    w = UserFactory()
    first = assignment_next(project=project, worker=w)
    again = assignment_next(project=project, worker=w)
    assert again.assignment.pk == first.assignment.pk and again.resumed
    assert Assignment.objects.filter(worker=w).count() == 1


def test_sequential_order_fills_items_in_import_order():
    project = ProjectFactory(redundancy=2)
    items = ItemFactory.create_batch(3, project=project)
    got = [do_item(project, UserFactory()).item_id for _ in range(4)]
    assert got == [items[0].pk, items[0].pk, items[1].pk, items[1].pk]


def test_spread_order_prefers_items_with_fewest_answers():
    project = ProjectFactory(redundancy=2, assignment_order=Project.Order.SPREAD)
    items = ItemFactory.create_batch(3, project=project)
    got = [do_item(project, UserFactory()).item_id for _ in range(3)]
    assert sorted(got) == sorted(i.pk for i in items)


def test_expired_lease_returns_to_the_pool():
    project = ProjectFactory(redundancy=1, lease_minutes=10)
    ItemFactory(project=project)
    slow, fast = UserFactory(), UserFactory()
    held = assignment_next(project=project, worker=slow).assignment
    assert assignment_next(project=project, worker=fast).reason == "done"
    later = timezone.now() + timedelta(minutes=11)
    taken = assignment_next(project=project, worker=fast, now=later).assignment
    assert taken.item_id == held.item_id
    held.refresh_from_db()
    assert held.status == S.EXPIRED
    slot_counts_are_consistent(project)


def test_leases_expire_counts_and_is_idempotent():
    project = ProjectFactory(lease_minutes=1)
    ItemFactory.create_batch(2, project=project)
    for w in UserFactory.create_batch(2):
        assignment_next(project=project, worker=w)
    later = timezone.now() + timedelta(minutes=2)
    assert leases_expire(now=later) == 2
    assert leases_expire(now=later) == 0
    slot_counts_are_consistent(project)


def test_late_submission_counts_when_a_slot_is_free():
    project = ProjectFactory(redundancy=1, lease_minutes=1)
    ItemFactory(project=project)
    w = UserFactory()
    a = assignment_next(project=project, worker=w).assignment
    leases_expire(now=timezone.now() + timedelta(minutes=2))
    result = annotation_submit(assignment=a, worker=w, data=answer())
    assert result.created and result.counted
    a.refresh_from_db()
    assert a.status == S.SUBMITTED
    slot_counts_are_consistent(project)


def test_late_submission_is_kept_but_not_counted_when_others_filled_the_item():
    project = ProjectFactory(redundancy=1, lease_minutes=1)
    ItemFactory(project=project)
    late, other = UserFactory(), UserFactory()
    a = assignment_next(project=project, worker=late).assignment
    later = timezone.now() + timedelta(minutes=2)
    b = assignment_next(project=project, worker=other, now=later).assignment
    annotation_submit(assignment=b, worker=other, data=answer())
    result = annotation_submit(assignment=a, worker=late, data=answer("a2"))
    assert result.created and not result.counted
    assert result.annotation.answer["label"] == "a2"  # nothing is lost
    assert Assignment.objects.filter(item=a.item, status__in=Assignment.COUNTED_STATUSES).count() == 1
    slot_counts_are_consistent(project)


def test_blocked_worker_gets_nothing_and_open_items_go_back():
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    w, other = UserFactory(), UserFactory()
    a = assignment_next(project=project, worker=w).assignment
    assert worker_block(worker=w, reason="spam") == 1
    a.refresh_from_db()
    assert a.status == S.RETURNED
    assert assignment_next(project=project, worker=w).reason == "blocked"
    assert assignment_next(project=project, worker=other).assignment.item_id == a.item_id
    worker_unblock(worker=w)
    assert assignment_next(project=project, worker=w).reason == "done"


def test_returned_item_goes_to_someone_else_not_back():
    project = ProjectFactory(redundancy=1)
    ItemFactory.create_batch(2, project=project)
    w, other = UserFactory(), UserFactory()
    a = assignment_next(project=project, worker=w).assignment
    assignment_return(assignment=a, worker=w)
    assert assignment_next(project=project, worker=w).assignment.item_id != a.item_id
    assert assignment_next(project=project, worker=other).assignment.item_id == a.item_id
    slot_counts_are_consistent(project)


def test_quota_per_worker():
    project = ProjectFactory(max_items_per_worker=2)
    ItemFactory.create_batch(5, project=project)
    w = UserFactory()
    do_item(project, w)
    do_item(project, w)
    assert assignment_next(project=project, worker=w).reason == "quota"


def test_inactive_project_and_non_members():
    project = ProjectFactory(state=Project.State.PAUSED)
    ItemFactory(project=project)
    assert assignment_next(project=project, worker=UserFactory()).reason == "inactive"
    closed_shop = ProjectFactory(open_to_all=False)
    ItemFactory(project=closed_shop)
    member, stranger = UserFactory(), UserFactory()
    closed_shop.members.add(member)
    assert assignment_next(project=closed_shop, worker=stranger).reason == "not_member"
    assert assignment_next(project=closed_shop, worker=member).assignment is not None


def test_changing_redundancy_keeps_items_consistent():
    project = ProjectFactory(redundancy=3)
    item = ItemFactory(project=project)
    for _ in range(3):
        do_item(project, UserFactory())
    project_set_redundancy(project=project, redundancy=2)
    item.refresh_from_db()
    assert item.redundancy == 3  # never below the slots already given
    project_set_redundancy(project=project, redundancy=4)
    item.refresh_from_db()
    assert item.redundancy == 4
    assert do_item(project, UserFactory()).item_id == item.pk


def test_overdue_leases_are_not_swept_while_other_items_are_free():
    """Next does not sweep the project on every call: an abandoned lease keeps its slot (until
    the scheduler's sweep) while other items can be handed out."""
    project = ProjectFactory(redundancy=1, lease_minutes=10, assignment_order=Project.Order.SEQUENTIAL)
    first, _ = ItemFactory(project=project, position=0), ItemFactory(project=project, position=1)
    slow, fast = UserFactory(), UserFactory()
    held = assignment_next(project=project, worker=slow).assignment
    assert held.item_id == first.pk
    later = timezone.now() + timedelta(minutes=11)
    taken = assignment_next(project=project, worker=fast, now=later).assignment
    assert taken.item_id != first.pk
    held.refresh_from_db()
    assert held.status == S.ASSIGNED  # not swept yet
    assert leases_expire(now=later) == 1
    slot_counts_are_consistent(project)


def test_a_workers_own_overdue_lease_goes_back_when_they_ask_again():
    project = ProjectFactory(redundancy=1, lease_minutes=10)
    ItemFactory.create_batch(2, project=project)
    worker = UserFactory()
    held = assignment_next(project=project, worker=worker).assignment
    later = timezone.now() + timedelta(minutes=11)
    result = assignment_next(project=project, worker=worker, now=later)
    assert not result.resumed and result.assignment.item_id != held.item_id
    held.refresh_from_db()
    assert held.status == S.EXPIRED
    assert Assignment.objects.filter(worker=worker, status=S.ASSIGNED).count() == 1
    slot_counts_are_consistent(project)


def test_next_returns_the_item_with_its_payload_and_project():
    project = ProjectFactory(redundancy=2)
    item = ItemFactory(project=project)
    result = assignment_next(project=project, worker=UserFactory())
    a = result.assignment
    assert a.pk and a.status == S.ASSIGNED and a.item.pk == item.pk and a.item.payload == item.payload
    assert a.project == project and a.expires_at > a.assigned_at
    assert a.item.n_active == 1 == Item.objects.get(pk=item.pk).n_active
    resumed = assignment_next(project=project, worker=a.worker)
    assert resumed.resumed and resumed.assignment.pk == a.pk and resumed.assignment.item.payload == item.payload


def test_a_worker_without_a_profile_gets_one():
    from annotation.models import WorkerProfile

    project = ProjectFactory()
    ItemFactory(project=project)
    worker = UserFactory()
    WorkerProfile.objects.filter(user=worker).delete()
    assert assignment_next(project=project, worker=worker).assignment is not None
    assert WorkerProfile.objects.filter(user=worker).exists()
