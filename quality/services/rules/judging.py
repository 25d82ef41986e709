"""The rules that read single answers, judged as each answer arrives: too fast, position bias
and automated browsers (gold accuracy is judged in the submit's own transaction, where its
counts move: ``quality.services.checks``), and the request of a fresh agreement run every
``RUN_EVERY`` answers of a worker for the competence rule.

A submit registers ``answer_rules_judge`` to run once its transaction has committed
(``transaction.on_commit``): the answer is stored whatever the rules find, and a fault in a
rule never loses it. Each rule keeps its running evidence about the worker in one ``RuleState``
row, so judging an answer reads the project's enabled rules and its median time from the cache
(one read; the median recounted at most once a minute), and moves the worker's states of the
rules the answer tells something in one statement that returns them (``states``): one
query per answer, two on a worker's first. A state whose test may decide is read again, locked,
before the decision. After a decision the rule's state starts again from nothing: a worker whom
staff move back to active is judged afresh on new answers only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from annotation.models import Annotation, Assignment, Project, Purpose
from annotation.rule_defaults import RUN_EVERY
from annotation.selectors.counted import counted_as_data
from annotation.task_types.base import TaskType
from quality.models import QualityRule, RuleDecision, RuleState
from quality.services.rules.decisions import rule_decide
from quality.services.rules.states import rule_states_add, rule_states_locked
from quality.services.rules.verdicts import (
    position_bias_increment,
    position_bias_observation,
    state_evidence,
)

logger = logging.getLogger(__name__)
Kind = QualityRule.Kind
PER_ANSWER = (Kind.TOO_FAST, Kind.POSITION_BIAS, Kind.AUTOMATION, Kind.COMPETENCE)
# What judging an answer reads of a rule (kept in the cache).
RULE_FIELDS = ("kind", "action", "threshold", "min_answers", "share_of_median", "confidence")
# The competence rule's agreement run is requested every RUN_EVERY answers of a worker (one at a
# time per project).
# The project's median time is recounted at most this often, and judged on only once this many
# answers to real items were timed: a median of a handful of answers says nothing.
MEDIAN_SECONDS = 60
MEDIAN_MIN_ANSWERS = 20
# The rules are read from the cache, dropped by every change through the rule services; a
# change made around them (the admin site, the shell) reaches the submits within this long.
RULES_SECONDS = 30

# Apps above the engine (analysis) register what requests a run: the engine never imports them.
RunRequest = Callable[..., object]  # request(*, project_id)
_RUN_REQUESTS: list[RunRequest] = []


def run_request_register(*, request: RunRequest) -> RunRequest:
    """``request(project_id=…)`` queues an agreement run unless one is queued or running."""
    _RUN_REQUESTS[:] = [request]
    return request


@dataclass(frozen=True)
class ArrivedAnswer:
    """What the rules read of one stored answer: taken from the submit, never read again."""

    project_id: int
    worker_id: int
    purpose: str
    seconds: float | None
    automated: bool
    keep_import_order: bool
    task: TaskType
    shown: Mapping[str, Any] | None
    answer: Mapping[str, Any]


def answer_arrived(*, assignment: Assignment, annotation: Annotation, task: TaskType) -> ArrivedAnswer:
    signals = (annotation.client or {}).get("signals")
    return ArrivedAnswer(project_id=assignment.project_id, worker_id=assignment.worker_id, purpose=assignment.purpose,
                         seconds=annotation.seconds, automated=isinstance(signals, dict) and signals.get("webdriver") is True,
                         keep_import_order=assignment.project.keep_import_order, task=task,
                         shown=assignment.shown_order, answer=annotation.answer)


def median_seconds(*, project_id: int) -> float | None:
    """The median time of the project's counted answers to real items (server time), from the
    cache; None while fewer than ``MEDIAN_MIN_ANSWERS`` are timed."""
    return _median_of(cache.get(_median_key(project_id)), project_id=project_id)


def _median_key(project_id: int) -> str:
    return f"quality:median-seconds:{project_id}"


def _median_of(found: float | None, *, project_id: int) -> float | None:
    """The median as the cache held it (None: not there, recounted and kept)."""
    if found is None:
        project = Project(pk=project_id)
        timed = (Annotation.objects.filter(counted_as_data(project=project, prefix="assignment__"),
                                           assignment__project_id=project_id, seconds__isnull=False)
                 .order_by("seconds").values_list("seconds", flat=True))
        n = timed.count()
        middle = timed[n // 2] if n >= MEDIAN_MIN_ANSWERS else None
        found = float(middle) if middle is not None else -1.0
        cache.set(_median_key(project_id), found, MEDIAN_SECONDS)
    return None if found < 0 else float(found)


@dataclass(frozen=True)
class PerAnswerRule:
    """A per-answer rule's settings as a submit reads them from the cache: no model row is
    built per answer, only for a decision (``model``)."""

    id: int
    kind: str
    action: str
    threshold: float
    min_answers: int
    share_of_median: float
    confidence: float

    def model(self, *, project_id: int) -> QualityRule:
        return QualityRule(project_id=project_id, pk=self.id, **{name: getattr(self, name) for name in RULE_FIELDS})


def _increments(rule: PerAnswerRule, arrived: ArrivedAnswer, *, cutoff: float | None) -> tuple[int, float] | None:
    """What the answer adds to the rule's state (one answer, its hits and ratio), or None:
    nothing."""
    task_answer = arrived.purpose == Purpose.TASK
    if rule.kind == Kind.AUTOMATION:
        return (1, 0.0) if arrived.automated else None
    if rule.kind == Kind.COMPETENCE:
        return (0, 0.0) if task_answer else None
    if rule.kind == Kind.TOO_FAST:
        if not task_answer or cutoff is None or arrived.seconds is None:
            return None
        return int(arrived.seconds < cutoff), 0.0
    if rule.kind == Kind.POSITION_BIAS:
        if not task_answer or arrived.keep_import_order:
            return None
        seen = position_bias_observation(task=arrived.task, shown=arrived.shown, answer=arrived.answer)
        if seen is None:
            return None
        options, first = seen
        return int(first), position_bias_increment(rule=rule, options=options, chose_first=first)
    return None


def _rules_key(project_id: int) -> str:
    return f"quality:rules-per-answer:{project_id}"


def _rules_of(found: list[dict[str, Any]] | None, *, project_id: int) -> list[PerAnswerRule]:
    """The rules as the cache held them (None: not there, read and kept)."""
    if found is None:
        found = [{"id": r.pk, **{name: getattr(r, name) for name in RULE_FIELDS}}
                 for r in QualityRule.objects.filter(project_id=project_id, enabled=True, kind__in=PER_ANSWER)
                 .order_by("pk")]
        cache.set(_rules_key(project_id), found, RULES_SECONDS)
    return [PerAnswerRule(**row) for row in found]


def rules_per_answer(*, project_id: int) -> list[PerAnswerRule]:
    """The project's enabled per-answer rules, from the cache (dropped whenever a rule of the
    project changes: ``rules_per_answer_forget``), so that a submit reads no rule row."""
    return _rules_of(cache.get(_rules_key(project_id)), project_id=project_id)


def rules_per_answer_forget(*, project_id: int) -> None:
    cache.delete(_rules_key(project_id))


def answer_rules_judge(*, arrived: ArrivedAnswer, now: datetime | None = None) -> list[RuleDecision]:
    """Move the running evidence of each enabled per-answer rule of the project by this answer,
    and decide where a rule's test now decides. The rules and the median time come from the
    cache in one read; the states the answer moves are added to and read back in one statement
    (``rule_states_add``); only a decision reads them again, locked."""
    project_id = arrived.project_id
    found = cache.get_many([_rules_key(project_id), _median_key(project_id)])
    rules = _rules_of(found.get(_rules_key(project_id)), project_id=project_id)
    if not rules:
        return []
    median: float | None = None
    steps: dict[int, tuple[PerAnswerRule, float | None]] = {}
    added: list[tuple[int, int, float]] = []
    for rule in rules:
        cutoff = None
        if rule.kind == Kind.TOO_FAST and arrived.purpose == Purpose.TASK:
            median = _median_of(found.pop(_median_key(project_id), None), project_id=project_id) \
                if median is None else median
            cutoff = None if median is None else median * rule.share_of_median
        step = _increments(rule, arrived, cutoff=cutoff)
        if step is not None:
            steps[rule.id] = (rule, cutoff)
            added.append((rule.id, *step))
    if not steps:
        return []
    now = now or timezone.now()
    decide: list[int] = []
    for rule_id, answers, hits, llr in rule_states_add(worker_id=arrived.worker_id, added=added, now=now):
        rule, cutoff = steps[rule_id]
        if rule.kind == Kind.COMPETENCE:
            if answers % RUN_EVERY == 0 and _RUN_REQUESTS:
                transaction.on_commit(lambda: _RUN_REQUESTS[0](project_id=project_id))
        elif state_evidence(rule=rule, answers=answers, hits=hits, llr=llr, median=median, cutoff=cutoff) is not None:
            decide.append(rule_id)
    if not decide:
        return []
    decided: list[tuple[PerAnswerRule, dict[str, Any]]] = []
    with transaction.atomic():
        # Read again, locked: an answer of the same worker that arrived meanwhile counts, and a
        # state another answer's decision started again decides nothing.
        for rule_id, answers, hits, llr in rule_states_locked(worker_id=arrived.worker_id, rule_ids=decide):
            rule, cutoff = steps[rule_id]
            evidence = state_evidence(rule=rule, answers=answers, hits=hits, llr=llr, median=median, cutoff=cutoff)
            if evidence is not None:
                decided.append((rule, evidence))
        if decided:
            # The test starts again: new evidence only decides again.
            RuleState.objects.filter(worker_id=arrived.worker_id, rule_id__in=[rule.id for rule, _ in decided]) \
                .update(answers=0, hits=0, llr=0.0, updated_at=now)
        models = [(rule.model(project_id=project_id), evidence) for rule, evidence in decided]
        decisions = [rule_decide(rule=model, project=Project(pk=project_id), worker=User(pk=arrived.worker_id),
                                 evidence=evidence, trigger=f"answer ({model.get_kind_display().lower()})"[:100],
                                 now=now) for model, evidence in models]
    return [d for d in decisions if d is not None]


def answer_rules_judge_safely(*, arrived: ArrivedAnswer) -> None:
    """``answer_rules_judge`` after a submit's commit: a fault is logged, the answer stays."""
    try:
        answer_rules_judge(arrived=arrived)
    except Exception:
        logger.exception("the quality rules could not judge an answer of worker %s in project %s",
                         arrived.worker_id, arrived.project_id)


def answer_rules_after_commit(*, assignment: Assignment, annotation: Annotation, task: TaskType) -> None:
    """Have the per-answer rules judge this answer once the submit's transaction commits."""
    arrived = answer_arrived(assignment=assignment, annotation=annotation, task=task)
    transaction.on_commit(lambda: answer_rules_judge_safely(arrived=arrived))
