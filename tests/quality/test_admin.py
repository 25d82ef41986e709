"""The admin's gold tools: promoting unanimous items from the project list (a page first, then
the promotion), items listed with their kind and shown with their known answer."""

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.urls import reverse
from django.utils import timezone

from annotation.models import Annotation, Assignment, AuditEntry, Item, ItemKind
from quality.models import GoldAnswer
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def answered(item, label):
    a = AssignmentFactory(item=item, worker=UserFactory(), status=Assignment.Status.SUBMITTED,
                          submitted_at=timezone.now())
    Annotation.objects.create(assignment=a, answer={"label": label, "standpoint": "none", "reason": "x" * 40})


@pytest.fixture
def project():
    project = ProjectFactory(redundancy=2)
    unanimous, split = ItemFactory(project=project, external_id="agreed"), ItemFactory(project=project, external_id="split")
    for label in ("a2", "a2"):
        answered(unanimous, label)
    for label in ("a1", "a2"):
        answered(split, label)
    return project


def test_the_action_shows_the_candidates_then_promotes(client, project):
    admin = UserFactory(role="admin", is_superuser=True)
    client.force_login(admin)
    url = reverse("admin:annotation_project_changelist")
    page = client.post(url, {"action": "promote_gold", ACTION_CHECKBOX_NAME: [project.pk]})
    assert page.status_code == 200
    text = page.content.decode()
    assert 'data-testid="found">1<' in text and "<code>agreed</code>" in text and "split" not in text
    assert "last finished agreement" in text
    assert not Item.objects.filter(kind=ItemKind.GOLD).exists()  # nothing changed yet
    done = client.post(url, {"action": "promote_gold", ACTION_CHECKBOX_NAME: [project.pk], "apply": "Promote",
                             "min_answers": "", "limit": ""}, follow=True)
    assert "1 item became a gold question" in done.content.decode()
    assert list(Item.objects.filter(kind=ItemKind.GOLD).values_list("external_id", flat=True)) == ["agreed"]
    assert GoldAnswer.objects.get().answer == {"label": "a2"}
    assert AuditEntry.objects.get(action="promote_gold").actor == admin


def test_a_bad_number_promotes_nothing(client, project):
    client.force_login(UserFactory(role="admin", is_superuser=True))
    page = client.post(reverse("admin:annotation_project_changelist"), {
        "action": "promote_gold", ACTION_CHECKBOX_NAME: [project.pk], "apply": "Promote", "min_answers": "0"})
    assert page.status_code == 200 and "Ensure this value is greater than or equal to 1" in page.content.decode()
    assert not Item.objects.filter(kind=ItemKind.GOLD).exists()


def test_a_researcher_cannot_promote(client, project):
    client.force_login(UserFactory(role="researcher"))
    client.post(reverse("admin:annotation_project_changelist"), {
        "action": "promote_gold", ACTION_CHECKBOX_NAME: [project.pk], "apply": "Promote"})
    assert not Item.objects.filter(kind=ItemKind.GOLD).exists()


def test_items_show_their_kind_and_known_answer(client):
    project = ProjectFactory()
    ItemFactory(project=project, external_id="plain")
    gold = ItemFactory(project=project, external_id="golden", kind=ItemKind.GOLD, redundancy=32767)
    GoldAnswer.objects.create(item=gold, answer={"label": "a1"}, accept=[{"label": "equal"}], explanation="Costs named.")
    client.force_login(UserFactory(role="admin", is_superuser=True))
    listed = client.get(reverse("admin:annotation_item_changelist"), {"kind__exact": "gold"}).content.decode()
    assert "golden" in listed and "plain" not in listed
    page = client.get(reverse("admin:annotation_item_change", args=[gold.pk])).content.decode()
    assert "Costs named." in page and "equal" in page and "Gold question" in page
