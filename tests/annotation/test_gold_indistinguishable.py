"""A gold question cannot be told apart from a real item by the worker: not on the page (htmx
or reloaded), not in the API's payloads, not in the response headers, not by the assignment ids
or the order its options are shown in."""

import html
import json
import math
import random
import re
from collections.abc import Iterator
from datetime import timedelta

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from annotation.models import CHECK_ITEM_REDUNDANCY, Assignment, Item, ItemKind, Purpose
from annotation.services import annotation_submit, assignment_next
from annotation.services.engine import set_status
from annotation.task_types import get_task_type
from annotation.task_types.shown_order import assignment_seed, order_for
from quality.services import check_serving as serving
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.quality_factories import check_item, quality_policy

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
# Headers whose values differ between any two responses (when, how long).
VARYING = {"date", "content-length", "expires", "last-modified", "etag"}


@pytest.fixture
def alternating(monkeypatch):
    """Real, gold, real, gold, …: the draw says gold every other time."""
    draws: Iterator[float] = iter([0.99, 0.0] * 20)
    monkeypatch.setattr(serving, "draw", lambda: next(draws))


@pytest.fixture
def project():
    p = ProjectFactory(redundancy=3)
    # Gold and real items alike: gold with feedback on, so that any leak before the answer shows.
    quality_policy(p, gold_rate=0.5, gold_feedback=False)
    for _ in range(4):
        check_item(p, answer={"label": "a1"}, explanation="known")
        ItemFactory(project=p)
    return p


def strings(value) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def skeleton(body: str, a: Assignment) -> str:
    """The page without what belongs to this item: its texts, ids, counts and times."""
    for text in sorted(set(strings(a.item.payload)), key=len, reverse=True):
        if len(text) > 2:
            body = body.replace(html.escape(text), "TEXT").replace(text, "TEXT")
    body = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', 'name="csrfmiddlewaretoken"', body)
    body = re.sub(r'"X-CSRFToken": "[^"]+"', '"X-CSRFToken": ""', body)
    body = re.sub(r"\d+", "0", body)
    # "1 item", "2 items": the worker's count moves by one whatever they answered.
    return re.sub(r"\bitems\b", "item", body)


def headers(response) -> dict[str, str]:
    return {k.lower(): ("" if k.lower() in VARYING else v) for k, v in response.items()}


def shape(value):
    if isinstance(value, dict):
        return {k: shape(v) for k, v in sorted(value.items()) if k != "payload"} | (
            {"payload": shape_payload(value["payload"])} if "payload" in value else {})
    if isinstance(value, list):
        return [shape(v) for v in value[:1]]
    return type(value).__name__


def shape_payload(payload):
    return {k: shape(v) for k, v in sorted(payload.items())}


def test_the_page_of_a_gold_question_is_the_page_of_a_real_item(client, project, alternating):
    worker = UserFactory()
    client.force_login(worker)
    pages: list[tuple[Assignment, str, dict]] = []
    first = client.get(reverse("annotate", args=[project.slug]))
    a = first.context["assignment"]
    # htmx: each answer brings the next item in place; reloaded: a redirect, then the page.
    for path in ("htmx", "htmx", "reload", "reload"):
        if path == "htmx":
            response = client.post(reverse("submit", args=[project.slug, a.pk]), answer(), **HTMX)
        else:
            client.post(reverse("submit", args=[project.slug, a.pk]), answer())
            response = client.get(reverse("annotate", args=[project.slug]))
        a = response.context["assignment"]
        pages.append((a, response.content.decode(), headers(response)))
    purposes = [p[0].purpose for p in pages]
    assert purposes == [Purpose.GOLD, Purpose.TASK, Purpose.GOLD, Purpose.TASK]
    for gold, real in ((pages[0], pages[1]), (pages[2], pages[3])):
        assert skeleton(gold[1], gold[0]) == skeleton(real[1], real[0])
        assert gold[2] == real[2]
    for _, body, _ in pages:
        assert "gold" not in body.lower() and "known" not in body and "purpose" not in body


def test_the_api_gives_a_gold_question_in_the_shape_of_a_real_item(project, alternating):
    worker = UserFactory()
    c = APIClient()
    c.force_authenticate(worker)
    seen = []
    nxt = c.post(reverse("api-next", args=[project.slug]))
    for _ in range(4):
        body = nxt.json()
        seen.append((body, headers(nxt)))
        sent = c.post(reverse("api-submit", args=[body["assignment"]["id"]]) + "?next=1", answer(), format="json")
        nxt_body = sent.json()
        assert set(nxt_body) == {"id", "assignment", "answer", "reason", "seconds", "created_at", "counted", "next"}
        nxt = c.post(reverse("api-next", args=[project.slug]))
    ids = [b["assignment"]["id"] for b, _ in seen]
    purposes = list(Assignment.objects.filter(pk__in=ids).order_by("pk").values_list("purpose", flat=True))
    assert purposes == [Purpose.TASK, Purpose.GOLD, Purpose.TASK, Purpose.GOLD]
    real, gold = seen[0], seen[1]
    assert shape(real[0]) == shape(gold[0]) and real[1] == gold[1]
    assert "gold" not in json.dumps([b for b, _ in seen]).lower()
    assert "purpose" not in json.dumps([b for b, _ in seen])


