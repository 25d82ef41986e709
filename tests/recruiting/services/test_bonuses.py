"""The bonus ledger: task types grant bonuses for counted answers, once; rejection removes an
unpaid one; staff export, read and pay them."""

import csv
import io
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import WorkerProfile
from annotation.services import annotation_submit, assignment_next, assignment_review, leases_expire
from annotation.services.revisions import annotation_revise
from annotation.task_types import get_task_type
from recruiting.models import Bonus
from recruiting.selectors.bonuses import bonus_ledger, bonus_totals
from recruiting.services.bonuses import bonus_grant, bonus_grant_for, bonuses_mark_paid
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
RATE = Decimal("0.50")


@pytest.fixture(autouse=True)
def paying_pairwise(monkeypatch):
    """The pairwise type pays for an answer that matches the item's gold, in this module only."""
    calls = []

    def bonus_for(*, answer, gold, options):
        calls.append((answer, gold, options))
        if gold is not None and answer.get("label") == gold:
            return RATE, f"matches the known answer {gold}"
        return None

    monkeypatch.setattr(get_task_type("pairwise"), "bonus_for", bonus_for)
    return calls


def submit(project, worker, label="a1"):
    a = assignment_next(project=project, worker=worker).assignment
    return a, annotation_submit(assignment=a, worker=worker, data=answer(label))


@pytest.fixture
def gold_project():
    project = ProjectFactory(redundancy=2)
    ItemFactory(project=project, gold="a1", external_id="g1")
    return project


def test_the_base_type_grants_nothing():
    from annotation.task_types.base import TaskType

    assert TaskType.bonus_for(get_task_type("pairwise"), answer={"label": "a1"}, gold="a1", options={}) is None


def test_a_correct_answer_earns_one_bonus_with_the_types_amount_and_reason(gold_project, paying_pairwise):
    worker = UserFactory()
    a, result = submit(gold_project, worker, "a1")
    bonus = Bonus.objects.get()
    assert (bonus.project, bonus.worker, bonus.annotation) == (gold_project, worker, result.annotation)
    assert (bonus.amount, bonus.currency, bonus.reason, bonus.paid_at) == (RATE, "USD", "matches the known answer a1", None)
    # The type saw the stored answer, the item's gold and the project's cleaned options.
    assert paying_pairwise[-1][:2] == ({"label": "a1", "standpoint": "none"}, "a1")


def test_granting_again_returns_the_first_bonus(gold_project):
    worker = UserFactory()
    a, first = submit(gold_project, worker, "a1")
    annotation_submit(assignment=a, worker=worker, data=answer("a1"))
    again = bonus_grant_for(annotation=first.annotation)
    assert Bonus.objects.count() == 1 and again.pk == Bonus.objects.get().pk
    with pytest.raises(IntegrityError), transaction.atomic():
        bonus_grant(project=gold_project, worker=worker, amount="1", reason="twice", annotation=first.annotation)


def test_a_wrong_answer_or_an_item_without_gold_earns_nothing(gold_project):
    ItemFactory(project=gold_project, gold=None)
    worker = UserFactory()
    submit(gold_project, worker, "a2")  # the gold item, answered wrongly
    submit(gold_project, worker, "a1")  # the item without gold
    assert not Bonus.objects.exists()


def test_a_late_answer_that_does_not_count_earns_nothing():
    project = ProjectFactory(redundancy=1, lease_minutes=1)
    ItemFactory(project=project, gold="a1")
    late, other = UserFactory(), UserFactory()
    a = assignment_next(project=project, worker=late).assignment
    leases_expire(now=timezone.now() + timedelta(minutes=2))
    submit(project, other, "a1")
    result = annotation_submit(assignment=a, worker=late, data=answer("a1"))
    assert result.created and not result.counted
    assert list(Bonus.objects.values_list("worker", flat=True)) == [other.pk]


