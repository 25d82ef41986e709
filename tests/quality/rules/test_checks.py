"""Every kind of quality rule judged on stored data: gold accuracy with its interval, MACE
competence and position bias after their runs, too-fast answers, automated browsers; the block
and review actions, and no decision twice on the same evidence."""

from __future__ import annotations

import math

import pytest
from django.utils import timezone

from analysis.models import AnalysisRun
from analysis.services import analysis_run_create, analysis_run_execute
from annotation.models import Assignment, AuditEntry, Standing
from annotation.services import annotation_submit, assignment_next
from annotation.task_types import task_types
from quality.models import RuleDecision, WorkerStanding
from quality.rules.checks import rules_after_run, rules_check
from quality.services.standing import standing_set
from task_types.pairwise.tests.factories import answer
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory
from tests.quality.rules.helpers import answered, rule

pytestmark = pytest.mark.django_db


def gold_counts(project, worker, right: int, answered_: int) -> WorkerStanding:
    return WorkerStanding.objects.create(project=project, worker=worker, gold_answered=answered_, gold_right=right)


def state(project, worker) -> str:
    return WorkerStanding.objects.get(project=project, worker=worker).state


def test_gold_accuracy_judges_by_its_sequential_test_so_two_of_three_does_not_block_and_two_of_twenty_does():
    project = ProjectFactory()
    lucky, poor, few = UserFactory(), UserFactory(), UserFactory()
    gold_counts(project, lucky, 2, 3)
    gold_counts(project, poor, 2, 20)
    gold_counts(project, few, 0, 2)  # below min_answers: not judged
    gold = rule(project, "gold_accuracy", threshold=0.8, min_answers=3, action="block")
    check = rules_check(project=project)
    assert [d.worker_id for d in check.decisions] == [poor.pk]
    decision = check.decisions[0]
    assert decision.rule == gold and decision.action == "block" and decision.kind == "gold_accuracy"
    ev = decision.evidence
    assert (ev["right"], ev["answered"]) == (2, 20) and ev["accuracy"] == 0.1
    # 18 wrong answers, each log(0.35 / 0.2), 2 right, each log(0.65 / 0.8): far past log(20).
    assert ev["llr"] == pytest.approx(18 * math.log(0.35 / 0.2) + 2 * math.log(0.65 / 0.8), abs=1e-4)
    assert ev["llr"] > ev["bound"] == round(math.log(20), 4) and ev["threshold"] == 0.8
    assert state(project, poor) == Standing.BLOCKED
    assert state(project, lucky) == Standing.ACTIVE and state(project, few) == Standing.ACTIVE
    assert AuditEntry.objects.filter(action="rule_check", project=project).count() == 1


def test_blocking_returns_the_workers_open_item_to_the_pool():
    project = ProjectFactory()
    worker = UserFactory()
    gold_counts(project, worker, 1, 20)
    open_one = AssignmentFactory(item=ItemFactory(project=project), worker=worker)
    rule(project, "gold_accuracy", threshold=0.7, min_answers=5, action="block")
    rules_check(project=project)
    open_one.refresh_from_db()
    open_one.item.refresh_from_db()
    assert open_one.status == Assignment.Status.RETURNED and open_one.item.n_active == 0
    assert assignment_next(project=project, worker=worker).assignment is None


def test_review_sends_to_review_and_keeps_the_open_item():
    project = ProjectFactory()
    worker = UserFactory()
    gold_counts(project, worker, 1, 20)
    open_one = AssignmentFactory(item=ItemFactory(project=project), worker=worker)
    rule(project, "gold_accuracy", threshold=0.7, min_answers=5, action="review")
    [decision] = rules_check(project=project).decisions
    assert decision.action == "review" and state(project, worker) == Standing.REVIEW
    open_one.refresh_from_db()
    assert open_one.status == Assignment.Status.ASSIGNED


def test_no_decision_twice_on_the_same_evidence_but_again_on_new_evidence():
    project = ProjectFactory()
    admin, worker = UserFactory(role="admin"), UserFactory()
    gold_counts(project, worker, 1, 20)
    rule(project, "gold_accuracy", threshold=0.7, min_answers=5, action="block")
    assert len(rules_check(project=project).decisions) == 1
    assert rules_check(project=project).decisions == []  # already blocked
    standing_set(project=project, worker=worker, state=Standing.ACTIVE, actor=admin, reason="talked to them")
    assert rules_check(project=project).decisions == []  # the same 20 gold answers
    WorkerStanding.objects.filter(project=project, worker=worker).update(gold_answered=21)
    assert len(rules_check(project=project).decisions) == 1  # a new gold answer, still below the bar
    assert RuleDecision.objects.filter(worker=worker).count() == 2