def test_ids_interleave_and_orders_are_drawn_alike(project, alternating):
    worker = UserFactory()
    served = []
    for _ in range(6):
        a = assignment_next(project=project, worker=worker).assignment
        served.append(a)
        annotation_submit(assignment=a, worker=worker, data=answer())
    ids = [a.pk for a in served]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    kinds = [a.purpose for a in served]
    assert kinds[:4] == [Purpose.TASK, Purpose.GOLD, Purpose.TASK, Purpose.GOLD]
    # Consecutive ids: nothing between a gold question's id and the real items around it.
    assert all(b - a == 1 for a, b in zip(ids, ids[1:], strict=False))
    task = get_task_type(project.task_type)
    for a in served:
        drawn = order_for(parts=task.order_parts(a.item.payload), seed=assignment_seed(item_id=a.item_id,
                          worker_id=worker.pk), keep_import_order=project.keep_import_order)
        assert a.shown_order == drawn


def test_the_project_list_and_the_count_open_to_a_worker_do_not_move_apart_for_gold(client, alternating):
    """The project-wide answers (which a gold answer would not move) are not shown to workers of
    a project with gold questions, and the count of items open to a worker is the real items
    with their expected share of gold, so it neither tells gold apart nor promises gold after
    the real items are done."""
    from annotation.selectors.progress import worker_progress, worker_status

    p = ProjectFactory(redundancy=1)
    quality_policy(p, gold_rate=0.5)
    for _ in range(6):
        check_item(p, answer={"label": "a1"})
    for _ in range(2):
        ItemFactory(project=p)
    worker = UserFactory()
    p.members.add(worker)
    client.force_login(worker)
    page = client.get("/projects/").content.decode()
    assert "Project:" not in page and 'aria-label="Project progress"' not in page
    assert worker_status(project=p, worker=worker).progress is None
    first = assignment_next(project=p, worker=worker).assignment
    assert first is not None and first.purpose == Purpose.TASK
    # The item in hand, and one real item left with its expected gold share at a rate of one
    # half: three, not the eight items there are.
    assert worker_progress(project=p, worker=worker, holding=True).open_to_worker == 1 + round(1 / 0.5)


# --- Arrival: where in the study a gold question comes -------------------------------------------
# A study is simulated through the engine under each order: workers arriving at random, real
# items laid out by topic with gold questions among them (as an item file mixing both lays them
# out), each answer stored at once. A classifier is then trained on what a worker could note as
# each item arrives, to tell gold questions from real items.

STUDY_GROUPS, STUDY_REAL, STUDY_GOLD = 8, 30, 10  # per group: gold questions among the real items
# Serves per worker: long enough that the AUC's spread from one study to the next (about 0.03;
# random order is drawn by the database, unseeded) stays well inside the bound.
STUDY_RATE, STUDY_WORKERS, STUDY_SERVES = 0.25, 6, 80


def _study(order: str, seed: int, monkeypatch) -> list[tuple[int, bool, int, str | None, int]]:
    """(worker, gold?, position, group, database queries to serve) per serve, in the order
    served. The queries stand for the time a serve takes: counted, not timed, so that the
    figure does not move with the machine's load."""
    project = ProjectFactory(redundancy=2, assignment_order=order)
    quality_policy(project, gold_rate=STUDY_RATE)
    task = get_task_type(project.task_type)
    rows, position, every = [], 0, (STUDY_REAL + STUDY_GOLD) // STUDY_GOLD
    for g in range(STUDY_GROUPS):
        for k in range(STUDY_REAL + STUDY_GOLD):
            position += 1
            payload = {"topic": f"topic-{g}", "prompt": f"Prompt {g}?", "stance": "yes",
                       "arg1": {"id": f"a{position}", "text": "One."}, "arg2": {"id": f"b{position}", "text": "Two."}}
            gold = k % every == every // 2
            rows.append(Item(project=project, external_id=f"i{position}", payload=payload, position=position,
                             group=task.item_group(payload), kind=ItemKind.GOLD if gold else ItemKind.REAL,
                             redundancy=CHECK_ITEM_REDUNDANCY if gold else project.redundancy))
    Item.objects.bulk_create(rows)
    rng = random.Random(seed)
    monkeypatch.setattr(serving, "draw", random.Random(seed + 1).random)
    workers = [UserFactory() for _ in range(STUDY_WORKERS)]
    now, served = timezone.now(), []
    for _ in range(STUDY_WORKERS * STUDY_SERVES):
        n = rng.randrange(STUDY_WORKERS)
        now += timedelta(seconds=1)
        with CaptureQueriesContext(connection) as queries:
            a = assignment_next(project=project, worker=workers[n], now=now).assignment
        if a is not None:
            served.append((n, a.purpose == Purpose.GOLD, a.item.position, a.item.group, len(queries)))
            set_status(assignments=[a], new=Assignment.Status.SUBMITTED, now=now)
    return served


