"""No item id reaches a worker, for every registered task type: an importer's ids may name the
answer or what is compared (key-point set ranking's default is ``topic|stance|<systems>``), so
the worker's page, every form shown again, the page to change an answer and every API answer of
the annotator's loop carry none. The assignment's id is the worker's reference to the item."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils.html import escape
from rest_framework.test import APIClient

from annotation.models import Assignment, Item, Project
from annotation.task_types import get_task_type, task_types
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
SLUGS = [t.slug for t in task_types()]
TELLTALE = "GOLD-system-1-vs-system-2"


def _records(slug: str, ids: str) -> list[dict]:
    """The type's example records with telltale ids, or (``ids="default"``) without the ids a
    record may leave out, so that the type makes its own."""
    task = get_task_type(slug)
    required = {f.name: f.required for f in task.import_fields}
    records = [dict(r) for r in task.example().records]
    for n, record in enumerate(records, 1):
        if ids == "telltale" or required.get("id"):
            record["id"] = f"{TELLTALE}-{slug}-{n}"
        else:
            record.pop("id", None)
    return records


def _form(fields) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, value in fields:
        out.setdefault(name, []).append(value)
    return out


@pytest.mark.parametrize("ids", ["telltale", "default"])
@pytest.mark.parametrize("slug", SLUGS)
def test_no_worker_page_or_api_answer_names_the_item(slug, ids, client):
    task = get_task_type(slug)
    example = task.example()
    project = ProjectFactory(task_type=slug, redundancy=2, options=task.clean_options(example.options), open_to_all=False)
    admin = APIClient()
    admin.force_authenticate(UserFactory(role="admin"))
    upload = SimpleUploadedFile("items.json", json.dumps(_records(slug, ids)).encode())
    assert admin.post(f"/api/projects/{project.slug}/items/import/", {"file": upload}, format="multipart").status_code == 201
    external_ids = list(Item.objects.filter(project=project).values_list("external_id", flat=True))
    if ids == "telltale":
        assert all(TELLTALE in e for e in external_ids), external_ids
    web_worker, api_user = UserFactory(), UserFactory()
    project.members.add(web_worker, api_user)
    seen: list[tuple[str, str]] = []

    # The web: the page, a refused answer shown again, the next page after an answer, the page
    # to change the answer, the guidelines and the project list.
    client.force_login(web_worker)
    page = client.get(f"/projects/{project.slug}/annotate/")
    seen.append(("page", page.content.decode()))
    assignment = Assignment.objects.get(project=project, worker=web_worker)
    base = f"/projects/{project.slug}/annotate/{assignment.pk}"
    invalid = [(k, v) for k, values in example.invalid.items() for v in (values if isinstance(values, list) else [values])]
    seen.append(("refused", client.post(f"{base}/submit/", _form(invalid), HTTP_HX_REQUEST="true").content.decode()))
    answered = client.post(f"{base}/submit/", _form(example.form), HTTP_HX_REQUEST="true")
    assert answered.status_code == 200 and Assignment.objects.get(pk=assignment.pk).status == "submitted"
    seen.append(("after the answer", answered.content.decode()))
    seen.append(("change", client.get(f"{base}/edit/", HTTP_HX_REQUEST="true").content.decode()))
    seen.append(("change, full page", client.get(f"{base}/edit/").content.decode()))
    seen.append(("guidelines", client.get(f"/projects/{project.slug}/guidelines/").content.decode()))
    seen.append(("projects", client.get("/projects/").content.decode()))

    # The API: next, a refused and an accepted answer (with the next one), plays, the answer.
    api = APIClient()
    api.force_authenticate(api_user)
    nxt = api.post(f"/api/projects/{project.slug}/assignments/next/")
    seen.append(("api next", nxt.content.decode()))
    pk = nxt.json()["assignment"]["id"]
    assert set(nxt.json()["assignment"]["item"]) == {"payload"}
    seen.append(("api refused", api.post(f"/api/assignments/{pk}/submit/", example.invalid, format="json").content.decode()))
    stored = api.post(f"/api/assignments/{pk}/submit/?next=1", example.answer, format="json")
    assert stored.status_code == 201, stored.content
    seen.append(("api submit", stored.content.decode()))
    seen.append(("api plays", api.get(f"/api/assignments/{pk}/plays/").content.decode()))
    seen.append(("api answer", api.get(f"/api/assignments/{pk}/annotation/").content.decode()))
    seen.append(("api projects", api.get("/api/projects/").content.decode()))

    # A marketplace's preview of the HIT, before it is accepted.
    Project.objects.filter(pk=project.pk).update(external_entry=True, panel="mturk")
    client.logout()
    preview = client.get(f"/start/{project.slug}/?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=H1")
    assert preview.status_code == 200 and b'data-testid="preview"' in preview.content
    seen.append(("the marketplace's preview", preview.content.decode()))

    for where, text in seen:
        text = re.sub(r"[A-Za-z0-9]{64}", "", text)  # CSRF tokens, random, may hold a short id
        for external_id in external_ids:
            for form in {external_id, json.dumps(external_id)[1:-1], escape(external_id)}:
                # As a whole word: a short default id ("s1") is part of longer names by chance.
                found = re.search(rf"(?<![\w-]){re.escape(form)}(?![\w-])", text)
                assert found is None, f"{slug}: the item id {external_id!r} is in {where}"
        assert TELLTALE not in text, f"{slug}: {where}"