def test_disabled_rules_and_other_projects_rules_decide_nothing():
    project, other = ProjectFactory(), ProjectFactory()
    worker = UserFactory()
    gold_counts(project, worker, 0, 20)
    rule(project, "gold_accuracy", threshold=0.7, min_answers=5, enabled=False)
    rule(other, "gold_accuracy", threshold=0.7, min_answers=5)
    assert rules_check(project=project).decisions == [] and rules_check(project=other).decisions == []
    assert state(project, worker) == Standing.ACTIVE


def test_too_fast_counts_task_answers_below_a_share_of_the_median_by_its_sequential_test():
    project = ProjectFactory()
    careful, speeder, some = UserFactory(), UserFactory(), UserFactory()
    for _ in range(20):
        answered(project, careful, seconds=20.0)
        answered(project, speeder, seconds=1.0)
    for n in range(20):
        answered(project, some, seconds=1.0 if n < 2 else 20.0)  # 2 of 20: likelier at the bar of 20%
    for _ in range(30):  # gold answers are not timed against the median: fast ones do not count
        answered(project, careful, seconds=0.5, purpose="gold")
    too_fast = rule(project, "too_fast", threshold=0.2, share_of_median=0.25, min_answers=10)
    [decision] = rules_check(project=project).decisions
    assert decision.worker_id == speeder.pk and decision.rule == too_fast
    ev = decision.evidence
    assert ev["median"] == 20.0 and ev["cutoff"] == 5.0 and (ev["too_fast"], ev["answers"]) == (20, 20)
    # H1: 60% too fast (halfway from the bar to all); 20 of 20 add 20 log(0.6 / 0.2).
    assert ev["share"] == 1.0 and ev["alternative"] == 0.6
    assert ev["llr"] == pytest.approx(20 * math.log(3), abs=1e-4) and ev["llr"] > ev["bound"]
    assert state(project, speeder) == Standing.REVIEW


def test_too_fast_waits_for_min_answers():
    project = ProjectFactory()
    speeder = UserFactory()
    for _ in range(4):
        answered(project, speeder, seconds=1.0)
    for _ in range(10):
        answered(project, UserFactory(), seconds=20.0)
    rule(project, "too_fast", threshold=0.1, min_answers=5)
    assert rules_check(project=project).decisions == []


def test_automation_decides_on_answers_from_an_automated_browser():
    project = ProjectFactory()
    bot, once, human = UserFactory(), UserFactory(), UserFactory()
    webdriver = {"signals": {"webdriver": True, "pasted": 0, "hidden_ms": 0, "blurs": 0}}
    for _ in range(3):
        answered(project, bot, client=webdriver)
    answered(project, bot)
    answered(project, once, client=webdriver)
    answered(project, human, client={"signals": {"webdriver": False}})
    rule(project, "automation", threshold=0, min_answers=2, action="block")
    [decision] = rules_check(project=project).decisions
    assert decision.worker_id == bot.pk and decision.evidence["automated"] == 3 and decision.evidence["answers"] == 4
    assert state(project, bot) == Standing.BLOCKED


def _answer_all(project, workers, pick):
    for worker in workers:
        while (assignment := assignment_next(project=project, worker=worker).assignment) is not None:
            annotation_submit(assignment=assignment, worker=worker, data=answer(pick(worker, assignment)))


def _run(project, kind, **params):
    run = analysis_run_create(project=project, kind=kind, params=params)
    return analysis_run_execute(run_id=run.pk)


def test_an_agreement_run_has_the_competence_rule_judge_its_intervals():
    project = ProjectFactory(redundancy=6)
    items = [ItemFactory(project=project) for _ in range(40)]
    truth = {item.pk: ("a1", "a2")[n % 2] for n, item in enumerate(items)}
    careful = [UserFactory() for _ in range(5)]
    spammer = UserFactory(username="spammer")
    # The spammer answers "equal" to everything; the careful workers give the truth.
    _answer_all(project, [*careful, spammer],
                lambda w, a: "equal" if w is spammer else truth[a.item_id])
    competence = rule(project, "competence", threshold=0.5, min_answers=10, action="block")
    run = _run(project, "agreement", n_boot=0, competence_replicates=20)
    rows = {row["worker"]: row for row in run.result["workers"]}
    assert run.result["competence_replicates"] == 20
    assert all({"competence_low", "competence_high"} <= set(row) for row in rows.values())
    assert rows["spammer"]["competence_high"] < 0.5 <= min(rows[w.username]["competence_high"] for w in careful)
    decision = RuleDecision.objects.get()  # made when the run finished
    assert decision.worker == spammer and decision.rule == competence
    assert decision.evidence["run"] == run.pk and decision.evidence["answers"] == 40
    assert decision.evidence["low"] <= decision.evidence["competence"] <= decision.evidence["high"] + 1e-9
    assert decision.trigger == f"analysis run {run.pk} (agreement)"
    assert rules_after_run(run=run) == []  # judging the same run again decides nothing
    # Checking now reads the last finished run: nothing new either.
    assert rules_check(project=project).decisions == []


