"""Submitting answers: validation on the server, idempotency, review."""

from datetime import timedelta

import pytest

from annotation.models import Annotation, Assignment
from annotation.services import (
    WorkflowError,
    annotation_submit,
    assignment_next,
    assignment_return,
    assignment_review,
)
from annotation.task_types.base import AnswerInvalid
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
S = Assignment.Status


@pytest.fixture
def leased():
    project = ProjectFactory(redundancy=1)
    ItemFactory.create_batch(2, project=project)
    worker = UserFactory()
    return project, worker, assignment_next(project=project, worker=worker).assignment


def test_submit_is_idempotent(leased):
    _, worker, a = leased
    first = annotation_submit(assignment=a, worker=worker, data=answer("a1"))
    replay = annotation_submit(assignment=a, worker=worker, data=answer("a2"))
    assert first.created and not replay.created
    assert replay.annotation.pk == first.annotation.pk
    assert replay.annotation.answer["label"] == "a1"
    assert Annotation.objects.filter(assignment=a).count() == 1


def test_invalid_answer_writes_nothing(leased):
    _, worker, a = leased
    with pytest.raises(AnswerInvalid):
        annotation_submit(assignment=a, worker=worker, data=answer(reason="too short"))
    a.refresh_from_db()
    assert a.status == S.ASSIGNED and not Annotation.objects.exists()


def test_someone_elses_assignment_is_refused(leased):
    _, _, a = leased
    with pytest.raises(WorkflowError, match="someone else"):
        annotation_submit(assignment=a, worker=UserFactory(), data=answer())


def test_returned_assignment_takes_no_answer(leased):
    _, worker, a = leased
    assignment_return(assignment=a, worker=worker)
    with pytest.raises(WorkflowError, match="skipped"):
        annotation_submit(assignment=a, worker=worker, data=answer())


def test_time_spent_is_the_servers_and_the_clients_claim_is_kept_beside_it(leased):
    _, worker, a = leased
    arrived = a.assigned_at + timedelta(seconds=0.2)
    result = annotation_submit(assignment=a, worker=worker, data=answer(), now=arrived,
                               client={"elapsed_ms": "5100", "input": "keyboard"})
    stored = Annotation.objects.get(pk=result.annotation.pk)
    # A client that claims 4.9 s more than the server saw does not make the answer slower.
    assert stored.seconds == pytest.approx(0.2) and stored.client_seconds == pytest.approx(5.1)
    assert stored.client == {"input": "keyboard"}


def test_a_client_time_that_is_no_time_is_not_kept(leased):
    _, worker, a = leased
    result = annotation_submit(assignment=a, worker=worker, data=answer(), client={"elapsed_ms": "-3"})
    stored = Annotation.objects.get(pk=result.annotation.pk)
    assert stored.client_seconds is None and 0 <= stored.seconds < 60


def test_stored_answer_and_reason(leased):
    _, worker, a = leased
    result = annotation_submit(assignment=a, worker=worker, data=answer("equal", "opposite", "  Both give one example and neither explains it.  "))
    ann = Annotation.objects.get(pk=result.annotation.pk)
    assert ann.answer == {"label": "equal", "standpoint": "opposite"}
    assert ann.reason == "Both give one example and neither explains it."
    a.refresh_from_db()
    assert a.status == S.SUBMITTED and a.submitted_at is not None


def test_rejection_frees_the_slot_and_approval_keeps_it(leased):
    project, worker, a = leased
    annotation_submit(assignment=a, worker=worker, data=answer())
    other = UserFactory()
    assert assignment_next(project=project, worker=other).assignment.item_id != a.item_id
    assignment_review(assignment=a, approve=False, note="copied reason")
    a.item.refresh_from_db()
    assert a.item.n_active == 0
    third = UserFactory()
    assert assignment_next(project=project, worker=third).assignment.item_id == a.item_id
    with pytest.raises(WorkflowError, match="filled again"):
        assignment_review(assignment=a, approve=True)


def test_review_needs_submitted_work(leased):
    _, _, a = leased
    with pytest.raises(WorkflowError, match="Only submitted work"):
        assignment_review(assignment=a, approve=True)


def test_a_repeat_says_whether_it_was_the_answer_already_stored(leased):
    _, worker, a = leased
    annotation_submit(assignment=a, worker=worker, data=answer("a1"))
    same = annotation_submit(assignment=a, worker=worker, data=answer("a1"))
    other = annotation_submit(assignment=a, worker=worker, data=answer("a2"))
    broken = annotation_submit(assignment=a, worker=worker, data={"label": "a2"})
    assert not same.created and same.same_answer
    # A different answer (from a second tab, say) is not stored, and the caller is told.
    assert not other.created and not other.same_answer
    assert not broken.created and not broken.same_answer
    assert Annotation.objects.get(assignment=a).answer["label"] == "a1"


def test_a_late_answer_is_marked_late(leased):
    from datetime import timedelta

    from django.utils import timezone

    _, worker, a = leased
    # The lease ran out but nobody swept it: the slot is still this assignment's own.
    result = annotation_submit(assignment=a, worker=worker, data=answer("a1"),
                               now=timezone.now() + timedelta(minutes=a.project.lease_minutes + 1))
    assert result.created and result.counted and result.late
    b = assignment_next(project=a.project, worker=worker).assignment
    on_time = annotation_submit(assignment=b, worker=worker, data=answer("a1"))
    assert on_time.created and not on_time.late
