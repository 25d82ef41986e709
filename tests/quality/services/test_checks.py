"""Gold answers are scored in the submission, counted for the worker, shown as feedback when
the project says so, and judged by the gold-accuracy rules with their sequential test."""

import math

import pytest

from annotation.models import Assignment, Purpose, Standing
from annotation.services import WorkflowError, annotation_submit, assignment_next
from annotation.services.revisions import annotation_revise
from quality.models import CheckResult, QualityPolicy, QualityRule, RuleDecision, WorkerStanding
from quality.services import check_serving as serving
from quality.services.rules.verdicts import gold_accuracy_evidence
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.quality_factories import check_item, quality_policy

pytestmark = pytest.mark.django_db
RIGHT, WRONG = "a1", "a2"


@pytest.fixture(autouse=True)
def always_gold(monkeypatch):
    monkeypatch.setattr(serving, "draw", lambda: 0.0)


def gold_project(n_gold=12, **policy):
    project = ProjectFactory()
    quality_policy(project, gold_rate=0.5, **policy)
    for _ in range(n_gold):
        check_item(project, answer={"label": RIGHT}, explanation="A1 gives evidence.")
    ItemFactory(project=project)
    return project


def answer_gold(project, worker, label):
    a = assignment_next(project=project, worker=worker).assignment
    assert a.purpose == Purpose.GOLD
    return annotation_submit(assignment=a, worker=worker, data=answer(label=label))


def test_a_gold_answer_is_scored_and_counted_and_feedback_follows_the_setting():
    project = gold_project()
    worker = UserFactory()
    right = answer_gold(project, worker, RIGHT)
    wrong = answer_gold(project, worker, WRONG)
    assert (right.check.result.right, right.check.result.score, wrong.check.result.score) == (True, 1.0, 0.0)
    assert wrong.check.result.method == "exact" and wrong.check.result.expected == {"label": RIGHT}
    assert right.feedback is None and wrong.feedback is None  # feedback is off by default
    standing = WorkerStanding.objects.get(project=project, worker=worker)
    assert (standing.gold_answered, standing.gold_right) == (2, 1)
    # The answer itself is kept, as every answer is.
    assert right.annotation.answer["label"] == RIGHT and right.assignment.status == Assignment.Status.SUBMITTED
    quality_policy(project, gold_feedback=True)
    shown = answer_gold(project, worker, WRONG)
    assert shown.feedback is shown.check and shown.feedback.explanation == "A1 gives evidence."


def test_a_task_answer_has_no_check_and_a_repeat_scores_nothing_twice():
    project = ProjectFactory()
    ItemFactory(project=project)
    worker = UserFactory()
    a = assignment_next(project=project, worker=worker).assignment
    assert annotation_submit(assignment=a, worker=worker, data=answer()).check is None
    gold = gold_project()
    g = assignment_next(project=gold, worker=worker).assignment
    annotation_submit(assignment=g, worker=worker, data=answer(label=RIGHT))
    repeat = annotation_submit(assignment=g, worker=worker, data=answer(label=RIGHT))
    assert repeat.created is False and repeat.check is None
    assert CheckResult.objects.filter(assignment=g).count() == 1
    assert WorkerStanding.objects.get(project=gold, worker=worker).gold_answered == 1


def test_a_pair_that_accepts_a_tie_scores_it_right():
    project = ProjectFactory()
    quality_policy(project, gold_rate=0.5)
    check_item(project, answer={"label": RIGHT}, accept=[{"label": "equal"}])
    ItemFactory(project=project)  # a gold question stands in for a real item the worker could have
    worker = UserFactory()
    outcome = answer_gold(project, worker, "equal")
    assert outcome.check.result.right and outcome.check.result.method == "accepted alternative"


def rule(project, **fields):
    defaults = {"kind": QualityRule.Kind.GOLD_ACCURACY, "action": QualityRule.Action.BLOCK, "threshold": 0.8,
                "min_answers": 3, "confidence": 0.95}
    return QualityRule.objects.create(project=project, **{**defaults, **fields})


