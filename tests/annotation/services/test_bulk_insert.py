"""rows_insert stores what bulk_create stores, column by column as the database holds it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db.models import TextField
from django.db.models.functions import Cast
from django.utils import timezone as django_timezone

from annotation.models import Annotation, Assignment, Item, WorkerProfile
from annotation.services.bulk_insert import rows_insert
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
AT = datetime(2016, 1, 31, 16, 53, 19, tzinfo=UTC)
TIMES = [AT, AT.replace(microsecond=120000), AT.replace(microsecond=7),
         AT.astimezone(timezone(timedelta(hours=-8))), datetime(1999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)]
TEXTS = ["plain", 'quotes " and \\ backslash', "tab\there", "line\nbreak\r\nand more", "Zoë ✓ 日本語", "", "\\N", "-"]


def _stored(model, pks, *, skip=()):
    """Every column of these rows but the skipped ones, read as text, in primary-key order."""
    names = [f.attname for f in model._meta.concrete_fields if not f.primary_key and f.attname not in skip]
    return list(model.objects.filter(pk__in=pks).order_by("pk")
                .values_list(*[Cast(name, output_field=TextField()) for name in names]))


def _new_pks(model, before):
    return list(model.objects.filter(pk__gt=before).order_by("pk").values_list("pk", flat=True))


def _last_pk(model):
    return model.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


def test_items_assignments_and_annotations_are_stored_as_bulk_create_stores_them():
    by_orm, by_rows = ProjectFactory(), ProjectFactory()
    payloads = [{"text": text, "nested": {"list": [1, 2.5, None, True], "ü": text}} for text in TEXTS]
    golds = [None, "a1", {"k": [1, 2]}, 0, False, [], {"x": None}, 1.5]

    def items(project):
        return [(project.pk, f"item-{n}", payload, gold, n + 1, 3, 0)
                for n, (payload, gold) in enumerate(zip(payloads, golds, strict=True))]

    columns = ("project_id", "external_id", "payload", "gold", "position", "redundancy", "n_active")
    made = Item.objects.bulk_create([Item(**dict(zip(columns, row, strict=True))) for row in items(by_orm)])
    before = _last_pk(Item)
    assert rows_insert(model=Item, columns=columns, rows=items(by_rows)) == len(TEXTS)
    written = _new_pks(Item, before)
    skip = ("project_id", "created_at", "updated_at")
    assert _stored(Item, written, skip=skip) == _stored(Item, [i.pk for i in made], skip=skip)
    # The times of the call, as auto_now_add and auto_now give them.
    assert all(i.created_at == i.updated_at and abs(i.created_at - django_timezone.now()) < timedelta(minutes=1)
               for i in Item.objects.filter(pk__in=written))

    workers = [UserFactory() for _ in TIMES]

    def assignments(project, item_pks):
        return [(item, project.pk, worker.pk, "submitted", at, at + timedelta(hours=1), at if n % 2 else None)
                for n, (item, worker, at) in enumerate(zip(item_pks, workers, TIMES, strict=False))]

    columns = ("item_id", "project_id", "worker_id", "status", "assigned_at", "expires_at", "submitted_at")
    orm_assignments = Assignment.objects.bulk_create(
        [Assignment(**dict(zip(columns, row, strict=True))) for row in assignments(by_orm, [i.pk for i in made])])
    before = _last_pk(Assignment)
    rows_insert(model=Assignment, columns=columns, rows=assignments(by_rows, written))
    row_assignments = _new_pks(Assignment, before)
    skip = ("item_id", "project_id")
    assert _stored(Assignment, row_assignments, skip=skip) == _stored(Assignment, [a.pk for a in orm_assignments], skip=skip)

    def annotations(assignment_pks):
        return [(pk, {"label": text, "values": [n, n / 3]}, text, None if n == 2 else n * 1.25,
                 {"imported_from": "results.tsv", "hit": text})
                for n, (pk, text) in enumerate(zip(assignment_pks, TEXTS, strict=False))]

    columns = ("assignment_id", "answer", "reason", "seconds", "client")
    orm_annotations = Annotation.objects.bulk_create(
        [Annotation(**dict(zip(columns, row, strict=True))) for row in annotations([a.pk for a in orm_assignments])])
    before = _last_pk(Annotation)
    rows_insert(model=Annotation, columns=columns, rows=annotations(row_assignments))
    skip = ("assignment_id", "created_at")
    assert (_stored(Annotation, _new_pks(Annotation, before), skip=skip)
            == _stored(Annotation, [a.pk for a in orm_annotations], skip=skip))
    # Read back through the models, the values are the ones given.
    stored = Annotation.objects.filter(pk__in=_new_pks(Annotation, before)).order_by("pk")
    assert [(a.answer, a.reason, a.seconds) for a in stored] == [row[1:4] for row in annotations(row_assignments)]


def test_accounts_their_profiles_and_groups_take_the_models_defaults():
    User = get_user_model()
    group = Group.objects.create(name="annotators-of-the-test")
    orm_users = User.objects.bulk_create([User(username=f"orm-{n}", password="!unusable") for n in range(3)])
    before = _last_pk(User)
    rows_insert(model=User, columns=("username", "password"), rows=[(f"rows-{n}", "!unusable") for n in range(3)])
    row_users = _new_pks(User, before)
    skip = ("username", "date_joined")
    assert _stored(User, row_users, skip=skip) == _stored(User, [u.pk for u in orm_users], skip=skip)
    assert all(u.is_active and not u.is_staff and not u.has_usable_password() for u in User.objects.filter(pk__in=row_users))

    orm_profiles = WorkerProfile.objects.bulk_create(
        [WorkerProfile(user_id=u.pk, source="mturk", external_id=f"O{n}") for n, u in enumerate(orm_users)])
    before = _last_pk(WorkerProfile)
    rows_insert(model=WorkerProfile, columns=("user_id", "source", "external_id"),
                rows=[(pk, "mturk", f"R{n}") for n, pk in enumerate(row_users)])
    skip = ("user_id", "external_id")
    assert (_stored(WorkerProfile, _new_pks(WorkerProfile, before), skip=skip)
            == _stored(WorkerProfile, [p.pk for p in orm_profiles], skip=skip))

    rows_insert(model=User.groups.through, columns=("user_id", "group_id"), rows=[(pk, group.pk) for pk in row_users])
    assert sorted(group.user_set.values_list("pk", flat=True)) == row_users


def test_a_row_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError, match="a row of 1 values for 2 columns"):
        rows_insert(model=WorkerProfile, columns=("user_id", "source"), rows=[(1,)])
    assert rows_insert(model=WorkerProfile, columns=("user_id", "source"), rows=[]) == 0
