"""Training rounds: the qualification gate with its attempts, re-calibration rounds staff send,
and how each round's result moves the worker."""

import pytest

from annotation.models import AuditEntry, ItemKind, Purpose, Standing
from annotation.services import WorkflowError, annotation_submit, assignment_next
from quality.models import CheckResult, TrainingRound, WorkerStanding
from quality.services.standing import standing_set
from quality.services.training import training_round_start, training_rounds_send
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.quality_factories import check_item, quality_policy

pytestmark = pytest.mark.django_db
RIGHT, WRONG = "a1", "a2"  # the worked example's gold label is a1


def qualifying_project(k=2, attempts=2, training=6, pass_mark=0.5, feedback="after_each"):
    project = ProjectFactory()
    quality_policy(project, qualification_items=k, qualification_attempts=attempts, qualification_pass=pass_mark,
                   training_feedback=feedback)
    for _ in range(training):
        check_item(project, kind=ItemKind.TRAINING, answer={"label": RIGHT})
    real = ItemFactory(project=project)
    return project, real


def take_round(project, worker, labels):
    outcomes = []
    for label in labels:
        result = assignment_next(project=project, worker=worker)
        assert result.assignment.purpose == Purpose.TRAINING, result
        outcomes.append(annotation_submit(assignment=result.assignment, worker=worker, data=answer(label=label)))
    return outcomes


def state(project, worker):
    return WorkerStanding.objects.get(project=project, worker=worker).state


def test_passing_the_qualification_makes_the_worker_active_and_real_items_follow():
    project, real = qualifying_project()
    worker = UserFactory()
    outcomes = take_round(project, worker, [RIGHT, WRONG])
    # Every training answer is scored and shown: the expected answer and why.
    checks = [o.feedback for o in outcomes]
    assert [c.result.right for c in checks] == [True, False] and all(c.feedback for c in checks)
    assert checks[1].result.expected == {"label": RIGHT} and checks[1].explanation
    done = TrainingRound.objects.get(project=project, worker=worker)
    assert (done.answered, done.right, done.passed) == (2, 1, True) and done.finished_at is not None
    assert CheckResult.objects.filter(round=done).count() == 2
    assert state(project, worker) == Standing.ACTIVE
    after = assignment_next(project=project, worker=worker)
    assert after.assignment.item_id == real.pk and after.round is None


def test_a_failed_qualification_may_be_taken_again_until_the_attempts_are_spent():
    project, real = qualifying_project(attempts=2)
    worker = UserFactory()
    take_round(project, worker, [WRONG, WRONG])
    stopped = assignment_next(project=project, worker=worker)
    assert stopped.reason == "qualification_failed" and stopped.attempts_left == 1
    assert stopped.round.passed is False and state(project, worker) == Standing.QUALIFYING
    second = training_round_start(project=project, worker=worker, kind=TrainingRound.Kind.QUALIFICATION)
    assert second.number == 2
    with pytest.raises(WorkflowError, match="already open"):
        training_round_start(project=project, worker=worker, kind=TrainingRound.Kind.QUALIFICATION)
    take_round(project, worker, [RIGHT, WRONG, WRONG][1:])
    assert state(project, worker) == Standing.SCREENED_OUT
    assert assignment_next(project=project, worker=worker).reason == "screened_out"
    with pytest.raises(WorkflowError, match="not qualifying"):
        training_round_start(project=project, worker=worker, kind=TrainingRound.Kind.QUALIFICATION)
    # The training items are never served twice; the real item was never served.
    assert not project.assignments.filter(worker=worker, item=real).exists()


def test_a_failed_qualification_with_no_item_left_for_another_screens_out_at_once():
    """Attempts are left, but no round could open: the worker is told now (with the
    screened-out code) rather than offered a "Try again" that always fails."""
    project, _ = qualifying_project(k=2, attempts=3, training=2)
    worker = UserFactory()
    take_round(project, worker, [WRONG, WRONG])
    standing = WorkerStanding.objects.get(project=project, worker=worker)
    assert standing.state == Standing.SCREENED_OUT and "no training item is left" in standing.reason
    assert assignment_next(project=project, worker=worker).reason == "screened_out"
    with pytest.raises(WorkflowError, match="screened out"):
        training_round_start(project=project, worker=worker, kind=TrainingRound.Kind.QUALIFICATION)


