"""A worker's gold accuracy stays true when a gold question changes after it was answered:
withdrawn (its answers stop counting), its gold answer corrected (answers scored again), a gold
answer rejected (it counts no more, and again once approved)."""

import pytest

from annotation.models import Assignment, Purpose
from annotation.services import annotation_submit, assignment_next, assignment_review
from quality.models import CheckResult, WorkerStanding
from quality.services import check_serving as serving
from quality.services.adjudication import item_adjudicate
from quality.services.flags import item_withdraw
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.quality_factories import check_item, quality_policy

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def always_gold(monkeypatch):
    monkeypatch.setattr(serving, "draw", lambda: 0.0)


def counts(project, worker):
    s = WorkerStanding.objects.get(project=project, worker=worker)
    return s.gold_answered, s.gold_right


@pytest.fixture
def answered():
    """A worker who answered two gold questions with a2: one expects a1 (wrong), one a2 (right)."""
    project = ProjectFactory()
    quality_policy(project, gold_rate=0.5)
    wrong_one = check_item(project, answer={"label": "a1"})
    right_one = check_item(project, answer={"label": "a2"})
    ItemFactory(project=project)
    worker = UserFactory()
    for _ in range(2):
        a = assignment_next(project=project, worker=worker).assignment
        assert a.purpose == Purpose.GOLD
        annotation_submit(assignment=a, worker=worker, data=answer(label="a2"))
    assert counts(project, worker) == (2, 1)
    return project, worker, wrong_one, right_one


def test_withdrawing_a_gold_question_takes_its_answers_out_of_the_counts(answered):
    project, worker, wrong_one, _ = answered
    item_withdraw(item=wrong_one, actor=None)
    assert counts(project, worker) == (1, 1)


def test_correcting_a_gold_answer_scores_the_answers_again(answered):
    project, worker, wrong_one, _ = answered
    item_adjudicate(item=wrong_one, answer={"label": "a2"}, why="The pair's first argument is off topic.",
                    actor=UserFactory(role="admin"), make_gold=True)
    result = CheckResult.objects.get(assignment__item=wrong_one)
    assert (result.right, result.score, result.expected) == (True, 1.0, {"label": "a2"})
    assert counts(project, worker) == (2, 2)


def test_a_rejected_gold_answer_counts_no_more_until_approved(answered):
    project, worker, _, right_one = answered
    a = Assignment.objects.get(item=right_one, worker=worker)
    assignment_review(assignment=a, approve=False, note="copied")
    assert counts(project, worker) == (1, 0)
    assignment_review(assignment=a, approve=True, note="checked again")
    assert counts(project, worker) == (2, 1)
