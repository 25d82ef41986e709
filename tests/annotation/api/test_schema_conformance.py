"""What the API really answers conforms to its OpenAPI schema: every task type's annotator loop
(next, submit with ``?next=1``, a repeat, a conflicting answer, the answer's revision, plays,
flags, the end of the items), the staff side (imports, exports, progress, quality, workers,
audit, rules, adjudication, analysis runs) and the error answers (400, 403, 404, 409)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.task_types import get_task_type, task_types
from quality.models import TrainingRound
from recruiting.models import Bonus
from tests.factories import ProjectFactory, UserFactory
from tests.support.openapi_conformance import assert_conforms

pytestmark = pytest.mark.django_db
SLUGS = [t.slug for t in task_types()]


class Checked:
    """An API client whose every answer is checked against the schema."""

    def __init__(self, user=None) -> None:
        self.client = APIClient()
        if user is not None:
            self.client.force_authenticate(user)
        self.seen: list[tuple[str, str, int]] = []

    def call(self, method: str, path: str, data=None, fmt: str = "json", status: int | None = None):
        response = getattr(self.client, method.lower())(path, data, format=fmt)
        assert_conforms(response, method, path)
        if status is not None:
            assert response.status_code == status, (method, path, response.status_code, response.content[:300])
        self.seen.append((method, path, response.status_code))
        return response


def _project(slug: str, *, redundancy: int = 2, records: int | None = None):
    """A project of the type's example items (the first ``records`` of them); the example's
    answer fits the first."""
    task = get_task_type(slug)
    example = task.example()
    project = ProjectFactory(task_type=slug, redundancy=redundancy, options=task.clean_options(example.options),
                             open_to_all=False)
    admin = Checked(UserFactory(role="admin", is_superuser=True))
    upload = {"file": SimpleUploadedFile("items.json", json.dumps(example.records[:records]).encode())}
    admin.call("POST", f"/api/projects/{project.slug}/items/import/", upload, fmt="multipart", status=201)
    return project, admin


def _worker(project):
    user = UserFactory()
    project.members.add(user)
    return user, Checked(user)


@pytest.mark.parametrize("slug", SLUGS)
def test_the_annotator_loop_of_every_type_conforms(slug):
    project, _ = _project(slug, records=1)
    example = get_task_type(slug).example()
    user, worker = _worker(project)
    nxt = worker.call("POST", f"/api/projects/{project.slug}/assignments/next/", status=200).json()
    assignment = nxt["assignment"]["id"]
    worker.call("GET", f"/api/assignments/{assignment}/plays/", status=200)
    worker.call("GET", f"/api/assignments/{assignment}/annotation/", status=404)
    worker.call("POST", f"/api/assignments/{assignment}/submit/", example.invalid, status=400)
    first = worker.call("POST", f"/api/assignments/{assignment}/submit/?next=1", example.answer, status=201).json()
    assert "next" in first
    worker.call("POST", f"/api/assignments/{assignment}/submit/", example.answer, status=200)
    worker.call("GET", f"/api/assignments/{assignment}/annotation/", status=200)
    worker.call("PUT", f"/api/assignments/{assignment}/annotation/", example.answer, status=200)
    worker.call("PUT", f"/api/assignments/{assignment}/annotation/", {**example.answer, "version": "x"}, status=400)
    # Work through the rest: the last ?next=1 says why nothing is left.
    current = first["next"]
    while current["assignment"] is not None:
        answer = worker.call("POST", f"/api/assignments/{current['assignment']['id']}/submit/?next=1",
                             example.answer, status=201).json()
        current = answer["next"]
    assert current["reason"] == "done"
    worker.call("POST", f"/api/projects/{project.slug}/assignments/next/", status=200)
    # Someone else's assignment, a missing one, no login.
    _, other = _worker(project)
    other.call("POST", f"/api/assignments/{assignment}/submit/", example.answer, status=404)
    other.call("GET", f"/api/assignments/{assignment}/plays/", status=404)
    Checked().call("POST", f"/api/assignments/{assignment}/submit/", example.answer, status=403)
    Checked().call("GET", "/api/task-types/", status=403)


def test_a_conflicting_answer_and_a_flag_conform():
    slug = SLUGS[0]
    project, _ = _project(slug)
    example = get_task_type(slug).example()
    user, worker = _worker(project)
    assignment = worker.call("POST", f"/api/projects/{project.slug}/assignments/next/").json()["assignment"]["id"]
    worker.call("POST", f"/api/assignments/{assignment}/submit/", example.answer, status=201)
    conflict = worker.call("POST", f"/api/assignments/{assignment}/submit/", example.invalid)
    assert conflict.status_code in (400, 409)
    nxt = worker.call("POST", f"/api/projects/{project.slug}/assignments/next/").json()["assignment"]
    worker.call("POST", f"/api/assignments/{nxt['id']}/flag/", {"problem": "bogus"}, status=400)
    worker.call("POST", f"/api/assignments/{nxt['id']}/flag/", {"problem": "text", "reason": "garbled"}, status=201)
    worker.call("POST", f"/api/assignments/{nxt['id']}/submit/", example.answer, status=409)
    worker.call("POST", f"/api/assignments/{nxt['id']}/plays/", {"key": "nothing"}, status=404)


def test_the_staff_side_conforms():
    slug = SLUGS[0]
    project, admin = _project(slug, redundancy=1)
    example = get_task_type(slug).example()
    user, worker = _worker(project)
    first = worker.call("POST", f"/api/projects/{project.slug}/assignments/next/").json()["assignment"]["id"]
    second = worker.call("POST", f"/api/assignments/{first}/submit/?next=1", example.answer, status=201).json()
    worker.call("POST", f"/api/assignments/{second['next']['assignment']['id']}/flag/",
                {"problem": "other", "reason": "r"}, status=201)
    Bonus.objects.create(project=project, worker=user, amount=Decimal("0.50"), currency="GBP", reason="fast")
    TrainingRound.objects.create(project=project, worker=user, kind=TrainingRound.Kind.QUALIFICATION, number=1,
                                 items=2, pass_mark=0.5, answered=2, right=1, passed=True, started_at=timezone.now(),
                                 finished_at=timezone.now())
    base = f"/api/projects/{project.slug}"
    for path in ("/api/task-types/", "/api/projects/", f"{base}/", f"{base}/progress/", f"{base}/items/",
                 f"{base}/bonuses/", f"{base}/quality/", f"{base}/workers/{user.pk}/", f"{base}/audit/",
                 f"{base}/flags/", f"{base}/adjudication/", f"{base}/media/", f"{base}/rules/",
                 f"{base}/rule-decisions/", f"{base}/annotations/?fmt=json", f"{base}/annotations/?fmt=csv"):
        admin.call("GET", path, status=200)
    admin.call("GET", f"{base}/annotations/?fmt=xml", status=400)
    admin.call("GET", f"{base}/adjudication/?split_share=2", status=400)
    admin.call("GET", "/api/projects/?page=99", status=404)
    admin.call("PATCH", f"{base}/quality/", {"gold_rate": 7}, status=400)
    admin.call("POST", f"{base}/gold/promote/", {"limit": "many"}, status=400)
    admin.call("POST", f"{base}/training/", {"note": "again"}, status=200)
    admin.call("POST", f"{base}/workers/{user.pk}/bonus/", {"amount": "1.00", "currency": "GBP", "reason": "x"},
               status=200)
    admin.call("POST", f"{base}/workers/{user.pk}/unblock/", {}, status=409)
    admin.call("POST", f"{base}/workers/{user.pk}/training/", {"note": "once more"})
    admin.call("POST", f"{base}/workers/{user.pk}/approve/", {}, status=400)
    rule = admin.call("POST", f"{base}/rules/", {"kind": "gold_accuracy", "threshold": 0.7}, status=201).json()
    admin.call("POST", f"{base}/rules/", {"kind": "gold_accuracy", "threshold": 7}, status=400)
    admin.call("PATCH", f"{base}/rules/{rule['id']}/", {"enabled": False}, status=200)
    admin.call("GET", f"{base}/rules/{rule['id']}/", status=200)
    admin.call("POST", f"{base}/rules/check/", status=200)
    admin.call("DELETE", f"{base}/rules/{rule['id']}/", status=204)
    flag = admin.call("GET", f"{base}/flags/").json()["items"][0]["flags"][0]["id"]
    admin.call("POST", f"{base}/flags/{flag}/dismiss/", {"note": "fine"}, status=200)
    admin.call("POST", f"{base}/flags/{flag}/withdraw/", {"note": "broken"}, status=200)
    run = admin.call("POST", f"{base}/analysis/", {"kind": "agreement"}, status=201).json()
    admin.call("GET", f"/api/analysis/{run['id']}/", status=200)
    admin.call("POST", f"{base}/analysis/", {"kind": "nonsense"}, status=400)
    admin.call("POST", f"/api/analysis/{run['id']}/restart/")
    admin.call("GET", "/api/analysis/999999/", status=404)
    admin.call("GET", "/api/imports/999999/", status=404)
    admin.call("POST", f"{base}/items/import/", {}, fmt="multipart", status=400)
    # After the actions: the worker's page with its bonuses and rounds, the audit log with entries.
    page = admin.call("GET", f"{base}/workers/{user.pk}/", status=200).json()
    assert page["bonuses"] and page["training_rounds"] and page["answers"]["rows"]
    assert admin.call("GET", f"{base}/audit/?limit=2", status=200).json()["entries"]
    # A worker on a staff endpoint: 403, the same for every slug.
    worker.call("GET", f"{base}/progress/", status=403)
    worker.call("GET", "/api/projects/nothing-here/progress/", status=403)


def test_the_token_endpoint_conforms():
    user = UserFactory(username="scripted")
    user.set_password("pw-for-tests")
    user.save()
    anyone = Checked()
    token = anyone.call("POST", "/api/token/", {"username": "scripted", "password": "pw-for-tests"}, status=200)
    assert token.json()["token"] == Token.objects.get(user=user).key
    anyone.call("POST", "/api/token/", {"username": "scripted", "password": "wrong"}, status=400)
    anyone.call("POST", "/api/token/", {"username": "scripted"}, status=400)
    anyone.call("POST", "/api/token/", "[1]", status=400)
