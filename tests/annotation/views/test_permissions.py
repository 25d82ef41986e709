"""Who sees what: the login form for anonymous visitors, a "no access" page for logged-in users
without the permission, and projects outside one's own that look like they do not exist."""

import pytest
from django.urls import reverse

from annotation.models import Assignment
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

STAFF_PAGES = [
    ("overview", []), ("export", ["csv"]),
    ("analysis-dashboard", []), ("analysis-hourly", []), ("analysis-figure", [1, "votes"]),
    ("analysis-workers-csv", [1]),
    ("gold-page", []), ("gold-graph", [1]), ("gold-file", [1, "strict.tsv"]),
]
STAFF_POSTS = [
    ("analysis-dashboard", []), ("analysis-recompute-all", []), ("gold-page", []),
    ("gold-reject-worker", [1]),
]


@pytest.fixture
def closed_project():
    project = ProjectFactory(open_to_all=False, name="Closed study", guidelines="Secret *rules*")
    ItemFactory(project=project)
    return project


@pytest.mark.parametrize(("name", "extra"), STAFF_PAGES)
def test_staff_pages_show_no_access_to_logged_in_annotators(client, closed_project, name, extra):
    client.force_login(UserFactory(username="ann"))
    response = client.get(reverse(name, args=[closed_project.slug, *extra]))
    assert response.status_code == 403
    body = response.content.decode()
    assert "<h1>No access</h1>" in body and "You are logged in as <strong>ann</strong>" in body
    assert f'href="{reverse("home")}"' in body  # the way back
    assert 'name="password"' not in body  # not the login form


@pytest.mark.parametrize(("name", "extra"), STAFF_POSTS)
def test_staff_actions_refuse_annotators_with_403(client, closed_project, name, extra):
    client.force_login(UserFactory())
    assert client.post(reverse(name, args=[closed_project.slug, *extra])).status_code == 403


@pytest.mark.parametrize(("name", "extra"), STAFF_PAGES[:3] + STAFF_POSTS[:1])
def test_anonymous_visitors_of_staff_pages_go_to_login(client, closed_project, name, extra):
    url = reverse(name, args=[closed_project.slug, *extra])
    response = client.get(url) if (name, extra) in STAFF_PAGES else client.post(url)
    assert response.status_code == 302
    assert response.url == f"{reverse('login')}?next={url}"


def test_researchers_pass_the_staff_decorator(client, closed_project):
    client.force_login(UserFactory(role="researcher"))
    assert client.get(reverse("overview", args=[closed_project.slug])).status_code == 200
    assert client.get(reverse("analysis-dashboard", args=[closed_project.slug])).status_code == 200
    # A researcher may look but not start runs: the permission decides, not staff status.
    for action in ("start", "restart", "cancel"):
        response = client.post(reverse("analysis-dashboard", args=[closed_project.slug]), {"action": action, "job": 1})
        assert response.status_code == 403, action


@pytest.mark.parametrize("name", ["annotate", "guidelines", "welcome"])
def test_a_project_one_is_not_in_looks_absent(client, closed_project, name):
    client.force_login(UserFactory())
    response = client.get(reverse(name, args=[closed_project.slug]))
    missing = client.get(reverse(name, args=["no-such-project"]))
    assert response.status_code == missing.status_code == 404
    body = response.content.decode()
    assert "Closed study" not in body and "Secret" not in body
    assert "<h1>Not found</h1>" in body and f'href="{reverse("home")}"' in body
    assert not Assignment.objects.exists()


def test_members_and_open_projects_are_visible(client, closed_project):
    member = UserFactory()
    closed_project.members.add(member)
    client.force_login(member)
    assert client.get(reverse("guidelines", args=[closed_project.slug])).status_code == 200
    assert client.get(reverse("annotate", args=[closed_project.slug])).context["assignment"] is not None
    open_project = ProjectFactory(open_to_all=True)
    client.force_login(UserFactory())
    assert client.get(reverse("guidelines", args=[open_project.slug])).status_code == 200


def test_staff_see_every_projects_guidelines_and_a_preview_without_a_lease(client, closed_project):
    client.force_login(UserFactory(role="researcher"))
    body = client.get(reverse("guidelines", args=[closed_project.slug])).content.decode()
    assert "Secret <em>rules</em>" in body
    response = client.get(reverse("annotate", args=[closed_project.slug]))
    assert response.status_code == 200 and response.context["preview"] == "staff"
    body = response.content.decode()
    assert 'data-testid="preview"' in body and "nothing is saved" in body
    assert closed_project.items.get().payload["prompt"] in body
    assert 'id="task-form"' not in body
    assert not Assignment.objects.exists()


def test_anonymous_annotate_goes_to_login(client, closed_project):
    response = client.get(reverse("annotate", args=[closed_project.slug]))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