def test_rejection_removes_an_unpaid_bonus_and_approval_grants_it_again(gold_project):
    a, _ = submit(gold_project, UserFactory(), "a1")
    assignment_review(assignment=a, approve=False)
    assert not Bonus.objects.exists()
    assignment_review(assignment=a, approve=True)
    assert Bonus.objects.filter(annotation__assignment=a).count() == 1


def test_rejection_keeps_a_paid_bonus(gold_project):
    a, _ = submit(gold_project, UserFactory(), "a1")
    bonuses_mark_paid(bonuses=Bonus.objects.all(), note="batch 7")
    assignment_review(assignment=a, approve=False)
    assert Bonus.objects.get().paid_note == "batch 7"


def test_the_bonus_follows_a_changed_answer(gold_project):
    worker = UserFactory()
    a, _ = submit(gold_project, worker, "a1")
    annotation_revise(assignment=a, worker=worker, data=answer("a2"))
    assert not Bonus.objects.exists()
    annotation_revise(assignment=a, worker=worker, data=answer("a1"))
    assert Bonus.objects.count() == 1


def test_manual_grants_are_checked(gold_project):
    worker, other = UserFactory(), UserFactory()
    _, result = submit(gold_project, worker, "a2")
    bonus = bonus_grant(project=gold_project, worker=worker, amount="2.005", reason="  careful\nreasons ")
    assert (bonus.amount, bonus.reason, bonus.annotation) == (Decimal("2.00"), "careful reasons", None)
    for amount in ("0", "-1", "lots"):
        with pytest.raises(ValueError):
            bonus_grant(project=gold_project, worker=worker, amount=amount, reason="r")
    with pytest.raises(ValueError, match="its worker"):
        bonus_grant(project=gold_project, worker=other, amount=1, reason="r", annotation=result.annotation)
    # The database refuses a non-positive amount whatever writes it.
    with pytest.raises(IntegrityError), transaction.atomic():
        Bonus.objects.create(project=gold_project, worker=worker, amount=Decimal("0"), reason="r")


def test_marking_paid_keeps_earlier_payments():
    project, worker = ProjectFactory(), UserFactory()
    first = bonus_grant(project=project, worker=worker, amount=1, reason="r")
    bonuses_mark_paid(bonuses=[first], note="batch 1")
    bonus_grant(project=project, worker=worker, amount=2, reason="r")
    assert bonuses_mark_paid(bonuses=Bonus.objects.all(), note="batch 2") == 1
    assert sorted(Bonus.objects.values_list("paid_note", flat=True)) == ["batch 1", "batch 2"]


def test_ledger_and_totals_per_worker_and_currency():
    project = ProjectFactory()
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    paid = bonus_grant(project=project, worker=ann, amount="1.25", reason="r")
    bonus_grant(project=project, worker=ann, amount="0.50", reason="r")
    bonus_grant(project=project, worker=bob, amount="3", reason="r", currency="gbp")
    bonus_grant(project=ProjectFactory(), worker=bob, amount="9", reason="another project")
    bonuses_mark_paid(bonuses=[paid], note="")
    rows = [(w.worker, w.currency, w.count, w.total, w.paid, w.unpaid) for w in bonus_ledger(project=project)]
    assert rows == [("ann", "USD", 2, Decimal("1.75"), Decimal("1.25"), Decimal("0.50")),
                    ("bob", "GBP", 1, Decimal("3.00"), Decimal("0.00"), Decimal("3.00"))]
    assert [(t.currency, t.count, t.total, t.unpaid) for t in bonus_totals(project=project)] == [
        ("GBP", 1, Decimal("3.00"), Decimal("3.00")), ("USD", 2, Decimal("1.75"), Decimal("0.50"))]


@pytest.fixture
def hostile_ledger():
    project = ProjectFactory(slug="payday", redundancy=1)
    ItemFactory(project=project, gold="a1", external_id="@item")
    worker = UserFactory(username="+worker")
    WorkerProfile.objects.filter(user=worker).update(source="mturk", external_id="-A1B2")
    a, _ = submit(project, worker, "a1")
    bonus_grant(project=project, worker=worker, amount="1", reason='=HYPERLINK("http://evil.example")')
    return project, a