def test_position_bias_judges_the_first_shown_choices_against_one_in_k_and_lists_what_it_found():
    project = ProjectFactory(redundancy=6)
    items = [ItemFactory(project=project) for _ in range(30)]
    preferred = {item.pk: "a1" if n % 2 == 0 else "a2" for n, item in enumerate(items)}
    honest = [UserFactory() for _ in range(5)]
    clicker = UserFactory(username="leftclicker")
    _answer_all(project, [*honest, clicker],
                lambda w, a: a.shown_order["sides"][0] if w is clicker else preferred[a.item_id])
    rule(project, "position_bias", threshold=0.2, min_answers=100)  # waits for more answers than there are
    bias = rule(project, "position_bias", threshold=0.2, min_answers=10, action="review")
    check = rules_check(project=project)
    [decision] = check.decisions
    assert decision.worker == clicker and decision.rule == bias
    ev = decision.evidence
    # 30 of 30 first-shown choices where an unbiased worker makes 1 of 2: 30 log(0.7 / 0.5).
    assert (ev["chose_first"], ev["answers"], ev["expected"]) == (30, 30, 0.5)
    assert ev["llr"] == pytest.approx(30 * math.log(1.4), abs=1e-4)
    assert state(project, clicker) == Standing.REVIEW
    assert [(found.worker, found.rule, found.decision) for found in check.listed] == [(clicker, bias, decision)]
    # Checked again: the same finding, listed, with no new decision.
    assert [(found.worker, found.decision) for found in rules_check(project=project).listed] == [(clicker, None)]


def test_position_bias_under_import_order_cannot_judge_and_says_why():
    project = ProjectFactory(redundancy=2, keep_import_order=True)
    for _ in range(20):
        ItemFactory(project=project)
    clicker = UserFactory()
    _answer_all(project, [clicker], lambda w, a: "a1")
    bias = rule(project, "position_bias", threshold=0.2, min_answers=5, action="block")
    check = rules_check(project=project)
    assert check.decisions == [] and state(project, clicker) == Standing.ACTIVE
    [(unjudged_rule, why)] = check.unjudged
    assert unjudged_rule == bias and why.startswith("cannot judge: the project shows every item's options in import order")


def test_every_run_judges_the_answer_rules_and_a_failed_run_judges_nothing():
    project = ProjectFactory()
    speeder = UserFactory()
    for _ in range(10):
        answered(project, speeder, seconds=1.0)
        answered(project, UserFactory(), seconds=30.0)
    rule(project, "too_fast", threshold=0.3, min_answers=5)
    failed = AnalysisRun.objects.create(project=project, kind="agreement", status=AnalysisRun.Status.FAILED)
    assert rules_after_run(run=failed) == []
    done = AnalysisRun.objects.create(project=project, kind="agreement", status=AnalysisRun.Status.DONE,
                                      result={"workers": []}, finished_at=timezone.now())
    [decision] = rules_after_run(run=done)
    assert decision.worker == speeder and decision.kind == "too_fast"


def test_a_run_without_intervals_judges_no_competence():
    project = ProjectFactory()
    worker = UserFactory(username="old")
    rule(project, "competence", threshold=0.5, min_answers=1)
    run = AnalysisRun.objects.create(project=project, kind="agreement", status=AnalysisRun.Status.DONE,
                                     finished_at=timezone.now(),
                                     result={"workers": [{"worker": "old", "annotations": 50, "competence": 0.01}]})
    assert rules_after_run(run=run) == []
    run.result["workers"][0].update(competence_low=0.0, competence_high=0.2)
    run.save()
    [decision] = rules_after_run(run=run)
    assert decision.worker == worker


@pytest.mark.parametrize("slug", [task.slug for task in task_types()])
def test_the_rules_on_answers_and_gold_counts_judge_every_task_type(slug):
    project = ProjectFactory(task_type=slug)
    speeder, bot, guesser = UserFactory(), UserFactory(), UserFactory()
    for _ in range(12):
        answered(project, speeder, seconds=0.5)
        answered(project, UserFactory(), seconds=15.0)
        answered(project, bot, seconds=15.0, client={"signals": {"webdriver": True}})
    gold_counts(project, guesser, 1, 15)
    for kind, threshold in (("too_fast", 0.3), ("automation", 0.0), ("gold_accuracy", 0.6)):
        rule(project, kind, threshold=threshold, min_answers=5)
    decided = {d.kind: d.worker for d in rules_check(project=project).decisions}
    assert decided == {"too_fast": speeder, "automation": bot, "gold_accuracy": guesser}
