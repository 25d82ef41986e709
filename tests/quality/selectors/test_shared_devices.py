"""Accounts that answered from one browser (one device id) in a project, for the worker page."""

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.models import Annotation
from quality.selectors.shared_devices import accounts_sharing_device
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def answered(project, worker, device=None, n=1):
    for _ in range(n):
        a = AssignmentFactory(item=ItemFactory(project=project), worker=worker, status="submitted",
                              submitted_at=timezone.now())
        client = {"signals": {"device": device, "blurs": 0}} if device else {"signals": {"blurs": 1}}
        Annotation.objects.create(assignment=a, answer={"label": "a1", "standpoint": "none"}, reason="r" * 40,
                                  seconds=5.0, client=client)


def test_accounts_sharing_a_device_id_are_listed_most_shared_first_and_only_in_the_project():
    project, other_project = ProjectFactory(), ProjectFactory()
    first, second, third, stranger, lab = (UserFactory(username=n) for n in ("first", "second", "third",
                                                                             "stranger", "lab"))
    answered(project, first, "device-aaaa", n=2)
    answered(project, first, "device-bbbb")
    answered(project, first)  # an answer without a device id
    answered(project, second, "device-aaaa", n=3)
    answered(project, third, "device-bbbb")
    answered(project, stranger, "device-cccc")
    answered(other_project, lab, "device-aaaa")  # another project: not listed
    shared = accounts_sharing_device(project=project, worker=first)
    assert [(s.username, s.answers, s.devices) for s in shared] == [("second", 3, 1), ("third", 1, 1)]
    assert [s.username for s in accounts_sharing_device(project=project, worker=second)] == ["first"]
    assert accounts_sharing_device(project=project, worker=stranger) == []
    # No device id at all: nothing to compare.
    assert accounts_sharing_device(project=ProjectFactory(), worker=first) == []


def test_the_worker_page_says_which_accounts_share_a_browser(client):
    project = ProjectFactory()
    first, second = UserFactory(username="first"), UserFactory(username="second")
    answered(project, first, "device-aaaa")
    answered(project, second, "device-aaaa")
    client.force_login(UserFactory(role="admin"))
    page = client.get(reverse("quality-worker", args=[project.slug, first.pk])).content.decode()
    section = page[page.index('data-testid="shared-browser"'):]
    assert "Shares a browser with:" in section
    assert f'href="{reverse("quality-worker", args=[project.slug, second.pk])}">second</a>' in section
    alone = UserFactory()
    answered(project, alone)
    page = client.get(reverse("quality-worker", args=[project.slug, alone.pk])).content.decode()
    assert "no other account of this project" in page