def test_two_of_three_right_against_a_bar_of_point_eight_does_not_block():
    project = gold_project()
    rule(project)
    worker = UserFactory()
    for label in (RIGHT, WRONG, RIGHT):
        answer_gold(project, worker, label)
    assert WorkerStanding.objects.get(project=project, worker=worker).state == Standing.ACTIVE
    assert not RuleDecision.objects.exists()


def test_a_worker_whose_test_decides_below_the_bar_is_blocked_with_the_evidence():
    project = gold_project()
    decided_by = rule(project)
    worker = UserFactory()
    for _ in range(5):
        answer_gold(project, worker, WRONG)
    # Each wrong answer adds log(0.35 / 0.2) = 0.5596 (H1 an accuracy of 0.65, 15 points below
    # the bar of 0.8); 5 of them (2.798) stay below log(1 / 0.05) = 2.9957, the 6th passes it.
    assert not RuleDecision.objects.filter(worker=worker).exists()
    answer_gold(project, worker, WRONG)
    decision = RuleDecision.objects.get(worker=worker)
    assert decision.rule == decided_by and decision.trigger == "gold answer"
    assert decision.evidence == {"right": 0, "answered": 6, "accuracy": 0.0, "threshold": 0.8, "confidence": 0.95,
                                 "alternative": 0.65, "test": "sprt", "llr": 3.3577, "bound": 2.9957, "alpha": 0.05,
                                 "p0": 0.2, "p1": 0.35, "min_answers": 3, "basis": "6 gold answers"}
    assert WorkerStanding.objects.get(project=project, worker=worker).state == Standing.BLOCKED
    assert assignment_next(project=project, worker=worker).reason == "blocked"


def test_the_rule_waits_for_its_minimum_and_a_review_rule_sends_to_review():
    project = gold_project()
    rule(project, min_answers=5, action=QualityRule.Action.REVIEW)
    rule(project, enabled=False)
    worker = UserFactory()
    for _ in range(5):
        answer_gold(project, worker, WRONG)
    assert WorkerStanding.objects.get(project=project, worker=worker).state == Standing.ACTIVE
    answer_gold(project, worker, WRONG)
    assert WorkerStanding.objects.get(project=project, worker=worker).state == Standing.REVIEW
    # Where the project lets a worker in review keep working, the rule does not decide twice.
    QualityPolicy.objects.filter(project=project).update(review_pauses_work=False)
    answer_gold(project, worker, WRONG)
    assert RuleDecision.objects.filter(worker=worker).count() == 1


@pytest.mark.parametrize(("right", "answered", "decides"), [(2, 3, False), (0, 2, False), (0, 5, False),
                                                            (0, 6, True), (7, 10, False), (10, 20, True)])
def test_the_evidence_is_the_sequential_tests_ratio_against_its_bound(right, answered, decides):
    bar = QualityRule(threshold=0.8, min_answers=3, confidence=0.95)
    evidence = gold_accuracy_evidence(rule=bar, right=right, answered=answered)
    assert (evidence is not None) == decides
    if evidence:
        assert evidence["llr"] >= evidence["bound"] == round(math.log(20), 4)


def test_a_worker_stopped_in_the_project_cannot_submit_a_late_answer():
    project = gold_project()
    worker = UserFactory()
    a = assignment_next(project=project, worker=worker).assignment
    WorkerStanding.objects.filter(project=project, worker=worker).update(state=Standing.BLOCKED)
    with pytest.raises(WorkflowError, match="no longer take part"):
        annotation_submit(assignment=a, worker=worker, data=answer())


def test_an_answer_whose_expected_answer_was_shown_cannot_be_changed():
    project = gold_project(gold_feedback=True)
    worker = UserFactory()
    shown = answer_gold(project, worker, WRONG)
    with pytest.raises(WorkflowError, match="expected answer was shown"):
        annotation_revise(assignment=shown.assignment, worker=worker, data=answer(label=RIGHT))
    # Without feedback a gold answer changes like any other; its score stays the first answer's.
    quiet = gold_project()
    hidden = answer_gold(quiet, worker, WRONG)
    assert annotation_revise(assignment=hidden.assignment, worker=worker, data=answer(label=RIGHT)).changed
    assert CheckResult.objects.get(assignment=hidden.assignment).right is False