def test_recalibration_sends_everyone_back_and_a_failed_round_sends_to_review():
    project = ProjectFactory()
    for _ in range(4):
        check_item(project, kind=ItemKind.TRAINING, answer={"label": RIGHT})
    for _ in range(3):
        ItemFactory(project=project)
    staff, good, poor, blocked = UserFactory(role="admin"), UserFactory(), UserFactory(), UserFactory()
    for w in (good, poor, blocked):
        assert assignment_next(project=project, worker=w).assignment.purpose == Purpose.TASK
    standing_set(project=project, worker=blocked, state=Standing.BLOCKED)
    assert training_rounds_send(project=project, actor=staff, note="new guidelines") == 2
    entry = AuditEntry.objects.get(action="send_to_training")
    assert entry.actor == staff and entry.details["rounds"] == 2 and entry.target == "everyone"
    # The held real item is kept; the round's items come after it (k is 1 without a qualification).
    for w, label in ((good, RIGHT), (poor, WRONG)):
        held = assignment_next(project=project, worker=w)
        assert held.resumed and held.assignment.purpose == Purpose.TASK
        annotation_submit(assignment=held.assignment, worker=w, data=answer())
        outcome = take_round(project, w, [label])[0]
        assert outcome.feedback is not None
    rounds = {r.worker_id: r for r in TrainingRound.objects.filter(kind=TrainingRound.Kind.RECALIBRATION)}
    assert rounds[good.pk].passed is True and rounds[poor.pk].passed is False
    assert rounds[good.pk].sent_by == staff and rounds[good.pk].note == "new guidelines"
    assert state(project, good) == Standing.ACTIVE and state(project, poor) == Standing.REVIEW
    assert "re-calibration" in WorkerStanding.objects.get(project=project, worker=poor).reason
    # Sending again to one worker.
    assert training_rounds_send(project=project, actor=staff, workers=[good]) == 1


def test_a_round_whose_items_run_out_is_judged_on_its_planned_size():
    """An item not answered counts as not right: answering only the sure ones (and skipping,
    flagging or letting the rest expire) cannot pass."""
    project, _ = qualifying_project(k=3, training=3)
    worker = UserFactory()
    take_round(project, worker, [RIGHT])
    # The other training items go (withdrawn, or skipped by the worker) before they are answered.
    project.items.filter(kind=ItemKind.TRAINING).exclude(assignments__worker=worker).update(kind=ItemKind.WITHDRAWN)
    after = assignment_next(project=project, worker=worker)
    done = TrainingRound.objects.get(project=project, worker=worker)
    assert (done.items, done.answered, done.right, done.passed) == (3, 1, 1, False)
    assert after.assignment is None and after.reason == "screened_out"


def test_a_worker_still_qualifying_is_not_sent_to_recalibration():
    project, _ = qualifying_project(k=2, attempts=3, training=6)
    worker = UserFactory()
    take_round(project, worker, [WRONG, WRONG])
    assert training_rounds_send(project=project, actor=None) == 0
    with pytest.raises(WorkflowError, match="only active workers"):
        training_round_start(project=project, worker=worker, kind=TrainingRound.Kind.RECALIBRATION)
    assert WorkerStanding.objects.get(project=project, worker=worker).state == Standing.QUALIFYING


def test_training_answers_are_not_counted_as_the_workers_items():
    """"You answered n items" counts items of the project, as the quota does, not the
    qualification's training items."""
    from annotation.selectors.progress import worker_progress, worker_status

    project, _ = qualifying_project(k=2, training=2)
    worker = UserFactory()
    take_round(project, worker, [RIGHT, RIGHT])
    assert worker_status(project=project, worker=worker).done == 0
    assert worker_progress(project=project, worker=worker).done == 0
