"""Changing a submitted answer: every version kept, the latest one read, only while the lease
lasts and before review, idempotent and safe against a stale second window."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from analysis.frames import annotation_frame
from annotation.exports import annotation_rows
from annotation.models import Annotation, AnnotationRevision, Assignment
from annotation.services import WorkflowError, annotation_submit, assignment_next, assignment_review
from annotation.services.revisions import annotation_revise
from annotation.task_types.base import AnswerInvalid
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
CHANGED = "On second reading A2 has the better evidence here."


@pytest.fixture
def project():
    p = ProjectFactory(redundancy=2)
    ItemFactory.create_batch(3, project=p)
    return p


@pytest.fixture
def worker():
    return UserFactory(username="w")


def submitted(project, worker, label="a1", elapsed_ms=4000):
    a = assignment_next(project=project, worker=worker).assignment
    annotation_submit(assignment=a, worker=worker, data=answer(label), client={"elapsed_ms": elapsed_ms})
    return Assignment.objects.get(pk=a.pk)


def test_a_change_keeps_the_earlier_version_and_becomes_the_current_one(project, worker):
    a = submitted(project, worker)
    first = a.annotation
    now = first.created_at + timedelta(seconds=30)
    result = annotation_revise(assignment=a, worker=worker, data=answer("a2", "same", CHANGED),
                               client={"elapsed_ms": 6000, "input": "keyboard"}, version=1, now=now)
    assert result.changed
    current = Annotation.objects.get(pk=first.pk)
    assert current.answer == {"label": "a2", "standpoint": "same"} and current.reason == CHANGED
    assert current.version == 2 and current.revised_at == now
    # The change's time is the server's, from the first version's storing to the change's arrival;
    # the browser's count of it is added to its own.
    assert current.seconds == pytest.approx(first.seconds + 30.0)
    assert current.client_seconds == pytest.approx(4.0 + 6.0)
    assert current.client == {"input": "keyboard"}
    old = AnnotationRevision.objects.get(annotation=current)
    assert old.version == 1 and old.answer == {"label": "a1", "standpoint": "none"}
    assert old.reason == first.reason and old.seconds == first.seconds and old.client_seconds == 4.0
    assert old.saved_at == first.created_at and old.replaced_at == now
    # A third version keeps the second too.
    annotation_revise(assignment=a, worker=worker, data=answer("equal", "same", CHANGED), version=2,
                      now=now + timedelta(seconds=5))
    assert list(AnnotationRevision.objects.order_by("version").values_list("version", "answer__label")) == [
        (1, "a1"), (2, "a2")]
    assert Annotation.objects.get(pk=first.pk).version == 3


def test_a_change_is_timed_by_the_server_whatever_the_client_claims(project, worker):
    a = submitted(project, worker, elapsed_ms=4000)
    first = a.annotation
    # The lease started 20 s before the answer arrived: the first version's time is the server's.
    Annotation.objects.filter(pk=first.pk).update(seconds=20.0)
    now = first.created_at + timedelta(seconds=12)
    # A client that claims an hour for the change is kept as evidence, never taken as the time.
    annotation_revise(assignment=a, worker=worker, data=answer("a2", "same", CHANGED),
                      client={"elapsed_ms": 3_600_000}, version=1, now=now)
    second = Annotation.objects.get(pk=first.pk)
    assert (second.seconds, second.client_seconds) == (32.0, 3604.0)
    # A change with no count from the client: the server's time still grows, the client's sum is unknown.
    later = now + timedelta(seconds=8)
    annotation_revise(assignment=a, worker=worker, data=answer("equal", "same", CHANGED), version=2, now=later)
    third = Annotation.objects.get(pk=first.pk)
    assert (third.seconds, third.client_seconds) == (40.0, None)
    # Each replaced version keeps both its figures.
    assert list(AnnotationRevision.objects.order_by("version").values_list("version", "seconds", "client_seconds")) == [
        (1, 20.0, 4.0), (2, 32.0, 3604.0)]


def test_repeating_the_same_change_writes_nothing(project, worker):
    a = submitted(project, worker)
    data = answer("a2", "same", CHANGED)
    assert annotation_revise(assignment=a, worker=worker, data=data, version=1).changed
    replay = annotation_revise(assignment=a, worker=worker, data=data, version=1)
    assert not replay.changed and replay.annotation.version == 2
    assert AnnotationRevision.objects.count() == 1


def test_a_stale_window_cannot_overwrite_a_newer_change(project, worker):
    a = submitted(project, worker)
    annotation_revise(assignment=a, worker=worker, data=answer("a2", "same", CHANGED), version=1)
    with pytest.raises(WorkflowError, match="changed meanwhile"):
        annotation_revise(assignment=a, worker=worker, data=answer("equal"), version=1)
    assert Annotation.objects.get(assignment=a).answer["label"] == "a2"


def test_no_change_after_the_lease_or_after_review(project, worker):
    a = submitted(project, worker)
    with pytest.raises(WorkflowError, match="run out"):
        annotation_revise(assignment=a, worker=worker, data=answer("a2"), now=a.expires_at)
    # Even an invalid answer is told the real reason: fixing the fields would not help.
    with pytest.raises(WorkflowError, match="run out"):
        annotation_revise(assignment=a, worker=worker, data={"label": "x"}, now=a.expires_at)
    assignment_review(assignment=a, approve=True)
    with pytest.raises(WorkflowError, match="reviewed"):
        annotation_revise(assignment=a, worker=worker, data=answer("a2"))
    assert not AnnotationRevision.objects.exists()
    assert Annotation.objects.get(assignment=a).answer["label"] == "a1"


def test_only_the_worker_changes_their_answer_and_only_validly(project, worker):
    a = submitted(project, worker)
    with pytest.raises(WorkflowError, match="someone else"):
        annotation_revise(assignment=a, worker=UserFactory(), data=answer("a2"))
    with pytest.raises(AnswerInvalid) as exc:
        annotation_revise(assignment=a, worker=worker, data={"label": "a2", "standpoint": "none", "reason": "short"})
    assert "reason" in exc.value.errors
    open_one = assignment_next(project=project, worker=worker).assignment
    with pytest.raises(WorkflowError, match="no answer yet"):
        annotation_revise(assignment=open_one, worker=worker, data=answer("a2"))


def test_exports_and_the_long_frame_read_the_latest_version(project, worker):
    a = submitted(project, worker)
    annotation_revise(assignment=a, worker=worker, data=answer("a2", "same", CHANGED))
    rows = list(annotation_rows(project=project))
    assert [(r["label"], r["reason"], r["worker_stance"]) for r in rows] == [("a2", CHANGED, "same")]
    # The export says which version it holds and when it was given.
    current = Annotation.objects.get(assignment=a)
    assert rows[0]["version"] == 2 and rows[0]["revised_at"] == current.revised_at.isoformat()
    frame = annotation_frame(project=project).frame
    assert frame["label"].tolist() == ["a2"] and frame["reason"].tolist() == [CHANGED]


# --- the page ------------------------------------------------------------------------------------


def test_the_page_offers_to_change_the_last_answer_and_saves_the_change(client, project, worker):
    client.force_login(worker)
    first = client.get(reverse("annotate", args=[project.slug])).context["assignment"]
    after = client.post(reverse("submit", args=[project.slug, first.pk]), answer(), **HTMX)
    body = after.content.decode()
    edit_url = reverse("edit", args=[project.slug, first.pk])
    assert f'hx-get="{edit_url}"' in body and "Change your last answer" in body
    second = after.context["assignment"]
    form = client.get(edit_url, **HTMX)
    body = form.content.decode()
    assert form.context["editing"].version == 1
    assert f'hx-post="{reverse("revise", args=[project.slug, first.pk])}"' in body
    assert 'name="version" value="1"' in body and "Save changes" in body
    assert "Your current item stays reserved for you." in body
    # The stored answer is checked, in the order the assignment drew (the same as when it was given).
    key = first.shown_order["sides"].index("a1") + 1
    assert f'value="a1"{" required" if key == 1 else ""} data-shortcut="{key}" data-then-focus="reason-{first.pk}" checked' in body
    saved = client.post(reverse("revise", args=[project.slug, first.pk]),
                        {**answer("a2", "same", CHANGED), "version": "1", "client_elapsed_ms": "2500"}, **HTMX)
    body = saved.content.decode()
    assert "Your answer was changed." in body and 'class="notice success"' in body
    # Back to the item that was open before the detour, still held.
    assert saved.context["assignment"].pk == second.pk
    assert Annotation.objects.get(assignment_id=first.pk).answer["label"] == "a2"
    assert Assignment.objects.get(pk=second.pk).status == Assignment.Status.ASSIGNED


def test_an_invalid_change_shows_the_errors_in_the_edit_form(client, project, worker):
    a = submitted(project, worker)
    client.force_login(worker)
    response = client.post(reverse("revise", args=[project.slug, a.pk]),
                           {"label": "", "standpoint": "same", "reason": "too short", "version": "1"}, **HTMX)
    body = response.content.decode()
    assert "stays reserved" not in body  # no other item is open
    assert response.context["editing"] is not None
    assert "Choose which argument is more convincing." in body and "(it has 9)" in body
    assert Annotation.objects.get(assignment=a).version == 1


def test_no_change_link_once_the_time_ran_out(client, project, worker):
    a = submitted(project, worker)
    now = timezone.now()
    Assignment.objects.filter(pk=a.pk).update(assigned_at=now - timedelta(hours=1), expires_at=now - timedelta(seconds=1))
    client.force_login(worker)
    body = client.get(reverse("annotate", args=[project.slug])).content.decode()
    assert "Change your last answer" not in body
    refused = client.get(reverse("edit", args=[project.slug, a.pk]), **HTMX).content.decode()
    assert "The time to change this answer has run out." in refused and 'class="notice error"' in refused


def test_someone_elses_answer_cannot_be_opened(client, project, worker):
    a = submitted(project, worker)
    client.force_login(UserFactory())
    assert client.get(reverse("edit", args=[project.slug, a.pk])).status_code == 404
    assert client.post(reverse("revise", args=[project.slug, a.pk]), answer("a2")).status_code == 404


# --- the API -------------------------------------------------------------------------------------


def test_the_api_changes_an_answer_and_lists_its_versions(project, worker):
    a = submitted(project, worker)
    api = APIClient()
    api.force_authenticate(worker)
    url = f"/api/assignments/{a.pk}/annotation/"
    got = api.get(url).json()
    assert got["version"] == 1 and got["history"] == [] and got["revisable_until"] is not None
    r = api.put(url, {**answer("a2", "same", CHANGED), "version": 1}, format="json")
    assert r.status_code == 200 and r.json()["changed"] is True
    body = r.json()
    assert body["answer"] == {"label": "a2", "standpoint": "same"} and body["version"] == 2
    assert [h["answer"]["label"] for h in body["history"]] == ["a1"]
    again = api.put(url, {**answer("a2", "same", CHANGED), "version": 1}, format="json")
    assert again.status_code == 200 and again.json()["changed"] is False
    stale = api.put(url, {**answer("equal"), "version": 1}, format="json")
    assert stale.status_code == 409 and "changed meanwhile" in stale.json()["detail"]
    bad = api.put(url, {"label": "nope"}, format="json")
    assert bad.status_code == 400 and set(bad.json()) >= {"label", "reason"}
    assert api.put(url, {**answer(), "version": "x"}, format="json").status_code == 400


def test_the_api_refuses_others_and_closed_answers(project, worker):
    a = submitted(project, worker)
    url = f"/api/assignments/{a.pk}/annotation/"
    other = APIClient()
    other.force_authenticate(UserFactory())
    # Another worker's answer is as unknown to them as a missing one.
    assert other.get(url).status_code == 404 and other.put(url, answer("a2"), format="json").status_code == 404
    researcher = APIClient()
    researcher.force_authenticate(UserFactory(role="researcher"))
    assert researcher.get(url).status_code == 200
    assignment_review(assignment=a, approve=False)
    own = APIClient()
    own.force_authenticate(worker)
    refused = own.put(url, answer("a2"), format="json")
    assert refused.status_code == 409 and "reviewed" in refused.json()["detail"]
    assert own.get(url).json()["revisable_until"] is None
    open_one = assignment_next(project=project, worker=worker).assignment
    assert own.get(f"/api/assignments/{open_one.pk}/annotation/").status_code == 404
    assert own.get("/api/assignments/999999/annotation/").status_code == 404
