"""The API of flagged items and adjudication: a worker flags only their own open assignment;
staff read the queue, decide, list flags, withdraw and dismiss, scoped to the project."""

import pytest
from rest_framework.test import APIClient

from annotation.models import Assignment, AuditEntry, Item, ItemKind
from annotation.services import assignment_next
from quality.models import Adjudication, ItemFlag
from tests.annotation.quality_helpers import gold_item, split_item
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
S = Assignment.Status


def api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def open_one(project=None):
    project = project or ProjectFactory(redundancy=1)
    ItemFactory.create_batch(2, project=project)
    worker = UserFactory()
    return assignment_next(project=project, worker=worker).assignment, worker


def test_a_worker_flags_their_open_assignment_once():
    a, worker = open_one()
    client = api(worker)
    body = {"problem": "media", "reason": "The recording is silent."}
    response = client.post(f"/api/assignments/{a.pk}/flag/", body, format="json")
    assert response.status_code == 201
    assert set(response.json()) == {"id", "assignment", "problem", "reason", "created_at"}  # nothing of the item
    a.refresh_from_db()
    assert a.status == S.RETURNED
    again = client.post(f"/api/assignments/{a.pk}/flag/", {"problem": "other", "reason": "x"}, format="json")
    assert again.json()["id"] == response.json()["id"] and ItemFlag.objects.count() == 1
    nxt = client.post(f"/api/projects/{a.project.slug}/assignments/next/").json()
    assert nxt["assignment"]["id"] != a.pk


def test_another_workers_assignment_is_404_and_bad_reports_400():
    a, worker = open_one()
    assert api(UserFactory()).post(f"/api/assignments/{a.pk}/flag/", {"problem": "text", "reason": "x"},
                                   format="json").status_code == 404
    assert api(worker).post("/api/assignments/999999/flag/", {"problem": "text", "reason": "x"},
                            format="json").status_code == 404
    refused = api(worker).post(f"/api/assignments/{a.pk}/flag/", {"problem": "broken", "reason": ""}, format="json")
    assert refused.status_code == 400 and set(refused.json()) == {"problem", "reason"}
    a.refresh_from_db()
    assert a.status == S.ASSIGNED and not ItemFlag.objects.exists()


def test_staff_list_withdraw_and_dismiss_flags_of_their_project_only():
    project, other = ProjectFactory(redundancy=3), ProjectFactory()
    item = ItemFactory(project=project)
    flagged = AssignmentFactory(item=item)
    api(flagged.worker).post(f"/api/assignments/{flagged.pk}/flag/", {"problem": "text", "reason": "garbled"}, format="json")
    holding = AssignmentFactory(item=item)
    flag = ItemFlag.objects.get()
    admin = UserFactory(role="admin")
    listed = api(admin).get(f"/api/projects/{project.slug}/flags/").json()
    assert listed["count"] == 1 and listed["items"][0]["open"] == 1
    assert listed["items"][0]["flags"][0]["reason"] == "garbled"
    assert api(admin).get(f"/api/projects/{other.slug}/flags/").json()["count"] == 0
    # Another project's slug with this flag's id: 404, nothing changes.
    assert api(admin).post(f"/api/projects/{other.slug}/flags/{flag.pk}/withdraw/").status_code == 404
    assert Item.objects.get(pk=item.pk).kind == ItemKind.REAL
    # Researchers read but do not act; annotators do neither.
    researcher = UserFactory(role="researcher")
    assert api(researcher).get(f"/api/projects/{project.slug}/flags/").status_code == 200
    assert api(researcher).post(f"/api/projects/{project.slug}/flags/{flag.pk}/withdraw/").status_code == 403
    assert api(UserFactory()).get(f"/api/projects/{project.slug}/flags/").status_code == 403
    done = api(admin).post(f"/api/projects/{project.slug}/flags/{flag.pk}/withdraw/", {"note": "broken"}, format="json")
    assert done.status_code == 200 and done.json() == {"item": item.external_id, "kind": "withdrawn", "n_active": 0}
    holding.refresh_from_db()
    assert holding.status == S.RETURNED
    assert AuditEntry.objects.get(action="item_withdraw").details["note"] == "broken"


def test_dismiss_through_the_api():
    project = ProjectFactory()
    a = AssignmentFactory(item=ItemFactory(project=project))
    api(a.worker).post(f"/api/assignments/{a.pk}/flag/", {"problem": "options", "reason": "none fits"}, format="json")
    flag = ItemFlag.objects.get()
    response = api(UserFactory(role="admin")).post(f"/api/projects/{project.slug}/flags/{flag.pk}/dismiss/")
    assert response.json() == {"item": a.item.external_id, "dismissed": 1}
    flag.refresh_from_db()
    assert flag.resolution == "dismissed" and Item.objects.get(pk=a.item_id).kind == ItemKind.REAL


def test_the_queue_and_a_decision_through_the_api():
    project, other = ProjectFactory(), ProjectFactory()
    split = split_item(project)
    gold_item(project, right=0, wrong=3)
    admin = UserFactory(role="admin")
    queue = api(admin).get(f"/api/projects/{project.slug}/adjudication/").json()
    assert queue["count"] == 2 and queue["counts"]["split"] == 1 and queue["counts"]["gold_disagreement"] == 1
    only = api(admin).get(f"/api/projects/{project.slug}/adjudication/", {"reason": "split"}).json()
    assert [i["item_id"] for i in only["items"]] == [split.pk] and only["items"][0]["contested"][0]["reason"] == "split"
    assert api(admin).get(f"/api/projects/{project.slug}/adjudication/", {"reason": "nope"}).status_code == 400
    assert api(admin).get(f"/api/projects/{project.slug}/adjudication/", {"split_share": "2"}).status_code == 400
    url = f"/api/projects/{project.slug}/items/{split.pk}/adjudication/"
    refused = api(admin).post(url, {"answer": {"label": "a9"}, "why": "x"}, format="json")
    assert refused.status_code == 400 and "answer.label" in refused.json()
    decided = api(admin).post(url, {"answer": {"label": "a1"}, "why": "A1 is the clearer one."}, format="json")
    assert decided.status_code == 201
    assert decided.json()["answer"] == {"label": "a1"} and decided.json()["contested"] == ["split"]
    assert AuditEntry.objects.filter(action="adjudicate").count() == 1
    assert api(admin).get(f"/api/projects/{project.slug}/adjudication/").json()["count"] == 1
    # Scoped: another project's slug with this item is 404; researchers may not decide.
    assert api(admin).post(f"/api/projects/{other.slug}/items/{split.pk}/adjudication/",
                           {"answer": {"label": "a2"}, "why": "x"}, format="json").status_code == 404
    assert api(UserFactory(role="researcher")).post(url, {"answer": {"label": "a2"}, "why": "x"},
                                                    format="json").status_code == 403
    assert Adjudication.objects.get().answer == {"label": "a1"}