def _arrival(served) -> tuple:
    """Per serve after a worker's first: what changed since their previous item, and gold?"""
    features, gold, last = [], [], {}
    for worker, is_gold, position, group, work in served:
        if worker in last:
            prev_position, prev_group = last[worker]
            d = position - prev_position
            features.append([float(group != prev_group), float(d), float(abs(d)), float(work)])
            gold.append(is_gold)
        last[worker] = (position, group)
    return np.array(features), np.array(gold)


def _auc(features, gold, columns) -> float:
    """AUC of a logistic regression on ``columns``, each serve scored by a model fitted
    without it (5-fold), so that the figure is what the classifier does on serves it never saw."""
    model = make_pipeline(StandardScaler(), LogisticRegression())
    scores = cross_val_predict(model, features[:, columns], gold, cv=5, method="predict_proba")[:, 1]
    return float(roc_auc_score(gold, scores))


# The study takes a few seconds per order: the quick tier runs one order (random, whose draw changes
# from run to run), the slow tier the other two (docs/development.md).
@pytest.mark.parametrize("order", [pytest.param("sequential", marks=pytest.mark.slow),
                                   pytest.param("spread", marks=pytest.mark.slow), "random"])
def test_a_gold_question_arrives_like_the_real_item_it_stands_in_for(order, monkeypatch):
    served = _study(order, seed=7, monkeypatch=monkeypatch)
    features, gold = _arrival(served)
    assert gold.sum() >= 40 and (~gold).sum() >= 120
    # Drawn from the group of the real item it stands in for: the topic changes no more often.
    groups = [g for _, _, _, g, _ in served]
    assert len(set(groups)) > 1
    assert _auc(features, gold, [0]) <= 0.6
    # Both claims read the same rows, whatever the draw: serving one takes the same work.
    assert set(features[gold, 3]) == set(features[~gold, 3])
    assert _auc(features, gold, [3]) <= 0.6
    everything = _auc(features, gold, [0, 1, 2, 3])
    # The figures the manual gives (pytest -s prints them).
    print(f"\n{order}: {int(gold.sum())} gold of {len(gold)} serves; AUC group change {_auc(features, gold, [0]):.2f}, "
          f"work {_auc(features, gold, [3]):.2f}, index distance {_auc(features, gold, [1, 2]):.2f}, all {everything:.2f}")
    # Under every order, all of them together: the gold question is the one the worker would
    # meet next (sequential) or the one nearest the real item (spread, random), and the real
    # items go on after it (annotation.services.gold_place).
    assert everything <= 0.6


# The share of gold questions served: a binomial share of the claims at the project's rate,
# under every order, while the worker has a gold question left (docs/quality/gold-questions.md).
# The manual's figure is the full study (slow tier); the quick tier hands out a tenth of it under
# every order, with the same checks at its own tolerance.
RATE, RATE_WORKERS, RATE_SERVES, RATE_SERVES_QUICK = 0.1, 3, 100, 10  # serves per worker


@pytest.mark.parametrize("order", ["sequential", "spread", "random"])
@pytest.mark.parametrize("serves", [RATE_SERVES_QUICK, pytest.param(RATE_SERVES, marks=pytest.mark.slow)])
def test_gold_comes_at_the_rate_under_every_order(order, serves, monkeypatch):
    project = ProjectFactory(redundancy=RATE_WORKERS, assignment_order=order)
    quality_policy(project, gold_rate=RATE)
    for n in range(serves):
        ItemFactory(project=project, position=2 * n)
        if n % 2 == 0:
            check_item(project, position=2 * n + 1)
    rng, below = random.Random(11), []

    def draw() -> float:
        value = rng.random()
        below.append(value < RATE)
        return value

    monkeypatch.setattr(serving, "draw", draw)
    workers = [UserFactory() for _ in range(RATE_WORKERS)]
    gold = served = 0
    for _ in range(serves):
        for worker in workers:
            a = assignment_next(project=project, worker=worker).assignment
            served += 1
            gold += a.purpose == Purpose.GOLD
            set_status(assignments=[a], new=Assignment.Status.SUBMITTED, now=a.assigned_at)
    # The draw alone decides: every draw under the rate brought a gold question, no other did.
    assert len(below) == served and gold == sum(below)
    # So the share is binomial: within three standard errors of the rate.
    assert abs(gold / served - RATE) <= 3 * math.sqrt(RATE * (1 - RATE) / served)
