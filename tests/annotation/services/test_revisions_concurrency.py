"""Changes to one answer racing each other, and racing a review: one winner, nothing lost."""

import threading

import pytest
from django.db import close_old_connections, connection

from annotation.models import Annotation, AnnotationRevision
from annotation.services import WorkflowError, annotation_submit, assignment_next, assignment_review
from annotation.services.revisions import annotation_revise
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.support.runtime import is_postgres

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def real_database():
    if not is_postgres() and connection.settings_dict["NAME"].startswith(("file:memorydb", ":memory:")):
        pytest.skip("threads need a database server or a SQLite file (set SQLITE_TEST_PATH); CI runs this on PostgreSQL")


def run_at_once(calls):
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(i, call):
        try:
            barrier.wait()
            results[i] = call()
        except Exception as exc:  # noqa: BLE001 - the test inspects what each call raised
            results[i] = exc
        finally:
            close_old_connections()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_two_windows_changing_one_answer_at_once_keep_every_version():
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    worker = UserFactory()
    a = assignment_next(project=project, worker=worker).assignment
    annotation_submit(assignment=a, worker=worker, data=answer("a1"))
    labels = ["a2", "equal", "a2", "equal", "a2", "equal"]
    results = run_at_once([
        (lambda label=label: annotation_revise(assignment=a, worker=worker, data=answer(label), version=1))
        for label in labels
    ])
    won = [r for r in results if not isinstance(r, Exception)]
    lost = [r for r in results if isinstance(r, Exception)]
    assert all(isinstance(e, WorkflowError) and "changed meanwhile" in str(e) for e in lost)
    # The winner's answer is current; its repeats are no-ops; everything else was refused.
    current = Annotation.objects.get(assignment=a)
    assert current.version == 2 and [r.changed for r in won].count(True) == 1
    assert all(r.annotation.answer == current.answer for r in won)
    assert list(AnnotationRevision.objects.values_list("version", "answer__label")) == [(1, "a1")]


def test_a_change_racing_a_review_either_lands_before_it_or_is_refused():
    project = ProjectFactory(redundancy=1)
    ItemFactory.create_batch(8, project=project)
    worker = UserFactory()
    for _ in range(8):
        a = assignment_next(project=project, worker=worker).assignment
        annotation_submit(assignment=a, worker=worker, data=answer("a1"))
        results = run_at_once([
            lambda a=a: annotation_revise(assignment=a, worker=worker, data=answer("a2")),
            lambda a=a: assignment_review(assignment=a, approve=True),
        ])
        current = Annotation.objects.get(assignment=a)
        if isinstance(results[0], Exception):
            assert "reviewed" in str(results[0]) and current.answer["label"] == "a1"
            assert not AnnotationRevision.objects.filter(annotation=current).exists()
        else:
            assert current.answer["label"] == "a2" and current.version == 2
            assert AnnotationRevision.objects.get(annotation=current).answer["label"] == "a1"
