"""The order an assignment shows an item's options in: drawn from its item and worker, stored, shown on the page,
in the API and in a refused form alike, exported; answers keep naming options by id."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from rest_framework.test import APIClient

from annotation.models import Annotation, Assignment
from annotation.services import annotation_submit, assignment_next
from annotation.task_types import get_task_type
from annotation.task_types.shown_order import assignment_seed, draw_order, order_for
from task_types.pairwise.tests.factories import REASON, answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_a_draw_is_reproducible_from_the_seed_and_covers_every_order():
    parts = {"candidates": ["c1", "c2", "c3"]}
    assert draw_order(parts, seed="41-7") == draw_order(parts, seed="41-7")
    seen = {tuple(draw_order(parts, seed=f"{seed}-7")["candidates"]) for seed in range(200)}
    assert len(seen) == 6 and all(sorted(order) == ["c1", "c2", "c3"] for order in seen)
    # Two options: each side first about half of the time.
    lefts = [draw_order({"sides": ["a1", "a2"]}, seed=f"{seed}-7")["sides"][0] for seed in range(2000)]
    assert 0.45 < lefts.count("a1") / len(lefts) < 0.55
    assert order_for(parts=parts, seed="41-7", keep_import_order=True) == parts
    assert order_for(parts={}, seed="41-7", keep_import_order=False) is None
    assert assignment_seed(item_id=41, worker_id=7) == "41-7"


def test_the_engine_stores_the_order_drawn_from_the_assignment_s_item_and_worker():
    project = ProjectFactory(task_type="counter_speech", redundancy=3)
    item = ItemFactory(project=project)
    task = get_task_type("counter_speech")
    for _ in range(3):
        assignment = assignment_next(project=project, worker=UserFactory()).assignment
        stored = Assignment.objects.get(pk=assignment.pk).shown_order
        seed = assignment_seed(item_id=item.pk, worker_id=assignment.worker_id)
        assert stored == draw_order(task.order_parts(item.payload), seed=seed) == assignment.shown_order


def test_a_project_may_keep_the_import_order():
    project = ProjectFactory(task_type="counter_speech", redundancy=5, keep_import_order=True)
    item = ItemFactory(project=project)
    canonical = get_task_type("counter_speech").order_parts(item.payload)
    for _ in range(5):
        assignment = assignment_next(project=project, worker=UserFactory()).assignment
        assert Assignment.objects.get(pk=assignment.pk).shown_order == canonical


def test_a_type_without_reorderable_parts_stores_none():
    project = ProjectFactory(task_type="response_scoring")
    ItemFactory(project=project)
    assignment = assignment_next(project=project, worker=UserFactory()).assignment
    assert Assignment.objects.get(pk=assignment.pk).shown_order is None


def _radio_values(html: str, name: str) -> list[str]:
    return re.findall(rf'<input type="radio" name="{name}" value="([^"]+)"', html)


def test_the_pairwise_page_shows_the_drawn_sides_and_stores_the_canonical_answer(client):
    project = ProjectFactory(redundancy=40)
    item = ItemFactory(project=project)
    swapped = None
    for _ in range(40):  # workers until one is shown arg2 on the left
        worker = UserFactory()
        client.force_login(worker)
        page = client.get(f"/projects/{project.slug}/annotate/").content.decode()
        assignment = Assignment.objects.get(worker=worker)
        sides = assignment.shown_order["sides"]
        left_text = item.payload[f"arg{sides[0][1]}"]["text"]
        # The left column (A1) holds the argument drawn first; key 1 answers it, by its import side.
        pair = page.split('data-testid="pair"')[1]
        assert pair.index(left_text) < pair.index(item.payload[f"arg{sides[1][1]}"]["text"])
        assert _radio_values(page, "label") == [sides[0], sides[1], "equal"]
        if sides[0] == "a2":
            swapped = (worker, assignment, page)
            break
    assert swapped is not None
    worker, assignment, page = swapped
    submit = page.split('hx-post="')[1].split('"')[0]
    # A refused answer is shown again in the same order, the choice kept.
    refused = client.post(submit, {"label": "a2", "standpoint": "none", "reason": "short"}, HTTP_HX_REQUEST="true")
    again = refused.content.decode()
    assert _radio_values(again, "label") == ["a2", "a1", "equal"]
    assert re.search(r'value="a2"[^>]*checked', again)
    # "A1 is more convincing" on this page is the item's arg2: stored as a2.
    client.post(submit, {"label": "a2", "standpoint": "none", "reason": REASON}, HTTP_HX_REQUEST="true")
    assert Annotation.objects.get(assignment=assignment).answer["label"] == "a2"


def test_the_api_sends_options_in_the_drawn_order_with_the_order_itself():
    project = ProjectFactory(task_type="key_points", redundancy=10)
    item = ItemFactory(project=project)
    canonical = [kp["id"] for kp in item.payload["key_points"]]
    assert len(canonical) >= 2
    orders = set()
    for _ in range(10):
        api = APIClient()
        api.force_authenticate(UserFactory())
        body = api.post(f"/api/projects/{project.slug}/assignments/next/").json()["assignment"]
        shown = [kp["id"] for kp in body["item"]["payload"]["key_points"]]
        assert body["shown_order"] == {"key_points": shown}
        assert shown == Assignment.objects.get(pk=body["id"]).shown_order["key_points"]
        assert sorted(shown) == sorted(canonical)
        orders.add(tuple(shown))
        # The answer names key points by id, whatever their place.
        r = api.post(f"/api/assignments/{body['id']}/submit/", {"key_points": [shown[0]]}, format="json")
        assert r.status_code == 201, r.content
        assert Annotation.objects.get(assignment_id=body["id"]).answer["key_points"] == [shown[0]]
    assert len(orders) > 1


def test_the_export_carries_the_shown_order_of_every_annotation(client):
    project = ProjectFactory(redundancy=4)
    ItemFactory(project=project)
    admin = UserFactory(role="admin")
    for _ in range(4):
        worker = UserFactory()
        assignment = assignment_next(project=project, worker=worker).assignment
        annotation_submit(assignment=assignment, worker=worker, data=answer("a1"))
    # An assignment from before orders were drawn (or collected elsewhere) exports import order.
    Assignment.objects.filter(pk=Assignment.objects.order_by("pk").first().pk).update(shown_order=None)
    client.force_login(admin)
    body = b"".join(client.get(f"/projects/{project.slug}/export/annotations.csv").streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(body)))
    stored = {a.pk: a.shown_order for a in Assignment.objects.filter(project=project)}
    for row in rows:
        order = stored[int(row["assignment"])] or {"sides": ["a1", "a2"]}
        assert json.loads(row["shown_order"]) == order
        assert row["label"] == "a1"
