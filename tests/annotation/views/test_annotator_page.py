"""The annotation page through the test client: a second tab with another answer, pages never
cached, the worker's position and the lease's time left, and answers sent after the lease."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.models import Annotation, Assignment
from annotation.services import assignment_next
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def project():
    p = ProjectFactory(redundancy=1, lease_minutes=30)
    ItemFactory.create_batch(3, project=p)
    return p


def overdue(a):
    """Move the lease of ``a`` into the past: it ran out a minute ago."""
    now = timezone.now()
    Assignment.objects.filter(pk=a.pk).update(assigned_at=now - timedelta(minutes=31), expires_at=now - timedelta(minutes=1))


@pytest.fixture
def annotator(client):
    user = UserFactory()
    client.force_login(user)
    return user


def test_a_second_tab_with_another_answer_is_told_it_was_not_saved_and_may_change(client, annotator, project):
    first_tab = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    second_tab = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    assert first_tab.pk == second_tab.pk
    url = reverse("submit", args=[project.slug, first_tab.pk])
    client.post(url, answer("a1"), **HTMX)
    other = answer("a2", reason="The second tab's reason, which differs from the first one.")
    response = client.post(url, other, **HTMX)
    body = response.content.decode()
    assert "not saved" in body and "already saved" not in body
    # The change form of that item, with the answer just sent filled in: one click replaces it.
    assert response.context["editing"].assignment_id == first_tab.pk
    assert f'action="{reverse("revise", args=[project.slug, first_tab.pk])}"' in body
    assert "The second tab&#x27;s reason, which differs from the first one.</textarea>" in body
    assert Annotation.objects.get(assignment=first_tab).answer["label"] == "a1"
    version = response.context["editing"].version
    client.post(reverse("revise", args=[project.slug, first_tab.pk]), {**other, "version": version}, **HTMX)
    assert Annotation.objects.get(assignment=first_tab).answer["label"] == "a2"


def test_a_second_tab_without_javascript_gets_the_change_form_too(client, annotator, project):
    a = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    url = reverse("submit", args=[project.slug, a.pk])
    client.post(url, answer("a1"))
    response = client.post(url, answer("a3"))
    assert response.status_code == 200 and response.context["editing"].assignment_id == a.pk
    assert "<html" in response.content.decode() and "not saved" in response.content.decode()


def test_an_identical_repeat_stays_already_saved(client, annotator, project):
    a = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    url = reverse("submit", args=[project.slug, a.pk])
    client.post(url, answer("a1"), **HTMX)
    body = client.post(url, answer("a1"), **HTMX).content.decode()
    assert "This answer was already saved." in body and "not saved" not in body


def test_a_different_answer_that_can_no_longer_be_changed_says_so(client, annotator, project):
    a = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    url = reverse("submit", args=[project.slug, a.pk])
    client.post(url, answer("a1"), **HTMX)
    overdue(a)
    response = client.post(url, answer("a2"), **HTMX)
    body = response.content.decode()
    assert "not saved" in body and "run out" in body and "editing" not in response.context
    assert Annotation.objects.get(assignment=a).answer["label"] == "a1"


@pytest.mark.parametrize("name", ["annotate", "submit", "skip", "edit", "revise", "projects"])
def test_work_pages_are_never_cached(client, annotator, project, name):
    a = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    if name in ("edit", "revise"):
        client.post(reverse("submit", args=[project.slug, a.pk]), answer(), **HTMX)
    args = [] if name == "projects" else [project.slug] if name == "annotate" else [project.slug, a.pk]
    url = reverse(name, args=args)
    response = client.post(url, answer("a2"), **HTMX) if name in ("submit", "skip", "revise") else client.get(url)
    assert response.status_code in (200, 302)
    assert "no-store" in response["Cache-Control"]


def test_the_page_shows_the_position_among_the_items_open_to_the_worker(client, annotator, project):
    body = client.get(reverse("annotate", args=[project.slug])).content.decode()
    assert 'data-testid="position">Item <strong>1</strong> of 3 open to you' in body
    # Someone else takes one item: fewer are open to this worker.
    assignment_next(project=project, worker=UserFactory())
    a = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    body = client.post(reverse("submit", args=[project.slug, a.pk]), answer(), **HTMX).content.decode()
    assert 'data-testid="position">Item <strong>2</strong> of 2 open to you' in body


def test_the_position_respects_the_workers_limit(client, annotator, project):
    project.max_items_per_worker = 2
    project.save()
    body = client.get(reverse("annotate", args=[project.slug])).content.decode()
    assert 'data-testid="position">Item <strong>1</strong> of 2 open to you' in body


def test_the_lease_time_left_comes_from_the_server(client, annotator, project):
    response = client.get(reverse("annotate", args=[project.slug]))
    a = response.context["assignment"]
    body = response.content.decode()
    assert f'datetime="{a.expires_at.isoformat()}"' in body
    # Seconds left as the server counts them, so the countdown ignores the browser's clock.
    seconds = int(body.split('data-lease-seconds="')[1].split('"')[0])
    assert 29 * 60 <= seconds <= 30 * 60
    # Readable without JavaScript: the minutes left, rounded down.
    assert re.search(r'data-lease-seconds="\d+">(29|30)\xa0minutes</time>', body)


def test_an_answer_after_the_lease_says_it_counts_when_the_slot_was_free(client, annotator, project):
    a = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    overdue(a)
    body = client.post(reverse("submit", args=[project.slug, a.pk]), answer(), **HTMX).content.decode()
    assert "time for that item had run out" in body and "counts" in body
    assert Assignment.objects.get(pk=a.pk).status == Assignment.Status.SUBMITTED


def test_an_answer_after_the_lease_whose_slot_others_took_is_kept_and_says_so(client, annotator, project):
    a = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    # The lease ran out and another worker took the item and answered it.
    overdue(a)
    from annotation.services import annotation_submit, leases_expire

    leases_expire(project=project)
    other = UserFactory()
    taken = assignment_next(project=project, worker=other).assignment
    while taken.item_id != a.item_id:
        annotation_submit(assignment=taken, worker=other, data=answer())
        taken = assignment_next(project=project, worker=other).assignment
    annotation_submit(assignment=taken, worker=other, data=answer())
    body = client.post(reverse("submit", args=[project.slug, a.pk]), answer("a2"), **HTMX).content.decode()
    assert "kept" in body and "not counted" in body
    assert Annotation.objects.get(assignment=a).answer["label"] == "a2"
