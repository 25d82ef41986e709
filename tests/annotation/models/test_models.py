"""Invariants that live in the database, checked by writing around the services."""

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.models import Assignment, Item, Project
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_one_assignment_per_item_and_worker_whatever_the_status():
    a = AssignmentFactory(status=Assignment.Status.EXPIRED)
    with pytest.raises(IntegrityError), transaction.atomic():
        AssignmentFactory(item=a.item, worker=a.worker, status=Assignment.Status.ASSIGNED)


def test_slot_counter_cannot_exceed_redundancy():
    item = ItemFactory(project=ProjectFactory(redundancy=2))
    Item.objects.filter(pk=item.pk).update(n_active=2)
    with pytest.raises(IntegrityError), transaction.atomic():
        Item.objects.filter(pk=item.pk).update(n_active=3)


def test_one_open_assignment_per_worker_and_project():
    project = ProjectFactory()
    worker = UserFactory()
    AssignmentFactory(item=ItemFactory(project=project), worker=worker)
    AssignmentFactory(item=ItemFactory(project=project), worker=worker, status=Assignment.Status.SUBMITTED)
    with pytest.raises(IntegrityError), transaction.atomic():
        AssignmentFactory(item=ItemFactory(project=project), worker=worker)
    # Another project is another queue.
    AssignmentFactory(item=ItemFactory(project=ProjectFactory()), worker=worker)


def test_external_id_unique_within_a_project_only():
    item = ItemFactory()
    ItemFactory(external_id=item.external_id)  # other project
    with pytest.raises(IntegrityError), transaction.atomic():
        ItemFactory(project=item.project, external_id=item.external_id)


@pytest.mark.parametrize("field,value", [("redundancy", 0), ("lease_minutes", 0), ("max_items_per_worker", 0)])
def test_project_settings_checked(field, value):
    with pytest.raises(IntegrityError), transaction.atomic():
        ProjectFactory(**{field: value})


def test_status_and_lease_are_checked():
    with pytest.raises(IntegrityError), transaction.atomic():
        AssignmentFactory(status="lost")
    now = timezone.now()
    with pytest.raises(IntegrityError), transaction.atomic():
        AssignmentFactory(assigned_at=now, expires_at=now)


def test_project_task_type_choices_come_from_the_registry():
    field = Project._meta.get_field("task_type")
    assert ("pairwise", "Pairwise convincingness") in field.choices
