"""The engine's invariants under concurrent requests: no duplicate, never more than N, nothing lost.

Threads and separate processes ask for items and submit at the same time against a real
database server (PostgreSQL, row locks with SKIP LOCKED) or a SQLite file (one writer at a time).
"""

import json
import os
import random
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from django.db import connection

from annotation.models import Annotation, Assignment, Item
from annotation.services import annotation_submit, assignment_next, assignment_return
from task_types.pairwise.tests.factories import REASON
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.support.runtime import ROOT, database_url, is_postgres

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def real_database():
    if not is_postgres() and connection.settings_dict["NAME"].startswith(("file:memorydb", ":memory:")):
        pytest.skip("threads need a database server or a SQLite file (set SQLITE_TEST_PATH); CI runs this on PostgreSQL")


def finish_sequentially(project, workers, reported: dict[str, list[int]]):
    """A worker who found nothing left may have quit while someone else still held a slot that
    was then returned; one more pass by everyone must complete every item."""
    for worker in workers:
        while (result := assignment_next(project=project, worker=worker)).assignment is not None:
            out = annotation_submit(assignment=result.assignment, worker=worker,
                                    data={"label": "a1", "standpoint": "none", "reason": REASON})
            reported.setdefault(worker.username, []).append(out.annotation.pk)


def check_invariants(project, reported: dict[str, list[int]]):
    counted = Assignment.objects.filter(project=project, status__in=Assignment.COUNTED_STATUSES)
    per_item = Counter(counted.values_list("item_id", flat=True))
    for item in Item.objects.filter(project=project):
        assert per_item[item.pk] == item.redundancy, f"{item.external_id} has {per_item[item.pk]} answers"
        held = item.assignments.filter(status__in=Assignment.SLOT_STATUSES).count()
        assert item.n_active == held
    pairs = list(Assignment.objects.filter(project=project).values_list("item_id", "worker_id"))
    assert len(pairs) == len(set(pairs)), "a worker got an item twice"
    assert not Assignment.objects.filter(project=project, status=Assignment.Status.ASSIGNED).exists()
    stored = set(Annotation.objects.filter(assignment__project=project).values_list("pk", flat=True))
    returned = [pk for pks in reported.values() for pk in pks]
    assert len(returned) == len(set(returned)) == len(stored)
    assert set(returned) == stored, "an annotation a worker was told about is missing"
    assert counted.count() == len(stored)


def play(project, worker, out, errors, barrier):
    rng = random.Random(worker.pk)
    try:
        barrier.wait()
        while True:
            result = assignment_next(project=project, worker=worker)
            if result.assignment is None:
                assert result.reason == "done"
                break
            if rng.random() < 0.2:
                assert assignment_next(project=project, worker=worker).assignment.pk == result.assignment.pk
            if rng.random() < 0.1:
                assignment_return(assignment=result.assignment, worker=worker)
                continue
            data = {"label": rng.choice(["a1", "a2", "equal"]), "standpoint": "none", "reason": REASON}
            first = annotation_submit(assignment=result.assignment, worker=worker, data=data)
            if rng.random() < 0.3:
                again = annotation_submit(assignment=result.assignment, worker=worker, data=data)
                assert not again.created and again.annotation.pk == first.annotation.pk
            out.setdefault(worker.username, []).append(first.annotation.pk)
    except Exception as exc:
        errors.append(f"{worker.username}: {type(exc).__name__}: {exc}")
    finally:
        connection.close()


def test_many_threads_asking_and_submitting():
    project = ProjectFactory(redundancy=3)
    ItemFactory.create_batch(40, project=project)
    workers = UserFactory.create_batch(16)
    out, errors = {}, []
    barrier = threading.Barrier(len(workers))
    threads = [threading.Thread(target=play, args=(project, w, out, errors, barrier)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert all(n <= 3 for n in Counter(Assignment.objects.filter(
        project=project, status__in=Assignment.COUNTED_STATUSES).values_list("item_id", flat=True)).values())
    finish_sequentially(project, workers, out)
    check_invariants(project, out)


def test_one_worker_in_many_tabs_gets_one_assignment():
    project = ProjectFactory(redundancy=5)
    ItemFactory.create_batch(10, project=project)
    worker = UserFactory()
    got, errors = [], []
    barrier = threading.Barrier(8)

    def ask():
        try:
            barrier.wait()
            got.append(assignment_next(project=project, worker=worker).assignment.pk)
        except Exception as exc:
            errors.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    assert len(set(got)) == 1 and len(got) == 8
    assert Assignment.objects.filter(worker=worker).count() == 1
    assert sum(Item.objects.filter(project=project).values_list("n_active", flat=True)) == 1


@pytest.mark.integration
@pytest.mark.postgres
def test_many_processes_asking_and_submitting():
    if not is_postgres():
        pytest.skip("separate processes need a database server; CI runs this on PostgreSQL")
    project = ProjectFactory(redundancy=4)
    ItemFactory.create_batch(50, project=project)
    workers = UserFactory.create_batch(24)
    names = [w.username for w in workers]
    env = {**os.environ, "DATABASE_URL": database_url()}
    script = str(Path(__file__).with_name("concurrent_client.py"))
    procs = [
        subprocess.Popen([sys.executable, script, project.slug, ",".join(names[i::4])], cwd=ROOT, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for i in range(4)
    ]
    reported, errors = {}, []
    for p in procs:
        stdout, stderr = p.communicate(timeout=300)
        assert p.returncode == 0, stderr[-2000:]
        result = json.loads(stdout.strip().splitlines()[-1])
        reported.update(result["annotations"])
        errors += result["errors"]
    assert not errors, errors
    finish_sequentially(project, workers, reported)
    check_invariants(project, reported)
