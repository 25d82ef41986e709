"""The annotator pages and the staff pages, through the test client."""

import csv
import io
import json

import pytest
from django.urls import reverse

from annotation.models import Annotation, Assignment
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def project():
    p = ProjectFactory(redundancy=2, completion_code="DONE-123", guidelines="## Read *this*\n\n<script>alert(1)</script>")
    ItemFactory.create_batch(2, project=p)
    return p


@pytest.fixture
def annotator(client):
    user = UserFactory()
    client.force_login(user)
    return user


def test_annotation_loop_swaps_in_the_next_item(client, annotator, project):
    page = client.get(reverse("annotate", args=[project.slug]))
    assert page.status_code == 200 and b'id="task-form"' in page.content
    first = page.context["assignment"]
    response = client.post(reverse("submit", args=[project.slug, first.pk]), answer(), **HTMX)
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith('<div id="task-area"')  # the fragment only, no page shell
    assert "<html" not in body and "Saved." in body
    second = response.context["assignment"]
    assert second.pk != first.pk and second.item_id != first.item_id
    assert 'data-testid="done-count">1<' in body


def test_validation_errors_rerender_the_same_item_with_the_input(client, annotator, project):
    a = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    response = client.post(reverse("submit", args=[project.slug, a.pk]),
                           {"label": "a2", "standpoint": "same", "reason": "too short"}, **HTMX)
    body = response.content.decode()
    assert response.context["assignment"].pk == a.pk
    assert "The reason needs at least 30 characters (it has 9)." in body
    # a2 keeps its place in the order drawn for the assignment, and its key.
    key = a.shown_order["sides"].index("a2") + 1
    assert f'value="a2"{" required" if key == 1 else ""} data-shortcut="{key}" data-then-focus="reason-{a.pk}" checked' in body
    assert ">too short</textarea>" in body
    assert not Annotation.objects.exists()


def test_double_post_stores_one_annotation(client, annotator, project):
    a = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    url = reverse("submit", args=[project.slug, a.pk])
    client.post(url, answer(), **HTMX)
    again = client.post(url, answer(), **HTMX)
    assert "already saved" in again.content.decode()
    different = client.post(url, answer("a2"), **HTMX)
    assert "not saved" in different.content.decode()
    assert Annotation.objects.filter(assignment=a).count() == 1


def test_without_javascript_the_form_posts_and_redirects(client, annotator, project):
    a = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    response = client.post(reverse("submit", args=[project.slug, a.pk]), answer())
    assert response.status_code == 302 and response.url == reverse("annotate", args=[project.slug])


def test_skip_and_nothing_left_with_completion_code(client, annotator, project):
    a = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    response = client.post(reverse("skip", args=[project.slug, a.pk]), **HTMX)
    b = response.context["assignment"]
    assert b.item_id != a.item_id
    assert Assignment.objects.get(pk=a.pk).status == Assignment.Status.RETURNED
    response = client.post(reverse("submit", args=[project.slug, b.pk]), answer(), **HTMX)
    body = response.content.decode()
    assert 'data-testid="nothing-left"' in body and "DONE-123" in body


def test_someone_elses_assignment_is_not_found(client, annotator, project):
    other = UserFactory()
    from annotation.services import assignment_next

    theirs = assignment_next(project=project, worker=other).assignment
    assert client.post(reverse("submit", args=[project.slug, theirs.pk]), answer()).status_code == 404


def test_guidelines_are_rendered_and_sanitised(client, annotator, project):
    body = client.get(reverse("guidelines", args=[project.slug])).content.decode()
    assert "<h2>Read <em>this</em></h2>" in body
    assert "<script>alert(1)</script>" not in body


def test_projects_page_lists_own_progress(client, annotator, project):
    body = client.get(reverse("projects")).content.decode()
    assert project.name in body and "you answered 0 items" in body


def test_anonymous_users_are_sent_to_login(client, project):
    response = client.get(reverse("annotate", args=[project.slug]))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


def test_overview_and_exports_need_the_right_role(client, project):
    client.force_login(UserFactory())
    assert client.get(reverse("overview", args=[project.slug])).status_code == 403
    assert client.get(reverse("export", args=[project.slug, "csv"])).status_code == 403
    client.force_login(UserFactory(role="researcher"))
    assert client.get(reverse("overview", args=[project.slug])).status_code == 200
    assert client.get(reverse("export", args=[project.slug, "csv"])).status_code == 200
    assert client.get(reverse("export", args=[project.slug, "xml"])).status_code == 404


def submit_some(project, n_workers=2):
    from annotation.services import annotation_submit, assignment_next

    for i in range(n_workers):
        w = UserFactory(username=f"ann{i}")
        a = assignment_next(project=project, worker=w).assignment
        annotation_submit(assignment=a, worker=w, data=answer("a2", "same"), client={"elapsed_ms": 1500})