def test_csv_export_has_the_columns_and_quotes_formulas(client, hostile_ledger):
    project, a = hostile_ledger
    client.force_login(UserFactory(role="researcher"))
    response = client.get(reverse("export-bonuses", args=[project.slug]))
    assert response["Content-Disposition"] == 'attachment; filename="payday-bonuses.csv"'
    reader = csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode()))
    assert reader.fieldnames == ["worker", "worker_source", "worker_external_id", "assignment", "item", "amount",
                                 "currency", "reason", "created_at", "paid_at"]
    earned, manual = list(reader)
    assert (earned["worker"], earned["worker_source"], earned["worker_external_id"]) == ("'+worker", "mturk", "'-A1B2")
    assert (earned["assignment"], earned["item"], earned["amount"], earned["paid_at"]) == (str(a.pk), "'@item", "0.50", "")
    assert manual["reason"] == '\'=HYPERLINK("http://evil.example")' and manual["item"] == ""


def test_exports_need_the_export_permission(client, hostile_ledger):
    project, _ = hostile_ledger
    client.force_login(UserFactory())
    assert client.get(reverse("export-bonuses", args=[project.slug])).status_code == 403
    api = APIClient()
    api.force_authenticate(UserFactory())
    assert api.get(f"/api/projects/{project.slug}/bonuses/").status_code == 403


def test_api_lists_rows_and_worker_totals(hostile_ledger):
    project, a = hostile_ledger
    api = APIClient()
    api.force_authenticate(UserFactory(role="researcher"))
    body = api.get(f"/api/projects/{project.slug}/bonuses/").json()
    assert [(r["assignment"], r["item"], r["amount"]) for r in body["rows"]] == [(a.pk, "@item", "0.50"), (None, None, "1.00")]
    assert body["rows"][1]["reason"] == '=HYPERLINK("http://evil.example")'  # JSON keeps the text exact
    (worker,) = body["workers"]
    assert (worker["worker"], worker["worker_external_id"], worker["count"]) == ("+worker", "-A1B2", 2)
    assert (worker["total"], worker["paid"], worker["unpaid"]) == ("1.50", "0.00", "1.50")


def test_admin_marks_bonuses_paid_and_grants_by_hand(client, hostile_ledger):
    project, _ = hostile_ledger
    admin_user = UserFactory(role="admin", is_superuser=True)
    client.force_login(admin_user)
    changelist = reverse("admin:recruiting_bonus_changelist")
    assert client.get(changelist, {"paid": "no", "project__id__exact": project.pk}).status_code == 200
    first = Bonus.objects.order_by("pk").first()
    response = client.post(changelist, {"action": "mark_paid", "_selected_action": [first.pk]})
    assert response.status_code == 302
    first.refresh_from_db()
    assert first.paid_at is not None and first.paid_note == f"marked paid by {admin_user.username}"
    assert Bonus.objects.filter(paid_at__isnull=True).count() == 1
    add = reverse("admin:recruiting_bonus_add")
    refused = client.post(add, {"project": project.pk, "worker": first.worker_id, "amount": "0", "currency": "USD",
                                "reason": "nothing"})
    assert refused.status_code == 200 and Bonus.objects.count() == 2
    client.post(add, {"project": project.pk, "worker": first.worker_id, "amount": "4", "currency": "USD",
                      "reason": "thorough reasons"})
    assert Bonus.objects.filter(reason="thorough reasons", amount=Decimal("4.00")).exists()


def test_overview_shows_bonuses_only_when_there_are_some(client, hostile_ledger):
    project, _ = hostile_ledger
    client.force_login(UserFactory(role="researcher"))
    page = client.get(reverse("overview", args=[project.slug])).content.decode()
    assert "Bonuses: 1.50 USD in 2 bonuses, 1.50 USD unpaid" in page
    assert reverse("export-bonuses", args=[project.slug]) in page
    empty = ProjectFactory()
    assert 'data-testid="bonuses"' not in client.get(reverse("overview", args=[empty.slug])).content.decode()
