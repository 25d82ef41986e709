"""The REST API: import, the annotation loop, exports and permissions."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import Annotation, Assignment, Item
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
GOOD = json.dumps([
    {"id": "p1", "topic": "t", "prompt": "P", "stance": "s", "arg1_id": "a", "arg1_text": "x", "arg2_id": "b", "arg2_text": "y"},
    {"id": "p2", "topic": "t", "prompt": "P", "stance": "s", "arg1_id": "a", "arg1_text": "x", "arg2_id": "c", "arg2_text": "z", "gold": "a1"},
]).encode()


def api(user=None, token=False):
    c = APIClient()
    if user is not None:
        if token:
            c.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
        else:
            c.force_authenticate(user)
    return c


def upload(name, data, **fields):
    return {"file": SimpleUploadedFile(name, data), **fields}


def test_import_with_a_token_then_reimport_rules():
    project = ProjectFactory()
    admin = UserFactory(role="admin")
    c = api(admin, token=True)
    url = f"/api/projects/{project.slug}/items/import/"
    r = c.post(url, upload("items.json", GOOD), format="multipart")
    body = r.json()
    # The file's `gold` column is kept with the item; the result says it makes no gold question.
    assert r.status_code == 201 and body.pop("warnings") == [
        "1 real item carries a `gold` value: it is kept with the item for the analyses and exports, and it stays "
        "a real item. A gold question needs item_kind gold and a gold_answer."]
    assert body == {"created": 2, "updated": 0, "unchanged": 0}
    assert Item.objects.get(external_id="p2").gold == "a1"
    r = c.post(url, upload("items.json", GOOD), format="multipart")
    assert r.status_code == 400
    assert r.json()["errors"][0] == {"record": 1, "field": "id", "message": "item 'p1' already exists in this project (choose 'update' to replace it)"}
    changed = GOOD.replace(b'"gold": "a1"', b'"gold": "a2"')
    r = c.post(url, upload("items.json", changed, on_duplicate="update"), format="multipart")
    assert {k: v for k, v in r.json().items() if k != "warnings"} == {"created": 0, "updated": 1, "unchanged": 1}


def test_bad_file_imports_nothing_and_lists_errors():
    project = ProjectFactory()
    bad = b"topic,prompt,stance,arg1_id,arg1_text,arg2_id,arg2_text\nt,P,s,a,x,b,y\nt,,s,a,x,c,z\n"
    r = api(UserFactory(role="admin")).post(f"/api/projects/{project.slug}/items/import/", upload("x.csv", bad), format="multipart")
    assert r.status_code == 400
    assert r.json()["errors"] == [{"line": 3, "field": "prompt", "message": "must not be empty"}]
    assert not Item.objects.exists()


def test_import_needs_permission():
    project = ProjectFactory()
    for user in (UserFactory(), UserFactory(role="researcher")):
        r = api(user).post(f"/api/projects/{project.slug}/items/import/", upload("items.json", GOOD), format="multipart")
        assert r.status_code == 403
    assert api().get("/api/projects/").status_code in (401, 403)


def test_annotation_loop_over_the_api_is_idempotent():
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    worker = UserFactory()
    c = api(worker)
    nxt = c.post(f"/api/projects/{project.slug}/assignments/next/").json()
    assert "gold" not in json.dumps(nxt)
    aid = nxt["assignment"]["id"]
    bad = c.post(f"/api/assignments/{aid}/submit/", {"label": "a1", "standpoint": "none", "reason": "no"}, format="json")
    assert bad.status_code == 400 and "reason" in bad.json()
    first = c.post(f"/api/assignments/{aid}/submit/", answer(), format="json")
    again = c.post(f"/api/assignments/{aid}/submit/", answer(), format="json")
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json()["id"] == again.json()["id"] and again.json()["answer"]["label"] == "a1"
    # A different answer to an item already answered (a second client) is not stored, and the
    # client is told so, with the stored answer and where to change it.
    other = c.post(f"/api/assignments/{aid}/submit/", answer("a2"), format="json")
    assert other.status_code == 409
    assert "not saved" in other.json()["detail"]
    assert other.json()["stored"]["answer"]["label"] == "a1"
    assert other.json()["change"] == f"/api/assignments/{aid}/annotation/"
    assert Annotation.objects.get().answer["label"] == "a1"
    assert Annotation.objects.count() == 1
    assert c.post(f"/api/projects/{project.slug}/assignments/next/").json() == {"assignment": None, "reason": "done"}
    # Another worker's assignment is one that does not exist.
    assert api(UserFactory()).post(f"/api/assignments/{aid}/submit/", answer(), format="json").status_code == 404


def test_export_and_progress_for_researchers():
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    worker = UserFactory()
    c = api(worker)
    aid = c.post(f"/api/projects/{project.slug}/assignments/next/").json()["assignment"]["id"]
    c.post(f"/api/assignments/{aid}/submit/", answer(), format="json")
    researcher = api(UserFactory(role="researcher"))
    progress = researcher.get(f"/api/projects/{project.slug}/progress/").json()
    assert progress["submitted"] == 1 and progress["complete"] == 1 and progress["percent"] == 100.0
    rows = json.loads(b"".join(researcher.get(f"/api/projects/{project.slug}/annotations/?fmt=json").streaming_content))
    assert rows[0]["worker"] == worker.username and rows[0]["label"] == "a1"
    assert researcher.get(f"/api/projects/{project.slug}/annotations/?fmt=xml").status_code == 400
    assert api(worker).get(f"/api/projects/{project.slug}/annotations/").status_code == 403


def test_submit_with_next_gives_the_next_item_in_the_same_answer():
    project = ProjectFactory(redundancy=1, assignment_order="sequential")
    items = [ItemFactory(project=project, position=n, gold="a1") for n in range(3)]
    c = api(UserFactory(), token=True)
    nxt = c.post(f"/api/projects/{project.slug}/assignments/next/").json()
    # The worker's reference to an item is its assignment: the item's own id is the staff's.
    assert set(nxt["assignment"]["item"]) == {"payload"}
    seen = [Assignment.objects.get(pk=nxt["assignment"]["id"]).item.external_id]
    for _ in range(2):
        done = c.post(f"/api/assignments/{nxt['assignment']['id']}/submit/?next=1", answer(), format="json")
        assert done.status_code == 201
        body = done.json()
        assert body["counted"] is True and body["answer"]["label"] == "a1" and body["assignment"]
        nxt = body["next"]
        assert set(nxt) >= {"assignment", "resumed", "variant", "options"} and "gold" not in json.dumps(nxt)
        assert nxt["assignment"]["status"] == "assigned" and nxt["assignment"]["expires_at"].endswith("Z")
        seen.append(Assignment.objects.get(pk=nxt["assignment"]["id"]).item.external_id)
    assert seen == [i.external_id for i in items]
    last = c.post(f"/api/assignments/{nxt['assignment']['id']}/submit/?next=1", answer(), format="json").json()
    assert last["next"] == {"assignment": None, "reason": "done"}
    # A repeat answers 200 with the stored annotation, and what comes next again.
    again = c.post(f"/api/assignments/{nxt['assignment']['id']}/submit/?next=1", answer(), format="json")
    assert again.status_code == 200 and again.json()["id"] == last["id"] and again.json()["next"]["reason"] == "done"
    assert Annotation.objects.count() == 3


def test_submit_answers_a_missing_or_foreign_assignment_alike():
    project = ProjectFactory()
    ItemFactory(project=project)
    owner, other = UserFactory(), UserFactory()
    aid = api(owner).post(f"/api/projects/{project.slug}/assignments/next/").json()["assignment"]["id"]
    foreign = api(other).post(f"/api/assignments/{aid}/submit/?next=1", answer(), format="json")
    missing = api(owner).post("/api/assignments/999999999/submit/", answer(), format="json")
    # The same answer for both: a caller learns nothing of which assignment ids exist.
    assert foreign.status_code == missing.status_code == 404 and foreign.json() == missing.json()
    assert Annotation.objects.count() == 0
