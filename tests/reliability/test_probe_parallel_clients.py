"""100 annotators at once through the API of a gunicorn server: no item over its N answers, no
worker twice on an item, and every answer the server acknowledged is stored (and nothing else)."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter

import pytest
import requests
from rest_framework.authtoken.models import Token

from annotation.models import Annotation, Assignment, Item
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.support.probe_server import shared_gunicorns

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
CLIENTS = 100
ITEMS = 34
N = 3
# Bounds: every client is done within this, and no request waits longer than TIMEOUT.
WALL_SECONDS = 120
TIMEOUT = 30


def annotate(url: str, slug: str, token: str, seed: int, acknowledged: list[int], errors: list[str],
             barrier: threading.Barrier) -> None:
    rng = random.Random(seed)
    session = requests.Session()
    session.headers["Authorization"] = f"Token {token}"
    try:
        barrier.wait()
        while True:
            r = session.post(f"{url}/api/projects/{slug}/assignments/next/", timeout=TIMEOUT)
            if r.status_code != 200:
                errors.append(f"next {r.status_code}: {r.text[:200]}")
                return
            held = r.json()["assignment"]
            if held is None:
                return
            body = answer(rng.choice(["a1", "a2", "equal"]))
            r = session.post(f"{url}/api/assignments/{held['id']}/submit/", json=body, timeout=TIMEOUT)
            if r.status_code != 201:
                errors.append(f"submit {r.status_code}: {r.text[:200]}")
                return
            stored_id = r.json()["id"]
            acknowledged.append(stored_id)
            if rng.random() < 0.2:  # a double click: the stored answer comes back, nothing new
                again = session.post(f"{url}/api/assignments/{held['id']}/submit/", json=body, timeout=TIMEOUT)
                if again.status_code != 200 or again.json()["id"] != stored_id:
                    errors.append(f"repeat {again.status_code}: {again.text[:200]}")
    except Exception as exc:
        errors.append(f"{type(exc).__name__}: {exc}")


def test_100_parallel_clients_with_n_3(worker_processes):
    project = ProjectFactory(redundancy=N)
    ItemFactory.create_batch(ITEMS, project=project)
    tokens = [Token.objects.create(user=u).key for u in UserFactory.create_batch(CLIENTS)]
    acknowledged: list[int] = []
    errors: list[str] = []
    url = shared_gunicorns(worker_processes)[0]
    barrier = threading.Barrier(CLIENTS)
    clients = [threading.Thread(target=annotate, args=(url, project.slug, t, i, acknowledged, errors, barrier))
               for i, t in enumerate(tokens)]
    started = time.monotonic()
    for c in clients:
        c.start()
    for c in clients:
        c.join(timeout=max(WALL_SECONDS - (time.monotonic() - started), 1))
    assert not any(c.is_alive() for c in clients), f"clients still running after {WALL_SECONDS} s"
    assert not errors, errors[:5]

    counted = Assignment.objects.filter(project=project, status__in=Assignment.COUNTED_STATUSES)
    per_item = Counter(counted.values_list("item_id", flat=True))
    assert max(per_item.values()) <= N, "an item got more than N answers"
    # Everyone asked until nothing was left, and nobody gave an item back: every item is full.
    assert sorted(per_item.values()) == [N] * ITEMS
    for item in Item.objects.filter(project=project):
        assert item.n_active == item.assignments.filter(status__in=Assignment.SLOT_STATUSES).count()
    pairs = list(Assignment.objects.filter(project=project).values_list("item_id", "worker_id"))
    assert len(pairs) == len(set(pairs)), "a worker got an item twice"
    stored = set(Annotation.objects.filter(assignment__project=project).values_list("pk", flat=True))
    assert len(acknowledged) == len(set(acknowledged)) == ITEMS * N
    assert set(acknowledged) == stored, "an acknowledged answer is not stored, or one is stored unacknowledged"
