"""Scoring a gold or training answer when it is submitted, in the submission's transaction: the
task type scores it against the item's known answer (``TaskType.score_gold`` with the project's
``QualityPolicy``), a ``CheckResult`` keeps the score with the expected answer, the worker's
gold counts or their open round move, and the project's gold-accuracy rules judge the worker.

A gold-accuracy rule judges the worker's running gold counts by its sequential test
(``quality.services.rules.verdicts.gold_accuracy_evidence``), here, in the transaction that
moves the counts, so that a decision and the counts it rests on never disagree. The test's
error over the whole study is the rule's ``1 - confidence``, however many gold answers come:
a short unlucky run (2 of 3 right against a bar of 0.8) blocks nobody.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.db.models import F

from annotation.models import Annotation, Assignment, Project, Purpose
from annotation.quality_port import CheckOutcome
from annotation.task_types.base import TaskType
from annotation.task_types.gold import CleanGold
from quality.models import (
    CheckResult,
    GoldAnswer,
    QualityPolicy,
    QualityRule,
    TrainingRound,
    WorkerStanding,
)
from quality.services.rules.decisions import rule_decide, rules_enabled
from quality.services.rules.verdicts import gold_accuracy_evidence
from quality.services.standing import gold_policy, standing_for
from quality.services.training import training_round_count

# The policy's fields a check reads: what feedback to show, and how to score.
_POLICY_FIELDS = ("gold_feedback", "training_feedback", "set_overlap", "set_pass", "rubric")
Feedback = QualityPolicy.TrainingFeedback


def check_score(*, assignment: Assignment, annotation: Annotation, task: TaskType, now: datetime) -> CheckOutcome | None:
    """Score the answer to a gold question or training item and record what follows from it.
    None for a task answer, or an item that has no known answer (any more)."""
    if assignment.purpose == Purpose.TASK:
        return None
    project = assignment.project
    # Plain reads: cheaper for the ORM to build than one statement with subqueries.
    found = (GoldAnswer.objects.filter(item_id=assignment.item_id)
             .values_list("answer", "accept", "explanation").first())
    if found is None:
        return None
    expected, accept, explanation = found
    settings = QualityPolicy.objects.filter(project_id=project.pk).values_list(*_POLICY_FIELDS).first()
    # Without a stored policy, its defaults.
    policy = QualityPolicy(project=project, **(dict(zip(_POLICY_FIELDS, settings, strict=True)) if settings else {}))
    scored = task.score_gold(answer=annotation.answer, gold=CleanGold(answer=expected, accept=list(accept)),
                             policy=gold_policy(policy=policy))
    training_round = None
    if assignment.purpose == Purpose.TRAINING:
        training_round = (TrainingRound.objects.select_for_update()
                          .filter(project=project, worker_id=assignment.worker_id, finished_at__isnull=True).first())
    result = CheckResult.objects.create(
        assignment=assignment, project=project, worker_id=assignment.worker_id, purpose=assignment.purpose,
        round=training_round, score=min(max(scored.score, 0.0), 1.0), right=scored.right, method=scored.method[:40],
        expected=expected, scored_at=now)
    if training_round is not None:
        training_round_count(training_round=training_round, right=scored.right, now=now)
    if assignment.purpose == Purpose.GOLD:
        gold_answer_count(project=project, worker_id=assignment.worker_id, right=scored.right, now=now)
        return CheckOutcome(result=result, feedback=policy.gold_feedback, explanation=explanation)
    how = policy.training_feedback
    if how == Feedback.AFTER_ROUND:
        closed = training_round is not None and training_round.finished_at is not None
        settled = (tuple(CheckResult.objects.filter(round=training_round).order_by("scored_at", "pk")
                         .values_list("right", flat=True)) if closed else ())
        return CheckOutcome(result=result, feedback=closed, expected_shown=False, round_results=settled)
    full = how == Feedback.AFTER_EACH
    return CheckOutcome(result=result, feedback=True, explanation=explanation if full else "", expected_shown=full)


def gold_answer_count(*, project: Project, worker_id: int, right: bool, now: datetime) -> None:
    """Add one gold answer to the worker's counts, then let the project's gold-accuracy rules
    judge; the counts are read back only when there is a rule."""
    worker = User(pk=worker_id)  # only its id is read: no query for the row
    rows = WorkerStanding.objects.filter(project_id=project.pk, worker_id=worker_id)
    if not rows.update(gold_answered=F("gold_answered") + 1, gold_right=F("gold_right") + int(right)):
        # No standing yet (answers handed out before quality control): made, then counted.
        standing_for(project=project, worker=worker)
        rows.update(gold_answered=F("gold_answered") + 1, gold_right=F("gold_right") + int(right))
    rules = rules_enabled(project=project, kind=QualityRule.Kind.GOLD_ACCURACY)
    if not rules:
        return
    gold_right, gold_answered = rows.values_list("gold_right", "gold_answered").get()
    for rule in rules:
        evidence = gold_accuracy_evidence(rule=rule, right=gold_right, answered=gold_answered)
        if evidence is not None:
            rule_decide(rule=rule, project=project, worker=worker, evidence=evidence, trigger="gold answer", now=now)