def test_overview_shows_progress_per_item_and_worker(client, project):
    submit_some(project)
    client.force_login(UserFactory(role="admin"))
    response = client.get(reverse("overview", args=[project.slug]))
    assert response.context["progress"].submitted == 2
    assert [w.username for w in response.context["workers"].rows] == ["ann0", "ann1"]
    assert [i.submitted for i in response.context["items"].rows] == [2, 0]
    live = client.get(reverse("overview", args=[project.slug]), **HTMX).content.decode()
    assert live.lstrip().startswith('<div id="live"') and 'hx-trigger="every 10s"' in live


def test_exports_hold_worker_times_reasons_and_standpoints(client, project):
    submit_some(project)
    client.force_login(UserFactory(role="researcher"))
    raw = b"".join(client.get(reverse("export", args=[project.slug, "csv"])).streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(raw)))
    assert len(rows) == 2
    item = project.items.order_by("position").first()
    assert rows[0]["pair_id"] == item.external_id and rows[0]["arg1"] == item.payload["arg1"]["id"]
    assert rows[0]["label"] == "a2" and rows[0]["worker_stance"] == "same"
    assert rows[0]["reason"].startswith("A1 gives") and rows[0]["worker"] == "ann0"
    assert rows[0]["accepted_at"] and rows[0]["submitted_at"] and float(rows[0]["seconds"]) >= 0
    as_json = json.loads(b"".join(client.get(reverse("export", args=[project.slug, "json"])).streaming_content))
    lines = b"".join(client.get(reverse("export", args=[project.slug, "jsonl"])).streaming_content).decode().splitlines()
    assert [r["worker"] for r in as_json] == ["ann0", "ann1"] == [json.loads(x)["worker"] for x in lines]
    assert as_json[0]["seconds"] == pytest.approx(float(rows[0]["seconds"]))


def test_the_page_has_a_heading_the_guidelines_and_the_workers_own_progress(client, annotator, project):
    project.max_items_per_worker = 2
    project.save()
    body = client.get(reverse("annotate", args=[project.slug])).content.decode()
    assert f"<h1>{project.name}</h1>" in body
    assert '<details class="panel guidelines-panel"' in body and "<h2>Read <em>this</em></h2>" in body
    assert "<script>alert(1)</script>" not in body
    assert "You answered <strong data-testid=\"done-count\">0</strong> of 2" in body
    assert 'aria-label="Your progress"' in body and "project 0" not in body
    assert 'rel="icon" href="/static/favicon.svg" type="image/svg+xml"' in body
    # Both buttons are named by a selector that resolves from either of them.
    assert 'hx-disabled-elt="#task-form .actions button"' in body
    assert "find button" not in body


def test_without_a_limit_the_page_counts_answers(client, annotator, project):
    a = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    body = client.post(reverse("submit", args=[project.slug, a.pk]), answer(), **HTMX).content.decode()
    assert 'You answered <strong data-testid="done-count">1</strong> item' in body
    assert 'role="progressbar"' not in body


def test_notices_say_what_kind_they_are(client, annotator, project):
    a = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    url = reverse("submit", args=[project.slug, a.pk])
    saved = client.post(url, answer(), **HTMX).content.decode()
    assert '<p class="notice success" role="status" data-testid="notice">Saved.</p>' in saved
    again = client.post(url, answer(), **HTMX).content.decode()
    assert '<p class="notice info" role="status" data-testid="notice">This answer was already saved.</p>' in again
    refused = client.post(reverse("skip", args=[project.slug, a.pk]), **HTMX).content.decode()
    assert '<p class="notice error" role="alert" data-testid="notice">This item was already submitted.</p>' in refused
    # Without htmx the same kinds travel as messages.
    b = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    client.post(reverse("submit", args=[project.slug, b.pk]), answer())
    page = client.get(reverse("annotate", args=[project.slug])).content.decode()
    assert '<li class="notice success" role="status">Saved.</li>' in page


def test_server_objections_mark_the_fields_and_the_counter(client, annotator, project):
    a = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    body = client.post(reverse("submit", args=[project.slug, a.pk]),
                       {"label": "", "standpoint": "none", "reason": "too short"}, **HTMX).content.decode()
    assert f'<p class="counter bad" id="reason-count-{a.pk}"' in body
    assert "/ 30–140 characters" in body
    assert '<p class="error" role="alert" data-form-alert>Please fix the marked fields.</p>' in body
    assert '<p class="error" data-error>Choose which argument is more convincing.</p>' in body
    assert 'aria-invalid="true"' in body
